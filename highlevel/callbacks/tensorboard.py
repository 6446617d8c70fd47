"""The :class:`TensorBoard` callback: TensorBoard event files, laid out and tagged as Keras 3
writes them, through ``tensorboardX`` (the ``[tensorboard]`` extra; no TensorFlow).

``log_dir/train`` gets ``epoch_<name>`` for each training log (``epoch_loss``,
``epoch_accuracy``, ..., ``epoch_learning_rate``; step = epoch), ``batch_<name>`` every
``update_freq`` batches (step = global batch), weight histograms (``<weight path>/histogram``)
and images (``<weight path>/image``), and the model's config (the "keras" graph TensorBoard
draws); ``log_dir/validation`` gets ``epoch_<name>`` for the ``val_`` logs (prefix dropped)
and ``evaluation_<name>_vs_iterations``. View them with ``tensorboard --logdir logs``.
"""

import json
import os
import time
import warnings

import numpy as np

from .callback import CALLBACKS, Callback


def _summary_writer_class():
    try:
        from tensorboardX import SummaryWriter
    except ImportError as error:
        raise ImportError("lamina.callbacks.TensorBoard needs the 'tensorboardX' package: "
                          "pip install 'lamina[tensorboard]'") from error
    return SummaryWriter


def _weight_image(value):
    """Keras' image of a weight (NHWC with one channel), or None for shapes it skips."""
    image = np.squeeze(np.asarray(value, dtype=np.float32))
    if image.ndim == 1:
        image = image.reshape(1, image.shape[0], 1, 1)
    elif image.ndim == 2:
        if image.shape[0] > image.shape[1]:
            image = image.T
        image = image.reshape(1, image.shape[0], image.shape[1], 1)
    elif image.ndim == 3:
        image = np.transpose(image, (2, 0, 1))[..., None]
    else:
        return None
    low, high = image.min(), image.max()
    return (image - low) / (high - low) if high > low else np.zeros_like(image)


