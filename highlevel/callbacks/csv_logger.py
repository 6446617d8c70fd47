"""The :class:`CSVLogger` callback: the epoch logs streamed to a CSV file."""

import csv
import os

import numpy as np

from .callback import CALLBACKS, Callback


@CALLBACKS.register()
class CSVLogger(Callback):
    """Streams the epoch logs to a CSV file: ``epoch`` first, then the sorted log keys.

    The columns are fixed by the first epoch's logs (plus a ``val_`` column for each
    key when that epoch has no validation entries, as in Keras); a missing value is
    written as ``NA``. ``append=True`` continues an existing file (without a second
    header).
    """

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.sep = separator
        self.filename = os.fspath(filename)
        self.append = append
        self.writer = None
        self.keys = None
        self.append_header = True
        self.csv_file = None

    def on_train_begin(self, logs=None):
        mode = "w"
        self.append_header = True
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename, "r", newline="") as f:
                    self.append_header = not bool(len(f.readline()))
            mode = "a"
        if self.csv_file is not None and not self.csv_file.closed:
            self.csv_file.close()
        self.csv_file = open(self.filename, mode, newline="")
        self.writer = None
        self.keys = None

    @staticmethod
    def _handle_value(value):
        if isinstance(value, str):
            return value
        if isinstance(value, np.ndarray) and value.ndim == 0:
            return value.item()
        if hasattr(value, "__iter__"):
            return f"[{', '.join(map(str, value))}]"
        return value

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
            # With validation_freq > 1 the first epoch has no val_* entries: add their
            # columns now, as Keras does, since the header cannot change later.
            if self.keys and not any(key.startswith("val_") for key in self.keys):
                self.keys.extend(["val_" + key for key in self.keys])
        if self.writer is None:
            dialect = type("_Dialect", (csv.excel,), {"delimiter": self.sep})
            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + self.keys,
                                         dialect=dialect, extrasaction="ignore")
            if self.append_header:
                self.writer.writeheader()
        row = {"epoch": epoch}
        row.update((key, self._handle_value(logs.get(key, "NA"))) for key in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        if self.csv_file is not None and not self.csv_file.closed:
            self.csv_file.close()
        self.writer = None
