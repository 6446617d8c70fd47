"""Console progress display for ``fit`` / ``evaluate`` / ``predict``: :class:`Progbar` (Keras
``Progbar``) and the :class:`ProgbarLogger` callback that drives it.

:class:`Progbar` shows the progress of one pass (an epoch, an evaluation, a prediction):

* ``verbose=1`` on a terminal: a live tqdm bar with the step count, elapsed time and ETA,
  the time per step and the current metrics, redrawn at most every ``interval`` seconds;
  it is left on screen, completed with the final metrics (including ``val_*``), when the
  pass ends.
* ``verbose=2``, or ``verbose=1`` when ``sys.stdout`` is not a terminal (a log file, CI,
  pytest's capture): nothing per step, then one line when the pass ends, as Keras writes
  it::

      469/469 - 2s - 4ms/step - accuracy: 0.9012 - loss: 0.3456 - val_loss: 0.2871

* ``verbose=0``: nothing.

In Jupyter (an IPython kernel, detected as tqdm does: ``IPKernelApp`` in the shell's
config) the live bar is ``tqdm.auto``'s: a notebook widget where ``ipywidgets`` is
installed, tqdm's text bar otherwise.

Output goes to ``sys.stdout``, looked up when the bar is created (so redirections and
pytest's ``capsys`` see it); with interactive logging disabled
(``lamina.config.disable_interactive_logging()``) there is no live bar and the one-line
summary goes to the ``"lamina"`` logger, as Keras sends it to absl logging. Per-step cost
is one clock read and a comparison unless a redraw is due; strings are only formatted when
something is shown.

Example:
    >>> bar = Progbar(target=3, verbose=2)
    >>> for step in range(3):
    ...     bar.update(step + 1, {"loss": 0.5})  # doctest: +SKIP
    3/3 - 0s - 1ms/step - loss: 0.5000
"""

import io
import math
import os
import sys
import time

import numpy as np
from tqdm import tqdm

from ...backends import config
from .callback import CALLBACKS, Callback, print_line

__all__ = ["Progbar", "format_logs", "format_time_per_step", "format_value", "in_notebook",
           "is_interactive"]


def in_notebook():
    """Whether this process is an IPython kernel (Jupyter), detected as ``tqdm.auto``
    does: a running IPython shell whose config holds ``IPKernelApp``."""
    ipython = sys.modules.get("IPython")
    get_shell = getattr(ipython, "get_ipython", None)
    if get_shell is None:
        return False
    try:
        shell = get_shell()
        return shell is not None and "IPKernelApp" in shell.config
    except (AttributeError, TypeError):
        return False


def is_interactive(stream=None):
    """Whether ``stream`` (default ``sys.stdout``) shows a live, redrawable display."""
    stream = sys.stdout if stream is None else stream
    try:
        if stream.isatty():
            return True
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
    return "ipykernel" in sys.modules or in_notebook()


def _scalar(value):
    """A Python float for a log value (a float, a NumPy scalar or array: its mean)."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return float(np.mean(np.asarray(value, dtype="float64")))


def format_value(value):
    """Keras' number format: 4 decimals, or scientific notation for tiny magnitudes."""
    try:
        value = _scalar(value)
    except (TypeError, ValueError):
        return str(value)
    if abs(value) > 1e-3:
        return f"{value:.4f}"
    return f"{value:.4e}"


def format_logs(logs):
    """``" - loss: 0.3456 - accuracy: 0.9012"`` for a dict (or pairs) of metric values."""
    items = logs.items() if hasattr(logs, "items") else logs
    return "".join(f" - {name}: {format_value(value)}" for name, value in items)


def format_time_per_step(seconds, unit_name="step"):
    """``"12ms/step"``, ``"850us/step"`` or ``"2s/step"`` (Keras' rounding)."""
    if seconds >= 1 or seconds == 0:
        return f"{seconds:.0f}s/{unit_name}"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.0f}ms/{unit_name}"
    return f"{seconds * 1e6:.0f}us/{unit_name}"


_NO_TRIM = 1 << 20  # a width tqdm never reaches: the line is not cut


