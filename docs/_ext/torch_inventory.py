r"""Write the Sphinx inventory of PyTorch's API from PyTorch's own documentation sources.

The site links every ``torch.*`` name in its code to docs.pytorch.org through
intersphinx, and builds offline: the inventory lives in the repository
(``docs/_inventories/torch.inv``) instead of being downloaded at build time. This
script writes it from the ``docs/source`` folder of pytorch/pytorch at the release
tag of the torch version the site is built with::

    git clone --depth 1 --branch v2.14.1 --filter=blob:none --sparse \
        https://github.com/pytorch/pytorch /tmp/pytorch
    git -C /tmp/pytorch sparse-checkout set docs/source
    python docs/_ext/torch_inventory.py /tmp/pytorch/docs/source

The inventory now in the repository was not written from that checkout: the machines
that wrote it could not reach GitHub. For 2.14 (1,823 names) its source was an offline
store's newest copy of each ``docs/source`` file, each last changed at its own commit
of pytorch/pytorch after 2.13 (``accelerator.md`` at 6b5159ef8fee), so no single
commit names it, and every name was checked against the installed torch 2.14.1. For
2.15 the store held the same copies, and the inventory was checked again against torch
2.15.0 with ``--recheck``: its names and addresses kept, each name looked up in the
installed torch, as always, and one name left out whose kind changed, so that its
address did too (``torch.compiler.precompile``, a module in 2.15: 1,822 names)::

    python docs/_ext/torch_inventory.py --recheck docs/_inventories/torch.inv

The next refresh from the tag replaces it.

It reads what Sphinx would make of those pages without running Sphinx on them:

- ``autosummary`` lists with ``:toctree: DIR`` give each entry its own page,
  ``DIR/<full.name>.html#<full.name>``, next to the page that lists it;
- ``autofunction``, ``autoclass``, ``automethod``, ... and hand-written
  ``py:function``, ``py:class``, ... directives document a name on the page itself,
  ``<page>.html#<full.name>``;
- ``automodule`` and ``py:module`` give ``<page>.html#module-<name>``.

Markdown pages count only inside ``{eval-rst}`` fences, as MyST reads them. Where
the sources do not say a URL for certain, the name is left out rather than guessed:
members pulled in by ``:members:``, autosummary lists without a toctree, and names
documented on more than one page. Every name is then looked up in the installed
torch; names it does not have are dropped, and the object found decides the role
(``py:function``, ``py:class``, ``py:method``, ...).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import inspect
import pkgutil
import re
import sys
import warnings
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Entry", "documented_names", "inventory_bytes", "main", "resolve_entries"]

DEFAULT_OUTPUT = Path(__file__).resolve().parents[1] / "_inventories" / "torch.inv"

_DIRECTIVE = re.compile(r"^(?P<indent>\s*)\.\.\s+(?:py:)?(?P<name>[\w-]+)::\s*(?P<arg>.*?)\s*$")
_FENCE_OPEN = re.compile(r"^\s*(?P<ticks>`{3,}|~{3,})\s*\{eval-rst\}\s*$")
_SETS_MODULE = {"currentmodule", "module", "automodule"}
_PAGE_OBJECTS = {
    "autofunction",
    "autoclass",
    "autoexception",
    "automethod",
    "autoattribute",
    "autoproperty",
    "autodata",
    "autodecorator",
    "function",
    "class",
    "exception",
    "method",
    "attribute",
    "property",
    "data",
    "decorator",
}


@dataclass(frozen=True)
class _Candidate:
    """A name as a page documents it, before the installed torch has a say.

    Attributes
    ----------
    names : tuple of str
        Full names to try in order, as Sphinx would (current module first).
    uri : str
        Address relative to the documentation root; ``$`` stands for the name found.
    page : str
        The source file, relative to the documentation root, for messages.
    """

    names: tuple[str, ...]
    uri: str
    page: str


@dataclass(frozen=True)
class Entry:
    """One line of the inventory.

    Attributes
    ----------
    name : str
        Full dotted name, for example ``torch.nn.Linear``.
    role : str
        Sphinx domain and role, for example ``py:class``.
    uri : str
        Address relative to the documentation root, with its anchor.
    """

    name: str
    role: str
    uri: str


def _rst_lines(path: Path) -> list[str]:
    """Return the reStructuredText a page holds: all of it, or a Markdown page's eval-rst."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".md":
        return text.splitlines()
    lines: list[str] = []
    closing: str | None = None
    for line in text.splitlines():
        if closing is None:
            opened = _FENCE_OPEN.match(line)
            if opened:
                closing = opened["ticks"]
        elif line.strip() == closing:
            closing = None
            lines.append("%")  # a fence ends whatever directive it held
        else:
            lines.append(line)
    return lines


