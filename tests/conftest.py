"""Shared fixtures: faked device availability and the built site."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"


@pytest.fixture
def fake_devices(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """Pretend this machine has the given accelerators (and nothing else)."""

    def install(cuda: int = 0, mps: bool = False, xpu: int = 0) -> None:
        monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda > 0)
        monkeypatch.setattr(torch.cuda, "device_count", lambda: cuda)
        monkeypatch.setattr(torch.backends.mps, "is_available", lambda: mps)
        monkeypatch.setattr(torch.xpu, "is_available", lambda: xpu > 0)
        monkeypatch.setattr(torch.xpu, "device_count", lambda: xpu)

    monkeypatch.delenv("CHEATSHEET_DEVICE", raising=False)
    install()
    return install


@pytest.fixture(scope="session")
def site() -> Path:
    """The built site; fails, naming the fix, when it has not been built."""
    if not (SITE / "index.html").exists():
        pytest.fail(f"no built site at {SITE}: build it first with `nox -s docs`")
    return SITE
