from __future__ import annotations

import json
import re
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


def test_info_prints_the_stamp_then_the_picked_device(capsys, fixed_stamp):
    assert main(["info"]) == 0
    assert capsys.readouterr().out == f"{fixed_stamp!r}\npicked device:        cpu\n"


def test_info_json_holds_the_stamp_and_the_device_indented(capsys, fixed_stamp):
    assert main(["info", "--json"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out) == {**fixed_stamp.as_dict(), "picked_device": "cpu"}
    assert out.startswith('{\n  "cpu": "Fast <CPU> & Co",\n  "logical_cores": 8,')


def test_a_bad_device_override_is_shown_in_json_too(capsys, monkeypatch):
    monkeypatch.setenv("CHEATSHEET_DEVICE", "nonsense")
    main(["info", "--json"])
    assert json.loads(capsys.readouterr().out)["picked_device"].startswith(
        "error: CHEATSHEET_DEVICE='nonsense' is not a device; use 'cpu'"
    )


def test_help_names_the_program_its_command_and_options(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m cheatsheet [-h] COMMAND ...\n")
    assert "\n\nHelpers of the runnable PyTorch 2 cheat sheet.\n\n" in out
    assert re.search(
        r"^ +info +print the hardware and software stamp of this machine$", out, re.MULTILINE
    )
    with pytest.raises(SystemExit):
        main(["info", "--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m cheatsheet info [-h] [--json]\n")
    assert "\n\nPrint the hardware and software stamp of this machine.\n\n" in out
    assert "--json      print JSON for machines" in out


def test_a_missing_command_is_named_in_the_error(capsys):
    with pytest.raises(SystemExit):
        main([])
    assert "the following arguments are required: COMMAND" in capsys.readouterr().err
