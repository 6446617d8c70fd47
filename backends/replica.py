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
"""

import contextlib
import threading


class _Share(threading.local):
    """The calling thread's share ``(total, start, stop)`` or None."""

    rows = None


_share = _Share()
_reducer = {"sum": None, "gradients": None}


def current_share():
    """``(total, start, stop)`` of the step running on this thread, or None."""
    return _share.rows


def set_share(rows):
    """Announce the running step's share ``(total, start, stop)`` (None: no share)."""
    _share.rows = rows


def draw_rows(draw, shape):
    """``draw(shape)`` -- a random draw whose axis 0 is the batch -- as the rows of this
    process' share of the draw for the whole global batch (the single-process draw when no
    share is announced, or when ``shape[0]`` is not the share's row count)."""
    rows = _share.rows
    if rows is None or not shape or shape[0] != rows[2] - rows[1]:
        return draw(shape)
    total, start, stop = rows
    return draw((total,) + tuple(shape[1:]))[start:stop]


def set_cross_replica_sum(function):
    """Register ``function(array) -> array`` summing an engine array over every process
    (``lamina.distribution`` does, for a job of several processes; None unregisters)."""
    _reducer["sum"] = function


def cross_replica_sum(array):
    """``array`` summed over every process of the data-parallel job (itself when the job
    has one process, or outside a data-parallel step)."""
    function = _reducer["sum"]
    if function is None or _share.rows is None:
        return array
    return function(array)


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
