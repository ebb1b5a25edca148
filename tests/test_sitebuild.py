"""The site's build hooks in docs/_ext/: sitebuild.py, pagestate.py, pageinputs.py, freshpage.py."""

from __future__ import annotations

import logging
import os
import random
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch
import torch._dynamo.config
import torch._inductor.config

ROOT = Path(__file__).resolve().parents[1]
import freshpage  # these five on the path through pytest's pythonpath setting
import pageinputs
import pagestate
import shards
import sitebuild


@pytest.fixture
def restore_torch_state():
    yield
    pagestate.reset_state({}, None, "after")


def test_reset_state_puts_back_what_the_page_s_record_reads(restore_torch_state, monkeypatch):
    """After the page, its process writes its record: the stamp reads the threads and CXX."""
    monkeypatch.delenv("CXX", raising=False)
    threads = torch.get_num_threads()
    pagestate.reset_state({}, None, "before")
    torch.set_num_threads(threads + 1)
    os.environ["CXX"] = "planted-c++"
    pagestate.reset_state({}, None, "after")
    assert torch.get_num_threads() == threads
    assert "CXX" not in os.environ


def test_reset_state_quiets_the_cuda_home_notice_of_a_cpu_machine(restore_torch_state):
    notices = logging.getLogger("torch.utils.cpp_extension")
    notices.setLevel(logging.NOTSET)
    pagestate.reset_state({}, None, "before")
    assert notices.getEffectiveLevel() == logging.ERROR


def test_reset_state_raises_a_shown_warning_only_while_a_page_runs(monkeypatch):
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        monkeypatch.setattr(pagestate, "_start", pagestate.PageState.capture())
        pagestate.reset_state({}, None, "before")
        with pytest.raises(UserWarning, match="planted"):
            warnings.warn("planted", UserWarning, stacklevel=1)
        pagestate.reset_state({}, None, "after")
        with warnings.catch_warnings(record=True) as shown:
            warnings.warn("planted", UserWarning, stacklevel=1)
        assert [str(w.message) for w in shown] == ["planted"]


def test_reset_state_keeps_hidden_the_warnings_python_hides(monkeypatch):
    with warnings.catch_warnings():
        warnings.resetwarnings()
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        monkeypatch.setattr(pagestate, "_start", pagestate.PageState.capture())
        pagestate.reset_state({}, None, "before")
        with warnings.catch_warnings(record=True) as shown:
            warnings.warn("a library's own deprecation", DeprecationWarning, stacklevel=1)
        pagestate.reset_state({}, None, "after")
    assert shown == []


def test_reset_state_makes_random_draws_repeat(restore_torch_state):
    draws = []
    for _ in range(2):
        pagestate.reset_state({}, None, "before")
        draws.append((random.random(), np.random.rand(), torch.rand(1).item()))
    assert draws[0] == draws[1]


def test_header_order_follows_first_link(tmp_path):
    topic = tmp_path / "topic"
    topic.mkdir()
    (topic / "GALLERY_HEADER.rst").write_text(
        "#. :ref:`sphx_glr_gallery_topic_second.py`\n#. :ref:`sphx_glr_gallery_topic_first.py`\n"
        "#. :ref:`sphx_glr_gallery_topic_second.py` again\n"
    )
    key = sitebuild.HeaderOrder(topic)
    names = ["first.py", "unlisted_b.py", "second.py", "unlisted_a.py"]
    assert sorted(names, key=key) == ["second.py", "first.py", "unlisted_a.py", "unlisted_b.py"]


def test_header_order_does_not_match_a_longer_name(tmp_path):
    topic = tmp_path / "topic"
    topic.mkdir()
    (topic / "GALLERY_HEADER.rst").write_text(
        ":ref:`sphx_glr_gallery_topic_my_sdpa.py` :ref:`sphx_glr_gallery_topic_sdpa.py`"
    )
    key = sitebuild.HeaderOrder(topic)
    assert sorted(["sdpa.py", "my_sdpa.py"], key=key) == ["my_sdpa.py", "sdpa.py"]


