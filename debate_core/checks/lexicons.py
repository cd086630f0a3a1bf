"""The rules' phrase lexicons, read from data files (debate_core/resources/lexicons/*.yaml).

Each file holds named entries; an entry is either a word list (``words``) or a regular expression
(``regex``, written in verbose form: whitespace and line breaks are layout, one alternative per
line).  A regex may name another entry as a part: ``%{name}`` (same file) or ``%{file.name}``
(another file) is replaced by that entry — a word list as an alternation of its words, longest
first.  Every entry carries an ``example`` sentence it must match and may carry a ``not`` example
it must not match; tests/test_checks.py loads every file and checks both.

``synonyms.yaml`` is a different shape: groups of words a restatement may exchange (see
:func:`canon`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache, lru_cache
from importlib import resources

import yaml

__all__ = [
    "Entry",
    "Lexicon",
    "load",
    "names",
    "regex",
    "words",
    "pattern",
    "canon",
    "synonym_groups",
    "same_group",
    "LEXICON_FILES",
    "trie",
]

LEXICON_FILES = (
    "sides",
    "positions",
    "evaluation",
    "verdict",
    "dialogue",
    "scene",
    "hygiene",
    "restatement",
    "engages",
)
_PART = re.compile(r"%\{(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)\}")


@dataclass(frozen=True)
class Entry:
    lexicon: str
    name: str
    doc: str = ""
    words: tuple[str, ...] = ()
    regex: str = ""  # verbose source, parts not yet expanded
    example: str | list = ""
    not_: str | list = ""
    flags: tuple[str, ...] = ()

    @property
    def is_words(self) -> bool:
        return not self.regex


@dataclass
class Lexicon:
    name: str
    doc: str = ""
    entries: dict[str, Entry] = field(default_factory=dict)


def _read(name: str) -> dict:
    text = resources.files("debate_core").joinpath(f"resources/lexicons/{name}.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text) or {}


@cache
def load(name: str) -> Lexicon:
    raw = _read(name)
    lex = Lexicon(name=name, doc=raw.get("doc", ""))
    for key, e in (raw.get("entries") or {}).items():
        if ("words" in e) == ("regex" in e):
            raise ValueError(f"lexicon {name}.{key}: give either words or regex")
        lex.entries[key] = Entry(
            lexicon=name,
            name=key,
            doc=e.get("doc", ""),
            words=tuple(str(w) for w in e.get("words") or ()),
            regex=e.get("regex", "") or "",
            example=e.get("example", ""),
            not_=e.get("not", "") or "",
            flags=tuple(e.get("flags") or ()),
        )
        if not e.get("example"):
            raise ValueError(f"lexicon {name}.{key}: every entry needs an example")
    return lex


def names() -> tuple[str, ...]:
    return LEXICON_FILES


def entry(ref: str, lexicon: str = "") -> Entry:
    lex_name, _, key = ref.rpartition(".")
    lex = load(lex_name or lexicon)
    try:
        return lex.entries[key]
    except KeyError:
        raise KeyError(f"no lexicon entry {lex.name}.{key}") from None


def words(ref: str) -> tuple[str, ...]:
    """A word list (``file.name``)."""
    return entry(ref).words


def _alternation(ws: tuple[str, ...]) -> str:
    return "|".join(re.escape(w).replace(" ", r"\ ") for w in sorted(dict.fromkeys(ws), key=len, reverse=True))


def compact(verbose: str) -> str:
    """A verbose regex source as an ordinary one: layout whitespace and ``#`` comments outside
    character classes removed (escaped ones kept), so that it can be joined into other patterns."""
    out, cls, i = [], False, 0
    while i < len(verbose):
        ch = verbose[i]
        if ch == "\\":
            out.append(verbose[i : i + 2])
            i += 2
            continue
        if cls:
            if ch == "]":
                cls = False
            out.append(ch)
        elif ch == "[":
            cls = True
            out.append(ch)
            if verbose[i + 1 : i + 2] == "]":
                out.append("]")
                i += 1
            elif verbose[i + 1 : i + 3] == "^]":
                out.append("^]")
                i += 2
        elif ch == "#":
            while i < len(verbose) and verbose[i] != "\n":
                i += 1
            continue
        elif ch not in " \t\n\r\f\v":
            out.append(ch)
        i += 1
    return "".join(out)


def trie(words) -> str:
    """One regex source matching any of ``words``, the longest first, written as a prefix tree: much faster to
    scan than a flat alternation of hundreds of words."""
    root: dict = {}
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        ends = "" in node
        alts = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        if ends:
            return "(?:" + body + ")?"
        return body

    return "(?:" + emit(root) + ")" if root else "(?!)"


@cache
def pattern(ref: str, _stack: tuple[str, ...] = ()) -> str:
    """An entry's regex source, compact (not verbose), with its parts expanded (a word list: its
    alternation)."""
    e = entry(ref)
    full = f"{e.lexicon}.{e.name}"
    if full in _stack:
        raise ValueError(f"lexicon part cycle: {' -> '.join(_stack + (full,))}")
    if e.is_words:
        return _alternation(e.words)

    def sub(m: re.Match) -> str:
        part = m.group("name")
        ref2 = part if "." in part else f"{e.lexicon}.{part}"
        return "(?:" + pattern(ref2, _stack + (full,)) + ")"

    return _PART.sub(sub, compact(e.regex.strip()))


@cache
def regex(ref: str) -> re.Pattern:
    """An entry compiled."""
    e = entry(ref)
    flags = 0
    if "multiline" in e.flags:
        flags |= re.M
    return re.compile(pattern(ref), flags)


def matches(ref: str, text: str) -> bool:
    e = entry(ref)
    if e.is_words:
        return any(w in text for w in e.words)
    return regex(ref).search(text) is not None


# ------------------------------------------------------------------ synonyms


@lru_cache(maxsize=1)
def synonym_groups() -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(str(w) for w in g["words"]) for g in _read("synonyms").get("groups") or ())


@lru_cache(maxsize=1)
def _canon_table() -> tuple[dict[str, str], re.Pattern | None]:
    table: dict[str, str] = {}
    for g in synonym_groups():
        head = g[0]
        for w in g:
            if len(w) >= 2:
                table.setdefault(w, head)
    if not table:
        return table, None
    return table, re.compile("|".join(re.escape(w) for w in sorted(table, key=len, reverse=True)))


def canon(text: str) -> str:
    """``text`` with every word of a synonym group replaced by the group's first word (longest words
    first), so that a paraphrase and its source compare equal term for term."""
    table, rx = _canon_table()
    if rx is None:
        return text
    return rx.sub(lambda m: table[m.group(0)], text)


def same_group(word: str) -> tuple[str, ...]:
    """The words a synonym group puts with ``word`` (``word`` alone when it is in no group)."""
    for g in synonym_groups():
        if word in g:
            return g
    return (word,)
