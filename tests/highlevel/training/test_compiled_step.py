"""compile(jit_compile=True): traced steps give exactly the eager numbers, fall back with
one warning when a step cannot be traced, reuse their traces and keep memory flat."""

import gc
import tracemalloc
import warnings

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.highlevel.training.compiled_step import MAX_TRACES, JitFallbackWarning


def _mlp():
    model = lamina.Sequential([layers.Input((6,)), layers.Dense(16, activation="relu"),
                               layers.Dropout(0.3), layers.BatchNormalization(),
                               layers.Dense(3)])
    x, y = _data((6,)), np.random.default_rng(1).integers(0, 3, 50)
    return model, x, y, {"optimizer": "adam", "metrics": ["accuracy"],
                         "loss": lamina.losses.SparseCategoricalCrossentropy(from_logits=True)}


def _regularized():
    model = lamina.Sequential([
        layers.Input((6,)),
        layers.Dense(8, activation="tanh", kernel_regularizer=lamina.regularizers.L2(0.01),
                     kernel_constraint=lamina.constraints.MaxNorm(1.0)),
        layers.GaussianNoise(0.1), layers.Dense(1)])
    schedule = lamina.optimizers.schedules.ExponentialDecay(0.01, 3, 0.5)
    return model, _data((6,)), _data((1,), 2), {
        "optimizer": lamina.optimizers.Adam(schedule, clipnorm=0.5), "loss": "mse",
        "metrics": ["mae"]}


class _CustomStep(lamina.Model):
    def train_step(self, data):
        x, y, _ = data
        loss = ops.mean(ops.square(self(x, training=True) - y))
        gradients = lamina.grad(loss, self.trainable_weights)
        self.optimizer.apply(gradients, self.trainable_weights)
        return {"loss": loss}


def _custom():
    inputs = layers.Input((6,))
    outputs = layers.Dense(1)(layers.Dense(8, activation="relu")(inputs))
    return _CustomStep(inputs, outputs), _data((6,)), _data((1,), 2), {
        "optimizer": lamina.optimizers.SGD(0.01, momentum=0.9), "loss": "mse"}


def _cnn():
    model = lamina.Sequential([layers.Input((6, 6, 1)), layers.Conv2D(3, 3, activation="relu"),
                               layers.MaxPooling2D(2), layers.Flatten(), layers.Dense(3)])
    return model, _data((6, 6, 1)), np.random.default_rng(1).integers(0, 3, 50), {
        "optimizer": "adam", "metrics": ["accuracy"],
        "loss": lamina.losses.SparseCategoricalCrossentropy(from_logits=True)}


def _recurrent():
    model = lamina.Sequential([layers.Input((4, 3)), layers.LSTM(5, return_sequences=True),
                               layers.GRU(4), layers.Dense(1)])
    return model, _data((4, 3)), _data((1,), 2), {"optimizer": "adam", "loss": "mse"}


def _masked_two_inputs():
    tokens = np.random.default_rng(3).integers(1, 9, (50, 5))
    tokens[16:, 3:] = 0          # the first batch has no masked step, the others do
    first, second = layers.Input((5,), dtype="int32"), layers.Input((2,))
    hidden = layers.LSTM(3)(layers.Embedding(9, 4, mask_zero=True)(first))
    outputs = layers.Dense(1)(layers.Concatenate()([hidden, second]))
    return lamina.Model([first, second], outputs), [tokens, _data((2,))], _data((1,), 2), {
        "optimizer": "adam", "loss": "mse"}


def _masked_python_loops():
    # activations without a compiled loop: the time loops step in Python (masked carries
    # through np.copyto(..., where=))
    tokens = np.random.default_rng(4).integers(0, 9, (50, 6))
    tokens[:, -1] = 0
    inputs = layers.Input((6,), dtype="int32")
    hidden = layers.Embedding(9, 4, mask_zero=True)(inputs)
    hidden = layers.LSTM(3, activation="relu", return_sequences=True)(hidden)
    hidden = layers.GRU(4, reset_after=False, return_sequences=True)(hidden)
    hidden = layers.SimpleRNN(3, activation="relu")(hidden)
    return lamina.Model(inputs, layers.Dense(1)(hidden)), tokens, _data((1,), 2), {
        "optimizer": "adam", "loss": "mse"}


def _data(shape, seed=0):
    return np.random.default_rng(seed).standard_normal((50,) + shape).astype("float32")


