"""A small site built with this project's conf.py and command: failures, reruns, leaks."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import torch
import torch._dynamo.config
import torch._inductor.config
from bs4 import BeautifulSoup

# Planted by a page and by the last page; none of it may reach a later page or the build.
PLANT_STATE = """
# %%
import os
import warnings

import numpy as np
import torch
import torch._dynamo.config
import torch._inductor.config
import torch.nn.functional as F

torch.set_default_device("meta")
torch.set_default_dtype(torch.float64)
torch.manual_seed(123)
torch.set_grad_enabled(False)
torch.autocast("cpu", dtype=torch.bfloat16).__enter__()
torch.autograd.set_detect_anomaly(True)
torch.set_flush_denormal(True)
torch.set_num_threads(torch.get_num_threads() + 1)
torch.backends.mkldnn.enabled = False
torch.set_float32_matmul_precision("medium")
torch.backends.cuda.matmul.fp32_precision = "tf32"
torch._dynamo.config.recompile_limit = 1
torch._inductor.config.max_autotune = True
np.set_printoptions(precision=2)
warnings.filterwarnings("ignore", message="planted")
os.environ["CHEATSHEET_PLANTED"] = "1"
torch.Tensor.planted = "planted"
F.relu = lambda x: x
np.planted = "planted"
print("threads set to", torch.get_num_threads())
"""

SETS_STATE = (
    '''r"""
Sets state
==========

Changes what a later page would inherit if the build did not reset it.
"""
'''
    + PLANT_STATE
)

LEAVES_STATE = (
    '''r"""
Leaves state
============

The last page: changes what the build would report after the gallery.
"""
'''
    + PLANT_STATE
)

READS_STATE = '''r"""
Reads state
===========

Shows the state a page starts with.
"""

# %%
import os
import warnings

import numpy as np
import torch
import torch._dynamo.config
import torch._inductor.config
import torch.nn.functional as F

print("device", torch.get_default_device())
print("dtype", torch.get_default_dtype())
print("draw", round(torch.rand(1).item(), 6))
print("grad", torch.is_grad_enabled())
print("autocast", torch.is_autocast_enabled("cpu"), (torch.ones(2, 2) @ torch.ones(2, 2)).dtype)
print("anomaly", torch.is_anomaly_enabled())
print("denormal", (torch.tensor([1e-323], dtype=torch.float64) * 1).item())
print("threads", torch.get_num_threads())
print("mkldnn", torch.backends.mkldnn.enabled)
print("matmul", torch.get_float32_matmul_precision(), torch.backends.cuda.matmul.fp32_precision)
print("recompile_limit", torch._dynamo.config.recompile_limit)
print("max_autotune", torch._inductor.config.max_autotune)
print("numpy precision", np.get_printoptions()["precision"])
print("planted filter", any(f[1] is not None and f[1].pattern == "planted" for f in warnings.filters))
print("environ", os.environ.get("CHEATSHEET_PLANTED"))
print("Tensor.planted", hasattr(torch.Tensor, "planted"))
print("relu", F.relu(torch.tensor([-1.0])).tolist())
print("np.planted", hasattr(np, "planted"))
'''

USES_HELPERS = '''r"""
Uses helpers
============

Prints a value from the helper package, as benchmark pages print its tables.

Summary
-------

========  ====================================
You want  Call
========  ====================================
the unit  :entry:`UNIT <api-minisite-unit>`
========  ====================================
"""

# %%
# .. _api-minisite-unit:
#
# UNIT
# ----
from cheatsheet.minisite import UNIT

print("unit", UNIT)

# %%
from cheatsheet import compare

compare({"abs": abs, "neg": lambda x: -x}, -1.0, budget_s=0.2, min_rounds=6).verdicts()
'''

FAILS = '''r"""
Fails
=====

Raises, as a broken page would.
"""

# %%
ratio = 1 / 0
'''

WARNS = '''r"""
Warns
=====

Raises a warning it does not catch.
"""

# %%
import warnings

warnings.warn("planted warning", UserWarning, stacklevel=1)
'''

SHOWS_WARNING = '''r"""
Shows a warning
===============

Catches the warning it means to show, and prints it.
"""

# %%
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    warnings.warn("planted warning", UserWarning, stacklevel=1)
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
'''

RUNS_TORCHRUN = '''r"""
Runs torchrun
=============

