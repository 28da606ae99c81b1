"""Result.to_vtk (a .vtu that hdgc's own --vtk output agrees with) and Result.plot (a PNG)."""
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import hdgc
from hdgc import lattice
from conftest import MAXWELL, POISSON


def read_vtu(path):
    """(points, cells, {name: array}) of an ASCII .vtu, checking its structure and counts (point
    data: a value per point; cell data: a value per cell)."""
    root = ET.parse(path).getroot()
    assert root.tag == "VTKFile" and root.get("type") == "UnstructuredGrid"
    piece = root.find("UnstructuredGrid/Piece")
    npts, ncells = int(piece.get("NumberOfPoints")), int(piece.get("NumberOfCells"))
    arrays, per_cell = {}, set()
    for da in piece.findall("CellData/DataArray"):
        per_cell.add(da.get("Name"))
    for da in piece.iter("DataArray"):
        assert da.get("format") == "ascii"
        dtype = float if da.get("type") == "Float64" else int
        a = np.array(da.text.split(), dtype=dtype)
        arrays[da.get("Name")] = a.reshape(-1, int(da.get("NumberOfComponents"))) if da.get("Name") != "Points" and \
            da.get("NumberOfComponents") else a
    pts = arrays.pop("Points").reshape(-1, 3)
    conn, offs, types = arrays.pop("connectivity"), arrays.pop("offsets"), arrays.pop("types")
    assert pts.shape == (npts, 3) and len(offs) == len(types) == ncells
    assert offs[-1] == len(conn) and np.all(np.diff(offs, prepend=0) > 0)
    assert conn.min() >= 0 and conn.max() < npts
    for name, a in arrays.items():
        assert len(a) == (ncells if name in per_cell else npts), name
    return pts, (conn, offs, types), arrays


def test_lattice_orders():
    assert lattice.vtk_order(1).tolist() == [0, 1, 2]
    # p = 2: vertices (0,0), (2,0), (0,2), then the midpoints of v0-v1, v1-v2, v2-v0
    assert lattice.vtk_order(2).tolist() == [0, 2, 5, 1, 4, 3]
    # p = 3: vertices, two points on each edge in its direction, the centre
    assert lattice.vtk_order(3).tolist() == [0, 3, 9, 1, 2, 6, 8, 7, 4, 5]
    for p in range(1, 9):
        assert sorted(lattice.vtk_order(p).tolist()) == list(range(lattice.size(p)))
        sub = lattice.subtriangles(p)
        assert sub.shape == (p * p, 3) and set(sub.ravel().tolist()) == set(range(lattice.size(p)))


@pytest.mark.parametrize("order,mesh,ne", [(1, "square:2", 8), (2, "square:2", 8), (4, "square:3,perturb=0.3", 18)])
def test_to_vtk_matches_hdgc_vtk(cli, tmp_path, order, mesh, ne):
    mine, theirs = tmp_path / "py.vtu", tmp_path / "cli.vtu"
    r = hdgc.Problem(POISSON).solve(order=order, mesh=mesh)
    assert r.to_vtk(mine, format="ascii") == mine
    cli("run", POISSON, "--order", str(order), "--mesh", mesh, "--vtk", str(theirs), "--vtk-format", "ascii")
    p1, c1, a1 = read_vtu(mine)
    p2, c2, a2 = read_vtu(theirs)
    npe = r.fields["u"].npe
    assert len(p1) == ne * npe and len(c1[1]) == ne
    assert np.array_equal(c1[0], np.arange(ne * npe))   # consecutive
    assert set(c1[2].tolist()) == {69}
    assert np.array_equal(c1[0], c2[0]) and np.array_equal(c1[1], c2[1]) and np.array_equal(c1[2], c2[2])
    assert np.abs(p1 - p2).max() < 1e-14
    assert set(a1) == set(a2) == {"u", "q", "ustar", "estimate_u"}
    assert a1["q"].shape == (ne * npe, 3) and not a1["q"][:, 2].any()   # q as one vector, z = 0
    assert np.array_equal(a1["estimate_u"], r.indicators["u"]) and len(a1["estimate_u"]) == ne
    for name in a1:
        assert np.abs(a1[name] - a2[name]).max() <= 1e-13 * np.abs(a2[name]).max(), name


def test_to_vtk_binary_meshio(cli, tmp_path):
    """The default binary file, read back by meshio (an independent reader), holds the ASCII
    file's values bit for bit, and so does hdgc run's."""
    meshio = pytest.importorskip("meshio")
    r = hdgc.Problem(POISSON).solve(order=3, mesh="square:3")
    b, a, c = r.to_vtk(tmp_path / "b.vtu"), r.to_vtk(tmp_path / "a.vtu", format="ascii"), tmp_path / "c.vtu"
    cli("run", POISSON, "--order", "3", "--mesh", "square:3", "--vtk", str(c))
    mb, mc = meshio.read(b), meshio.read(c)
    pts, _, arrays = read_vtu(a)
    assert np.array_equal(mb.points, pts) and np.abs(mc.points - pts).max() < 1e-14
    for name in ("u", "q", "ustar"):
        assert np.array_equal(mb.point_data[name], arrays[name]), name
        assert np.abs(mc.point_data[name] - arrays[name]).max() <= 1e-13 * np.abs(arrays[name]).max(), name
    assert mb.point_data["q"].shape == (len(pts), 3)
    assert np.array_equal(mb.cell_data["estimate_u"][0], arrays["estimate_u"])
    with pytest.raises(hdgc.Error, match="expected 'binary' or 'ascii'"):
        r.to_vtk(tmp_path / "x.vtu", format="hdf5")


def test_to_vtk_dg_degree_1(tmp_path):
    r = hdgc.Problem(MAXWELL).solve(order=1, mesh="square:2", final_time=0.05)
    assert r.fields["Ez"].degree == 1
    pts, (conn, offs, types), arrays = read_vtu(r.to_vtk(tmp_path / "ez.vtu", fields=["Ez"], format="ascii"))
    assert set(types.tolist()) == {5} and list(arrays) == ["Ez"] and len(pts) == 3 * len(types)
    assert np.array_equal(arrays["Ez"], r.fields["Ez"].values.ravel())   # p = 1: vertex order is lattice order


def test_plot_png(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    r = hdgc.Problem(POISSON).solve(order=3, mesh="square:4")
    png = tmp_path / "u.png"
    coll = r.plot("u", path=png)
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    # 32 elements cut into 4^2 sub-triangles each (u is sampled at degree k + 1)
    assert coll.get_array().size == 32 * lattice.size(4)
    with pytest.raises(KeyError, match="the fields are"):
        r.plot("nothing")
