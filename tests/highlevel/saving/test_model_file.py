"""Full-model checkpoints: ``model.save`` / ``lamina.load_model`` round trips for every
kind of model and every built-in layer, compiled state, in-memory copies (bytes, pickle,
deepcopy), bit-identical resumed training, large models, and pickling by reference
(``reduce_model`` / ``rebuild``: custom layer classes, Lambda functions and custom loss
functions travel as "module:qualname" strings, never as pickled classes, functions or
code)."""

import copy
import io
import json
import os
import pickle

import h5py
import numpy as np
import pytest

import lamina
from harness.saving import assert_same_predictions, data, mlp
from lamina import layers
from lamina.highlevel.saving import model_file as saving, saving_api
from lamina.highlevel.saving.errors import UnknownClassError, UnsupportedFormatError
from lamina.layers.base import LAYERS, Layer

import lamina_custom_objects as custom_objects         # tests/highlevel/support (conftest)


def randomize(model, seed=0):
    """Seeded values for every weight (variances kept positive)."""
    rng = np.random.default_rng(seed)
    values = []
    for weight in model.weights:
        shape = tuple(weight.shape)
        if "variance" in weight.name:
            values.append(rng.uniform(0.5, 1.5, size=shape))
        elif weight.name == "count":
            values.append(np.full(shape, 10.0))
        else:
            values.append(rng.normal(size=shape) * 0.5)
    model.set_weights([v.astype(w.numpy().dtype) for v, w in zip(values, model.weights)])
    return model


# ----------------------------------------------------------------------------- model kinds
def test_sequential_round_trip_is_bit_identical_and_keeps_compiled_state(tmp_path):
    x, y = data()
    model = mlp()
    model.fit(x, y, epochs=2, batch_size=16, verbose=0)
    path = tmp_path / "m.h5"
    model.save(path)
    loaded = lamina.load_model(path)
    assert type(loaded) is lamina.Sequential and loaded.name == model.name
    assert [layer.name for layer in loaded.layers] == [layer.name for layer in model.layers]
    assert_same_predictions(model, loaded, x)
    assert loaded.compiled and type(loaded.optimizer) is type(model.optimizer)
    assert loaded.optimizer.get_config() == model.optimizer.get_config()
    assert loaded.optimizer.iterations == model.optimizer.iterations == 12
    for weight in model.trainable_weights:
        twin = loaded.get_layer(weight.path.split("/")[0]).weights[
            [w.name for w in loaded.get_layer(weight.path.split("/")[0]).weights].index(
                weight.name)]
        for slot in ("momentum", "velocity"):
            np.testing.assert_array_equal(model.optimizer.get_slot(weight, slot).numpy(),
                                          loaded.optimizer.get_slot(twin, slot).numpy())
    assert loaded.evaluate(x, y, verbose=0) == model.evaluate(x, y, verbose=0)
    assert loaded.metrics_names == model.metrics_names


def test_file_has_keras_legacy_layout_and_lamina_format_version(tmp_path):
    model = mlp()
    model.fit(*data(32), epochs=1, verbose=0)
    path = tmp_path / "m.h5"
    model.save(path)
    with h5py.File(path, "r") as handle:
        for key in ("model_config", "training_config", "backend", "keras_version",
                    "lamina_format_version", "lamina_checksums"):
            assert key in handle.attrs
        assert int(handle.attrs["lamina_format_version"]) == 1
        config = json.loads(handle.attrs["model_config"])
        assert config["class_name"] == "Sequential"
        group = handle["model_weights"]
        names = [n.decode() for n in group.attrs["layer_names"]]
        assert names == [layer.name for layer in model.layers]
        dense = model.layers[0].name
        weight_names = [n.decode() for n in group[dense].attrs["weight_names"]]
        assert weight_names == [f"{model.name}/{dense}/kernel", f"{model.name}/{dense}/bias"]
        assert group[model.layers[1].name].attrs["weight_names"].dtype == np.float64
        assert "top_level_model_weights" in group
        optimizer_names = [n.decode() for n in handle["optimizer_weights"].attrs["weight_names"]]
        assert optimizer_names[:2] == ["adam/iteration", "adam/learning_rate"]
        assert optimizer_names[2].endswith("_kernel_momentum")
        training = json.loads(handle.attrs["training_config"])
        assert training["loss"]["class_name"] == "SparseCategoricalCrossentropy"
        assert training["optimizer_config"]["class_name"] == "Adam"
    with h5py.File(path, "r") as handle:
        text = handle.attrs["model_config"].decode()
    assert "lamina." not in text and "highlevel" not in text   # public class names only


