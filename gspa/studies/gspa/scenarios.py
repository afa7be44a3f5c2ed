"""Table 2: distributions of the local budgets eps^l (plus Unif 3 of the MNIST experiment).

Figure 2's text: "we repeat the first 10^3 parameters" — budgets for n > 1000 users are the first
1000 draws repeated, so curves over n differ only through n. :func:`budgets` does that when
``repeat`` is given.
"""

from __future__ import annotations

import numpy as np

from gspa.util import validate as V

MAX_USERS = 10**8  # budgets drawn at once (800 MB)

SCENARIOS = {
    "Unif 1": "U(0.01, 1)",
    "Unif 2": "U(0.01, 2)",
    "Constant": "0.5",
    "Mixed Constant": "50% 0.5 + 50% 0.01",
    "Unif 3": "U(0.5, 1)",
}


def budgets(name: str, n: int, rng: np.random.Generator, repeat: int | None = None) -> np.ndarray:
    """Draw n local budgets from scenario ``name`` of Table 2 (or Unif 3, Figure 4).

    With ``repeat`` = k, draw k budgets and tile them to length n (Figure 2's convention). ``n`` and
    ``repeat`` in [1, MAX_USERS = 10^8]; ``rng`` a ``numpy.random.Generator``."""
    name = V.choice("scenario", name, SCENARIOS)
    n = V.integer("n", n, low=1, high=MAX_USERS)
    m = n if repeat is None else V.integer("repeat", repeat, low=1, high=MAX_USERS)
    rng = V.generator("rng", rng)
    if name == "Unif 1":
        e = rng.uniform(0.01, 1.0, size=m)
    elif name == "Unif 2":
        e = rng.uniform(0.01, 2.0, size=m)
    elif name == "Unif 3":
        e = rng.uniform(0.5, 1.0, size=m)
    elif name == "Constant":
        e = np.full(m, 0.5)
    else:  # Mixed Constant: half 0.5, half 0.01 (in random order)
        e = np.where(rng.permutation(m) < m // 2, 0.5, 0.01)
    return np.resize(e, n)
