"""A PNG of a views answer: the three given views beside the minimum placement as voxels.

The views are drawn as the spec reads them (top: back row first; front and side: top row
first; the side seen from the right, so the front is on its left). In the 3-D panel the
front faces the viewer's left and the right side the viewer's right, as a person standing
front-right of the grid sees it.
"""

from __future__ import annotations

import numpy as np

from ilp_pyramid import figures
from ilp_pyramid.figures import pyplot
from ilp_pyramid.puzzles.views.geometry import Views

SET, CLEAR, EDGE = "#3b6ea5", "#eeeeee", "#333333"
CUBE = "#f2a541"
TITLES = ("top (back row up)", "front", "side, from the right")


def figure(views: Views, placement: np.ndarray, title: str = ""):
    """Three view panels, then a 3-D axes with one voxel per cube of `placement` [z, y, x]."""
    plt = pyplot()
    n = views.n
    fig = plt.figure(figsize=(12, 3.6))
    grid = fig.add_gridspec(1, 4, width_ratios=[1, 1, 1, 1.6], wspace=0.25)
    for k, (view, name) in enumerate(zip((views.top, views.front, views.side), TITLES,
                                         strict=True)):
        _draw_view(fig.add_subplot(grid[0, k]), view, name)
    ax = fig.add_subplot(grid[0, 3], projection="3d")
    placement = np.asarray(placement, dtype=bool)
    # [z, y, x] with z = 0 on top and y = 0 at the back -> matplotlib's [x, y, z], z up and
    # the front at small y (towards the default camera).
    filled = placement[::-1, ::-1, :].transpose(2, 1, 0)
    ax.voxels(filled, facecolors=CUBE, edgecolors=EDGE, linewidth=0.5)
    ax.set_xlim(0, n)
    ax.set_ylim(0, n)
    ax.set_zlim(0, n)
    ax.set_box_aspect((1, 1, 1))
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):  # a unit grid, without numbers
        axis.set_ticks(range(n + 1))
        axis.set_ticklabels([])
    ax.tick_params(length=0)
    ax.set_xlabel("left to right", fontsize=8, labelpad=-10)
    ax.set_ylabel("front to back", fontsize=8, labelpad=-10)
    ax.view_init(elev=25, azim=-55)
    ax.set_title(f"minimum: {int(placement.sum())} cubes", fontsize=10)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


def _draw_view(ax, view: np.ndarray, title: str) -> None:
    from matplotlib.patches import Rectangle

    n = view.shape[0]
    for row in range(n):
        for col in range(n):
            ax.add_patch(Rectangle((col, n - 1 - row), 1, 1, edgecolor=EDGE, linewidth=0.8,
                                   facecolor=SET if view[row, col] else CLEAR))
    ax.set_xlim(-0.05, n + 0.05)
    ax.set_ylim(-0.05, n + 0.05)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title, fontsize=10)


def png_bytes(views: Views, placement: np.ndarray, title: str = "") -> bytes:
    return figures.png_bytes(figure(views, placement, title))
