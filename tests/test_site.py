"""The built site in _build/html: every page ran, search works, nothing loads from outside."""

from __future__ import annotations

import json
import os
import re
import sys
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from bs4 import BeautifulSoup
from sphinx.search.en import SearchEnglish

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.site

EXAMPLES = sorted(p for p in (ROOT / "examples").rglob("*.py"))


@cache
def _soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def _pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def _example_page(site: Path, example: Path) -> Path:
    rel = example.relative_to(ROOT / "examples").with_suffix(".html")
    return site / "gallery" / rel


def test_there_are_examples():
    assert len(EXAMPLES) >= 3


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: str(p.relative_to(ROOT / "examples")))
def test_every_example_has_an_executed_page(site, example):
    page = _example_page(site, example)
    assert page.exists(), f"{example} has no page at {page}"
    text = _soup(page).get_text()
    # sphinx-gallery writes the run time only for an example it executed
    assert "Total running time of the script" in text, f"{page} was not executed"
    assert not _soup(page).select(".highlight-pytb"), f"{page} shows a traceback"


def test_no_page_prints_an_object_repr_instead_of_its_output(site):
    # A figure or object left as a cell's last expression shows up as text like
    # "<Figure size 700x380 with 1 Axes>" or "<function f at 0x7f...>".
    leaked = re.compile(r"<(Figure size|matplotlib\.|function |[\w.]+ object at 0x)")
    offenders = []
    for example in EXAMPLES:
        for out in _soup(_example_page(site, example)).select("div.sphx-glr-script-out pre"):
            if found := leaked.search(out.get_text()):
                offenders.append(f"{example.name}: {found.group(0)}")
    assert not offenders, offenders


def _search_index(site: Path) -> dict:
    text = (site / "searchindex.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1 : text.rindex(")")])


def test_search_index_finds_the_attention_page(site):
    index = _search_index(site)
    stem = SearchEnglish({}).stem("scaled_dot_product_attention")
    found: list[int] = []
    for kind in ("terms", "titleterms"):
        docs = index[kind].get(stem, [])
        found += docs if isinstance(docs, list) else [docs]
    docnames = {index["docnames"][i] for i in found}
    assert "gallery/pytorch2/sdpa" in docnames


_EXTERNAL = re.compile(r"^(https?:)?//", re.IGNORECASE)


def test_nothing_is_loaded_from_outside_the_site(site):
    offenders = []
    for page in _pages(site):
        soup = _soup(page)
        for tag, attr in (
            ("script", "src"),
            ("link", "href"),
            ("img", "src"),
            ("iframe", "src"),
            ("source", "src"),
            ("video", "src"),
        ):
            for el in soup.find_all(tag):
                url = el.get(attr) or ""
                if tag == "link" and not {"stylesheet", "preload", "icon", "modulepreload"} & set(
                    el.get("rel", [])
                ):
                    continue
                if _EXTERNAL.match(url):
                    offenders.append(f"{page.relative_to(site)}: <{tag} {attr}={url}>")
    for css in site.rglob("*.css"):
        for url in re.findall(r"url\(\s*['\"]?([^'\")]+)", css.read_text(encoding="utf-8")):
            if _EXTERNAL.match(url):
                offenders.append(f"{css.relative_to(site)}: url({url})")
    assert not offenders, "\n".join(offenders)


@cache
def _links_and_ids(page: Path) -> tuple[list[str], frozenset[str]]:
    """Where ``page``'s links point, and the ids of its elements: each page parsed once."""
    soup = _soup(page)
    links = [a["href"] for a in soup.find_all("a", href=True)]
    return links, frozenset(tag["id"] for tag in soup.find_all(id=True))


def test_every_internal_link_resolves(site):
    broken = []
    for page in _pages(site):
        if page == site / "404.html":
            continue  # its links start at the site's root, checked in the test of the 404 page
        for href in _links_and_ids(page.resolve())[0]:
            parts = urlsplit(href)
            if parts.scheme or href.startswith(("//", "mailto:")):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page.resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(site)} -> {href}")
                continue
            anchored = parts.fragment and target.suffix == ".html"
            if anchored and unquote(parts.fragment) not in _links_and_ids(target)[1]:
                broken.append(f"{page.relative_to(site)} -> {href} (no such anchor)")
    assert not broken, "\n".join(broken[:50])


