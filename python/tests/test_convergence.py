"""hdgc.convergence gives the numbers `hdgc convergence --json` writes: errors, rates, fits."""
import math
import re

import pytest

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


def test_convergence_mesh_specs_match_cli(cli):
    """Mesh specs, as `hdgc convergence --meshes SPEC,SPEC`: h is each mesh's longest edge and the
    table prints h (it raised ValueError formatting the specs as N)."""
    specs = ["square:2,perturb=0.1", "square:4,perturb=0.1", "square:8,perturb=0.1"]
    want = cli("convergence", POISSON, "--orders", "1", "--meshes", ",".join(specs), "--quiet")
    c = hdgc.convergence(POISSON, orders=(1,), meshes=specs)
    assert c.ok and c.meshes == specs and len(c.runs) == len(want["runs"]) == 3
    for mine, theirs in zip(c.runs, want["runs"]):
        assert mine["mesh"] == theirs["mesh"] and close(mine["h"], theirs["h"])
        for u, e in theirs["errors"].items():
            assert close(mine["errors"][u], e)
    assert len(c.rates) == len(want["rates"]) == 6
    for row in want["rates"]:
        key = (row["order"], next(s for s, r in zip(specs, want["runs"]) if r["h"] == row["h"]), row["unknown"])
        assert close(c.rates[key], row["rate"])
    for row in want["fits"]:
        assert close(c.fits[(row["order"], row["unknown"])][0], row["rate"])
    table = str(c)
    assert "        h" in table and f"{want['runs'][0]['h']:9.3e}" in table


def test_convergence_repeated_mesh_as_cli(cli):
    """--meshes 4,4 (the command takes it): no rate between equal meshes, no fitted rate (it
    raised ZeroDivisionError)."""
    want = cli("convergence", POISSON, "--orders", "1", "--meshes", "4,4", "--quiet")
    c = hdgc.convergence(POISSON, orders=(1,), meshes=(4, 4))
    assert "rates" not in want and c.rates == {}
    assert all(f["rate"] is None for f in want["fits"])
    assert all(math.isnan(c.fits[(1, u)][0]) for u in c.unknowns)
    assert "    -" in str(c)
    c = hdgc.convergence(POISSON, orders=(1,), meshes=("8", 4))   # N as text, as on the command line
    assert c.meshes == [8, 4] and 1.7 < c.rates[(1, 4, "u")] < 2.3


@pytest.mark.parametrize("kw, text", [
    (dict(meshes=(4.5, 8)), "meshes[0]: expected an integer N"),
    (dict(meshes=(0, 8)), "meshes[0]: N = 0, expected 1..100000"),
    (dict(meshes=()), "meshes: expected N,N,... or mesh specs, got none"),
    (dict(orders=(1.5,)), "orders[0]: expected an integer >= 1"),
    (dict(orders=(0,)), "orders[0]: expected an integer >= 1"),
    (dict(meshes=("square:2", "square:4"), mesh_options="perturb=0.1"), "mesh_options applies to square:N"),
    (dict(meshes=("square:2", "/nonexistent/m.msh")), "meshes[1] /nonexistent/m.msh: "),
])
def test_convergence_refuses_what_cli_refuses(kw, text):
    with pytest.raises(hdgc.Error, match=re.escape(text)):
        hdgc.convergence(POISSON, **{"orders": (1,), **kw})


def test_convergence_carries_run_warnings():
    """Each run's warnings, as `hdgc run` prints them (they were dropped)."""
    c = hdgc.convergence(POISSON, orders=(1,), meshes=(16,), precond="mg", rtol=1e-6)
    w = c.runs[0]["warnings"]
    assert len(w) == 1 and w[0].startswith("the solve stopped at relative residual"), w
