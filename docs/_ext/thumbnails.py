"""The gallery indexes load no thumbnail: their grid is hidden, and a hidden picture is still fetched.

sphinx-gallery writes every index with a grid of thumbnails, one per page. This site
lists each page in its folder's header instead and hides the grid (``cheatsheet.css``,
``.sphx-glr-thumbnails``), but a browser fetches an ``<img>`` whether it shows or not:
the front page of the gallery loaded all 70 thumbnails, 1.8 MB gzipped, on a first
visit. sphinx-gallery has no switch to leave the grid out, so the thumbnails' image
nodes are removed from each index as it is read, before Sphinx collects images: an
index then asks for none, and ``_images/`` holds no thumbnail either. The grid's
links stay, hidden, as sphinx-gallery wrote them.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform

# Where sphinx-gallery writes a page's thumbnail: <gallery>/<folder>/images/thumb/.
THUMBNAIL = "/images/thumb/sphx_glr_"


class DropThumbnails(SphinxTransform):
    """Remove every thumbnail image sphinx-gallery put in a document."""

    # Runs on the parsed document, before the doctree-read event that collects images.
    default_priority = 400

    def apply(self, **kwargs: Any) -> None:
        for image in list(self.document.findall(nodes.image)):
            if THUMBNAIL in image["uri"]:
                image.parent.remove(image)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_transform(DropThumbnails)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