def test_no_page_shows_a_path_of_the_build_machine(site):
    # A traceback, warning or repr prints absolute paths; they name the build
    # machine's folders, which mean nothing to a reader.
    folders = {f"{path}{os.sep}" for path in (ROOT, Path.home(), Path(sys.prefix))}
    offenders = [
        f"{page.relative_to(site)}: {folder}"
        for page in _pages(site)
        for folder in folders
        if folder in page.read_text(encoding="utf-8")
    ]
    assert not offenders, "\n".join(offenders)


def test_the_site_holds_no_build_state(site):
    # Sphinx's doctrees (pickles of the build environment) belong in _build/doctrees.
    assert not (site / ".doctrees").exists()
    assert not [p for pattern in ("*.pickle", "*.doctree") for p in site.rglob(pattern)]
    assert not list((site / "_sources").rglob("*"))


def test_landing_page_lists_every_machine_that_ran_a_page(site):
    import json

    soup = _soup(site / "index.html")
    table = soup.select_one("table.build-machines")
    assert table is not None, "the landing page lacks the machines that ran the pages"
    machines = {
        json.loads(p.read_text())["machine"]["cpu"] for p in (site / "_records").glob("*/*.json")
    }
    rows = [tr.get_text(" ") for tr in table.select("tbody tr")]
    assert len(rows) >= len(machines) >= 1
    assert all(any(cpu in row for row in rows) for cpu in machines)
    for section in ("gallery/basics/index.html", "gallery/pytorch2/index.html"):
        assert soup.find("a", href=section), f"the landing page does not link {section}"


def test_landing_page_counts_the_reference_entries(site):
    from sitebuild import count_api_entries

    text = " ".join(_soup(site / "index.html").get_text().split())
    assert f"{count_api_entries(ROOT / 'examples')} entries" in text


def test_each_page_that_measures_names_its_machine_under_its_title(site):
    import json

    from shards import times_something

    for path in sorted((site / "_records").glob("*/*.json")):
        record = json.loads(path.read_text())
        page = site / "gallery" / path.parent.name / f"{path.stem}.html"
        stamp = _soup(page).select_one("p.page-stamp")
        source = ROOT / "examples" / path.parent.name / f"{path.stem}.py"
        if record["comparisons"] or record["measurements"] or times_something(source):
            assert stamp is not None, f"{page.name} measures but does not name its machine"
            assert record["machine"]["cpu"] in stamp.get_text()
            assert record["machine"]["torch_version"] in stamp.get_text()
            # The page's description, for links and search engines, is its own words.
            for meta in _soup(page).select(
                'meta[name="description"], meta[property="og:description"]'
            ):
                assert not meta["content"].startswith("Measured on"), f"{page.name}: {meta}"
        else:
            assert stamp is None, f"{page.name} measures nothing but shows a machine stamp"


def test_benchmark_pages_show_tables_plots_and_computed_verdicts(site):
    for name in ("compile_essentials", "sdpa"):
        soup = _soup(site / "gallery" / "pytorch2" / f"{name}.html")
        assert soup.select("table.cheatsheet-table"), f"{name}: no result table"
        assert soup.select("img.sphx-glr-single-img, img.sphx-glr-multi-img"), f"{name}: no plot"
        verdict = (
            r"\d+(\.\d+)?x (faster|slower) than .+ \(\S+–\S+x\)|about as fast as .+ \(\S+–\S+x\)"
        )
        assert re.search(verdict, soup.get_text()), name


# -- Fit for hosting ---------------------------------------------------------------


def _base_url(site: Path) -> str:
    canonical = _soup(site / "index.html").find("link", rel="canonical")
    assert canonical is not None, "the landing page has no canonical URL"
    return canonical["href"].removesuffix("index.html")


