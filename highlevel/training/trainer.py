"""The training loop: ``compile``, ``fit``, ``evaluate``, ``predict`` and the per-batch
methods, as the ``Trainer`` mixin of :class:`Model`.

Per step: gather the batch into reused buffers, ``train_step`` (forward, loss, one
``grad`` call that frees the graph, fused in-place optimizer update), read the scalar loss
back for the running average. Randomness of each epoch (shuffling, dropout) is derived
from (seed, epoch), so a resumed ``fit`` repeats an uninterrupted one bit for bit.
"""

from contextlib import closing

import numpy as np

from ...backends import no_grad, state
from ...backends.autodiff import Tensor, grad
from ...backends.random import derived_generator
from ...layers.symbolic import flatten
from .. import callbacks as callbacks_module
from ..losses import losses as losses_module
from ..metrics import metrics as metrics_module
from .. import optimizers as optimizers_module
from .compile_utils import CompiledLoss, CompiledMetrics
from .compiled_step import CompiledStep
from .data_adapters import (ArrayData, class_weight_to_sample_weight, is_generator_like,
                            is_sequence_like, sequence_batches, structure_to_list,
                            unpack_batch)
from .arguments import check_count, check_fit_arguments, check_verbose


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

    # ------------------------------------------------------------------ compile
    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None,
                weighted_metrics=None, run_eagerly=None, steps_per_execution=1,
                jit_compile=None):
        """Configure training.

        Args:
            optimizer: name (``"adam"``) or Optimizer instance.
            loss: name, Loss instance or callable; a list/dict for several outputs.
            metrics: list of names/Metric instances (applied to each output), a list of
                lists, or a dict keyed by output name.
            loss_weights: list/dict of floats weighting each output's loss.
        """
        self.optimizer = optimizers_module.get(optimizer)
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
        """The loss tracker followed by the compiled metrics (as Keras' ``model.metrics``)."""
        result = [self._loss_tracker]
        if self._compiled_metrics is not None:
            result.extend(self._compiled_metrics.metrics)
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
        return {m.name: float(m.result()) for m in self.metrics}

    def train_step(self, data):
        """One optimization step on ``data = (x, y, sample_weight)``; returns the logs.

        Override to customize ``fit`` (write it with ``lamina.grad`` and
        ``self.optimizer.apply``)."""
        x, y, sample_weight = data
        y_pred = self(x, training=True)
        loss = self.compute_loss(x, y, y_pred, sample_weight)
        variables = self._trainable_cache()
        gradients = grad(loss, variables)
        self.optimizer.apply(gradients, variables)
        self._loss_tracker.update_state(loss.data, sample_weight=_batch_size(x))
        if self._compiled_metrics is not None:
            with no_grad():
                self._compiled_metrics.update_state(y, y_pred, sample_weight)
        return None

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
    def _input_dtypes(self):
        graph = getattr(self, "_graph", None)
        if graph is None:
            return None
        return [t.dtype for t in graph.flat_inputs]

    def _input_arrays(self, x):
        """(list of input arrays, dict keys or None): a model without named inputs (a
        subclassed one) given a dict gets its batches as dicts with those keys."""
        keys = sorted(x) if isinstance(x, dict) and not self.input_names else None
        return structure_to_list(x, self.input_names or keys or ["input"], "x"), keys

    def _adapt_arrays(self, x, y, sample_weight, class_weight=None, source="x"):
        xs, keys = self._input_arrays(x)
        ys = structure_to_list(y, self._output_names_for_compile(), "y")
        if class_weight is not None:
            if ys is None or len(ys) != 1:
                raise ValueError("class_weight needs a single-output model and y")
            cw = class_weight_to_sample_weight(np.asarray(ys[0]), class_weight)
            sample_weight = cw if sample_weight is None else np.asarray(sample_weight) * cw
        data = ArrayData(xs, ys, sample_weight, self._input_dtypes(), self.dtype, source, keys)
        self._check_data_shapes(data.x)
        return data

    def _check_data_shapes(self, arrays):
        expected = self._expected_input_shapes()
        if expected is None:
            return
        for array, (name, shape) in zip(arrays, expected):
            if len(array.shape) != len(shape) or any(
                    e is not None and e != a for e, a in zip(shape[1:], array.shape[1:])):
                raise ValueError(f"Input '{name}' of model '{self.name}' expects shape "
                                 f"{tuple(shape)}, got data of shape {tuple(array.shape)}")

    def _expected_input_shapes(self):
        graph = getattr(self, "_graph", None)
        if graph is None:
            return None
        return [(t.node.layer.name, t.shape) for t in graph.flat_inputs]

    def _single_or_list(self, arrays):
        return arrays[0] if len(arrays) == 1 else arrays

    def _batch_iterator(self, x, y, sample_weight, batch_size, steps, shuffle_key=None):
        """Yield (x, y, sample_weight) batches from arrays, a generator or a Sequence."""
        if isinstance(x, ArrayData):
            order = None
            if shuffle_key is not None:
                order = state.backend().permutation(derived_generator(1, *shuffle_key), x.size)
            for step, (bx, by, bw) in enumerate(x.batches(batch_size, order)):
                if steps is not None and step >= steps:
                    return
                bx = dict(zip(x.input_keys, bx)) if x.input_keys else self._single_or_list(bx)
                yield bx, None if by is None else self._single_or_list(by), bw
            return
        if is_sequence_like(x):
            count = len(x) if steps is None else min(steps, len(x))
            yield from sequence_batches(x, count)
            return
        for step, batch in enumerate(x):
            if steps is not None and step >= steps:
                return
            yield unpack_batch(batch)

    def _prepare(self, x, y, sample_weight, class_weight=None, source="x"):
        if is_sequence_like(x) or is_generator_like(x):
            if y is not None:
                raise ValueError("y must be None when x is a generator or Sequence "
                                 "(it yields (x, y) batches)")
            if is_sequence_like(x) and len(x) == 0:
                raise ValueError(f"{source} is a Sequence of length 0: it yields no batches")
            return x
        if x is None:
            raise ValueError("x is required")
        return self._adapt_arrays(x, y, sample_weight, class_weight, source)

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
                                        validation_batch_size, validation_freq)
        batch_size, epochs, verbose = arguments.batch_size, arguments.epochs, arguments.verbose
        initial_epoch = arguments.initial_epoch
        data = self._prepare(x, y, sample_weight, class_weight)
        validation = None
        if validation_split and isinstance(data, ArrayData):
            data, validation = data.split(validation_split)
        elif validation_split:
            raise ValueError("validation_split needs array inputs; pass validation_data "
                             "for generators")
        if validation_data is not None and (is_sequence_like(validation_data)
                                            or is_generator_like(validation_data)):
            validation = validation_data  # yields (x, y) batches itself
        elif validation_data is not None:
            vx, vy, vw = unpack_batch(tuple(validation_data))
            validation = self._prepare(vx, vy, vw, source="validation_data")
        steps = arguments.steps_per_epoch
        if steps is None and isinstance(data, ArrayData):
            steps = data.num_batches(batch_size)
        elif steps is None and is_sequence_like(data):
            steps = len(data)
        callback_list = callbacks_module.CallbackList(
            callbacks, add_history=True, add_progbar=verbose != 0, model=self,
            verbose=verbose, epochs=epochs, steps=steps)
        self.stop_training = False
        self._initial_epoch_from_backup = None
        callback_list.on_train_begin()
        if self._initial_epoch_from_backup is not None:
            initial_epoch = max(initial_epoch, self._initial_epoch_from_backup)
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
                batches = self._batch_iterator(data, None, None, batch_size, steps,
                                               shuffle_key=epoch_key if shuffle else None)
                logs = {}
                for step, batch in enumerate(batches):
                    callback_list.on_train_batch_begin(step)
                    logs = self._step_logs(self._step_function("train")(batch))
                    callback_list.on_train_batch_end(step, logs)
                    if self.stop_training:
                        break
                epoch_logs = dict(logs)
                if validation is not None and arguments.should_validate(epoch):
                    val_logs = self._evaluate_data(validation,
                                                   arguments.validation_batch_size,
                                                   arguments.validation_steps,
                                                   callback_list=None)
                    epoch_logs.update({f"val_{k}": v for k, v in val_logs.items()})
                callback_list.on_epoch_end(epoch, epoch_logs)
                if self.stop_training:
                    break
        finally:
            if batches is not None:
                batches.close()
            self._step_variables = None
            state.restore(outer_scope)
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
        steps = check_count("steps", steps)
        data = self._prepare(x, y, sample_weight)
        shown_steps = steps
        if shown_steps is None and isinstance(data, ArrayData):
            shown_steps = data.num_batches(batch_size)
        callback_list = callbacks_module.CallbackList(
            callbacks, add_history=False, add_progbar=verbose != 0, model=self,
            verbose=verbose, epochs=1, steps=shown_steps)
        logs = self._evaluate_data(data, batch_size, steps, callback_list)
        if return_dict:
            return logs
        values = list(logs.values())
        return values[0] if len(values) == 1 else values

    def _evaluate_data(self, data, batch_size, steps, callback_list):
        self.reset_metrics()
        if callback_list is not None:
            callback_list.on_test_begin()
        step_logs = None
        with closing(self._batch_iterator(data, None, None, batch_size, steps)) as batches:
            for step, batch in enumerate(batches):
                if callback_list is not None:
                    callback_list.on_test_batch_begin(step)
                step_logs = self._step_function("test")(batch)
                if callback_list is not None:
                    callback_list.on_test_batch_end(step, None)
        logs = self._step_logs(step_logs)
        if callback_list is not None:
            callback_list.on_test_end(logs)
        return logs

    # ------------------------------------------------------------------ predict
    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        """Model outputs as NumPy arrays (a list for several outputs), computed in batches
        with no graph recorded, whatever the engine."""
        check_verbose(verbose)
        batch_size = check_count("batch_size", batch_size) or 32
        steps = check_count("steps", steps)
        if is_sequence_like(x) or is_generator_like(x):
            data = x
        else:
            xs, keys = self._input_arrays(x)
            data = ArrayData(xs, None, None, self._input_dtypes(), input_keys=keys)
            self._check_data_shapes(data.x)
        backend = state.backend()
        collected = None
        with closing(self._batch_iterator(data, None, None, batch_size, steps)) as batches:
            for batch in batches:
                outputs = flatten(self._step_function("predict")(batch))
                arrays = [backend.to_numpy(o.data) for o in outputs]
                if collected is None:
                    collected = [[] for _ in arrays]
                for store, array in zip(collected, arrays):
                    store.append(array)
        if collected is None:
            raise ValueError("predict() received no data")
        results = [np.concatenate(parts, axis=0) for parts in collected]
        return results[0] if len(results) == 1 else results

    # ------------------------------------------------------------------ per batch
    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None,
                       return_dict=False):
        """One gradient step on one batch; returns the loss (and metrics) of that batch."""
        self._require_compiled("train_on_batch")
        data = self._adapt_arrays(x, y, sample_weight, class_weight)
        self.reset_metrics()
        batch = next(self._batch_iterator(data, None, None, data.size, 1))
        logs = self._step_logs(self._step_function("train")(batch))
        return self._format_logs(logs, return_dict)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """Loss (and metrics) of one batch, without updating the weights."""
        self._require_compiled("test_on_batch")
        data = self._adapt_arrays(x, y, sample_weight)
        self.reset_metrics()
        batch = next(self._batch_iterator(data, None, None, data.size, 1))
        logs = self._step_logs(self._step_function("test")(batch))
        return self._format_logs(logs, return_dict)

    def predict_on_batch(self, x):
        """Model outputs for one batch as NumPy arrays."""
        first_input = structure_to_list(x, self.input_names or ["input"], "x")[0]
        return self.predict(x, batch_size=max(1, len(first_input)))

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