def test_header_order_of_the_real_sections():
    pytorch2 = ROOT / "examples" / "pytorch2"
    key = sitebuild.HeaderOrder(pytorch2)
    assert key("compile_essentials.py") < key("sdpa.py") < key("dtensor.py")


def test_count_api_entries_counts_labelled_cells_of_reference_pages(tmp_path):
    (tmp_path / "reference_a").mkdir()
    (tmp_path / "basics").mkdir()
    (tmp_path / "reference_a" / "page.py").write_text(
        "# %%\n# .. _api-torch-one:\n#\n# torch.one\n"
        "# %%\n# .. _api-nn-two:\n#\n# torch.nn.two\n"
        "# %%\n# .. _basics-three:\n#\n# not an API entry\n"
        "x = 1  # .. _api-inline: is code, not a label\n",
        encoding="utf-8",
    )
    (tmp_path / "basics" / "page.py").write_text("# .. _api-elsewhere:\n", encoding="utf-8")
    assert sitebuild.count_api_entries(tmp_path) == 2


def test_page_inputs_name_the_torch_the_pages_import():
    assert pageinputs.page_inputs()["torch"] == torch.__version__


@pytest.mark.parametrize(
    "variable",
    ["CHEATSHEET_DEVICE", "CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "CXX",
     "WORLD_SIZE", "TORCH_LOGS", "ATEN_CPU_CAPABILITY", "PYTORCH_ENABLE_MPS_FALLBACK",
     "TORCHINDUCTOR_FREEZING", "TORCHINDUCTOR_ANY_NEW_SETTING"],
)  # fmt: skip
def test_page_inputs_change_with_the_device_and_thread_settings(monkeypatch, variable):
    monkeypatch.delenv(variable, raising=False)
    before = pageinputs.page_inputs()
    monkeypatch.setenv(variable, "1")
    assert pageinputs.page_inputs() != before


def test_page_inputs_change_with_the_cpu_even_under_one_model_name(monkeypatch):
    before = pageinputs.page_inputs()
    monkeypatch.setattr(pageinputs.hardware, "cpu_signature", lambda: "family 25 model 17")
    assert pageinputs.page_inputs()["cpu"] != before["cpu"]


def test_page_inputs_change_with_an_optional_package_and_a_build_hook(monkeypatch):
    before = pageinputs.page_inputs()
    real = pageinputs.distribution_version
    monkeypatch.setattr(
        pageinputs, "distribution_version", lambda n: "9.9" if n == "onnxruntime" else real(n)
    )
    assert pageinputs.page_inputs()["onnxruntime"] == "9.9"
    monkeypatch.setattr(pageinputs, "BUILD_HOOKS", (*pageinputs.BUILD_HOOKS, "since.py"))
    assert "build hook since.py" in pageinputs.page_inputs()
    assert "build hook pagestate.py" in before


def test_page_inputs_change_with_the_helper_package_source(monkeypatch, tmp_path):
    package = tmp_path / "cheatsheet"
    package.mkdir()
    (package / "__init__.py").write_text('UNIT = "ms"\n', encoding="utf-8")
    monkeypatch.delitem(sys.modules, "cheatsheet", raising=False)
    monkeypatch.syspath_prepend(tmp_path)
    before = pageinputs.page_inputs()
    (package / "__init__.py").write_text('UNIT = "us"\n', encoding="utf-8")
    assert pageinputs.page_inputs() != before


def test_the_build_command_is_strict_and_keeps_doctrees_out_of_the_site():
    command = sitebuild.sphinx_build_command(ROOT / "noxfile.py")
    assert command[:3] == [sys.executable, "-m", "sphinx"]
    assert {"-W", "--keep-going", "-n"} <= set(command)
    doctrees = Path(command[command.index("-d") + 1])
    site = Path(command[-1])
    assert site not in doctrees.parents
    assert doctrees not in site.parents


_PAGE = 'r"""\nA page\n======\n\nSays what it does.\n"""\n\n# %%\nimport torch\n\n{code}\n'


