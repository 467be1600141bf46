"""The hunt's curve as a picture: best count against CPU hours (`hunt --plot`)."""

from __future__ import annotations

import io
from pathlib import Path

from ilp_pyramid.figures import pyplot
from ilp_pyramid.formats.fileio import write_atomic


def plot_progress(rows: list[dict], n: int, image: Path) -> None:
    """Best repeated-cube count against CPU hours, as a step curve, written atomically."""
    plt = pyplot()
    hours = [row["cpu"] / 3600 for row in rows]
    best = [row["best"] for row in rows]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.step(hours, best, where="post", color="tab:blue")
    ax.plot(hours[-1:], best[-1:], "o", color="tab:blue")
    ax.set_xlabel("CPU hours (every search of every hunt on this state)")
    ax.set_ylabel("best state: repeated cubes")
    ax.set_title(f"Bel's Pyramid N={n}: hunt progress")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    write_atomic(image, buffer.getvalue())
