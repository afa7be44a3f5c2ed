"""Tracing a chapter's numbers and figures to the code cell, gspa functions and parameters that made them."""

import nbformat

import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from gspa.book import provenance as P


def glued(source, *names, image=False):
    """A code cell as it ran: ``names`` glued in its outputs (as ``ch.value``/``ch.claim`` do), or a figure."""
    data = {"application/papermill.record/image/png": "AAAA"} if image else {"text/plain": "x"}
    return new_code_cell(
        source,
        outputs=[
            new_output("display_data", data=data, metadata={"scrapbook": {"name": n}})
            for n in names
        ],
    )


def _nb(*cells, params="n = 10\neps = 1.0\nseed = 3\n", injected=None):
    out = [
        new_markdown_cell("# A chapter"),
        new_code_cell(params, metadata={"tags": ["parameters"]}),
    ]
    if injected:
        out.append(new_code_cell(injected, metadata={"tags": ["injected-parameters"]}))
    return new_notebook(cells=out + [c if isinstance(c, dict) else new_code_cell(c) for c in cells])


def of(prov, name):
    (entry,) = [e for e in prov["cells"] if name in e["published"]]
    return entry


IMPORTS = (
    "import numpy as np\n"
    "from gspa.privacy.shuffle import accountant as A\n"
    "from gspa.privacy.shuffle import lower as LB\n"
    "from gspa.privacy.peers.baselines import liu23\n"
    "from gspa.book.results import Chapter\n"
    "ch = Chapter('gspa/x')\n"
)


def test_a_number_depends_on_the_cells_that_reach_it_and_on_no_other():
    nb = _nb(
        IMPORTS,
        "budgets = np.full(n, eps)\n",
        "upper = A.personalized_pair(budgets).epsilon(1e-6)\n",
        "other = liu23(np.full(3, 1.0), 1e-6)\nrng = np.random.default_rng(seed)\n",
        glued("ch.value('upper', upper)\n", "upper"),
        glued("ch.value('noise', rng.normal())\n", "noise"),
    )
    prov = P.analyse(nb)
    upper, noise = of(prov, "upper"), of(prov, "noise")
    assert upper["functions"] == ["gspa.privacy.shuffle.accountant.personalized_pair"]
    assert upper["parameters"] == ["eps", "n"]
    assert noise["functions"] == ["gspa.privacy.peers.baselines.liu23"]  # the cell that made rng
    assert noise["parameters"] == ["seed"]
    assert upper["code_cell"] == 6 and nb.cells[upper["cell"]].source.startswith("ch.value")
    assert len(prov["cells"]) == 2  # only the cells that published something


def test_figures_and_claims_are_traced_with_the_runs_parameter_values():
    nb = _nb(
        IMPORTS,
        "y = A.personalized_pair(np.full(n, eps)).epsilon(1e-6)\n"
        "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([y])\n",
        glued("ch.claim('c1', 'statement', 'Theorem 1', y, None, kind='numerical')\n", "claim:c1"),
        injected="n = 20\neps = 0.5\nseed = 3\n",
    )
    fig_cell = nb.cells[4]
    fig_cell.outputs = [
        nbformat.v4.new_output("display_data", data={"image/png": "AAAA", "text/plain": "<Figure>"})
    ]
    prov = P.analyse(nb)
    assert prov["parameters"] == {"n": 20, "eps": 0.5, "seed": 3}
    (fig,) = prov["figures"]
    assert fig["cell"] == 4 and fig["glue"] is None
    assert fig["functions"] == ["gspa.privacy.shuffle.accountant.personalized_pair"]
    assert fig["parameters"] == ["eps", "n"]
    claim = of(prov, "claim:c1")
    assert claim["parameters"] == ["eps", "n"] and claim["code_cell"] == 4  # injected: no number


def test_a_cell_that_is_not_python_is_refused_with_its_index():
    with pytest.raises(ValueError, match="cell 2"):
        P.analyse(_nb("def (:\n"))


def test_the_chapter_table_links_claims_and_names_figures_functions_and_parameters():
    nb = _nb(
        IMPORTS,
        glued(
            "u = A.personalized_pair(np.full(n, eps)).epsilon(1e-6)\nch.value('u', u)\n"
            "ch.claim('c1', 'statement', 'Theorem 1', u, None, kind='numerical')\n",
            "u",
            "claim:c1",
            "claim:c1:reason",
        ),
        glued("glue('curves', fig, display=False)\n", "curves", image=True),
    )
    page = P.chapter_html(P.analyse(nb), "gspa")
    assert f'id="{P.ANCHOR}"' in page and "<caption>" in page and "reason" not in page
    row, fig = page.split("<tr>")[2:4]
    assert '<a href="#claim-gspa.c1"><code>c1</code></a>' in row and "<code>u</code>" in row
    fn = "privacy.<wbr>shuffle.<wbr>accountant.<wbr>personalized_<wbr>pair"  # wraps after . and _
    assert "<td>3</td>" in row and f"<code>{fn}</code>" in row
    assert "<code>eps</code>, <code>n</code>" in row
    assert "figure <code>curves</code>" in fig and "<td>4</td>" in fig


def test_the_chapter_s_own_functions_are_followed_and_each_call_publishes_in_its_cell():
    """A helper the chapter defines (reading a parameter, calling gspa) is part of what its callers depend
    on, and a value published inside it belongs to the cell whose call published it."""
    nb = _nb(
        IMPORTS,
        "def bound(x):\n    return A.personalized_pair(np.full(n, x)).epsilon(1e-6)\n\n"
        "def publish(values):\n    for name, v in values.items():\n        ch.value(name, v)\n",
        glued("publish({'a': bound(eps)})\n", "a"),
        glued("publish({f'b_{k}': 1.0 for k in range(2)})\n", "b_0", "b_1"),
    )
    prov = P.analyse(nb)
    first = of(prov, "a")
    assert first["code_cell"] == 4 and of(prov, "b_1")["code_cell"] == 5
    assert first["functions"] == ["gspa.privacy.shuffle.accountant.personalized_pair"]
    assert first["parameters"] == ["eps", "n"]