A script for torchrun, run as a reader runs it.
"""

# %%
# Two ranks.

# torchrun --nproc-per-node=2 hello.py
import os

print(f"rank {os.environ['RANK']} of {os.environ['WORLD_SIZE']}")
'''

# Rank 0 aborts as a rank hit by gloo's teardown race does, on its first two runs; the
# runs are counted in a file (``{runs}``, filled in by the fixture).
ABORTS_TWICE = '''r"""
Aborts twice
============

A script for torchrun whose rank 0 aborts at exit on its first two runs.
"""

# %%

# torchrun --nproc-per-node=2 aborts.py
import os
import sys
from pathlib import Path

if os.environ["RANK"] == "0":
    runs = Path({runs!r})
    runs.write_text(runs.read_text() + "x" if runs.exists() else "x")
    if len(runs.read_text()) < 3:
        print("terminate called without an active exception", file=sys.stderr, flush=True)
        os.abort()
    print("run", len(runs.read_text()))
'''

FAILS_ON_A_RANK = '''r"""
Fails on a rank
===============

One rank of a script for torchrun raises.
"""

# %%

# torchrun --nproc-per-node=2 fails.py
import os

if os.environ["RANK"] == "1":
    raise ValueError("planted failure on rank one")
'''

HEADER = """Basics
------

#. :ref:`sphx_glr_gallery_basics_sets_state.py`
#. :ref:`sphx_glr_gallery_basics_reads_state.py`
#. :ref:`sphx_glr_gallery_basics_uses_helpers.py`
#. :ref:`sphx_glr_gallery_basics_leaves_state.py`
"""
PAGES = {
    "sets_state": SETS_STATE,
    "reads_state": READS_STATE,
    "uses_helpers": USES_HELPERS,
    "leaves_state": LEAVES_STATE,
}

INDEX = """# Mini site

```{build-machines}
```

```{recorded-machines}
```

```{torch-coverage}
```

