"""How each code block of a page runs: in the page's process, or as a script under torchrun.

sphinx-gallery runs every block of a page in the build's own process and has no hook
for one block. This module wraps its ``gen_rst.execute_code_block`` so that a *policy*
may replace, for execution only, what a block runs; the page still shows the block's
own code. The first policy in :data:`POLICIES` that claims a block decides; a block
no policy claims runs as sphinx-gallery runs it.

- :func:`torchrun_policy`: a block whose first line is the command a reader runs,
  ``# torchrun --nproc-per-node=2 hello.py``, is saved as ``hello.py`` in a temporary
  folder and that command runs there for real, from a shell with nothing of this
  repository (``cheatsheet._blocks.run_script``). The page shows each rank's lines,
  prefixed ``[rankN]:`` by torchrun (``--tee 3``). A failing rank fails the page with
  its traceback, and a Python warning a rank prints fails it too, as a warning of the
  page's own code does. The page's record notes each script that ran.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: A policy takes a code block (sphinx-gallery's ``Block``: ``type``, ``content``,
#: ``lineno``) and the page's ``script_vars`` (``src_file``: the example's path, to find
#: the entry a block belongs to), and returns the code to execute in its place, or None.
Policy = Callable[[Any, dict[str, Any]], str | None]

# "[rank1]: /path/to/hello.py:12: UserWarning: message", as Python prints a warning.
_RANK_WARNING = re.compile(r"^\[rank\d+\]: \S.*:\d+: \w*Warning: .*$", re.MULTILINE)


EVERY_INTERFACE = (
    "this machine refuses a network namespace of the build's own (unshare --map-root-user "
    "--net), so torchrun's stores would listen on every interface while the page's scripts "
    "run. Allow unprivileged user namespaces (on Ubuntu 24.04: sudo sysctl -w "
    "kernel.apparmor_restrict_unprivileged_userns=0), or accept the listeners with "
    "CHEATSHEET_TORCHRUN_ANY_INTERFACE=1"
)


def torchrun_policy(block: Any, script_vars: dict[str, Any]) -> str | None:
    """Run a block marked ``# torchrun --nproc-per-node=N name.py`` under torchrun."""
    from sphinx_gallery.py_source_parser import remove_config_comments, remove_ignore_blocks

    from cheatsheet._torchrun import marked_launch

    if marked_launch(block.content) is None:
        return None
    # The script the page shows, which is what the reader saves: without the lines
    # between sphinx_gallery_start_ignore and _end_ignore, hidden from the page.
    shown = remove_config_comments(remove_ignore_blocks(block.content))
    # An expression that binds no name: the page's namespace stays as the reader's.
    return f"__import__('blockexec').run_torchrun_block({shown!r})\n"


def run_torchrun_block(code: str) -> None:
    """Run ``code`` as a reader does (its first line's command), print the ranks' lines.

    The run is the reader's own (``cheatsheet._blocks.run_script``: the script in a folder
    of its own, the command typed in a shell with nothing of this repository), and the
    page's record notes it: the blocks test counts it as this script's run alone.

    Raises
    ------
    cheatsheet._torchrun.TorchrunError
        If a rank fails or the run times out.
    RuntimeError
        If a rank printed a Python warning, or, before anything runs, if torchrun cannot
        have a network namespace of its own and ``CHEATSHEET_TORCHRUN_ANY_INTERFACE`` is
        not set (:data:`EVERY_INTERFACE` says how to allow one).
    """
    from cheatsheet import _records as records
    from cheatsheet._blocks import TRANSIENT_RUNS, run_script, script_digest, transient
    from cheatsheet._torchrun import TorchrunError, loopback_only_here
    from cheatsheet._variables import read

    if not (loopback_only_here() or read("CHEATSHEET_TORCHRUN_ANY_INTERFACE")):
        raise RuntimeError(EVERY_INTERFACE)
    result = run_script(code, rank_prefixes=True)
    for run in range(2, TRANSIENT_RUNS + 1):
        if result.returncode == 0 or not transient(result.output):
            break
        logger.info("a run of %s failed in a way worth another run; run %d of at most %d",
                    result.command[-1], run, TRANSIENT_RUNS)  # fmt: skip
        result = run_script(code, rank_prefixes=True)
    if result.returncode != 0:
        raise TorchrunError(result)
    import pagestate

    warned = _RANK_WARNING.findall(result.output)
    if warned and pagestate.warnings_fail_pages:
        raise RuntimeError(
            "a rank printed a warning; avoid it or catch it in the script and print what "
            "the reader should see:\n" + "\n".join(warned)
        )
    command = f"torchrun {' '.join(result.command[-2:])}"  # as the reader typed it
    records.note("script", {"sha256": script_digest(code), "command": command,
                            "seconds": round(result.elapsed_s, 3)})  # fmt: skip
    print(result.by_rank())


#: Tried in order for every code block; the lead's policies go here too.
POLICIES: list[Policy] = [torchrun_policy]


def _policy_runs(original: Callable[..., str]) -> Callable[..., str]:
    @functools.wraps(original)
    def execute_code_block(
        compiler: Any, block: Any, example_globals: Any, script_vars: dict[str, Any], *rest: Any
    ) -> str:
        if block.type == "code":
            for policy in POLICIES:
                replacement = policy(block, script_vars)
                if replacement is not None:
                    block = block._replace(content=replacement)
                    break
        return original(compiler, block, example_globals, script_vars, *rest)

    return execute_code_block


def install() -> None:
    """Wrap ``sphinx_gallery.gen_rst.execute_code_block`` once, or fail naming what moved."""
    from sphinx_gallery import gen_rst

    original = getattr(gen_rst, "execute_code_block", None)
    if not callable(original) or "execute_code_block(" not in _source(gen_rst.execute_script):
        raise ExtensionError(
            "blockexec: sphinx_gallery.gen_rst.execute_script no longer calls "
            "execute_code_block(compiler, block, ...); find where this sphinx-gallery "
            "executes a code block and wrap that instead"
        )
    if not hasattr(original, "__wrapped__"):
        gen_rst.execute_code_block = _policy_runs(original)


def _source(function: Callable[..., Any]) -> str:
    import inspect

    try:
        return inspect.getsource(function)
    except (OSError, TypeError):
        return ""


def setup(app: Sphinx) -> dict[str, Any]:
    import freshpage  # docs/_ext: each page runs in a process of its own

    freshpage.in_each_page(install)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