def _block(lines: list[str], start: int, indent: int) -> Iterator[str]:
    """Yield the lines of the directive body that follows line ``start``."""
    for line in lines[start + 1 :]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            return
        yield line.strip()


def _page_candidates(root: Path, path: Path) -> Iterator[_Candidate]:
    """Yield every name one page documents, with where it is documented."""
    page = path.relative_to(root).with_suffix("").as_posix()
    folder = page.rpartition("/")[0]
    module = ""
    lines = _rst_lines(path)
    for number, line in enumerate(lines):
        directive = _DIRECTIVE.match(line)
        if not directive:
            continue
        kind, arg = directive["name"], directive["arg"]
        indent = len(directive["indent"])
        body = list(_block(lines, number, indent))
        if kind in _SETS_MODULE:
            module = "" if arg == "None" else arg
            if kind != "currentmodule" and ":noindex:" not in body and ":no-index:" not in body:
                yield _Candidate((arg,), f"{page}.html#module-$", page)
        elif kind == "autosummary":
            toctree = next((o.split(None, 1)[1] for o in body if o.startswith(":toctree:")), None)
            if toctree is None:
                continue  # the entries are documented elsewhere, if at all
            folder_uri = "/".join(p for p in (folder, toctree.strip().strip("/")) if p)
            for item in body:
                if item and not item.startswith((":", "..")):
                    yield _Candidate(
                        _scoped(module, item.lstrip("~").split()[0]), f"{folder_uri}/$.html#$", page
                    )
        elif kind in _PAGE_OBJECTS and arg:
            name = arg.split("(", 1)[0].strip()
            yield _Candidate(_scoped(module, name), f"{page}.html#$", page)


def _scoped(module: str, name: str) -> tuple[str, ...]:
    """Return the full names Sphinx tries for ``name`` under the current module."""
    return (f"{module}.{name}", name) if module and not name.startswith(f"{module}.") else (name,)


def documented_names(root: Path) -> list[_Candidate]:
    """Return every name the pages under ``root`` document, page by page in path order."""
    pages = sorted(p for p in root.rglob("*") if p.suffix in {".rst", ".md"})
    return [c for page in pages for c in _page_candidates(root, page)]


def _resolve(name: str) -> tuple[object, object] | None:
    """Return ``(object, parent)`` for a dotted name in the installed torch, or None."""
    if not name.startswith("torch") or not all(p.isidentifier() for p in name.split(".")):
        return None
    parent_name, _, attr = name.rpartition(".")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            obj = pkgutil.resolve_name(name)
            parent = pkgutil.resolve_name(parent_name) if parent_name else None
        except (ImportError, AttributeError, ValueError, RuntimeError, OSError):
            return None  # an import that fails, or a missing attribute: not in this torch
    if parent is not None and not inspect.ismodule(obj) and not _owned_by(parent, attr):
        return None
    return obj, parent


def _owned_by(parent: object, attr: str) -> bool:
    """Whether ``attr`` is really reachable on ``parent`` (not only through ``__getattr__``)."""
    if inspect.isclass(parent):
        return any(attr in vars(k) for k in inspect.getmro(parent)) or hasattr(parent, attr)
    return attr in vars(parent) or attr in getattr(parent, "__all__", ())


