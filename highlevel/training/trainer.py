"""The training loop: ``compile``, ``fit``, ``evaluate``, ``predict`` and the per-batch
methods, as the ``Trainer`` mixin of :class:`Model`.

Per step: gather the batch into reused buffers, ``train_step`` (forward, loss, one
``grad`` call that frees the graph, fused in-place optimizer update), read the scalar loss
back for the running average. Randomness of each epoch (shuffling, dropout) is derived
from (seed, epoch), so a resumed ``fit`` repeats an uninterrupted one bit for bit.
"""

import contextlib
from contextlib import closing

import numpy as np

from ...backends import no_grad, state
from ...backends.autodiff import Tensor, grad
from ...backends.random import derived_generator
from ...layers.symbolic import flatten
from .. import callbacks as callbacks_module
from ..metrics import metrics as metrics_module
from ..metrics.metric import Metric
from .. import optimizers as optimizers_module
from ..optimizers.loss_scale_optimizer import LossScaleOptimizer
from ..distribution import thread_replicas, training_hook as distribution_hook
from .compile_utils import CompiledLoss, CompiledMetrics
from .compiled_step import CompiledStep
from . import data_adapters
from .arguments import check_count, check_fit_arguments, check_steps, check_verbose


class NotCompiledError(ValueError, RuntimeError):
    """Raised by ``fit``/``evaluate``/``train_on_batch`` before ``compile``."""


