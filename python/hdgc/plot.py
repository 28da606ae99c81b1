"""Result.plot: a field drawn with matplotlib's tripcolor, each element's lattice of degree p
cut into p^2 sub-triangles (Gouraud shading between the nodes)."""
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
