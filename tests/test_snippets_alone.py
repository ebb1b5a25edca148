"""Every Python code block of the built site runs alone, as a reader pastes it.

A script for torchrun (first line ``# torchrun --nproc-per-node=N name.py``) is saved
under its name and started with that command from a shell with nothing of this
repository, as a reader starts it. The build already runs each such script exactly so
(``blockexec``, through ``cheatsheet._blocks.run_script``) and its page's record names it
by digest: that run is the script's run alone, and this test checks that every script
the site shows has one, rather than starting each again.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from blockcache import PassRecord, fresh_inputs, key
from snippets import TRANSIENT_RUNS, Block, Outcome, html_blocks, run_alone, site_blocks

SAMPLE = 6  # blocks that run in brand-new interpreters too


def _failures(outcomes) -> str:
    lines = []
    for o in outcomes:
        if not o.ok:
            tail = "\n".join(o.output.strip().splitlines()[-4:])
            lines.append(f"{o.block.origin}:\n    " + tail.replace("\n", "\n    "))
    return "\n".join(lines)


@pytest.fixture(scope="module")
def blocks(site):
    found = site_blocks(site)
    assert len(found) > 300, (
        f"only {len(found)} Python blocks found in {site}: has the markup changed?"
    )
    return found


@pytest.fixture(scope="module")
def inputs_now() -> dict[str, str]:
    """What a block's run depends on besides its code (blockcache.py), read once."""
    return fresh_inputs()


def _is_script(block: Block) -> bool:
    from cheatsheet._torchrun import marked_launch

    return marked_launch(block.code) is not None


@pytest.mark.site
@pytest.mark.slow
def test_every_code_block_of_the_site_runs_alone(blocks, site, inputs_now):
    # A block that passed alone before, with the same code and inputs, is not run again
    # (blockcache.py says what counts; a clean build or CHEATSHEET_EVERY_BLOCK=1 runs all).
    plain = [b for b in blocks if not _is_script(b)]
    record = PassRecord(site.parent / "blocks-alone.json", inputs_now)
    to_run, _ = record.split(plain)
    outcomes = run_alone(to_run)
    record.save(outcomes, plain)  # the run's summary says how many ran (conftest.py)
    failed = [o for o in outcomes if not o.ok]
    assert not failed, (
        f"{len(failed)} of {len(plain)} code blocks fail when run alone in a fresh "
        f"interpreter; give each the imports and inputs it uses:\n{_failures(outcomes)}"
    )


@pytest.mark.site
def test_every_script_for_torchrun_ran_from_a_reader_s_shell_in_the_build(blocks, site):
    import json

    from cheatsheet._blocks import script_digest

    scripts = [b for b in blocks if _is_script(b)]
    assert len(scripts) > 20, "the distributed pages show their scripts for torchrun"
    missing = []
    for block in scripts:
        # "gallery/pytorch2/dtensor.html block 3" -> the record of pytorch2/dtensor
        page = block.origin.split(" block ")[0].removeprefix("gallery/").removesuffix(".html")
        record = site / "_records" / f"{page}.json"
        ran = json.loads(record.read_text())["scripts"] if record.exists() else []
        if script_digest(block.code) not in {r["sha256"] for r in ran}:
            missing.append(block.origin)
    assert not missing, f"scripts the build did not run as shown, from a reader's shell: {missing}"


@pytest.mark.site
@pytest.mark.slow
def test_a_truly_fresh_interpreter_agrees_with_the_forked_runs(blocks, site, inputs_now):
    # The forks start from a server that has imported torch; a sample of blocks also
    # runs in brand-new interpreters, and must come out the same. The sample is the
    # blocks whose code has the smallest digests: as random as any, and the same
    # sample after a change to another page, so the record below keeps it. A block
    # that agreed before, with the same code and inputs, is not run again.
    sample = sorted(blocks, key=key)[:SAMPLE]
    record = PassRecord(site.parent / "blocks-fresh.json", inputs_now)
    to_run, _ = record.split(sample)
    forked = run_alone(to_run)
    fresh = run_alone(to_run, fresh=True)
    agreed = [
        Outcome(f.block, f.ok == n.ok, f"forked: {f.output}\nfresh: {n.output}", n.seconds)
        for f, n in zip(forked, fresh, strict=True)
    ]
    record.save(agreed, sample)
    assert all(o.ok for o in agreed), _failures(agreed)


