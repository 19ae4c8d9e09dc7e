"""``python -m benchmarks.fewshot --help``"""

import os
import sys

# OpenMP threads that wait for work by spinning collapse when another process shares the
# cores (measured here: MiniLM embedding fell from 150 to 25 texts/s with 2 threads); they
# must sleep instead. Read when the OpenMP runtime starts, so before torch is imported.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from benchmarks.fewshot.cli import main  # noqa: E402

sys.exit(main())