```{toctree}
gallery/index
```
"""


def _examples_run(result: subprocess.CompletedProcess[str]) -> int:
    found = re.search(r"successfully executed (\d+) out of", result.stdout)
    assert found, result.stdout + result.stderr
    return int(found.group(1))


def _output(root: Path, page: str) -> str:
    html = (root / "_build" / "html" / "gallery" / "basics" / f"{page}.html").read_text()
    blocks = BeautifulSoup(html, "html.parser").select("div.sphx-glr-script-out pre")
    return "\n".join(block.get_text() for block in blocks)


@contextlib.contextmanager
def _extra_page(root: Path, name: str, text: str) -> Iterator[None]:
    """Add one example for one build, then remove it and what the build made of it."""
    (root / "examples" / "basics" / f"{name}.py").write_text(text, encoding="utf-8")
    try:
        yield
    finally:
        (root / "examples" / "basics" / f"{name}.py").unlink()
        for made in (root / "docs" / "gallery" / "basics").rglob(f"*{name}*"):
            made.unlink()


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, mini_site) -> Path:
    root = tmp_path_factory.mktemp("mini")
    mini_site.lay_out(root)
    (root / "src" / "cheatsheet" / "minisite.py").write_text('UNIT = "ms"\n', encoding="utf-8")
    (root / "docs" / "index.md").write_text(INDEX, encoding="utf-8")
    topic = root / "examples" / "basics"
    topic.mkdir(parents=True)
    (root / "examples" / "GALLERY_HEADER.rst").write_text("Gallery\n=======\n", encoding="utf-8")
    (topic / "GALLERY_HEADER.rst").write_text(HEADER, encoding="utf-8")
    for name, text in PAGES.items():
        (topic / f"{name}.py").write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def passing_build(project: Path, mini_site) -> subprocess.CompletedProcess[str]:
    return mini_site.build(project)


def test_a_good_site_builds_without_warnings(passing_build):
    assert passing_build.returncode == 0, passing_build.stdout + passing_build.stderr


def test_each_page_leaves_a_record_of_what_it_measured(project, passing_build):
    import json

    import jsonschema

    from cheatsheet import _records as records

    folder = project / "_build" / "html" / "_records" / "basics"
    found = sorted(p.stem for p in folder.glob("*.json"))
    assert found == sorted(PAGES)
    for path in folder.glob("*.json"):
        jsonschema.validate(json.loads(path.read_text()), records.schema())
    measured = json.loads((folder / "uses_helpers.json").read_text())
    assert [c["key"] for c in measured["comparisons"]] == ["abs vs neg"]
    assert measured["page"] == "basics/uses_helpers"
    assert json.loads((folder / "reads_state.json").read_text())["comparisons"] == []


def _synthetic_record(live: dict, cpu: str, **changes: object) -> dict:
    """Test data only: the live record as if another machine had made it."""
    import copy

    from cheatsheet import _records as records

    record = copy.deepcopy(live)
    record["machine"].update(cpu=cpu, **changes.pop("machine", {}))
    record["machine_id"] = records.machine_id(record["machine"])
    record.update(commit="f" * 40, date="2026-01-02T03:04:05+00:00", **changes)
    return record


def _relabelled(comparison: dict, names: dict[str, str]) -> dict:
    """Test data only: the comparison with its candidates renamed, its key and sentences
    made again from the new names, so that the record still agrees with itself."""
    import copy

    from cheatsheet._records import comparison_key
    from cheatsheet.report import Ratio

    c = copy.deepcopy(comparison)
    for m in c["measurements"]:
        m["label"] = names[m["label"]]
    c["baseline"] = names[c["baseline"]]
    for r in c["ratios"]:
        r.update(label=names[r["label"]], baseline=names[r["baseline"]])
        given = {k: v for k, v in r.items() if k not in ("kind", "sentence")}
        r["sentence"] = Ratio(**given).sentence()
    c["key"] = comparison_key([m["label"] for m in c["measurements"]], {})
    return c


def test_records_from_other_machines_show_beside_the_live_result(project, passing_build, mini_site):
    import json

    live_path = project / "_build" / "html" / "_records" / "basics" / "uses_helpers.json"
    live = json.loads(live_path.read_text())
    gone = _relabelled(live["comparisons"][0], {"abs": "gone", "neg": "away"})
    gpu_only = _relabelled(live["comparisons"][0], {"abs": "on the gpu", "neg": "off it"})
    same = _synthetic_record(
        live, "Test Xeon", machine={"gpus": ["Test GPU (80 GiB)"]},
        comparisons=[*live["comparisons"], gpu_only],
    )  # fmt: skip
    # An older version of the page, whose other comparison's candidates the page still
    # names ("neg", "abs"): shown apart too, marked as recorded with an older version.
    flipped = _relabelled(live["comparisons"][0], {"abs": "neg", "neg": "abs"})
    older = _synthetic_record(
        live, "Test Arm", machine={"torch_version": "2.4.0"}, source_sha256="0" * 64,
        comparisons=[*live["comparisons"], flipped],
    )  # fmt: skip
    # A comparison of an older version of the page, which it no longer makes: not shown.
    missing = _synthetic_record(live, "Test Gone", comparisons=[gone], source_sha256="1" * 64)
    # Version runs: the unit entry's probe fails under 2.4.1 and 2.6.0 and works under
    # 2.8.0, so it works since 2.8; the page's top code works everywhere.
    from cheatsheet._entries import load_probes, page_entries

    probes = project / "docs" / "probes.toml"
    probes.write_text(
        '[api-minisite-unit]\ncall = "cheatsheet.minisite.UNIT"\ncode = "import cheatsheet"\n'
    )
    entries = {
        e.label: e for e in page_entries(project / "examples" / "basics" / "uses_helpers.py")
    }
    unit_digest = entries["api-minisite-unit"].digest(load_probes(probes)["api-minisite-unit"].code)

    def part(works: bool, error: str = "") -> dict:
        status = "works" if works else "fails"
        return {"status": status, "runs": 1 if works else 3, "failures": 0 if works else 3,
                "error": error}  # fmt: skip

    runs = {}
    for version, works in [("2.4.1", False), ("2.6.0", False), ("2.8.0", True)]:
        run = _synthetic_record(
            live, "Test Old", machine={"torch_version": version}, comparisons=[]
        )
        error = "" if works else f"AttributeError: planted under {version}"
        unit = {"entry": "api-minisite-unit", "source_sha256": unit_digest,
                "probe": {"api_missing": [], **part(works, error)},
                "blocks": [{"origin": b.origin, **part(works, error)}
                           for b in entries["api-minisite-unit"].blocks]}  # fmt: skip
        top = entries.get("(page top)")
        rows = [unit]
        if version == "2.4.1" and top is not None:
            rows.insert(0, {"entry": "(page top)", "source_sha256": top.digest(), "probe": None,
                            "blocks": [{"origin": b.origin, **part(True)} for b in top.blocks]})  # fmt: skip
        run["entries"] = rows
        run["packages"] = {"torchao": "not installed"}
        runs[f"{run['machine_id']}-torch-{version}"] = run
    results = project / "results"
    for folder, record in [*((r["machine_id"], r) for r in (same, older, missing)),
                           *runs.items()]:  # fmt: skip
        (results / folder / "basics").mkdir(parents=True)
        (results / folder / "basics" / "uses_helpers.json").write_text(json.dumps(record))
    header = project / "examples" / "basics" / "GALLERY_HEADER.rst"
    header.write_text(HEADER + "\nThe unit works since :since:`api-minisite-unit`.\n")
    try:
        result = mini_site.build(project)
        assert result.returncode == 0, result.stdout + result.stderr
        html = (
            project / "_build" / "html" / "gallery" / "basics" / "uses_helpers.html"
        ).read_text()
        landing = (project / "_build" / "html" / "index.html").read_text()
        gallery = (project / "_build" / "html" / "gallery" / "basics" / "index.html").read_text()
    finally:
        shutil.rmtree(results)
        probes.write_text("")
        header.write_text(HEADER)
    soup = BeautifulSoup(html, "html.parser")
    unit = soup.find(id="api-minisite-unit").find_parent("section")
    [note] = soup.select("p.since-note")  # only there: the other entries work under 2.4.1
    assert note in unit.find_all("p")
    # conf.py's since_releases lists 2.7.1, which these records leave out: the since is an
    # upper bound, and the note names the release not measured.
    assert "Works with torch 2.8.0 and newer" in note.get_text()
    assert (
        "cheatsheet.minisite.UNIT did not work under 2.6.0 (AttributeError: planted under 2.6.0) "
        "and works under 2.8.0; 2.7.1 between them are not measured yet" in note.get_text()
    )
    [since] = BeautifulSoup(gallery, "html.parser").select("span.since")
    assert since.get_text() == "≤ 2.8"
    tables = {
        t.caption.get_text().split(":")[0]: t for t in soup.select("#on-other-machines table")
    }
    assert sorted(tables) == ["abs vs neg", "neg vs abs", "on the gpu vs off it"]
    table, elsewhere, flipped_table = (
        tables[k] for k in ("abs vs neg", "on the gpu vs off it", "neg vs abs")
    )
    assert "abs vs neg" in table.caption.get_text()
    # A comparison the same page made on another machine, on a path this build did not
    # take (a GPU's): shown apart, with the machines that ran it.
    assert "on the gpu vs off it" in elsewhere.caption.get_text()
    assert "not run by this build" in elsewhere.caption.get_text()
    elsewhere_heads = [th.get_text(" ") for th in elsewhere.select("thead th")]
    assert len(elsewhere_heads) == 2
    from machines import cpu_words  # "Test Xeon" names no model: its signature follows

    xeon_words = f"{cpu_words(same['machine'])} + Test GPU (80 GiB)"
    assert xeon_words in elsewhere_heads[1]
    assert "neg vs abs" in flipped_table.caption.get_text()
    assert "older version of this page" in flipped_table.select("thead th")[1].get_text(" ")
    heads = [th.get_text(" ") for th in table.select("thead th")]
    assert len(heads) == 4  # candidate, this build, and the two machines that ran it
    assert "this build" in heads[1]
    xeon = next(h for h in heads if "Test Xeon" in h)
    arm = next(h for h in heads if "Test Arm" in h)
    assert xeon_words in xeon
    assert "older version" not in xeon
    assert "another torch" not in xeon
    assert "torch 2.4.0" in arm
    assert "older version of this page" in arm
    assert "another torch" in arm
    assert "2026-01-02, commit ffffffffff" in arm
    assert "Test Gone" not in html
    assert "gone vs away" not in html
    rows = [[c.get_text() for c in tr.select("th, td")] for tr in table.select("tbody tr")]
    assert [r[0] for r in rows] == ["abs", "neg"]
    assert rows[0][1].startswith("baseline")
    machines = BeautifulSoup(landing, "html.parser").select_one("table.records-machines")
    # Each named by its CPU, then (a test name gives no model) its signature and kernels.
    cpus = machines.select("tbody tr td:first-child")
    assert sorted(td.get_text().split(" (")[0] for td in cpus) == [
        "Test Arm", "Test Gone", "Test Old", "Test Xeon"
    ]  # fmt: skip
    assert "2.4.1, 2.6.0, 2.8.0" in machines.get_text()
    coverage = BeautifulSoup(landing, "html.parser")
    text = " ".join(coverage.get_text().split())
    top_rows = 2 if "(page top)" in entries else 1
    assert f"torch 2.4.1 (2026-01-02): every entry; {top_rows - 1} of {top_rows} work." in text
    assert "torch 2.6.0 (2026-01-02): every probe, and the entries that did not all work " in text
    [row] = coverage.select("table.torch-coverage tbody tr")
    cells = [td.get_text(" ", strip=True) for td in row.select("td")]
    assert cells[:3] == ["≤ 2.8", "api-minisite-unit", "cheatsheet.minisite.UNIT"]
    assert row.select_one("a")["href"].endswith("uses_helpers.html#api-minisite-unit")
    assert "did not work under 2.6.0" in cells[3]


def test_a_since_of_an_unknown_entry_fails_the_build_with_a_suggestion(
    project, passing_build, mini_site
):
    probes = project / "docs" / "probes.toml"
    probes.write_text('[api-minisite-unit]\ncall = "UNIT"\ncode = "import cheatsheet"\n')
    header = project / "examples" / "basics" / "GALLERY_HEADER.rst"
    header.write_text(HEADER + "\nThe unit works since :since:`api-minisite-unti`.\n")
    try:
        result = mini_site.build(project)
    finally:
        probes.write_text("")
        header.write_text(HEADER)
    assert result.returncode != 0
    assert (
        "no version record dates the entry 'api-minisite-unti'; did you mean "
        "'api-minisite-unit'?" in result.stderr
    )
    assert "Traceback" not in result.stderr + result.stdout


WARNS_ONCE = '''r"""
Warns once {name}
=================

