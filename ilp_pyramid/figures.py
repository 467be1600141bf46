"""What every picture needs: matplotlib without a display, a figure as PNG bytes, and a
write that fails as one line naming the file."""

from __future__ import annotations

import io

from ilp_pyramid.extras import need


def pyplot():
    """matplotlib.pyplot on the Agg backend (no display, same pixels everywhere); InputError
    naming the extra when matplotlib is not installed."""

    matplotlib = need("matplotlib")

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def png_bytes(fig, dpi: int = 110) -> bytes:
    """The figure as PNG, trimmed to what is drawn; the figure is closed."""
    plt = pyplot()
    buffer = io.BytesIO()
    try:
        fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    finally:
        plt.close(fig)
    return buffer.getvalue()


def svg_text(fig) -> str:
    """The figure as SVG text, trimmed to what is drawn; the figure is closed."""
    plt = pyplot()
    buffer = io.StringIO()
    try:
        fig.savefig(buffer, format="svg", bbox_inches="tight")
    finally:
        plt.close(fig)
    return buffer.getvalue()
