"""Whether splitting a model's training steps over threads pays, decided by timing the
model's own steps.

A split step (:mod:`.thread_replicas`) pays where a step is many small ops: each op's
hand-off of a row block to the second thread, and each wake-up of BLAS' worker, costs ~0.1
ms, and the split step crosses between threads twice instead. It costs where a step is a
few large GEMMs that BLAS already runs on every thread, or so small that the two
crossings outweigh the step itself. Measured on a 2-core machine: the Transformer encoder
W5 8% faster split, the CNN W2 5% faster, the MLP W1 17% and the LSTM W3 7% slower, the
tiny MLP W4 3x slower.

So each model's steps of each batch size are timed: one split and one plain step first
(warm-up: compiled kernels, thread start-up, caches; not counted), then
:data:`PROBE_PAIRS` pairs of a split and a plain step, then the kind with the smaller
median runs from then on. A split step computes the plain step's update (to float
rounding), so which kind runs changes no result beyond rounding. A step that raised is
not counted (the next step is of the same kind again).
"""

import statistics
import threading
import weakref

#: Split/plain pairs timed after the warm-up pair, before the faster kind is kept.
PROBE_PAIRS = 3
#: The steps before them, one split and one plain, not counted.
WARMUP_STEPS = 2


class SplitChoice:
    """The timed steps of one model, by batch size, and the choice made from them."""

    def __init__(self):
        self._lock = threading.Lock()
        self._timed = {}      # rows -> [(split, seconds), ...] in the order run
        self._chosen = {}     # rows -> whether steps of that many rows run split

    def wants_split(self, rows):
        """Whether the next training step of ``rows`` rows should run split."""
        with self._lock:
            if rows in self._chosen:
                return self._chosen[rows]
            return len(self._timed.get(rows, ())) % 2 == 0    # split, plain, split, ...

    def record(self, rows, split, seconds):
        """Count a finished step of ``rows`` rows that ran split (or plainly) and took
        ``seconds``; once enough are counted, choose."""
        with self._lock:
            if rows in self._chosen:
                return
            timed = self._timed.setdefault(rows, [])
            timed.append((bool(split), float(seconds)))
            probed = timed[WARMUP_STEPS:]
            if len(probed) < 2 * PROBE_PAIRS:
                return
            split_times = [t for was_split, t in probed if was_split]
            plain_times = [t for was_split, t in probed if not was_split]
            # a split that found the threads busy ran plainly: both kinds may not be there
            self._chosen[rows] = bool(split_times) and (
                not plain_times or
                statistics.median(split_times) < statistics.median(plain_times))
            del self._timed[rows]

    def chosen(self, rows):
        """True/False once steps of ``rows`` rows have a kind chosen, None before."""
        with self._lock:
            return self._chosen.get(rows)


_CHOICES = weakref.WeakKeyDictionary()
_CHOICES_LOCK = threading.Lock()


def for_model(model):
    """The :class:`SplitChoice` of ``model`` (made on first use; goes with the model)."""
    with _CHOICES_LOCK:
        choice = _CHOICES.get(model)
        if choice is None:
            choice = _CHOICES[model] = SplitChoice()
        return choice
