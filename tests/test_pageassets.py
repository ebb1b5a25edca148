"""sphinx-gallery's tag script and output styles load only on pages that use them (pageassets.py)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs" / "_ext"))
from pageassets import needless

TAGS, HTML_OUTPUT = "sg-tags.js", "sg_gallery-rendered-html.css"


@pytest.mark.parametrize(
    ("body", "drops"),
    [
        ("<p>prose</p>", {TAGS, HTML_OUTPUT}),
        (
            '<div class="sphx-glr-thumbcontainer" data-sgtags=\'["cuda"]\' tooltip="x">',
            {HTML_OUTPUT},
        ),
        ('<div class="output_subarea output_html rendered_html output_result">', {TAGS}),
        ('<div class="rendered_html">', {TAGS}),
        # sphinx-gallery's empty tag list on an index is not a tagged page; a class that
        # only starts with the name is not the class
        ("<div id='sg-tag-list' class='sphx-glr-tag-list'></div>", {TAGS, HTML_OUTPUT}),
        ('<div class="rendered_html_note">', {TAGS, HTML_OUTPUT}),
        ("<p>data-sgtags= and rendered_html, in prose</p>", {TAGS, HTML_OUTPUT}),
    ],
)
def test_an_asset_is_kept_only_where_an_element_needs_it(body, drops):
    assert needless(body) == drops


def _assets(html: str) -> set[str]:
    return {Path(m).name for m in re.findall(r'(?:src|href)="([^"?]+)(?:\?[^"]*)?"', html)}


@pytest.mark.site
def test_the_built_pages_load_each_asset_exactly_where_they_use_it(site):
    with_output, without_output = [], []
    for path in sorted(site.rglob("*.html")):
        html = path.read_text(encoding="utf-8")
        loaded = _assets(html)
        assert "sg_gallery-binder.css" not in loaded
        assert "sg_gallery-dataframe.css" not in loaded
        assert (TAGS in loaded) == (" data-sgtags=" in html), path
        if re.search(r'class="[^"]*\brendered_html[\s"]', html):
            assert HTML_OUTPUT in loaded, path
            with_output.append(path)
        elif "sg_gallery.css" in loaded:
            assert HTML_OUTPUT not in loaded, path
            without_output.append(path)
    # The site has both kinds: pages printing HTML tables (the machine stamp), and others.
    assert with_output
    assert without_output
