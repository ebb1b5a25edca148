"""Error messages as the search compares them: the stable part, whatever run printed it.

A message that a reader pastes from their own traceback differs from the one a page
printed in what the run put into it: shapes and sizes, dtypes, devices, quoted names,
file paths, addresses, a distributed rank's prefix, the module path of the exception
class, and the traceback lines around it. :func:`normalise` drops those parts with the
rules of ``errortext.toml``; the build writes the same rules into the search index, so
that ``tasksearch-rank.js`` normalises what a reader types with them too (one definition,
two languages).
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RULES_FILE = Path(__file__).with_name("errortext.toml")


@dataclass(frozen=True)
class Rule:
    """One kind of run-specific text that a message loses.

    Attributes
    ----------
    what : str
        What it matches, for people.
    pattern : str
        The regular expression, in the syntax Python and JavaScript share.
    ignore_case : bool
        Whether it matches regardless of case.
    """

    what: str
    pattern: str
    ignore_case: bool = False

    @functools.cached_property
    def compiled(self) -> re.Pattern[str]:
        return re.compile(self.pattern, re.ASCII | (re.IGNORECASE if self.ignore_case else 0))


@dataclass(frozen=True)
class Rules:
    """The rules of ``errortext.toml``.

    Attributes
    ----------
    marker : str
        Where a printed exception starts (``RuntimeError:``).
    max_words : int
        How many words of a message are kept.
    drop : tuple of Rule
        What is dropped from a message, in order.
    """

    marker: str
    max_words: int
    drop: tuple[Rule, ...]

    @functools.cached_property
    def compiled_marker(self) -> re.Pattern[str]:
        return re.compile(self.marker, re.ASCII)

    def as_data(self) -> dict[str, Any]:
        """Return the rules as the browser reads them: marker, max_words, drop."""
        return {
            "marker": self.marker,
            "max_words": self.max_words,
            "drop": [[r.pattern, "i" if r.ignore_case else ""] for r in self.drop],
        }


@functools.cache
def load_rules(path: Path = RULES_FILE) -> Rules:
    """Read the rules file."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return Rules(
        marker=data["marker"],
        max_words=data["max_words"],
        drop=tuple(Rule(**rule) for rule in data["drop"]),
    )


def message(text: str, rules: Rules | None = None) -> str:
    """Return ``text`` from its last exception marker on (all of it when it has none).

    A pasted traceback ends with the exception it raised; what comes before (the
    frames, a chained exception) is not the message.
    """
    rules = rules or load_rules()
    starts = [m.start() for m in rules.compiled_marker.finditer(text)]
    return text[starts[-1] :] if starts else text


def normalise(text: str, rules: Rules | None = None) -> str:
    """Return the stable part of an error message: lower case, one space between words.

    Examples
    --------
    >>> normalise("[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried 2.00 GiB")
    'outofmemoryerror: cuda out of memory. tried'
    """
    rules = rules or load_rules()
    text = message(text, rules)
    for rule in rules.drop:
        text = rule.compiled.sub(" ", text)
    return " ".join(text.lower().split()[: rules.max_words])


def printed_lines(output: str, rules: Rules | None = None) -> list[str]:
    """Find the error messages in a block of printed output, as printed.

    A message starts at a line that holds an exception marker and goes on over the
    lines torch continues it with: the line after one that ends in a colon
    (``RuntimeError:``), and indented lines (``Missing key(s) in state_dict`` after a
    tab). Any other line is the page's own print, and ends the message.
    """
    rules = rules or load_rules()
    found: list[list[str]] = []
    for line in output.splitlines():
        last = found[-1][-1] if found and found[-1] else ""
        if rules.compiled_marker.search(line):
            found.append([line])
        elif last and line.strip() and (last.rstrip().endswith(":") or line[:1].isspace()):
            found[-1].append(line)
        elif found:
            found.append([])  # the page's own line: the message before it has ended
    return ["\n".join(lines) for lines in found if lines]


def printed_messages(output: str, rules: Rules | None = None) -> list[str]:
    """Find the error messages in a block of printed output, each normalised."""
    rules = rules or load_rules()
    messages = (normalise(text.replace("\n", " "), rules) for text in printed_lines(output, rules))
    return [m for m in messages if m]
