"""A debate's text as HTML for the export (:mod:`debate_core.render.html`): escaped, never read as markup.

Every piece of text is HTML-escaped (``esc``); only ``**bold**``, bullet lines and paragraphs are
given form.  ``paragraphs`` turns a speech into paragraphs (a long Chinese one cut at sentence
ends, before an enumeration marker where there is one), a paragraph's leading claim tag
``[P1.2]`` into a label that references point to, and each citation bracket 【…】 into a reference
to a numbered note (``Notes``: the source's title and its verification mark).  ``rich`` is the
prose of the record outside the speeches (a verdict's reasons, a judge's notes).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape
from typing import Any

from debate_core.i18n import N_, translator, trp
from debate_core.models import Speech
from debate_core.render.master import citation_marks, speech_clean

__all__ = [
    "LONG_PARAGRAPH",
    "MARKS",
    "MARKS_PLAIN",
    "Notes",
    "Tr",
    "anchor_id",
    "clip",
    "esc",
    "inline",
    "paragraphs",
    "rich",
]

# a citation's verification mark in a note (✓ only when the whole speech passed its checks)
MARKS = {
    "verified": N_("✓ quote verified"),
    "id_only": N_("source id only"),
    "unverified": N_("✗ quote not found"),
    "unchecked": N_("no text to check the quote against"),
}
MARKS_PLAIN = {**MARKS, "verified": N_("quote verified")}

Tr = Callable[..., str]  # a translator: _("Motion"), _("Round {n}", n=2)


def _in(_: Tr, table: dict[str, str], key: str) -> str:
    """``table[key]`` translated; a key the table lacks shows as it is."""
    return _(table[key]) if key in table else key


_BRACKET = re.compile(r"【([^【】\n]{1,200})】")
_TITLE = re.compile(r"《([^》]{1,80})》")
_CLAIM_TAG = re.compile(r"^\s*\[([A-Za-z]{1,3}\d+(?:\.\d+)+)\]\s*")
_CLAIM_REF = re.compile(r"\[([A-Za-z]{1,3}\d+(?:\.\d+)+)\]")
_BOLD = re.compile(r"\*\*(?=\S)([^*\n]{1,400}?)(?<=\S)\*\*")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+")
_SENTENCE_END = re.compile(r"(?<=[。！？])[」』”’）)]*")
_MARKERS = re.compile(r"^(?:其[一二三四五六]|第[一二三四五六]点|首先|其次|再次|最后|反过来说|关于|总之|所以)")
LONG_PARAGRAPH = 260  # a CJK paragraph longer than this is cut into readable parts at sentence ends


def esc(text: Any) -> str:
    return escape(str(text if text is not None else ""), quote=True)


def clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[:n] + "…"


def anchor_id(value: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "-", value)


# ------------------------------------------------------------------ text


def _cjk_parts(par: str) -> list[str]:
    """A long Chinese paragraph cut at sentence ends: before an enumeration marker (其一, 第二点, 最后…)
    once the part has some length, or once it is long."""
    if len(par) <= LONG_PARAGRAPH or "\n" in par or not re.search(r"[\u4e00-\u9fff]", par):
        return [par]
    sentences, pos = [], 0
    for m in _SENTENCE_END.finditer(par):
        if m.end() > pos:
            sentences.append(par[pos : m.end()])
            pos = m.end()
    if pos < len(par):
        sentences.append(par[pos:])
    parts, cur = [], ""
    for s in sentences:
        if cur and ((_MARKERS.match(s.strip()) and len(cur) >= 60) or len(cur) >= 220):
            parts.append(cur)
            cur = ""
        cur += s
    if cur:
        parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


class Notes:
    """A speech's citations as numbered notes: each 【…】 bracket of the text becomes a reference to
    one note (the same source with the same mark keeps its number), marks left over are listed too."""

    def __init__(self, speech: Speech, prefix: str, lang: str):
        self.prefix, self.lang, self._ = prefix, lang, translator(lang)
        self.clean = speech_clean(speech.findings)
        self.marks = citation_marks(speech.findings)
        self.used = [False] * len(self.marks)
        self.ids = list(dict.fromkeys(speech.citations))
        self.notes: list[tuple[str, str, str, str]] = []  # (id, title, status, quote)

    def _number(self, note: tuple[str, str, str, str]) -> int:
        if note not in self.notes:
            self.notes.append(note)
        return self.notes.index(note) + 1

    def ref(self, inner: str) -> str | None:
        """The note reference for a bracket's inside, or None when the bracket cites nothing."""
        title_m = _TITLE.search(inner)
        title = title_m.group(1) if title_m else ""
        hit = next((i for i, m in enumerate(self.marks) if not self.used[i] and m.id and m.id in inner), None)
        if hit is None:
            hit = next((i for i, m in enumerate(self.marks) if m.id and m.id in inner), None)
        if hit is not None:
            self.used[hit] = True
            m = self.marks[hit]
            note: tuple[str, str, str, str] = (m.id, m.title or title, m.status, m.quote)
        else:
            cid = next((c for c in self.ids if c and c in inner), "")
            if not cid and not title:
                return None
            note = (cid, title, "", "")
        n = self._number(note)
        return f'<sup class="nref"><a href="#{self.prefix}-{n}">{n}</a></sup>'

    def html(self) -> str:
        for i, m in enumerate(self.marks):
            if not self.used[i]:
                self._number((m.id, m.title, m.status, m.quote))
        if not self.notes:
            return ""
        _, items = self._, []
        for n, (cid, title, status, quote) in enumerate(self.notes, 1):
            parts = []
            if title:  # 《title》 in Chinese
                parts.append(
                    '<span class="title">'
                    + esc(trp(self.lang, "book title", "{title}", title=title.strip("《》")))
                    + "</span>"
                )
            if cid:
                parts.append(esc(cid))
            if status:
                shown = _in(_, MARKS if self.clean else MARKS_PLAIN, status)
                parts.append(f'<span class="mark-{esc(status)}">{esc(shown)}</span>')
            if quote:
                parts.append(esc(_("“{quote}”", quote=quote)))
            items.append(f'<li id="{self.prefix}-{n}">{" · ".join(parts)}</li>')
        return '<ol class="notes" aria-label="' + esc(_("Notes")) + '">' + "".join(items) + "</ol>"