def test_functional_multi_io_shared_and_nested_models(tmp_path):
    lamina.utils.set_random_seed(1)
    inner = lamina.Sequential([layers.Input((5,)), layers.Dense(4, activation="relu"),
                               layers.BatchNormalization()], name="inner_block")
    a, b = lamina.Input((5,), name="a"), lamina.Input((3,), name="b")
    shared = layers.Dense(5, activation="tanh", name="shared")
    ha = inner(shared(shared(a)))
    hb = layers.Dense(4, name="from_b")(b)
    merged = layers.Concatenate()([ha, hb, layers.Add()([ha, hb])])
    model = lamina.Model([a, b], [layers.Dense(2, activation="softmax", name="cls")(merged),
                                  layers.Dense(1, name="reg")(merged)])
    randomize(model)
    model.compile(optimizer=lamina.optimizers.RMSprop(0.01, momentum=0.5, centered=True),
                  loss=["sparse_categorical_crossentropy", "mse"], loss_weights=[1.0, 0.5],
                  metrics=[["accuracy"], ["mae"]])
    rng = np.random.default_rng(0)
    x = [rng.normal(size=(20, 5)).astype("float32"), rng.normal(size=(20, 3)).astype("float32")]
    y = [rng.integers(0, 2, 20), rng.normal(size=(20, 1)).astype("float32")]
    model.fit(x, y, epochs=1, batch_size=8, verbose=0)
    model.save(tmp_path / "f.h5")
    loaded = lamina.load_model(tmp_path / "f.h5")
    assert_same_predictions(model, loaded, x)
    assert loaded.optimizer.get_config() == model.optimizer.get_config()
    assert loaded.optimizer.iterations == 3
    assert loaded.evaluate(x, y, verbose=0, return_dict=True) == \
        model.evaluate(x, y, verbose=0, return_dict=True)
    model.fit(x, y, epochs=1, batch_size=8, verbose=0, shuffle=False)
    loaded.fit(x, y, epochs=1, batch_size=8, verbose=0, shuffle=False)
    assert_same_predictions(model, loaded, x)


class ScaledDense(Layer):
    """A custom layer (registered only through custom_objects)."""

    def __init__(self, units, scale=2.0, **kwargs):
        super().__init__(**kwargs)
        self.units, self.scale = units, scale

    def build(self, input_shape):
        self.kernel = self.add_weight((input_shape[-1], self.units), name="kernel")

    def call(self, inputs):
        return lamina.ops.matmul(inputs, self.kernel) * self.scale

    def get_config(self):
        return {**super().get_config(), "units": self.units, "scale": self.scale}


@LAYERS.register("TwoTowers")
class TwoTowers(lamina.Model):
    """A registered subclassed model with get_config, as in Keras."""

    def __init__(self, units=4, name=None, trainable=True):
        super().__init__(name=name, trainable=trainable)
        self.units = units
        self.left = layers.Dense(units, activation="relu")
        self.right = layers.Dense(units)
        self.head = layers.Dense(1)

    def call(self, inputs, training=None):
        return self.head(lamina.ops.concatenate([self.left(inputs), self.right(inputs)], -1))

    def get_config(self):
        return {"units": self.units, "name": self.name, "trainable": self.trainable}


def test_subclassed_model_round_trip(tmp_path):
    lamina.utils.set_random_seed(2)
    model = TwoTowers(units=3)
    model.compile(optimizer=lamina.optimizers.SGD(0.05, momentum=0.9, nesterov=True),
                  loss="mse")
    x = np.random.default_rng(0).normal(size=(16, 4)).astype("float32")
    model.fit(x, x[:, :1], epochs=2, batch_size=8, verbose=0)
    model.save(tmp_path / "s.h5")
    loaded = lamina.load_model(tmp_path / "s.h5")
    assert type(loaded) is TwoTowers and loaded.units == 3
    assert_same_predictions(model, loaded, x)
    assert loaded.optimizer.get_config() == model.optimizer.get_config()
    assert loaded.optimizer.iterations == 4


class ScaledModel(lamina.Model):
    """A subclassed model with a weight of its own (Keras' top_level_model_weights)."""

    def __init__(self, name=None, trainable=True):
        super().__init__(name=name, trainable=trainable)
        self.dense = layers.Dense(2)
        self.scale = self.add_weight((2,), "ones", name="scale")

    def call(self, inputs):
        return self.dense(inputs) * self.scale

    def get_config(self):
        return {"name": self.name, "trainable": self.trainable}


