"""The pages' matplotlib figures as SVG on a transparent background, in a box the CSS sizes.

sphinx-gallery's own scraper saves PNGs at the figure's size, which the page shrinks
to the column: tick labels end up a few pixels tall, and the white background is a
bright slab in dark mode. An SVG stays sharp at any size, its transparent background
takes the page's colour (the style sheet inverts the plot's ink in dark mode), and the
``cheatsheet-plot`` box lets a phone scroll a wide plot instead of shrinking it.

Each image states its width and height in the page, so the browser keeps the plot's
place (and its aspect ratio, when the column is narrower) before the file arrives,
instead of moving everything below it down when it does.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from textwrap import indent
from typing import Any

from sphinx_gallery.scrapers import matplotlib_scraper

__all__ = ["svg_scraper"]

PLOT_CLASS = "cheatsheet-plot"

# CSS pixels per unit of an SVG's width and height (matplotlib writes points).
_PX_PER_UNIT = {"": 1.0, "px": 1.0, "pt": 96 / 72, "in": 96.0, "cm": 96 / 2.54, "mm": 96 / 25.4}
_LENGTH = re.compile(r"\s*([0-9.]+)\s*([a-z]*)\s*")
# sphinx-gallery's image directive and its options; it takes no width or height.
_IMAGE_SG = re.compile(r"^( *)\.\. image-sg:: /(\S+)\n((?:\1 +:[a-z]+:.*\n?)*)", re.MULTILINE)


def svg_scraper(block: Any, block_vars: dict[str, Any], gallery_conf: dict[str, Any]) -> str:
    """Save the block's figures as transparent SVGs and return their reST, boxed and sized.

    Parameters
    ----------
    block, block_vars, gallery_conf
        What sphinx-gallery passes to every image scraper.

    Returns
    -------
    str
        The figures' reST inside a ``cheatsheet-plot`` container, each image with its
        width and height in CSS pixels; empty when the block drew nothing.
    """
    rst = matplotlib_scraper(block, block_vars, gallery_conf, format="svg", transparent=True)
    if not rst.strip():
        return rst
    rst = _sized_images(rst, Path(gallery_conf["src_dir"]))
    return f"\n.. container:: {PLOT_CLASS}\n\n{indent(rst.strip(chr(10)), '   ')}\n"


def _sized_images(rst: str, src_dir: Path) -> str:
    """Turn sphinx-gallery's ``image-sg`` directives into images that state their size.

    ``image-sg`` exists for ``srcset`` (several resolutions of a PNG), which an SVG does
    not need; Sphinx's own ``image`` directive writes ``width`` and ``height`` attributes.
    """

    def sized(match: re.Match[str]) -> str:
        lead, path, options = match.groups()
        kept = [line for line in options.splitlines() if not line.lstrip().startswith(":srcset:")]
        option_lead = lead + "   " if not kept else kept[0][: len(kept[0]) - len(kept[0].lstrip())]
        width, height = _svg_size_px(src_dir / path)
        kept += [f"{option_lead}:width: {width}", f"{option_lead}:height: {height}"]
        return f"{lead}.. image:: /{path}\n" + "\n".join(kept) + "\n"

    return _IMAGE_SG.sub(sized, rst)


def _svg_size_px(svg: Path) -> tuple[int, int]:
    """Return the natural width and height of an SVG file, in CSS pixels.

    Read from the root element's ``width`` and ``height``, or from its ``viewBox`` when
    it states no size (then one user unit is one pixel, as a browser draws it).
    """
    _, root = next(ET.iterparse(svg, events=("start",)))
    width, height = root.get("width"), root.get("height")
    if width and height:
        return _px(width), _px(height)
    box = root.get("viewBox", "").replace(",", " ").split()
    if len(box) != 4:
        raise ValueError(f"{svg} states neither its size nor a viewBox")
    return round(float(box[2])), round(float(box[3]))


def _px(length: str) -> int:
    match = _LENGTH.fullmatch(length)
    if not match or match.group(2) not in _PX_PER_UNIT:
        raise ValueError(f"an SVG size this scraper cannot convert to pixels: {length!r}")
    return round(float(match.group(1)) * _PX_PER_UNIT[match.group(2)])
