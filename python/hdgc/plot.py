"""Result.plot: on triangles a field drawn with matplotlib's tripcolor, each element's lattice of
degree p cut into p^2 sub-triangles (Gouraud shading between the nodes); on tetrahedra the picture
of `hdgc run --png` (a section or the boundary surface) by the C API's hdgc_png_write."""
import os
import tempfile

import numpy as np

from . import lattice


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError("hdgc: Result.plot needs matplotlib (pip install matplotlib, or apt-get install "
                          f"python3-matplotlib): {e}") from None
    return plt


def triangulation(field):
    """x, y, values flattened and the (ne * p^2, 3) sub-triangles indexing them."""
    p, (ne, npe) = field.degree, field.values.shape
    pos = lattice.node_positions(field)
    sub = lattice.subtriangles(p)                                  # lattice indices
    tri = pos[:, sub] + (npe * np.arange(ne))[:, None, None]       # (ne, p^2, 3) flat node numbers
    return field.x.reshape(-1), field.y.reshape(-1), field.values.reshape(-1), tri.reshape(-1, 3)


def plot_field(field, ax=None, path=None, shading="gouraud", cmap="viridis", colorbar=True, dpi=100):
    plt = _pyplot()
    x, y, v, tri = triangulation(field)
    fig = None
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 5.6))
    coll = ax.tripcolor(x, y, tri, v, shading=shading, cmap=cmap)
    ax.set_aspect("equal")
    ax.set_title(f"{field.name} (degree {field.degree}, {field.ne} elements)")
    if colorbar:
        ax.figure.colorbar(coll, ax=ax)
    if path is not None:
        ax.figure.savefig(path, dpi=dpi)
        if fig is not None:
            plt.close(fig)
    return coll


def _caption(result, name):
    """hdgc run --png's caption: PROBLEM   FIELD   k = K   MESH   (NE elements)."""
    rep = result.report
    mesh = rep.get("mesh", {})
    src = str(mesh.get("source", "mesh"))
    src = src if src.startswith("square:") or "/" not in src else src.rsplit("/", 1)[1]
    deg = "k" if rep.get("method") == "HDG" else "N"
    return f"{rep.get('problem', '')}   {name}   {deg} = {rep.get('order', '?')}   {src}   " \
           f"({mesh.get('elements', result.fields[name].ne)} elements)"


def plot_png(result, name, ax=None, path=None, slice=None, size=None, edges=False):
    """Tetrahedra: the PNG of `hdgc run --png` of field `name` at path (a temporary file when
    None); shown with imshow in ax (or a new figure) when ax is given or path is None."""
    from .vtk import write_png
    tmp = None
    if path is None:
        fd, tmp = tempfile.mkstemp(prefix="hdgc-", suffix=".png")
        os.close(fd)
    try:
        out = write_png(path if tmp is None else tmp, result.fields[name], slice=slice, size=size, edges=edges,
                        caption=_caption(result, name))
        if ax is None and tmp is None:
            return out
        plt = _pyplot()
        img = plt.imread(out)
        if ax is None:
            _, ax = plt.subplots(figsize=(6.4, 6.4))
        im = ax.imshow(img)
        ax.set_axis_off()
        return im
    finally:
        if tmp is not None:
            os.unlink(tmp)
