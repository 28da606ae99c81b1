"""A nonlinear HDG problem (examples/nonlinear_diffusion.hdg, Newton) through Problem.solve:
the newton.* report keys, the same numbers as `hdgc run`, the step limit as an Error with
the report, and the newton_* options refused on a linear problem."""
import os

import pytest

import hdgc
from conftest import POISSON, ROOT

ND = os.path.join(ROOT, "examples", "nonlinear_diffusion.hdg")


def test_newton_solve_matches_cli(cli):
    want = cli("run", ND, "--mesh", "square:4", "--order", "2")
    p = hdgc.Problem(ND)
    assert p.nonlinear and not hdgc.Problem(POISSON).nonlinear
    r = p.solve(order=2, mesh="square:4", newton_max_steps=12, newton_check="on")
    nw = r.report["newton"]
    # from u = 0 with kappa(u) up to 14.7: 6 steps measured, the last quadratic (C 0.03)
    assert nw["converged"] and 3 <= nw["steps"] <= 8
    assert len(nw["residuals"]) == nw["steps"] + 1 and len(nw["alphas"]) == nw["steps"]
    assert len(nw["check_1e-4"]) == nw["steps"]
    assert 0 < nw["quadratic_constant"] < 5
    assert nw["residuals"] == pytest.approx(want["newton"]["residuals"], rel=1e-8, abs=1e-12)
    for u, e in want["errors"].items():
        assert abs(r.errors[u] - e) <= 1e-12 * e, (u, r.errors[u], e)
    assert r.errors["u"] < 2e-3


def test_newton_step_limit_and_linear_refusal():
    p = hdgc.Problem(ND)
    with pytest.raises(hdgc.Error, match=r"Newton did not converge in 1 steps .*residual history") as e:
        p.solve(mesh="square:4", newton_max_steps=1)
    assert e.value.result is not None and e.value.result.report["newton"]["converged"] is False
    with pytest.raises(hdgc.Error, match=r"--newton-rtol applies to nonlinear HDG problems \(Newton\); "
                                         r"problem 'poisson_exp' is linear"):
        hdgc.Problem(POISSON).solve(mesh="square:2", newton_rtol=1e-8)


NH = os.path.join(ROOT, "examples", "nonlinear_heat.hdg")


def test_newton_in_time_steps_matches_cli(cli):
    """examples/nonlinear_heat.hdg (dt() terms): Newton at every time step, the same numbers as
    `hdgc run`; the step limit names the time step."""
    want = cli("run", NH, "--mesh", "square:4", "--final-time", "0.2")
    r = hdgc.Problem(NH).solve(mesh="square:4", final_time=0.2)
    nw = r.report["newton"]
    # 10 steps of BDF2 (the first two SDIRK2 stages): 3 Newton steps per step measured, 6 the first
    assert nw["converged"] and len(nw["steps_per_time_step"]) == 10 == r.report["time"]["steps"]
    assert sum(nw["steps_per_time_step"]) == nw["steps"] and max(nw["steps_per_time_step"][1:]) <= 4
    assert nw["steps_per_time_step"] == want["newton"]["steps_per_time_step"]
    for u, e in want["errors"].items():
        assert abs(r.errors[u] - e) <= 1e-12 * e, (u, r.errors[u], e)
    with pytest.raises(hdgc.Error, match=r"Newton at time step 1 \(the solve at t = 0\.00585786\) did not "
                                         r"converge in 1 steps .*residual history") as e:
        hdgc.Problem(NH).solve(mesh="square:4", newton_max_steps=1)
    assert e.value.result is not None and e.value.result.report["newton"]["converged"] is False


def test_newton_snes_matches_cli(cli):
    """newton="snes" (PETSc's SNES owns the iteration, J^-1 by static condensation as its
    preconditioner): the same steps and errors as `hdgc run --newton snes`, the errors of hdgc's
    loop (from this hard start the line searches differ: bt's first step 0.35, then full steps,
    7 steps; the loop's halving 1/2, 1/2, 6 steps)."""
    want = cli("run", ND, "--mesh", "square:4", "--newton", "snes")
    r = hdgc.Problem(ND).solve(mesh="square:4", newton="snes", petsc="-snes_linesearch_type bt")
    own = hdgc.Problem(ND).solve(mesh="square:4")
    nw = r.report["newton"]
    assert nw["method"] == "snes" and nw["reason"].startswith("CONVERGED") and nw["linesearch"] == "bt"
    assert nw["steps"] == want["newton"]["steps"] and 3 <= nw["steps"] <= 9
    assert nw["alphas"][0] < 1 and nw["residuals"] == pytest.approx(want["newton"]["residuals"], rel=1e-8, abs=1e-12)
    for u, e in own.errors.items():
        assert abs(r.errors[u] - e) <= 1e-10 * e, (u, r.errors[u], e)
        assert abs(want["errors"][u] - e) <= 1e-10 * e, (u, want["errors"][u], e)