def test_model_level_weights_round_trip(tmp_path):
    model = ScaledModel()
    x = np.ones((2, 3), "float32")
    model(x)
    randomize(model)
    objects = {"ScaledModel": ScaledModel}
    model.save(tmp_path / "m.h5")
    assert_same_predictions(model, lamina.load_model(tmp_path / "m.h5",
                                                     custom_objects=objects), x)
    with h5py.File(tmp_path / "m.h5", "r") as handle:
        top = handle["model_weights/top_level_model_weights"]
        assert [n.decode() for n in top.attrs["weight_names"]] == [f"{model.name}/scale"]
    for suffix in (".weights.h5", ".h5"):
        model.save_weights(tmp_path / f"w{suffix}")
        twin = ScaledModel()
        twin(x)
        twin.load_weights(tmp_path / f"w{suffix}")
        assert_same_predictions(model, twin, x)


def test_custom_layer_and_lambda_come_from_custom_objects_only(tmp_path):
    def double_plus_one(t):
        return t * 2.0 + 1.0

    model = lamina.Sequential([layers.Input((3,)), ScaledDense(4, scale=0.5),
                               layers.Lambda(double_plus_one)])
    randomize(model)
    model.save(tmp_path / "c.h5")
    with pytest.raises(UnknownClassError, match="custom_objects") as error:
        lamina.load_model(tmp_path / "c.h5")
    assert "ScaledDense" in str(error.value) and "c.h5" in str(error.value)
    with pytest.raises(UnknownClassError, match="double_plus_one"):
        lamina.load_model(tmp_path / "c.h5", custom_objects={"ScaledDense": ScaledDense})
    loaded = lamina.load_model(tmp_path / "c.h5", custom_objects={
        "ScaledDense": ScaledDense, "double_plus_one": double_plus_one})
    assert_same_predictions(model, loaded, np.ones((2, 3), "float32"))


def test_compile_false_and_uncompiled_models(tmp_path):
    model = mlp()
    model.save(tmp_path / "a.h5")
    assert not lamina.load_model(tmp_path / "a.h5", compile=False).compiled
    bare = mlp(compiled=False)
    bare.save(tmp_path / "b.h5")
    with h5py.File(tmp_path / "b.h5", "r") as handle:
        assert "training_config" not in handle.attrs and "optimizer_weights" not in handle
    loaded = lamina.load_model(tmp_path / "b.h5")
    assert not loaded.compiled
    assert_same_predictions(bare, loaded, data(4)[0])


def test_save_weights_refuses_a_keras_zip_path_as_keras_does(tmp_path):
    with pytest.raises(UnsupportedFormatError, match=r"\.keras archive holds the whole model"):
        mlp().save_weights(str(tmp_path / "m.keras"))
    assert not os.listdir(tmp_path)


# ----------------------------------------------------------------------------- every layer
def _one(make, shape, dtype="float32"):
    def build():
        x = lamina.Input(shape, dtype=dtype)
        return [x], make()(x)
    return build


def _two(make, shape_a, shape_b=None):
    def build():
        a, b = lamina.Input(shape_a), lamina.Input(shape_b or shape_a)
        return [a, b], make()([a, b])
    return build


def _mha():
    x = lamina.Input((4, 6))
    return [x], layers.MultiHeadAttention(num_heads=2, key_dim=3)(x, x)


def _cross():
    a, b = lamina.Input((1,), dtype="int64"), lamina.Input((1,), dtype="string")
    return [a, b], layers.HashedCrossing(5, output_mode="one_hot")([a, b])


