"""Tracing a chapter's numbers and figures to the code cell, gspa functions and parameters that made them."""

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from gspa.book import provenance as P


def _nb(*cells, params="n = 10\neps = 1.0\nseed = 3\n", injected=None):
    out = [
        new_markdown_cell("# A chapter"),
        new_code_cell(params, metadata={"tags": ["parameters"]}),
    ]
    if injected:
        out.append(new_code_cell(injected, metadata={"tags": ["injected-parameters"]}))
    return new_notebook(cells=out + [new_code_cell(c) for c in cells])


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
        "ch.value('upper', upper)\n",
        "ch.value('noise', rng.normal())\n",
    )
    prov = P.analyse(nb)
    upper, noise = P.lookup(prov["values"], "upper"), P.lookup(prov["values"], "noise")
    assert upper["functions"] == ["gspa.privacy.shuffle.accountant.personalized_pair"]
    assert upper["parameters"] == ["eps", "n"]
    assert noise["functions"] == ["gspa.privacy.peers.baselines.liu23"]  # the cell that made rng
    assert noise["parameters"] == ["seed"]
    assert upper["code_cell"] == 6 and nb.cells[upper["cell"]].source.startswith("ch.value")


def test_names_built_at_run_time_are_matched_by_pattern():
    nb = _nb(
        IMPORTS,
        "for k in range(n):\n    ch.value(f'share_{k}', LB.lower_bound(np.full(2, eps)).epsilon(0.1))\n",
        "ch.value('share_total', 1.0)\n",
    )
    prov = P.analyse(nb)
    assert P.lookup(prov["values"], "share_7")["functions"] == [
        "gspa.privacy.shuffle.lower.lower_bound"
    ]
    assert P.lookup(prov["values"], "share_total")["functions"] == []  # the literal wins
    assert P.lookup(prov["values"], "other") is None


def test_figures_and_claims_are_traced_with_the_runs_parameter_values():
    nb = _nb(
        IMPORTS,
        "y = A.personalized_pair(np.full(n, eps)).epsilon(1e-6)\n"
        "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([y])\n",
        "ch.claim('c1', 'statement', 'Theorem 1', y, None, kind='numerical')\n",
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
    assert fig["functions"] == ["gspa.privacy.shuffle.accountant.personalized_pair"] and fig[
        "parameters"
    ] == ["eps", "n"]
    (claim,) = prov["claims"]
    assert P.lookup(prov["claims"], "c1") is claim and claim["parameters"] == ["eps", "n"]


def test_a_cell_that_is_not_python_is_refused_with_its_index():
    with pytest.raises(ValueError, match="cell 2"):
        P.analyse(_nb("def (:\n"))


def test_the_page_links_api_functions_and_claims():
    nb = _nb(IMPORTS, "u = A.personalized_pair(np.full(n, eps)).epsilon(1e-6)\nch.value('u', u)\n")
    rec = {
        "chapter": "gspa/x",
        "title": "Chapter X",
        "profile": "smoke",
        "values": {"u": {"text": "0.123"}},
        "claims": [],
    }
    page = P.render_page([(rec, P.analyse(nb))])
    assert "(prov-gspa-x)=" in page and "<caption>" in page
    assert 'href="api.html#gspa.privacy.personalized_pair"' in page
    assert "<code>eps = 1.0</code>" in page and "<code>n = 10</code>" in page


def test_the_chapter_s_own_functions_are_followed_and_their_calls_publish():
    """A helper the chapter defines (reading a parameter, calling gspa) is part of what its callers depend
    on, and a value published inside it is traced to the cells that call it, not to its definition."""
    nb = _nb(
        IMPORTS,
        "def bound(x):\n    return A.personalized_pair(np.full(n, x)).epsilon(1e-6)\n\n"
        "def publish(values):\n    for name, v in values.items():\n        ch.value(name, v)\n",
        "publish({'a': bound(eps)})\n",
        "publish({'b': 1.0})\n",
    )
    prov = P.analyse(nb)
    cells = {e["code_cell"] for e in P.matches(prov["values"], "a")}
    assert cells == {4, 5}  # either call may have published it; the definition (cell 3) did not
    first = P.lookup(prov["values"], "a")
    assert first["functions"] == ["gspa.privacy.shuffle.accountant.personalized_pair"]
    assert first["parameters"] == ["eps", "n"]
