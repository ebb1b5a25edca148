"""Choose the device that examples run on, and wait for it."""

from __future__ import annotations

import re

import torch

from cheatsheet import _variables

__all__ = ["ENV_VAR", "available_devices", "check_device", "pick_device", "synchronize"]

#: Environment variable that overrides the automatic choice, e.g. ``cpu`` or ``cuda:1``.
ENV_VAR = "CHEATSHEET_DEVICE"

_ACCEPTED = "'cpu', 'cuda', 'cuda:N', 'mps', 'xpu' or 'xpu:N' (N a device index)"
_DEVICE_RE = re.compile(r"^(cpu|cuda|mps|xpu)(?::(0|[1-9]\d*))?$")


def _count(kind: str) -> int:
    """Return how many devices of ``kind`` this process can use."""
    if kind == "cpu":
        return 1
    if kind == "cuda":
        return torch.cuda.device_count() if torch.cuda.is_available() else 0
    if kind == "mps":
        return 1 if torch.backends.mps.is_available() else 0
    if kind == "xpu":
        xpu = getattr(torch, "xpu", None)
        return xpu.device_count() if xpu is not None and xpu.is_available() else 0
    raise AssertionError(kind)


def available_devices() -> list[str]:
    """List every device this process can use, best first.

    Returns
    -------
    list of str
        For example ``["cuda:0", "cuda:1", "cpu"]``; ``"cpu"`` is always last.
    """
    found: list[str] = []
    for kind in ("cuda", "mps", "xpu"):
        n = _count(kind)
        if kind == "mps":
            found += ["mps"] * n
        else:
            found += [f"{kind}:{i}" for i in range(n)]
    return [*found, "cpu"]


def check_device(request: str | torch.device, argument: str = "device") -> torch.device:
    """Turn an explicit device request into a device this machine has, or say what is wrong.

    Parameters
    ----------
    request : str or torch.device
        ``"cpu"``, ``"cuda"``, ``"cuda:N"``, ``"mps"``, ``"xpu"`` or ``"xpu:N"``.
    argument : str
        Name of the argument the request came from, used in error messages.

    Returns
    -------
    torch.device

    Raises
    ------
    ValueError
        If the request is malformed (the message lists the accepted forms) or
        names a device this machine lacks (the message lists what it has).
    TypeError
        If ``request`` is neither a string nor a ``torch.device``.
    """
    if isinstance(request, torch.device):
        text = str(request)
    elif isinstance(request, str):
        text = request.strip().lower()
    else:
        raise TypeError(
            f"{argument} must be a str or torch.device, got {type(request).__name__}; "
            f"pass one of {_ACCEPTED}"
        )
    match = _DEVICE_RE.match(text)
    if match is None:
        raise ValueError(f"{argument}={request!r} is not a device; use {_ACCEPTED}")
    kind, index = match.group(1), match.group(2)
    n = _count(kind)
    wanted = 0 if index is None else int(index)
    if wanted >= n:
        have = ", ".join(available_devices())
        what = kind if index is None else f"{kind}:{index}"
        raise ValueError(
            f"{argument}={request!r} asks for {what}, which this machine does not have; "
            f"available here: {have}"
        )
    return torch.device(kind if index is None else f"{kind}:{index}")


def pick_device(prefer: str | torch.device | None = None) -> torch.device:
    """Return the device to run on.

    An explicit ``prefer`` wins; otherwise the environment variable
    ``CHEATSHEET_DEVICE`` (so a GPU machine can build the CPU view of the
    site); otherwise the best available of cuda > mps > xpu > cpu. An explicit
    request is never silently replaced by another device.

    Parameters
    ----------
    prefer : str or torch.device, optional
        ``"cpu"``, ``"cuda"``, ``"cuda:N"``, ``"mps"``, ``"xpu"`` or ``"xpu:N"``.

    Returns
    -------
    torch.device

    Raises
    ------
    ValueError, TypeError
        As :func:`check_device` does, for ``prefer`` or the environment variable.
    """
    if prefer is not None:
        return check_device(prefer, "prefer")
    from_env = _variables.read(ENV_VAR)
    if from_env:
        return check_device(from_env, ENV_VAR)
    for kind in ("cuda", "mps", "xpu"):
        if _count(kind):
            return torch.device(kind)
    return torch.device("cpu")


def synchronize(device: str | torch.device) -> None:
    """Block until every queued kernel on ``device`` has finished.

    Timings taken without this measure only the launch of asynchronous GPU
    work, not the work itself. On the CPU it does nothing.
    """
    kind = torch.device(device).type
    if kind == "cuda":
        torch.cuda.synchronize(device)
    elif kind == "mps":
        torch.mps.synchronize()
    elif kind == "xpu":
        torch.xpu.synchronize(device)
