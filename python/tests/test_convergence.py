"""hdgc.convergence gives the numbers `hdgc convergence --json` writes: errors, rates, fits."""
import math

import hdgc
from conftest import POISSON


def close(a, b):
    return a == b or abs(a - b) <= 1e-14 * abs(b)


def test_convergence_matches_cli(cli):
    want = cli("convergence", POISSON, "--orders", "1..2", "--meshes", "2,4,8", "--quiet")
    c = hdgc.convergence(POISSON, orders=(1, 2), meshes=(2, 4, 8))
    assert c.ok and c.unknowns == ["q", "u", "ustar"]
    assert len(c.runs) == len(want["runs"]) == 6
    for mine, theirs in zip(c.runs, want["runs"]):
        assert (mine["order"], mine["N"], mine["mesh"], mine["status"]) == \
            (theirs["order"], theirs["N"], theirs["mesh"], theirs["status"])
        assert set(mine["errors"]) == set(theirs["errors"])
        for u, e in theirs["errors"].items():
            assert close(c.errors[(mine["order"], mine["N"], u)], e)
    assert len(c.rates) == len(want["rates"]) == 12
    for row in want["rates"]:
        assert close(c.rates[(row["order"], row["N"], row["unknown"])], row["rate"])
    assert len(c.fits) == len(want["fits"]) == 6
    for row in want["fits"]:
        rate, points = c.fits[(row["order"], row["unknown"])]
        assert points == row["points"] == 3 and close(rate, row["rate"])
    # the rates are near the theory: k + 1 for u and q, k + 2 for ustar
    assert 1.7 < c.rates[(1, 8, "u")] < 2.3 and 3.7 < c.rates[(2, 8, "ustar")] < 4.3
    table = str(c)
    assert "poisson_exp, order 2" in table and "fit" in table


def test_convergence_problem_and_options():
    p = hdgc.Problem(POISSON)
    c = hdgc.convergence(p, orders=(1,), meshes=(2, 4), kappa=2.0, mesh_options="perturb=0.1")
    assert [r["mesh"] for r in c.runs] == ["square:2,perturb=0.1", "square:4,perturb=0.1"]
    assert p.order == 1
    assert math.isfinite(c.fits[(1, "u")][0]) and c.fits[(1, "u")][1] == 2


def test_convergence_plot(tmp_path):
    """Convergence.plot: one line per (order, unknown) through the errors, the fitted rates
    in the legend, a PNG written."""
    import pytest
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    c = hdgc.convergence(POISSON, orders=(1, 2), meshes=(2, 4, 8))
    out = tmp_path / "conv.png"
    ax = c.plot(path=str(out))
    assert out.stat().st_size > 10000 and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(labels) == 6
    for k in (1, 2):
        for u in ("q", "u", "ustar"):
            want = f"{u}, k={k}: rate {c.fits[(k, u)][0]:.2f}"
            assert want in labels
    data = [l for l in ax.get_lines() if l.get_linestyle() == "-"]
    assert len(data) == 6
    for line in data:
        x, y = line.get_xdata(), line.get_ydata()
        assert list(x) == [0.5, 0.25, 0.125] and all(a > b for a, b in zip(y, y[1:]))