LAYER_CASES = {
    "AutoContrast": _one(layers.AutoContrast, (5, 6, 3)),
    "CenterCrop": _one(lambda: layers.CenterCrop(3, 4), (5, 6, 3)),
    "HashedCrossing": _cross,
    "RandomBrightness": _one(lambda: layers.RandomBrightness(0.2, seed=1), (5, 6, 3)),
    "RandomContrast": _one(lambda: layers.RandomContrast(0.3, seed=1), (5, 6, 3)),
    "RandomCrop": _one(lambda: layers.RandomCrop(3, 4, seed=1), (5, 6, 3)),
    "RandomFlip": _one(lambda: layers.RandomFlip("horizontal", seed=1), (5, 6, 3)),
    "RandomGrayscale": _one(lambda: layers.RandomGrayscale(0.5, seed=1), (5, 6, 3)),
    "RandomRotation": _one(lambda: layers.RandomRotation(0.1, seed=1), (5, 6, 3)),
    "RandomTranslation": _one(lambda: layers.RandomTranslation(0.1, 0.2, seed=1), (5, 6, 3)),
    "RandomZoom": _one(lambda: layers.RandomZoom(0.2, seed=1), (5, 6, 3)),
    "Resizing": _one(lambda: layers.Resizing(3, 4, interpolation="bicubic"), (5, 6, 3)),
    "Activation": _one(lambda: layers.Activation("tanh"), (5,)),
    "ActivityRegularization": _one(lambda: layers.ActivityRegularization(l1=0.1), (5,)),
    "Add": _two(layers.Add, (5,)),
    "Attention": _two(lambda: layers.Attention(use_scale=True), (3, 4), (5, 4)),
    "Average": _two(layers.Average, (5,)),
    "AveragePooling1D": _one(lambda: layers.AveragePooling1D(2), (6, 3)),
    "AveragePooling2D": _one(lambda: layers.AveragePooling2D(2), (4, 4, 2)),
    "BatchNormalization": _one(lambda: layers.BatchNormalization(momentum=0.9), (5,)),
    "Bidirectional": _one(lambda: layers.Bidirectional(layers.LSTM(3)), (4, 2)),
    "Concatenate": _two(lambda: layers.Concatenate(axis=-1), (3,), (2,)),
    "Conv1D": _one(lambda: layers.Conv1D(3, 2, padding="causal"), (6, 2)),
    "Conv2D": _one(lambda: layers.Conv2D(3, 3, padding="same", strides=2), (5, 5, 2)),
    "Conv2DTranspose": _one(lambda: layers.Conv2DTranspose(2, 3, strides=2), (3, 3, 2)),
    "Cropping1D": _one(lambda: layers.Cropping1D((1, 2)), (6, 2)),
    "Cropping2D": _one(lambda: layers.Cropping2D(1), (5, 5, 2)),
    "Dense": _one(lambda: layers.Dense(3, activation="relu"), (5,)),
    "DepthwiseConv2D": _one(lambda: layers.DepthwiseConv2D(3, depth_multiplier=2), (5, 5, 2)),
    "Dot": _two(lambda: layers.Dot(axes=1, normalize=True), (4,)),
    "Dropout": _one(lambda: layers.Dropout(0.5), (5,)),
    "Embedding": _one(lambda: layers.Embedding(10, 3), (4,), "int32"),
    "Flatten": _one(layers.Flatten, (3, 2)),
    "GRU": _one(lambda: layers.GRU(3, return_sequences=True), (4, 2)),
    "GaussianNoise": _one(lambda: layers.GaussianNoise(0.1), (5,)),
    "GlobalAveragePooling1D": _one(layers.GlobalAveragePooling1D, (6, 3)),
    "GlobalAveragePooling2D": _one(layers.GlobalAveragePooling2D, (4, 4, 2)),
    "GlobalMaxPooling1D": _one(layers.GlobalMaxPooling1D, (6, 3)),
    "GlobalMaxPooling2D": _one(layers.GlobalMaxPooling2D, (4, 4, 2)),
    "Identity": _one(layers.Identity, (5,)),
    "LSTM": _one(lambda: layers.LSTM(3), (4, 2)),
    "LayerNormalization": _one(lambda: layers.LayerNormalization(epsilon=1e-5), (5,)),
    "Masking": _one(lambda: layers.Masking(0.0), (4, 2)),
    "MaxPooling1D": _one(lambda: layers.MaxPooling1D(2), (6, 3)),
    "MaxPooling2D": _one(lambda: layers.MaxPooling2D(2), (4, 4, 2)),
    "Maximum": _two(layers.Maximum, (5,)),
    "Minimum": _two(layers.Minimum, (5,)),
    "MultiHeadAttention": _mha,
    "Multiply": _two(layers.Multiply, (5,)),
    "Normalization": _one(lambda: layers.Normalization(mean=[0.5, 1.0], variance=[2.0, 4.0]),
                          (2,)),
    "Permute": _one(lambda: layers.Permute((2, 1)), (3, 2)),
    "RNN": _one(lambda: layers.RNN(layers.GRUCell(3)), (4, 2)),
    "RepeatVector": _one(lambda: layers.RepeatVector(3), (2,)),
    "Rescaling": _one(lambda: layers.Rescaling(0.5, 0.1), (5,)),
    "Reshape": _one(lambda: layers.Reshape((2, 3)), (6,)),
    "SeparableConv2D": _one(lambda: layers.SeparableConv2D(3, 3), (5, 5, 2)),
    "SimpleRNN": _one(lambda: layers.SimpleRNN(3), (4, 2)),
    "SpatialDropout1D": _one(lambda: layers.SpatialDropout1D(0.5), (4, 2)),
    "SpatialDropout2D": _one(lambda: layers.SpatialDropout2D(0.5), (3, 3, 2)),
    "Subtract": _two(layers.Subtract, (5,)),
    "TimeDistributed": _one(lambda: layers.TimeDistributed(layers.Dense(2)), (3, 4)),
    "UpSampling1D": _one(lambda: layers.UpSampling1D(2), (3, 2)),
    "UpSampling2D": _one(lambda: layers.UpSampling2D(2), (2, 2, 2)),
    "ZeroPadding1D": _one(lambda: layers.ZeroPadding1D(1), (3, 2)),
    "ZeroPadding2D": _one(lambda: layers.ZeroPadding2D(1), (2, 2, 2)),
    "LSTMCell": _one(lambda: layers.RNN(layers.LSTMCell(2)), (4, 2)),
    "SimpleRNNCell": _one(lambda: layers.RNN(layers.SimpleRNNCell(2)), (4, 2)),
    "GRUCell": _one(lambda: layers.RNN(layers.GRUCell(2)), (4, 2)),
    "Lambda": _one(lambda: layers.Lambda(_halve), (5,)),
    "CategoryEncoding": _one(lambda: layers.CategoryEncoding(10, "count"), (3,), "int32"),
    "Discretization": _one(lambda: layers.Discretization([-0.5, 0.0, 0.5]), (4,)),
    "Hashing": _one(lambda: layers.Hashing(5, output_mode="multi_hot"), (3,), "int32"),
    "IntegerLookup": _one(lambda: layers.IntegerLookup(vocabulary=[1, 2, 3]), (3,), "int32"),
    "StringLookup": _one(lambda: layers.StringLookup(vocabulary=["a b", "c"],
                                                     output_mode="one_hot"), (1,), "string"),
    "TextVectorization": _one(lambda: layers.TextVectorization(
        vocabulary=["a", "zz"], output_sequence_length=3), (1,), "string"),
    "AlphaDropout": _one(lambda: layers.AlphaDropout(0.2), (5,)),
    "GaussianDropout": _one(lambda: layers.GaussianDropout(0.2), (5,)),
    "SpatialDropout3D": _one(lambda: layers.SpatialDropout3D(0.5), (2, 2, 2, 2)),
    "ReLU": _one(lambda: layers.ReLU(max_value=2.0, negative_slope=0.1), (5,)),
    "LeakyReLU": _one(lambda: layers.LeakyReLU(0.2), (5,)),
    "PReLU": _one(lambda: layers.PReLU(alpha_initializer="ones"), (5,)),
    "ELU": _one(lambda: layers.ELU(0.5), (5,)),
    "Softmax": _one(lambda: layers.Softmax(), (5,)),
    "GroupNormalization": _one(lambda: layers.GroupNormalization(groups=2), (3, 4)),
    "UnitNormalization": _one(lambda: layers.UnitNormalization(), (5,)),
    "Conv3D": _one(lambda: layers.Conv3D(2, 2), (3, 3, 3, 2)),
    "Conv1DTranspose": _one(lambda: layers.Conv1DTranspose(2, 3, strides=2), (3, 2)),
    "Conv3DTranspose": _one(lambda: layers.Conv3DTranspose(2, 2), (2, 2, 2, 2)),
    "DepthwiseConv1D": _one(lambda: layers.DepthwiseConv1D(3, depth_multiplier=2), (6, 2)),
    "SeparableConv1D": _one(lambda: layers.SeparableConv1D(3, 3), (6, 2)),
    "MaxPooling3D": _one(lambda: layers.MaxPooling3D(2), (4, 4, 4, 2)),
    "AveragePooling3D": _one(lambda: layers.AveragePooling3D(2), (4, 4, 4, 2)),
    "GlobalMaxPooling3D": _one(layers.GlobalMaxPooling3D, (2, 2, 2, 2)),
    "GlobalAveragePooling3D": _one(layers.GlobalAveragePooling3D, (2, 2, 2, 2)),
    "Cropping3D": _one(lambda: layers.Cropping3D(1), (4, 4, 4, 2)),
    "UpSampling3D": _one(lambda: layers.UpSampling3D(2), (2, 2, 2, 2)),
    "ZeroPadding3D": _one(lambda: layers.ZeroPadding3D(1), (2, 2, 2, 2)),
}
# Keras' aliases are the same classes as the names above (one save/load case each).
LAYER_CASES.update({alias: LAYER_CASES[name] for alias, name in {
    "AvgPool1D": "AveragePooling1D", "AvgPool2D": "AveragePooling2D",
    "AvgPool3D": "AveragePooling3D", "MaxPool1D": "MaxPooling1D", "MaxPool2D": "MaxPooling2D",
    "MaxPool3D": "MaxPooling3D", "GlobalAvgPool1D": "GlobalAveragePooling1D",
    "GlobalAvgPool2D": "GlobalAveragePooling2D", "GlobalAvgPool3D": "GlobalAveragePooling3D",
    "GlobalMaxPool1D": "GlobalMaxPooling1D", "GlobalMaxPool2D": "GlobalMaxPooling2D",
    "GlobalMaxPool3D": "GlobalMaxPooling3D", "Convolution1D": "Conv1D",
    "Convolution2D": "Conv2D", "Convolution3D": "Conv3D",
    "Convolution1DTranspose": "Conv1DTranspose", "Convolution2DTranspose": "Conv2DTranspose",
    "Convolution3DTranspose": "Conv3DTranspose", "SeparableConvolution1D": "SeparableConv1D",
    "SeparableConvolution2D": "SeparableConv2D"}.items()})