@pytest.mark.slow
def test_a_block_without_its_import_fails_and_says_why():
    [outcome] = run_alone([Block("t", "print(torch.ones(1))\n")], jobs=1)
    assert not outcome.ok
    assert "NameError: name 'torch' is not defined" in outcome.output


@pytest.mark.slow
def test_no_block_sees_what_another_block_did():
    leaves = Block("a", "import torch\ntorch.set_default_dtype(torch.float64)\nx = 1\n")
    reads = Block("b", "import torch\nassert torch.get_default_dtype() == torch.float32\nx\n")
    first, second = run_alone([leaves, reads], jobs=1)
    assert first.ok
    assert not second.ok
    assert "NameError: name 'x' is not defined" in second.output


@pytest.mark.slow
def test_a_failing_exit_code_and_a_hung_block_are_failures():
    exits = Block("exit", "import sys\nsys.exit(3)\n")
    hangs = Block("hang", "import time\ntime.sleep(60)\n")
    first, second = run_alone([exits, hangs], jobs=1, timeout=1)
    assert not first.ok
    assert not second.ok
    assert "timed out" in second.output


@pytest.mark.slow
def test_a_free_server_takes_the_next_block_while_another_runs_a_slow_one():
    # Two servers, blocks slow-fast-slow-fast: split in turn, both slow blocks would go to
    # one server; taken as servers come free, the second runs beside the first.
    slow = "import os, time\nprint(os.getppid())\ntime.sleep(2)\n"
    fast = "import os\nprint(os.getppid())\n"
    blocks = [Block(f"b{n}", code) for n, code in enumerate([slow, fast, slow, fast])]
    outcomes = run_alone(blocks, jobs=2)
    assert all(o.ok for o in outcomes), [o.output for o in outcomes]
    servers = [o.output.split()[0] for o in outcomes]
    assert servers[0] != servers[2]


@pytest.mark.slow
@pytest.mark.parametrize("fresh", [False, True])
def test_a_module_only_the_compiler_s_server_imported_is_not_there_for_a_block(fresh):
    # The server of compiling blocks has imported Inductor's compiler; a fresh
    # interpreter has not, so reading it off torch without importing it fails in both.
    reads = Block("r", "import torch\ntorch.compile\nprint(torch._inductor.compile_fx)\n")
    imports = Block("i", "import torch._inductor.compile_fx\nprint(torch._inductor.compile_fx)\n")
    compiles = Block(
        "c",
        "import sys, torch\nprint('preloaded', 'torch._inductor.compile_fx' in sys.modules)\n"
        "print(torch.compile(lambda x: x + 1)(torch.ones(1)).item(), torch.is_tensor(1))\n",
    )
    read, imported, compiled = run_alone([reads, imports, compiles], jobs=1, fresh=fresh)
    assert not read.ok
    assert "has no attribute 'compile_fx'" in read.output
    assert imported.ok, imported.output
    assert compiled.ok, compiled.output
    assert "2.0 False" in compiled.output.splitlines()
    # ... and the compiling block did fork from that server (a fresh one starts bare)
    assert f"preloaded {not fresh}" in compiled.output.splitlines()


