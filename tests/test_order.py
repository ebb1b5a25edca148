"""docs/_ext/order.py: where each build hook runs among the libraries' handlers, in one place."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sphinx.errors import ExtensionError

import order

EXT = Path(__file__).resolve().parent.parent / "docs" / "_ext"
CONNECT = re.compile(r'order\.connect\(app, "([\w-]+)", (\w+)\)')


def _connected() -> set[tuple[str, str]]:
    return {
        (event, f"{path.stem}:{name}")
        for path in EXT.glob("*.py")
        for event, name in CONNECT.findall(path.read_text(encoding="utf-8"))
    }


def test_no_hook_sets_a_priority_of_its_own():
    found = [
        f"{path.name}:{n}"
        for path in EXT.glob("*.py")
        if path.name != "order.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "priority=" in line
    ]
    assert found == []


def test_every_row_of_the_order_is_a_hook_that_connects_through_it_and_says_why():
    assert _connected() == set(order.ORDER)
    assert all(len(why) > 20 for _, why in order.ORDER.values())


def test_a_hook_the_order_does_not_list_is_refused_naming_the_file_to_edit():
    class App:
        def connect(self, *args, **kwargs):
            raise AssertionError("connected")

    def unlisted(app):
        pass

    with pytest.raises(ExtensionError, match=r"docs/_ext/order\.py"):
        order.connect(App(), "builder-inited", unlisted)
