"""A self-contained interactive 3-D view of a solved pyramid (plotly, plotly.js embedded so
the page opens offline): rotate, hover a cube for its cell, labels and orientation, click a
level in the legend to hide it.

The page also carries the solution and its build list as JSON
(`<script type="application/json" id="bel-solution">`), so a program can read it back.
"""

from __future__ import annotations

import json
import math

from ilp_pyramid.extras import need
from ilp_pyramid.puzzles.bel.cubes import build_list
from ilp_pyramid.puzzles.bel.faces import label_colour, text_colour, visible_faces
from ilp_pyramid.puzzles.bel.render import Camera
from ilp_pyramid.puzzles.bel.solution import BelSolution

GAP = 0.03  # each cube drawn this much smaller on every side, so the cubes stand apart
DATA_ID = "bel-solution"
ZOOM = 1.45
EYE = {"x": 0.75, "y": -1.0, "z": 1.6}  # front-right, above (plotly's y is the spec's -y)

# The 12 triangles of a cube over its corners (bit 0: x, bit 1: y, bit 2: z), two per face,
# with the axis the face looks along.
_TRIANGLES = (
    ("x", (0, 2, 4)), ("x", (2, 6, 4)), ("x", (1, 5, 3)), ("x", (3, 5, 7)),
    ("y", (0, 4, 1)), ("y", (1, 4, 5)), ("y", (2, 3, 6)), ("y", (3, 7, 6)),
    ("z", (0, 1, 2)), ("z", (1, 3, 2)), ("z", (4, 6, 5)), ("z", (5, 6, 7)),
)


def hover_text(row: dict) -> str:
    x, y, h = row["x"], row["y"], row["h"]
    cube = "{" + ", ".join(map(str, row["cube"])) + "}"
    return (f"cell (x={x}, y={y}, h={h})<br>cube {cube}<br>"
            f"X({x},{h}) = {row['faces_y']}, Y({y},{h}) = {row['faces_x']}, "
            f"Z({x},{y}) = {row['faces_z']}<br>"
            f"orientation: x-faces {row['faces_x']}, y-faces {row['faces_y']}, "
            f"z-faces {row['faces_z']}")


def figure(solution: BelSolution):
    """The plotly figure: per level one cube mesh and one trace of face labels, grouped so
    that the legend entry of a level shows or hides both."""

    need("plotly")
    import plotly.graph_objects as go

    n = solution.n
    rows = build_list(solution)
    # the data's aspect is kept (ZOOM scales all axes alike), so the eye's direction is the
    # view direction in cube units too
    camera = Camera(elevation=math.degrees(math.atan2(EYE["z"], math.hypot(EYE["x"], EYE["y"]))),
                    turn=math.degrees(math.atan2(EYE["x"], -EYE["y"])))
    faces = visible_faces(solution)
    traces = []
    for level in range(n):
        h = n - 1 - level
        mesh = {key: [] for key in ("x", "y", "z", "i", "j", "k", "facecolor", "hovertext")}
        for row in (r for r in rows if r["h"] == h):
            first = len(mesh["x"])
            # 12 vertices per cube (the 8 corners, then 4 unused copies), as many as its
            # triangles: plotly maps a hover text to the vertex or, with per-face colours,
            # to the triangle hovered; either index then points into the same cube's block.
            for corner in [*range(8), 0, 1, 2, 3]:
                dx, dy, dz = corner & 1, (corner >> 1) & 1, (corner >> 2) & 1
                x = row["x"] + (GAP if not dx else 1 - GAP)
                y = row["y"] + (GAP if not dy else 1 - GAP)
                z = row["h"] + (GAP if not dz else 1 - GAP)
                # right-handed plotly axes: y negated, as in the PNG (render.py)
                mesh["x"].append(x)
                mesh["y"].append(-y)
                mesh["z"].append(z)
                mesh["hovertext"].append(hover_text(row))
            for axis, (a, b, c) in _TRIANGLES:
                mesh["i"].append(first + a)
                mesh["j"].append(first + b)
                mesh["k"].append(first + c)
                mesh["facecolor"].append(label_colour(row[f"faces_{axis}"]))
        group = f"level {level}"
        traces.append(go.Mesh3d(name=f"level {level} (h={h})", legendgroup=group,
                                showlegend=True, flatshading=True, hoverinfo="text",
                                lighting={"ambient": 0.75, "diffuse": 0.5, "specular": 0.05},
                                **mesh))
        shown = [f for f in faces if f.cell[2] == h]
        points = [_label_point(f, solution, camera) for f in shown]
        traces.append(go.Scatter3d(
            x=[p[0] for p in points], y=[-p[1] for p in points], z=[p[2] for p in points],
            mode="text", textposition="middle center",
            text=[str(f.label) for f in shown],
            textfont={"size": 16 if n <= 4 else 12,
                      "color": [text_colour(label_colour(f.label)) for f in shown]},
            hoverinfo="skip", legendgroup=group, showlegend=False, name=f"labels {level}"))
    key = "  ".join(f"<span style='color:{label_colour(k)}'>&#9632;</span> {k}"
                    for k in range(2 * n - 1))
    layout = go.Layout(
        title={"text": f"Bel's Pyramid N={n}: drag to rotate, hover a cube, "
                       f"click a level to hide it<br><sub>labels: {key}</sub>", "x": 0.5},
        # orthographic views ignore the eye's distance: the aspect ratio sets the zoom
        scene={"aspectmode": "manual",
               "aspectratio": {"x": ZOOM, "y": ZOOM, "z": ZOOM * n / solution.base},
               "xaxis": {"visible": False}, "yaxis": {"visible": False},
               "zaxis": {"visible": False},
               "camera": {"eye": EYE,
                          "projection": {"type": "orthographic"}}},
        legend={"title": {"text": "levels (top first)"}, "itemclick": "toggle"},
        margin={"l": 0, "r": 0, "t": 80, "b": 0},
        paper_bgcolor="#ffffff",
    )
    return go.Figure(data=traces, layout=layout)


def _label_point(face, solution: BelSolution, camera: Camera) -> tuple[float, float, float]:
    """Where the camera sees the face, moved towards the camera: the label stays over the same
    spot on the screen, but in front of the surface (plotly hides text behind surfaces, and
    the upright text would cut into a side face)."""
    point = camera.label_point(face, solution)
    return tuple(p + 0.6 * t for p, t in zip(point, camera.towards, strict=True))  # type: ignore


def html_text(solution: BelSolution) -> str:
    page = figure(solution).to_html(include_plotlyjs=True, full_html=True)
    data = {"n": solution.n, "solution": solution.to_dict(), "cubes": build_list(solution)}
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    script = f'<script type="application/json" id="{DATA_ID}">{blob}</script>\n'
    return page.replace("</body>", script + "</body>", 1)
