"""``gspa account``: certified privacy of the shuffle model from the command line.

Reads per-user local budgets εᵢ (a file, or one of the paper's Table 2 scenarios) and prints, for the
shuffle of the n users' reports:

* the certified upper bound (:func:`gspa.privacy.accountant.personalized_pair`; the randomizer, the
  variant and the local δᵢ as given), the certified lower bound where one exists (binary randomized
  response: explicit neighbouring data sets, :func:`gspa.privacy.accountant.lower_bound`), so the true
  value is bracketed;
* Theorem 2's approximation of the GSPA paper (approximately μ-GDP: *not* a bound), for comparison;
* with ``--rounds T``: every bound composed over T runs on the same data (:mod:`gspa.privacy.composition`),
  beside Theorem 5's √T·μ and advanced composition of the one-round bound;
* the published bounds whose conditions hold, with ε₀ = maxᵢ εᵢ (:mod:`gspa.privacy.baselines` and
  FMT21's numerical bound): they assume one randomizer for every user, so they are shown for a common
  budget and for binary randomized response (whose clone components are the same two point masses
  whatever a user's budget, with clone probability 1/(1+e^{εᵢ}) ≥ e^{−ε₀}/2), and marked not applicable
  otherwise.

Budget files: ``.npy`` (a 1-d array); otherwise text, one budget per line, or ``value,count`` per line
(a histogram: ``count`` users with budget ``value``), or CSV with a header row (``--column`` names the
column; a header ``value,count`` is a histogram). Blank lines and lines starting with ``#`` are skipped.
A line that does not parse, a NaN, an infinite or negative budget, or an empty file is an error naming
the file and line; the exit status is then 2.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from pathlib import Path

import numpy as np

RANDOMIZERS = ("binary-rr", "k-rr", "quaternary", "laplace")


class InputError(ValueError):
    """A budget file or option that cannot be used; the message names the file and line."""


def _number(text: str, where: str, what: str = "budget") -> float:
    try:
        v = float(text)
    except ValueError:
        raise InputError(f"{where}: {what} {text.strip()!r} is not a number") from None
    if math.isnan(v) or math.isinf(v):
        raise InputError(f"{where}: {what} {text.strip()!r} must be finite")
    if v < 0:
        raise InputError(f"{where}: {what} {v:g} is negative (allowed: [0, inf))")
    return v


def _count(text: str, where: str) -> int:
    try:
        c = int(text)
    except ValueError:
        raise InputError(f"{where}: count {text.strip()!r} is not a whole number") from None
    if c < 1:
        raise InputError(f"{where}: count {c} must be at least 1")
    return c


def read_budgets(path, column: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(values, counts) of the budgets in ``path`` (see the module docstring for the formats)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    if path.suffix == ".npy":
        try:
            a = np.load(path, allow_pickle=False)
        except (ValueError, OSError) as exc:
            raise InputError(f"{path}: not a readable .npy array ({exc})") from None
        if a.ndim != 1 or a.size == 0 or a.dtype.kind not in "fiu":
            raise InputError(f"{path}: needs a non-empty 1-d numeric array, got shape {a.shape} of {a.dtype}")
        a = a.astype(float)
        bad = np.flatnonzero(~np.isfinite(a) | (a < 0))
        if bad.size:
            raise InputError(f"{path}: element {bad[0]} is {a[bad[0]]!r}; budgets must be finite and >= 0")
        return a, np.ones(a.size, dtype=np.int64)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a text file (use .npy for binary arrays)") from None
    rows = [(i + 1, l) for i, l in enumerate(lines) if l.strip() and not l.lstrip().startswith("#")]
    if not rows:
        raise InputError(f"{path}: no budgets in the file")
    first = next(csv.reader([rows[0][1]]))
    header = None
    try:
        [float(x) for x in first]
    except ValueError:
        header, rows = [h.strip() for h in first], rows[1:]
        if not rows:
            raise InputError(f"{path}: a header but no budgets")
    if header is not None and column is None and header != ["value", "count"]:
        if len(header) != 1:
            raise InputError(f"{path}: several columns {header}; choose one with --column")
        column = header[0]
    values, counts = [], []
    for lineno, line in rows:
        where = f"{path}, line {lineno}"
        cells = next(csv.reader([line]))
        if header is not None and column is not None:
            if column not in header:
                raise InputError(f"{path}: no column {column!r}; the columns are {header}")
            if len(cells) != len(header):
                raise InputError(f"{where}: {len(cells)} fields, the header has {len(header)}")
            values.append(_number(cells[header.index(column)], where))
            counts.append(1)
        elif len(cells) == 1:
            values.append(_number(cells[0], where))
            counts.append(1)
        elif len(cells) == 2:
            values.append(_number(cells[0], where))
            counts.append(_count(cells[1], where))
        else:
            raise InputError(f"{where}: expected 'budget' or 'value,count', got {len(cells)} fields")
    return np.asarray(values, float), np.asarray(counts, np.int64)


def _fmt(x) -> str:
    if x is None:
        return "—"
    return f"{x:.6g}" if isinstance(x, float) else str(x)


def account(values, counts, *, delta: float | None, eps: float | None, randomizer: str = "binary-rr",
            k: int | None = None, delta_i: float = 0.0, variant: str = "randomized", baselines: bool = True,
            rounds: int = 1, progress: bool = False) -> dict:
    """The numbers ``gspa account`` prints, as a dict (``rows``: one per method). ``progress``: a progress
    bar on standard error, one step per method (shown only when standard error is a terminal)."""
    from gspa.privacy import accountant as A
    from gspa.privacy import baselines as B
    from gspa.privacy.composition import advanced_composition, compose
    from gspa.privacy.fdp import gdp_delta, gdp_epsilon

    if (delta is None) == (eps is None):
        raise InputError("give exactly one of --delta (to get ε) and --eps (to get δ)")
    n = int(counts.sum())
    if n < 2:
        raise InputError(f"the shuffle needs at least 2 users, got {n}")
    d_local = None if delta_i == 0 else np.full(values.size, delta_i)
    target = ("epsilon", delta) if delta is not None else ("delta", eps)

    def ask(obj):
        return float(obj.epsilon(delta)) if delta is not None else float(obj.delta(eps))

    if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or not 1 <= rounds <= 100_000:
        raise InputError(f"--rounds must be an integer in [1, 100000], got {rounds!r}")
    per = "" if rounds == 1 else f", {rounds} rounds"
    from tqdm.auto import tqdm
    bar = tqdm(desc="gspa account", unit="bound", file=sys.stderr, leave=False,
               disable=None if progress else True)

    class Rows(list):                      # each finished method advances the bar
        def append(self, row):
            super().append(row)
            bar.update(1)
            bar.set_postfix_str(row["method"][:48])

    rows = Rows()
    one = A.personalized_pair(values, d_local, variant, randomizer=randomizer, k=k, counts=counts)
    upper = compose(one, rounds)
    rows.append({"method": f"certified upper bound ({randomizer}, {variant}{per})", "kind": "upper bound", "value": ask(upper)})
    if randomizer == "binary-rr" and delta_i == 0:
        name = "certified lower bound (binary-rr, explicit data sets" + (")" if rounds == 1 else ", one round)")
        rows.append({"method": name, "kind": "lower bound", "value": ask(A.lower_bound(values) if np.max(counts) == 1 else A.lower_bound(values, counts=counts)),
                     **({} if rounds == 1 else {"reason": "T rounds reveal at least what one round does"})})
    from gspa.studies.gspa.theorem2 import mu_theorem2
    mu = mu_theorem2(values, d_local, counts=counts) * np.sqrt(rounds)
    thm2 = gdp_epsilon(delta, mu) if delta is not None else float(gdp_delta(eps, mu))
    rows.append({"method": "GSPA Theorem 2 (approximately μ-GDP)" if rounds == 1 else
                 "GSPA Theorems 2 and 5 (approximately √T·μ-GDP)", "kind": "approximation", "value": float(thm2)})
    if rounds > 1:
        if delta is not None:
            e0 = one.epsilon(delta / (2 * rounds))
            adv = advanced_composition(e0, delta / (2 * rounds), rounds, delta / 2)[0] if np.isfinite(e0) else float("inf")
            rows.append({"method": "advanced composition of the one-round bound (δ split in halves)",
                         "kind": "upper bound", "value": adv})
        else:
            rows.append({"method": "advanced composition of the one-round bound", "kind": "not computed", "value": None,
                         "reason": "given for --delta only"})
    eps0 = float(values.max())
    common = randomizer == "binary-rr" or np.unique(values).size == 1
    if baselines and delta_i == 0 and not common:
        rows.append({"method": f"published bounds with ε₀ = max εᵢ = {eps0:g}", "kind": "not applicable", "value": None,
                     "reason": f"they assume one randomizer for all users; personalized {randomizer} budgets differ "
                               "(binary randomized response is the exception)"})
    if baselines and delta_i == 0 and common:
        rows.append({"method": f"FMT21 numerical, ε₀ = max εᵢ = {eps0:g}{per}", "kind": "upper bound",
                     "value": ask(compose(A.fmt21_pair(eps0, n), rounds))})
        if delta is not None and rounds == 1:
            for f in (B.erlingsson19, B.fmt21_closed, B.fmt23_closed):
                b = f(eps0, n, delta)
                rows.append({"method": f"{b.name}, ε₀ = {eps0:g}", "kind": "upper bound" if b.valid else "not applicable",
                             "value": b.epsilon, "reason": b.reason})
    bar.close()
    return {"n": n, "distinct_budgets": int(np.unique(values).size), "min_budget": float(values.min()), "max_budget": eps0,
            "randomizer": randomizer, "k": k, "delta_i": delta_i, "variant": variant, "rounds": rounds,
            "asked": target[0], "at": target[1], "rows": rows}


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="gspa account",
        description="Certified privacy of shuffled local randomizers with personalized budgets.",
        epilog="Budget files: .npy, one budget per line, 'value,count' lines (a histogram), or CSV with a "
               "header (--column). Exit status 2 on bad input.")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--budgets", metavar="FILE", help="file of per-user local budgets eps_i")
    src.add_argument("--scenario", metavar="NAME", help="a Table 2 scenario of the GSPA paper (with --n, --seed)")
    ap.add_argument("--column", help="CSV column holding the budgets")
    ap.add_argument("--n", type=int, default=10_000, help="users for --scenario (default 10000)")
    ap.add_argument("--seed", type=int, default=0, help="seed for --scenario (default 0)")
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--delta", type=float, help="central delta: print epsilon")
    what.add_argument("--eps", type=float, help="central epsilon: print delta")
    ap.add_argument("--randomizer", choices=RANDOMIZERS, default="binary-rr", help="local randomizer (default binary-rr)")
    ap.add_argument("--k", type=int, help="alphabet size for --randomizer k-rr")
    ap.add_argument("--delta-i", type=float, default=0.0, help="local delta_i of every user (quaternary only; default 0)")
    ap.add_argument("--variant", choices=("randomized", "revealing"), default="randomized",
                    help="the reduced pair: the differing user keeps its budget (randomized) or reveals its input")
    ap.add_argument("--rounds", type=int, default=1,
                    help="runs of the shuffle on the same data, composed (certified; default 1)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return ap


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.budgets:
            values, counts = read_budgets(args.budgets, args.column)
        else:
            from gspa.studies.gspa.scenarios import budgets as draw
            if args.n < 2:
                raise InputError(f"--n must be at least 2, got {args.n}")
            values = draw(args.scenario, args.n, np.random.default_rng(args.seed))
            counts = np.ones(values.size, dtype=np.int64)
        res = account(values, counts, delta=args.delta, eps=args.eps, randomizer=args.randomizer, k=args.k,
                      delta_i=args.delta_i, variant=args.variant, rounds=args.rounds,
                      progress=int(counts.sum()) >= 100_000 or args.rounds > 1)
    except ValueError as exc:            # InputError and the library's own checks of the values
        print(f"gspa account: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(res, indent=1, allow_nan=False, default=str))
        return 0
    head = (f"n = {res['n']:,} users ({res['distinct_budgets']:,} distinct budgets in "
            f"[{res['min_budget']:g}, {res['max_budget']:g}]), randomizer {res['randomizer']}"
            + (f", k = {res['k']}" if res["k"] else "") + (f", δᵢ = {res['delta_i']:g}" if res["delta_i"] else "")
            + (f", {res['rounds']} rounds" if res["rounds"] > 1 else ""))
    col = "ε at δ = " if res["asked"] == "epsilon" else "δ at ε = "
    print(head)
    width = max(len(r["method"]) for r in res["rows"])
    print(f"{'method':<{width}}  {'kind':<15}  {col}{res['at']:g}")
    for r in res["rows"]:
        print(f"{r['method']:<{width}}  {r['kind']:<15}  {_fmt(r['value'])}" + (f"  ({r['reason']})" if r.get("reason") else ""))
    return 0
