"""A "report a problem" link on every page and under every entry, to a new issue, filled in.

The link opens the repository's new-issue form (``repository_url`` in ``conf.py``) with
a title and a body that say where the reader was and what built it: the page's address,
the entry's label, the torch of the build, the machine that ran the page (its record's
``machine_id``; the build's machine for a page that runs nothing) and the commit. The
address is written into the page when it is built, so the link works without
JavaScript, from any subpath and from ``file://``, and nothing loads from outside: it is
a link the reader follows, not a request the page makes.

The search box's "suggest an entry", when a query finds nothing, is made the same way
in ``tasksearch.js``, from the ``<meta>`` tags this module fills (the layout writes them).
"""

from __future__ import annotations

import functools
import html
import json
import subprocess
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlencode

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.domains.std import StandardDomain
from sphinx.util import logging

import order  # docs/_ext: where each hook runs among the libraries' handlers
from cheatsheet._records import RECORD_SUFFIX
from cheatsheet._variables import read
from pageinputs import distribution_version
from pagerecords import COMMIT_ENV

logger = logging.getLogger(__name__)

# What the form's body asks the reader for, after the facts the link fills in.
_ASK = "What is wrong, or what did you expect?\n\n"


def issue_url(repository_url: str, title: str, facts: dict[str, str]) -> str:
    """Return the address of ``repository_url``'s new-issue form, filled in.

    >>> issue_url("https://github.com/o/r", "Problem: api-x", {"Entry": "api-x"})
    'https://github.com/o/r/issues/new?title=Problem%3A+api-x&body=Entry%3A+api-x%0A%0AWhat+is+wrong%2C+or+what+did+you+expect%3F%0A%0A'
    """
    if not repository_url.startswith("https://github.com/"):
        raise ValueError(
            f"repository_url {repository_url!r} is not a GitHub repository's address "
            "(https://github.com/OWNER/NAME): the feedback links open its new-issue form"
        )
    body = "".join(f"{name}: {value}\n" for name, value in facts.items()) + "\n" + _ASK
    query = urlencode({"title": title, "body": body})
    return f"{repository_url.rstrip('/')}/issues/new?{query}"


def tree_commit(folder: Path) -> str:
    """Return ``CHEATSHEET_COMMIT`` if set, else the checkout's commit (``-dirty`` when edited)."""
    told = read(COMMIT_ENV)
    if told:
        return told

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=folder, capture_output=True, text=True, check=False
        )
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "HEAD")
    if not commit:
        return "unknown"
    return commit + ("-dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


@functools.cache
def _build_machine() -> str:
    # Imported here: a rebuild that writes no page never imports torch.
    from cheatsheet import _records as records
    from cheatsheet import environment

    return records.machine_id(environment().as_dict())


def _page_machine(app: Sphinx, docname: str) -> str:
    """Return the machine that ran the page: its record's, or the build's for a page with none."""
    record = Path(app.srcdir, docname + RECORD_SUFFIX)
    if record.is_file():
        return str(json.loads(record.read_text(encoding="utf-8"))["machine_id"])
    return _build_machine()


def _facts(app: Sphinx, docname: str, anchor: str = "") -> dict[str, str]:
    address = app.config.html_baseurl + app.builder.get_target_uri(docname)
    facts = {"Page": address + (f"#{anchor}" if anchor else "")}
    if anchor:
        facts["Entry"] = anchor
    facts.update(
        torch=distribution_version("torch"),
        Machine=_page_machine(app, docname),
        Commit=app.env.feedback_commit,  # type: ignore[attr-defined]
    )
    return facts


def _link(url: str, name: str) -> nodes.raw:
    # Shown as "Report a problem", named in full for a screen reader's list of links.
    markup = (
        f'<p class="feedback-link"><a href="{html.escape(url)}" aria-label="{html.escape(name)}">'
        "Report a problem</a></p>"
    )
    return nodes.raw("", markup, format="html")


def _entry_links(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Under each labelled section but the page's own title: a link about that entry."""
    if app.builder.format != "html":
        return
    std = cast(StandardDomain, app.env.get_domain("std"))
    labels = {label for label, (doc, _) in std.anonlabels.items() if doc == docname}
    top = next(iter(doctree.findall(nodes.section)), None)
    for section in list(doctree.findall(nodes.section)):
        anchor = next((i for i in section["ids"] if i in labels), None)
        if section is top or anchor is None:
            continue
        url = issue_url(
            app.config.repository_url, f"Problem in {anchor}", _facts(app, docname, anchor)
        )
        # Right after the entry's title: cheatsheet.css sets it beside the title on a wide
        # screen, where it takes no line of its own.
        at = 1 if section.children and isinstance(section[0], nodes.title) else 0
        section.insert(at, _link(url, "Report a problem with this entry"))


def _page_context(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Give the page's template the footer link's address and what "suggest an entry" fills in."""
    if pagename not in app.env.found_docs:
        return  # search, genindex, 404: their own links come from the search box
    title = f"Problem on {pagename}"
    context["feedback_url"] = issue_url(app.config.repository_url, title, _facts(app, pagename))
    context["feedback_facts"] = {
        "torch": distribution_version("torch"),
        "machine": _page_machine(app, pagename),
        "commit": app.env.feedback_commit,  # type: ignore[attr-defined]
    }


def _site_context(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    context["feedback_new_issue"] = app.config.repository_url.rstrip("/") + "/issues/new"
    context.setdefault(
        "feedback_facts",
        {
            "torch": distribution_version("torch"),
            "machine": _build_machine(),
            "commit": app.env.feedback_commit,  # type: ignore[attr-defined]
        },
    )


def _remember_commit(app: Sphinx) -> None:
    app.env.feedback_commit = tree_commit(Path(app.srcdir))  # type: ignore[attr-defined]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("repository_url", "", "html", types=[str])
    app.connect("builder-inited", _remember_commit)
    app.connect("doctree-resolved", _entry_links)
    app.connect("html-page-context", _page_context)
    order.connect(app, "html-page-context", _site_context)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
