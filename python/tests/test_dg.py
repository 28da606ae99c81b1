"""A DG problem (examples/maxwell2d.hdg) with a step callback: the calls, the state it sees,
and stopping the run from it."""
import numpy as np
import pytest

import hdgc
from conftest import MAXWELL


@pytest.fixture
def maxwell():
    p = hdgc.Problem(MAXWELL)
    assert p.method == "DG"
    return p.set(mesh="square:4", order=2, final_time=0.2)


def test_step_callback_counts(maxwell):
    seen = []

    def on_step(s):
        seen.append((s.step, s.t, s.final, {k: v.copy() for k, v in s.fields.items()}, s.x))
    r = maxwell.on_step(on_step).solve()
    n = r.report["steps"]
    assert n > 3 and r.ok
    assert len(seen) == n + 1                       # the initial state and every step
    assert [s[0] for s in seen] == list(range(n + 1))
    assert [s[2] for s in seen].count(True) == 1 and seen[-1][2]
    assert seen[0][1] == 0 and abs(seen[-1][1] - 0.2) < 1e-14
    assert all(seen[i][1] < seen[i + 1][1] for i in range(n))
    final = seen[-1][3]
    assert set(final) == set(r.fields) and "Ez" in final
    assert np.array_equal(final["Ez"], r.fields["Ez"].values)
    assert np.array_equal(seen[-1][4], r.fields["Ez"].x)
    assert np.abs(final["Ez"]).max() > 0.1
    assert not np.array_equal(seen[0][3]["Ez"], final["Ez"])
    assert 0 < r.errors["Ez"] < 1e-2
    assert r.trace is None


def test_step_callback_every(maxwell):
    calls = []
    r = maxwell.on_step(lambda s: calls.append(s.step), every=5).solve()
    n = r.report["steps"]
    assert calls == list(range(0, n, 5)) + ([n] if n % 5 else [])
    maxwell.on_step(None)
    calls.clear()
    maxwell.solve()
    assert calls == []


def test_stop_from_callback(maxwell):
    maxwell.on_step(lambda s: s.step >= 3)
    with pytest.raises(hdgc.Error, match=r"stopped by the step callback \(1\)") as e:
        maxwell.solve()
    assert e.value.status == hdgc.Error(1, "").status and e.value.code == 1
    assert e.value.result is not None and not e.value.result.ok
    assert e.value.result.report["status"] == "failed"
    assert "step callback" in e.value.result.report["error"]["message"]
    maxwell.on_step(lambda s: 42 if s.step == 2 else None)
    with pytest.raises(hdgc.Error, match=r"\(42\)"):
        maxwell.solve()


def test_exception_in_callback_propagates(maxwell):
    def boom(s):
        if s.step == 2:
            raise ValueError("boom at step 2")
    maxwell.on_step(boom)
    with pytest.raises(ValueError, match="boom at step 2"):
        maxwell.solve()
    maxwell.on_step(None)
    assert maxwell.solve().ok
