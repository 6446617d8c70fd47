"""Side-by-side speed runs of lamina, PyTorch and the hand-written NumPy floor.

Usage:
    python benchmarks/run.py --quick                 # < 3 minutes on 2 cores
    python benchmarks/run.py --workloads W1,W4       # pick workloads
    python benchmarks/run.py --processes 3 --epochs 3  # the full protocol
    python benchmarks/run.py --quick --jit           # also lamina with jit_compile=True
    python benchmarks/run.py --quick --dp            # also lamina under DataParallel()

Each (framework, workload) runs in fresh processes, round-robin with the order rotated
(A B C / B C A / C A B), as the benchmark protocol prescribes (see the README). Reported: the
machine with NumPy's BLAS and the OpenBLAS kernel set the workers run (an
``OPENBLAS_CORETYPE`` in the environment pins it: remove it to measure a current NumPy);
seconds per epoch (median, min, max over all timed epochs), microseconds per step, peak RSS, and the
ratios lamina/PyTorch and lamina/NumPy-floor (with ``--jit`` also the row ``lamina-jit``,
compile(jit_compile=True), with its ratio to eager lamina; with ``--dp`` the row
``lamina-dp``, a one-process ``DataParallel`` splitting each batch over the threads). PyTorch is optional; W5 runs it twice
(``torch``: attention written by hand, ``torch-mha``: ``nn.MultiheadAttention``) and the
lamina/PyTorch ratio is against the faster of the two.
"""

import argparse
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from workloads import BATCH, WORKLOADS  # noqa: E402

SAMPLES = {"W1": 60000, "W1-predict": 60000, "W2": 10000, "W3": 5000, "W3-64": 5000,
           "W4": 20000, "W5": 8000}
#: The PyTorch runs a lamina row is compared with; the faster one is the reference.
TORCH_PEERS = ("torch", "torch-mha")


def frameworks_available(jit=False, dp=False):
    names = ["lamina"] + (["lamina-jit"] if jit else []) + (["lamina-dp"] if dp else []) \
        + ["numpy"]
    if importlib.util.find_spec("torch") is not None:
        names[1:1] = list(TORCH_PEERS)
    return names


def run_one(framework, workload, epochs):
    command = [sys.executable, os.path.join(HERE, "worker.py"), framework, workload, str(epochs)]
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        raise RuntimeError(f"{framework} {workload} failed:\n{completed.stderr[-3000:]}")
    return json.loads(completed.stdout.strip().splitlines()[-1])


def measure(workload, frameworks, processes, epochs):
    results = {name: {"times": [], "rss": [], "losses": []} for name in frameworks}
    for repetition in range(processes):
        shift = repetition % len(frameworks)
        for name in frameworks[shift:] + frameworks[:shift]:
            outcome = run_one(name, workload, epochs)
            if outcome.get("skipped"):
                results.pop(name, None)
                continue
            if name in results:
                results[name]["times"].extend(outcome["times"])
                results[name]["rss"].append(outcome["peak_rss_mb"])
                results[name]["losses"].append(outcome["warmup_loss"])
        frameworks = [f for f in frameworks if f in results]
    return results


def summarize(workload, results):
    steps = -(-SAMPLES[workload] // BATCH[workload])
    rows = {}
    for name, data in results.items():
        times = data["times"]
        median = statistics.median(times)
        rows[name] = {"median": median, "min": min(times), "max": max(times),
                      "us_per_step": median / steps * 1e6, "rss_mb": max(data["rss"]),
                      "warmup_loss": statistics.median(data["losses"])}
    return rows


def blas_description():
    """NumPy's BLAS as the workers run it: library, version and, for OpenBLAS, the kernel
    set it chose (``SkylakeX``, ``Haswell``, ...; ``OPENBLAS_CORETYPE`` can pin it)."""
    import numpy  # noqa: F401 - loads the BLAS that threadpoolctl then reports
    import threadpoolctl

    return ", ".join(f"{info['internal_api']} {info.get('version')}"
                     + (f" {info['architecture']} kernels" if info.get("architecture") else "")
                     for info in threadpoolctl.threadpool_info() if info["user_api"] == "blas")


def print_table(all_rows):
    print(f"\nmachine: {platform.machine()} {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, numpy {__import__('numpy').__version__} "
          f"({blas_description()})"
          + (f", torch {__import__('torch').__version__}" if importlib.util.find_spec("torch")
             else ""))
    header = (f"{'workload':<11}{'framework':<11}{'s/epoch med':>12}{'min':>8}{'max':>8}"
              f"{'us/step':>10}{'RSS MB':>8}{'warm-up loss':>13}{'vs torch':>9}{'vs numpy':>9}"
              f"{'vs eager':>9}")
    print(header)
    print("-" * len(header))
    for workload, rows in all_rows.items():
        references = {"numpy": rows.get("numpy", {}).get("median"), "torch": min(
            (rows[peer]["median"] for peer in TORCH_PEERS if peer in rows), default=None),
            "lamina": rows.get("lamina", {}).get("median")}
        for name, row in rows.items():
            versus = {}
            for peer, reference in references.items():
                if name.startswith("lamina") and reference is not None and peer != name:
                    versus[peer] = f"{row['median'] / reference:.2f}x"
            print(f"{workload:<11}{name:<11}{row['median']:>12.3f}{row['min']:>8.3f}"
                  f"{row['max']:>8.3f}{row['us_per_step']:>10.0f}{row['rss_mb']:>8.0f}"
                  f"{row['warmup_loss']:>13.4f}{versus.get('torch', ''):>9}"
                  f"{versus.get('numpy', ''):>9}{versus.get('lamina', ''):>9}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="one process per framework, one timed epoch (< 3 min)")
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--frameworks", default=None,
                        help="comma-separated subset of lamina,lamina-jit,lamina-dp,torch,"
                             "torch-mha,numpy")
    parser.add_argument("--processes", type=int, default=None)
    parser.add_argument("--epochs", type=int, default=None)
    parser.add_argument("--json", default=None, help="also write the results to this file")
    parser.add_argument("--jit", action="store_true",
                        help="also run lamina with compile(jit_compile=True) (lamina-jit)")
    parser.add_argument("--dp", action="store_true",
                        help="also run lamina under a one-process DataParallel (lamina-dp)")
    args = parser.parse_args(argv)
    workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
    unknown = [w for w in workloads if w not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workloads {unknown}; known: {list(WORKLOADS)}")
    frameworks = frameworks_available(args.jit, args.dp)
    if args.frameworks:
        wanted = args.frameworks.split(",")
        frameworks = [f for f in frameworks if f in wanted]
    processes = args.processes or (1 if args.quick else 3)
    epochs = args.epochs or (1 if args.quick else 3)
    all_rows = {}
    for workload in workloads:
        results = measure(workload, list(frameworks), processes, epochs)
        all_rows[workload] = summarize(workload, results)
    print_table(all_rows)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(all_rows, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
