"""noxfile.py and tools/installs.py: what the environments install, and the verbs run by nox."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import installs
import nox
import noxfile
import pytest


class _Session:
    """A nox session that records what it is asked to install instead of installing it."""

    def __init__(self, venv_backend: str = "uv", pip_config: str = "", refuse: str = "") -> None:
        self.installed: list[tuple[str, ...]] = []
        self.warned: list[str] = []
        self.posargs: list[str] = []
        self.venv_backend, self.pip_config, self.refuse = venv_backend, pip_config, refuse
        self.tmp = ""  # a test that installs an older torch sets a folder

    def install(self, *args: str, **kwargs: object) -> None:
        if self.refuse and self.refuse in args:
            raise nox.command.CommandFailed(f"{self.refuse} refused")
        self.installed.append(args)

    def run(self, *args: str, **kwargs: object) -> str:
        assert args == ("python", "-m", "pip", "config", "list"), args
        return self.pip_config

    def warn(self, message: str) -> None:
        self.warned.append(message)

    def create_tmp(self) -> str:
        return self.tmp

    def error(self, message: str) -> None:
        raise RuntimeError(message)


def _site(session: _Session, monkeypatch, index: str | None = None) -> _Session:
    if index is None:
        monkeypatch.delenv("CHEATSHEET_TORCH_INDEX", raising=False)
    else:
        monkeypatch.setenv("CHEATSHEET_TORCH_INDEX", index)
    noxfile.site(session)
    return session


def test_the_site_environment_gets_the_project_and_every_pin(monkeypatch):
    (installed,) = _site(_Session(), monkeypatch).installed
    assert installed[:2] == ("-c", str(noxfile.ROOT / "constraints.txt"))
    assert installed[2:4] == ("-e", ".")
    for group in noxfile.SITE_GROUPS:
        assert set(nox.project.dependency_groups(noxfile.PYPROJECT, group)) <= set(installed)


def test_an_index_asked_for_gives_the_pinned_torch_first(monkeypatch):
    index = "https://download.pytorch.org/whl/cpu"
    torch, rest = _site(_Session(), monkeypatch, index).installed
    assert torch == ("--index-url", index, f"torch=={installs.pinned('torch')}")
    assert "+" not in torch[-1]  # no local label: the CPU build (X+cpu) satisfies the pin
    assert rest[:2] == ("-c", str(noxfile.ROOT / "constraints.txt"))


def test_an_index_that_fails_warns_and_the_default_index_gives_torch(monkeypatch):
    session = _site(_Session(refuse="--index-url"), monkeypatch, "http://127.0.0.1:9/whl")
    assert [args[0] for args in session.installed] == ["-c"]
    assert "http://127.0.0.1:9/whl" in session.warned[0]


def _cap_file(tmp_path: Path, line: str) -> str:
    caps = tmp_path / "constraints.txt"
    caps.write_text(f"# These releases lie on this machine's disk.\n{line}\ntorchvision<=0.29.1\n")
    return f"global.cert='/etc/ssl/certs/ca.crt'\nglobal.constraint='{caps}'\n"


def test_pip_configured_to_cap_torch_below_the_pin_stops_naming_the_cap(monkeypatch, tmp_path):
    config = _cap_file(tmp_path, "torch<=2.4.1")
    with pytest.raises(RuntimeError, match=r"refuse the pinned torch") as stopped:
        _site(_Session("venv", config), monkeypatch)
    said = str(stopped.value)
    assert f"{tmp_path / 'constraints.txt'}: torch<=2.4.1" in said
    assert "Use uv" in said
    assert "lift the cap" in said
    # uv reads no pip configuration: the same cap does not stop it.
    assert _site(_Session("uv", config), monkeypatch).installed


def test_a_pip_constraint_the_pin_satisfies_does_not_stop_pip(monkeypatch, tmp_path):
    config = _cap_file(tmp_path, f"torch>={installs.pinned('torch')}")
    assert _site(_Session("venv", config), monkeypatch).installed
    assert installs.pip_caps("global.constraint='/no/such/file'", "2.15.0") == []


def test_an_older_installed_torch_gets_the_optional_packages_of_its_time():
    pinned = installs.pinned("torch")
    assert installs.era_packages(pinned + "+cu130") == ()  # constraints.txt has them
    era = installs.era_packages("2.4.1+cu121")
    assert list(era) == installs.OPTIONAL_FOR_TORCH["2.4"]
    assert "torchao==0.4.0" in era
    assert installs.era_packages("2.99.0") == ()  # a release the table does not know
    assert {installs.name(r) for r in era} >= set(installs.OPTIONAL_PACKAGES)
    assert installs.name("onnx_ir>=0.1 ; python_version>'3'") == "onnx-ir"


def _older_torch(tmp_path: Path, requirement: str, refuse: str = "") -> tuple[_Session, set[str]]:
    session = _Session(refuse=refuse)
    session.tmp = str(tmp_path)
    installs.install_older_torch(session, requirement, ["jsonschema>=4.18"])
    kept = {installs.name(line) for line in (tmp_path / "pins.txt").read_text().splitlines()
            if line and not line.startswith("#")}  # fmt: skip
    return session, kept


def test_an_older_torch_installs_without_the_pinned_torch_s_own_stack(tmp_path):
    session, kept = _older_torch(tmp_path, "torch==2.8.0")
    first, optional = session.installed
    assert first == ("-c", str(tmp_path / "pins.txt"), "torch==2.8.0", "-e", str(installs.ROOT),
                     "jsonschema>=4.18")  # fmt: skip
    assert optional[2:] == ("torch==2.8.0", *installs.OPTIONAL_FOR_TORCH["2.8"])
    # torch, its CUDA stack, triton and sympy are the older release's own; the rest stay pinned
    assert not {n for n in kept if n.startswith(("nvidia-", "cuda-"))}
    assert not kept & {"torch", "triton", "sympy", "setuptools", *installs.OPTIONAL_PACKAGES}
    assert {"sphinx", "numpy"} <= kept


def test_the_pinned_release_gets_the_pinned_optional_packages_and_a_refusal_only_warns(tmp_path):
    pinned = installs.pinned("torch")
    session, _ = _older_torch(tmp_path, f"torch=={pinned}")
    assert f"torchao=={installs.pinned('torchao')}" in session.installed[1]
    session, _ = _older_torch(tmp_path, "torch==2.4.1", refuse="torchao==0.4.0")
    assert len(session.installed) == 1  # the torch and the project, not the refused extras
    assert "torchao==0.4.0" in session.warned[0]


def _nox(
    *args: str, tmp_path: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """Run nox on the project's noxfile, in a Python where cheatsheet cannot be imported.

    nox runs under whatever Python it was installed for, which has neither torch nor
    this package: the verbs must not need them to start.
    """
    blocked = "import sys, runpy; sys.modules['cheatsheet'] = None; sys.argv[0] = 'nox'; "
    command = [sys.executable, "-c", blocked + "runpy.run_module('nox', run_name='__main__')"]
    return subprocess.run(
        [*command, "-f", str(noxfile.ROOT / "noxfile.py"), "--envdir", str(tmp_path), *args],
        check=False, capture_output=True, text=True, timeout=300,
        env={**os.environ, **(env or {})},
    )  # fmt: skip


def test_every_verb_is_listed_with_what_it_does(tmp_path):
    listed = _nox("--list", tmp_path=tmp_path)
    assert listed.returncode == 0, listed.stderr
    readme = (noxfile.ROOT / "README.md").read_text(encoding="utf-8")
    verbs = {line.split("nox -s ")[1].split()[0].strip("`") for line in readme.splitlines()
             if line.startswith("| `nox -s ")}  # fmt: skip
    for verb in verbs | {"site", *noxfile.BENCHMARKS}:
        (line,) = [x for x in listed.stdout.splitlines() if x[2:].split(" -> ")[0] == verb]
        assert len(line.split(" -> ")[1]) > 20, line  # each with its help


def test_the_shard_plan_runs_where_nox_has_no_cheatsheet(tmp_path):
    planned = _nox("-s", "shard-plan", "--", "2", tmp_path=tmp_path)
    assert planned.returncode == 0, planned.stderr
    assert '{"shard": ["1/2", "2/2"]}' in planned.stdout


def test_a_real_pip_capped_below_the_pin_stops_before_installing(tmp_path):
    """nox's own venv backend, and the pip in it reading a configuration that caps torch."""
    config = tmp_path / "pip.conf"
    config.write_text(f"[global]\nconstraint = {tmp_path / 'caps.txt'}\n")
    (tmp_path / "caps.txt").write_text("torch<=2.4.1\n")
    made = _nox("--default-venv-backend", "venv", "-s", "site", tmp_path=tmp_path / "envs",
                env={"PIP_CONFIG_FILE": str(config)})  # fmt: skip
    assert made.returncode == 1
    assert f"{tmp_path / 'caps.txt'}: torch<=2.4.1" in made.stderr
    assert "pip install" not in made.stderr.split("refuse the pinned torch")[0]  # nothing installed
    assert not list((tmp_path / "envs" / "site").glob("lib/python*/site-packages/torch"))


def test_ci_runs_the_readme_s_own_commands():
    readme = (noxfile.ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = readme.split("## Quick start", 1)[1].split("```console\n", 1)[1].split("```")[0]
    ci = (noxfile.ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = [line for line in ci.splitlines() if line.startswith("python -m pip install")]
    assert commands == quick_start.strip().splitlines()
    assert all(" uv " in c for c in commands), "the commands install uv beside nox"


def test_installed_torch_is_read_where_each_verb_needs_it_and_not_handed_to_pytest():
    session = _Session()
    session.posargs = ["--installed-torch=/opt/env/bin/python", "-k", "walk"]
    assert noxfile._installed_torch(session) == "/opt/env/bin/python"
    assert noxfile._installed_torch(session) == "/opt/env/bin/python"  # read, not taken
    session.posargs = ["--installed-torch"]
    assert noxfile._installed_torch(session) == sys.executable
    session.posargs = ["-x"]
    assert noxfile._installed_torch(session) is None
