"""Untrusted text, shown as text: Markdown that can neither fetch nor link, plotly labels that cannot link.

Debate content comes from models and from imported files: topics, speeches, observations, verdicts,
judge notes, participant / model / judge names, stances, citation titles, stop reasons.  Wherever it is
shown as Markdown (the app's ``st.markdown`` / ``st.caption`` / ``st.info`` …, page-link labels, and
the Markdown a viewer renders from an export) it goes through :func:`neutralize_markdown` first, and
wherever it reaches a plotly figure (legend names, axis ticks, hover text) through :func:`plotly_text`.

What :func:`neutralize_markdown` does, and why each step:

* ``\\`` ``[`` ``]`` ``$`` are backslash-escaped.  Without ``[`` and ``]`` there is no link, image,
  reference link or definition, footnote or Streamlit directive (``:red[…]``); ``$`` starts KaTeX
  math; and since every backslash of the text is itself escaped, no escape in the text can hide
  anything from the steps here (``http\\://…`` must not become ``http://…`` in the rendered text).
* ``&`` and ``<`` become ``&amp;`` and ``&lt;``: no HTML tag, comment or autolink (``<http://…>``) can
  open, and no entity (``&#58;``) can turn into a character the other steps did not see.
* A bare URL or e-mail address is what GFM turns into a link by itself (``https://…``, ``www.…``,
  ``a@b.org``): a zero-width space (U+200B) goes between ``http``/``https`` and ``://``, between
  ``www`` and ``.``, and before ``@``, so the text reads the same and links nowhere.  A zero-width
  space already in the text is written ``&#8203;`` (it stays invisible), which keeps
  :func:`restore_markdown` exact.
* Emphasis, headings, lists, quotes, tables and code spans are left alone: a speech is Markdown and
  none of them can fetch or link (a code span shows its content verbatim, escapes included).

Our own links are never inside the untrusted text: the app links to its pages with ``st.page_link``
and writes its own Markdown around neutralised values, so they stay as they are.

:func:`neutral_debate` gives a copy of a debate with every text field neutralised, for the renderers
that write an export a viewer renders (the renderers themselves also write what a model reads, which
must stay verbatim).  :func:`restore_markdown` is the exact inverse of :func:`neutralize_markdown`
(``inline=False``), for an importer reading such an export back (a one-line field of
:data:`INLINE_FIELDS` comes back with its line breaks as spaces).
"""

from __future__ import annotations

import html
import re
from typing import Any

ZWSP = "\u200b"

_ACTIVE = re.compile("[\\\\\\[\\]$&<\u200b]")
_REPLACEMENT = {"\\": "\\\\", "[": "\\[", "]": "\\]", "$": "\\$", "&": "&amp;", "<": "&lt;", ZWSP: "&#8203;"}
# where GFM's literal autolinks start: http(s)://, www., and the @ of an e-mail address
_LINK_START = re.compile(r"(?i)(?:(?<=http)|(?<=https))(?=://)|(?<=www)(?=\.)|(?<=[-.+\w])(?=@)")
_LINE_BREAK = re.compile(r"[ \t]*(?:\r\n|\r|\n)[ \t]*")
_RESTORE = re.compile("\\\\([\\\\\\[\\]$])|&(amp|lt|#8203);|\u200b")
_ENTITY = {"amp": "&", "lt": "<", "#8203": ZWSP}


def neutralize_markdown(text: Any, *, inline: bool = False) -> str:
    """``text`` as Markdown that shows it as text: no image, link, autolink, HTML or math can come out
    of it (see the module's docstring); emphasis, lists and code spans still render.

    ``inline``: line breaks become spaces, for a value set inside one line of our own Markdown (a
    heading, a bullet, a caption) so that it cannot start a block of its own."""
    s = "" if text is None else str(text)
    if inline:
        s = _LINE_BREAK.sub(" ", s).strip()
    s = _ACTIVE.sub(lambda m: _REPLACEMENT[m.group()], s)
    return _LINK_START.sub(ZWSP, s)


def restore_markdown(text: str) -> str:
    """The text :func:`neutralize_markdown` (``inline=False``) was given, from what it returned."""

    def back(m: re.Match) -> str:
        if m.group(1) is not None:
            return m.group(1)
        if m.group(2) is not None:
            return _ENTITY[m.group(2)]
        return ""

    return _RESTORE.sub(back, text or "")


def md_code(text: Any) -> str:
    """``text`` as one inline code span, whatever it holds: the fence is longer than any run of
    backticks inside, and line breaks become spaces.  Nothing in a code span is interpreted, so an
    id or a model name shows exactly (``""`` for an empty value)."""
    s = " ".join(("" if text is None else str(text)).splitlines()).strip()
    if not s:
        return ""
    longest = max((len(r) for r in re.findall("`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def plotly_text(value: Any) -> str:
    """A name for a plotly legend, axis tick or hover label: HTML-escaped, because plotly renders a
    subset of HTML there (``<a href>`` becomes a live link, ``<img>``-like tags and ``<br>`` work)."""
    return html.escape("" if value is None else str(value), quote=False)


# ------------------------------------------------------------------ debates

# Fields that are one line by nature (a renderer sets them inside a heading, a bullet, a table cell or a
# quote line): their line breaks become spaces as well, so a hostile value cannot break the structure.
INLINE_FIELDS = frozenset(
    {
        "topic",
        "name",
        "speaker",
        "speaker_name",
        "stance",
        "stances",
        "model",
        "models",
        "judge",
        "label",
        "labels",
        "winner_name",
        "role",
        "engine",
        "pack_name",
        "pack_version",
        "stop_reason",
        "title",
        "heading",
    }
)


def neutral_debate(debate):
    """A copy of ``debate`` whose every text (topic, speeches, names, stances, observation, verdict,
    judgments, findings, envelopes, warnings, stop reason …) is :func:`neutralize_markdown`'d, for
    rendering Markdown a viewer will show; in the fields of :data:`INLINE_FIELDS` line breaks become spaces.
    Numbers, dates and flags are kept, and a value without Markdown-active characters is unchanged, so
    ids, statuses, labels and rule ids still match.  The debate itself is left as it is."""
    return _neutral(debate, False)


def _neutral(value: Any, inline: bool) -> Any:
    from pydantic import BaseModel

    if isinstance(value, str):  # a one-line field keeps its ends: labels must still match the speakers
        return neutralize_markdown(_LINE_BREAK.sub(" ", value) if inline else value)
    if isinstance(value, BaseModel):
        return value.model_copy(
            update={name: _neutral(getattr(value, name), name in INLINE_FIELDS) for name in type(value).model_fields}
        )
    if isinstance(value, dict):
        return {(_neutral(k, True) if isinstance(k, str) else k): _neutral(v, inline) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_neutral(v, inline) for v in value)
    return value


__all__ = [
    "INLINE_FIELDS",
    "ZWSP",
    "md_code",
    "neutral_debate",
    "neutralize_markdown",
    "plotly_text",
    "restore_markdown",
]
