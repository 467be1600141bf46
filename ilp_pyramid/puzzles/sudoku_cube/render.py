"""A Sudoku Cube's six faces as a net (U above F, D below, L F R B in a row): as text, and as
a PNG before and after, each digit turned the way its top points, with a small mark on that
side.

A 6 pointing down looks like a 9 pointing up; the mark tells them apart, as the underline
does on the physical cubes.
"""

from __future__ import annotations

from ilp_pyramid import figures
from ilp_pyramid.figures import pyplot
from ilp_pyramid.puzzles.sudoku_cube.geometry import FACES
from ilp_pyramid.puzzles.sudoku_cube.state import CubeState

# Where each face sits in the net, in face-sized steps (column, row from the top).
NET = {"U": (1, 0), "L": (0, 1), "F": (1, 1), "R": (2, 1), "B": (3, 1), "D": (1, 2)}
# Light tints of the usual sticker colours, so that dark digits read on all of them.
TINT = {"U": "#f7f7f7", "R": "#f4b6b6", "F": "#b8e0b8", "D": "#fbf3a8", "L": "#fad2a5",
        "B": "#b7cdf0"}
# Text rotation (degrees, counter-clockwise) for each direction ^ > v <.
ROTATION = (0, -90, 180, 90)
# Unit step towards the digit's top, in the picture (x right, y up), per direction.
TOWARDS = ((0, 1), (1, 0), (0, -1), (-1, 0))


def figure(before: CubeState, after: CubeState, directions: dict[str, str] | None = None,
           title: str = ""):
    fig, axes = pyplot().subplots(1, 2, figsize=(13, 5.4))
    _draw_net(axes[0], before, "before (given)")
    after_title = "after (solved)"
    if directions:
        after_title += ": " + ", ".join(f"{f} {directions[f]}" for f in FACES if f in directions)
    _draw_net(axes[1], after, after_title)
    if title:
        fig.suptitle(title, fontsize=12)
    return fig


def _draw_net(ax, state: CubeState, title: str) -> None:
    from matplotlib.patches import Polygon, Rectangle

    for face in FACES:
        col, row = NET[face]
        left, top = 3 * col, -3 * row
        for k, (digit, direction) in enumerate(state.face(face)):
            r, c = divmod(k, 3)
            x, y = left + c, top - r - 1
            ax.add_patch(Rectangle((x, y), 1, 1, facecolor=TINT[face], edgecolor="#555555",
                                   linewidth=0.6))
            cx, cy = x + 0.5, y + 0.5
            ax.text(cx, cy, str(digit), ha="center", va="center_baseline", fontsize=12,
                    rotation=ROTATION[direction], rotation_mode="anchor", color="#111111")
            dx, dy = TOWARDS[direction]
            tip = (cx + 0.46 * dx, cy + 0.46 * dy)
            side = (-dy * 0.09, dx * 0.09)
            base = (cx + 0.37 * dx, cy + 0.37 * dy)
            ax.add_patch(Polygon([tip, (base[0] + side[0], base[1] + side[1]),
                                  (base[0] - side[0], base[1] - side[1])], closed=True,
                                 facecolor="#333333", edgecolor="none"))
        ax.add_patch(Rectangle((left, top - 3), 3, 3, facecolor="none", edgecolor="#111111",
                               linewidth=1.8))
        ax.text(left + 0.06, top - 0.04, face, ha="left", va="top", fontsize=8,
                color="#444444", fontweight="bold")
    ax.set_xlim(-0.2, 12.2)
    ax.set_ylim(-9.4, 0.2)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title, fontsize=11)


def png_bytes(before: CubeState, after: CubeState, directions: dict[str, str] | None = None,
              title: str = "") -> bytes:
    return figures.png_bytes(figure(before, after, directions, title))


def net(state: CubeState, directions: dict[str, str] | None = None) -> str:
    """The six faces unfolded: U above F, D below, L F R B in a row."""
    width = 12

    def block(face: str) -> list[str]:
        title = face + (f" ({directions[face]})" if directions else "")
        tokens = state.face_tokens(face)
        return [title] + [" ".join(tokens[3 * r: 3 * r + 3]) for r in range(3)]

    lines = []
    for row in (["", "U"], ["L", "F", "R", "B"], ["", "D"]):
        blocks = [block(f) if f else [""] * 4 for f in row]
        for r in range(4):
            lines.append("".join(b[r].ljust(width) for b in blocks).rstrip())
    return "\n".join(lines)
