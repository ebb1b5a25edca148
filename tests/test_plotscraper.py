"""The plot scraper in docs/_ext/plotscraper.py: transparent SVGs whose size the page states."""

from __future__ import annotations

from pathlib import Path

import pytest

import plotscraper  # on the path through pytest's pythonpath setting

matplotlib = pytest.importorskip("matplotlib", reason="matplotlib comes with the docs group")


@pytest.fixture
def gallery(tmp_path: Path) -> Path:
    """A source folder with one gallery page's image folder, as sphinx-gallery lays it out."""
    (tmp_path / "gallery" / "basics" / "images").mkdir(parents=True)
    return tmp_path


def _scrape(gallery: Path, *sizes_in: tuple[float, float]) -> str:
    import matplotlib.pyplot as plt
    from sphinx_gallery.scrapers import ImagePathIterator

    for width, height in sizes_in:
        plt.figure(figsize=(width, height)).add_subplot().plot([0, 1], [1, 0])
    template = gallery / "gallery" / "basics" / "images" / "sphx_glr_page_{0:03}.png"
    block_vars = {"image_path_iterator": ImagePathIterator(template), "example_globals": {}}
    gallery_conf = {
        "src_dir": str(gallery),
        "image_srcset": [],
        "matplotlib_animations": (False, None),
        "compress_images": (),
    }
    return plotscraper.svg_scraper(None, block_vars, gallery_conf)


def test_a_plot_is_an_svg_image_that_states_its_size_in_css_pixels(gallery):
    rst = _scrape(gallery, (6, 3))
    assert rst.startswith("\n.. container:: cheatsheet-plot\n")
    assert "   .. image:: /gallery/basics/images/sphx_glr_page_001.svg\n" in rst
    # 6 x 3 inches at 96 CSS pixels an inch, whatever the figure's dpi.
    assert "      :width: 576\n" in rst
    assert "      :height: 288\n" in rst
    assert "image-sg" not in rst
    assert ":srcset:" not in rst
    assert "      :class: sphx-glr-single-img\n" in rst


def test_each_of_several_plots_states_its_own_size(gallery):
    rst = _scrape(gallery, (6, 3), (4, 4))
    assert rst.count(".. image:: /gallery/basics/images/") == 2
    assert ":width: 576" in rst
    assert ":height: 288" in rst
    assert ":width: 384" in rst
    assert ":height: 384" in rst
    assert rst.count("sphx-glr-multi-img") == 2


def test_a_block_without_a_plot_adds_nothing(gallery):
    assert not _scrape(gallery).strip()


@pytest.mark.parametrize(
    ("root", "size"),
    [
        ('width="432pt" height="216pt" viewBox="0 0 432 216"', (576, 288)),
        ('width="300" height="150"', (300, 150)),
        ('width="2in" height="1in"', (192, 96)),
        ('viewBox="0 0 640 480"', (640, 480)),
    ],
)
def test_an_svg_size_is_read_in_css_pixels(tmp_path, root, size):
    svg = tmp_path / "plot.svg"
    svg.write_text(f'<svg xmlns="http://www.w3.org/2000/svg" {root}></svg>', encoding="utf-8")
    assert plotscraper._svg_size_px(svg) == size


def test_an_svg_size_in_an_unknown_unit_is_an_error_naming_it(tmp_path):
    svg = tmp_path / "plot.svg"
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="10em" height="5em"/>')
    with pytest.raises(ValueError, match="10em"):
        plotscraper._svg_size_px(svg)
