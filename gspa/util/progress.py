"""Progress bars that reach the terminal, also from inside a chapter's kernel.

A chapter runs in a Jupyter kernel, where a tqdm bar would be a notebook widget that nobody sees during a build
(and that the book strips). While the pipeline executes a chapter, it sets :data:`PROGRESS_ENV` to a file that
it copies to its own standard error as the file grows; :func:`bar` writes a text bar there. Elsewhere
:func:`bar` is ``tqdm.auto.tqdm``."""

from __future__ import annotations

import os

#: the environment variable naming the file a chapter's progress bars write to
PROGRESS_ENV = "GSPA_PROGRESS"


def bar(*args, **kwargs):
    """A tqdm progress bar (runs done / total, rate and estimate): a text bar into the pipeline's progress
    file while a chapter executes (:data:`PROGRESS_ENV`), else ``tqdm.auto``'s."""
    path = os.environ.get(PROGRESS_ENV)
    if path and not kwargs.get("disable"):
        from tqdm import tqdm

        fh = open(path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115 - closed with the bar
        b = tqdm(
            *args, file=fh, mininterval=2.0, ascii=True, dynamic_ncols=False, ncols=100, **kwargs
        )
        close = b.close

        def close_all():
            close()
            if not fh.closed:
                fh.write("\n")
                fh.close()

        b.close = close_all
        return b
    from tqdm.auto import tqdm

    return tqdm(*args, **kwargs)
