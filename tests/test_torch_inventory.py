"""The PyTorch inventory: what the generator reads from PyTorch's pages, and the links it gives the site."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from sphinx.util.inventory import InventoryFile

import torch_inventory
from torch_inventory import Entry

FIXTURE = Path(__file__).parent / "fixtures" / "torch_docs"
INVENTORY = Path(__file__).resolve().parents[1] / "docs" / "_inventories" / "torch.inv"
TORCH_DOCS = "https://docs.pytorch.org/docs/{}.{}/".format(
    *importlib.metadata.version("torch").split(".")[:2]
)


def _load(data: bytes) -> dict[str, dict[str, str]]:
    """Read an objects.inv the way intersphinx does: {role: {name: absolute uri}}."""
    inventory = InventoryFile.loads(data, uri=TORCH_DOCS).data
    return {
        role: {name: item.uri for name, item in items.items()} for role, items in inventory.items()
    }


@pytest.fixture(scope="module")
def fixture_entries() -> list[Entry]:
    return torch_inventory.resolve_entries(torch_inventory.documented_names(FIXTURE))


def test_the_generator_reads_exactly_what_the_fixture_pages_document(fixture_entries):
    assert set(fixture_entries) == {
        Entry("torch", "py:module", "torch.html#module-torch"),
        Entry("torch.zeros", "py:function", "generated/torch.zeros.html#torch.zeros"),
        Entry("torch.nn.Linear", "py:class", "generated/torch.nn.Linear.html#torch.nn.Linear"),
        Entry("torch.amp", "py:module", "amp.html#module-torch.amp"),
        Entry("torch.autocast", "py:class", "amp.html#torch.autocast"),
        Entry("torch.Tensor", "py:class", "tensors.html#torch.Tensor"),
        Entry("torch.Tensor.add", "py:method", "generated/torch.Tensor.add.html#torch.Tensor.add"),
        Entry(
            "torch.compiler.reset",
            "py:function",
            "compile/generated/torch.compiler.reset.html#torch.compiler.reset",
        ),
    }


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("torch.not_in_this_torch", "the installed torch does not have it"),
        ("torch.ones", "no toctree, and its autofunction sits outside an eval-rst fence"),
        ("torch.nn.functional.relu", "two pages document it: its address is not certain"),
        ("torch.cuda.amp", "its only py:module is :noindex:"),
        ("torch.compiler", "currentmodule does not document a module"),
    ],
)
def test_the_generator_leaves_out_names_whose_address_is_not_certain(fixture_entries, name, why):
    assert name not in {e.name for e in fixture_entries}, why


def test_the_written_inventory_is_one_intersphinx_reads_back(fixture_entries):
    data = torch_inventory.inventory_bytes(fixture_entries, project="PyTorch", version="2.13")
    assert data.startswith(b"# Sphinx inventory version 2\n# Project: PyTorch\n# Version: 2.13\n")
    read = _load(data)
    assert {(role, name) for role, names in read.items() for name in names} == {
        (e.role, e.name) for e in fixture_entries
    }
    assert (
        read["py:function"]["torch.zeros"] == f"{TORCH_DOCS}generated/torch.zeros.html#torch.zeros"
    )


def test_the_command_refuses_a_folder_that_does_not_exist(tmp_path):
    with pytest.raises(SystemExit):
        torch_inventory.main([str(tmp_path / "missing"), "-o", str(tmp_path / "torch.inv")])


def test_the_command_writes_the_inventory_it_was_asked_for(tmp_path, capsys):
    output = tmp_path / "torch.inv"
    assert torch_inventory.main([str(FIXTURE), "-o", str(output)]) == 0
    assert "torch.nn.Linear" in _load(output.read_bytes())["py:class"]
    assert "8 of" in capsys.readouterr().out


def test_a_recheck_keeps_addresses_and_drops_what_torch_lacks_or_changed(tmp_path, capsys):
    old = [
        Entry("torch.zeros", "py:function", "generated/torch.zeros.html#torch.zeros"),
        Entry("torch.not_in_this_torch", "py:function", "somewhere.html#x"),
        Entry("torch.nn", "py:function", "nn.html#torch.nn"),  # a module, written as a function
    ]
    written = tmp_path / "old.inv"
    written.write_bytes(torch_inventory.inventory_bytes(old, project="PyTorch", version="2.0"))
    output = tmp_path / "torch.inv"
    assert torch_inventory.main(["--recheck", str(written), "-o", str(output)]) == 0
    read = _load(output.read_bytes())
    assert {(role, name) for role, names in read.items() for name in names} == {
        ("py:function", "torch.zeros")
    }
    assert read["py:function"]["torch.zeros"].endswith("generated/torch.zeros.html#torch.zeros")
    assert "left out: torch.nn is a py:module" in capsys.readouterr().out


# -- The committed inventory and the built site ------------------------------------


@pytest.fixture(scope="module")
def inventory_uris() -> dict[str, str]:
    """Every address of the committed inventory, mapped to its name."""
    read = _load(INVENTORY.read_bytes())
    return {uri: name for names in read.values() for name, uri in names.items()}


def test_the_committed_inventory_is_for_the_installed_torch():
    header = INVENTORY.read_bytes().split(b"\n", 3)[:3]
    assert header[2].decode() == "# Version: " + TORCH_DOCS.rstrip("/").rpartition("/")[2]


def _code_links(site: Path) -> dict[str, set[str]]:
    """Every docs.pytorch.org address linked from code on the site, with the pages that link it."""
    links: dict[str, set[str]] = {}
    for page in site.rglob("*.html"):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for a in soup.select("div.highlight a[href^='https://docs.pytorch.org/']"):
            links.setdefault(a["href"], set()).add(page.relative_to(site).as_posix())
    return links


@pytest.fixture(scope="module")
def code_links(site: Path) -> dict[str, set[str]]:
    return _code_links(site)


@pytest.mark.site
@pytest.mark.parametrize(
    "name",
    [
        "torch.compile",
        "torch.nn.functional.scaled_dot_product_attention",
        "torch.zeros",
        "torch.nn.Linear",
    ],
)
def test_main_api_names_in_code_link_to_their_pytorch_page(code_links, name):
    assert f"{TORCH_DOCS}generated/{name}.html#{name}" in code_links


@pytest.mark.site
def test_markdown_pages_link_their_code_too(site, code_links):
    # Every hand-written page whose Python code names torch links it: codeautolink once
    # left the pages a rebuild wrote again without reading them unlinked (codelinks.py).
    linked = {page for pages in code_links.values() for page in pages}
    with_torch = set()
    for page in site.rglob("*.html"):
        name = page.relative_to(site).as_posix()
        if name.startswith(("gallery/", "_")):
            continue
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        if any("torch." in pre.get_text() for pre in soup.select("div.highlight-python pre")):
            with_torch.add(name)
    assert {"index.html", "guides/measuring.html"} <= with_torch  # the check has pages
    assert sorted(with_torch - linked) == []


@pytest.mark.site
def test_every_link_to_pytorch_docs_is_a_name_of_the_inventory(site, inventory_uris):
    pattern = re.compile(r'href="(https://docs\.pytorch\.org/[^"]*)"')
    strays = {
        (href, page.relative_to(site).as_posix())
        for page in site.rglob("*.html")
        for href in pattern.findall(page.read_text(encoding="utf-8"))
        if href not in inventory_uris
    }
    assert not strays, sorted(strays)[:10]
