"""How many times one ``train_on_batch`` of a two-Dense MLP crosses from one lamina module
into another: a measure of how scattered the hot path is over the source tree.

The step is profiled with ``sys.setprofile``. Every Python ``call`` event whose frame
belongs to a ``lamina.*`` module (``frame.f_globals['__name__']``) is compared with the
previous such event; a crossing is a change of module. The count after a warm-up step
(build and compile done) is the headline number (186 on the layout before issue 13);
``--returns`` also counts ``return`` events, ``--pairs N`` lists the N most frequent
crossings.

Run:
    python benchmarks/module_crossings.py [--returns] [--pairs 15]
"""

import argparse
import collections
import sys

import numpy as np

import lamina
from lamina import layers


def build_step():
    """A compiled two-Dense MLP and one batch, after one warm-up ``train_on_batch``."""
    model = lamina.Sequential([layers.Input((20,)), layers.Dense(32, activation="relu"),
                               layers.Dense(3, activation="softmax")])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 20)).astype("float32")
    y = rng.integers(0, 3, size=32)
    model.train_on_batch(x, y)
    return lambda: model.train_on_batch(x, y)


def count_crossings(step, events=("call",)):
    """``(crossings, Counter of (from_module, to_module))`` of one call of ``step``."""
    previous = [None]
    pairs = collections.Counter()

    def profile(frame, event, _arg):
        if event not in events:
            return
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("lamina"):
            return
        if previous[0] is not None and module != previous[0]:
            pairs[previous[0], module] += 1
        previous[0] = module

    sys.setprofile(profile)
    try:
        step()
    finally:
        sys.setprofile(None)
    return sum(pairs.values()), pairs


def main():
    """Print the crossing count (and optionally the most frequent pairs)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--returns", action="store_true", help="count return events too")
    parser.add_argument("--pairs", type=int, default=0, help="list the N most frequent")
    args = parser.parse_args()
    events = ("call", "return") if args.returns else ("call",)
    total, pairs = count_crossings(build_step(), events)
    print(f"module crossings in one train_on_batch ({'+'.join(events)} events): {total}")
    for (source, target), count in pairs.most_common(args.pairs):
        print(f"{count:5d}  {source} -> {target}")


if __name__ == "__main__":
    main()
