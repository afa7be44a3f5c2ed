"""The accountant's study: the computations behind the book's part "The shuffle accountant" (chapters
notebooks/accountant/using.md and peers.md) and benchmarks/accounting.py.

* :mod:`~.timing` — wall-clock times, traced and resident memory, a run in a fresh process;
* :mod:`~.speed` — the accountant's speed and memory against n, a straightforward reference, budgets as a
  histogram, FMT21's pair, composition against dp_accounting;
* :mod:`~.brackets` — upper bounds against certified lower bounds (binary and k-ary randomized response and
  Lemma 4's quaternary randomizer and the Laplace mechanism, certified) and
  against peers' values (Wang et al., EoN).
"""
