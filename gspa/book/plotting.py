"""The book's plotting style (one place, so every figure looks alike)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import seaborn as sns

PALETTE = sns.color_palette("colorblind")
PAPER_MARK = dict(marker="*", s=140, color="black", zorder=5, label="paper's value")

#: One colour per method, the same in every figure of the book: what the paper prints (its formulas
#: and values) is black, gspa's certified accountant blue, the real shuffled protocol (enumerated or
#: simulated) brown, and each published baseline its own hue.
METHOD_COLOURS = {
    "paper": "black",
    "gspa": PALETTE[0],
    "Liu23": PALETTE[1],
    "FMT21": PALETTE[2],
    "Erlingsson19": PALETTE[3],
    "FMT23": PALETTE[4],
    "protocol": PALETTE[5],
}


def use_style() -> None:
    """Seaborn 'whitegrid' with the colour-blind palette and sizes that read well in the book."""
    sns.set_theme(context="notebook", style="whitegrid", palette=PALETTE)
    plt.rcParams.update(
        {
            "figure.dpi": 110,
            "savefig.dpi": 110,
            "figure.figsize": (6.4, 4.0),
            "axes.titlesize": "medium",
            "legend.fontsize": "small",
        }
    )


def subplots(ncols=1, nrows=1, width=6.4, height=4.0, **kw):
    use_style()
    return plt.subplots(
        nrows,
        ncols,
        figsize=(width * ncols, height * nrows),
        squeeze=False,
        constrained_layout=True,
        **kw,
    )


def figure_legend(fig, ax, ncols: int | None = None):
    """One legend for a figure whose panels show the same series: under the panels, at the style's
    legend size, instead of a shrunken legend inside one panel that covers its data. The entries are
    ``ax``'s labelled artists; ``ncols`` defaults to all of them in one row, at most four."""
    handles, labels = ax.get_legend_handles_labels()
    if not labels:
        raise ValueError(
            f"ax has no labelled artists to put in a legend (got {len(handles)} handles)"
        )
    if ncols is None:
        ncols = min(len(labels), 4)
    if not (isinstance(ncols, int) and ncols >= 1):
        raise ValueError(f"ncols must be an integer >= 1, got {ncols!r}")
    return fig.legend(handles, labels, loc="outside lower center", ncols=ncols, frameon=False)