Counts the warnings of a call torch warns about once per process.
"""

# %%
import warnings

import torch

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])
print("warnings:", len(caught))
'''


def _build_in_order(root: Path, mini_site, order: list[str]) -> dict[str, str]:
    """Build the pages in ``order`` from nothing; return each page's output."""
    header = "Basics\n------\n\n" + "".join(
        f"#. :ref:`sphx_glr_gallery_basics_{name}.py`\n" for name in order
    )
    (root / "examples" / "basics" / "GALLERY_HEADER.rst").write_text(header)
    shutil.rmtree(root / "docs" / "gallery", ignore_errors=True)
    shutil.rmtree(root / "_build", ignore_errors=True)
    result = mini_site.build(root)
    assert result.returncode == 0, result.stdout + result.stderr
    return {name: _output(root, name) for name in order}


def test_a_page_prints_the_same_built_first_or_after_another(tmp_path, mini_site):
    # torch warns about prototype nested tensors once per process, from C++: nothing in
    # Python resets that, so only a process of its own per page keeps the pages apart.
    root = tmp_path / "order"
    root.mkdir()
    mini_site.lay_out(root)
    (root / "docs" / "index.md").write_text("# Order\n\n```{toctree}\ngallery/index\n```\n")
    topic = root / "examples" / "basics"
    topic.mkdir(parents=True)
    (root / "examples" / "GALLERY_HEADER.rst").write_text("Gallery\n=======\n")
    for name in ("one", "two"):
        (topic / f"warns_{name}.py").write_text(WARNS_ONCE.format(name=name))
    forward = _build_in_order(root, mini_site, ["warns_one", "warns_two"])
    backward = _build_in_order(root, mini_site, ["warns_two", "warns_one"])
    assert forward == backward
    assert all("warnings: 1" in output for output in forward.values()), forward