class Trainer:
    """compile / fit / evaluate / predict for :class:`Model` (Keras 3 semantics)."""

    def __init__(self):
        self.optimizer = None
        self.compiled = False
        self.stop_training = False
        self.history = None
        self._compiled_loss = None
        self._compiled_metrics = None
        self._loss_tracker = metrics_module.Mean(name="loss")
        self._initial_epoch_from_backup = None
        self._step_variables = None

    @property
    def compiled_loss(self):
        """The :class:`CompiledLoss` that ``compile`` made of ``loss`` / ``loss_weights``
        (None before ``compile``)."""
        return self._compiled_loss

    @property
    def compiled_metrics(self):
        """The :class:`CompiledMetrics` that ``compile`` made of ``metrics`` /
        ``weighted_metrics`` (None before ``compile``)."""
        return self._compiled_metrics

    def get_compile_config(self):
        """The arguments ``compile`` was given, serialized (Keras 3's
        ``get_compile_config``); None before ``compile``."""
        return getattr(self, "_compile_config", None)

    # ------------------------------------------------------------------ compile
    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None,
                weighted_metrics=None, run_eagerly=None, steps_per_execution=1,
                jit_compile=None, auto_scale_loss=True):
        """Configure training.

        Args:
            optimizer: name (``"adam"``) or Optimizer instance.
            loss: name, Loss instance or callable; a list/dict for several outputs.
            metrics: list of names/Metric instances (applied to each output), a list of
                lists, or a dict keyed by output name.
            loss_weights: list/dict of floats weighting each output's loss.
            auto_scale_loss: under the ``"mixed_float16"`` dtype policy, wrap the optimizer
                in a :class:`LossScaleOptimizer` (dynamic loss scaling), as Keras.
        """
        self.optimizer = optimizers_module.get(optimizer)
        if auto_scale_loss and self.dtype_policy.name == "mixed_float16" \
                and not isinstance(self.optimizer, LossScaleOptimizer):
            self.optimizer = LossScaleOptimizer(self.optimizer, name="loss_scale_optimizer")
        names = self._output_names_for_compile()
        self._compiled_loss = CompiledLoss(loss, loss_weights, names)
        self._compiled_metrics = CompiledMetrics(metrics, weighted_metrics, names,
                                                 self._compiled_loss)
        self._compile_config = {"optimizer": optimizers_module.serialize(self.optimizer),
                                "loss": _serializable(loss), "metrics": _serializable(metrics),
                                "loss_weights": _serializable(loss_weights),
                                "weighted_metrics": _serializable(weighted_metrics)}
        self.compiled = True
        self.stop_training = False
        # jit_compile=True: steps replayed from traces ("auto" and None stay eager)
        self.jit_compile = jit_compile is True
        self._jit_steps = {} if self.jit_compile else None

    def _output_names_for_compile(self):
        graph = getattr(self, "_graph", None)
        if graph is not None:  # a single output is named too: y={"out": ...} works
            return [t.node.layer.name for t in graph.flat_outputs]
        return ["output"]

    def _require_compiled(self, method):
        if not self.compiled:
            raise NotCompiledError(f"model '{self.name}' must be compiled before {method}(): "
                                   "call model.compile(optimizer=..., loss=...)")

    @property
    def metrics(self):
        """Keras' ``model.metrics``: the loss tracker, the compiled metrics, then the metrics
        held as attributes of the model and of its layers (not of nested models). The
        layers are walked again only after a new metric was made or a compile (this runs
        every step): a metric that already existed and is assigned to a layer later is
        found once any other metric is made."""
        result = [self._loss_tracker]
        if self._compiled_metrics is not None:
            result.extend(self._compiled_metrics.metrics)
        held = self.__dict__.get("_held_metrics")
        key = (Metric.instances_made, id(self._compiled_metrics))   # a new compile, a new key
        if held is None or held[0] != key:
            known = {id(metric) for metric in result}
            others = []
            for metric in _attribute_metrics(self):
                if id(metric) not in known:
                    known.add(id(metric))
                    others.append(metric)
            held = (key, others)
            self._held_metrics = held
        result.extend(held[1])
        return result

    @property
    def metrics_names(self):
        return [m.name for m in self.metrics]

    def reset_metrics(self):
        for metric in self.metrics:
            metric.reset_state()

    # ------------------------------------------------------------------ steps
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """Total loss: compiled losses of every output plus layer penalties (``losses``)."""
        total = self._compiled_loss(y, y_pred, sample_weight) \
            if self._compiled_loss is not None and self._compiled_loss.has_loss else None
        penalties = self.losses
        if penalties:
            extra = penalties[0]
            for penalty in penalties[1:]:
                extra = extra + penalty
            total = extra if total is None else total + extra
        if total is None:
            raise ValueError(f"model '{self.name}' has no loss: pass loss= to compile() or "
                             "add losses with add_loss()")
        return total

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        """Update the compiled metrics and return the logs of every metric."""
        if self._compiled_metrics is not None:
            self._compiled_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self):
        """``{name: value}`` of every metric's current result."""
        hook = distribution_hook.current()
        if hook is not None:   # data-parallel: from the states summed over the processes
            return hook.metrics_result(self.metrics)
        return {m.name: float(m.result()) for m in self.metrics}

    def train_step(self, data):
        """One optimization step on ``data = (x, y, sample_weight)``; returns the logs.

        Override to customize ``fit`` (write it with ``lamina.grad`` and
        ``self.optimizer.apply``)."""
        x, y, sample_weight = data
        if type(self).compute_loss is Trainer.compute_loss \
                and getattr(self, "_jit_steps", None) is None:
            # one-process DataParallel may split the batch: a share per thread
            loss, parts, variables, gradients = thread_replicas.loss_and_gradients(
                self, data, self._loss_and_gradients, self._trainable_cache)
        else:
            loss, y_pred, variables, gradients = self._loss_and_gradients(data)
            loss, parts = loss.data, [(data, y_pred)]
        self.optimizer.apply(gradients, variables)
        self._loss_tracker.update_state(loss, sample_weight=_batch_size(x))
        if self._compiled_metrics is not None:
            with no_grad():
                for (_, y_part, weights_part), y_pred in parts:
                    self._compiled_metrics.update_state(y_part, y_pred, weights_part)
        return None

    def _loss_and_gradients(self, data, variables=None, weight=1.0):
        """The forward pass, loss and backward pass of ``train_step``: ``(loss, y_pred,
        variables, gradients)``, the gradients those of ``weight * loss`` (a share of a
        batch split over threads passes its share's weight) with respect to ``variables``
        (None: the trainable weights, looked up after the forward pass, which builds a
        model built by its first batch)."""
        x, y, sample_weight = data
        y_pred = self(x, training=True)
        loss = self.compute_loss(x, y, y_pred, sample_weight)
        variables = self._trainable_cache() if variables is None else variables
        weighted = loss if weight == 1.0 else loss * weight
        scaled = self.optimizer.scale_loss(weighted)
        hook = distribution_hook.current()
        # data-parallel: the sums over the processes start during the backward pass (and
        # optimizer.apply completes them)
        ready = None if hook is None else hook.overlap(variables)
        # a scaled float16 backward may overflow: the LossScaleOptimizer skips it
        with np.errstate(over="ignore", invalid="ignore") if scaled is not weighted \
                else contextlib.nullcontext():
            return loss, y_pred, variables, grad(scaled, variables, on_gradient=ready)

    def test_step(self, data):
        """One evaluation step; override to customize ``evaluate``."""
        x, y, sample_weight = data
        with no_grad():
            y_pred = self(x, training=False)
            loss = self.compute_loss(x, y, y_pred, sample_weight)
            self._loss_tracker.update_state(loss.data, sample_weight=_batch_size(x))
            if self._compiled_metrics is not None:
                self._compiled_metrics.update_state(y, y_pred, sample_weight)
        return None

    def predict_step(self, data):
        """One inference step; returns the model outputs."""
        x, _, _ = data
        with no_grad():
            return self(x, training=False)

    def _step_function(self, kind):
        """The ``kind`` step (``"train"``, ``"test"``, ``"predict"``) the loops call: a
        :class:`CompiledStep` with ``jit_compile=True``, else the method itself."""
        steps = getattr(self, "_jit_steps", None)
        if steps is None:
            return getattr(self, f"{kind}_step")
        if kind not in steps:
            steps[kind] = CompiledStep(self, kind)
        return steps[kind]

    def _trainable_cache(self):
        # fit() refreshes this list at each epoch start, so a step does not walk the layers.
        cached = self._step_variables
        return cached if cached is not None else self.trainable_weights

    # ------------------------------------------------------------------ data
    def expected_input_dtypes(self):
        """The input dtypes of a model that has no inputs yet (None: unknown; a Sequential
        starting with a text layer says ``["string"]``)."""
        return None

    def _data_spec(self):
        """What the data path needs of this model (names, dtypes, input shapes)."""
        graph = getattr(self, "_graph", None)
        inputs = None if graph is None else graph.flat_inputs
        return data_adapters.DataSpec(
            self.input_names, self._output_names_for_compile(),
            self.expected_input_dtypes() if inputs is None else [t.dtype for t in inputs],
            self.dtype,
            None if inputs is None else [(t.node.layer.name, t.shape) for t in inputs],
            self.name)

    @staticmethod
    def _this_process_batches(batches):
        """``batches``; in data-parallel training, this process' rows of each batch."""
        hook = distribution_hook.current()
        return batches if hook is None else hook.local_batches(batches)

    # ------------------------------------------------------------------ fit
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
            sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
            validation_batch_size=None, validation_freq=1):
        """Train for ``epochs`` epochs; returns a ``History`` (keys as Keras: ``loss``,
        ``accuracy``, ``val_loss``, ...).

        ``x``, ``y``, ``sample_weight`` and ``validation_data`` may be NumPy arrays, pandas
        DataFrames/Series, lists/dicts of them, or (``x`` alone) a generator or
        ``Sequence``. ``validation_freq`` is an integer (every n-th epoch) or a list of
        1-based epochs. Bad arguments (a non-positive ``batch_size``, a non-integer
        ``epochs``, ``verbose`` outside {0, 1, 2, "auto"}, no samples, a ``sample_weight``
        that does not match ``y``) raise ``ValueError`` before anything is trained.

        Example:
            >>> history = model.fit(x, y, batch_size=32, epochs=10, validation_split=0.1)
        """
        self._require_compiled("fit")
        arguments = check_fit_arguments(batch_size, epochs, verbose, initial_epoch,
                                        steps_per_epoch, validation_steps,
                                        validation_batch_size, validation_freq,
                                        validating=bool(validation_split) or
                                        validation_data is not None)
        batch_size, epochs, verbose = arguments.batch_size, arguments.epochs, arguments.verbose
        initial_epoch = arguments.initial_epoch
        data = data_adapters.adapt(
            self._data_spec(), x, y, sample_weight, class_weight, batch_size=batch_size,
            steps=arguments.steps_per_epoch, validation_split=validation_split,
            validation_data=validation_data,
            validation_batch_size=arguments.validation_batch_size,
            validation_steps=arguments.validation_steps)
        steps = data.steps if data.steps is not None else data.sequence_length
        callback_list = callbacks_module.CallbackList(
            callbacks, add_history=True, add_progbar=verbose != 0, model=self,
            verbose=verbose, epochs=epochs, steps=steps)
        self.stop_training = False
        self._initial_epoch_from_backup = None
        callback_list.on_train_begin()
        if self._initial_epoch_from_backup is not None:
            initial_epoch = max(initial_epoch, self._initial_epoch_from_backup)
        hook = distribution_hook.current()
        if hook is not None:   # data-parallel: rank 0's seed, weights and optimizer state
            initial_epoch = hook.begin_fit(self, initial_epoch)
        epoch_logs = {}
        # the epoch's generator and key are scoped to this thread: predict on another
        # thread meanwhile neither sees nor disturbs them
        outer_scope = state.push(generator=state.generator(), epoch_key=None)
        batches = None   # closed on the way out: a PyDataset's workers stop with fit
        try:
            for epoch in range(initial_epoch, epochs):
                self.reset_metrics()
                callback_list.on_epoch_begin(epoch)
                # a model built by its first batch has no weights yet: look them up per step
                self._step_variables = self.trainable_weights if self.built else None
                # The epoch's randomness (shuffle order, dropout masks) derives from the seed,
                # the epoch and the optimizer's step count, which checkpoints restore: a
                # resumed fit repeats an uninterrupted one, and repeated fit() calls differ.
                epoch_key = (epoch, self.optimizer.iterations)
                state.set_epoch_key(epoch_key)
                state.set_generator(derived_generator(2, *epoch_key))
                logs = {}
                batches = self._this_process_batches(
                    data.epoch(epoch_key if shuffle else None))
                for step, batch in enumerate(batches):
                    callback_list.on_train_batch_begin(step)
                    logs = self._step_logs(self._step_function("train")(batch))
                    callback_list.on_train_batch_end(step, logs)
                    if self.stop_training:
                        break
                epoch_logs = dict(logs)
                if data.validation is not None and arguments.should_validate(epoch):
                    val_logs = self._evaluate_data(data.validation, callback_list=callback_list)
                    epoch_logs.update({f"val_{k}": v for k, v in val_logs.items()})
                callback_list.on_epoch_end(epoch, epoch_logs)
                if self.stop_training:
                    break
        finally:
            if batches is not None:
                batches.close()
            self._step_variables = None
            state.restore(outer_scope)
        if epochs > 0:      # Keras: an EMA optimizer writes its averages into the weights
            self.optimizer.finalize_variable_values(self.trainable_weights)
        callback_list.on_train_end(epoch_logs)
        return self.history

    # ------------------------------------------------------------------ evaluate
    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None,
                 steps=None, callbacks=None, return_dict=False):
        """Loss and metrics on the given data: a scalar (loss only), a list
        ``[loss, metric, ...]``, or a dict with ``return_dict=True``."""
        self._require_compiled("evaluate")
        verbose = check_verbose(verbose)
        batch_size = check_count("batch_size", batch_size) or 32
        steps = check_steps("steps", steps)
        data = data_adapters.adapt(self._data_spec(), x, y, sample_weight,
                                   batch_size=batch_size, steps=steps)
        callback_list = callbacks_module.CallbackList(
            callbacks, add_history=False, add_progbar=verbose != 0, model=self,
            verbose=verbose, epochs=1, steps=data.steps)
        logs = self._evaluate_data(data, callback_list)
        if return_dict:
            return logs
        values = list(logs.values())
        return values[0] if len(values) == 1 else values

    def _evaluate_data(self, data, callback_list):
        self.reset_metrics()
        if callback_list is not None:
            callback_list.on_test_begin()
        step_logs = None
        with closing(self._this_process_batches(data.epoch())) as batches:
            for step, batch in enumerate(batches):
                if callback_list is not None:
                    callback_list.on_test_batch_begin(step)
                step_logs = self._step_function("test")(batch)
                if callback_list is not None:    # Keras: the loss and metrics so far
                    callback_list.on_test_batch_end(step, self._step_logs(step_logs))
        logs = self._step_logs(step_logs)
        if callback_list is not None:
            callback_list.on_test_end(logs)
        return logs

    # ------------------------------------------------------------------ predict
    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        """Model outputs as NumPy arrays (a list for several outputs), computed in batches
        with no graph recorded, whatever the engine."""
        verbose = check_verbose(verbose)
        batch_size = check_count("batch_size", batch_size) or 32
        steps = check_steps("steps", steps)
        data = data_adapters.adapt_inputs(self._data_spec(), x, batch_size=batch_size,
                                          steps=steps)
        backend = state.backend()
        callback_list = callbacks_module.CallbackList(
            callbacks, add_history=False, add_progbar=verbose != 0, model=self,
            verbose=verbose, epochs=1,
            steps=data.steps)
        callback_list.on_predict_begin()
        collected = None
        with closing(self._this_process_batches(data.epoch())) as batches:
            for step, batch in enumerate(batches):
                callback_list.on_predict_batch_begin(step)
                outputs = flatten(self._step_function("predict")(batch))
                arrays = [backend.to_numpy(o.data) for o in outputs]
                if collected is None:
                    collected = [[] for _ in arrays]
                for store, array in zip(collected, arrays):
                    store.append(array)
                callback_list.on_predict_batch_end(
                    step, {"outputs": arrays[0] if len(arrays) == 1 else arrays})
        callback_list.on_predict_end()
        hook = distribution_hook.current()
        if hook is not None:   # every process' rows, in the single-process order
            collected = hook.gather(collected)
        if collected is None:
            raise ValueError("predict() received no data")
        results = [np.concatenate(parts, axis=0) for parts in collected]
        return results[0] if len(results) == 1 else results

    # ------------------------------------------------------------------ per batch
    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None,
                       return_dict=False):
        """One gradient step on one batch; returns the loss (and metrics) of that batch."""
        self._require_compiled("train_on_batch")
        batch = data_adapters.single_batch(self._data_spec(), x, y, sample_weight, class_weight)
        self.reset_metrics()
        logs = self._step_logs(self._step_function("train")(batch))
        return self._format_logs(logs, return_dict)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """Loss (and metrics) of one batch, without updating the weights."""
        self._require_compiled("test_on_batch")
        batch = data_adapters.single_batch(self._data_spec(), x, y, sample_weight)
        self.reset_metrics()
        logs = self._step_logs(self._step_function("test")(batch))
        return self._format_logs(logs, return_dict)

    def predict_on_batch(self, x):
        """Model outputs for one batch as NumPy arrays (silent, as Keras': no progress line)."""
        return self.predict(x, batch_size=max(1, data_adapters.sample_count(self._data_spec(),
                                                                            x)), verbose=0)

    def _step_logs(self, step_result):
        """The logs of a step: what an overridden ``train_step``/``test_step`` returned
        (a dict, as in Keras), else the metrics' current results."""
        if step_result is None:
            return self.get_metrics_result()
        return {name: float(value) for name, value in dict(step_result).items()}

    @staticmethod
    def _format_logs(logs, return_dict):
        if return_dict:
            return logs
        values = list(logs.values())
        return values[0] if len(values) == 1 else values


def _attribute_metrics(model):
    """Metric attributes of ``model`` and its layers, depth first, skipping nested models."""
    found = [value for value in vars(model).values() if isinstance(value, Metric)]
    pending = list(model.tracked_layers())
    while pending:
        layer = pending.pop(0)
        if isinstance(layer, Trainer):
            continue
        found.extend(value for value in vars(layer).values() if isinstance(value, Metric))
        pending[:0] = layer.tracked_layers()
    return found


def _batch_size(x):
    first = x if isinstance(x, (Tensor, np.ndarray)) else flatten(x)[0]
    return first.shape[0]


def _serializable(value):
    """A JSON-friendly form of compile arguments (names stay names)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, dict):
        return {k: _serializable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_serializable(v) for v in value]
    if hasattr(value, "get_config"):
        return {"class_name": type(value).__name__, "config": value.get_config()}
    return getattr(value, "__name__", repr(value))
