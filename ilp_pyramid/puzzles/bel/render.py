"""A PNG of a solved pyramid: the 3-D view with every visible face labelled, and the levels
from the top down as grids of cells.

The spec's axes (x right, y towards the front, h up) are left-handed; matplotlib's are not,
so y is drawn negated: the picture is the pyramid itself, not its mirror image, and seen from
above it matches Knuth's drawing (x to the right, the front at the bottom).
"""

from __future__ import annotations

import math

from ilp_pyramid import figures
from ilp_pyramid.figures import pyplot
from ilp_pyramid.puzzles.bel.faces import label_colour, text_colour, visible_faces
from ilp_pyramid.puzzles.bel.solution import BelSolution

EDGE = "#222222"
# Inside a level's cell: the top face (label facing z) fills the square, the right strip is
# the label facing x, the bottom (front) strip the label facing y, like a cube seen from the
# front-right above.
STRIP = 0.3


def figure(solution: BelSolution):
    """The matplotlib figure (Agg): a 3-D axes first, then one axes per level, top first."""
    plt = pyplot()
    from matplotlib.patches import Patch


    n, base = solution.n, solution.base
    camera = Camera()
    corners = [camera.screen(p) for face in visible_faces(solution) for p in face.corners]
    us, vs = [c[0] for c in corners], [c[1] for c in corners]
    width = max(7.0, 1.05 * base + 2.5)
    top_height = width * (max(vs) - min(vs)) / (max(us) - min(us))
    level_height = min(width * 0.8 * base / (n * n), width * 0.35) + 0.3
    fig = plt.figure(figsize=(width, top_height + level_height + 0.9))
    grid = fig.add_gridspec(2, n, height_ratios=[top_height, level_height],
                            width_ratios=[2 * k + 1 for k in range(n)], hspace=0.05, wspace=0.15,
                            left=0.02, right=0.98, top=0.94, bottom=0.05)
    ax3d = fig.add_subplot(grid[0, :])
    _draw_3d(ax3d, solution, camera)
    labels = range(2 * n - 1)
    ax3d.legend(handles=[Patch(facecolor=label_colour(k), edgecolor=EDGE, label=f"label {k}")
                         for k in labels],
                loc="upper left", bbox_to_anchor=(0.0, 1.0), fontsize=9, frameon=False,
                ncols=1 if n <= 4 else 2)
    for level in range(n):
        _draw_level(fig.add_subplot(grid[1, level]), solution, level)
    count = n * (4 * n * n - 1) // 3
    fig.suptitle(f"Bel's Pyramid N={n}: {_plural(len(labels), 'label')}, "
                 f"{_plural(count, 'cube')}, each used once", fontsize=12)
    fig.text(0.5, 0.015, "levels from the top; each cell: top = label facing z (Z line), "
             "right strip = facing x (Y line), bottom strip = facing y (X line)",
             ha="center", fontsize=8)
    return fig


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _draw_3d(ax, solution: BelSolution, camera: Camera) -> None:
    """Own orthographic projection and painter's order: matplotlib's 3-D axes draws text over
    everything, so a label behind a taller step would show through it."""
    from matplotlib.patches import Polygon

    faces = sorted(visible_faces(solution), key=lambda f: (sum(f.cell), f.axis))
    size = 13 if solution.base <= 5 else 10 if solution.base <= 9 else 7
    for order, face in enumerate(faces):
        colour = label_colour(face.label)
        ax.add_patch(Polygon([camera.screen(p) for p in face.corners], closed=True,
                             facecolor=colour, edgecolor=EDGE, linewidth=0.7,
                             zorder=2 * order + 1))
        u, v = camera.screen(camera.label_point(face, solution))
        ax.text(u, v, str(face.label), ha="center", va="center", fontsize=size,
                fontweight="bold", color=text_colour(colour), zorder=2 * order + 2)
    ax.set_aspect("equal")
    ax.autoscale_view()
    ax.axis("off")


class Camera:
    """An orthographic camera above the front-right: `elevation` above the ground, turned
    `turn` degrees from straight in front towards the right."""

    def __init__(self, elevation: float = 55.0, turn: float = 40.0):
        el, phi = math.radians(elevation), math.radians(turn)
        # towards the camera, in the spec's (x, y, h)
        self.towards = (math.cos(el) * math.sin(phi), math.cos(el) * math.cos(phi), math.sin(el))
        self.right = (math.cos(phi), -math.sin(phi), 0.0)
        self.up = (-math.sin(el) * math.sin(phi), -math.sin(el) * math.cos(phi), math.cos(el))

    def screen(self, point) -> tuple[float, float]:
        return (sum(a * b for a, b in zip(point, self.right, strict=True)),
                sum(a * b for a, b in zip(point, self.up, strict=True)))

    def label_point(self, face, solution: BelSolution) -> tuple[float, float, float]:
        """The centre of the part of the face that the camera sees: a top face behind a
        taller step is partly hidden, and its label must sit on what is left."""
        if face.axis != "z":
            return face.centre  # front and right faces are never hidden (see faces.py)
        x0, y0, top = face.corners[0]
        seen = [(x0 + (i + 0.5) / 8, y0 + (j + 0.5) / 8) for i in range(8) for j in range(8)]
        seen = [(x, y) for x, y in seen if not self._hidden((x, y, top), solution)]
        if not seen:  # pragma: no cover - every top face shows at this elevation
            return face.centre
        return (sum(p[0] for p in seen) / len(seen), sum(p[1] for p in seen) / len(seen), top)

    def _hidden(self, point, solution: BelSolution) -> bool:
        base, n = solution.base, solution.n
        dx, dy, dz = self.towards
        step = 0.05
        x, y, z = point
        while z < n:
            x, y, z = x + dx * step, y + dy * step, z + dz * step
            i, j = math.floor(x), math.floor(y)
            if 0 <= i < base and 0 <= j < base and z < min(i + 1, base - i, j + 1, base - j):
                return True
        return False


def _draw_level(ax, solution: BelSolution, level: int) -> None:
    from matplotlib.patches import Rectangle

    n, base = solution.n, solution.base
    h = n - 1 - level
    size = 10 if base <= 5 else 8 if base <= 9 else 6
    for y in range(h, base - h):
        for x in range(h, base - h):
            top = solution.label("Z", x, y)
            right = solution.label("Y", y, h)
            front = solution.label("X", x, h)
            inner = 1 - STRIP
            parts = ((x, -y - inner, inner, inner, top, size),
                     (x + inner, -y - inner, STRIP, inner, right, size - 3),
                     (x, -y - 1, inner, STRIP, front, size - 3))
            for left, bottom, w, hgt, label, fontsize in parts:
                colour = label_colour(label)
                ax.add_patch(Rectangle((left, bottom), w, hgt, facecolor=colour,
                                       edgecolor=EDGE, linewidth=0.5))
                ax.text(left + w / 2, bottom + hgt / 2, str(label), ha="center",
                        va="center", fontsize=fontsize, color=text_colour(colour))
    ax.set_xlim(h - 0.1, base - h + 0.1)
    ax.set_ylim(-(base - h) - 0.1, -h + 0.1)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(f"level {level} (h={h})", fontsize=9)


def png_bytes(solution: BelSolution, dpi: int = 110) -> bytes:
    return figures.png_bytes(figure(solution), dpi)