@pytest.mark.slow
def test_a_server_whose_imports_poison_cuda_for_forks_is_refused(tmp_path, monkeypatch):
    # Under torch 2.7 to 2.12, importing Inductor asks the driver for its devices, and a
    # fork then raises "Cannot re-initialize CUDA in forked subprocess" where a reader's
    # interpreter raises "Found no NVIDIA driver": the version records dated an entry
    # by the compiler's server. 2.15's Inductor does not ask; torch.cuda.is_available() does.
    import torch

    from cheatsheet._blocks import _Server

    if not torch.version.cuda:
        pytest.skip("a CPU-only torch never asks a driver, so no fork is poisoned")
    (tmp_path / "asks_the_driver.py").write_text("import torch\ntorch.cuda.is_available()\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    env = dict(os.environ)
    with pytest.raises(RuntimeError, match="leaves forks unable to start CUDA"):
        _Server(env, ("asks_the_driver",))
    # import torch alone asks nothing: a plain server's forks start CUDA as a reader's does
    [outcome] = run_alone([Block("c", CUDA_STARTS)], jobs=1)
    assert outcome.ok, outcome.output
    assert "re-initialize" not in outcome.output


CUDA_STARTS = """import torch
try:
    torch.zeros(1, device="cuda")
except (RuntimeError, AssertionError) as err:
    print(err)
"""


@pytest.mark.parametrize(
    ("code", "reaches"),
    [
        ("import torch\ntorch._inductor.compile_fx.compile_fx", False),
        ("import torch as t\nt._inductor.compile_fx", False),
        ("import torch._inductor.compile_fx\ntorch._inductor.compile_fx", True),
        ("from torch._inductor import compile_fx\ncompile_fx.compile_fx", True),
        ("import torch\ntorch._inductor.freezing", True),  # torch loads _inductor on first use
        ("import torch\ntorch._inductor.config.freezing = True", False),  # what does that load?
        ("import torch._dynamo\ntorch._dynamo.utils.counters", True),  # all it imports
        ("import torch\ntorch._dynamo.utils.counters", False),  # loaded when first read
        ("import torch\ntorch.compile(f)", True),
        ("import torch\n(", False),  # cannot tell: the plain server runs it
    ],
)
def test_what_a_fresh_interpreter_reaches_is_read_from_the_block(code, reaches):
    from cheatsheet._blocks import fresh_reaches

    loaded = {
        "torch._dynamo": ["torch._dynamo", "torch._dynamo.utils", "torch._inductor",
                          "torch._inductor.config"],
        "torch._inductor.compile_fx": ["torch._inductor.compile_fx"],
    }  # fmt: skip
    lazy = ["torch._dynamo", "torch._inductor"]
    assert fresh_reaches(code, loaded, lazy) is reaches


@pytest.mark.slow
@pytest.mark.parametrize("fresh", [False, True])
def test_blocks_run_side_by_side_share_the_cores_unless_the_caller_chose(fresh, monkeypatch):
    from cheatsheet import _blocks as runner

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    reads = Block("r", "import os, torch\nprint(os.environ.get('OMP_NUM_THREADS'))\n"
                       "print(torch.get_num_threads())\n")  # fmt: skip
    [alone] = run_alone([reads], jobs=1, fresh=fresh)
    monkeypatch.setattr(runner, "_cores", lambda: 4)
    pair = run_alone([reads] * 2, jobs=2, fresh=fresh)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    [chosen] = run_alone([reads], jobs=2, fresh=fresh)
    assert alone.output.split()[0] == "None"  # one at a time: torch's own default
    assert [o.output.split() for o in pair] == [["2", "2"]] * 2  # 4 cores, 2 blocks at once
    assert chosen.output.split() == ["1", "1"]


@pytest.mark.parametrize("fresh", [False, True])
def test_a_block_killed_by_a_signal_says_which(fresh):
    """A crash in C++ leaves no traceback; the output ends with the signal instead."""
    crash = Block("c", "import os, signal\nprint('before')\nos.kill(os.getpid(), signal.SIGABRT)\n")
    [outcome] = run_alone([crash], jobs=1, fresh=fresh)
    assert not outcome.ok
    assert outcome.output.rstrip().endswith("killed by SIGABRT")


def test_a_failure_of_the_machine_runs_again_up_to_four_runs_and_no_other_does(tmp_path):
    def block(name, message, failing_runs=1):
        # Counts its runs in a file; fails on its first ``failing_runs`` runs with ``message``.
        runs = tmp_path / name
        code = (
            f"from pathlib import Path\nruns = Path({str(runs)!r})\n"
            "runs.write_text(runs.read_text() + 'x' if runs.exists() else 'x')\n"
            f"if len(runs.read_text()) <= {failing_runs}:\n    raise RuntimeError({message!r})\n"
        )
        return Block(name, code), runs

    lost, lost_runs = block("lost", "Gloo connectFullMesh failed: Connection closed by peer")
    broken, broken_runs = block("broken", "a real bug")
    hidden, hidden_runs = block(  # torchrun started by the block, its ranks' output kept
        "hidden",
        "Command '['python', '-m', 'torch.distributed.run', '--standalone', "
        "'--nproc-per-node=2', 'train.py']' returned non-zero exit status 1.",
    )
    aborted = "[rank0]: terminate called without an active exception"
    twice, twice_runs = block("twice", aborted, failing_runs=2)
    always, always_runs = block("always", aborted, failing_runs=99)
    outcomes = run_alone([lost, broken, hidden, twice, always], jobs=1)
    assert [o.ok for o in outcomes] == [True, False, True, True, False]
    assert lost_runs.read_text() == "xx"
    assert broken_runs.read_text() == "x"
    assert hidden_runs.read_text() == "xx"
    assert twice_runs.read_text() == "xxx"
    assert always_runs.read_text() == "x" * TRANSIENT_RUNS == "xxxx"


def test_html_blocks_are_the_python_blocks_without_interpreter_sessions(tmp_path):
    page = tmp_path / "p.html"
    page.write_text(
        '<div class="highlight-Python notranslate"><div class="highlight"><pre>'
        "<span>import torch</span>\n</pre></div></div>"
        '<div class="highlight-python notranslate"><div class="highlight"><pre>'
        "&gt;&gt;&gt; 1 + 1\n2\n</pre></div></div>"
        '<div class="highlight-console notranslate"><div class="highlight"><pre>'
        "$ nox\n</pre></div></div>",
        encoding="utf-8",
    )
    assert [b.code for b in html_blocks(page)] == ["import torch\n"]


def test_a_script_for_torchrun_runs_under_torchrun_not_in_the_block_server():
    hello = Block(
        "hello", "# torchrun --nproc-per-node=2 hello.py\nimport os\nprint(os.environ['RANK'])\n"
    )
    fails = Block(
        "fails",
        "# torchrun --nproc-per-node=2 fails.py\nimport os\n"
        "if os.environ['RANK'] == '1':\n    raise ValueError('planted')\n",
    )
    first, second = run_alone([hello, fails], jobs=1)
    assert first.ok, first.output
    # The reader's command has no --tee: both ranks write to the one terminal, in any order.
    assert sorted(first.output.replace("\n", "")) == ["0", "1"]
    assert not second.ok
    assert "ValueError: planted" in second.output


def test_a_script_for_torchrun_runs_from_a_shell_with_nothing_of_this_repository(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "/nowhere")
    monkeypatch.setenv("CHEATSHEET_PLANTED", "1")
    shows = Block(
        "shows",
        "# torchrun --nproc-per-node=1 shows.py\nimport os, sys\n"
        "print(os.getcwd() == os.environ['HOME'], os.environ.get('PYTHONPATH'),\n"
        "      os.environ.get('CHEATSHEET_PLANTED'), os.path.basename(sys.argv[0]))\n",
    )
    [outcome] = run_alone([shows], jobs=1)
    assert outcome.ok, outcome.output
    assert outcome.output.split() == ["True", "None", "None", "shows.py"]


@pytest.mark.site
def test_no_script_for_torchrun_imports_the_site_s_helpers(blocks):
    from cheatsheet._torchrun import marked_launch

    scripts = [b for b in blocks if marked_launch(b.code)]
    assert len(scripts) > 20, "the distributed pages show their scripts for torchrun"
    helpers = [b.origin for b in scripts if "cheatsheet" in b.code]
    assert not helpers, f"scripts a reader runs with torchrun import this site's helpers: {helpers}"


# -- Reading the blocks off a page ----------------------------------------------------


@pytest.mark.site
def test_the_pattern_reads_a_page_s_blocks_as_beautiful_soup_does(site):
    from snippets import _codes_by_pattern, _codes_by_soup

    # The pages with the most blocks; a whole-site comparison took 11 s (0 differences).
    pages = sorted(site.glob("gallery/*/*.html"), key=lambda p: -p.read_text().count("<pre"))
    for page in pages[:3]:
        text = page.read_text(encoding="utf-8")
        assert _codes_by_pattern(text) == _codes_by_soup(text), page


_SHAPES = {
    "sphinx": '<div class="highlight-Python notranslate"><div class="highlight"><pre>{}</pre></div></div>',
    "an id": '<div class="highlight-python notranslate" id="b"><div class="highlight"><pre>{}</pre></div></div>',
    "no pre": '<div class="highlight-python"><div class="highlight">{}</div></div>',
    "pre attrs": '<div class="highlight-default"><div class="highlight"><pre class="x">{}</pre></div></div>',
}
_CODE = (
    '<span class="n">x</span> <span class="o">=</span> <a title="a &gt; b" href="t>x">torch</a>'
    '<span class="o">&lt;</span>&quot;&amp;&#39;\n'
)


@pytest.mark.parametrize("shape", _SHAPES)
def test_a_block_of_any_shape_is_read_and_text_comes_back_unescaped(shape, tmp_path):
    from snippets import html_blocks

    page = tmp_path / "p.html"
    other = '<div class="highlight-console notranslate"><div class="highlight"><pre>$ ls</pre></div></div>'
    page.write_text("<html><body>" + other + _SHAPES[shape].format(_CODE) * 2 + "</body></html>")
    blocks = html_blocks(page)
    if shape == "no pre":
        assert blocks == []
    else:
        assert [b.origin for b in blocks] == ["p.html block 1", "p.html block 2"]
        assert blocks[0].code == "x = torch<\"&'\n"


@pytest.mark.slow
@pytest.mark.parametrize("fresh", [False, True])
def test_a_block_is_its_own_main_process_as_a_reader_s_script_is(fresh):
    # A fork made through multiprocessing would call itself "ForkProcess-1" with a parent.
    names = Block(
        "n", "import multiprocessing as mp\nprint(mp.current_process().name, mp.parent_process())\n"
    )
    [outcome] = run_alone([names], jobs=1, fresh=fresh)
    assert outcome.ok, outcome.output
    assert outcome.output.split() == ["MainProcess", "None"]


@pytest.mark.slow
@pytest.mark.parametrize("fresh", [False, True])
def test_sys_exit_with_a_message_prints_it_and_fails(fresh):
    [outcome] = run_alone(
        [Block("e", "import sys\nsys.exit('no data here')\n")], jobs=1, fresh=fresh
    )
    assert not outcome.ok
    assert "no data here" in outcome.output


@pytest.mark.slow
def test_a_process_a_block_leaves_running_neither_holds_the_run_nor_outlives_it(tmp_path):
    # The child writes its pid, then would run for a minute; the block ends at once.
    pidfile = tmp_path / "left.pid"
    child = f"import os, time; open({str(pidfile)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    code = (
        "import os, subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', {child!r}])\n"
        f"while not os.path.exists({str(pidfile)!r}) or not open({str(pidfile)!r}).read():\n"
        "    time.sleep(0.05)\n"
    )
    [outcome] = run_alone([Block("leaves", code)], jobs=1, timeout=50)
    assert outcome.ok, outcome.output
    assert outcome.seconds < 30  # not the child's minute
    time.sleep(0.5)
    pid = int(pidfile.read_text())
    assert (
        not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]
    )


@pytest.mark.slow
def test_a_block_stopped_before_it_could_start_is_a_timeout_not_a_hang():
    # A limit shorter than a fork takes to make its session: the child is killed alone.
    [outcome] = run_alone([Block("quick", "import time\ntime.sleep(30)\n")], jobs=1, timeout=1e-6)
    assert not outcome.ok
    assert "timed out" in outcome.output
    assert outcome.seconds < 20
