"""Text helpers of the offline engine: CJK bigrams, clause-safe clipping, bracket balance, sentences."""

from __future__ import annotations

import hashlib
import re

from debate_core.content.text import balanced as _balanced
from debate_core.content.text import cjk_len, cjk_only, split_sentences

CITE = re.compile(r"【[^】]*】")
_PAIRS = {"【": "】", "《": "》", "「": "」", "『": "』", "“": "”", "（": "）", "(": ")"}

__all__ = ["CITE", "alike", "balanced", "bare", "bigrams", "cjk_len", "clip", "sentences_of", "stable_hash"]


def alike(p: str, q: str) -> bool:
    """Two points too close to set side by side: the same opening or a third of their pairs shared."""
    bp, bq = bigrams(p), bigrams(q)
    return p[:3] == q[:3] or bool(bp and bq) and len(bp & bq) * 3 >= min(len(bp), len(bq))


def stable_hash(*parts: object) -> int:
    return int(hashlib.sha1("|".join(map(str, parts)).encode("utf-8")).hexdigest()[:8], 16)


def bigrams(text: str) -> set[str]:
    t = cjk_only(text)
    return {t[i:i + 2] for i in range(len(t) - 1)}


def bare(text: str) -> str:
    """A unit without its final stop."""
    return text.strip().rstrip("。！？；，、 ")


def clip(text: str, limit: int) -> str:
    """Cut at the last clause boundary that fits (never mid-bracket), else hard."""
    text = bare(text)
    if len(text) <= limit:
        return text
    cut = text[:limit]
    for sep in ("；", "，", "、", "——"):
        i = cut.rfind(sep)
        if i >= limit // 2:
            out = cut[:i]
            if balanced(out):
                return out
    out = cut
    while out and not balanced(out):
        out = out[:-1]
    return out


def balanced(text: str) -> bool:
    """Every bracket and quote the engine writes is closed, in order."""
    return _balanced(text, _PAIRS)


def sentences_of(text: str) -> list[str]:
    """Sentences (split at 。！？ outside brackets), citations removed: what the bench compares."""
    return [s for s in (CITE.sub("", x).strip() for x in split_sentences(text, "。！？", _PAIRS)) if s]
