"""Hard-rule checks on a master-debate speech.

Each check is a small function ``(speech_text, ctx) -> Finding``.  The protocol
runs all of them on every speech, feeds failures back for a bounded number of
retries, then keeps the speech with its findings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterable

from .models import CrossCritique, Finding, Master

MIN_CHARS, MAX_CHARS = 300, 500
RESTATING_ROLES = {"反驳", "回应"}

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")

# Citation-shaped ids: CBETA (T48n2008, X62n1182, J19nB044), Tibetan Tohoku numbers,
# SuttaCentral uids (mn10, sn56.11, SC:dn22) and namespaced ids (PTS:Vism, BDRC:W22272).
CITATION_PATTERNS = [
    re.compile(r"(?<![A-Za-z0-9])[A-Z]{1,2}\d{2,3}n[A-Z]?\d{3,4}[a-z]?(?![A-Za-z0-9])"),
    re.compile(r"(?<![A-Za-z0-9])Toh[:\s.]?\s?\d{1,5}(?![0-9])"),
    re.compile(r"(?<![A-Za-z0-9])(?:SC:)?(?:dn|mn|sn|an|kp|dhp|ud|iti|snp|thag|thig)\s?\d+(?:\.\d+)*(?![0-9])"),
    re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Za-z]+:[A-Za-z0-9][A-Za-z0-9_\-.]*[A-Za-z0-9]"),
]

VERDICT_PATTERNS = [
    re.compile(p) for p in (
        r"赢了", r"输了", r"获胜", r"胜出", r"更究竟", r"更高明", r"更胜一筹", r"略胜", r"高下已分",
        r"(?:你|您|读者|大家)(?:应该|应当|最好)(?:选|学|修|走)", r"应该选", r"不如改学",
    )
]
_DIALOGUE_VERBS = r"(?:对|向|跟|问)"
_SPEECH_VERBS = r"(?:说|道|讲|问|答)"


def cjk_len(text: str) -> int:
    return len(_CJK.findall(text))


def _norm_id(s: str) -> str:
    return re.sub(r"[\s:._]", "", s).lower()


def find_citations(text: str, known_ids: Iterable[str] = ()) -> list[str]:
    """Every citation-shaped id in the text, in order, unique; plus any known pack id
    (such as ``Lam-rim-chen-mo`` or ``SuttaCentral``) that appears literally."""
    found: list[tuple[int, str]] = []
    for pat in CITATION_PATTERNS:
        for m in pat.finditer(text):
            found.append((m.start(), m.group(0).strip()))
    for kid in known_ids:
        if kid and len(kid) >= 4:
            i = text.find(kid)
            if i >= 0:
                found.append((i, kid))
    out: list[str] = []
    seen: set[str] = set()
    for _, c in sorted(found):
        n = _norm_id(c)
        if any(n != _norm_id(o) and n in _norm_id(o) for _, o in found if len(o) > len(c)):
            continue  # part of a longer id already found (e.g. "Toh:4465" inside a namespaced id)
        if n not in seen:
            seen.add(n)
            out.append(c)
    return out


def _ngrams(text: str, n: int) -> set[str]:
    chars = "".join(_CJK.findall(text))
    return {chars[i : i + n] for i in range(len(chars) - n + 1)}


@dataclass
class CheckContext:
    speaker: Master
    opponent: Master
    role: str
    ammo: list[CrossCritique] = field(default_factory=list)
    opponent_summary: str = ""
    pack_source_ids: set[str] = field(default_factory=set)
    names: list[str] = field(default_factory=list)  # every master name that may appear


def check_length(text: str, ctx: CheckContext) -> Finding:
    n = cjk_len(text)
    ok = MIN_CHARS <= n <= MAX_CHARS
    return Finding(rule="length", passed=ok,
                   message=f"{n} Chinese characters" + ("" if ok else f"; must be {MIN_CHARS}-{MAX_CHARS}"))


def check_citations(text: str, ctx: CheckContext) -> Finding:
    own = {_norm_id(s) for s in ctx.speaker.source_ids}
    cites = find_citations(text, ctx.pack_source_ids | set(ctx.speaker.source_ids))
    if not cites:
        return Finding(rule="citation", passed=False, message="no citation; cite at least one of the speaker's sources")
    unknown = [c for c in cites if _norm_id(c) not in own]
    if unknown:
        return Finding(rule="citation", passed=False,
                       message=f"not in {ctx.speaker.slug}'s sources[].id: {', '.join(unknown)}")
    return Finding(rule="citation", passed=True, message=f"verified: {', '.join(cites)}")


def ammo_used(text: str, ammo: list[CrossCritique]) -> list[str]:
    grams = _ngrams(text, 4)
    return [a.position for a in ammo if _ngrams(a.position, 4) & grams]


def check_ammo(text: str, ctx: CheckContext) -> Finding:
    if not ctx.ammo:
        return Finding(rule="ammo", passed=True, message="no ammo against this opponent in the pack (coverage gap)")
    used = ammo_used(text, ctx.ammo)
    if used:
        return Finding(rule="ammo", passed=True, message=f"uses {len(used)} of {len(ctx.ammo)} ammo entries")
    return Finding(rule="ammo", passed=False, message="uses none of the ammo entries aimed at the opponent")


def check_restatement(text: str, ctx: CheckContext) -> Finding:
    if ctx.role not in RESTATING_ROLES:
        return Finding(rule="restatement", passed=True, message=f"not required for {ctx.role}")
    head = text.strip()[:160]
    first = re.split(r"[。！？\n]", head, maxsplit=1)[0] if head else ""
    markers = ["对方", "复述", "原意", "所言", "所说", "主张", "认为", ctx.opponent.short_name, ctx.opponent.name]
    has_marker = any(m and m in first for m in markers)
    overlap = len(_ngrams(head, 2) & _ngrams(ctx.opponent_summary, 2)) if ctx.opponent_summary else 0
    if has_marker and (overlap >= 2 or not ctx.opponent_summary):
        return Finding(rule="restatement", passed=True, message="restates the opponent before answering")
    return Finding(rule="restatement", passed=False,
                   message="must first restate the opponent's position (name them and echo their summary) before answering")


def check_no_verdict(text: str, ctx: CheckContext) -> Finding:
    hits = sorted({m.group(0) for p in VERDICT_PATTERNS for m in p.finditer(text)})
    if hits:
        return Finding(rule="no_verdict", passed=False, message=f"verdict phrase: {', '.join(hits)}")
    return Finding(rule="no_verdict", passed=True)


def fabricated_dialogue(text: str, names: Iterable[str]) -> list[str]:
    alt = "|".join(sorted({re.escape(n) for n in names if n}, key=len, reverse=True))
    if not alt:
        return []
    pats = [
        rf"(?:{alt})\s*{_DIALOGUE_VERBS}\s*(?:{alt})\s*{_SPEECH_VERBS}",
        rf"(?:{alt})\s*(?:回道|答道|问道|笑道|说道|反问道|回答说|开口说)",
        rf"(?:{alt})\s*问(?!题)(?=\s*[：:，,“\"])",
        rf"(?:{alt})\s*[：:]\s*[“\"]",
    ]
    return sorted({m.group(0) for p in pats for m in re.finditer(p, text)})


def check_no_dialogue(text: str, ctx: CheckContext) -> Finding:
    names = ctx.names or [ctx.speaker.name, ctx.speaker.short_name, ctx.opponent.name, ctx.opponent.short_name]
    hits = fabricated_dialogue(text, names)
    if hits:
        return Finding(rule="no_dialogue", passed=False, message=f"invented dialogue: {', '.join(hits)}")
    return Finding(rule="no_dialogue", passed=True)


CHECKS: list[Callable[[str, CheckContext], Finding]] = [
    check_length, check_citations, check_ammo, check_restatement, check_no_verdict, check_no_dialogue,
]


def run_checks(text: str, ctx: CheckContext) -> list[Finding]:
    return [check(text, ctx) for check in CHECKS]


def is_safe_fragment(text: str, names: Iterable[str]) -> bool:
    """True when a fragment carries no verdict phrase and no invented dialogue."""
    return not any(p.search(text) for p in VERDICT_PATTERNS) and not fabricated_dialogue(text, names)
