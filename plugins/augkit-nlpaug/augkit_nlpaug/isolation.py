"""Per-row randomness for nlpaug, which draws only from global generators.

nlpaug has no per-call seed (nlpaug #6): its augmenters draw from Python's ``random`` module,
some from NumPy's global generator, and the model-backed ones from torch's. :func:`global_randomness`
seeds those an augmenter uses from the row's seed (which augkit derives from the run's seed and
the row's text: Python's generator gets exactly the row's generator's state,
``random.Random(seed)``), runs the call, then puts the caller's global states back. A row's
output therefore depends only on (seed, row), whatever the batch size, worker count or
backend, and the caller's global streams go on as if the bridge had not run.

The global states are process-wide, so the calls are serialised by a lock: under Ray's
thread pool (or a row time limit's helper thread) two rows never share them. Other code of
the caller's that draws from the global generators in another thread during a call would
see the row's stream: nothing in augkit does.
"""

from __future__ import annotations

import _random
import contextlib
import random
import sys
import threading
from collections.abc import Callable, Iterator, Sequence

from augkit.plugin import MODEL_SEED_BITS, high_bits, low_bits

#: NumPy's legacy seeding takes 32-bit seeds: the row seed's top 32 bits.
NUMPY_SEED_BITS = 32
#: torch's manual seed takes 64 bits, signed: the row seed's low 63 bits (MODEL_SEED_BITS).

_LOCK = threading.RLock()

#: ``random.Random``'s seeding in C, below the Python-level ``Random.seed``.
seed_python = _random.Random.seed


#: The global generators nlpaug draws from, by the name a spec gives them.
GENERATORS = ("python", "numpy", "torch")


@contextlib.contextmanager
def global_randomness(generators: Sequence[str] = GENERATORS) -> Iterator[Callable[[int], None]]:
    """Inside the block, the named global generators (Python's ``random``, NumPy's, torch's
    when loaded) belong to the rows: the block gets ``seed_row(seed)``, which seeds them from
    a row's seed before that row's call; when the block ends, they are put back as
    they were before it. A batch saves and restores them once, not once per row: Python's
    ``getstate`` alone costs about 20 us, a tenth of a synonym replacement.

    Only the generators an augmenter draws from are named (its spec says which): NumPy's
    state costs about 200 us to save and restore, most of what a synonym replacement takes."""
    python = random.seed.__self__  # the instance behind the module's functions
    numpy = sys.modules.get("numpy") if "numpy" in generators else None
    torch = sys.modules.get("torch") if "torch" in generators else None

    def seed_row(seed: int) -> None:
        # what random.seed(seed) does, without its Python-level argument checks: the C
        # seeding, and the forgetting of a cached Gaussian draw
        seed_python(python, seed)
        python.gauss_next = None
        if numpy is not None:
            numpy.random.seed(high_bits(seed, NUMPY_SEED_BITS))
        if torch is not None:
            torch.manual_seed(low_bits(seed, MODEL_SEED_BITS))

    with _LOCK:
        python_state = random.getstate()
        numpy_state = numpy.random.get_state() if numpy is not None else None
        torch_state = torch.random.get_rng_state() if torch is not None else None
        try:
            yield seed_row
        finally:
            random.setstate(python_state)
            if numpy_state is not None:
                numpy.random.set_state(numpy_state)
            if torch_state is not None:
                torch.random.set_rng_state(torch_state)

