"""Tetrahedra through the package (issue 39.8): examples/maxwell3d.hdg on cube:2, its fields at
the returned (x, y, z) nodes against the exact cavity mode, the lattice of hdgc.lattice recovered
from them, the mesh as .vertices (nv, 3) and .tetrahedra (ne, 4), and that mesh given back with
Problem.set_mesh(tetrahedra=...) giving cube:2's errors; Result.to_vtk and Result.plot on
tetrahedra against hdgc run's --vtk and --png files."""
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


POISSON3D = os.path.join(ROOT, "examples", "poisson3d.hdg")


@pytest.mark.parametrize("fmt", ["ascii", "binary"])
def test_to_vtk_is_the_cli_file(cli, tmp_path, fmt):
    """Result.to_vtk on tetrahedra (through hdgc_vtk_write) writes hdgc run --vtk's file byte for
    byte: poisson3d (q one vector of 3 components, u, ustar, the cell field estimate_u; VTK
    Lagrange tetrahedra, type 71) and maxwell3d (E, H)."""
    r = hdgc.Problem(POISSON3D).solve(order=2, mesh="cube:2")
    mine, theirs = tmp_path / "py.vtu", tmp_path / "cli.vtu"
    assert r.to_vtk(mine, format=fmt) == mine
    cli("run", POISSON3D, "--order", "2", "--mesh", "cube:2", "--vtk", str(theirs), "--vtk-format", fmt)
    assert mine.read_bytes() == theirs.read_bytes()
    if fmt == "ascii":
        text = mine.read_text()
        assert 'Name="q" NumberOfComponents="3"' in text and 'Name="estimate_u"' in text
        assert '<Piece NumberOfPoints="960" NumberOfCells="48">' in text and " 71 " in text
    m = hdgc.Problem(MAXWELL3D).solve(order=2, mesh="cube:2", final_time=T)
    m.to_vtk(tmp_path / "m.vtu", format=fmt)
    cli("run", MAXWELL3D, "--order", "2", "--mesh", "cube:2", "--final-time", str(T), "--vtk",
        str(tmp_path / "mcli.vtu"), "--vtk-format", fmt)
    assert (tmp_path / "m.vtu").read_bytes() == (tmp_path / "mcli.vtu").read_bytes()


def test_plot_is_the_cli_png(cli, tmp_path):
    """Result.plot on tetrahedra (through hdgc_png_write) draws hdgc run --png's picture: the section
    z = 0.37 of ustar and its boundary surface (the field sampled from its lattice values, not its
    modes: measured 37 and 222 of 640000 pixels differ, by at most 3 levels); shown in matplotlib when asked; a slice on a 2D
    result and a plane outside the mesh are refused."""
    plt = pytest.importorskip("matplotlib.pyplot")
    r = hdgc.Problem(POISSON3D).solve(order=2, mesh="cube:2")
    for field, view in (("ustar", ["--slice", "z=0.37"]), ("ustar", [])):
        mine, theirs = tmp_path / f"py_{len(view)}.png", tmp_path / f"cli_{len(view)}.png"
        kw = {"slice": view[1]} if view else {}
        assert r.plot(field, path=mine, **kw) == os.fspath(mine)
        cli("run", POISSON3D, "--order", "2", "--mesh", "cube:2", "--png", str(theirs), "--field", field, *view)
        a, b = plt.imread(mine), plt.imread(theirs)
        assert a.shape == b.shape and a.shape[:2] == (800, 800)
        differ = np.abs(a - b).max(axis=-1)
        assert (differ > 0).mean() < 1e-3 and differ.max() <= 4 / 255, (field, (differ > 0).sum(), differ.max())
        assert len(np.unique(a.reshape(-1, a.shape[-1]), axis=0)) > 50   # a picture, not a blank
    im = r.plot("ustar", slice="x=0.5", size=(400, 300))
    assert im.get_array().shape[:2] == (300, 400)
    plt.close("all")
    with pytest.raises(hdgc.Error, match="plane|z"):
        r.plot("u", path=tmp_path / "x.png", slice="z=5")
    with pytest.raises(hdgc.Error, match="expected x=C, y=C or z=C"):
        r.plot("u", path=tmp_path / "x.png", slice="w=1")
    r2 = hdgc.Problem(os.path.join(ROOT, "examples", "poisson.hdg")).solve(order=1, mesh="square:2")
    with pytest.raises(hdgc.Error, match="this mesh is 2D"):
        r2.plot("u", path=tmp_path / "y.png", slice="z=0.5")


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
