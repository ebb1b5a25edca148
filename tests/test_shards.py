"""Pages run on several machines, one site built from what each ran (docs/_ext/shards.py)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

import shards  # on the path through pytest's pythonpath setting

# -- The plan --------------------------------------------------------------------------


def test_the_plan_puts_the_longest_pages_first_onto_the_least_loaded_shard():
    seconds = {"a": 90.0, "b": 60.0, "c": 50.0, "d": 40.0, "e": 5.0, "f": 1.0}
    split = shards.plan(seconds, 3)
    # a (90) alone; b (60) then e and f; c (50) then d (40).
    assert split == [["a"], ["b", "e", "f"], ["c", "d"]]
    loads = [sum(seconds[p] for p in s) for s in split]
    assert max(loads) == 90.0  # the longest page alone: no split does better
    assert sorted(p for s in split for p in s) == sorted(seconds)


def test_the_plan_is_the_same_on_every_machine_and_keeps_pages_whole():
    seconds = {f"t/p{i}": float(i % 4) for i in range(12)}
    assert shards.plan(seconds, 4) == shards.plan(dict(reversed(seconds.items())), 4)
    assert shards.plan(seconds, 1) == [sorted(seconds)]
    with pytest.raises(ValueError, match="at least one shard"):
        shards.plan(seconds, 0)


@pytest.mark.parametrize("bad", ["0/3", "4/3", "2", "two/3", "2/3/4"])
def test_a_bad_shard_names_the_form_it_takes(bad):
    with pytest.raises(ValueError, match=r"K/N with 1 <= K <= N"):
        shards.parse_shard(bad)


def test_a_page_never_run_is_planned_by_its_length(tmp_path):
    (tmp_path / "ex" / "t").mkdir(parents=True)
    (tmp_path / "ex" / "t" / "long.py").write_text("x = 1\n" * 300)
    (tmp_path / "ex" / "t" / "ran.py").write_text("x = 1\n")
    (tmp_path / "gal" / "t").mkdir(parents=True)
    (tmp_path / "gal" / "t" / "ran.cost.json").write_text(json.dumps({"time": 12.5}))
    assert shards.costs(tmp_path / "ex", tmp_path / "gal") == {"t/long": 30.0, "t/ran": 12.5}


def test_the_run_only_pattern_matches_exactly_the_shards_pages():
    pattern = re.compile(shards.run_only_pattern(["basics/a", "errors/b_c"]))
    assert pattern.search("../examples/basics/a.py")
    assert pattern.search("/x/examples/errors/b_c.py")
    assert not pattern.search("../examples/basics/aa.py")
    assert not pattern.search("../examples/basics/a.pyc")
    assert not re.search(shards.run_only_pattern([]), "../examples/basics/a.py")


def test_a_page_digest_is_the_one_sphinx_gallery_writes(tmp_path):
    from sphinx_gallery.utils import get_md5sum

    page = tmp_path / "p.py"
    page.write_bytes("# caf\u00e9 \u2192 r\u00e9sum\u00e9\r\nx = 1\r\n".encode())
    assert shards.source_md5(page) == get_md5sum(page, mode="t")
    page.write_bytes(b"x = 1\n\xff\n")  # not UTF-8: sphinx-gallery escapes the byte
    assert shards.source_md5(page) == get_md5sum(page, mode="t")


def test_pages_without_current_output_are_those_changed_unrun_or_stripped(tmp_path):
    examples, gallery = tmp_path / "ex", tmp_path / "gal"
    for folder in (examples / "t", gallery / "t"):
        folder.mkdir(parents=True)
    for name in ("ran", "changed", "never", "stripped"):
        (examples / "t" / f"{name}.py").write_text(f"print({name!r})\n")
    for name in ("ran", "changed"):
        md5 = shards.source_md5(examples / "t" / f"{name}.py")
        (gallery / "t" / f"{name}.py.md5").write_text(md5)
    (examples / "t" / "changed.py").write_text("print('changed since it ran')\n")
    # "stripped": what pageinputs.py leaves when every page's inputs changed, no .md5.
    assert shards.without_output(examples, gallery) == ["t/changed", "t/never", "t/stripped"]


def test_a_merge_refuses_a_page_from_two_shards_or_from_none(tmp_path):
    examples = tmp_path / "examples"
    (examples / "t").mkdir(parents=True)
    for name in ("a", "b", "c"):
        (examples / "t" / f"{name}.py").write_text("")
    one, two = tmp_path / "1", tmp_path / "2"
    for folder, pages in ((one, ["t/a", "t/b"]), (two, ["t/b"])):
        folder.mkdir()
        (folder / "pages.json").write_text(json.dumps(pages))
    with pytest.raises(RuntimeError, match=r"from two shards: t/b .*from no shard: t/c"):
        shards.merge([one, two], examples, tmp_path / "gallery")


# -- Three shards and a merge make the site one machine makes --------------------------

PAGE = '''"""
Page {n}
========