def test_pages_run_in_header_order_and_start_from_a_clean_state(project, passing_build):
    output = _output(project, "reads_state")
    torch.manual_seed(0)
    expected_draw = round(torch.rand(1).item(), 6)
    assert "device cpu" in output
    assert "dtype torch.float32" in output
    assert f"draw {expected_draw}" in output
    index = (project / "_build" / "html" / "gallery" / "index.html").read_text()
    assert index.index("sets_state") < index.index("reads_state") < index.index("leaves_state")


def test_nothing_a_page_changes_reaches_the_next_page(project, passing_build):
    lines = set(_output(project, "reads_state").splitlines())
    expected = {
        "grad True",
        "autocast False torch.float32",
        "anomaly False",
        "denormal 1e-323",
        f"mkldnn {torch.backends.mkldnn.enabled}",
        "matmul highest none",
        f"recompile_limit {torch._dynamo.config.recompile_limit}",
        f"max_autotune {torch._inductor.config.max_autotune}",
        f"numpy precision {np.get_printoptions()['precision']}",
        "planted filter False",
        "environ None",
        "Tensor.planted False",
        "relu [0.0]",
        "np.planted False",
    }
    assert expected <= lines, "\n".join(sorted(expected - lines))
    (planted,) = re.findall(r"threads set to (\d+)", _output(project, "sets_state"))
    assert f"threads {planted}" not in lines


