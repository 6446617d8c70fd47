"""Peak memory of CNN training on larger images: W2's model on 112x112x3 inputs, batch 64.

Usage:
    python benchmarks/conv_memory.py                 # lamina (default budget), lamina
                                                     # (unbounded), PyTorch if installed
    python benchmarks/conv_memory.py --processes 3

Each run is a fresh process: it builds the model (Conv2D(32, 3, relu) -> MaxPool 2 ->
Conv2D(64, 3, relu) -> MaxPool 2 -> Flatten -> Dense(128, relu) -> Dense(10), Adam, sparse
categorical cross-entropy from logits), trains one warm-up epoch and one timed epoch over
256 random images (4 steps), and reports its peak RSS (``ru_maxrss``) and the timed
epoch. "lamina unbounded" sets ``lamina.config.set_conv_workspace_bytes`` to 1 TiB: the
whole batch's im2col columns at once, as before the workspace budget.
"""

import argparse
import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

SAMPLES, BATCH, SHAPE = 256, 64, (112, 112, 3)
UNBOUNDED = 1 << 40


def make_data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((SAMPLES,) + SHAPE, dtype=np.float32)
    return x, rng.integers(0, 10, size=SAMPLES)


def run_lamina(budget):
    import lamina
    from lamina import layers

    if budget is not None:
        lamina.config.set_conv_workspace_bytes(budget)
    lamina.utils.set_random_seed(0)
    x, y = make_data()
    model = lamina.Sequential([
        layers.Input(SHAPE), layers.Conv2D(32, 3, activation="relu"), layers.MaxPooling2D(2),
        layers.Conv2D(64, 3, activation="relu"), layers.MaxPooling2D(2), layers.Flatten(),
        layers.Dense(128, activation="relu"), layers.Dense(10)])
    model.compile(optimizer=lamina.optimizers.Adam(learning_rate=1e-3),
                  loss=lamina.losses.SparseCategoricalCrossentropy(from_logits=True))

    def epoch():
        model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=True, verbose=0)

    return epoch


def run_torch(_budget):
    import torch

    torch.set_num_threads(2)
    torch.manual_seed(0)
    nn = torch.nn
    x, y = make_data()
    xt = torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))
    yt = torch.from_numpy(y.astype(np.int64))
    model = nn.Sequential(nn.Conv2d(3, 32, 3), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(64 * 26 * 26, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    loss_fn = nn.CrossEntropyLoss()

    def epoch():
        order = torch.randperm(SAMPLES)
        for start in range(0, SAMPLES, BATCH):
            idx = order[start:start + BATCH]
            optimizer.zero_grad(set_to_none=True)
            loss = loss_fn(model(xt[idx]), yt[idx])
            loss.backward()
            optimizer.step()
            loss.item()

    return epoch


RUNS = {"lamina": (run_lamina, None), "lamina unbounded": (run_lamina, UNBOUNDED),
        "torch": (run_torch, None)}


def child(name):
    runner, budget = RUNS[name]
    epoch = runner(budget)
    epoch()
    start = time.perf_counter()
    epoch()
    seconds = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps({"seconds": seconds, "rss_mb": rss}))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child)
        return 0
    names = [n for n in RUNS if n != "torch" or importlib.util.find_spec("torch")]
    results = {name: [] for name in names}
    for repetition in range(args.processes):
        shift = repetition % len(names)
        for name in names[shift:] + names[:shift]:
            done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", name],
                                  capture_output=True, text=True, check=True)
            results[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
    torch_rss = statistics.median(r["rss_mb"] for r in results["torch"]) \
        if "torch" in results else None
    print(f"{'run':<18}{'peak RSS MB':>12}{'vs torch':>10}{'s/epoch':>10}")
    for name, runs in results.items():
        rss = statistics.median(r["rss_mb"] for r in runs)
        seconds = statistics.median(r["seconds"] for r in runs)
        versus = f"{rss / torch_rss:.2f}x" if torch_rss else ""
        print(f"{name:<18}{rss:>12.0f}{versus:>10}{seconds:>10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
