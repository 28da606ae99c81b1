"""Inputs a careless or hostile caller gives (issue 38): strings with a NUL byte, a step callback
that changes or closes its own problem, bytes that are not UTF-8 in a report."""
import os

import pytest

import hdgc
from conftest import POISSON, ROOT

HEAT = os.path.join(ROOT, "examples", "heat.hdg")
SQUARE16 = os.path.join(ROOT, "tests", "data", "square16_v22.msh")


# ------------------------------------------------------------ NUL bytes (C would cut the string there)

@pytest.mark.parametrize("call, what", [
    (lambda: hdgc.Problem(POISSON + "\0.junk"), "hdgc.Problem: the path"),
    (lambda: hdgc.Problem.from_string("problem x\0 junk"), "from_string: the text"),
    (lambda: hdgc.Problem.from_string("problem x\n", name="a\0b"), "from_string: the name"),
    (lambda: hdgc.Problem(POISSON).set_option("mesh", "square:4\0,refine=3"), "option mesh: the value"),
    (lambda: hdgc.Problem(POISSON).set(mesh="square:4\0,refine=3"), "option mesh: the value"),
    (lambda: hdgc.Problem(POISSON).solve(mesh="square:2\0,refine=9"), "option mesh: the value"),
    (lambda: hdgc.Problem(POISSON).set_option("solver\0x", "cg"), "set_option: the name"),
    (lambda: hdgc.Problem(POISSON).set(**{"kappa\0": 2}), "set_option: the name"),
    (lambda: hdgc.Problem(POISSON).set_param("kappa\0x", 2), "set_param: the name"),
    (lambda: hdgc.Problem(POISSON).source(backend="c\0uda"), "source: backend"),
    (lambda: hdgc.convergence(POISSON, orders=(1,), meshes=(2,), mesh_options="perturb=0.1\0,refine=5"),
     "option mesh: the value"),
])
def test_nul_byte_refused(call, what):
    with pytest.raises(hdgc.Error, match="NUL byte") as e:
        call()
    assert what in e.value.message and e.value.status == "input error", e.value.message


def test_nul_in_marker_name_refused():
    from conftest import square_arrays
    xy, tri, edges, markers = square_arrays(2)
    names = list(dict.fromkeys(markers))
    ids = [names.index(m) + 1 for m in markers]
    names[1] = "right\0side"
    with pytest.raises(hdgc.Error, match="set_mesh: marker name 2: holds a NUL byte"):
        hdgc.Problem(POISSON).set_mesh(xy, tri, edges, ids, names)


def test_path_not_utf8(tmp_path):
    """A path whose name is not UTF-8 (os.fsdecode gives surrogates) reaches the file: it
    raised UnicodeEncodeError."""
    d = os.fsencode(str(tmp_path))
    path = os.path.join(d, b"m\xff.msh")
    with open(SQUARE16, "rb") as f, open(path, "wb") as g:
        g.write(f.read())
    r = hdgc.Problem(POISSON).solve(order=1, mesh=os.fsdecode(path))
    assert r.ok and r.report["mesh"]["elements"] == 16
    assert r.report["mesh"]["source"].endswith("m\\xFF.msh"), r.report["mesh"]["source"]
    r = hdgc.Problem(POISSON).solve(order=1, mesh=path)   # bytes
    assert r.ok and r.report["mesh"]["elements"] == 16


# ------------------------------------------------------------ a report that is not UTF-8

def test_marker_not_utf8_gives_hdgc_error(tmp_path):
    """A Gmsh marker name that is not UTF-8 in the message of a failed solve: the report was not
    UTF-8 and Result raised UnicodeDecodeError instead of hdgc.Error."""
    with open(SQUARE16, "rb") as f:
        data = f.read().replace(b'"left"', b'"left\xff"')
    mesh = tmp_path / "m.msh"
    mesh.write_bytes(data)
    src = open(POISSON).read().replace("on all", "on left")
    with pytest.raises(hdgc.Error) as e:
        hdgc.Problem.from_string(src, name="p.hdg").solve(order=1, mesh=str(mesh))
    assert e.value.result is not None
    msg = e.value.result.report["error"]["message"]
    assert "did you mean 'left\\xFF'?" in msg, msg
    assert "did you mean 'left" in e.value.message


# ------------------------------------------------------------ a step callback calling back in

def heat():
    return hdgc.Problem(HEAT).set(mesh="square:2", order=1, final_time=0.03)


@pytest.mark.parametrize("call", [
    lambda p: p.set(kappa=2.0),
    lambda p: p.set_param("kappa", 2.0),
    lambda p: p.set_option("order", 2),
    lambda p: p.set(mesh="square:3"),
    lambda p: p.set_mesh([[0, 0], [1, 0], [0, 1]], [[0, 1, 2]]),
    lambda p: p.on_step(None),
    lambda p: p.solve(),
    lambda p: p.close(),
])
def test_step_callback_cannot_change_its_problem(call):
    """set/set_option/set_param/set_mesh/on_step/solve/close from the step callback: the solve
    used what they freed (SIGSEGV, the interpreter killed). Now hdgc.Error, raised by solve."""
    p = heat()
    seen = []

    def cb(state):
        seen.append(state.step)
        call(p)
    p.on_step(cb)
    with pytest.raises(hdgc.Error, match="the problem is being solved") as e:
        p.solve()
    assert seen == [1], seen
    assert e.value.status == "input error"
    assert p.order == 1 and p.name == "heat"   # as it was, and still open
    p.on_step(None)
    r = p.solve()
    assert r.ok and r.report["time"]["steps"] == 3, r.report.get("time")
    p.close()
