"""Every entry label follows CONTRIBUTING.md's rule: its prefix names its kind, and for three kinds its folder."""

from __future__ import annotations

import re
from pathlib import Path

EXAMPLES = Path(__file__).parent.parent / "examples"
FOLDERS = {"basics-": ("basics",), "errors-": ("errors",), "pt2-": ("pytorch2",)}
FOLDERS["api-"] = tuple(p.name for p in EXAMPLES.glob("reference_*"))
# Older than the rule, and named by records, search words and links (CONTRIBUTING.md).
PREDATE_THE_RULE = {
    "distributed-ddp", "distributed-join", "distributed-fsdp2", "distributed-checkpoint",
    "distributed-zero", "distributed-no-sync", "distributed-find-hang",
    "distributed-debug-detail",
}  # fmt: skip


def _labels() -> list[tuple[str, str]]:
    return [
        (m.group(1), page.parent.name)
        for page in sorted(EXAMPLES.glob("*/*.py"))
        for m in re.finditer(r"^# \.\. _([\w-]+):$", page.read_text(encoding="utf-8"), re.MULTILINE)
    ]


def test_every_label_s_prefix_names_its_kind_and_folder():
    found = _labels()
    assert len(found) > 500
    wrong = [
        (label, folder)
        for label, folder in found
        if label not in PREDATE_THE_RULE
        and folder not in next((f for p, f in FOLDERS.items() if label.startswith(p)), ())
    ]
    assert not wrong, f"labels whose prefix says another folder (CONTRIBUTING.md): {wrong[:5]}"


def test_api_labels_spell_a_name_with_dashes():
    bad = [label for label, _ in _labels() if label.startswith("api-") and "_" in label]
    assert not bad
    namespaces = {label.split("-")[1] for label, _ in _labels() if label.startswith("api-")}
    assert {"f", "nn", "torch"} <= namespaces
