"""The ``gspa`` command: ``gspa account`` (the accountant, :mod:`gspa.cli.account`) and the book's
commands ``build``, ``run``, ``rerun``, ``params`` (:mod:`gspa.book.pipeline`). Top layer, beside the
book machinery: it may use the library, the studies and the book."""
from __future__ import annotations

import sys


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "account":
        from gspa.cli.account import main as account
        return account(argv[1:])
    from gspa.book.pipeline import main as book
    return book(argv)
