"""Used in: the names a block calls, resolved through its own imports, and who calls what.

The unit tests read code and entries only; the site tests read the built site.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

import usedin

ROOT = Path(__file__).resolve().parents[1]


def test_a_name_is_resolved_through_the_block_s_own_imports():
    names, _ = usedin.code_names(
        "import torch\nfrom torch import nn\nimport torch.nn.functional as F\n"
        "y = F.relu(nn.Linear(2, 3)(torch.zeros(1, 2)))\n"
    )
    assert names >= {"torch.nn.Linear", "torch.nn.functional.relu", "torch.zeros"}
    assert "F.relu" not in names
    assert "nn.Linear" not in names


def test_an_attribute_of_an_object_is_a_method_not_a_name():
    names, methods = usedin.code_names("import torch\nx = torch.ones(2)\nx.view(2, 1).sum()\n")
    assert names == {"torch.ones"}
    assert {"view", "sum"} <= methods
    assert "ones" not in methods  # reached through the import


def test_code_that_does_not_parse_uses_nothing():
    assert usedin.code_names("torchrun --nproc-per-node=2 train.py") == (set(), set())


def _entry(docname, anchor, title, names=(), methods=()):
    return usedin.Entry(docname, anchor, title, frozenset(names), frozenset(methods))


def test_a_name_lists_its_own_entry_first_then_its_callers_and_no_undocumented_name():
    own = _entry("gallery/reference_tensors/creation", "api-torch-zeros", "torch.zeros")
    caller = _entry("gallery/basics/a", "basics-a", "A", names={"torch.zeros", "mylib.f"})
    table = usedin.api_names([caller, own], documented={"torch.zeros"})
    assert list(table) == ["torch.zeros"]  # mylib.f is no documented torch name
    assert table["torch.zeros"] == [own, caller]


def test_a_method_entry_is_called_by_the_method_s_name_on_any_object():
    own = _entry("gallery/reference_tensors/shapes", "api-tensor-view", "torch.Tensor.view")
    caller = _entry("gallery/basics/a", "basics-a", "A", methods={"view"})
    other = _entry("gallery/basics/b", "basics-b", "B", methods={"reshape"})
    table = usedin.api_names([own, caller, other], documented=set())
    assert table["torch.Tensor.view"] == [own, caller]


def test_an_index_row_s_anchor_is_the_name_in_lower_case_with_dashes():
    assert usedin.index_id("torch.nn.utils.clip_grad_norm_") == "used-torch-nn-utils-clip-grad-norm"


def test_a_reference_heading_names_its_call():
    assert usedin.entry_name("torch.nn.utils.clip_grad_norm_") == "torch.nn.utils.clip_grad_norm_"
    assert usedin.entry_name("Output size formula") == ""


@functools.cache
def _soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


@functools.cache
def _entry_code(page: Path, anchor: str) -> str:
    entry = _soup(page).find(id=anchor).find_parent("section")
    return " ".join(pre.get_text() for pre in entry.select("div.highlight-Python pre"))


@pytest.mark.site
def test_every_used_in_link_goes_to_an_entry_whose_code_calls_the_name(site):
    pages = sorted((site / "gallery").glob("reference_*/*.html"))
    lines = 0
    for page in pages:
        soup = _soup(page)
        for line in soup.select("details.used-in"):
            lines += 1
            section = line.find_parent("section")
            name = usedin.entry_name(section.find(re.compile("^h[1-6]$")).get_text().strip("#¶ "))
            called = name.rsplit(".", 1)[-1]
            assert line.select_one("summary").get_text().strip().startswith("Used in ")
            for link in line.select("a:not([href*='api_index.html'])"):  # the index row aside
                target_page, anchor = link["href"].split("#")
                target = (page.parent / target_page).resolve() if target_page else page
                code = _entry_code(target, anchor)
                assert re.search(rf"\b{re.escape(called)}\b", code), (page.name, name, link["href"])
    assert lines >= 100, lines


@pytest.mark.site
def test_the_api_index_lists_each_name_with_its_own_entry_first(site):
    soup = _soup(site / "api_index.html")
    names = soup.select("dl.api-index > dt")
    assert len(names) >= 300, len(names)
    zeros = soup.find(id="used-torch-zeros")
    assert zeros.get_text().strip() == "torch.zeros"
    links = [a["href"] for a in zeros.find_next_sibling("dd").select("a")]
    assert links[0].endswith("reference_tensors/creation.html#api-torch-zeros"), links[:3]
    assert len(links) > 1
    # A reference entry's "used in" list ends with a link to its row of the index.
    creation = _soup(site / "gallery" / "reference_tensors" / "creation.html")
    used_in = creation.find(id="api-torch-zeros").find_parent("section").select_one(".used-in")
    assert used_in.select("a")[-1]["href"] == "../../api_index.html#used-torch-zeros"