def test_every_page_names_a_favicon_that_exists(site):
    for page in _pages(site):
        if "_static" in page.parts or page.name == "404.html":
            continue
        icon = _soup(page).find("link", rel="icon")
        assert icon is not None, page.relative_to(site)
        assert (page.parent / unquote(urlsplit(icon["href"]).path)).exists(), icon["href"]


def test_github_pages_keeps_the_static_folders(site):
    assert (site / ".nojekyll").exists()


def test_every_page_has_a_canonical_url_a_description_and_the_build_line(site):
    base = _base_url(site)
    assert base.startswith("https://")
    assert base.endswith("/")
    for page in _pages(site):
        rel = page.relative_to(site).as_posix()
        if rel.startswith("_static/"):
            continue  # the theme's template fragments, not pages
        soup = _soup(page)
        if rel != "404.html":
            canonical = soup.find("link", rel="canonical")
            assert canonical is not None, rel
            assert canonical["href"] == base + rel
        if rel not in {"404.html", "genindex.html", "search.html"}:  # no text to describe
            description = soup.find("meta", attrs={"name": "description"})
            assert description is not None, f"{rel}: no meta description"
            assert len(description["content"]) > 20, rel
        line = soup.select_one(".build-line")
        assert line is not None, f"{rel}: no build line"
        assert re.fullmatch(
            r"Built on \d{4}-\d\d-\d\d with torch \S+", line.get_text(strip=True)
        ), line.get_text()


def test_the_sitemap_lists_every_page_at_the_published_address(site):
    base = _base_url(site)
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    listed = set(re.findall(r"<loc>([^<]+)</loc>", sitemap))
    pages = {
        base + p.relative_to(site).as_posix() for p in _pages(site) if "_static" not in p.parts
    }
    missing = sorted(pages - listed - {base + "404.html", base + "search.html"})
    assert not missing, missing[:10]
    assert all(url.startswith(base) for url in listed)


def test_the_404_page_works_at_any_depth(site):
    prefix = urlsplit(_base_url(site)).path
    soup = _soup(site / "404.html")
    assert "Page not found" in soup.get_text()
    links = [
        el.get("href") or el.get("src") for el in soup.find_all(["link", "script", "a", "img"])
    ]
    local = [u for u in links if u and not _EXTERNAL.match(u) and not u.startswith("#")]
    assert local, "the 404 page links nothing of the site"
    for url in local:
        # Served at /any/depth/missing.html, a relative link would miss: each starts at the root.
        path = urlsplit(url).path
        assert path.startswith(prefix), url
        target = site / unquote(path.removeprefix(prefix))
        assert target.exists() or (target / "index.html").exists(), url


# Each behaviour that changed from 2.14 to 2.15, on the release page and on the page of
# its API: what the page's own run printed, and what the 2.14.1 version record kept of
# the same code.
_BEHAVIOUR_CHANGES = {
    "pt2-whats-new-2-15-collective-aliases": ("pytorch2/whats_new_2_15",
                                              "all_gather_into_tensor: no warning",
                                              "all_gather_into_tensor: FutureWarning: `torch.distributed.all_gather_into_tensor` is deprecated"),
    "api-torch-asarray-buffer": ("reference_tensors/creation", "array     -> torch.int32",
                                 "array     -> torch.float32"),
    "pt2-optimizers-param-order": ("pytorch2/optimizers", "SGD(set): FutureWarning",
                                   "SGD(set): no warning"),
    "basics-save-nested-tensor": ("basics/saving_and_loading",
                                  "weights_only=True: WeightsUnpickler error",
                                  "weights_only=True: loaded"),
    "api-distributed-all-gather-into-tensor": ("reference_tools/distributed_api",
                                               "all_gather_into_tensor: out = [0.0, 1.0, 2.0]\n    no warning",
                                               "FutureWarning: `torch.distributed.all_gather_into_tensor` is deprecated"),
    "api-compiler-precompile": ("reference_tools/compiler_api",
                                "precompile(fn, *args): TypeError",
                                "precompile(fn, *args): code as str, cache as bytes"),
    "api-distributed-nccl-backend-choice": ("reference_tools/distributed_api",
                                            'TORCH_DIST_USE_NCCL2") == "0"',
                                            'TORCH_DIST_USE_NCCL2") == "1"'),
}  # fmt: skip


