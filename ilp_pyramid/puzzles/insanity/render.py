"""Pictures of a tower: a text table, an SVG of the four long sides unrolled, and the same
as PNG where matplotlib is installed (the `pictures` extra)."""

from __future__ import annotations

import colorsys
import html
import io

from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.insanity import geometry
from ilp_pyramid.puzzles.insanity.instance import Instance, Tower

FORMATS = ("text", "svg", "png")
# The commercial set's letters get their own colours; any other colour a hue of its own.
NAMED = {"R": "#d62728", "G": "#2ca02c", "B": "#1f77b4", "Y": "#f2c80f", "W": "#f4f4f4",
         "O": "#ff7f0e", "P": "#9467bd", "K": "#333333"}
_COLUMNS = (*geometry.SIDES, geometry.TOP, geometry.BOTTOM)
_HEADINGS = tuple(geometry.FACES[p] for p in _COLUMNS)


def palette(colours: tuple[str, ...]) -> dict[str, str]:
    """Colour name -> hex fill: the named ones as themselves, the others evenly spread hues."""
    others = [c for c in colours if c.upper() not in NAMED or len(c) != 1]
    fills = {c: NAMED[c.upper()] for c in colours if c not in others}
    for k, colour in enumerate(others):
        r, g, b = colorsys.hls_to_rgb(k / max(len(others), 1), 0.55, 0.65)
        fills[colour] = f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"
    return fills


def _grid(instance: Instance, tower: Tower | None) -> list[list[str]]:
    """Per cube (top of the tower first), the colours at front, right, back, left, top,
    bottom; the cube as given when there is no tower."""
    rows = []
    for k, cube in enumerate(instance.cubes):
        placement = tower.placements[k] if tower is not None else geometry.IDENTITY
        rows.append([cube[placement[p]] for p in _COLUMNS])
    return rows


def text(instance: Instance, tower: Tower | None) -> str:
    rows = _grid(instance, tower)
    width = max(6, *(len(c) for c in instance.colours))
    head = "cube  " + " ".join(f"{h:<{width}}" for h in _HEADINGS[:4]) + " | " + \
        " ".join(f"{h:<{width}}" for h in _HEADINGS[4:])
    lines = [head.rstrip()]
    for k, row in enumerate(rows, 1):
        lines.append((f"{k:>4}  " + " ".join(f"{c:<{width}}" for c in row[:4]) + " | "
                      + " ".join(f"{c:<{width}}" for c in row[4:])).rstrip())
    if tower is not None:
        lines.append(f"each long side shows each of the {instance.n} colours once")
    return "\n".join(lines) + "\n"


CELL = 44


def svg(instance: Instance, tower: Tower | None) -> str:
    """The four long sides side by side (as if the tower's skin were cut down one edge and
    unrolled), top of the tower at the top; top and bottom faces after a gap."""
    rows = _grid(instance, tower)
    fills = palette(instance.colours)
    gap = CELL // 2
    width = 7 * CELL + gap
    height = (instance.n + 1) * CELL + CELL // 2
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">']
    for column, heading in enumerate(_HEADINGS):
        x = CELL // 2 + column * CELL + (gap if column >= 4 else 0)
        out.append(f'<text x="{x + CELL // 2}" y="{CELL * 2 // 3}" text-anchor="middle">'
                   f'{heading}</text>')
        for k, row in enumerate(rows):
            y = CELL + k * CELL
            colour = row[column]
            out.append(f'<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" '
                       f'fill="{fills[colour]}" stroke="#222"/>')
            out.append(f'<text x="{x + CELL // 2}" y="{y + CELL // 2 + 4}" '
                       f'text-anchor="middle">{html.escape(colour)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def png(instance: Instance, tower: Tower | None) -> bytes:
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot as plt
        from matplotlib.patches import Rectangle
    except ImportError:
        raise InputError("PNG pictures need matplotlib: pip install 'ilp-pyramid[pictures]' "
                         "(or use -f svg)") from None
    rows = _grid(instance, tower)
    fills = palette(instance.colours)
    figure, axes = plt.subplots(figsize=(0.6 * 7 + 0.4, 0.6 * (instance.n + 1) + 0.4))
    try:
        for column, heading in enumerate(_HEADINGS):
            x = column + (0.5 if column >= 4 else 0)
            axes.text(x + 0.5, instance.n + 0.3, heading, ha="center", fontsize=8)
            for k, row in enumerate(rows):
                y = instance.n - 1 - k
                axes.add_patch(Rectangle((x, y), 1, 1, facecolor=fills[row[column]],
                                         edgecolor="#222"))
                axes.text(x + 0.5, y + 0.5, row[column], ha="center", va="center", fontsize=8)
        axes.set_xlim(-0.1, 6.6)
        axes.set_ylim(-0.1, instance.n + 0.8)
        axes.set_aspect("equal")
        axes.axis("off")
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
        return buffer.getvalue()
    finally:
        plt.close(figure)


def render(instance: Instance, tower: Tower | None, fmt: str = "text") -> str | bytes:
    if fmt == "text":
        return text(instance, tower)
    if fmt == "svg":
        return svg(instance, tower)
    if fmt == "png":
        return png(instance, tower)
    raise InputError(f"unknown picture format {fmt!r} (choose from {', '.join(FORMATS)})")
