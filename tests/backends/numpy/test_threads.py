"""Row blocks on threads (``backends/batch_threads.py``): convolution, pooling, the LSTM and
the GRU give the same values and gradients split into blocks as in one piece; errors,
ordering, nesting and forks are handled."""

import multiprocessing
import threading

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.backends import Tensor
from lamina.backends.numpy import threads as batch_threads, engine as numpy_backend

RNG = np.random.default_rng(11)


@pytest.fixture
def force_blocks(monkeypatch):
    """``force(count)``: from now on split every batch into (up to) ``count`` blocks,
    whatever the machine's BLAS."""
    def force(count):
        monkeypatch.setattr(batch_threads, "thread_count", lambda: count)
        monkeypatch.setattr(batch_threads, "MIN_BLOCK_ELEMENTS", 1)

    return force


@pytest.fixture
def three_blocks(force_blocks):
    force_blocks(3)


def values_and_gradients(make_output, arrays):
    tensors = [Tensor(a, requires_grad=True) for a in arrays]
    out = make_output(*tensors)
    weights = RNG.standard_normal(out.shape).astype(out.dtype)
    grads = lamina.grad(ops.sum(out * weights), tensors)
    return [out.numpy()] + [g.numpy() for g in grads], weights


def assert_blocks_equal_one_piece(make_output, arrays, force_blocks, atol):
    """The output and input gradients of ``make_output`` in 3 blocks equal one block's."""
    force_blocks(1)
    whole, weights = values_and_gradients(make_output, arrays)
    force_blocks(3)
    assert len(batch_threads.blocks(arrays[0].shape[0], 10 ** 6)) == 3
    tensors = [Tensor(a, requires_grad=True) for a in arrays]
    out = make_output(*tensors)
    split = [out.numpy()] + [g.numpy() for g in
                             lamina.grad(ops.sum(out * weights), tensors)]
    for got, want in zip(split, whole):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=atol)


CONV_CASES = {
    "valid_relu": ((5, 9, 9, 3), (3, 3, 3, 4), dict(activation="relu")),
    "same_strided_tanh": ((4, 8, 7, 2), (3, 2, 2, 5), dict(strides=2, padding="same",
                                                           activation="tanh")),
    "dilated_sigmoid": ((3, 10, 10, 2), (3, 3, 2, 3), dict(dilation_rate=2,
                                                           activation="sigmoid")),
    "grouped": ((4, 6, 6, 4), (3, 3, 2, 6), {}),
    "depthwise": ((4, 6, 6, 3), (3, 3, 1, 6), dict(padding="same")),
    "one_channel": ((7, 8, 8, 1), (3, 3, 1, 4), dict(activation="relu")),
    "conv1d_causal": ((5, 12, 3), (3, 3, 4), dict(padding="causal")),
}


@pytest.mark.parametrize("case", list(CONV_CASES))
def test_conv_in_blocks_equals_one_piece(case, force_blocks):
    x_shape, k_shape, options = CONV_CASES[case]
    arrays = [RNG.standard_normal(x_shape).astype("float32"),
              (RNG.standard_normal(k_shape) * 0.3).astype("float32"),
              RNG.standard_normal(k_shape[-1]).astype("float32")]

    def conv(x, kernel, bias):
        return ops.conv(x, kernel, bias=bias, **options)

    assert_blocks_equal_one_piece(conv, arrays, force_blocks, atol=1e-5)


POOL_CASES = {
    "max_tiled": ((5, 8, 8, 3), dict(pool_size=2)),
    "max_same_overlapping": ((4, 7, 9, 2), dict(pool_size=3, strides=2, padding="same")),
    "average_same": ((3, 7, 7, 2), dict(pool_size=2, padding="same", mode="average")),
    "average_1d": ((5, 11, 3), dict(pool_size=3, strides=2, mode="average")),
}


@pytest.mark.parametrize("case", list(POOL_CASES))
def test_pooling_in_blocks_equals_one_piece(case, force_blocks):
    x_shape, options = POOL_CASES[case]
    arrays = [RNG.standard_normal(x_shape).astype("float32")]

    def pool(x):
        return ops.pool(x, **options)

    force_blocks(1)
    whole, weights = values_and_gradients(pool, arrays)
    force_blocks(3)
    tensor = Tensor(arrays[0], requires_grad=True)
    out = pool(tensor)
    (grad,) = lamina.grad(ops.sum(out * weights), [tensor])
    np.testing.assert_array_equal(out.numpy(), whole[0])
    np.testing.assert_allclose(grad.numpy(), whole[1], rtol=1e-6, atol=1e-6)


RECURRENT_CASES = {"lstm": (ops.lstm, 4, (16,), 2),   # op, gates, bias shape, states
                   "gru": (ops.gru, 3, (2, 12), 1)}