LAYER_CASES.update({
    "EinsumDense": _one(lambda: layers.EinsumDense("abc,cde->abde", (None, 2, 3),
                                                   bias_axes="de"), (4, 5)),
    "AdditiveAttention": _two(layers.AdditiveAttention, (3, 4), (5, 4)),
    "RMSNormalization": _one(lambda: layers.RMSNormalization(axis=[1, 2]), (3, 4)),
    "StackedRNNCells": _one(lambda: layers.RNN(layers.StackedRNNCells(
        [layers.LSTMCell(3), layers.GRUCell(2)])), (4, 2)),
    "Pipeline": _one(lambda: layers.Pipeline([layers.Rescaling(0.5), layers.Dense(2)]), (3,)),
    "SpectralNormalization": _one(lambda: layers.SpectralNormalization(layers.Dense(3)), (4,)),
    "AdaptiveAveragePooling1D": _one(lambda: layers.AdaptiveAveragePooling1D(3), (7, 2)),
    "AdaptiveAveragePooling2D": _one(lambda: layers.AdaptiveAveragePooling2D((2, 3)), (5, 7, 2)),
    "AdaptiveAveragePooling3D": _one(lambda: layers.AdaptiveAveragePooling3D(2), (3, 5, 4, 2)),
    "AdaptiveMaxPooling1D": _one(lambda: layers.AdaptiveMaxPooling1D(3), (7, 2)),
    "AdaptiveMaxPooling2D": _one(lambda: layers.AdaptiveMaxPooling2D((2, 3)), (5, 7, 2)),
    "AdaptiveMaxPooling3D": _one(lambda: layers.AdaptiveMaxPooling3D(2), (3, 5, 4, 2)),
    "ConvLSTM1D": _one(lambda: layers.ConvLSTM1D(2, 3, padding="same"), (3, 5, 2)),
    "ConvLSTM2D": _one(lambda: layers.ConvLSTM2D(2, 3, return_sequences=True), (3, 5, 4, 2)),
    "ConvLSTM3D": _one(lambda: layers.ConvLSTM3D(2, 2), (2, 3, 4, 3, 1)),
})


