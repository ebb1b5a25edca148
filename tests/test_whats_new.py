"""The newest release page accounts for every public name that release added.

``tools/public_names.py`` wrote the public names of both releases into
``results/public-names/``; the page must name each one the newer release added, or,
for a namespace that is new as a whole (``torch.foreach``), the namespace.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAMES = ROOT / "results" / "public-names"


def _releases() -> list[Path]:
    files = sorted(
        NAMES.glob("torch-*.json"), key=lambda p: [int(x) for x in p.stem[6:].split(".")]
    )
    assert len(files) >= 2, f"two releases' names are needed in {NAMES}"
    return files


def unaccounted(page: str, old: dict, new: dict) -> list[str]:
    """Return ``namespace.name`` for each name ``new`` added that ``page`` does not name."""
    missing = []
    for namespace, names in new.items():
        names = [n for n in names or () if n not in set(old.get(namespace) or ())]
        if old.get(namespace) is None and re.search(rf"\b{re.escape(namespace)}\b", page):
            continue  # a new namespace, named as a whole
        for name in names:
            if not re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", page):
                missing.append(f"{namespace}.{name}")
    return missing


def test_the_newest_release_page_names_every_name_it_added():
    older, newer = (json.loads(p.read_text(encoding="utf-8")) for p in _releases()[-2:])
    major, minor = newer["torch"].split("+")[0].split(".")[:2]
    page = ROOT / "examples" / "pytorch2" / f"whats_new_{major}_{minor}.py"
    assert page.exists(), f"no page for torch {major}.{minor}: write {page.relative_to(ROOT)}"
    missing = unaccounted(page.read_text(encoding="utf-8"), older["names"], newer["names"])
    assert not missing, f"{page.name} does not name what {major}.{minor} added: {missing}"


def test_a_name_the_page_leaves_out_is_found():
    old = {"torch.optim": ["SGD"], "torch.foreach": None}
    new = {"torch.optim": ["SGD", "functional", "Muon"], "torch.foreach": ["add_", "mul_"]}
    page = "torch.foreach runs one op over a list; torch.optim.functional holds the steps."
    assert unaccounted(page, old, new) == ["torch.optim.Muon"]
    assert unaccounted("nothing named", old, new) == [
        "torch.optim.functional", "torch.optim.Muon", "torch.foreach.add_", "torch.foreach.mul_"
    ]  # fmt: skip


_ENTRY_LINK = re.compile(r":entry:`[^`<]*<([\w-]+)>`")


def linked_from_elsewhere(release_page: Path, pages: list[Path]) -> dict[str, list[str]]:
    """Return each entry of ``release_page`` with the other pages whose Summary links it."""
    labels = re.findall(
        r"^# \.\. _([\w-]+):$", release_page.read_text(encoding="utf-8"), re.MULTILINE
    )
    found: dict[str, list[str]] = {label: [] for label in labels}
    for page in pages:
        if page == release_page:
            continue
        for label in _ENTRY_LINK.findall(page.read_text(encoding="utf-8")):
            if label in found:
                found[label].append(page.stem)
    return found


def test_every_feature_of_the_newest_release_is_linked_where_readers_look_for_it():
    # Its entries run on the release page; the pages of the API each one belongs to link it
    # from their Summary, where a reader of that API looks (and search reads the row).
    newer = json.loads(_releases()[-1].read_text(encoding="utf-8"))
    major, minor = newer["torch"].split("+")[0].split(".")[:2]
    page = ROOT / "examples" / "pytorch2" / f"whats_new_{major}_{minor}.py"
    links = linked_from_elsewhere(page, sorted((ROOT / "examples").glob("*/*.py")))
    # Entries about the release as a whole, or about what this CPU cannot run.
    about_the_release = {f"pt2-whats-new-{major}-{minor}-{s}" for s in ("not-on-cpu",)}
    alone = [
        label for label, pages in links.items() if not pages and label not in about_the_release
    ]
    assert not alone, f"no other page's Summary links these entries of {page.name}: {alone}"
