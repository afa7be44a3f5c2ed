"""gspa.book.plotting: the shared legend of multi-panel figures."""

import matplotlib
import pytest

matplotlib.use("Agg")

from gspa.book.plotting import figure_legend, subplots  # noqa: E402


def test_figure_legend_sits_below_every_panel_with_all_entries():
    fig, axes = subplots(3)
    for ax in axes[0]:
        for k in range(5):
            ax.plot([0, 1], [k, k + 1], label=f"series {k}")
    legend = figure_legend(fig, axes[0, 0])
    fig.canvas.draw()
    assert [t.get_text() for t in legend.get_texts()] == [f"series {k}" for k in range(5)]
    assert legend._ncols == 4
    box = legend.get_window_extent()
    assert all(
        box.y1 <= ax.get_window_extent().y0 for ax in axes[0]
    )  # below the panels, not over data
    assert all(ax.get_legend() is None for ax in axes[0])


@pytest.mark.parametrize("ncols", [0, -1, 1.5])
def test_figure_legend_refuses_a_bad_column_count(ncols):
    fig, axes = subplots(1)
    axes[0, 0].plot([0, 1], label="a")
    with pytest.raises(ValueError, match="ncols"):
        figure_legend(fig, axes[0, 0], ncols=ncols)


def test_figure_legend_refuses_an_axes_without_labels():
    fig, axes = subplots(1)
    axes[0, 0].plot([0, 1])
    with pytest.raises(ValueError, match="ax has no labelled artists"):
        figure_legend(fig, axes[0, 0])
