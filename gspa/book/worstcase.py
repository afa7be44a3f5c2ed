"""A chapter's worst-case searches (issue 22): for each claim id, the domain its paper states, the
:class:`~gspa.book.domain.Search` of its worst case there and whether an independent exact computation
confirmed the violation the search found — handed to :meth:`gspa.book.results.Chapter.claim` when the
claim is made, and listed in one table at the end of the chapter."""
from __future__ import annotations

from gspa.book.domain import ClaimDomain, worst_case


class Searches:
    """The searches of one chapter, all with the same evaluation ``budget`` and ``seed`` unless a call says
    otherwise. ``spec`` maps a claim id to ``(domain, search or None, confirmed or None)``."""

    def __init__(self, chapter, budget: int, seed: int):
        self.chapter, self.budget, self.seed, self.spec = chapter, budget, seed, {}

    def search(self, id, margin, domain, *, budget=None, region=None, confirm=None):
        """Search the claim's stated ``domain`` (or ``region``, a part of it) for its worst case; where the
        search found a violation, ``confirm(worst_point)`` re-verifies it by an independent computation."""
        s = worst_case(margin, domain, budget=self.budget if budget is None else budget, seed=self.seed,
                       region=region)
        self.spec[id] = (domain, s, (bool(confirm(s.worst)) if confirm else None) if s.violations else None)
        return s

    def point(self, id, stated):
        """A claim about one value (nothing quantified)."""
        self.spec[id] = (ClaimDomain.point(stated), None, None)

    def unsearched(self, id, domain):
        """A claim whose stated domain is recorded but not searched (its verdict then covers only the
        chapter's inputs)."""
        self.spec[id] = (domain, None, None)

    def claim(self, id, *args, **kw):
        domain, s, confirmed = self.spec[id]
        return self.chapter.claim(id, *args, domain=domain, search=s, confirmed=confirmed, **kw)

    def table(self):
        import pandas as pd
        from gspa.book import tables
        rows = [{"claim": k, "searched": s.region.describe(), "points": s.evaluations, "violations": s.violations,
                 "worst case": s.worst_text(), "violation confirmed": c}
                for k, (d, s, c) in self.spec.items() if s is not None]
        return tables.table(pd.DataFrame(rows), "Worst cases found over the domains the claims are stated for")
