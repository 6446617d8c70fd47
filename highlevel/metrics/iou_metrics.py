"""Intersection-over-union metrics from an accumulated confusion matrix: ``IoU``,
``BinaryIoU``, ``MeanIoU``, ``OneHotIoU`` and ``OneHotMeanIoU`` (``keras.metrics`` names,
arguments and results)."""

from ...backends import state
from ..losses.loss_utils import epsilon
from .metric import Metric, engine_array, float_array, result_value


class _IoUBase(Metric):
    """The confusion matrix of ``num_classes`` classes (rows: true class, columns:
    predicted), accumulated with ``sample_weight``; labels outside ``[0, num_classes)``
    and ``ignore_class`` are skipped. ``dtype`` defaults to Keras' ``"int32"`` (the
    matrix' type there); the counts here are float64 and fractional weights are kept,
    where Keras truncates them to integers."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None,
                 sparse_y_true=True, sparse_y_pred=True, axis=-1):
        super().__init__(name=name, dtype=dtype or "int32")   # Keras' default dtype
        self.num_classes = num_classes
        self.ignore_class = ignore_class
        self.sparse_y_true = sparse_y_true
        self.sparse_y_pred = sparse_y_pred
        self.axis = axis
        self._add_state("total_cm", (num_classes, num_classes))

    def _class_ids(self, y_true, y_pred):
        """Integer class ids of true and predicted labels, flattened."""
        y_true, y_pred = engine_array(y_true), engine_array(y_pred)
        if not self.sparse_y_true:
            y_true = y_true.argmax(axis=self.axis)
        if not self.sparse_y_pred:
            y_pred = y_pred.argmax(axis=self.axis)
        return y_true.reshape(-1).astype("int64"), y_pred.reshape(-1).astype("int64")

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Add one batch to the confusion matrix."""
        xp = state.backend().xp
        y_true, y_pred = self._class_ids(y_true, y_pred)
        weights = xp.ones(y_true.shape, "float64") if sample_weight is None else \
            xp.broadcast_to(float_array(sample_weight, "float64").reshape(-1), y_true.shape)
        valid = (y_true >= 0) & (y_true < self.num_classes) & (y_pred >= 0) & \
            (y_pred < self.num_classes)
        if self.ignore_class is not None:
            valid &= y_true != self.ignore_class
        cells = xp.where(valid, y_true * self.num_classes + y_pred, 0)
        counts = xp.bincount(cells, weights=weights * valid,
                             minlength=self.num_classes * self.num_classes)
        self.total_cm += counts.reshape(self.num_classes, self.num_classes)

    def _iou(self, target_class_ids):
        """Mean IoU over ``target_class_ids``, classes absent from both the labels and the
        predictions left out."""
        xp = state.backend().xp
        true_positives = xp.diag(self.total_cm)
        denominator = self.total_cm.sum(axis=0) + self.total_cm.sum(axis=1) - true_positives
        ids = xp.asarray(list(target_class_ids), dtype="int64")
        true_positives, denominator = true_positives[ids], denominator[ids]
        valid = denominator > 1e-9
        iou = xp.where(valid, true_positives / (denominator + epsilon()), 0.0)
        return result_value((iou.sum() / (valid.sum() + epsilon())).astype("float32"))

    def get_config(self):
        """Keras' config."""
        return {**super().get_config(), "num_classes": self.num_classes,
                "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


class IoU(_IoUBase):
    """Mean intersection-over-union ``tp / (tp + fp + fn)`` of ``target_class_ids``."""

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None,
                 ignore_class=None, sparse_y_true=True, sparse_y_pred=True, axis=-1):
        super().__init__(num_classes, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=sparse_y_true, sparse_y_pred=sparse_y_pred, axis=axis)
        if max(target_class_ids) >= num_classes:
            raise ValueError(f"Target class id {max(target_class_ids)} is out of range, "
                             f"which is [0, {num_classes}).")
        self.target_class_ids = list(target_class_ids)

    def result(self):
        """The mean IoU of the target classes."""
        return self._iou(self.target_class_ids)

    def get_config(self):
        """Keras' config."""
        return {**super().get_config(), "target_class_ids": self.target_class_ids}


class BinaryIoU(IoU):
    """IoU of binary labels, predictions thresholded at ``threshold`` (``y_pred >=
    threshold`` is class 1), over ``target_class_ids`` (default both)."""

    def __init__(self, target_class_ids=(0, 1), threshold=0.5, name=None, dtype=None):
        super().__init__(2, target_class_ids, name=name, dtype=dtype)
        self.threshold = threshold

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Threshold the predictions, then add the batch to the confusion matrix."""
        super().update_state(y_true, float_array(y_pred) >= self.threshold, sample_weight)

    def get_config(self):
        """Keras' config."""
        return {"name": self.name, "dtype": self.dtype,
                "target_class_ids": self.target_class_ids, "threshold": self.threshold}


class MeanIoU(IoU):
    """IoU averaged over all ``num_classes`` classes."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None,
                 sparse_y_true=True, sparse_y_pred=True, axis=-1):
        super().__init__(num_classes, list(range(num_classes)), name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=sparse_y_true,
                         sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self):
        """Keras' config."""
        config = super().get_config()
        del config["target_class_ids"]
        return config


class OneHotIoU(IoU):
    """IoU of one-hot labels (and, unless ``sparse_y_pred``, scores: argmax is the class)."""

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None,
                 ignore_class=None, sparse_y_pred=False, axis=-1):
        super().__init__(num_classes, target_class_ids, name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=False,
                         sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self):
        """Keras' config."""
        config = super().get_config()
        del config["sparse_y_true"]
        return config


class OneHotMeanIoU(MeanIoU):
    """Mean IoU of one-hot labels over all classes."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None,
                 sparse_y_pred=False, axis=-1):
        super().__init__(num_classes, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self):
        """Keras' config."""
        config = super().get_config()
        del config["sparse_y_true"]
        return config
