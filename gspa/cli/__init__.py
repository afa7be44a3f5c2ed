"""The ``gspa`` command: ``gspa account`` (the accountant, :mod:`gspa.cli.account`) and the book's
commands (``build``, ``run``, ``rerun``, ``params``, … of :mod:`gspa.book.pipeline`). Top layer, beside the
book machinery: it may use the library, the studies and the book.

``gspa``, ``gspa -h`` and ``gspa --help`` list every command with one line each (the book's as its own
parser describes them); a misspelt command gets the nearest one (:func:`difflib.get_close_matches`) and
exit status 2. When standard output is closed early (``gspa account ... | head -1``) the command stops
quietly with status 141, as if killed by SIGPIPE. Installed without the book's packages (``pip install .``,
no ``[book]`` extra), ``gspa account`` works and the book's commands are listed as needing them."""

from __future__ import annotations

import difflib
import os
import sys

ACCOUNT = "certified privacy of the shuffle model for a file of budgets or a scenario"
NO_BOOK = "the book's commands (build, run, rerun, params, ...) need the book's packages: pip install 'gspa[book]'"


def _book():
    """:mod:`gspa.book.pipeline`, or the ImportError of a package it needs (a core install has none)."""
    try:
        from gspa.book import pipeline
    except ImportError as exc:
        return exc
    return pipeline


def commands() -> dict[str, str]:
    """Every command and its one-line help: ``account`` and the book's (:data:`gspa.book.pipeline.COMMANDS`),
    only ``account`` when the book's packages are not installed."""
    book = _book()
    return {"account": ACCOUNT, **(book.COMMANDS if not isinstance(book, ImportError) else {})}


def usage() -> str:
    known = commands()
    width = max(map(len, known))
    note = "" if len(known) > 1 else f"\n{NO_BOOK} ({_book()})\n"
    return (
        "usage: gspa COMMAND [options]   (gspa COMMAND --help describes a command's options)\n\ncommands:\n"
        + "".join(f"  {name:<{width}}  {what}\n" for name, what in known.items())
        + note
    )


def dispatch(argv: list[str]) -> int:
    if argv and argv[0] == "account":
        from gspa.cli.account import main as account

        return account(argv[1:])
    if not argv or argv[0] in ("-h", "--help"):
        print(usage(), end="", file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    known = commands()
    if argv[0] not in known:
        near = difflib.get_close_matches(argv[0], known, n=1)
        hint = f"did you mean {near[0]!r}?" if near else f"the commands are {', '.join(known)}"
        if len(known) == 1 and not near:  # a core install: the book's commands are missing
            hint += f"; {NO_BOOK} ({_book()})"
        print(f"gspa: error: unknown command {argv[0]!r}; {hint}", file=sys.stderr)
        return 2
    from gspa.book.pipeline import main as book

    return book(argv)


def main(argv=None) -> int:
    try:
        status = dispatch(sys.argv[1:] if argv is None else list(argv))
        sys.stdout.flush()
        return status
    except BrokenPipeError:  # the reader went away: no traceback, and none at exit's flush
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
