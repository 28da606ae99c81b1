"""Tetrahedra through the package (issue 39.8): examples/maxwell3d.hdg on cube:2, its fields at
the returned (x, y, z) nodes against the exact cavity mode, the lattice of hdgc.lattice recovered
from them, the mesh as .vertices (nv, 3) and .tetrahedra (ne, 4), and that mesh given back with
Problem.set_mesh(tetrahedra=...) giving cube:2's errors."""
import os

import numpy as np
import pytest

import hdgc
from hdgc import lattice
from conftest import ROOT

MAXWELL3D = os.path.join(ROOT, "examples", "maxwell3d.hdg")
T = 0.2


def ex_exact(x, y, z, t):
    omega = np.pi * np.sqrt(3)
    return np.cos(np.pi * x) * np.sin(np.pi * y) * np.sin(np.pi * z) * np.cos(omega * t)


@pytest.fixture
def maxwell3d():
    return hdgc.Problem(MAXWELL3D).set(mesh="cube:2", order=2, final_time=T)


def ex_field(r):
    return next(f for n, f in r.fields.items() if n.startswith("E") and n.endswith("x"))


def test_fields_at_xyz(maxwell3d):
    r = maxwell3d.solve()
    f = ex_field(r)
    assert f.values.shape == (48, 10) and f.z is not None and f.z.shape == (48, 10)
    ex = ex_exact(f.x, f.y, f.z, T)
    rms = np.sqrt(np.mean((f.values - ex) ** 2))
    swapped = np.sqrt(np.mean((f.values - ex_exact(f.z, f.y, f.x, T)) ** 2))
    e = r.errors["E"]
    assert 0.1 * e < rms < 2 * e and swapped > 3 * rms, (rms, e, swapped)
    assert r.vertices.shape == (27, 3) and r.tetrahedra.shape == (48, 4) and r.triangles is None
    # the lattice's vertex nodes are the tetrahedra's vertices, and every node a lattice point
    p = f.degree
    corners = [0, p, lattice.size(p) - 1, lattice.tet_size(p) - 1]
    nodes = np.stack([f.x[:, corners], f.y[:, corners], f.z[:, corners]], axis=-1)
    assert np.abs(nodes - r.vertices[r.tetrahedra]).max() < 1e-15
    pos = lattice.node_positions(f)
    assert np.array_equal(pos, np.broadcast_to(np.arange(10), (48, 10)))
    ijk = lattice.tet_points(p)
    assert [lattice.tet_index(i, j, k, p) for i, j, k in ijk] == list(range(lattice.tet_size(p)))


def test_mesh_from_tetrahedra(maxwell3d):
    r1 = maxwell3d.solve()
    maxwell3d.set_mesh(r1.vertices, tetrahedra=r1.tetrahedra)
    r2 = maxwell3d.solve()
    assert r2.report["mesh"]["source"] == "arrays"
    for u in ("E", "H"):
        assert r1.errors[u] > 0 and abs(r1.errors[u] - r2.errors[u]) <= 1e-12 * r1.errors[u]
    assert np.array_equal(r2.tetrahedra.shape, (48, 4))


def test_step_state_z(maxwell3d):
    seen = []
    maxwell3d.on_step(lambda s: seen.append((s.z is not None and s.z.shape == s.fields["E_x"].shape, s.final)),
                      every=1000)
    r = maxwell3d.solve()
    assert r.ok and len(seen) == 2 and all(ok for ok, _ in seen) and seen[-1][1]


def test_vtk_and_plot_refused(maxwell3d, tmp_path):
    r = maxwell3d.solve()
    with pytest.raises(hdgc.Error, match="writes triangles only"):
        r.to_vtk(str(tmp_path / "x.vtu"))
    with pytest.raises(hdgc.Error, match="draws triangles only"):
        r.plot("E_x")
    path = tmp_path / "s.vtu"
    assert maxwell3d.solve(vtk=str(path)).ok and path.exists()


def test_hdg_fields_at_xyz():
    """HDG on tetrahedra: poisson3d's ustar at the (x, y, z) nodes against uex."""
    p = hdgc.Problem(os.path.join(ROOT, "examples", "poisson3d.hdg")).set(mesh="cube:2", order=2)
    r = p.solve()
    f = r.fields["ustar"]
    assert f.z is not None and f.values.shape == (48, 20) and r.tetrahedra.shape == (48, 4)
    exact = np.exp(f.x) * np.cos(2 * f.y) + f.x ** 2 * f.y * f.z
    rms = np.sqrt(np.mean((f.values - exact) ** 2))
    assert r.errors["ustar"] < rms < 5 * r.errors["ustar"], (rms, r.errors["ustar"])
    assert np.array_equal(lattice.node_positions(f), np.broadcast_to(np.arange(20), (48, 20)))
