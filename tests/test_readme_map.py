"""README's "Where things are" names every module and folder a newcomer needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from cheatsheet._variables import VARIABLES, read, table

ROOT = Path(__file__).resolve().parents[1]


def _map() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## Where things are")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else None]


def test_every_module_of_the_package_and_of_the_build_hooks_is_on_the_map():
    shown = _map()
    modules = [*(ROOT / "src" / "cheatsheet").glob("*.py"), *(ROOT / "docs" / "_ext").glob("*.py")]
    missing = [m.name for m in modules if m.name != "__init__.py" and m.name not in shown]
    missing = [m for m in missing if m != "__main__.py"]
    assert missing == [], f"README's map leaves out {missing}"


def test_every_top_level_folder_is_on_the_map():
    shown = _map()
    folders = [p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))]
    missing = [f for f in folders if f"{f}/" not in shown]
    assert missing == [], f"README's map leaves out {missing}"


def test_every_environment_variable_the_code_reads_is_listed_in_contributing():
    import re

    listed = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    listed = listed[listed.index("## Environment variables") :]
    sources = [
        *(ROOT / "src").rglob("*.py"), *(ROOT / "docs" / "_ext").glob("*.py"),
        *(ROOT / "tests").glob("*.py"), *(ROOT / "benchmarks").glob("*.py"),
        ROOT / "conf.py", ROOT / "noxfile.py",
    ]  # fmt: skip
    # A variable is read where its name stands in a string: environ.get("..."), a constant.
    read = {
        name
        for path in sources
        for name in re.findall(r"[\"'](CHEATSHEET_[A-Z_]+)[\"']", path.read_text("utf-8"))
    }
    # Markers the helpers print for their own parent process, and the tests' own plant.
    read -= {"CHEATSHEET_FIRST_CALL_S", "CHEATSHEET_PLANTED"}
    assert len(read) >= 8
    missing = sorted(name for name in read if f"`{name}`" not in listed)
    assert missing == [], f"CONTRIBUTING's environment variables leave out {missing}"
    assert read <= set(VARIABLES), f"read but not declared: {sorted(read - set(VARIABLES))}"


def test_contributing_holds_the_variables_table_as_the_module_prints_it():
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert table() in text, "run python src/cheatsheet/_variables.py and paste its table"


def test_no_module_reads_a_cheatsheet_variable_but_through_the_one_module():
    import re

    sources = [
        *(ROOT / "src").rglob("*.py"), *(ROOT / "docs" / "_ext").glob("*.py"),
        *(ROOT / "tests").glob("*.py"), *(ROOT / "benchmarks").glob("*.py"),
        ROOT / "conf.py", ROOT / "noxfile.py",
    ]  # fmt: skip
    # environ.get, getenv, or environ[...] not assigned to, of a CHEATSHEET_ name;
    # CHEATSHEET_PLANTED is the tests' own plant, read by the pages they plant.
    direct = re.compile(
        r"(?:environ\.get|getenv)\(\s*[\"'](CHEATSHEET_\w+)|environ\[[\"'](CHEATSHEET_\w+)[\"']\](?!\s*=)"
    )
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in sources
        if path.name != "_variables.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for match in direct.finditer(line)
        if (match[1] or match[2]) != "CHEATSHEET_PLANTED"
    ]
    assert found == []


def test_an_undeclared_variable_is_refused_naming_the_module():
    with pytest.raises(KeyError, match=r"_variables\.py"):
        read("CHEATSHEET_" + "NO_SUCH_THING")  # in two: the listing test reads whole names
