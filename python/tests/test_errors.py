"""Every failure raises hdgc.Error with the library's status and message."""
import math

import numpy as np
import pytest

import hdgc
from conftest import POISSON, square_arrays


@pytest.fixture
def poisson():
    return hdgc.Problem(POISSON).set(order=1, mesh="square:2")


def test_error_class():
    assert issubclass(hdgc.Error, RuntimeError)


def test_bad_file():
    with pytest.raises(hdgc.Error, match="/nonexistent/x.hdg: cannot open") as e:
        hdgc.Problem("/nonexistent/x.hdg")
    assert e.value.status == "I/O error" and e.value.result is None


def test_syntax_error_names_file_line_col():
    src = "problem x\nmesh triangle\nparam k = = 2\n"
    with pytest.raises(hdgc.Error) as e:
        hdgc.Problem.from_string(src, name="bad.hdg")
    assert e.value.status == "input error"
    assert e.value.message.startswith("bad.hdg:3:") and "param k = = 2" in e.value.message
    assert "^" in e.value.message
    with pytest.raises(hdgc.Error, match=r"<string>:3:\d+:"):
        hdgc.Problem.from_string(src)


def test_unknown_param_did_you_mean(poisson):
    with pytest.raises(hdgc.Error, match="did you mean 'kappa'"):
        poisson.set(kapa=2)
    with pytest.raises(hdgc.Error, match="expected a number"):
        poisson.set_param("kappa", "2")
    with pytest.raises(hdgc.Error, match="did you mean 'kappa'"):
        poisson.set_param("kapa", 2)


def test_bad_options(poisson):
    for kw, msg in [({"order": 0}, "expected an integer between 1 and 20"),
                    ({"rtol": 1e-300}, "below the double precision epsilon"),
                    ({"size": "10x10"}, "expected WxH"),
                    ({"final_time": "soon"}, "final-time")]:
        with pytest.raises(hdgc.Error, match=msg):
            poisson.set(**kw)
    assert poisson.order == 1


def test_bad_mesh_arrays(poisson):
    xy = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], float)
    tri = np.array([[0, 1, 2], [1, 3, 2]])
    cases = [((xy, [[0, 1, 7], [1, 3, 2]]), "triangle 0 names vertex 7"),
             ((xy, [[0, 1, 1], [1, 3, 2]]), "element 0"),
             ((xy, tri, [[1, 2]], [1]), "1 of the 1 boundary edges are not boundary edges"),
             ((xy, tri, [[0, 1]], [3], ["a"]), "boundary edge 0 has marker 3"),
             ((np.where(np.arange(8).reshape(4, 2) == 5, math.nan, xy), tri), "vertex 2"),
             ((xy[:, :1], tri), r"vertices: expected shape \(n, 2\), got \(4, 1\)"),
             ((xy, tri.ravel()), r"triangles: expected shape \(n, 3\)"),
             ((xy, tri + 0.5), "triangles: expected integers"),
             ((xy, tri, [[0, 1]], None), "edges and markers go together"),
             ((xy, tri, [[0, 1]], [1, 2]), "1 edges but 2 markers"),
             ((xy, [[0, 1, 2**40], [1, 3, 2]]), "outside the C int range")]
    for args, msg in cases:
        with pytest.raises(hdgc.Error, match=msg) as e:
            poisson.set_mesh(*args)
        assert e.value.status == "input error"
    # the problem still solves with its mesh option after the refusals
    assert poisson.solve().report["mesh"]["elements"] == 8


def test_failed_solve_keeps_the_result(poisson):
    with pytest.raises(hdgc.Error, match="/nonexistent/m.msh") as e:
        poisson.solve(mesh="/nonexistent/m.msh")
    r = e.value.result
    assert e.value.status == "I/O error" and r is not None and not r.ok
    assert r.status == "I/O error" and r.fields == {} and r.trace is None
    assert r.report["status"] == "failed" and r.report["error"]["kind"] == "I/O error"
    assert "m.msh" in r.report["error"]["message"]
    assert poisson.solve(mesh=square_arrays(2)).ok


def test_closed_problem():
    p = hdgc.Problem(POISSON)
    with p:
        pass
    with pytest.raises(ValueError, match="closed"):
        p.solve()
