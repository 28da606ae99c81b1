"""An HDG problem from a file and from a string: errors as `hdgc run --json` gives them, the
fields at the nodes against the exact solution, the trace, params and options by keyword,
a mesh from numpy arrays against the same built-in mesh."""
import math

import numpy as np
import pytest

import hdgc
from conftest import POISSON, square_arrays, uex


def rel(a, b):
    return abs(a - b) / abs(b)


def test_file_and_string_match_cli(cli):
    want = cli("run", POISSON, "--mesh", "square:8", "--order", "2")["errors"]
    assert set(want) == {"q", "u", "ustar"}
    r1 = hdgc.Problem(POISSON).solve(order=2, mesh="square:8")
    with open(POISSON) as f:
        p2 = hdgc.Problem.from_string(f.read(), name="poisson_exp.hdg")
    r2 = p2.set(order=2, mesh="square:8").solve()
    for r in (r1, r2):
        assert r.ok and r.status == "ok"
        assert set(r.errors) == set(want)
        for u, e in want.items():
            assert rel(r.errors[u], e) <= 1e-14, (u, r.errors[u], e)
    assert 1e-5 < r1.errors["u"] < 1e-3


def test_problem_properties():
    p = hdgc.Problem(POISSON)
    assert (p.name, p.method) == ("poisson_exp", "HDG")
    assert p.params == ["kappa", "tau"]
    p.set(order=4)
    assert p.order == 4
    with pytest.raises(hdgc.Error, match="expected an integer between 1 and 20"):
        p.set(order=0)
    assert p.order == 4


def test_fields_against_exact_solution():
    r = hdgc.Problem(POISSON).solve(order=3, mesh="square:8")
    assert set(r.fields) == {"u", "q_x", "q_y", "ustar"}
    u, us = r.fields["u"], r.fields["ustar"]
    assert u.values.shape == (128, 15) and u.degree == 4 and u.x.shape == u.values.shape
    du = np.abs(u.values - uex(u.x, u.y)).max()
    ds = np.abs(us.values - uex(us.x, us.y)).max()
    assert 1e-7 < du < 1e-4
    assert ds < du
    assert u.x.min() == 0 and u.x.max() == 1 and u.y.min() == 0 and u.y.max() == 1
    # the trace: per_face = k + 1 Legendre coefficients on each face
    assert r.trace.shape == (r.report["mesh"]["faces"], 4)
    assert np.all(np.isfinite(r.trace)) and np.abs(r.trace).max() > 1
    assert r.number("mesh.elements") == 128 and math.isnan(r.number("mesh.nothing"))
    # the mesh: element e's lattice nodes 0, p, npe-1 are its triangle's vertices
    assert r.vertices.shape == (81, 2) and r.triangles.shape == (128, 3)
    corners = r.vertices[r.triangles]                                   # (ne, 3, 2)
    nodes = np.stack([u.x[:, [0, 4, 14]], u.y[:, [0, 4, 14]]], axis=-1)
    assert np.abs(corners - nodes).max() < 1e-15


def test_params_and_options_by_keyword():
    p = hdgc.Problem(POISSON)
    e1 = p.solve(order=1, mesh="square:4").errors["u"]
    e2 = p.solve(kappa=2.0).errors["u"]
    assert e2 != e1
    e3 = p.solve(kappa=1, rtol=1e-12, cache=True).errors["u"]   # True -> on
    assert rel(e3, e1) < 1e-8
    with pytest.raises(hdgc.Error, match="expected on or off"):
        p.set(cache="maybe")
    with pytest.raises(hdgc.Error, match="not finite"):
        p.set(kappa=math.nan)
    with pytest.raises(hdgc.Error, match="unknown option 'colour'"):
        p.set(colour="red")


def test_mesh_from_arrays_equals_square():
    p = hdgc.Problem(POISSON)
    r1 = p.solve(order=2, mesh="square:8")
    r2 = p.solve(mesh=square_arrays(8))
    assert r2.report["mesh"]["source"] == "arrays"
    for u in ("u", "q", "ustar"):
        assert rel(r2.errors[u], r1.errors[u]) <= 1e-9
    # the same nodes, in some element order
    key = lambda f: np.sort(np.round(np.stack([f.x, f.y], -1).reshape(-1, 2), 12), axis=0)
    assert np.array_equal(key(r1.fields["u"]), key(r2.fields["u"]))
    # untagged boundary edges are "boundary", which `on all` covers
    r3 = p.solve(mesh=square_arrays(8, tagged=False))
    assert rel(r3.errors["u"], r1.errors["u"]) <= 1e-9
    # clockwise triangles are turned round
    xy, tri, _, _ = square_arrays(8, tagged=False)
    assert rel(p.solve(mesh=(xy, tri[:, ::-1])).errors["u"], r1.errors["u"]) <= 1e-9
    # numeric markers with names, as a dict of set_mesh's arguments
    xy, tri, edges, names = square_arrays(8)
    ids = [["bottom", "right", "top", "left"].index(n) + 1 for n in names]
    r4 = p.solve(mesh=dict(vertices=xy, triangles=tri, edges=edges, markers=np.array(ids),
                           names=["bottom", "right", "top", "left"]))
    assert rel(r4.errors["u"], r1.errors["u"]) <= 1e-9
    # setting "mesh" again drops the arrays
    assert p.solve(mesh="square:8").errors["u"] == r1.errors["u"]


def test_summary_and_warnings():
    p = hdgc.Problem(POISSON)
    assert p.warnings == ""
    r = p.solve(order=1, mesh="square:2")
    if "hdgc_result_summary" in hdgc._lib.lib.hdgc_declared:
        assert "L2 error u" in r.summary and "8 elements" in r.summary


def test_error_estimate():
    """HDG with u*: the estimate ||u* - u|| and its per-element indicators (docs/language.md 6)."""
    r = hdgc.Problem(POISSON).solve(order=2, mesh="square:8")
    assert set(r.estimates) == {"u"}
    eta, err = r.estimates["u"], r.errors["u"]
    assert 0.9 < eta / err < 1.1
    assert rel(r.number("effectivity.u"), eta / err) <= 1e-12
    ek = r.indicators["u"]
    assert ek.shape == (128,) and np.all(ek >= 0)
    assert rel(math.sqrt(float(np.sum(ek * ek))), eta) <= 1e-12
    assert "  estimate u " in r.summary
    off = hdgc.Problem(POISSON).solve(order=2, mesh="square:8", fields="off")
    assert rel(off.estimates["u"], eta) <= 1e-14 and off.indicators == {}