def _halve(t):
    return t * 0.5


def _inputs_for(model, seed=0):
    rng = np.random.default_rng(seed)
    arrays = []
    for tensor in model.inputs:
        shape = (3,) + tuple(tensor.shape[1:])
        if tensor.dtype == "string":
            arrays.append(rng.choice(["a b", "c", "zz a"], size=shape).astype(object))
        elif tensor.dtype.startswith("int"):
            arrays.append(rng.integers(0, 10, size=shape).astype(tensor.dtype))
        else:
            arrays.append(rng.normal(size=shape).astype(tensor.dtype))
    return arrays[0] if len(arrays) == 1 else arrays


@pytest.mark.parametrize("name", sorted(LAYER_CASES))
def test_every_built_in_layer_round_trips(tmp_path, name):
    inputs, outputs = LAYER_CASES[name]()
    model = randomize(lamina.Model(inputs[0] if len(inputs) == 1 else inputs, outputs))
    x = _inputs_for(model)
    objects = {"_halve": _halve}
    model.save(tmp_path / "m.h5")
    loaded = lamina.load_model(tmp_path / "m.h5", custom_objects=objects)
    assert [type(layer).__name__ for layer in loaded.layers] == \
        [type(layer).__name__ for layer in model.layers]
    assert_same_predictions(model, loaded, x)
    for suffix in (".weights.h5", ".h5"):
        path = tmp_path / f"w{suffix}"
        model.save_weights(path)
        twin = lamina.models.clone_model(model)
        twin.load_weights(path)
        assert_same_predictions(model, twin, x)


def test_layer_cases_cover_every_public_layer():
    public = {name for name in dir(layers) if isinstance(getattr(layers, name), type)
              and issubclass(getattr(layers, name), Layer)}
    missing = public - set(LAYER_CASES) - {"Layer", "InputLayer", "Wrapper"}  # + abstract
    assert not missing, f"add save/load cases for {sorted(missing)}"