def test_the_landing_page_stamp_shows_the_threads_the_pages_ran_with(project, passing_build):
    (threads,) = re.findall(r"^threads (\d+)$", _output(project, "reads_state"), re.MULTILINE)
    soup = BeautifulSoup((project / "_build" / "html" / "index.html").read_text(), "html.parser")
    machines = [
        td.get_text(strip=True) for td in soup.select("table.build-machines tbody td:first-child")
    ]
    assert machines, "the landing page lists no machine"
    assert all(f", {threads} torch threads" in m for m in machines), machines


def test_the_site_folder_holds_no_build_state(project, passing_build):
    site = project / "_build" / "html"
    assert not (site / ".doctrees").exists()
    assert not list(site.rglob("*.pickle")) + list(site.rglob("*.doctree"))
    # html_copy_source is off: Sphinx still makes the folder, and leaves it empty.
    assert not list((site / "_sources").rglob("*"))


def test_a_summary_call_is_code_that_links_to_its_entry(project, passing_build):
    html = (project / "_build" / "html" / "gallery" / "basics" / "uses_helpers.html").read_text()
    link = BeautifulSoup(html, "html.parser").select_one("table a.reference.internal")
    assert link is not None
    assert link["href"] == "#api-minisite-unit"
    assert link.find("code") is not None
    assert link.get_text() == "UNIT"


def test_a_summary_call_to_a_missing_entry_fails_the_build(project, passing_build, mini_site):
    missing = USES_HELPERS.replace("<api-minisite-unit>`", "<api-minisite-gone>`").replace(
        "_api-minisite-unit:", "_api-minisite-other:"
    )
    with _extra_page(project, "links_nowhere", missing):
        result = mini_site.build(project)
    assert result.returncode != 0
    # The notebook's text conversion or Sphinx's reference check, whichever meets it first,
    # names the missing label.
    assert "api-minisite-gone" in result.stdout + result.stderr


def test_a_rebuild_with_nothing_changed_runs_no_example(project, passing_build, mini_site):
    result = mini_site.build(project)
    assert result.returncode == 0, result.stdout + result.stderr
    assert _examples_run(result) == 0


def test_a_change_to_the_helper_package_runs_every_page_again(project, passing_build, mini_site):
    assert "unit ms" in _output(project, "uses_helpers")
    (project / "src" / "cheatsheet" / "minisite.py").write_text('UNIT = "us"\n', encoding="utf-8")
    result = mini_site.build(project)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "unit us" in _output(project, "uses_helpers")
    assert _examples_run(result) == len(PAGES)


def test_a_build_of_chosen_pages_runs_only_them_and_keeps_the_others(
    project, passing_build, mini_site
):
    """`nox -s docs -- <page>.py`: that page runs; the rest stay as their last run left them."""
    topic = project / "examples" / "basics"
    edited = {name: (topic / f"{name}.py").read_text() for name in ("reads_state", "leaves_state")}
    kept = _output(project, "sets_state")
    try:
        for name, text in edited.items():
            (topic / f"{name}.py").write_text(text + f'\nprint("{name}, edited")\n')
        chosen = mini_site.build(project, CHEATSHEET_RUN_ONLY=r"(basics/reads_state\.py)$")
        assert chosen.returncode == 0, chosen.stdout + chosen.stderr
        assert _examples_run(chosen) == 1
        assert "reads_state, edited" in _output(project, "reads_state")
        assert _output(project, "sets_state") == kept  # unchanged and left out: kept
        assert _output(project, "leaves_state") == ""  # changed and left out: not run yet...
        after = mini_site.build(project)  # ...so the next build runs it, and nothing else
        assert after.returncode == 0, after.stdout + after.stderr
        assert _examples_run(after) == 1
        assert "leaves_state, edited" in _output(project, "leaves_state")
    finally:
        for name, text in edited.items():
            (topic / f"{name}.py").write_text(text)
        assert mini_site.build(project).returncode == 0