def _screen_shape(stream):
    """(columns - 1, rows) of the terminal behind ``stream``, for tqdm.

    An unknown or zero width gives ``_NO_TRIM`` and an unknown height 0 (tqdm's default):
    a pseudo-terminal without a size reports 0 x 0, which tqdm's own probe turns into
    -1 x -1 and then draws nothing; and ``ncols=0`` would drop the bar format.
    """
    try:
        columns, rows = os.get_terminal_size(stream.fileno())
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return _NO_TRIM, 0
    return (columns - 1 if columns > 1 else _NO_TRIM), max(rows, 0)


class _InfoField:
    """A tqdm bar with an ``{info}`` field (time per step and metrics) and no monitor
    thread (mixed into tqdm's class: the terminal one or ``tqdm.auto``'s)."""

    monitor_interval = 0
    info = ""
    trim = True

    @property
    def format_dict(self):
        fields = super().format_dict
        fields["info"] = self.info
        return fields


class _Bar(_InfoField, tqdm):
    """The terminal bar. While live, the line is cut to the terminal's current width (a
    wrapped line cannot be redrawn in place); with ``trim = False`` (the final line) it is
    printed whole."""

    def __init__(self, *args, file, **kwargs):
        ncols, nrows = _screen_shape(file)
        super().__init__(*args, file=file, ncols=ncols, nrows=nrows, dynamic_ncols=False,
                         **kwargs)

    @property
    def format_dict(self):
        ncols, self.nrows = _screen_shape(self.fp)
        self.ncols = ncols if self.trim else _NO_TRIM
        return super().format_dict


def _notebook_bar_class():
    """``tqdm.auto``'s bar with the ``{info}`` field (imported only in Jupyter)."""
    from tqdm.auto import tqdm as auto_tqdm
    return type("_NotebookBar", (_InfoField, auto_tqdm), {})


_LIVE_FORMAT = "{n_fmt}/{total_fmt} |{bar:30}| {elapsed}<{remaining}{info}"
_LIVE_FORMAT_NO_TOTAL = "{n_fmt}/? {elapsed}{info}"
_DONE_FORMAT = "{n_fmt}/{total_fmt} |{bar:30}| {elapsed}{info}"


class Progbar:
    """Progress of one pass of ``target`` steps (``None``: unknown until it ends).

    Args:
        target: total number of steps, or ``None`` when unknown.
        verbose: 0 (silent), 1 (live bar; one line per pass when stdout is not a
            terminal) or 2 (one line per pass).
        interval: minimum seconds between two redraws of the live bar.
        unit_name: the unit in the time-per-unit display (``"step"``).
    """

    def __init__(self, target, verbose=1, interval=0.1, unit_name="step"):
        self.target = target
        self.verbose = 1 if verbose == "auto" else int(verbose)
        self.interval = interval
        self.unit_name = unit_name
        self.stream = sys.stdout
        self.live = (self.verbose == 1 and config.is_interactive_logging_enabled()
                     and is_interactive(self.stream))
        self.seen = 0
        self.finalized = False
        self._start = time.monotonic()
        self._last_draw = -math.inf
        self._bar = None
        if self.live:
            bar_class = _notebook_bar_class() if in_notebook() else _Bar
            self._bar = bar_class(
                total=target,
                file=self.stream,
                bar_format=_LIVE_FORMAT if target else _LIVE_FORMAT_NO_TOTAL,
                leave=True,
                mininterval=0,
            )

    def _info(self, current, logs, now):
        per_step = (now - self._start) / current if current else 0.0
        text = " " + format_time_per_step(per_step, self.unit_name)
        return text + format_logs(logs) if logs else text

    def update(self, current, values=None, finalize=None):
        """Record that ``current`` steps are done; ``values`` are the metrics to show.

        ``values`` is a dict (or a list of ``(name, value)`` pairs) of values to display
        as they are (running averages from the training loop). ``finalize`` (default:
        ``current >= target``) ends the pass: the live bar is completed and left on
        screen, or the one-line summary is printed.
        """
        self.seen = current
        if self.finalized or self.verbose == 0:
            return
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        if finalize:
            self._finalize(current, values)
            return
        if not self.live:
            return
        now = time.monotonic()
        if now - self._last_draw < self.interval:
            return
        self._last_draw = now
        bar = self._bar
        bar.n = current
        bar.info = self._info(current, values, now)
        bar.refresh()

    def add(self, n, values=None):
        """Advance by ``n`` steps (``update(seen + n, values)``)."""
        self.update(self.seen + n, values)

    def _finalize(self, current, values):
        self.finalized = True
        now = time.monotonic()
        if self.target is None:
            self.target = current
        if self.live:
            bar = self._bar
            bar.total = self.target
            bar.n = current
            bar.bar_format = _DONE_FORMAT
            bar.info = self._info(current, values, now)
            bar.trim = False
            bar.close()
            return
        elapsed = now - self._start
        digits = int(math.log10(max(self.target, 1))) + 1
        line = (
            f"{current:{digits}d}/{self.target} - {elapsed:.0f}s - "
            f"{format_time_per_step(elapsed / current if current else 0.0, self.unit_name)}"
        )
        if values:
            line += format_logs(values)
        if config.is_interactive_logging_enabled():
            self.stream.write(line + "\n")
            self.stream.flush()
        else:
            print_line(line)

    def close(self):
        """Release the live bar without completing it (an interrupted pass)."""
        if self._bar is not None and not self.finalized:
            self.finalized = True
            self._bar.close()


