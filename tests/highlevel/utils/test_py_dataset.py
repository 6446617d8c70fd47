"""``PyDataset`` (``highlevel/utils/py_dataset.py``) and its workers in ``fit``/``evaluate``/
``predict``: concurrent ``__getitem__`` calls (seen through barriers, not clocks), batches in
order, a bounded queue, a worker's exception raised in ``fit`` with its type, message and
traceback, and no thread or process left behind however the loop ends."""

import multiprocessing
import threading
import traceback

import numpy as np
import pytest

import lamina
from lamina.utils import PyDataset, Sequence

WORKER_PREFIX = "lamina_pydataset_worker"
GUARD = 20   # seconds: only reached when the behaviour under test is missing


def identity_model():
    model = lamina.Sequential([lamina.layers.Input((1,)), lamina.layers.Dense(
        1, kernel_initializer="ones", bias_initializer="zeros")])
    model.compile("sgd", "mse")
    return model


def assert_no_workers_left():
    assert not [t.name for t in threading.enumerate() if t.name.startswith(WORKER_PREFIX)]
    assert multiprocessing.active_children() == []


class Indexed(PyDataset):
    """Batch ``i`` is ``x = y = i`` (4 rows); ``hook(i)`` runs first."""

    def __init__(self, length=6, hook=None, **kwargs):
        super().__init__(**kwargs)
        self.length, self.hook = length, hook

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        if self.hook is not None:
            self.hook(index)
        x = np.full((4, 1), index, "float32")
        return x, x


@pytest.mark.parametrize("processes", [False, True], ids=["threads", "processes"])
def test_workers_load_batches_concurrently(processes):
    # 4 parties: fit only gets past the barrier if 4 __getitem__ calls run at the same time
    barrier = (multiprocessing.get_context("fork").Barrier if processes
               else threading.Barrier)(4, timeout=GUARD)
    data = Indexed(8, hook=lambda index: barrier.wait(), workers=4,
                   use_multiprocessing=processes)
    history = identity_model().fit(data, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2
    assert_no_workers_left()


@pytest.mark.parametrize("processes", [False, True], ids=["threads", "processes"])
def test_batches_come_in_order_when_workers_finish_out_of_order(processes):
    context = multiprocessing.get_context("fork") if processes else threading
    second_done = context.Event()

    def hook(index):   # batch 0 finishes only after batch 1 has been made
        if index == 0:
            assert second_done.wait(GUARD)
        if index == 1:
            second_done.set()

    data = Indexed(6, hook=hook, workers=3, use_multiprocessing=processes)
    predicted = identity_model().predict(data, verbose=0)
    np.testing.assert_array_equal(predicted[:, 0], np.repeat(np.arange(6), 4))
    assert_no_workers_left()


def test_queue_is_bounded_by_max_queue_size():
    started = []
    lock = threading.Lock()

    def hook(index):
        with lock:
            started.append(index)

    seen = []
    record = lamina.callbacks.LambdaCallback(
        on_train_batch_begin=lambda step, logs: seen.append((step, len(started))))
    data = Indexed(12, hook=hook, workers=2, max_queue_size=3)
    identity_model().fit(data, epochs=1, verbose=0, callbacks=[record])
    assert len(seen) == 12
    assert all(count <= step + 3 for step, count in seen), seen
    assert sorted(started) == list(range(12))


class Failing(Indexed):
    def __getitem__(self, index):
        if index == 3:
            raise KeyError(f"batch {index} is broken")
        return super().__getitem__(index)


@pytest.mark.parametrize("workers, processes", [(1, False), (3, False), (3, True)],
                         ids=["main-thread", "threads", "processes"])
def test_failing_worker_raises_in_fit_with_its_traceback(workers, processes):
    data = Failing(8, workers=workers, use_multiprocessing=processes)
    with pytest.raises(KeyError, match="batch 3 is broken") as caught:
        identity_model().fit(data, epochs=2, verbose=0)
    if processes:   # the worker's traceback travels as text, chained as the cause
        assert "__getitem__" in str(caught.value.__cause__)
    else:
        frames = [frame.name for frame in traceback.extract_tb(caught.value.__traceback__)]
        assert "__getitem__" in frames
    assert_no_workers_left()


@pytest.mark.parametrize("processes", [False, True], ids=["threads", "processes"])
def test_no_workers_left_when_the_model_raises_or_stops_early(processes):
    class BadShape(Indexed):
        def __getitem__(self, index):
            x, y = super().__getitem__(index)
            return (np.ones((4, 5), "float32"), y) if index == 2 else (x, y)

    with pytest.raises(ValueError):
        identity_model().fit(BadShape(8, workers=2, use_multiprocessing=processes),
                             verbose=0)
    assert_no_workers_left()

    model = identity_model()
    stop = lamina.callbacks.LambdaCallback(
        on_train_batch_end=lambda step, logs: setattr(model, "stop_training", step == 1))
    model.fit(Indexed(10, workers=2, use_multiprocessing=processes), epochs=3, verbose=0,
              callbacks=[stop])
    assert_no_workers_left()


class EpochCounting(PyDataset):
    """``x`` is the number of finished passes: shows that processes see on_epoch_end."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.begun = self.finished = 0

    def __len__(self):
        return 3

    def __getitem__(self, index):
        return np.full((2, 1), self.finished, "float32")

    def on_epoch_begin(self):
        self.begun += 1

    def on_epoch_end(self):
        self.finished += 1


@pytest.mark.parametrize("processes", [False, True], ids=["threads", "processes"])
def test_each_pass_sees_the_state_left_by_on_epoch_end(processes):
    data = EpochCounting(workers=2, use_multiprocessing=processes)
    model = identity_model()
    first, second = model.predict(data, verbose=0), model.predict(data, verbose=0)
    np.testing.assert_array_equal(first, np.zeros((6, 1)))
    np.testing.assert_array_equal(second, np.ones((6, 1)))
    assert (data.begun, data.finished) == (2, 2)


def test_fit_evaluate_with_a_worker_validation_dataset():
    model = identity_model()
    history = model.fit(Indexed(4, workers=2), validation_data=Indexed(3, workers=2),
                        epochs=2, verbose=0)
    assert len(history.history["val_loss"]) == 2
    assert model.evaluate(Indexed(3, workers=3, use_multiprocessing=True), verbose=0) >= 0
    assert_no_workers_left()


def test_keras_surface_defaults_and_bad_arguments():
    assert Sequence is PyDataset
    data = Indexed(5)
    assert (data.workers, data.use_multiprocessing, data.max_queue_size) == (1, False, 10)
    assert data.num_batches == 5
    data.workers = 3
    assert data.workers == 3
    with pytest.raises(NotImplementedError, match="__getitem__"):
        PyDataset()[0]
    for kwargs, name in (({"workers": 0}, "workers"), ({"max_queue_size": 2.5},
                                                       "max_queue_size"),
                         ({"use_multiprocessing": "yes"}, "use_multiprocessing")):
        with pytest.raises(ValueError, match=f"PyDataset needs {name}"):
            PyDataset(**kwargs)

    class NoSuper(PyDataset):
        def __init__(self):
            pass

    with pytest.warns(UserWarning, match="super"):
        assert NoSuper().workers == 1