# Two pages that measure nothing, each waiting (up to a minute) to see the other start, and
# a page that opts out of running beside others. Each notes its start and end in one log.
SIDE_BY_SIDE = '''r"""
Side {name}
=======

Waits to see side {other} start.
"""

# %%
import os
import pathlib
import time

log = pathlib.Path(os.environ["SIDE_BY_SIDE_LOG"])
with log.open("a") as f:
    f.write("start {name}\\n")
for _ in range(600):
    if "start {other}" in log.read_text():
        break
    time.sleep(0.1)
print("met {other}:", "start {other}" in log.read_text())
time.sleep({linger})
with log.open("a") as f:
    f.write("end {name}\\n")
'''

RUNS_ALONE = '''r"""
Side alone
==========

Opts out of running beside other pages.
"""

# %%
# sphinx_gallery_parallel = False
import os
import pathlib

log = pathlib.Path(os.environ["SIDE_BY_SIDE_LOG"])
with log.open("a") as f:
    f.write("start alone\\n")
print("ran")
with log.open("a") as f:
    f.write("end alone\\n")
'''


def test_pages_that_measure_nothing_run_side_by_side_and_one_that_opts_out_runs_alone(
    project, passing_build, mini_site, tmp_path
):
    log = tmp_path / "log"
    log.write_text("")
    pages = {  # sphinx-gallery asks for them in this order: unlisted pages go by name
        "side_a": SIDE_BY_SIDE.format(name="a", other="b", linger=0),
        "side_alone": RUNS_ALONE,
        "side_b": SIDE_BY_SIDE.format(name="b", other="a", linger=2),
    }
    with _extra_pages(project, pages):
        result = mini_site.build(project, SIDE_BY_SIDE_LOG=str(log), CHEATSHEET_PAGE_JOBS="2")
        assert result.returncode == 0, result.stdout + result.stderr
        outputs = {name: _output(project, name) for name in pages}
    assert "met b: True" in outputs["side_a"]
    assert "met a: True" in outputs["side_b"]
    assert "ran" in outputs["side_alone"]
    events = log.read_text().splitlines()
    before = events[: events.index("start alone")]
    running = {e.split()[1] for e in before if e.startswith("start")}
    running -= {e.split()[1] for e in before if e.startswith("end")}
    assert not running, f"side {running} still ran when the page that runs alone started"
    assert events[events.index("start alone") + 1] == "end alone", events


CRASHES = '''r"""
Crashes
=======

Ends its interpreter from C, leaving no traceback, while another page runs beside it.
"""

# %%
import os

os.abort()
'''


def test_a_page_that_crashes_its_interpreter_fails_the_build_naming_it(
    project, passing_build, mini_site, tmp_path
):
    log = tmp_path / "log"
    log.write_text("start b\n")  # side a meets it at once
    pages = {"crashes": CRASHES, "side_a": SIDE_BY_SIDE.format(name="a", other="b", linger=0)}
    with _extra_pages(project, pages):
        result = mini_site.build(project, SIDE_BY_SIDE_LOG=str(log), CHEATSHEET_PAGE_JOBS="2")
    assert result.returncode != 0
    assert "the process that ran crashes.py ended (killed by SIGABRT) before it returned" in (
        result.stdout + result.stderr
    )


HANGS = '''r"""
Hangs
=====

Starts a child that sleeps, then waits for ever.
"""

# %%
import os
import pathlib
import subprocess
import sys
import time

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
pathlib.Path(os.environ["PIDS"]).write_text(f"{os.getpid()} {child.pid}")
while True:
    time.sleep(1)
'''

LEAVES_A_WORKER = '''r"""
Leaves a worker
===============

Starts a multiprocessing worker that outlives the page by an hour.
"""

# %%
import multiprocessing
import os
import pathlib
import time

worker = multiprocessing.get_context("fork").Process(target=time.sleep, args=(3600,))
worker.start()
pathlib.Path(os.environ["PIDS"]).write_text(str(worker.pid))
print("worker started; processes start by", multiprocessing.get_start_method())
'''


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"  # a zombie has ended


def test_a_page_past_its_time_limit_fails_the_build_naming_itself(
    project, passing_build, mini_site, tmp_path
):
    pids = tmp_path / "pids"
    with _extra_pages(project, {"hangs": HANGS}):
        result = mini_site.build(project, PIDS=str(pids), CHEATSHEET_PAGE_TIMEOUT_S="20")
    out = result.stdout + result.stderr
    assert result.returncode != 0
    assert "hangs.py ran past its limit of 20 s and was stopped" in out
    assert "CHEATSHEET_PAGE_TIMEOUT_S" in out
    page, child = (int(p) for p in pids.read_text().split())
    assert not _alive(page), "the page's process outlived the build"
    assert not _alive(child), "a process the page started outlived the build"