@pytest.mark.parametrize(
    ("code", "alone"),
    [
        ("x = torch.ones(3)\nprint(x.sum())", False),
        ("from cheatsheet import compare\ncompare({'a': lambda: 1, 'b': lambda: 2})", True),
        ("import time\nstart = time.perf_counter()", True),
        ("from torch.profiler import profile\nwith profile() as p:\n    pass", True),
        ("# torchrun --nproc-per-node=2 train.py\nimport torch.distributed as dist", True),
        ("import torch.distributed as dist\ndist.init_process_group('gloo')", True),
        ("import subprocess\nsubprocess.run(['python', '-c', 'print(1)'])", False),
        ("# sphinx_gallery_parallel = False\nx = torch.ones(3)", True),
    ],
    ids=["plain", "compare", "clock", "profiler", "torchrun", "ranks", "subprocess", "opts-out"],
)
def test_a_page_that_measures_or_starts_ranks_runs_alone(tmp_path, code, alone):
    page = tmp_path / "page.py"
    page.write_text(_PAGE.format(code=code), encoding="utf-8")
    assert freshpage.runs_alone(page) is alone


@pytest.mark.parametrize(
    ("code", "times"),
    [
        ("x = torch.ones(3)\nprint(x.sum())", False),
        ("from cheatsheet import compare\ncompare({'a': lambda: 1, 'b': lambda: 2})", True),
        ("import time\nstart = time.perf_counter()", True),
        ("from torch.profiler import profile\nwith profile() as p:\n    pass", True),
        ("import torch.distributed as dist\ndist.init_process_group('gloo')", False),
    ],
    ids=["plain", "compare", "clock", "profiler", "ranks"],
)
def test_a_page_whose_code_measures_or_reads_a_clock_times_something(tmp_path, code, times):
    page = tmp_path / "page.py"
    page.write_text(_PAGE.format(code=code), encoding="utf-8")
    assert shards.times_something(page) is times


def test_a_clock_named_only_in_a_page_s_prose_is_not_timing_something(tmp_path):
    # The machine stamp is for numbers the page printed, not for words about clocks.
    page = tmp_path / "page.py"
    text = _PAGE.format(code="x = torch.ones(3)")
    page.write_text(text.replace("Says what it does.", "Never time with time.perf_counter."))
    assert "perf_counter" in page.read_text()
    assert shards.times_something(page) is False


def test_every_page_whose_record_measured_or_ran_a_script_runs_alone():
    # The rule reads the source before a page runs; the pages' records say what each did.
    import json

    records = ROOT / "docs" / "gallery"
    if not any(records.glob("*/*.record.json")):
        pytest.skip("no page has run yet: nox -s docs")
    missed = []
    for record in sorted(records.glob("*/*.record.json")):
        data = json.loads(record.read_text(encoding="utf-8"))
        source = ROOT / "examples" / record.parent.name / record.name.replace(".record.json", ".py")
        did = data["comparisons"] or data["measurements"] or data.get("scripts")
        if source.exists() and did and not freshpage.runs_alone(source):
            missed.append(data["page"])
    assert not missed, f"pages that measured or ran ranks, but would run beside others: {missed}"


def test_a_page_run_beside_others_that_still_measured_fails_naming_the_fix(tmp_path):
    (tmp_path / "sneaky.record.json").write_text('{"comparisons": [{"key": "a vs b"}]}')
    with pytest.raises(RuntimeError, match=r"sneaky\.py ran beside other pages.*comparisons"):
        freshpage._check_measured_nothing("sneaky.py", str(tmp_path))
    (tmp_path / "quiet.record.json").write_text('{"comparisons": [], "measurements": []}')
    freshpage._check_measured_nothing("quiet.py", str(tmp_path))


def test_the_number_of_pages_at_once_is_checked(monkeypatch):
    monkeypatch.setenv(freshpage.JOBS, "0")
    with pytest.raises(ValueError, match="1 or more"):
        freshpage._jobs()
    monkeypatch.setenv(freshpage.JOBS, "3")
    assert freshpage._jobs() == 3
