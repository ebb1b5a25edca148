from __future__ import annotations

import pytest
import torch

from cheatsheet import ENV_VAR, available_devices, check_device, pick_device, synchronize


def test_cpu_only_machine_picks_cpu(fake_devices):
    assert pick_device() == torch.device("cpu")
    assert available_devices() == ["cpu"]


@pytest.mark.parametrize(
    ("devices", "expected"),
    [
        ({"cuda": 2, "mps": True, "xpu": 1}, "cuda"),
        ({"mps": True, "xpu": 1}, "mps"),
        ({"xpu": 1}, "xpu"),
    ],
)
def test_best_available_device_wins(fake_devices, devices, expected):
    fake_devices(**devices)
    assert pick_device() == torch.device(expected)


def test_available_devices_lists_every_device_best_first(fake_devices):
    fake_devices(cuda=2, xpu=1)
    assert available_devices() == ["cuda:0", "cuda:1", "xpu:0", "cpu"]


def test_environment_variable_overrides_the_automatic_choice(fake_devices, monkeypatch):
    fake_devices(cuda=2)
    monkeypatch.setenv(ENV_VAR, "cpu")
    assert pick_device() == torch.device("cpu")
    monkeypatch.setenv(ENV_VAR, "cuda:1")
    assert pick_device() == torch.device("cuda:1")


def test_explicit_argument_beats_environment(fake_devices, monkeypatch):
    fake_devices(cuda=1)
    monkeypatch.setenv(ENV_VAR, "cuda")
    assert pick_device("cpu") == torch.device("cpu")
    assert pick_device(torch.device("cuda", 0)) == torch.device("cuda:0")


@pytest.mark.parametrize("bad", ["gpu", "cuda:x", "cuda:-1", "", "tpu:0", "cpu:0:1"])
def test_malformed_request_lists_accepted_forms(fake_devices, bad):
    with pytest.raises(ValueError, match=r"'cpu', 'cuda', 'cuda:N', 'mps'"):
        pick_device(bad)


def test_malformed_environment_variable_is_named(fake_devices, monkeypatch):
    monkeypatch.setenv(ENV_VAR, "quantum")
    with pytest.raises(ValueError, match=ENV_VAR):
        pick_device()


def test_unavailable_device_names_what_is_available(fake_devices):
    fake_devices(cuda=1)
    with pytest.raises(ValueError, match=r"cuda:3.*available here: cuda:0, cpu"):
        pick_device("cuda:3")
    with pytest.raises(ValueError, match="mps"):
        pick_device("mps")


def test_unavailable_request_from_environment_does_not_fall_back(fake_devices, monkeypatch):
    monkeypatch.setenv(ENV_VAR, "cuda")
    with pytest.raises(ValueError, match=r"available here: cpu"):
        pick_device()


def test_wrong_type_is_a_type_error(fake_devices):
    with pytest.raises(TypeError, match=r"str or torch\.device"):
        pick_device(0)  # type: ignore[arg-type]


def test_synchronize_on_cpu_returns():
    assert synchronize("cpu") is None


@pytest.mark.parametrize(
    ("device", "module", "call"),
    [
        ("cuda:0", torch.cuda, "synchronize"),
        ("mps", torch.mps, "synchronize"),
        ("xpu:0", torch.xpu, "synchronize"),
    ],
)
def test_synchronize_waits_for_the_accelerator_it_is_given(monkeypatch, device, module, call):
    waited = []
    monkeypatch.setattr(module, call, lambda *args: waited.append(args))
    synchronize(device)
    assert len(waited) == 1
    if device != "mps":
        assert torch.device(*waited[0]) == torch.device(device)


@pytest.mark.parametrize("bad", ["cuda:01", "cuda:00"])
def test_device_indices_have_no_leading_zeros(fake_devices, bad):
    fake_devices(cuda=2)
    with pytest.raises(ValueError, match="is not a device"):
        check_device(bad, "device")


# -- Counting devices, and the exact words of every refusal -------------------------