@pytest.mark.parametrize("label", _BEHAVIOUR_CHANGES)
def test_a_behaviour_change_shows_both_releases_output(site, label):
    page, now, before = _BEHAVIOUR_CHANGES[label]
    entry = _soup(site / "gallery" / f"{page}.html").find(id=label).find_parent("section")
    own = "\n".join(p.get_text() for p in entry.select("div.sphx-glr-script-out pre"))
    recorded = "\n".join(
        p.get_text() for p in entry.select("pre.torch-outputs, .torch-outputs pre")
    )
    assert any("Under torch 2.14.1" in p.get_text() for p in entry.select("p.torch-outputs"))
    assert now in own, own
    assert before in recorded, recorded
    assert before not in own  # the two releases differ here
    assert now not in recorded


def test_no_gallery_index_loads_a_thumbnail_it_hides(site):
    """The thumbnail grid is hidden (cheatsheet.css), and a hidden <img> is still fetched:
    the indexes carry no thumbnail at all (docs/_ext/thumbnails.py)."""
    indexes = sorted((site / "gallery").rglob("index.html"))
    assert len(indexes) > 5
    for index in indexes:
        pictures = [img["src"] for img in _soup(index).find_all("img")]
        assert not [src for src in pictures if "_thumb." in src], index
    # ...while the hidden grid's links to the pages are still there
    assert _soup(site / "gallery" / "basics" / "index.html").select(".sphx-glr-thumbcontainer a")


def test_the_gallery_front_page_downloads_every_page_at_once(site):
    """sphinx-gallery's "download all": every page's script in one archive, every notebook
    in the other, with the first cell that installs what that page needs."""
    import zipfile

    links = {
        Path(a["href"]).name: site / "gallery" / unquote(a["href"])
        for a in _soup(site / "gallery" / "index.html").select("a.reference.download")
    }
    assert set(links) >= {"gallery_python.zip", "gallery_jupyter.zip"}, sorted(links)
    pages = {p.relative_to(ROOT / "examples").as_posix() for p in EXAMPLES}
    with zipfile.ZipFile(links["gallery_python.zip"]) as scripts:
        assert set(scripts.namelist()) == pages
        page = "pytorch2/deployment.py"
        assert scripts.read(page) == (ROOT / "examples" / page).read_bytes()
    with zipfile.ZipFile(links["gallery_jupyter.zip"]) as notebooks:
        assert set(notebooks.namelist()) == {p.removesuffix(".py") + ".ipynb" for p in pages}
        first = json.loads(notebooks.read("pytorch2/deployment.ipynb"))["cells"][0]["source"]
        assert "onnxruntime" in "".join(first)  # the page's own install, not only the common one


def test_the_numpy_page_runs_each_row_in_both_libraries_and_they_agree(site):
    """Each row of examples/basics/numpy_side_by_side.py printed, live, whether NumPy's and
    PyTorch's results agree; where the two differ on purpose the page prints both, apart."""
    page = _soup(_example_page(site, ROOT / "examples" / "basics" / "numpy_side_by_side.py"))
    row = re.compile(r"^(?P<numpy>\S.*?)\s{2,}(?P<check>agree|DIFFER)\s")
    rows = [
        found
        for out in page.select("div.sphx-glr-script-out pre")
        for line in out.get_text().splitlines()
        if (found := row.match(line))
    ]
    assert len(rows) >= 60, len(rows)
    assert len({r["numpy"] for r in rows}) == len(rows)  # no row counted twice
    assert [r["numpy"] for r in rows if r["check"] != "agree"] == []
    # The summary table links each NumPy spelling to the entry whose rows run it.
    linked = {a["href"].split("#")[1] for a in page.select("table a.reference.internal[href*='#']")}
    entries = {s["id"] for s in page.select("span[id^='basics-np-']")}  # the labels
    assert entries
    assert linked >= entries, entries - linked