def _train(family, jit_compile):
    lamina.utils.set_random_seed(7)
    model, x, y, options = family()
    model.compile(jit_compile=jit_compile, **options)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", JitFallbackWarning)
        # validation_split=0.2 leaves 40 samples: batches of 16, 16 and a partial 8
        first = model.fit(x, y, batch_size=16, epochs=4, validation_split=0.2, verbose=0)
        second = model.fit(x, y, batch_size=16, epochs=1, verbose=0)
        model.predict(x, batch_size=10, verbose=0)        # warms and records batches of 10
        predictions = model.predict(x, batch_size=10, verbose=0)
        evaluation = model.evaluate(x, y, batch_size=16, verbose=0)
    fallbacks = [str(w.message) for w in caught if issubclass(w.category, JitFallbackWarning)]
    return model, (model.get_weights(), first.history, second.history, predictions,
                   evaluation), fallbacks


def _assert_identical(eager, compiled):
    weights, *rest = eager
    assert all(np.array_equal(a, b) for a, b in zip(weights, compiled[0]))
    assert rest[0] == compiled[1] and rest[1] == compiled[2]
    assert np.array_equal(rest[2], compiled[3]) and rest[3] == compiled[4]


@pytest.mark.parametrize("family", [_mlp, _regularized, _custom, _cnn, _recurrent,
                                    _masked_two_inputs, _masked_python_loops])
def test_traced_training_is_bit_identical_to_eager(family):
    _, eager, _ = _train(family, False)
    model, compiled, fallbacks = _train(family, True)
    _assert_identical(eager, compiled)
    assert fallbacks == []
    steps = model._jit_steps
    assert steps["train"].fallback_reason is None and steps["train"].replays > 0
    assert steps["test"].replays > 0 and steps["predict"].replays > 0


def test_recurrent_row_blocks_replay_bit_identically():
    # batch 128 of LSTM(64) over 8 steps: the time loops run in row blocks on threads
    # (where the engine has them); a replay must not let one block start from the
    # previous replay's values of an array another block restores
    lamina.utils.set_random_seed(5)
    x = np.random.default_rng(4).standard_normal((128, 8, 4)).astype("float32")
    y = np.random.default_rng(5).standard_normal((128, 1)).astype("float32")
    results = []
    for jit_compile in (False, True):
        lamina.utils.set_random_seed(5)
        model = lamina.Sequential([layers.Input((8, 4)), layers.LSTM(64), layers.Dense(1)])
        model.compile(optimizer="adam", loss="mse", jit_compile=jit_compile)
        losses = [model.train_on_batch(x, y) for _ in range(8)]
        results.append((losses, model.get_weights(), model.evaluate(x, y, verbose=0)))
    (eager_losses, eager_weights, eager_eval), (losses, weights, evaluation) = results
    assert losses == eager_losses and evaluation == eager_eval
    assert all(np.array_equal(a, b) for a, b in zip(eager_weights, weights))
    assert model._jit_steps["train"].replays == 5


class _ChangingOps(layers.Layer):
    def build(self, input_shape):
        self.calls = 0

    def call(self, inputs):
        self.calls += 1                  # one more op on every call
        for _ in range(self.calls % 50):
            inputs = inputs * 0.99
        return inputs


def _changing_ops():
    model = lamina.Sequential([layers.Input((6,)), _ChangingOps(), layers.Dense(1)])
    return model, _data((6,)), _data((1,), 2), {"optimizer": "adam", "loss": "mse"}


class _ValueDependent(layers.Layer):
    def call(self, inputs):
        if ops.sum(inputs) > 0:          # Python control flow on a tensor value
            return inputs * 2.0
        return inputs


def _value_dependent():
    model = lamina.Sequential([layers.Input((6,)), _ValueDependent(), layers.Dense(1)])
    return model, _data((6,)), _data((1,), 2), {"optimizer": "adam", "loss": "mse"}


@pytest.mark.parametrize("family, reason", [
    (_changing_ops, "change from one step to the next"), (_value_dependent, "host read")])
def test_untraceable_steps_fall_back_with_one_warning_and_match_eager(family, reason):
    _, eager, _ = _train(family, False)
    model, compiled, fallbacks = _train(family, True)
    _assert_identical(eager, compiled)
    train_warnings = [m for m in fallbacks if "train step" in m]
    assert len(train_warnings) == 1 and reason in train_warnings[0]
    assert model._jit_steps["train"].fallback_reason in train_warnings[0]
    assert model._jit_steps["train"].replays == 0


