"""Optimizers and learning-rate schedules: three steps of every optimizer against a NumPy
transcription of Keras' update formulas, clipping, weight decay, schedules driving the
learning rate, state for checkpoints, minimizing a quadratic, lookup and configs."""

import math

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.highlevel import optimizers
from lamina.highlevel.optimizers import schedules

RNG = np.random.default_rng(7)
W0 = np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.3]])
GRADS = [RNG.normal(size=W0.shape) for _ in range(3)]


# ------------------------------------------------------------------ NumPy references
def ref_sgd(lr=0.01, momentum=0.0, nesterov=False, weight_decay=None):
    w, v = W0.copy(), np.zeros_like(W0)
    for g in GRADS:
        if weight_decay:
            w = w - w * weight_decay * lr
        if momentum:
            v = momentum * v - lr * g
            w = w + (momentum * v - lr * g if nesterov else v)
        else:
            w = w - lr * g
    return w


def ref_adam(lr=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False,
             weight_decay=None):
    w, m, v, v_hat = W0.copy(), np.zeros_like(W0), np.zeros_like(W0), np.zeros_like(W0)
    for step, g in enumerate(GRADS, start=1):
        if weight_decay:
            w = w - w * weight_decay * lr
        alpha = lr * np.sqrt(1 - beta_2 ** step) / (1 - beta_1 ** step)
        m = m + (g - m) * (1 - beta_1)
        v = v + (g * g - v) * (1 - beta_2)
        if amsgrad:
            v_hat = np.maximum(v_hat, v)
            w = w - m * alpha / (np.sqrt(v_hat) + epsilon)
        else:
            w = w - m * alpha / (np.sqrt(v) + epsilon)
    return w


def ref_rmsprop(lr=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False):
    w, vel, mom, avg = W0.copy(), np.zeros_like(W0), np.zeros_like(W0), np.zeros_like(W0)
    for g in GRADS:
        vel = rho * vel + (1 - rho) * g * g
        if centered:
            avg = rho * avg + (1 - rho) * g
            increment = lr * g / np.sqrt(vel - avg ** 2 + epsilon)
        else:
            increment = lr * g / np.sqrt(vel + epsilon)
        if momentum > 0:
            mom = momentum * mom + increment
            w = w - mom
        else:
            w = w - increment
    return w


def ref_adagrad(lr=0.001, initial_accumulator_value=0.1, epsilon=1e-7):
    w, acc = W0.copy(), np.full_like(W0, initial_accumulator_value)
    for g in GRADS:
        acc = acc + g * g
        w = w - lr * g / np.sqrt(acc + epsilon)
    return w


def run(optimizer, dtype="float32", grads=GRADS, as_tensor=True):
    variable = lamina.Variable(W0.astype(dtype), name="kernel")
    for g in grads:
        g = g.astype(dtype)
        optimizer.apply([lamina.Tensor(g) if as_tensor else g], [variable])
    return variable


CASES = [
    (optimizers.SGD(), ref_sgd()),
    (optimizers.SGD(learning_rate=0.1, momentum=0.9), ref_sgd(0.1, 0.9)),
    (optimizers.SGD(learning_rate=0.1, momentum=0.9, nesterov=True), ref_sgd(0.1, 0.9, True)),
    (optimizers.SGD(learning_rate=0.1, weight_decay=0.05), ref_sgd(0.1, weight_decay=0.05)),
    (optimizers.Adam(learning_rate=0.1), ref_adam(0.1)),
    (optimizers.Adam(learning_rate=0.1, beta_1=0.8, beta_2=0.9, epsilon=1e-3),
     ref_adam(0.1, 0.8, 0.9, 1e-3)),
    (optimizers.Adam(learning_rate=0.1, amsgrad=True), ref_adam(0.1, amsgrad=True)),
    (optimizers.AdamW(learning_rate=0.1), ref_adam(0.1, weight_decay=0.004)),
    (optimizers.AdamW(learning_rate=0.1, weight_decay=0.3, amsgrad=True),
     ref_adam(0.1, amsgrad=True, weight_decay=0.3)),
    (optimizers.RMSprop(learning_rate=0.01), ref_rmsprop(0.01)),
    (optimizers.RMSprop(learning_rate=0.01, rho=0.8, momentum=0.5),
     ref_rmsprop(0.01, 0.8, 0.5)),
    (optimizers.RMSprop(learning_rate=0.01, centered=True), ref_rmsprop(0.01, centered=True)),
    (optimizers.Adagrad(learning_rate=0.1), ref_adagrad(0.1)),
    (optimizers.Adagrad(learning_rate=0.1, initial_accumulator_value=1.0, epsilon=1e-3),
     ref_adagrad(0.1, 1.0, 1e-3)),
]


