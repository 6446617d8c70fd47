"""CSVLogger: the epoch logs streamed to a CSV file (header, append, separator, NA)."""

import csv

from harness.callbacks import fit
from lamina.highlevel import callbacks as cb


def read_csv(path, delimiter=","):
    with open(path, newline="") as f:
        return list(csv.reader(f, delimiter=delimiter))


def test_csv_logger_writes_epoch_then_sorted_keys(tmp_path):
    path = tmp_path / "log.csv"
    logs = [{"loss": 0.5, "val_loss": 0.6, "accuracy": 0.75},
            {"loss": 0.25, "val_loss": 0.4, "accuracy": 0.875}]
    fit([cb.CSVLogger(path)], logs)
    assert read_csv(path) == [["epoch", "accuracy", "loss", "val_loss"],
                              ["0", "0.75", "0.5", "0.6"],
                              ["1", "0.875", "0.25", "0.4"]]
    # append: continues without a second header
    fit([cb.CSVLogger(path, append=True)], logs[:1])
    rows = read_csv(path)
    assert len(rows) == 4 and rows[0][0] == "epoch" and rows[3] == ["0", "0.75", "0.5", "0.6"]
    # overwrite, custom separator, missing key written as NA
    fit([cb.CSVLogger(str(path), separator=";")], [{"loss": 1.0, "val_loss": 2.0},
                                                    {"loss": 0.5}])
    assert read_csv(path, ";") == [["epoch", "loss", "val_loss"], ["0", "1.0", "2.0"],
                                   ["1", "0.5", "NA"]]
    # no validation in the first epoch (validation_freq > 1): val_ columns are added
    fit([cb.CSVLogger(path)], [{"loss": 1.0}, {"loss": 0.5, "val_loss": 0.75}])
    assert read_csv(path) == [["epoch", "loss", "val_loss"], ["0", "1.0", "NA"],
                              ["1", "0.5", "0.75"]]