def test_repeated_fit_reuses_traces():
    lamina.utils.set_random_seed(0)
    model, x, y, options = _mlp()
    model.compile(jit_compile=True, **options)
    model.fit(x, y, batch_size=10, epochs=3, verbose=0)      # 5 full batches per epoch
    step = model._jit_steps["train"]
    built, replays = step.traces_built, step.replays
    assert built == 1
    model.fit(x, y, batch_size=10, epochs=2, verbose=0)
    assert step.traces_built == built and step.replays == replays + 10


def test_trace_cache_is_bounded():
    lamina.utils.set_random_seed(0)
    model, x, _, options = _mlp()
    model.compile(jit_compile=True, **options)
    for size in range(1, MAX_TRACES + 4):
        for _ in range(3):
            model.predict(x[:size], batch_size=size, verbose=0)
    step = model._jit_steps["predict"]
    assert step.traces_built == MAX_TRACES + 3 and len(step._cache) == MAX_TRACES


def test_memory_stays_flat_over_many_epochs():
    lamina.utils.set_random_seed(0)
    model, x, y, options = _mlp()
    model.compile(jit_compile=True, **options)
    model.fit(x, y, batch_size=10, epochs=3, verbose=0)
    gc.collect()
    tracemalloc.start()
    model.fit(x, y, batch_size=10, epochs=2, verbose=0)
    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    model.fit(x, y, batch_size=10, epochs=20, verbose=0)
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert after - before < 64 * 1024


def test_auto_and_default_stay_eager():
    for value in ("auto", None, False):
        model, _, _, options = _mlp()
        model.compile(jit_compile=value, **options)
        assert model.jit_compile is False and model._jit_steps is None


def test_data_parallel_training_falls_back_with_one_warning(monkeypatch):
    """A replay cannot repeat the gradient allreduce (a collective, not a kernel call), so
    with a data-parallel hook active the step runs eagerly after one warning."""
    from lamina.distribution import SingleProcessCommunicator
    from lamina.highlevel.distribution import training_hook

    hook = training_hook.DataParallelHook(SingleProcessCommunicator())
    monkeypatch.setattr(training_hook, "current", lambda: hook)
    model, x, y, options = _mlp()
    model.compile(jit_compile=True, **options)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", JitFallbackWarning)
        for _ in range(4):
            model.train_on_batch(x[:16], y[:16])
    messages = [str(w.message) for w in caught if issubclass(w.category, JitFallbackWarning)]
    assert len(messages) == 1 and "data-parallel" in messages[0]
    assert model._jit_steps["train"].replays == 0


def test_predict_from_several_threads_gives_each_its_rows():
    from concurrent.futures import ThreadPoolExecutor

    lamina.utils.set_random_seed(0)
    model, _, _, options = _mlp()
    model.compile(jit_compile=True, **options)
    inputs = [np.random.default_rng(seed).standard_normal((40, 6)).astype("float32")
              for seed in range(6)]
    expected = [model.predict_step((x, None, None)).numpy() for x in inputs]  # eager
    with ThreadPoolExecutor(6) as pool:   # the first batches record while others run
        rounds = [list(pool.map(lambda x: model.predict(x, batch_size=8, verbose=0),
                                inputs)) for _ in range(3)]
    for outputs in rounds:
        assert all(np.array_equal(a, b) for a, b in zip(outputs, expected))
    step = model._jit_steps["predict"]
    assert step.fallback_reason is None and step.traces_built == 1 and step.replays > 0


def _ctc():
    model = lamina.Sequential([layers.Input((10, 4)), layers.Dense(5)])
    labels = np.random.default_rng(1).integers(1, 5, (50, 3))
    labels[::2, 2] = 0                     # padded with the blank
    return model, _data((10, 4)), labels, {"optimizer": "adam", "loss": lamina.losses.CTC()}


def test_ctc_loss_falls_back_with_one_warning_per_step_and_matches_eager():
    # ctc_loss checks its labels and the blank index on the host (int() of an array)
    _, eager, _ = _train(_ctc, False)
    model, compiled, fallbacks = _train(_ctc, True)
    _assert_identical(eager, compiled)
    for kind in ("train", "test"):
        messages = [m for m in fallbacks if f"{kind} step" in m]
        assert len(messages) == 1 and "host read" in messages[0]
        assert model._jit_steps[kind].replays == 0
    assert model._jit_steps["predict"].fallback_reason is None   # no loss in predict