@pytest.mark.parametrize("case", list(RECURRENT_CASES))
def test_recurrent_ops_in_blocks_equal_one_piece(case, force_blocks):
    """Row blocks of the time loops (they run in blocks with the compiled cells), with a
    mask, recurrent dropout and initial states."""
    if numpy_backend.compiled("cells") is None:
        pytest.skip("no compiled cells (Numba missing or LAMINA_JIT=0): one block only")
    op, gates, bias_shape, states = RECURRENT_CASES[case]
    batch, steps, features, units = 7, 5, 3, 4
    arrays = [RNG.standard_normal(shape).astype("float32") * 0.5 for shape in (
        (batch, steps, features), (features, gates * units), (units, gates * units),
        bias_shape)] + [RNG.standard_normal((batch, units)).astype("float32")
                        for _ in range(states)]
    options = dict(mask=RNG.uniform(size=(batch, steps)) > 0.3,
                   recurrent_dropout_mask=((RNG.uniform(size=(batch, units)) > 0.4) * 1.5)
                   .astype("float32"))

    def sequence_op(*tensors):
        return ops.concatenate([ops.reshape(out, (batch, -1))
                                for out in op(*tensors, **options)], axis=1)

    assert_blocks_equal_one_piece(sequence_op, arrays, force_blocks, atol=1e-6)


def test_blocks_cover_the_batch_and_respect_the_minimum(three_blocks, monkeypatch):
    assert batch_threads.blocks(7, 10 ** 6) == [slice(0, 2), slice(2, 4), slice(4, 7)]
    assert batch_threads.blocks(2, 10 ** 6) == [slice(0, 1), slice(1, 2)]
    monkeypatch.setattr(batch_threads, "MIN_BLOCK_ELEMENTS", 1000)
    assert batch_threads.blocks(8, 1999) == [slice(0, 8)]


def test_the_default_minimum_keeps_small_transformer_passes_on_the_calling_thread(
        monkeypatch):
    """At the default minimum a (2048, 128) pass (W5's LayerNorm, a 128-wide Dense
    epilogue) costs less than a hand-off and stays one block; W5's attention scores (32
    samples x 4 heads x 64 x 64) and a (2048, 256) epilogue still split."""
    monkeypatch.setattr(batch_threads, "thread_count", lambda: 2)
    assert batch_threads.blocks(2048, 2048 * 128) == [slice(0, 2048)]
    assert len(batch_threads.blocks(32, 32 * 4 * 64 * 64)) == 2
    assert len(batch_threads.blocks(2048, 2048 * 256)) == 2


def test_run_keeps_order_runs_on_threads_and_waits_for_every_block(three_blocks):
    names, finished = [], []

    def work(rows):
        names.append(threading.current_thread().name)
        if rows.start == 0:
            raise ValueError("block 0 failed")
        finished.append(rows.start)
        return rows.start

    blocks = batch_threads.blocks(9, 10 ** 6)
    assert batch_threads.run(lambda rows: rows.stop, blocks) == [3, 6, 9]
    with pytest.raises(ValueError, match="block 0 failed"):
        batch_threads.run(work, blocks)
    assert sorted(finished) == [3, 6]            # the other blocks still finished
    assert any(name.startswith("lamina-block") for name in names)
    # a block that itself splits runs its inner blocks in place (no waiting on itself)
    inner = batch_threads.run(lambda rows: batch_threads.run(lambda r: r.start, blocks),
                              blocks)
    assert inner == [[0, 3, 6]] * 3


def _blocks_in_child(_):
    return batch_threads.run(lambda rows: rows.start, [slice(0, 1), slice(1, 2)])


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                    reason="needs fork")
def test_worker_threads_are_made_again_in_a_forked_child():
    batch_threads.run(lambda rows: None, [slice(0, 1), slice(1, 2)])   # pool exists here
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.map(_blocks_in_child, [0], chunksize=1) == [[0, 1]]


def test_overlapping_callers_leave_blas_threads_as_they_were(three_blocks):
    if not batch_threads.available():
        pytest.skip("blocks do not run on threads with this BLAS")
    import threadpoolctl

    def blas_threads():
        return [info["num_threads"] for info in threadpoolctl.threadpool_info()
                if info["user_api"] == "blas"]

    before = blas_threads()
    both_inside = threading.Barrier(2)

    def work(rows):
        if rows.start == 0:
            both_inside.wait(timeout=30)       # each caller's first block waits for the other
        return rows.start

    blocks = batch_threads.blocks(6, 10 ** 6)
    other = threading.Thread(target=batch_threads.run, args=(work, blocks))
    other.start()
    assert batch_threads.run(work, blocks) == [0, 2, 4]
    other.join(timeout=30)
    assert blas_threads() == before


def test_a_caller_finding_the_pool_busy_runs_its_blocks_in_place(three_blocks):
    inside, release = threading.Event(), threading.Event()
    names = []

    def holder(rows):
        if rows.start == 0:
            inside.set()
            release.wait(timeout=30)
        return rows.start

    blocks = batch_threads.blocks(6, 10 ** 6)
    other = threading.Thread(target=batch_threads.run, args=(holder, blocks))
    other.start()
    assert inside.wait(timeout=30)
    try:
        got = batch_threads.run(lambda rows: names.append(
            threading.current_thread().name) or rows.stop, blocks)
    finally:
        release.set()
        other.join(timeout=30)
    assert got == [2, 4, 6]
    assert names == [threading.current_thread().name] * 3