Prints its number.
"""

# %%
# .. _api-minisite-page-{n}:
#
# Page {n}
# --------
# One sentence.
print("page {n} ran")
'''


def _lay_out(root: Path, mini_site) -> None:
    mini_site.lay_out(root)
    (root / "docs" / "index.md").write_text("# Shards\n\n```{toctree}\ngallery/index\n```\n")
    topic = root / "examples" / "basics"
    topic.mkdir(parents=True)
    (root / "examples" / "GALLERY_HEADER.rst").write_text("Gallery\n=======\n")
    header = "Basics\n------\n\n" + "".join(
        f"#. :ref:`sphx_glr_gallery_basics_page_{n}.py`\n" for n in range(1, 6)
    )
    (topic / "GALLERY_HEADER.rst").write_text(header)
    for n in range(1, 6):
        (topic / f"page_{n}.py").write_text(PAGE.format(n=n))


def _pages_and_outputs(site: Path) -> dict[str, str]:
    found = {}
    for html in sorted((site / "gallery").rglob("*.html")):
        soup = BeautifulSoup(html.read_text(), "html.parser")
        found[html.relative_to(site).as_posix()] = "\n".join(
            pre.get_text() for pre in soup.select("div.sphx-glr-script-out pre")
        )
    return found


def _search_records(site: Path) -> str:
    """The as-you-type search index the build wrote, as text."""
    return (site / "_static" / "search-index.js").read_text(encoding="utf-8")


@pytest.mark.slow
def test_three_shards_and_a_merge_build_the_site_one_machine_builds(tmp_path, mini_site):
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    for root in (whole, parts):
        root.mkdir()
        _lay_out(root, mini_site)
    result = mini_site.build(whole)
    assert result.returncode == 0, result.stdout + result.stderr

    examples, gallery = parts / "examples", parts / "docs" / "gallery"
    split = shards.plan(shards.costs(examples, gallery), 3)
    folders = []
    for k, mine in enumerate(split, 1):
        result = mini_site.build(parts, CHEATSHEET_RUN_ONLY=shards.run_only_pattern(mine))
        assert result.returncode == 0, result.stdout + result.stderr
        folders.append(parts / "shards" / str(k))
        assert shards.collect(gallery, mine, folders[-1]) == mine
        shutil.rmtree(gallery)  # the next shard starts from nothing, as a fresh runner does
    origin = shards.merge(folders, examples, gallery)
    # Each page comes from exactly one shard, and every page from one.
    assert sorted(origin) == sorted(shards.pages(examples))
    assert all(page in split[int(folder.name) - 1] for page, folder in origin.items())

    merged = mini_site.build(parts, CHEATSHEET_MERGE="1")
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "executed 0 out of" in merged.stdout or "executed" not in merged.stdout
    site_whole, site_parts = whole / "_build" / "html", parts / "_build" / "html"
    assert _pages_and_outputs(site_parts) == _pages_and_outputs(site_whole)
    assert _search_records(site_parts) == _search_records(site_whole)
    assert sorted(set(re.findall(r"api-minisite-page-\d", _search_records(site_parts)))) == [
        f"api-minisite-page-{n}" for n in range(1, 6)
    ]

    # A page whose shard did not deliver fails the merge build instead of rendering empty.
    (gallery / "basics" / "page_3.py.md5").unlink()
    failed = mini_site.build(parts, CHEATSHEET_MERGE="1")
    assert failed.returncode != 0
    assert "basics/page_3" in failed.stdout + failed.stderr