@CALLBACKS.register()
class TensorBoard(Callback):
    """Writes TensorBoard logs of training (Keras 3's arguments and tags).

    Args:
        log_dir: folder of the logs; ``train/`` and ``validation/`` are made below it.
        histogram_freq: every this many epochs, weight histograms (0: never).
        write_graph: write the model's config as TensorBoard's Keras graph.
        write_images: with ``histogram_freq``, also weights as images.
        write_steps_per_second: log ``steps_per_second`` (epoch and batch).
        update_freq: ``"epoch"`` (default), ``"batch"`` or an int N: also log
            ``batch_<name>`` every N training batches.
        profile_batch: accepted for compatibility; profiling needs TensorFlow/JAX, so a
            non-zero value warns and is ignored.
        embeddings_freq, embeddings_metadata: accepted; embedding projection is not
            written (a non-zero ``embeddings_freq`` warns).
    """

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False,
                 write_steps_per_second=False, update_freq="epoch", profile_batch=0,
                 embeddings_freq=0, embeddings_metadata=None):
        super().__init__()
        if update_freq != "epoch" and update_freq != "batch" and not (
                isinstance(update_freq, int) and update_freq > 0):
            raise ValueError(f"TensorBoard: update_freq must be 'epoch', 'batch' or a "
                             f"positive int, got {update_freq!r}")
        self._writer_class = _summary_writer_class()
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = int(histogram_freq)
        self.write_graph = write_graph
        self.write_images = write_images
        self.write_steps_per_second = write_steps_per_second
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self.profile_batch = profile_batch
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = embeddings_metadata
        for name, value in (("profile_batch", profile_batch),
                            ("embeddings_freq", embeddings_freq)):
            if value:
                warnings.warn(f"TensorBoard: {name}={value!r} is ignored (not available "
                              "without TensorFlow)", stacklevel=2)
        self._writers = {}
        self._global_train_batch = 0
        self._batch_start_time = 0.0
        self._epoch_start_time = 0.0
        self._previous_epoch_iterations = 0
        self._evaluated = False

    def set_model(self, model):
        super().set_model(model)
        self._train_dir = os.path.join(self.log_dir, "train")
        self._val_dir = os.path.join(self.log_dir, "validation")
        self._close_writers()
        if self.write_graph:
            self._write_model_config()

    def _writer(self, which):
        if which not in self._writers:
            folder = self._train_dir if which == "train" else self._val_dir
            self._writers[which] = self._writer_class(logdir=folder)
        return self._writers[which]

    def _close_writers(self):
        for writer in self._writers.values():
            writer.close()
        self._writers = {}

    def _write_model_config(self):
        """The model config as Keras' ``graph_keras_model`` summary (TensorBoard's graph
        tab, "Keras" view)."""
        if getattr(self.model, "functional_graph", None) is None:
            return
        from tensorboardX.proto import summary_pb2, tensor_pb2, tensor_shape_pb2
        config = {"class_name": self.model.registered_class_name(),
                  "config": self.model.get_config(), "backend": "lamina"}
        metadata = summary_pb2.SummaryMetadata(
            plugin_data=summary_pb2.SummaryMetadata.PluginData(
                plugin_name="graph_keras_model", content=b"1"))
        tensor = tensor_pb2.TensorProto(dtype="DT_STRING",
                                        tensor_shape=tensor_shape_pb2.TensorShapeProto(),
                                        string_val=[json.dumps(config).encode()])
        summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(
            tag="keras", metadata=metadata, tensor=tensor)])
        writer = self._writer("train")
        writer._get_file_writer().add_summary(summary, 0)
        writer.flush()

    # ------------------------------------------------------------------ training
    def on_train_begin(self, logs=None):
        self._global_train_batch = 0
        self._previous_epoch_iterations = 0

    def on_train_end(self, logs=None):
        self._close_writers()

    def _records_batch(self):
        return self.update_freq != "epoch" and self._global_train_batch % self.update_freq == 0

    def on_train_batch_begin(self, batch, logs=None):
        self._global_train_batch += 1
        if self.write_steps_per_second:
            self._batch_start_time = time.time()

    def on_train_batch_end(self, batch, logs=None):
        if not self._records_batch():
            return
        writer, step = self._writer("train"), self._global_train_batch
        if self.write_steps_per_second:
            elapsed = max(time.time() - self._batch_start_time, 1e-9)
            writer.add_scalar("batch_steps_per_second", 1.0 / elapsed, step)
        for name, value in (logs or {}).items():
            writer.add_scalar(f"batch_{name}", float(np.mean(value)), step)

    def on_epoch_begin(self, epoch, logs=None):
        self._evaluated = False
        if self.write_steps_per_second:
            self._previous_epoch_iterations = self.model.optimizer.iterations
            self._epoch_start_time = time.time()

    def on_epoch_end(self, epoch, logs=None):
        self._log_epoch_metrics(epoch, logs or {})
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)
        for writer in self._writers.values():
            writer.flush()

    def on_test_end(self, logs=None):
        self._evaluated = True
        self._log_evaluation(logs)

    def _log_evaluation(self, logs):
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is None or not logs:
            return
        writer = self._writer("validation")
        for name, value in logs.items():
            writer.add_scalar(f"evaluation_{name}_vs_iterations", float(np.mean(value)),
                              optimizer.iterations)

    def _log_epoch_metrics(self, epoch, logs):
        if not logs:
            return
        train = {k: v for k, v in logs.items() if not k.startswith("val_")}
        validation = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None:
            train["learning_rate"] = float(optimizer.learning_rate)
        if self.write_steps_per_second:
            steps = optimizer.iterations - self._previous_epoch_iterations
            train["steps_per_second"] = steps / max(time.time() - self._epoch_start_time, 1e-9)
        if validation and not self._evaluated:     # fit's validation sent no on_test_end
            self._log_evaluation(validation)
        for which, values in (("train", train), ("validation", validation)):
            if values:
                writer = self._writer(which)
                for name, value in values.items():
                    writer.add_scalar(f"epoch_{name}", float(np.mean(value)), epoch)

    def _log_weights(self, epoch):
        writer = self._writer("train")
        for layer in self.model.layers:
            for weight in layer.weights:
                name = str(getattr(weight, "path", None) or weight.name).replace(":", "_")
                value = np.asarray(weight.numpy(), dtype=np.float32)
                writer.add_histogram(f"{name}/histogram", value, epoch)
                if self.write_images:
                    image = _weight_image(value)
                    if image is not None:
                        writer.add_images(f"{name}/image", image, epoch, dataformats="NHWC")
        writer.flush()
