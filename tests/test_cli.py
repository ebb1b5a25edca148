from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cheatsheet.__main__ import main


def test_info_prints_the_stamp(capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "PyTorch:" in out
    assert "picked device:" in out


def test_info_json_is_machine_readable(capsys):
    main(["info", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert {"cpu", "logical_cores", "torch_version", "gpus", "picked_device"} <= set(data)


def test_bad_device_override_is_reported_not_fatal(capsys, monkeypatch):
    monkeypatch.setenv("CHEATSHEET_DEVICE", "nonsense")
    main(["info"])
    assert "error: CHEATSHEET_DEVICE='nonsense' is not a device" in capsys.readouterr().out


def test_help_and_missing_command(capsys):
    with pytest.raises(SystemExit) as ok:
        main(["--help"])
    assert ok.value.code == 0
    assert "info" in capsys.readouterr().out
    with pytest.raises(SystemExit) as bad:
        main([])
    assert bad.value.code == 2


@pytest.mark.slow
def test_runs_as_a_module():
    result = subprocess.run(
        [sys.executable, "-m", "cheatsheet", "info", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(result.stdout)["picked_device"]
