"""The pages' matplotlib figures as SVG on a transparent background, in a box the CSS sizes.

sphinx-gallery's own scraper saves PNGs at the figure's size, which the page shrinks
to the column: tick labels end up a few pixels tall, and the white background is a
bright slab in dark mode. An SVG stays sharp at any size, its transparent background
takes the page's colour (the style sheet inverts the plot's ink in dark mode), and the
``cheatsheet-plot`` box lets a phone scroll a wide plot instead of shrinking it.
"""

from __future__ import annotations

from textwrap import indent
from typing import Any

from sphinx_gallery.scrapers import matplotlib_scraper

__all__ = ["svg_scraper"]

PLOT_CLASS = "cheatsheet-plot"


def svg_scraper(block: Any, block_vars: dict[str, Any], gallery_conf: dict[str, Any]) -> str:
    """Save the block's figures as transparent SVGs and return their reST, boxed.

    Parameters
    ----------
    block, block_vars, gallery_conf
        What sphinx-gallery passes to every image scraper.

    Returns
    -------
    str
        The figures' reST inside a ``cheatsheet-plot`` container; empty when the
        block drew nothing.
    """
    rst = matplotlib_scraper(block, block_vars, gallery_conf, format="svg", transparent=True)
    if not rst.strip():
        return rst
    return f"\n.. container:: {PLOT_CLASS}\n\n{indent(rst.strip(chr(10)), '   ')}\n"
