"""Problem.summary, .unknowns, .ir(), .source(): what `hdgc check`, `ir` and `emit` print."""
import os

import pytest

import hdgc

POISSON = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "poisson.hdg")


def test_summary_and_unknowns():
    p = hdgc.Problem(POISSON)
    assert p.summary.startswith("problem poisson (")
    assert "method: HDG" in p.summary
    assert "trace-trace" in p.summary
    assert p.unknowns == [("q", True), ("u", True), ("uhat", False), ("ustar", True)]


def test_ir_and_source_follow_the_order():
    p = hdgc.Problem(POISSON)
    p.set(order=2)
    ir = p.ir()
    assert "kernel poisson_local (per element)" in ir
    assert "out Ke[9][9]" in ir                     # 3 faces x (k + 1) trace modes at k = 2
    c = p.source("c")
    assert "void poisson_local(long long begin, long long end, const hdg_kargs *a)" in c
    assert "__global__" in p.source("cuda")
    with pytest.raises(hdgc.Error, match="unknown backend 'fortran'"):
        p.source("fortran")


HEAT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "heat.hdg")


def test_transient_hdg():
    """examples/heat.hdg: HDG with dt() terms, solved by its BDF3 steps like any problem."""
    p = hdgc.Problem(HEAT)
    assert p.method == "HDG" and p.transient
    assert not hdgc.Problem(POISSON).transient
    r = p.solve(mesh="square:4", step=0.05)
    assert r.report["time"]["method"] == "bdf3"
    assert r.report["time"]["steps"] == 10
    assert 1e-6 < r.errors["u"] < 1e-3
    assert r.report["errors_max_in_time"]["u"] >= r.errors["u"]


def test_transient_hdg_steps():
    """on_step on HDG with dt(): the states after steps 3, 6, 9 and the final one, u* in each;
    a true return stops the run."""
    p = hdgc.Problem(HEAT)
    seen = []
    p.on_step(lambda s: seen.append((s.step, round(s.t, 9), s.final, sorted(s.fields))), every=3)
    r = p.solve(mesh="square:4", step=0.05)
    assert [x[:3] for x in seen] == [(3, 0.15, False), (6, 0.3, False), (9, 0.45, False), (10, 0.5, True)]
    assert all(x[3] == ["q_x", "q_y", "u", "ustar"] for x in seen)
    assert r.errors["u"] < 1e-3
    p.on_step(lambda s: s.step == 6, every=3)
    with pytest.raises(hdgc.Error, match="stopped by the step callback"):
        p.solve(mesh="square:4", step=0.05)


def test_transient_hdg_steps_on_the_device(monkeypatch):
    """The same callbacks and errors with --backend cuda (the emulator: HDGC_LIBCUDA=emulator)."""
    monkeypatch.setenv("HDGC_LIBCUDA", "emulator")
    host, dev = [], []
    for backend, seen in (("c", host), ("cuda", dev)):
        p = hdgc.Problem(HEAT)
        p.on_step(lambda s, seen=seen: seen.append((s.step, round(s.t, 9), s.final)), every=4)
        r = p.solve(mesh="square:4", step=0.05, backend=backend)
        seen.append(r.errors["u"])
    assert host[:-1] == dev[:-1] == [(4, 0.2, False), (8, 0.4, False), (10, 0.5, True)]
    assert abs(host[-1] - dev[-1]) <= 1e-9 * host[-1]
