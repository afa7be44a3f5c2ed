"""A chapter's worst-case searches: for each claim id, the domain its paper states, the
:class:`~gspa.claims.domain.Search` of its worst case there and whether an independent exact computation
confirmed the violation the search found — handed to :meth:`gspa.book.results.Chapter.claim` when the
claim is made; the chapter's claims table shows each beside its verdict."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, worst_case


class Searches:
    """The searches of one chapter, all with the same evaluation ``budget`` and ``seed`` unless a call says
    otherwise. ``spec`` maps a claim id to ``(domain, search or None, confirmed or None)``."""

    def __init__(self, chapter, budget: int, seed: int):
        self.chapter, self.budget, self.seed, self.spec = chapter, budget, seed, {}

    def _domain(self, id, domain):
        """The claim's stated domain: given here, or its declaration's (:meth:`gspa.book.results.Chapter.declaration`)."""
        if domain is None:
            domain = self.chapter.declaration(id).domain
        if domain is None:
            raise ValueError(f"claim {id!r} declares no domain to search")
        return domain

    def search(self, id, margin, domain=None, *, budget=None, region=None, confirm=None):
        """Search the claim's stated ``domain`` (default: its declaration's; or ``region``, a part of it) for
        its worst case; where the search found a violation, ``confirm(worst_point)`` re-verifies it by an
        independent computation."""
        domain = self._domain(id, domain)
        s = worst_case(
            margin,
            domain,
            budget=self.budget if budget is None else budget,
            seed=self.seed,
            region=region,
        )
        self.spec[id] = (
            domain,
            s,
            (bool(confirm(s.worst)) if confirm else None) if s.violations else None,
        )
        return s

    def add_failures(self, id, points, where: str):
        """Failing points the chapter found outside the claim's search (``where`` says how), so that the
        region the verdict says it holds in leaves them out (:meth:`gspa.claims.domain.Search.with_failures`)."""
        domain, s, confirmed = self.spec[id]
        self.spec[id] = (domain, s.with_failures(points, where), confirmed)

    def point(self, id, stated):
        """A claim about one value (nothing quantified)."""
        self.spec[id] = (ClaimDomain.point(stated), None, None)

    def unsearched(self, id, domain=None):
        """A claim whose stated domain (default: its declaration's) is recorded but not searched (its verdict
        then covers only the chapter's inputs)."""
        self.spec[id] = (self._domain(id, domain), None, None)

    def claim(self, id, *args, **kw):
        if id not in self.spec and self.chapter.declared is None:
            raise ValueError(
                f"claim {id!r} was neither searched nor given a domain (search, unsearched, point)"
            )
        domain, s, confirmed = self.spec.get(id, (None, None, None))
        return self.chapter.claim(id, *args, domain=domain, search=s, confirmed=confirmed, **kw)