# ----------------------------------------------------------------------------- in memory
def test_to_bytes_from_bytes_pickle_and_deepcopy():
    x, y = data(32)
    model = mlp()
    model.fit(x, y, epochs=1, batch_size=8, verbose=0)
    data_bytes = model.to_bytes()
    assert data_bytes[:8] == b"\x89HDF\r\n\x1a\n"
    for copied in (lamina.models.from_bytes(data_bytes), pickle.loads(pickle.dumps(model)),
                   copy.deepcopy(model)):
        assert copied is not model and copied.compiled
        assert_same_predictions(model, copied, x)
        assert copied.optimizer.iterations == model.optimizer.iterations
        assert all(a is not b for a, b in zip(copied.weights, model.weights))
    uncompiled = mlp(compiled=False)
    assert not copy.deepcopy(uncompiled).compiled
    assert_same_predictions(uncompiled, pickle.loads(pickle.dumps(uncompiled)), x)
    unbuilt = lamina.Sequential([layers.Dense(2)])
    assert not copy.deepcopy(unbuilt).built


def test_pickle_carries_classes_by_reference_only():
    model = TwoTowers(units=2)
    model(np.zeros((1, 3), "float32"))
    payload = pickle.dumps(model)
    assert b"ScaledDense" not in payload and b"TwoTowers" in payload
    restored = pickle.loads(payload)
    assert type(restored) is TwoTowers
    assert_same_predictions(model, restored, np.ones((2, 3), "float32"))


# ----------------------------------------------------------------------------- resuming
@pytest.mark.parametrize("optimizer", [lambda: lamina.optimizers.SGD(0.05, momentum=0.9),
                                       lambda: lamina.optimizers.Adam(0.01)],
                         ids=["sgd_momentum", "adam"])
