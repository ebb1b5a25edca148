"""A name in ``conf.py`` that is one slip from a configuration value stops the build, with a "did you mean".

Sphinx reads only the names its extensions declare and keeps the rest of ``conf.py`` as
plain Python, so ``sphinx_gallery_cnf = {...}`` is ignored without a word and the build
runs with the defaults. sphinx-gallery checks the keys *inside* its own dictionary the
same way (``gen_gallery._check_config``); this does it for ``conf.py``'s top-level
names, once every extension has declared its values (``config-inited``). A name close to
no declared value (a helper such as ``ROOT``, or ``torch_docs_url``) is left alone.
"""

from __future__ import annotations

import difflib
import types
from collections.abc import Iterable, Mapping
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ConfigError

# How alike a name must be to a declared value to be taken for a slip of it (difflib's
# ratio): "sphinx_gallery_cnf" is 0.97 from "sphinx_gallery_conf" and "html_tittle" 0.95
# from "html_title", where two real values, "html_title" and "html_theme", are 0.7 apart.
CUTOFF = 0.85


def misspelt(names: Iterable[str], known: Iterable[str]) -> dict[str, str]:
    """Return each of ``names`` not in ``known`` but close to one of them, with that one."""
    known = set(known)
    slips = {}
    for name in names:
        if name in known or name.startswith("_") or not name.islower():
            continue
        close = difflib.get_close_matches(name, known, n=1, cutoff=CUTOFF)
        if close:
            slips[name] = close[0]
    return slips


def _settings(raw: Mapping[str, Any]) -> list[str]:
    """Return the names ``conf.py`` binds to values, not to modules, functions or classes."""
    kinds = (types.ModuleType, types.FunctionType, type)
    return [name for name, value in raw.items() if not isinstance(value, kinds)]


def check_names(app: Sphinx, config: Config) -> None:
    slips = misspelt(_settings(config._raw_config), (value.name for value in config))
    if slips:
        lines = [f"  {name}: did you mean {known}?" for name, known in sorted(slips.items())]
        raise ConfigError(
            "conf.py sets names that no extension reads, each one slip from one that is "
            "read:\n" + "\n".join(lines) + "\nRename them (or, for a helper, start its name with _)"
        )


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", check_names)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