def test_a_worker_that_outlives_its_page_neither_holds_the_build_nor_survives_it(
    project, passing_build, mini_site, tmp_path
):
    # The worker sleeps an hour: a build that waited for it would run past the mini
    # site build's limit of 15 minutes (tests/conftest.py), and the test would fail.
    pids = tmp_path / "pids"
    with _extra_pages(project, {"leaves_a_worker": LEAVES_A_WORKER}):
        result = mini_site.build(project, PIDS=str(pids))
        assert result.returncode == 0, result.stdout + result.stderr
        # The start method a reader's `python page.py` has, not the build's fork server's.
        default = multiprocessing.get_start_method()
        assert f"processes start by {default}" in _output(project, "leaves_a_worker")
    assert not _alive(int(pids.read_text())), "the page's worker outlived the build"


@contextlib.contextmanager
def _extra_pages(root: Path, pages: dict[str, str]) -> Iterator[None]:
    with contextlib.ExitStack() as stack:
        for name, text in pages.items():
            stack.enter_context(_extra_page(root, name, text))
        yield


@pytest.fixture(scope="module")
def failing_pages_build(project, passing_build, mini_site) -> str:
    """One build with three broken pages: each fails it, and each is named with its error."""
    broken = {"warns": WARNS, "fails": FAILS, "fails_on_a_rank": FAILS_ON_A_RANK}
    with _extra_pages(project, broken):
        result = mini_site.build(project)
    assert result.returncode != 0
    return result.stdout + result.stderr


@pytest.fixture(scope="module")
def extra_pages_build(project, passing_build, mini_site, tmp_path_factory):
    """One build with more pages that work; their outputs and the torchrun page's code."""
    runs = tmp_path_factory.mktemp("aborts") / "runs"
    extra = {
        "shows_warning": SHOWS_WARNING,
        "runs_torchrun": RUNS_TORCHRUN,
        "aborts_twice": ABORTS_TWICE.format(runs=str(runs)),
    }
    with _extra_pages(project, extra):
        result = mini_site.build(project)
        outputs = {name: _output(project, name) for name in extra}
        html = project / "_build" / "html" / "gallery" / "basics" / "runs_torchrun.html"
        shown = BeautifulSoup(html.read_text(), "html.parser").select_one("div.highlight pre")
    return result, outputs, shown.get_text()


def test_a_page_that_warns_fails_the_build_naming_page_and_warning(failing_pages_build):
    assert "warns.py" in failing_pages_build
    assert "UserWarning: planted warning" in failing_pages_build


def test_a_page_that_catches_its_warning_shows_it_and_builds(extra_pages_build):
    result, outputs, _ = extra_pages_build
    assert result.returncode == 0, result.stdout + result.stderr
    assert "UserWarning: planted warning" in outputs["shows_warning"]


def test_a_failing_page_fails_the_build_with_its_traceback(failing_pages_build):
    assert "ZeroDivisionError" in failing_pages_build
    assert "fails.py" in failing_pages_build


def test_a_script_for_torchrun_runs_under_torchrun_and_shows_each_rank(extra_pages_build):
    result, outputs, shown = extra_pages_build
    assert result.returncode == 0, result.stdout + result.stderr
    assert outputs["runs_torchrun"].splitlines() == ["[rank0]: rank 0 of 2", "[rank1]: rank 1 of 2"]
    # The page shows the reader's script, its command first.
    assert shown.startswith("# torchrun --nproc-per-node=2 hello.py\n")


def test_a_rank_that_aborts_as_gloo_tears_down_runs_again_up_to_four_runs(extra_pages_build):
    from cheatsheet._blocks import TRANSIENT_RUNS

    result, outputs, _ = extra_pages_build
    assert result.returncode == 0, result.stdout + result.stderr
    assert outputs["aborts_twice"].strip() == "[rank0]: run 3"
    assert TRANSIENT_RUNS == 4
    assert f"aborts.py failed in a way worth another run; run 3 of at most {TRANSIENT_RUNS}" in (
        result.stdout
    )


def test_a_failing_rank_fails_the_build_with_its_traceback(failing_pages_build):
    assert "fails_on_a_rank.py" in failing_pages_build
    assert "[rank1]: Traceback (most recent call last):" in failing_pages_build
    assert "[rank1]: ValueError: planted failure on rank one" in failing_pages_build
