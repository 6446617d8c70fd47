"""One benchmark process: ``python benchmarks/worker.py FRAMEWORK WORKLOAD EPOCHS``.

Prints one JSON line: epoch times, the warm-up loss and the process's peak RSS.
"""

import json
import os
import resource
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from workloads import RUNNERS  # noqa: E402


def main():
    framework, workload, epochs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    result = RUNNERS[framework](workload, epochs)
    if result is None:
        print(json.dumps({"skipped": True}))
        return
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps(result))


if __name__ == "__main__":
    main()