@CALLBACKS.register()
class ProgbarLogger(Callback):
    """Prints progress to stdout through a :class:`Progbar`.

    ``verbose`` comes from ``params``: 1 (or ``"auto"``) a live bar per epoch (one line
    when stdout is not a terminal), 2 one line per epoch, 0 nothing. During ``fit`` the
    validation pass is not shown separately: its ``val_*`` results end the epoch's line.
    """

    def __init__(self):
        super().__init__()
        self.seen = 0
        self.progbar = None
        self.target = None
        self.verbose = 1
        self.epochs = 1
        self._called_in_fit = False

    def set_params(self, params):
        super().set_params(params)
        verbose = params.get("verbose", 1)
        self.verbose = 1 if verbose == "auto" else int(verbose)
        self.epochs = params.get("epochs", 1) or 1
        self.target = params.get("steps")

    def _reset_progbar(self):
        self.seen = 0
        self.progbar = None

    def _maybe_init_progbar(self):
        if self.progbar is None:
            self.progbar = Progbar(self.target, verbose=self.verbose, unit_name="step")

    def _update_progbar(self, batch, logs):
        if self.verbose == 0:
            return
        if self.progbar is None:
            self._maybe_init_progbar()
        self.seen = batch + 1
        self.progbar.update(self.seen, logs, finalize=False)

    def _finalize_progbar(self, logs):
        if self.verbose == 0:
            return
        self._maybe_init_progbar()
        target = self.target if self.target is not None else self.seen
        self.progbar.update(target, logs, finalize=True)

    def on_train_begin(self, logs=None):
        self._called_in_fit = True

    def on_train_end(self, logs=None):
        self._called_in_fit = False
        if self.progbar is not None:
            self.progbar.close()

    def on_epoch_begin(self, epoch, logs=None):
        self._reset_progbar()
        if self.verbose and self.epochs > 1:
            print_line(f"Epoch {epoch + 1}/{self.epochs}")
        if self.verbose:
            self._maybe_init_progbar()

    def on_train_batch_end(self, batch, logs=None):
        self._update_progbar(batch, logs)

    def on_epoch_end(self, epoch, logs=None):
        self._finalize_progbar(logs)

    def on_test_begin(self, logs=None):
        if not self._called_in_fit:
            self._reset_progbar()
            if self.verbose:
                self._maybe_init_progbar()

    def on_test_batch_end(self, batch, logs=None):
        if not self._called_in_fit:
            self._update_progbar(batch, logs)

    def on_test_end(self, logs=None):
        if not self._called_in_fit:
            self._finalize_progbar(logs)

    def on_predict_begin(self, logs=None):
        self._reset_progbar()
        if self.verbose:
            self._maybe_init_progbar()

    def on_predict_batch_end(self, batch, logs=None):
        self._update_progbar(batch, None)

    def on_predict_end(self, logs=None):
        self._finalize_progbar(None)
