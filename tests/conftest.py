"""Shared fixtures: faked devices, a fake clock, a Measurement factory and the built site."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from cheatsheet import Measurement, timing

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


@pytest.fixture
def measurement() -> Callable[..., Measurement]:
    """Build a Measurement from keywords; every field has a plain default."""

    def make(**fields: object) -> Measurement:
        defaults: dict[str, object] = {
            "label": "m",
            "times_s": (1e-3,) * 15,
            "calls_per_run": 10,
            "first_call_s": 0.01,
            "threads": 1,
            "device": "cpu",
            "runs_wanted": 15,
        }
        return Measurement(**{**defaults, **fields})

    return make


class FakeClock:
    """A clock that moves only when timed work says how long it took.

    ``work(cost)`` returns a function that advances the clock by ``cost``
    seconds per call; ``cost`` may be a callable for costs that change from
    call to call. ``syncs`` records the device of every synchronize the timer
    asks for, and ``events`` the order of calls ("C") and synchronizes ("S").
    """

    def __init__(self) -> None:
        self.now = 0.0
        self.syncs: list[str] = []
        self.events: list[str] = []

    def __call__(self) -> float:
        return self.now

    def synchronize(self, device: object) -> None:
        self.syncs.append(str(device))
        self.events.append("S")

    def work(self, cost: float | Callable[[], float]) -> Callable[..., None]:
        def fn(*args: object, **kwargs: object) -> None:
            self.events.append("C")
            self.now += cost() if callable(cost) else cost

        return fn


@pytest.fixture
def fake_clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """Replace the timer's clock and device synchronize with fakes that record what happens."""
    clock = FakeClock()
    monkeypatch.setattr(timing, "_clock", clock)
    monkeypatch.setattr(timing, "synchronize", clock.synchronize)
    return clock