def rich(text: Any) -> str:
    """Prose of the record outside the speeches (a verdict's reasons, a judge's notes): escaped, **bold** kept."""
    return inline(str(text if text is not None else ""), None, set())


def inline(raw: str, notes: Notes | None, claims: set[str]) -> str:
    """One run of text as HTML: escaped, with citation brackets as note references, known claim
    ids as links, and **bold**."""
    out, pos = [], 0
    pattern = re.compile(_BRACKET.pattern + "|" + _CLAIM_REF.pattern)
    for m in pattern.finditer(raw):
        replaced = None
        if m.group(1) is not None and notes is not None:
            replaced = notes.ref(m.group(1))
        elif m.group(2) is not None and m.group(2) in claims:
            replaced = f'<a class="ref" href="#claim-{anchor_id(m.group(2))}">{esc(m.group(2))}</a>'
        if replaced is None:
            continue
        out.append(_BOLD.sub(r"<strong>\1</strong>", esc(raw[pos : m.start()])))
        out.append(replaced)
        pos = m.end()
    out.append(_BOLD.sub(r"<strong>\1</strong>", esc(raw[pos:])))
    return "".join(out)


def paragraphs(
    text: str, notes: Notes | None = None, claims: set[str] | None = None, tagged: set[str] | None = None
) -> str:
    """Text as paragraphs (blank lines apart; a long Chinese one cut at sentence ends), bullet lines
    as a list, a paragraph's leading claim tag ``[P1.2]`` as a label that references point to."""
    claims, tagged = claims or set(), tagged if tagged is not None else set()
    out = []
    for block in re.split(r"\n\s*\n", (text or "").strip()):
        lines = [ln for ln in block.split("\n") if ln.strip()]
        if not lines:
            continue
        if len(lines) > 1 and all(_BULLET.match(ln) for ln in lines):
            out.append(
                "<ul>" + "".join(f"<li>{inline(_BULLET.sub('', ln), notes, claims)}</li>" for ln in lines) + "</ul>"
            )
            continue
        for par in _cjk_parts("\n".join(lines)):
            tag = ""
            m = _CLAIM_TAG.match(par)
            if m:
                cid = m.group(1)
                anchor = f' id="claim-{anchor_id(cid)}"' if cid not in tagged else ""
                tagged.add(cid)
                tag, par = f'<span class="claim"{anchor}>{esc(cid)}</span>', par[m.end() :]
            body = "<br>".join(inline(ln, notes, claims) for ln in par.split("\n"))
            out.append(f"<p>{tag}{body}</p>")
    return "\n".join(out)
