"""noxfile.py's helpers that decide what the shared environment installs."""

from __future__ import annotations

import functools
import http.server
import threading

import noxfile
import pytest


def test_without_an_index_torch_comes_with_the_other_packages():
    asked = []
    assert noxfile._torch_from_index(None, asked.append) == ()
    assert noxfile._torch_from_index("", asked.append) == ()
    assert asked == []  # nothing to reach


def test_a_reachable_index_gives_the_pinned_release_from_it():
    index = "https://download.pytorch.org/whl/cpu"
    args = noxfile._torch_from_index(index, lambda url: True)
    assert args == ("--index-url", index, f"torch=={noxfile._pinned('torch')}")
    # No local label in the pin: the CPU build (X+cpu) satisfies constraints.txt.
    assert "+" not in args[-1]


def test_an_index_that_cannot_be_reached_falls_back_to_the_default():
    assert (
        noxfile._torch_from_index("https://download.pytorch.org/whl/cpu", lambda url: False) == ()
    )


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def test_reachable_asks_the_index_for_its_torch_page(tmp_path):
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "index.html").write_text("<a>torch-2.14.1+cpu.whl</a>")
    handler = functools.partial(_QuietHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        assert noxfile._index_reachable(url)
        assert noxfile._index_reachable(url + "/")
        assert not noxfile._index_reachable(url + "/nothing-here")
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("index", ["http://127.0.0.1:9/whl/cpu", "not a url"])
def test_an_index_that_is_not_there_is_not_reachable(index):
    assert not noxfile._index_reachable(index, timeout_s=5)


def test_an_older_installed_torch_gets_the_optional_packages_of_its_time():
    pinned = noxfile._pinned("torch")
    assert noxfile._era_packages(pinned + "+cu130") == ()  # constraints.txt has them
    era = noxfile._era_packages("2.4.1+cu121")
    assert era == noxfile.OPTIONAL_FOR_TORCH["2.4"]
    assert "torchao==0.4.0" in era
    assert noxfile._era_packages("2.99.0") == ()  # a release the table does not know
    assert {noxfile._name(r) for r in era} >= set(noxfile.OPTIONAL_PACKAGES)
    assert noxfile._name("onnx_ir>=0.1 ; python_version>'3'") == "onnx-ir"


class _Recorder:
    """A nox session that records the install commands instead of running them."""

    def __init__(self, pip_config: str = "") -> None:
        self.commands: list[tuple[str, ...]] = []
        self.pip_config = pip_config

    def run_install(self, *args: str, **kwargs: object) -> None:
        self.commands.append(args)

    def run(self, *args: str, **kwargs: object) -> str:
        assert args[1:] == ("-m", "pip", "config", "list"), args
        return self.pip_config

    def warn(self, message: str) -> None:
        raise AssertionError(f"unexpected warning: {message}")

    def error(self, message: str) -> None:
        raise RuntimeError(message)


def _installs(monkeypatch, tmp_path, uv: str | None, installer: str | None, pip_config=""):
    monkeypatch.setattr(noxfile.shutil, "which", lambda name: uv if name == "uv" else None)
    monkeypatch.delenv(noxfile.TORCH_INDEX, raising=False)
    if installer is None:
        monkeypatch.delenv("CHEATSHEET_INSTALLER", raising=False)
    else:
        monkeypatch.setenv("CHEATSHEET_INSTALLER", installer)
    session = _Recorder(pip_config)
    noxfile._make_site_env(session, tmp_path / "env", tmp_path / "env" / "bin")
    return session.commands


def _cap_file(tmp_path, line: str) -> str:
    caps = tmp_path / "constraints.txt"
    caps.write_text(f"# These releases lie on this machine's disk.\n{line}\ntorchvision<=0.29.1\n")
    return f"global.cert='/etc/ssl/certs/ca.crt'\nglobal.constraint='{caps}'\n"


def test_pip_configured_to_cap_torch_below_the_pin_stops_naming_the_cap(monkeypatch, tmp_path):
    config = _cap_file(tmp_path, "torch<=2.4.1")
    with pytest.raises(RuntimeError, match=r"refuse the pinned torch") as stopped:
        _installs(monkeypatch, tmp_path, None, None, config)
    said = str(stopped.value)
    assert f"{tmp_path / 'constraints.txt'}: torch<=2.4.1" in said
    assert "Use uv" in said
    assert "lift the cap" in said
    # uv reads no pip configuration: the same cap does not stop it.
    assert _installs(monkeypatch, tmp_path, "/opt/bin/uv", None, config)


def test_a_pip_constraint_the_pin_satisfies_does_not_stop_pip(monkeypatch, tmp_path):
    config = _cap_file(tmp_path, f"torch>={noxfile._pinned('torch')}")
    made, _ = _installs(monkeypatch, tmp_path, None, None, config)
    assert made[1:3] == ("-m", "venv")
    assert noxfile._pip_caps("global.constraint='/no/such/file'", "2.15.0") == []


def test_uv_on_path_makes_the_environment_and_installs_the_pins(monkeypatch, tmp_path):
    made, installed = _installs(monkeypatch, tmp_path, "/opt/bin/uv", None)
    assert made[:2] == ("/opt/bin/uv", "venv")
    assert installed[:3] == ("/opt/bin/uv", "pip", "install")
    assert installed[installed.index("--python") + 1] == str(tmp_path / "env" / "bin" / "python")
    assert "-c" in installed
    assert str(noxfile.ROOT / "constraints.txt") in installed


@pytest.mark.parametrize(("uv", "installer"), [(None, None), ("/opt/bin/uv", "pip")])
def test_pip_makes_it_without_uv_or_when_asked(monkeypatch, tmp_path, uv, installer):
    made, installed = _installs(monkeypatch, tmp_path, uv, installer)
    assert made[1:3] == ("-m", "venv")
    assert installed[:4] == (str(tmp_path / "env" / "bin" / "python"), "-m", "pip", "install")
    assert "/opt/bin/uv" not in made + installed
    # The same pins and packages either way.
    with_uv = _installs(monkeypatch, tmp_path, "/opt/bin/uv", None)[1]
    pins = installed[installed.index("--quiet") + 1 :]
    assert pins == with_uv[with_uv.index("--python") + 2 :]


def test_ci_runs_the_readme_s_own_commands():
    readme = (noxfile.ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = readme.split("## Quick start", 1)[1].split("```console\n", 1)[1].split("```")[0]
    ci = (noxfile.ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = [line for line in ci.splitlines() if line.startswith("python -m pip install")]
    assert commands == quick_start.strip().splitlines()
    assert all(" uv " in c for c in commands), "the commands install uv beside nox"
