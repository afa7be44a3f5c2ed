"""A study's claims as data: each claim's statement, place in the paper, kind, rule, paper value and stated
domain, declared once beside the study's margin functions (``gspa.studies.<paper>.claims``); a chapter then
records a claim by its id and the value it computed (:meth:`gspa.book.results.Chapter.claim`)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from types import MappingProxyType

from gspa.claims.domain import ClaimDomain
from gspa.claims.rules import Rule, check_kind


@dataclass(frozen=True)
class Claim:
    """One claim as the study declares it. ``statement`` quotes or paraphrases the paper, ``where`` locates it
    (section, equation, figure, table), ``kind`` is one of :data:`gspa.claims.rules.KINDS`, ``rule`` judges the
    chapter's value; ``paper`` / ``paper_text`` the paper's value where it states one; ``domain`` what the
    statement quantifies over; ``proof`` a short proof extending a search of part of that domain;
    ``follows_from`` the id (``paper.id``) of a claim this one follows from under the same readings (a
    post-processing, a special case, the same statement for a sub-protocol), ``because`` saying why: the book
    refuses a build where the premise holds under a reading and this claim does not
    (:func:`gspa.book.ledger.implication_conflicts`). A chapter may override ``paper``, ``paper_text``,
    ``note`` and ``rule`` where they depend on its parameters."""

    statement: str
    where: str
    kind: str
    rule: Rule
    paper: object = None
    paper_text: str | None = None
    note: str = ""
    domain: ClaimDomain | None = None
    proof: str | None = None
    follows_from: str | None = None
    because: str = ""

    def __post_init__(self):
        check_kind(self.kind)
        if self.follows_from is not None and not (
            isinstance(self.follows_from, str) and "." in self.follows_from and self.because.strip()
        ):
            raise ValueError(
                "follows_from must be a claim id 'paper.id' given with a reason (because=...), got "
                f"{self.follows_from!r}"
            )
        if not isinstance(self.rule, Rule):
            raise ValueError(f"rule must be a gspa.claims.rules.Rule, got {self.rule!r}")
        if self.domain is not None and not isinstance(self.domain, ClaimDomain):
            raise ValueError(
                f"domain must be a ClaimDomain or None, got {type(self.domain).__name__}"
            )

    def fields(self) -> dict:
        """The declaration as keyword arguments of :meth:`gspa.book.results.Chapter.claim`."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _LEDGER_ONLY}


#: what the ledger reads from a declaration, not the chapter's record
_LEDGER_ONLY = frozenset({"follows_from", "because"})


#: what a chapter may set or override when it records a declared claim (values of its own run)
CHAPTER_FIELDS = frozenset(
    {
        "ours",
        "ours_text",
        "paper",
        "paper_text",
        "note",
        "rule",
        "domain",
        "search",
        "confirmed",
        "proof",
    }
)


def table(*sections: dict[str, Claim]) -> MappingProxyType:
    """A study's claims, keyed by id (read-only), from its sections (one per chapter). Ids are words joined
    by ``-`` (a paper's number may be one: ``fig4-96.78``), unique in the study (the ledger prefixes the
    paper: ``gspa.lemma2-rate``)."""
    claims: dict[str, Claim] = {}
    for section in sections:
        for id, c in section.items():
            if not (isinstance(id, str) and id.strip() == id and id and " " not in id):
                raise ValueError(f"claim id {id!r}: ids are non-empty and without spaces")
            if not isinstance(c, Claim):
                raise ValueError(
                    f"claim {id!r} must be a gspa.claims.table.Claim, got {type(c).__name__}"
                )
            if id in claims:
                raise ValueError(f"claim id {id!r} is declared twice in the study")
            claims[id] = c
    return MappingProxyType(claims)


def package_table(package: str) -> MappingProxyType:
    """The claims of every module of ``package`` (dotted name of a study's ``claims`` package, one module per
    chapter, each with a ``CLAIMS`` table) as one table keyed by id, ids unique across the modules."""
    import importlib
    import pkgutil

    pkg = importlib.import_module(package)
    sections = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        mod = importlib.import_module(f"{package}.{info.name}")
        if hasattr(mod, "CLAIMS"):
            sections.append(dict(mod.CLAIMS))
    return table(*sections)
