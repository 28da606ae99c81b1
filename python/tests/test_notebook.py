"""In Jupyter a Result and a Convergence show themselves as HTML tables (_repr_html_) holding the
numbers of the report: the run, the L2 errors and estimates; the errors, rates and fits."""
from html.parser import HTMLParser

import hdgc
from conftest import POISSON


class Cells(HTMLParser):
    """The text of every <td>/<th>/<caption> of an HTML fragment, in order."""

    def __init__(self, text):
        super().__init__()
        self.cells, self.open = [], False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        if tag in ("td", "th", "caption"):
            self.cells.append("")
            self.open = True

    def handle_endtag(self, tag):
        if tag in ("td", "th", "caption"):
            self.open = False

    def handle_data(self, data):
        if self.open:
            self.cells[-1] += data


def test_result_html_table():
    r = hdgc.Problem(POISSON).solve(order=2, mesh="square:4")
    cells = Cells(r._repr_html_()).cells
    for key, value in (("status", "ok"), ("method", "HDG"), ("order", "2"), ("backend", "c")):
        assert cells[cells.index(key) + 1] == value, (key, cells)
    assert cells[cells.index("mesh") + 1] == "square:4 (32 elements)"
    i = cells.index("u", cells.index("unknown"))
    assert cells[i + 1] == f"{r.errors['u']:.4e}" and cells[i + 2] == f"{r.estimates['u']:.4e}"
    assert cells[cells.index("ustar") + 2] == "-"   # no estimate of ustar itself


def test_convergence_html_table():
    c = hdgc.convergence(POISSON, orders=(1, 2), meshes=(2, 4))
    text = c._repr_html_()
    assert text.count("<table>") == 2
    cells = Cells(text).cells
    two = cells.index("order 2")
    row = cells.index("4", two)   # the N = 4 row of order 2: q, rate, u, rate, ustar, rate
    u = c.unknowns.index("u")
    assert cells[row + 1 + 2 * u] == f"{c.errors[(2, 4, 'u')]:.4e}"
    assert cells[row + 2 + 2 * u] == f"{c.rates[(2, 4, 'u')]:.2f}"
    fit = cells.index("fit", two)
    assert cells[fit + 2 + 2 * u] == f"{c.fits[(2, 'u')][0]:.2f}"
