"""The benchmark suite is not part of the test run, except this smoke test: the quick W4
run completes and prints its table and which BLAS kernels ran (no timing is asserted)."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_quick_w4_run_prints_its_table():
    completed = subprocess.run(
        [sys.executable, os.path.join(ROOT, "benchmarks", "run.py"), "--quick",
         "--workloads", "W4", "--frameworks", "lamina,numpy"],
        capture_output=True, text=True, timeout=600, check=False)
    assert completed.returncode == 0, completed.stderr[-2000:]
    lines = completed.stdout.splitlines()
    assert any(line.startswith("workload") and "s/epoch med" in line for line in lines)
    rows = [line.split() for line in lines if line.startswith("W4 ")]
    assert {row[1] for row in rows} == {"lamina", "numpy"}
    lamina_row = next(row for row in rows if row[1] == "lamina")
    assert float(lamina_row[2]) > 0
    assert lamina_row[-1].endswith("x")   # the lamina/NumPy-floor ratio is printed
    # The kernels OpenBLAS chose (OPENBLAS_CORETYPE can pin older ones) head the table;
    # asked in a fresh process, as this one may have loaded other BLAS copies (SciPy's).
    described = subprocess.run(
        [sys.executable, "-c", "import run; print(run.blas_description())"],
        cwd=os.path.join(ROOT, "benchmarks"), capture_output=True, text=True, timeout=120,
        check=True).stdout.strip()
    assert described.startswith(("openblas ", "mkl ", "blis ")) or described == "", described
    machine = next(line for line in lines if line.startswith("machine:"))
    assert f"({described})" in machine