def test_another_callers_blocks_do_not_change_how_this_thread_splits_rows(monkeypatch):
    """While one thread's blocks run (BLAS limited to one thread, process-wide), another
    thread still splits its rows as on an idle pool; inside the blocks the count is 1."""
    if not batch_threads.available() or batch_threads.thread_count() < 2:
        pytest.skip("blocks do not run on several threads with this BLAS here")
    monkeypatch.setattr(batch_threads, "MIN_BLOCK_ELEMENTS", 1)
    idle_count, idle_blocks = batch_threads.thread_count(), batch_threads.blocks(6, 10 ** 6)
    inside, release = threading.Event(), threading.Event()
    counts_inside = []

    def holder(rows):
        counts_inside.append(batch_threads.thread_count())
        if rows.start == 0:
            inside.set()
            release.wait(timeout=30)
        return rows.start

    other = threading.Thread(target=batch_threads.run, args=(holder, idle_blocks))
    other.start()
    assert inside.wait(timeout=30)
    try:
        busy_count, busy_blocks = batch_threads.thread_count(), batch_threads.blocks(6, 10 ** 6)
    finally:
        release.set()
        other.join(timeout=30)
    assert (busy_count, busy_blocks) == (idle_count, idle_blocks)
    assert counts_inside == [1] * len(idle_blocks)
    assert batch_threads.thread_count() == idle_count


def test_a_block_thread_keeps_no_reference_to_its_task(three_blocks):
    import gc
    import weakref

    class Payload:
        pass

    payload = Payload()
    alive = weakref.ref(payload)
    batch_threads.run(lambda rows, kept=payload: rows.start, batch_threads.blocks(6, 10 ** 6))
    del payload
    gc.collect()
    assert alive() is None


def _held_lock_child(_):
    return batch_threads.run(lambda rows: threading.current_thread().name.split("-")[0],
                             [slice(0, 1), slice(1, 2)])


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                    reason="needs fork")
def test_a_child_forked_while_blocks_ran_still_runs_blocks_on_threads():
    inside, release = threading.Event(), threading.Event()

    def holder(rows):
        if rows.start == 0:
            inside.set()
            release.wait(timeout=30)

    other = threading.Thread(target=batch_threads.run,
                             args=(holder, [slice(0, 1), slice(1, 2)]))
    other.start()
    assert inside.wait(timeout=30)
    try:
        with multiprocessing.get_context("fork").Pool(1) as pool:
            names = pool.map(_held_lock_child, [0], chunksize=1)[0]
    finally:
        release.set()
        other.join(timeout=30)
    assert names == ["MainThread", "lamina"]


def test_run_block_sums_gives_each_block_its_own_total(three_blocks):
    engine = numpy_backend.NumpyBackend()
    values = RNG.standard_normal((9, 4))
    seen = []

    def work(rows, total):
        seen.append(total.__array_interface__["data"][0])   # where it lives
        total += values[rows].sum(axis=0)

    blocks = batch_threads.blocks(9, 10 ** 6)
    got = engine.run_block_sums(work, blocks, (4,), values.dtype)
    np.testing.assert_allclose(got, values.sum(axis=0), rtol=1e-12)
    assert len(set(seen)) == 3
    one = engine.run_block_sums(work, [slice(0, 9)], (4,), values.dtype)
    np.testing.assert_allclose(one, values.sum(axis=0), rtol=1e-12)


def test_run_concurrently_runs_every_item_at_once_or_nothing(force_blocks):
    force_blocks(2)
    meeting = threading.Barrier(2, timeout=30)     # waits forever unless both run at once

    def work(rank):
        meeting.wait()
        return rank, threading.current_thread().name

    got = batch_threads.run_concurrently(work, 2)
    assert [rank for rank, _ in got] == [0, 1]
    assert got[0][1] == threading.current_thread().name != got[1][1]
    ran = []
    assert batch_threads.run_concurrently(ran.append, 3) is None     # more than the threads
    assert batch_threads.run_concurrently(ran.append, 1) is None
    nested = batch_threads.run_concurrently(
        lambda rank: batch_threads.run_concurrently(ran.append, 2), 2)
    assert nested == [None, None] and ran == []       # the pool is taken: nothing ran


def test_run_concurrently_raises_a_failing_item_s_error_after_all_finish(force_blocks):
    force_blocks(2)
    finished = []

    def work(rank):
        if rank == 0:
            raise ValueError("item 0")
        finished.append(rank)

    with pytest.raises(ValueError, match="item 0"):
        batch_threads.run_concurrently(work, 2)
    assert finished == [1]
    assert batch_threads.run_concurrently(lambda rank: rank, 2) == [0, 1]   # pool free
