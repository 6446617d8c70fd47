"""Data-parallel training over the threads of one process.

``DataParallel`` in a job of one process (no ``mpirun``) splits every training batch of
``fit``/``train_on_batch`` into one contiguous share per engine thread (on the NumPy
engine: per BLAS thread, 2 on a 2-core machine), and runs each share's forward pass, loss
and backward pass side by side, BLAS on one thread each; one optimizer update then applies
the gradients averaged with the weight of each share. A step then crosses between threads
twice, instead of at every GEMM and every row-blocked kernel (the per-op hand-offs of a
step of many small ops).

The update is the plain step's for the same batch and seed, as over processes (see
:class:`~lamina.highlevel.distribution.DataParallel`): each share's loss divides by the
whole batch's denominator (summed over the threads), random layers use the whole batch's
draw (the first thread draws, from the step's generator), and the loss and metrics are
those of the whole batch. Only float rounding differs (sums in another order). A custom
layer that draws random numbers in ``call`` itself (``lamina.random`` rather than a
Dropout-like layer) draws once per share, from the shared generator, in whichever order
the threads come.

A step runs plainly, on one thread, when the engine offers one thread (the CuPy engine,
BLAS limited to one thread, ``LAMINA_HOST_TUNING=0``), the batch has fewer rows than
threads, the worker threads are busy (another thread's step holds them), or the model
has non-trainable weights: a variable that a training pass updates (BatchNormalization's
moving statistics, a stateful RNN's states) would be updated once per share. It also runs
plainly when the model's own earlier steps of that batch size ran faster that way (timed
by :mod:`.split_choice`). The model's own ``train_step`` or ``compute_loss``, and
``jit_compile=True``, also run as written, unsplit (the training loop checks those).
"""

import threading
import time

from ...backends import replica, state
from ...backends.autodiff import Tensor
from . import split_choice
from .training_hook import batch_rows, take_rows

_enabled = {"on": False}


def set_enabled(on):
    """Split the training steps over threads from now on (``set_distribution`` does)."""
    _enabled["on"] = bool(on)


def shares(model, x):
    """The row slices, one per thread, that a training step on batch inputs ``x`` would be
    split into, or None when it runs plainly and untimed (see the module's docstring; also
    once :mod:`.split_choice` has chosen plain steps for that many rows)."""
    plan = _plan(model, x)
    return None if plan is None else plan[1]


def loss_and_gradients(model, data, step, trainable):
    """One training step's forward and backward pass on ``data = (x, y, sample_weight)``,
    split over the threads (:func:`shares`) or plainly, as :mod:`.split_choice` picks from
    the model's earlier steps (while it has not chosen, this step's time is counted
    there). ``step(data, variables=None, weight=1.0)`` is the plain pass (see :func:`run`),
    ``trainable()`` the model's trainable variables. Returns ``(loss, parts, variables,
    gradients)`` as :func:`run` does, ``loss`` a float array."""
    plan = _plan(model, data[0])
    if plan is None:
        return _plain(data, step)
    choice, row_shares = plan
    rows = batch_rows(data[0])
    probing = choice.chosen(rows) is None
    started = time.perf_counter()
    result = None
    if choice.wants_split(rows):
        variables = trainable()
        split = run(step, data, variables, row_shares)
        if split is not None:
            result = split[:2] + (variables, split[2])
    ran_split = result is not None
    if not ran_split:
        result = _plain(data, step)
    if probing:
        choice.record(rows, ran_split, time.perf_counter() - started)
    return result


def _plan(model, x):
    """``(the model's SplitChoice, the row slices)`` when a step on batch inputs ``x`` may
    run split, else None."""
    if not _enabled["on"] or not model.built:
        return None
    rows, choice = batch_rows(x), split_choice.for_model(model)
    if choice.chosen(rows) is False:
        return None           # no more checks each step
    count = state.backend().replica_threads()
    if count < 2 or rows < count or model.non_trainable_weights:
        return None
    bounds = [rows * k // count for k in range(count + 1)]
    return choice, [slice(bounds[k], bounds[k + 1]) for k in range(count)]


def _plain(data, step):
    loss, y_pred, variables, gradients = step(data)
    return loss.data, [(data, y_pred)], variables, gradients


def run(loss_and_gradients, data, variables, row_shares):
    """Run ``loss_and_gradients(share_data, variables, weight) -> (loss, y_pred,
    variables, gradients)`` on each share of ``data = (x, y, sample_weight)`` on its own
    thread, the gradients those of the share's loss times ``weight``, its share of the
    rows.

    Returns ``(loss, parts, gradients)``: the whole batch's loss (a float array), each
    share's ``(share_data, y_pred)`` and the share-weighted average of the gradients (one
    Tensor per variable) -- or None, having run nothing, when the threads are busy.
    """
    total = batch_rows(data[0])
    group = replica.ThreadGroup(len(row_shares))
    scope = state.thread_values()
    weights = [(rows.stop - rows.start) / total for rows in row_shares]

    def replica_step(rank):
        rows = row_shares[rank]
        token = state.adopt(scope) if rank else None
        replica.set_share((total, rows.start, rows.stop), (group, rank))
        try:
            part = tuple(take_rows(item, rows.start, rows.stop) for item in data)
            return True, part, loss_and_gradients(part, variables, weights[rank])
        except BaseException as raised:   # noqa: B036 - re-raised by run() on its thread
            group.abort()
            return False, raised, None
        finally:
            replica.set_share(None)
            if token is not None:
                state.restore(token)

    outcomes = state.backend().run_replicas(replica_step, len(row_shares))
    if outcomes is None:
        return None
    errors = [value for finished, value, _ in outcomes if not finished]
    if errors:   # the error of the thread that failed, not the others' broken waits
        raise next((error for error in errors
                    if not isinstance(error, threading.BrokenBarrierError)), errors[0])
    results = [result for _, _, result in outcomes]
    loss = sum(weight * result[0].data for weight, result in zip(weights, results))
    gradients = [_summed([result[3][k] for result in results]) for k in range(len(variables))]
    parts = [(part, result[1]) for (_, part, _), result in zip(outcomes, results)]
    return loss, parts, gradients


def _summed(tensors):
    """The shares' (weighted) gradients of one variable summed, as a new Tensor (a
    gradient array may be shared with another variable's, so none is added into)."""
    array = tensors[0].data + tensors[1].data
    for tensor in tensors[2:]:
        array += tensor.data
    return Tensor(array)
