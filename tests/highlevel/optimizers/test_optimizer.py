"""The optimizer base class: clipping, weight decay, schedules driving the learning rate,
state for checkpoints (iterations, slots, restoring, pickling), minimizing a quadratic with
every optimizer, and config round trips.

The ``use_ema`` section: The base optimizer's ``use_ema`` / ``ema_momentum`` / ``ema_overwrite_frequency`` and
``gradient_accumulation_steps`` against Keras 3.15 (keras_optimizer_values.json, made by
make_keras_optimizer_values.py): variables, state in Keras' order (``*_average``, then
``*_gradient_accumulator``, then the rule's slots), ``finalize_variable_values``, files.
Adam's own float32 rounding differs from Keras' torch Adam by up to ~1e-5 at lr=0.1, hence
the wider tolerance of the Adam cases.
"""


import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.highlevel import optimizers
from lamina.highlevel.optimizers import schedules
from harness.optimizers import check_keras_file, check_save_load_continues, check_steps


RNG = np.random.default_rng(7)


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
def test_apply_first_averages_through_the_registered_gradient_reducer():
    # data-parallel training registers one (lamina.distribution): a custom train_step's
    # optimizer.apply averages too, before clipping
    calls = []
    lamina.backends.replica.set_gradient_reducer(
        lambda grads: calls.append(len(grads)) or [g * 0.5 for g in grads])
    try:
        assert sgd_delta([np.array([4.0, 0.0])], clipvalue=1.5)[0].tolist() == [1.5, 0.0]
        assert sgd_delta([np.array([2.0, 0.0])])[0].tolist() == [1.0, 0.0]
    finally:
        lamina.backends.replica.set_gradient_reducer(None)
    assert calls == [1, 1]


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


# ------------------------------------------------------------------ use_ema, gradient accumulation
@pytest.mark.parametrize("name", ["adam_ema", "adam_ema_overwrite", "adam_accumulate"])
def test_adam_options_match_keras(name):
    check_steps(name, atol=2e-5)


def test_sgd_with_accumulation_and_ema_matches_keras():
    check_steps("sgd_accumulate_ema")


@pytest.mark.parametrize("name", ["adam_ema", "adam_accumulate"])
def test_keras_files_with_the_options_load_and_train_on(name):
    check_keras_file(name, atol=2e-5)


@pytest.mark.parametrize("options", [{"use_ema": True, "ema_overwrite_frequency": 2},
                                     {"gradient_accumulation_steps": 2}])
def test_save_load_continues_with_the_options(options, tmp_path):
    check_save_load_continues(lambda: lamina.optimizers.Adam(0.05, **options), tmp_path)


def test_accumulation_updates_every_nth_call_with_the_mean_gradient():
    w = lamina.Variable(np.zeros(2, "float32"), name="w")
    optimizer = lamina.optimizers.SGD(learning_rate=1.0, gradient_accumulation_steps=3)
    for g in ([1.0, 2.0], [3.0, 4.0]):
        optimizer.apply([np.array(g, "float32")], [w])
        np.testing.assert_array_equal(w.numpy(), [0.0, 0.0])
    assert optimizer.iterations == 0 and int(optimizer.iterations_variable.numpy()) == 2
    optimizer.apply([np.array([5.0, 6.0], "float32")], [w])
    np.testing.assert_allclose(w.numpy(), [-3.0, -4.0])
    assert optimizer.iterations == 1
    np.testing.assert_array_equal(optimizer.get_slot(w, "gradient_accumulator").numpy(), 0)


def test_fit_ends_with_the_moving_averages_in_the_weights():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 2)).astype("float32")
    y = rng.normal(size=(16, 1)).astype("float32")
    model = lamina.Sequential([lamina.Input((2,)), lamina.layers.Dense(1)])
    model.compile(optimizer=lamina.optimizers.SGD(0.1, use_ema=True), loss="mse")
    model.fit(x, y, batch_size=4, epochs=2, verbose=0)
    averages = [model.optimizer.get_slot(w, "average").numpy()
                for w in model.trainable_weights]
    for weight, average in zip(model.get_weights(), averages):
        np.testing.assert_array_equal(weight, average)


@pytest.mark.parametrize("kwargs, match", [
    ({"gradient_accumulation_steps": 1}, "gradient_accumulation_steps"),
    ({"use_ema": True, "ema_momentum": 1.5}, "ema_momentum"),
    ({"use_ema": True, "ema_overwrite_frequency": 0.5}, "ema_overwrite_frequency"),
])
def test_bad_options_are_refused_as_keras_does(kwargs, match):
    with pytest.raises(ValueError, match=match):
        lamina.optimizers.Adam(**kwargs)