@pytest.mark.parametrize("index", range(len(CASES)),
                         ids=[f"{type(o).__name__}-{i}" for i, (o, _) in enumerate(CASES)])
def test_three_steps_match_keras_formulas(index):
    optimizer, expected = CASES[index]
    config = optimizer.get_config()
    single = run(type(optimizer).from_config(config), "float32")
    assert single.dtype == np.float32
    np.testing.assert_allclose(single.numpy(), expected, rtol=2e-5, atol=1e-6)
    double = run(type(optimizer).from_config(config), "float64", as_tensor=False)
    np.testing.assert_allclose(double.numpy(), expected, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------ clipping
def sgd_delta(grads, **clip):
    """What one SGD(lr=1) step subtracts from each of two variables."""
    variables = [lamina.Variable(np.zeros(g.shape)) for g in grads]
    optimizers.SGD(learning_rate=1.0, **clip).apply(grads, variables)
    return [-v.numpy() for v in variables]


def test_clipnorm_clips_each_gradient_to_its_own_norm():
    small, large = np.array([0.3, 0.4]), np.array([3.0, 4.0, 12.0])
    out = sgd_delta([small, large], clipnorm=1.0)
    np.testing.assert_allclose(out[0], small)                       # norm 0.5 unchanged
    np.testing.assert_allclose(out[1], large / 13.0)                # norm 13 -> 1


def test_global_clipnorm_scales_all_gradients_together():
    a, b = np.array([3.0, 0.0]), np.array([0.0, 4.0, 0.0])
    out = sgd_delta([a, b], global_clipnorm=1.0)
    np.testing.assert_allclose(out[0], a / 5.0)
    np.testing.assert_allclose(out[1], b / 5.0)
    unchanged = sgd_delta([a, b], global_clipnorm=10.0)
    np.testing.assert_allclose(unchanged[0], a)
    with np.errstate(invalid="ignore"):
        nan_out = sgd_delta([np.array([np.inf, 1.0])], global_clipnorm=1.0)
    assert np.isnan(nan_out[0]).all()                                # as Keras


def test_clipvalue_clips_elementwise():
    out = sgd_delta([np.array([-3.0, 0.2, 7.0])], clipvalue=0.5)
    np.testing.assert_allclose(out[0], [-0.5, 0.2, 0.5])


def test_clip_options_are_exclusive_and_grads_not_modified():
    with pytest.raises(ValueError, match="Only one of"):
        optimizers.Adam(clipnorm=1.0, clipvalue=1.0)
    g = np.array([3.0, 4.0])
    sgd_delta([g], clipnorm=1.0)
    np.testing.assert_array_equal(g, [3.0, 4.0])


# ------------------------------------------------------------------ weight decay
def test_exclude_from_weight_decay():
    kernel = lamina.Variable(np.ones(2), name="kernel")
    bias = lamina.Variable(np.ones(2), name="bias")
    opt = optimizers.SGD(learning_rate=0.1, weight_decay=0.5)
    opt.exclude_from_weight_decay(var_names=["bias"])
    opt.apply([np.zeros(2), np.zeros(2)], [kernel, bias])
    np.testing.assert_allclose(kernel.numpy(), 0.95)
    np.testing.assert_allclose(bias.numpy(), 1.0)


# ------------------------------------------------------------------ schedules
def test_schedule_drives_the_learning_rate():
    schedule = schedules.ExponentialDecay(0.1, decay_steps=1, decay_rate=0.5)
    opt = optimizers.SGD(learning_rate=schedule)
    variable = lamina.Variable(np.zeros(1))
    seen = []
    for _ in range(3):
        seen.append(opt.learning_rate)
        opt.apply([np.ones(1)], [variable])
    assert seen == pytest.approx([0.1, 0.05, 0.025])
    np.testing.assert_allclose(variable.numpy(), [-0.175])
    with pytest.raises(TypeError, match="not settable"):
        opt.learning_rate = 0.5
    assert isinstance(optimizers.deserialize(optimizers.serialize(opt)).get_config()
                      ["learning_rate"], dict)


def test_learning_rate_is_assignable():
    opt = optimizers.Adam()
    assert opt.learning_rate == pytest.approx(0.001)
    opt.learning_rate = 0.01
    assert opt.learning_rate == 0.01 and opt.get_config()["learning_rate"] == 0.01
    opt.learning_rate = np.float64(0.5)
    assert type(opt.learning_rate) is float


def test_schedule_values():
    exp = schedules.ExponentialDecay(1.0, decay_steps=10, decay_rate=0.1)
    assert exp(5) == pytest.approx(0.1 ** 0.5)
    stair = schedules.ExponentialDecay(1.0, decay_steps=10, decay_rate=0.1, staircase=True)
    assert stair(15) == pytest.approx(0.1)
    piece = schedules.PiecewiseConstantDecay([10, 20], [1.0, 0.5, 0.1])
    assert [piece(s) for s in (0, 10, 11, 20, 21)] == [1.0, 1.0, 0.5, 0.5, 0.1]
    cosine = schedules.CosineDecay(1.0, decay_steps=100, alpha=0.1)
    assert cosine(0) == pytest.approx(1.0)
    assert cosine(50) == pytest.approx(0.9 * 0.5 + 0.1)
    assert cosine(500) == pytest.approx(0.1)
    warm = schedules.CosineDecay(0.0, decay_steps=100, warmup_target=1.0, warmup_steps=10)
    assert warm(5) == pytest.approx(0.5)
    assert warm(10) == pytest.approx(1.0)
    assert warm(60) == pytest.approx(0.5 * (1 + math.cos(math.pi * 0.5)))
    with pytest.raises(ValueError, match="decay_steps"):
        schedules.ExponentialDecay(1.0, decay_steps=0, decay_rate=0.5)
    with pytest.raises(ValueError, match="length"):
        schedules.PiecewiseConstantDecay([1, 2], [1.0])
    for schedule in (exp, stair, piece, cosine, warm):
        again = schedules.deserialize(schedules.serialize(schedule))
        assert type(again) is type(schedule) and again.get_config() == schedule.get_config()


# ------------------------------------------------------------------ state for checkpoints
def test_iterations_and_slot_variables():
    first = lamina.Variable(np.ones((2, 2), "float32"), name="kernel")
    second = lamina.Variable(np.ones(2, "float32"), name="bias")
    opt = optimizers.Adam(learning_rate=0.1)
    assert opt.iterations == 0 and len(opt.variables()) == 1
    opt.apply([None, np.ones(2, "float32")], [first, second])       # None skipped
    opt.apply([np.ones((2, 2), "float32"), np.ones(2, "float32")], [first, second])
    assert opt.iterations == 2
    names = [v.name for v in opt.variables()]
    assert names == ["iteration", "bias_momentum", "bias_velocity", "kernel_momentum",
                     "kernel_velocity"]
    assert [v.name for v in opt.variables] == names                # property form (Keras 3)
    assert int(opt.variables()[0].numpy()) == 2
    assert opt.get_slot(first, "velocity").dtype == np.float32
    assert [slots for _, slots in opt.slot_variables()][1]["momentum"] is \
        opt.get_slot(first, "momentum")
    opt.set_iterations(7)
    assert opt.iterations == 7 and int(opt.variables()[0].numpy()) == 7
    opt.variables()[0].assign(np.array(3))
    assert opt.iterations == 3
    opt.iterations = 4
    assert opt.iterations == 4


def test_restoring_state_continues_identically():
    grads = [RNG.normal(size=3) for _ in range(4)]
    a = lamina.Variable(np.zeros(3))
    opt_a = optimizers.Adam(learning_rate=0.1, amsgrad=True)
    for g in grads[:2]:
        opt_a.apply([g], [a])
    b = lamina.Variable(a.numpy())
    opt_b = optimizers.Adam.from_config(opt_a.get_config())
    opt_b.build([b])
    opt_b.set_variables([v.numpy() for v in opt_a.variables()])
    for g in grads[2:]:
        opt_a.apply([g], [a])
        opt_b.apply([g], [b])
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_apply_gradients_pairs_and_shape_errors():
    variable = lamina.Variable(np.zeros(2))
    opt = optimizers.SGD(learning_rate=1.0)
    assert opt.apply_gradients([(np.ones(2), variable)]) == 1
    np.testing.assert_allclose(variable.numpy(), [-1.0, -1.0])
    with pytest.raises(ValueError, match="does not match"):
        opt.apply([np.ones(3)], [variable])


@pytest.mark.parametrize("optimizer", [
    optimizers.SGD(learning_rate=0.1), optimizers.SGD(learning_rate=0.05, momentum=0.9),
    optimizers.Adam(learning_rate=0.1), optimizers.AdamW(learning_rate=0.1),
    optimizers.RMSprop(learning_rate=0.05), optimizers.Adagrad(learning_rate=0.5),
], ids=lambda o: type(o).__name__)
def test_minimizes_a_quadratic(optimizer):
    target = np.array([1.0, -2.0, 3.0], dtype="float32")
    scale = np.array([1.0, 3.0, 0.5], dtype="float32")
    w = lamina.Variable(np.zeros(3, "float32"))
    for _ in range(300):
        loss = ops.sum(ops.square(w - target) * scale)
        optimizer.apply(lamina.grad(loss, [w]), [w])
    np.testing.assert_allclose(w.numpy(), target, atol=0.05)


# ------------------------------------------------------------------ lookup and config
def test_get_is_case_insensitive_and_accepts_dicts():
    for name, cls in (("adam", optimizers.Adam), ("Adam", optimizers.Adam),
                      ("SGD", optimizers.SGD), ("sgd", optimizers.SGD),
                      ("rmsprop", optimizers.RMSprop), ("RMSprop", optimizers.RMSprop),
                      ("adagrad", optimizers.Adagrad), ("adamw", optimizers.AdamW),
                      ("AdamW", optimizers.AdamW)):
        assert type(optimizers.get(name)) is cls
    instance = optimizers.SGD()
    assert optimizers.get(instance) is instance
    keras2 = {"class_name": "Adam", "config": {"name": "Adam", "learning_rate": 0.01,
                                               "decay": 0.0, "beta_1": 0.9, "beta_2": 0.999,
                                               "epsilon": 1e-7, "amsgrad": False,
                                               "jit_compile": False,
                                               "is_legacy_optimizer": False}}
    assert optimizers.get(keras2).learning_rate == pytest.approx(0.01)


def test_unknown_optimizer_lists_known_names():
    with pytest.raises(ValueError, match="rmsprop"):
        optimizers.get("adamax_typo")


@pytest.mark.parametrize("optimizer", [
    optimizers.SGD(learning_rate=0.1, momentum=0.5, nesterov=True, clipnorm=1.0),
    optimizers.Adam(beta_1=0.8, amsgrad=True, global_clipnorm=2.0),
    optimizers.AdamW(weight_decay=0.01, clipvalue=0.5),
    optimizers.RMSprop(rho=0.7, momentum=0.2, centered=True),
    optimizers.Adagrad(initial_accumulator_value=0.5),
    optimizers.Adam(learning_rate=schedules.CosineDecay(0.1, 100, warmup_target=0.2,
                                                        warmup_steps=5)),
], ids=lambda o: type(o).__name__)
def test_config_round_trip(optimizer):
    config = optimizer.get_config()
    clone = type(optimizer).from_config(config)
    assert clone.get_config() == config
    assert optimizers.deserialize(optimizers.serialize(optimizer)).get_config() == config


def test_pickled_optimizer_keeps_its_slots():
    import pickle

    variable = lamina.Variable(np.zeros(3))
    opt = optimizers.Adam(learning_rate=0.1)
    opt.apply([np.ones(3)], [variable])
    opt_copy, variable_copy = pickle.loads(pickle.dumps((opt, variable)))
    for o, v in ((opt, variable), (opt_copy, variable_copy)):
        o.apply([np.array([1.0, -2.0, 0.5])], [v])
    np.testing.assert_array_equal(variable.numpy(), variable_copy.numpy())
    assert len(opt_copy.variables()) == 3 and opt_copy.iterations == 2
