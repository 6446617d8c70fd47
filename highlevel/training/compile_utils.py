"""What ``compile`` turns its ``loss``/``metrics`` arguments into: one loss per output
(weighted and summed) and metrics per output, with Keras' log names."""

from ...layers.symbolic import flatten
from ..losses import losses as losses_module
from ..metrics import metrics as metrics_module


def _per_output(value, names, what):
    """``value`` given once, as a list, or as a dict by output name -> one entry per output."""
    if isinstance(value, dict):
        unknown = sorted(set(value) - set(names))
        if unknown:
            raise ValueError(f"compile {what} names unknown outputs {unknown}; outputs: {names}")
        return [value.get(name) for name in names]
    if isinstance(value, (list, tuple)) and len(names) > 1:
        if len(value) != len(names):
            raise ValueError(f"compile {what} has {len(value)} entries for {len(names)} outputs")
        return list(value)
    return [value] * len(names)


class CompiledLoss:
    """The weighted sum of one loss per model output.

    Args:
        loss: a loss identifier, or a list/dict of them per output.
        loss_weights: None, or a list/dict of floats per output.
        output_names: the model's output names.
    """

    def __init__(self, loss, loss_weights, output_names):
        self.output_names = list(output_names)
        if isinstance(loss, (list, tuple)) and len(output_names) == 1 and len(loss) == 1:
            loss = loss[0]
        self.losses = [None if item is None else losses_module.get(item)
                       for item in _per_output(loss, self.output_names, "loss")]
        weights = _per_output(loss_weights, self.output_names, "loss_weights")
        self.weights = [1.0 if w is None else float(w) for w in weights]
        self.has_loss = any(item is not None for item in self.losses)
        multi = len(self.output_names) > 1
        self.trackers = [metrics_module.Mean(name=f"{name}_loss")
                         for name in self.output_names] if multi else []

    def __call__(self, y_true, y_pred, sample_weight=None):
        targets = as_output_list(y_true, self.output_names)
        predictions = flatten(y_pred)
        if len(predictions) != len(self.losses):
            raise ValueError(f"model produced {len(predictions)} outputs but compile() has "
                             f"losses for {len(self.losses)}")
        if targets is None:
            raise ValueError("a compiled loss needs targets y")
        total = None
        for position, (loss, weight) in enumerate(zip(self.losses, self.weights)):
            if loss is None:
                continue
            value = loss(targets[position], predictions[position], sample_weight)
            if self.trackers:
                self.trackers[position].update_state(value.data,
                                                     sample_weight=predictions[position].shape[0])
            weighted = value if weight == 1.0 else value * weight
            total = weighted if total is None else total + weighted
        return total


class CompiledMetrics:
    """Metrics per output, resolved on first use (``"accuracy"`` needs the loss and output
    shape), named as Keras logs them (``accuracy``, or ``<output>_accuracy``)."""

    def __init__(self, metrics, weighted_metrics, output_names, compiled_loss):
        self.output_names = list(output_names)
        self.requested = _metrics_per_output(metrics, self.output_names)
        self.requested_weighted = _metrics_per_output(weighted_metrics, self.output_names)
        self._compiled_loss = compiled_loss
        self._resolved = None
        self._metrics = []
        self._loss_metrics = list(compiled_loss.trackers)
        for requested in self.requested + self.requested_weighted:  # unknown names fail in compile()
            for identifier in _as_identifier_list(requested):
                if isinstance(identifier, str) and identifier.lower() not in ("accuracy", "acc"):
                    metrics_module.METRICS.lookup(identifier)

    @property
    def metrics(self):
        return self._loss_metrics + self._metrics

    def _resolve(self, y_pred):
        predictions = flatten(y_pred)
        multi = len(self.output_names) > 1
        resolved = []
        for weighted, per_output in ((False, self.requested), (True, self.requested_weighted)):
            for position, name in enumerate(self.output_names):
                loss = self._compiled_loss.losses[position]
                shape = tuple(predictions[position].shape)
                for identifier in _as_identifier_list(per_output[position]):
                    metric = metrics_module.get(identifier, loss=loss, output_shape=shape)
                    resolved.append((position, metric, weighted))
        _unique_log_names([(metric, weighted, self.output_names[position] if multi else None)
                           for position, metric, weighted in resolved])
        self._resolved = resolved
        self._metrics = [metric for _, metric, _ in resolved]

    def update_state(self, y_true, y_pred, sample_weight=None):
        if self._resolved is None:
            self._resolve(y_pred)
        if not self._resolved:
            return
        targets = as_output_list(y_true, self.output_names)
        predictions = flatten(y_pred)
        for position, metric, weighted in self._resolved:
            metric.update_state(targets[position], predictions[position],
                                sample_weight=sample_weight if weighted else None)


def _unique_log_names(entries):
    """Name each ``(metric, weighted, output_name)`` as Keras 3 logs it: prefixed by its
    output in multi-output models; a repeated name gets ``_1``, ``_2``... and a weighted
    metric whose name is taken becomes ``weighted_<name>`` (``metrics=["accuracy"],
    weighted_metrics=["accuracy"]`` logs ``accuracy`` and ``weighted_accuracy``)."""
    counters = {}

    def prefixed(name, output_name):
        return f"{output_name}_{name}" if output_name else name

    for metric, weighted, output_name in entries:
        name = prefixed(metric.name, output_name)
        if name in counters and weighted:
            name = prefixed(f"weighted_{metric.name}", output_name)
        if name in counters:
            counters[name] += 1
            name = f"{name}_{counters[name] - 1}"
        else:
            counters[name] = 1
        metric.name = name


def _metrics_per_output(value, names):
    """A flat list of metrics applies to every output; a list of lists or a dict names
    each output's metrics."""
    if isinstance(value, (list, tuple)) and len(names) > 1 and not all(
            item is None or isinstance(item, (list, tuple)) for item in value):
        return [list(value)] * len(names)
    return _per_output(value, names, "metrics")


def as_output_list(value, names):
    """Targets given once, as a list, or as a dict by output name -> list per output."""
    if value is None:
        return None
    if isinstance(value, dict):
        return [value[name] for name in names]
    if len(names) > 1:
        return list(value)
    if isinstance(value, (list, tuple)) and len(value) == 1:
        return [value[0]]
    return [value]


def _as_identifier_list(value):
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]