def test_devices_are_counted_only_where_their_backend_is_available(fake_devices, monkeypatch):
    from cheatsheet.device import _count

    fake_devices()
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 4)  # drivers, but no usable GPU
    monkeypatch.setattr(torch.xpu, "device_count", lambda: 2)
    assert [_count(kind) for kind in ("cpu", "cuda", "mps", "xpu")] == [1, 0, 0, 0]
    fake_devices(cuda=3, mps=True, xpu=2)
    assert [_count(kind) for kind in ("cpu", "cuda", "mps", "xpu")] == [1, 3, 1, 2]
    with pytest.raises(AssertionError, match="tpu"):
        _count("tpu")


def test_a_torch_without_xpu_has_no_xpu_devices(fake_devices, monkeypatch):
    from cheatsheet.device import _count

    fake_devices(cuda=1)
    monkeypatch.delattr(torch, "xpu")
    assert _count("xpu") == 0
    assert available_devices() == ["cuda:0", "cpu"]


def test_mps_is_listed_without_an_index(fake_devices):
    fake_devices(cuda=1, mps=True, xpu=2)
    assert available_devices() == ["cuda:0", "mps", "xpu:0", "xpu:1", "cpu"]


@pytest.mark.parametrize(
    ("request_", "expected"),
    [
        (" CUDA:1 ", "cuda:1"),
        ("cuda", "cuda"),
        ("xpu:0", "xpu:0"),
        ("mps", "mps"),
        ("cpu", "cpu"),
        (torch.device("cuda", 1), "cuda:1"),
        (torch.device("cpu"), "cpu"),
    ],
)
def test_check_device_accepts_each_form_it_lists(fake_devices, request_, expected):
    fake_devices(cuda=2, mps=True, xpu=1)
    assert check_device(request_) == torch.device(expected)
    assert str(check_device(request_)) == expected


def test_check_device_refusals_name_the_argument_the_request_and_the_fix(fake_devices):
    fake_devices(cuda=2)
    accepted = "'cpu', 'cuda', 'cuda:N', 'mps', 'xpu' or 'xpu:N' (N a device index)"
    with pytest.raises(ValueError, match="is not a device") as caught:
        check_device("gpu", "where")
    assert str(caught.value) == f"where='gpu' is not a device; use {accepted}"
    with pytest.raises(ValueError, match="does not have") as caught:
        check_device("cuda:2", "where")
    assert str(caught.value) == (
        "where='cuda:2' asks for cuda:2, which this machine does not have; "
        "available here: cuda:0, cuda:1, cpu"
    )
    with pytest.raises(ValueError, match="does not have") as caught:
        check_device("xpu")
    assert str(caught.value) == (
        "device='xpu' asks for xpu, which this machine does not have; "
        "available here: cuda:0, cuda:1, cpu"
    )
    with pytest.raises(TypeError) as caught:
        check_device(1.5, "where")
    assert (
        str(caught.value)
        == f"where must be a str or torch.device, got float; pass one of {accepted}"
    )


def test_the_last_index_of_a_kind_is_available_and_the_next_is_not(fake_devices):
    fake_devices(cuda=2)
    assert check_device("cuda:1") == torch.device("cuda:1")
    with pytest.raises(ValueError, match="does not have"):
        check_device("cuda:2")


def test_the_environment_variable_is_stripped_and_named_in_errors(fake_devices, monkeypatch):
    fake_devices(cuda=1)
    monkeypatch.setenv(ENV_VAR, "  cuda:0 \n")
    assert pick_device() == torch.device("cuda:0")
    monkeypatch.setenv(ENV_VAR, "   ")
    assert pick_device() == torch.device("cuda")
    monkeypatch.setenv(ENV_VAR, "mps")
    with pytest.raises(ValueError, match=r"^CHEATSHEET_DEVICE='mps' asks for mps"):
        pick_device()
    with pytest.raises(ValueError, match=r"^prefer='mps' asks for mps"):
        pick_device("mps")
    assert ENV_VAR == "CHEATSHEET_DEVICE"


def test_synchronize_on_the_cpu_waits_for_no_accelerator(monkeypatch):
    def refuse(*args):
        pytest.fail("the CPU has nothing to wait for")

    for module in (torch.cuda, torch.mps, torch.xpu):
        monkeypatch.setattr(module, "synchronize", refuse)
    synchronize("cpu")
    synchronize(torch.device("cpu"))
