"""Where the running step's batch sits in a data-parallel global batch, for the layers.

Data-parallel training (``lamina.distribution``) gives each process a contiguous share,
rows ``[start, stop)``, of every global batch of ``total`` rows. Two kinds of layer must
know it, and read it here (layers sit below the training loop, so the loop announces the
share through this module rather than the layers asking the loop):

* random layers (Dropout, GaussianNoise, ...) draw the noise of the whole global batch
  with :func:`draw_rows` and keep their rows, so their masks -- and so the trained
  weights -- do not depend on the number of processes;
* ``BatchNormalization(synchronized=True)`` sums its moments over the processes with
  :func:`cross_replica_sum`.

Losses read it too (their denominators are the global batch's), and optimizers average
a step's gradients through :func:`reduce_gradients`.

Outside a data-parallel step (one process, ``predict``, a plain ``model(x)``) there is no
share and both are the single-process behaviour.

A share may also be one *thread's* rows: ``DataParallel`` in a one-process job splits
each batch over the engine's threads (:mod:`lamina.highlevel.distribution.thread_replicas`),
and the threads of one step form a :class:`ThreadGroup`. Its collectives stand in for the
processes': :func:`cross_replica_sum` sums over the threads, and :func:`draw_rows` /
:func:`draw_shared` let the first thread alone draw (the single-process draw, from its
generator) and hand every thread its part, so the masks do not depend on which thread
ran first.
"""

import contextlib
import threading


class _Share(threading.local):
    """The calling thread's share ``(total, start, stop)`` or None, and its
    ``(ThreadGroup, rank)`` when the share is one thread's of a step (else None)."""

    rows = None
    group = None


class ThreadGroup:
    """The ``size`` threads running one step's shares side by side, and their collectives.

    Every thread calls the collectives in the same order (they run the same model), so the
    k-th call of each meets the k-th of the others. A thread that fails calls
    :meth:`abort`, and the others' waits raise ``threading.BrokenBarrierError`` instead of
    waiting for it forever.
    """

    def __init__(self, size):
        self.size = size
        self._values = [None] * size
        self._barrier = threading.Barrier(size)

    def exchange(self, rank, value):
        """Every thread's ``value`` of this collective, in rank order."""
        self._values[rank] = value
        self._barrier.wait()
        values = list(self._values)
        self._barrier.wait()    # all have read before a next collective writes
        return values

    def abort(self):
        """Release the other threads from their waits (this one will not come)."""
        self._barrier.abort()


_share = _Share()
_reducer = {"sum": None, "gradients": None}


def current_share():
    """``(total, start, stop)`` of the step running on this thread, or None."""
    return _share.rows


def set_share(rows, group=None):
    """Announce the running step's share ``(total, start, stop)`` (None: no share), and
    ``group = (ThreadGroup, rank)`` when it is one thread's share."""
    _share.rows = rows
    _share.group = group


def _first_thread_draws(draw, shape):
    """``draw(shape)`` made by the group's first thread, seen by all of its threads."""
    group, rank = _share.group
    return group.exchange(rank, draw(shape) if rank == 0 else None)[0]


def draw_rows(draw, shape):
    """``draw(shape)`` -- a random draw whose axis 0 is the batch -- as the rows of this
    process' share of the draw for the whole global batch (the single-process draw when no
    share is announced, or when ``shape[0]`` is not the share's row count)."""
    rows = _share.rows
    if rows is None or not shape or shape[0] != rows[2] - rows[1]:
        return draw_shared(draw, shape)
    total, start, stop = rows
    whole = (total,) + tuple(shape[1:])
    if _share.group is not None:
        return _first_thread_draws(draw, whole)[start:stop]
    return draw(whole)[start:stop]


def draw_shared(draw, shape):
    """``draw(shape)`` -- a draw that is not per row (a noise shape without the batch) --
    the same for every thread of a step's group (``draw(shape)`` itself outside one)."""
    if _share.group is None:
        return draw(shape)
    return _first_thread_draws(draw, shape)


def set_cross_replica_sum(function):
    """Register ``function(array) -> array`` summing an engine array over every process
    (``lamina.distribution`` does, for a job of several processes; None unregisters)."""
    _reducer["sum"] = function


def cross_replica_sum(array):
    """``array`` summed over every process of the data-parallel job, and over the threads
    of the step's :class:`ThreadGroup` (itself when the job has one process and the step
    one thread, or outside a data-parallel step)."""
    if _share.rows is None:
        return array
    if _share.group is not None:
        group, rank = _share.group
        parts = group.exchange(rank, array)
        array = parts[0]
        for part in parts[1:]:
            array = array + part
    function = _reducer["sum"]
    return array if function is None else function(array)


def share_fraction():
    """This process' rows over the global batch's rows in the running step (1.0 without a
    share): the weight its gradients get in the average over processes."""
    rows = _share.rows
    if rows is None:
        return 1.0
    total, start, stop = rows
    return (stop - start) / total


class _Reduced(threading.local):
    """Whether the calling thread's gradients are averaged already."""

    reduced = False


_gradients = _Reduced()


def set_gradient_reducer(function):
    """Register ``function(gradients) -> gradients`` that averages a step's gradients over
    the processes (``lamina.distribution`` does while a ``DataParallel`` of several
    processes is the distribution set; None unregisters). Optimizers call it through
    :func:`reduce_gradients`."""
    _reducer["gradients"] = function


def reduce_gradients(gradients):
    """``gradients`` averaged over the processes by the registered reducer (themselves
    when none is, or inside :func:`gradients_reduced`). ``Optimizer.apply`` calls it
    first, so a custom ``train_step`` with ``grad`` and ``optimizer.apply`` averages too."""
    function = _reducer["gradients"]
    if function is None or _gradients.reduced:
        return gradients
    return function(gradients)


@contextlib.contextmanager
def gradients_reduced():
    """Inside it :func:`reduce_gradients` is the identity on this thread: an optimizer that
    averaged already and hands its gradients to an inner one (LossScaleOptimizer)."""
    before, _gradients.reduced = _gradients.reduced, True
    try:
        yield
    finally:
        _gradients.reduced = before