def test_resumed_training_is_bit_identical(tmp_path, optimizer):
    x, y = data(100)
    straight = mlp(optimizer=optimizer())
    straight.fit(x, y, epochs=5, batch_size=16, shuffle=True, verbose=0)
    first = mlp(optimizer=optimizer())
    first.fit(x, y, epochs=3, batch_size=16, shuffle=True, verbose=0)
    first.save(tmp_path / "r.h5")
    resumed = lamina.load_model(tmp_path / "r.h5")
    resumed.fit(x, y, epochs=5, initial_epoch=3, batch_size=16, shuffle=True, verbose=0)
    assert resumed.optimizer.iterations == straight.optimizer.iterations == 35
    for a, b in zip(straight.get_weights(), resumed.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_saving_module_exports():
    # saving_api chooses the format (.keras archive or HDF5) for every public entry point.
    for load_model in (lamina.load_model, lamina.models.load_model, lamina.saving.load_model):
        assert load_model is saving_api.load_model
    assert lamina.models.from_bytes is saving_api.from_bytes
    assert lamina.saving.save_model is saving_api.save_model


def test_resume_is_bit_identical_with_a_seeded_dropout_layer(tmp_path):
    x, y = data(100)

    def seeded_model():
        lamina.utils.set_random_seed(1)
        model = lamina.Sequential([lamina.Input((x.shape[1],)),
                                   lamina.layers.Dense(8, activation="relu"),
                                   lamina.layers.Dropout(0.3, seed=7),
                                   lamina.layers.Dense(y.shape[1] if y.ndim > 1 else 1)])
        model.compile(optimizer=lamina.optimizers.Adam(0.01), loss="mse")
        return model

    straight = seeded_model()
    straight.fit(x, y, epochs=4, batch_size=16, verbose=0)
    first = seeded_model()
    first.fit(x, y, epochs=2, batch_size=16, verbose=0)
    first.save(tmp_path / "seeded.h5")
    resumed = lamina.load_model(tmp_path / "seeded.h5")
    resumed.fit(x, y, epochs=4, initial_epoch=2, batch_size=16, verbose=0)
    for a, b in zip(straight.get_weights(), resumed.get_weights()):
        np.testing.assert_array_equal(a, b)


# ----------------------------------------------------------------------------- large models
# Configs over 64 KB once did not fit in an HDF5 attribute: nothing could save these models.
def deep_mlp(depth, seed=5):
    lamina.utils.set_random_seed(seed)
    model = lamina.Sequential([layers.Input((6,))] +
                              [layers.Dense(3, activation="tanh", use_bias=False)
                               for _ in range(depth)] +
                              [layers.Dense(3, activation="softmax")], name="deep")
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    return model


def residual_graph(blocks):
    """A ResNet-like functional graph of ``3 * blocks + 2`` layers."""
    inputs = layers.Input((6,))
    hidden = layers.Dense(4)(inputs)
    for _ in range(blocks):
        branch = layers.Dense(4, activation="relu")(layers.LayerNormalization()(hidden))
        hidden = layers.Add()([hidden, branch])
    model = lamina.Model(inputs, layers.Dense(3)(hidden), name="residual")
    model.compile(optimizer="sgd", loss="mse")
    return model


def _config_size(path):
    with h5py.File(path, "r") as handle:        # one attribute, as Keras writes and reads it
        return len(handle.attrs["model_config"])


def test_a_500_layer_model_saves_loads_pickles_and_deepcopies(tmp_path):
    x, y = data(8)
    model = deep_mlp(500)
    model.train_on_batch(x, y)
    model.save(tmp_path / "deep.h5")
    assert _config_size(tmp_path / "deep.h5") > 65536
    for copied in (lamina.load_model(tmp_path / "deep.h5"), pickle.loads(pickle.dumps(model)),
                   copy.deepcopy(model)):
        assert len(copied.layers) == 501 and copied.optimizer.iterations == 1
        assert_same_predictions(model, copied, x)


def test_a_150_layer_residual_graph_saves_and_loads_in_every_layout(tmp_path):
    x = data(8)[0]
    model = residual_graph(50)
    model.train_on_batch(x, np.zeros((8, 3), "float32"))
    model.save(tmp_path / "res.h5")
    assert _config_size(tmp_path / "res.h5") > 65536
    assert_same_predictions(model, lamina.load_model(tmp_path / "res.h5"), x)
    for name in ("res.weights.h5", "res_legacy.h5"):
        model.save_weights(tmp_path / name)
        twin = residual_graph(50)
        twin.load_weights(tmp_path / name)
        assert_same_predictions(model, twin, x)


def test_model_checkpoint_saves_a_160_layer_model_every_epoch(tmp_path):
    x, y = data(16)
    model = deep_mlp(160)
    model.fit(x, y, epochs=2, batch_size=8, verbose=0,
              callbacks=[lamina.callbacks.ModelCheckpoint(str(tmp_path / "e{epoch}.h5"))])
    assert sorted(os.listdir(tmp_path)) == ["e1.h5", "e2.h5"]
    assert _config_size(tmp_path / "e2.h5") > 65536
    assert_same_predictions(model, lamina.load_model(tmp_path / "e2.h5"), x)


# ----------------------------------------------------------------------------- pickling by reference
def _globals_of(data):
    seen = set()

    class Recorder(pickle.Unpickler):
        def find_class(self, module, name):
            seen.add((module, name))
            return super().find_class(module, name)

    return Recorder(io.BytesIO(data)).load(), seen


def custom_loss(y_true, y_pred):
    """A custom loss function (this test module is importable under its own name)."""
    return lamina.ops.mean((y_true - y_pred) ** 2, axis=-1)


def test_custom_objects_pickle_as_import_names():
    model = custom_objects.custom_network(4, 3)
    x = np.random.default_rng(0).normal(size=(5, 4))
    restored, found = _globals_of(pickle.dumps(model))
    assert {module for module, _ in found} == {"lamina.highlevel.saving.model_file"}, found
    assert [type(layer) for layer in restored.layers[:2]] == [
        custom_objects.RegisteredScale, custom_objects.Shift]
    assert restored.layers[2].function is custom_objects.soft_clip
    np.testing.assert_array_equal(restored.predict(x, verbose=0),
                                  model.predict(x, verbose=0))
    _, references = saving.pickled_state(model)
    assert references == {name: f"lamina_custom_objects:{name}"
                          for name in ("RegisteredScale", "Shift", "soft_clip")}


def test_a_custom_loss_function_travels_by_name():
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(2)])
    model.compile(optimizer="sgd", loss=custom_loss)
    _, references = saving.pickled_state(model)
    assert references == {"custom_loss": f"{__name__}:custom_loss"}
    restored = pickle.loads(pickle.dumps(model))
    assert restored.compiled_loss.losses[0].fn is custom_loss


def test_what_has_no_import_name_is_refused_when_pickling():
    def local_function(inputs):
        return inputs

    for function in (lambda inputs: inputs, local_function):
        model = lamina.Sequential([lamina.Input((3,)), layers.Lambda(function)])
        with pytest.raises(pickle.PicklingError, match="not importable by name"):
            pickle.dumps(model)


def test_an_unimportable_reference_names_the_object_and_module():
    with pytest.raises(pickle.UnpicklingError, match="'Shift'.*no_such_module_for_lamina"):
        saving.resolve_references({"Shift": "no_such_module_for_lamina:Shift"})
    with pytest.raises(pickle.UnpicklingError, match="not a 'module:qualname'"):
        saving.resolve_references({"Shift": "os:system('x')"})
    with pytest.raises(pickle.UnpicklingError, match="pickled as type, not as"):
        saving.resolve_references({"Shift": custom_objects.Shift})
    with pytest.raises(pickle.UnpicklingError, match="not a class or function"):
        saving.resolve_references({"Shift": "lamina_custom_objects:__doc__"})