def _role(obj: object, parent: object) -> str:
    """Return the Sphinx role that documents ``obj`` found on ``parent``."""
    if inspect.ismodule(obj):
        return "py:module"
    if inspect.isclass(obj):
        return "py:exception" if issubclass(obj, BaseException) else "py:class"
    if inspect.isclass(parent):
        return "py:method" if callable(obj) and not isinstance(obj, type) else "py:attribute"
    if callable(obj):
        return "py:function"
    return "py:data"


def resolve_entries(candidates: Iterable[_Candidate]) -> list[Entry]:
    """Keep the names the installed torch has and that one page alone documents."""
    found: dict[str, set[str]] = {}
    roles: dict[str, str] = {}
    for candidate in candidates:
        for name in candidate.names:
            resolved = _resolve(name)
            if resolved is None:
                continue
            found.setdefault(name, set()).add(candidate.uri.replace("$", name))
            roles[name] = _role(*resolved)
            break
    return sorted(
        (Entry(name, roles[name], uris.pop()) for name, uris in found.items() if len(uris) == 1),
        key=lambda e: e.name,
    )


def inventory_bytes(entries: Iterable[Entry], *, project: str, version: str) -> bytes:
    """Return a Sphinx objects.inv (version 2, zlib-compressed) holding ``entries``."""
    header = (
        "# Sphinx inventory version 2\n"
        f"# Project: {project}\n"
        f"# Version: {version}\n"
        "# The remaining of this file is compressed using zlib.\n"
    )
    body = "".join(
        f"{e.name} {e.role} 1 {_short_uri(e)} -\n"
        for e in sorted(entries, key=lambda e: (e.name, e.role))
    )
    return header.encode() + zlib.compress(body.encode(), 9)


def _short_uri(entry: Entry) -> str:
    """Write the anchor as ``$`` where it is the name itself, as Sphinx does."""
    return (
        entry.uri[: -len(entry.name)] + "$" if entry.uri.endswith(f"#{entry.name}") else entry.uri
    )


def inventory_candidates(data: bytes) -> dict[str, _Candidate]:
    """Return an inventory's names and addresses, to check again, by role and name."""
    from sphinx.util.inventory import InventoryFile

    read = InventoryFile.loads(data, uri="").data
    return {
        f"{role} {name}": _Candidate((name,), item.uri, "the inventory")
        for role, items in read.items()
        for name, item in items.items()
    }


def main(argv: list[str] | None = None) -> int:
    """Write the inventory; print how many names it holds."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "source", type=Path, help="docs/source of pytorch/pytorch at the release tag"
    )
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument(
        "--recheck", action="store_true",
        help="SOURCE is an inventory written before: keep its addresses, check its names "
        "against the installed torch (where the docs sources cannot be fetched)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.recheck:
        if not args.source.is_file():
            parser.error(f"{args.source} is not a file: pass an objects.inv to --recheck")
        known = inventory_candidates(args.source.read_bytes())
        candidates = list(known.values())
    elif not args.source.is_dir():
        parser.error(f"{args.source} is not a folder: pass pytorch's docs/source")
    else:
        candidates = documented_names(args.source)
    entries = resolve_entries(candidates)
    if args.recheck:
        # A name that is now another kind of object (a function become a module) has
        # another address on the new release's pages, which the old inventory cannot say.
        changed = [e for e in entries if f"{e.role} {e.name}" not in known]
        for entry in changed:
            print(f"left out: {entry.name} is a {entry.role} in this torch, not as written")
        entries = [e for e in entries if e not in changed]
    version = ".".join(importlib.metadata.version("torch").split(".")[:2])
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_bytes(inventory_bytes(entries, project="PyTorch", version=version))
    print(f"{args.output}: {len(entries)} of {len(candidates)} documented names, torch {version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
