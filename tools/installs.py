"""What the nox verbs install that a requirement list cannot say: pins, caps and other torches.

``noxfile.py`` holds the verbs; nox makes and reuses their environments. Three cases
need more than ``session.install(*requirements)``, and are worked out here, as pip's
own noxfile keeps its release machinery in ``tools/``:

- pip configured to refuse the pinned torch (these machines cap it at the wheels on
  their disk): pip names no file when a constraint refuses a package, so the ``site``
  session finds the cap first and names it (:func:`pip_caps`).
- a torch someone else installed (a CUDA, ROCm or Apple build, a conda environment):
  a venv made from that Python would not see its packages, so the site's packages go
  into that environment itself, and its torch stays as it was (:func:`install_beside`).
- an older torch, for the version records: it brings its own CUDA stack and sympy,
  and the optional packages of its time (:func:`install_older_torch`).

It needs the standard library and nox alone: nox's Python has neither torch nor the
project.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parents[1]
CONSTRAINTS_FILE = ROOT / "constraints.txt"  # every session installs these pins
_TOOL = nox.project.load_toml(ROOT / "pyproject.toml")["tool"]
OPTIONAL_FOR_TORCH: dict[str, list[str]] = _TOOL["cheatsheet"]["optional-for-torch"]
OPTIONAL_PACKAGES = ("torchao", "onnx", "onnxscript", "onnxruntime")
ERA_PACKAGES = ("protobuf", "onnx-ir")


def name(requirement: str) -> str:
    """Return the distribution name of ``requirement`` ("torchao>=0.18" -> "torchao")."""
    return re.split(r"[\s<>=!~;\[(]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def pinned(package: str) -> str:
    """Return the version constraints.txt pins for ``package``."""
    for line in CONSTRAINTS_FILE.read_text().splitlines():
        if name(line) == package:
            return line.split("==")[1].strip()
    raise LookupError(f"{package} is not pinned in {CONSTRAINTS_FILE.name}")


def constraints_without(names: Iterable[str], path: Path) -> Path:
    """Write the pins of constraints.txt minus torch and ``names`` to ``path``."""
    dropped = {*names, "torch"}
    kept = [line for line in CONSTRAINTS_FILE.read_text().splitlines()
            if line.startswith("#") or name(line) not in dropped]  # fmt: skip
    path.write_text("\n".join(kept) + "\n")
    return path


def minor(version: str) -> str:
    """Return a release's major.minor ("2.4.1+cu121" -> "2.4")."""
    return ".".join(version.split("+")[0].split(".")[:2])


def era_packages(torch_version: str) -> tuple[str, ...]:
    """Return the optional packages of ``torch_version``'s time (none for the pinned release)."""
    if minor(torch_version) == minor(pinned("torch")):
        return ()
    return tuple(OPTIONAL_FOR_TORCH.get(minor(torch_version), ()))


def pip_caps(config: str, torch_pin: str) -> list[str]:
    """Return the lines (``file: line``) of pip's constraint files that exclude torch ``torch_pin``.

    ``config`` is what ``pip config list`` printed (``PIP_CONSTRAINT`` shows there as
    ``:env:.constraint``).
    """
    from packaging.requirements import InvalidRequirement, Requirement

    named = [p for m in re.finditer(r"constraint='([^']*)'", config) for p in m.group(1).split()]
    caps = []
    for path in filter(Path.is_file, map(Path, dict.fromkeys(named))):
        for line in path.read_text().splitlines():
            with contextlib.suppress(InvalidRequirement):
                requirement = Requirement(line.split("#")[0].strip())
                if requirement.name == "torch" and torch_pin not in requirement.specifier:
                    caps.append(f"{path}: {line.strip()}")
    return caps


def stop_if_pip_refuses_the_pin(session: nox.Session) -> None:
    """Stop ``session``, naming the file and line, when its pip is configured to refuse the pin."""
    config = session.run("python", "-m", "pip", "config", "list", silent=True,
                         success_codes=[0, 1]) or ""  # fmt: skip
    if caps := pip_caps(str(config), pinned("torch")):
        session.error(
            f"pip is configured to refuse the pinned torch {pinned('torch')}: "
            f"{'; '.join(caps)}. Use uv (python -m pip install uv; it reads no pip "
            "configuration), or lift the cap as that file says; `pip config debug` "
            "lists the files pip reads."
        )


def install_beside(session: nox.Session, python: str, deps: list[str]) -> None:
    """Install the project and ``deps`` into ``python``'s own environment, beside its torch."""
    listing = ("import importlib.metadata as m, json; print(json.dumps({d.metadata['Name']"
               ".lower().replace('_', '-'): d.version for d in m.distributions()}))")  # fmt: skip
    before = json.loads(str(session.run(python, "-c", listing, external=True, silent=True)))
    if "torch" not in before:
        session.error(f"{python} has no torch; install one there, or leave out --installed-torch")
    era = era_packages(before["torch"])  # torchao 0.18 does not import under torch 2.4
    theirs = {name(r) for r in era}
    pins = constraints_without(set(before) | theirs, Path(session.create_tmp()) / "pins.txt")
    pip = (python, "-m", "pip", "install", "--quiet", "-c", str(pins))
    session.run_install(*pip, "-e", str(ROOT), *[d for d in deps if name(d) not in theirs],
                        external=True)  # fmt: skip
    if era:
        try:
            session.run_install(*pip, *era, external=True)
        except nox.command.CommandFailed:
            session.warn(f"could not install {' '.join(era)} beside torch {before['torch']}: "
                         "the entries that need them skip, saying so")  # fmt: skip
    after = json.loads(str(session.run(python, "-c", listing, external=True, silent=True)))
    if after["torch"] != before["torch"]:
        session.error(f"pip changed {python}'s torch ({before['torch']}); reinstall it")
    session.log(f"Building with the installed torch {before['torch']} of {python}")


def install_older_torch(session: nox.Session, requirement: str, deps: list[str]) -> None:
    """Install ``requirement`` (a torch release), the project, ``deps`` and what fits it.

    The pinned torch's CUDA stack (nvidia-*, cuda-*, triton) is not an older torch's,
    older releases pin their own sympy (2.5 and 2.6: sympy==1.13.1), and 2.15 pins
    setuptools where 2.11 and 2.12 want setuptools<82: those pins are dropped.
    """
    theirs = {n for n in map(name, CONSTRAINTS_FILE.read_text().splitlines())
              if n.startswith(("nvidia-", "cuda-"))}  # fmt: skip
    theirs |= {"triton", "setuptools", "sympy", "mpmath", *OPTIONAL_PACKAGES, *ERA_PACKAGES}
    pins = ("-c", str(constraints_without(theirs, Path(session.create_tmp()) / "pins.txt")))
    session.install(*pins, requirement, "-e", str(ROOT), *deps)
    release = minor(re.sub(r"^torch[~=]=", "", requirement))
    if release == minor(pinned("torch")):
        optional = [f"{n}=={pinned(n)}" for n in OPTIONAL_PACKAGES + ERA_PACKAGES]
    else:
        optional = OPTIONAL_FOR_TORCH.get(release, [])
    if optional:
        try:
            session.install(*pins, requirement, *optional)
        except nox.command.CommandFailed:
            session.warn(f"could not install {' '.join(optional)} beside {requirement}: "
                         "the entries that need them are not measured under it")  # fmt: skip
