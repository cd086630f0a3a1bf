"""Judge verdicts: parse what a judge wrote, in Markdown or JSON, into a :class:`Verdict`.

The topic-debate judge may answer in the sample's Markdown form::

    ## 一、判赢结论
    **辩手乙（…）胜出**——…
    ## 二、判词
    **论点强度：…** …   **攻防表现：…** …   **硬伤对比**：…
    ## 三、逐方点评表
    | 辩手 | 立场 | 最强论点 | 致命弱点 | 评分 |
    | 辩手甲 | … | … | … | **6.5** |
    ## 四、给真实读者的话
    …

or in JSON; an English debate's judge may write the same in English (``## Winner`` /
``**Winner:** Debater B`` / ``Debater B wins``, ``## Reasons``, a table headed ``Debater |
Stance | … | Score``; a trial's ``Winner: Pro``).  Labels are read in either language and
given back in the form of the debate's labels (``labels``), else as written.
:func:`parse_verdict_markdown` never raises: text with no
recognisable winner comes back as ``Verdict(parsed=False, winner=None, raw=text)``,
never as a silent draw.  The archive's importer uses it on the sample's verdict.md.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Optional

from debate_core.engines.envelopes import extract_json
from debate_core.models import RoundComment, Verdict, VerdictRow

LABEL_CHARS = "甲乙丙丁戊己"
LABEL_LETTERS = "ABCDEF"  # Debater A… in an English debate: the same seats as 辩手甲…
REASON_KEYS = ("论点强度", "攻防表现", "逻辑硬伤")
REASON_KEYS_EN = ("Argument strength", "Attack and defence", "Logical flaws")
UNKEYED = {"zh": "判词", "en": "Reasons"}  # where reasons with no key of their own go
TRIAL_WINNERS = {"pro": "pro", "con": "con", "draw": "draw", "正方": "pro", "反方": "con", "平局": "draw",
                 "tie": "draw", "平": "draw", "affirmative": "pro", "negative": "con"}

_HEADING = re.compile(r"^(#{1,4})\s+(.*?)\s*#*\s*$")
_ZH_LABEL = rf"辩手\s*([{LABEL_CHARS}])"
_EN_LABEL = rf"\bDebater\s+([{LABEL_LETTERS}])\b"
_LABEL = re.compile(rf"{_ZH_LABEL}|{_EN_LABEL}")
_WIN_AFTER = re.compile(
    rf"{_ZH_LABEL}[^。\n；;]{{0,80}}?(?:胜出|获胜|胜|赢|最有力)"
    rf"|{_EN_LABEL}[^.\n;]{{0,80}}?\b(?:wins|won|prevails|is the winner|carries the debate)\b")
_WIN_FIELD = re.compile(
    rf"(?:胜方|赢家|获胜方|\bwinner\b)\s*[:：]?\s*\**\s*(?:(?:辩手)?\s*([{LABEL_CHARS}])|(?:Debater\s+)([{LABEL_LETTERS}])\b)",
    re.I)
_WIN_WORDS = re.compile(r"胜|赢|最有力|更有说服力|\b(?:wins|won|winner|prevails|more convincing)\b", re.I)
_NUMBER = re.compile(r"(-?\d+(?:\.\d+)?)")


def _plain(text: str) -> str:
    """Strip Markdown emphasis and surrounding whitespace."""
    text = re.sub(r"\*\*|__|`", "", text)
    return text.strip()


def _sections(text: str) -> list[tuple[str, str]]:
    """[(heading, body)] for ## / ### headings; text before the first one has heading ''."""
    out: list[tuple[str, list[str]]] = [("", [])]
    for line in text.splitlines():
        m = _HEADING.match(line)
        if m and len(m.group(1)) >= 2:
            out.append((_plain(m.group(2)), []))
        else:
            out[-1][1].append(line)
    return [(h, "\n".join(b).strip()) for h, b in out]


def _find(sections: list[tuple[str, str]], *keys: str) -> Optional[str]:
    for heading, body in sections:
        low = heading.lower()
        if any(k.lower() in low for k in keys):
            return body
    return None


def _seat(m: "re.Match[str]") -> int:
    """The seat (0 for 甲 / A, 1 for 乙 / B, …) of a label match."""
    zh, en = m.group(1), m.group(2)
    return LABEL_CHARS.index(zh) if zh else LABEL_LETTERS.index(en.upper())


def _label(seat: int, lang: str = "zh") -> str:
    return f"Debater {LABEL_LETTERS[seat]}" if lang == "en" else f"辩手{LABEL_CHARS[seat]}"


def _label_of(m: "re.Match[str]", lang: Optional[str]) -> str:
    """The matched label, in ``lang``'s form (None: as written)."""
    if lang is None:
        lang = "zh" if m.group(1) else "en"
    return _label(_seat(m), lang)


def labels_lang(labels: Optional[Iterable[str]]) -> Optional[str]:
    """``en`` when the debate's labels are English (Debater A…), ``zh`` when Chinese, None when unknown."""
    labels = list(labels or [])
    if not labels:
        return None
    return "en" if all(str(lab).startswith("Debater") for lab in labels) else "zh"


def find_winner(text: str, lang: Optional[str] = None) -> Optional[str]:
    """The label a conclusion declares the winner (辩手乙 / Debater B), or None.

    ``lang`` gives the label in that language's form (a judge of an English debate who
    writes 辩手乙 still names Debater B); None keeps the form written."""
    for pat in (_WIN_FIELD, _WIN_AFTER):
        m = pat.search(text)
        if m:
            return _label_of(m, lang)
    seats = {(_seat(m), _label_of(m, lang)) for m in _LABEL.finditer(text)}
    if len({s for s, _ in seats}) == 1 and _WIN_WORDS.search(text):
        return sorted(seats)[0][1]
    return None


_REASON_START = re.compile(r"^\s*(?:[-*]\s+)?(?:\*\*)?\s*(论点强度|攻防表现|逻辑硬伤|硬伤对比|硬伤|攻防"
                           r"|argument strength|attack and defence|attack and defense|logical flaws|flaws"
                           r"|strength of arguments|clash)\s*(?:\*\*)?\s*[:：]?", re.I)


def _reason_key(word: str, lang: str = "zh") -> str:
    keys = REASON_KEYS_EN if lang == "en" else REASON_KEYS
    low = word.lower()
    if "论点" in word or "strength" in low:
        return keys[0]
    if "攻防" in word or "attack" in low or "clash" in low:
        return keys[1]
    return keys[2]


def parse_reasons(body: str, lang: str = "zh") -> dict[str, str]:
    """Split a 判词 / Reasons section into 论点强度 / 攻防表现 / 逻辑硬伤 (Argument strength /
    Attack and defence / Logical flaws in English); anything unkeyed goes to 判词 / Reasons."""
    reasons: dict[str, list[str]] = {}
    current = UNKEYED["en" if lang == "en" else "zh"]
    for line in body.splitlines():
        m = _REASON_START.match(line)
        if m:
            current = _reason_key(m.group(1), lang)
            line = line[m.end():]
            line = re.sub(r"^\s*\*\*\s*", "", line)
        if current in reasons or line.strip():
            reasons.setdefault(current, []).append(line)
    out = {k: _plain("\n".join(v)).strip() for k, v in reasons.items()}
    return {k: v for k, v in out.items() if v}


def _cells(line: str) -> list[str]:
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|"):
        line = line[:-1]
    return [c.strip() for c in line.split("|")]


def parse_score(cell: str) -> Optional[float]:
    m = _NUMBER.search(_plain(cell))
    if not m:
        return None
    value = float(m.group(1))
    return value if 0 <= value <= 10 else None


def parse_table(body: str, lang: Optional[str] = None) -> list[VerdictRow]:
    """Rows of the first Markdown table whose header names the debaters."""
    lines = [ln for ln in body.splitlines() if ln.strip().startswith("|")]
    rows: list[VerdictRow] = []
    header: Optional[list[str]] = None
    for ln in lines:
        cells = _cells(ln)
        if header is None:
            if any("辩手" in c or c.lower() in ("label", "debater", "side") for c in cells):
                header = [_plain(c) for c in cells]
            continue
        if all(re.fullmatch(r":?-{2,}:?", c.replace(" ", "")) for c in cells if c):
            continue
        col = {}
        for i, h in enumerate(header):
            if "辩手" in h or h.lower() in ("label", "debater", "side"):
                col.setdefault("label", i)
            elif "立场" in h or "stance" in h.lower():
                col.setdefault("stance", i)
            elif "最强" in h or "strongest" in h.lower():
                col.setdefault("strongest", i)
            elif "弱点" in h or "致命" in h or "weak" in h.lower():
                col.setdefault("weakness", i)
            elif "评分" in h or "分" in h or "score" in h.lower():
                col.setdefault("score", i)

        def get(key: str) -> str:
            i = col.get(key)
            return _plain(cells[i]) if i is not None and i < len(cells) else ""

        label = get("label")
        m = _LABEL.search(label)
        if m:
            label = _label_of(m, lang)
        if not label:
            continue
        rows.append(VerdictRow(label=label, stance=get("stance"), strongest=get("strongest"),
                               weakness=get("weakness"),
                               score=parse_score(cells[col["score"]]) if "score" in col and col["score"] < len(cells)
                               else None))
    return rows


def _first_sentence(text: str) -> str:
    text = _plain(text).strip()
    return text.split("\n\n")[0].strip()


def parse_verdict_markdown(text: str, labels: Optional[Iterable[str]] = None, *,
                           lang: Optional[str] = None) -> Verdict:
    """Parse a judge's Markdown verdict (the sample's layout, in Chinese or English); never raises.

    ``labels`` (e.g. 辩手甲, 辩手乙 or Debater A, Debater B) restricts the winner; a winner
    outside them, or none found, gives ``parsed=False`` with the raw text kept.  ``lang``
    (default: the labels', else Chinese) names the unkeyed reasons and the labels' form.
    """
    labels = list(labels) if labels else None
    lang = lang or labels_lang(labels)
    text = (text or "").replace("\r\n", "\n")
    sections = _sections(text)
    conclusion = _find(sections, "判赢", "结论", "胜负", "裁决结果", "winner", "verdict", "conclusion", "decision",
                       "result")
    reasons_body = _find(sections, "判词", "理由", "reason", "judgement", "judgment")
    table_body = _find(sections, "点评", "评分", "逐方", "score", "table", "by debater", "assessment")
    note = _find(sections, "读者", "建议", "权衡", "reader", "note", "takeaway")
    winner = find_winner(conclusion, lang) if conclusion else None
    if winner is None:
        # no conclusion heading: look for "**辩手乙…胜出**" / "**Winner:** Debater B" anywhere before the table
        head = text.split("|", 1)[0]
        winner = find_winner(head, lang) if _WIN_AFTER.search(head) or _WIN_FIELD.search(head) else None
    rows = parse_table(table_body if table_body is not None else text, lang)
    reasons = parse_reasons(reasons_body, lang or "zh") if reasons_body else {}
    allowed = set(labels) if labels else None
    ok = winner is not None and (allowed is None or winner in allowed)
    return Verdict(
        winner=winner if ok else None,
        summary=_first_sentence(conclusion) if conclusion else "",
        reasons=reasons, rows=rows, note=_plain(note or ""), parsed=ok, raw=text,
    )


# --------------------------------------------------------------------------- JSON


def _winner_from(value: Any, labels: Optional[set[str]], trial: bool, lang: Optional[str] = None) -> Optional[str]:
    if value is None:
        return None
    v = _plain(str(value)).strip()
    if trial:
        low = v.lower()
        low = re.sub(r"^the\s+", "", low)
        for key, norm in TRIAL_WINNERS.items():
            if low == key or low.startswith(key):
                return norm
        return None
    m = _LABEL.search(v)
    if m:
        return _label_of(m, lang)
    if len(v) == 1 and v in LABEL_CHARS:
        return _label(LABEL_CHARS.index(v), lang or "zh")
    if len(v) == 1 and v.upper() in LABEL_LETTERS and lang == "en":
        return _label(LABEL_LETTERS.index(v.upper()), "en")
    if labels and v in labels:
        return v
    return None


def _reasons_from(value: Any, lang: str = "zh") -> dict[str, str]:
    unkeyed = UNKEYED["en" if lang == "en" else "zh"]
    if isinstance(value, dict):
        return {str(k): _plain(str(v)) for k, v in value.items() if str(v).strip()}
    if isinstance(value, list):
        text = "\n".join(f"- {_plain(str(v))}" for v in value if str(v).strip())
        return {unkeyed: text} if text else {}
    if isinstance(value, str) and value.strip():
        return {unkeyed: value.strip()}
    return {}


def _rows_from(value: Any, lang: Optional[str] = None) -> list[VerdictRow]:
    rows = []
    if isinstance(value, dict):  # {"辩手甲": {...}}
        value = [{"label": k, **(v if isinstance(v, dict) else {"score": v})} for k, v in value.items()]
    for item in value or []:
        if not isinstance(item, dict):
            continue
        label = str(item.get("label") or item.get("debater") or item.get("辩手") or "").strip()
        m = _LABEL.search(label)
        if m:
            label = _label_of(m, lang)
        score = item.get("score", item.get("评分"))
        try:
            score = float(score) if score is not None and str(score).strip() != "" else None
        except (TypeError, ValueError):
            score = parse_score(str(score))
        if score is not None and not 0 <= score <= 10:
            score = None
        rows.append(VerdictRow(label=label, stance=_plain(str(item.get("stance") or item.get("立场") or "")),
                               strongest=_plain(str(item.get("strongest") or item.get("最强论点") or "")),
                               weakness=_plain(str(item.get("weakness") or item.get("致命弱点") or "")),
                               score=score))
    return [r for r in rows if r.label]


def _per_round_from(value: Any) -> list[RoundComment]:
    out = []
    if isinstance(value, dict):
        value = [{"round": k, "comment": v} for k, v in value.items()]
    for i, item in enumerate(value or [], 1):
        if isinstance(item, str):
            out.append(RoundComment(round=i, comment=item.strip()))
            continue
        if not isinstance(item, dict):
            continue
        m = _NUMBER.search(str(item.get("round", i)))
        comment = item.get("comment") or item.get("commentary") or item.get("点评") or ""
        if isinstance(comment, (dict, list)):
            comment = json.dumps(comment, ensure_ascii=False)
        out.append(RoundComment(round=int(float(m.group(1))) if m else i, comment=str(comment).strip()))
    return out


def parse_verdict_json(text: str, labels: Optional[Iterable[str]] = None, *, trial: bool = False,
                       lang: Optional[str] = None) -> Optional[Verdict]:
    """A verdict from a JSON object in the text, or None when there is no usable one.

    ``lang`` (default: the labels', else Chinese) names the unkeyed reasons and the labels' form."""
    labels = list(labels) if labels else None
    lang = lang or labels_lang(labels)
    candidate = extract_json(text or "")
    if candidate is None:
        return None
    try:
        data = json.loads(candidate)
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    allowed = set(labels) if labels else None
    winner = _winner_from(data.get("winner", data.get("胜方")), allowed, trial, lang)
    if winner is None or (not trial and allowed is not None and winner not in allowed):
        return None
    return Verdict(
        winner=winner, summary=_plain(str(data.get("summary") or data.get("conclusion") or "")),
        reasons=_reasons_from(data.get("reasons", data.get("判词")), lang or "zh"),
        rows=_rows_from(data.get("rows") or data.get("table") or data.get("scores"), lang),
        per_round=_per_round_from(data.get("per_round") or data.get("rounds")),
        note=_plain(str(data.get("note") or data.get("to_reader") or "")), parsed=True, raw=text,
    )


# ------------------------------------------------------------------------ trial md

_ROUND_HEAD = re.compile(r"(?:第\s*(\d+)\s*轮|round\s*(\d+))", re.I)


def parse_trial_markdown(text: str, lang: str = "zh") -> Verdict:
    """A trial verdict written as Markdown (Chinese or English): per-round sections plus a winner
    line (``胜方：反方`` / ``**Winner:** Pro``); never raises."""
    text = (text or "").replace("\r\n", "\n")
    per_round, reasons, winner = [], {}, None
    for heading, body in _sections(text):
        m = _ROUND_HEAD.search(heading)
        if m:
            per_round.append(RoundComment(round=int(m.group(1) or m.group(2)), comment=_plain(body)))
        elif any(k in heading for k in ("理由", "reason", "Reason")):
            reasons = {UNKEYED["en" if lang == "en" else "zh"]: _plain(body)}
    m = re.search(r"(?:胜方|获胜方|\bwinner\b|裁决|判定|\bverdict\b)\s*[:：]?\s*\**\s*(?:the\s+)?"
                  r"(pro|con|draw|tie|affirmative|negative|正方|反方|平局)\b", text, re.I)
    if m:
        winner = TRIAL_WINNERS[m.group(1).lower()]
    return Verdict(winner=winner, per_round=per_round, reasons=reasons, parsed=winner is not None, raw=text)


def parse_verdict(text: str, labels: Optional[Iterable[str]] = None, *, trial: bool = False,
                  lang: Optional[str] = None) -> Verdict:
    """JSON first, then Markdown.  ``parsed=False`` (winner None) when neither yields a winner.

    ``lang`` is the debate's language (default: the labels', else Chinese)."""
    labels = list(labels) if labels else None
    v = parse_verdict_json(text, labels, trial=trial, lang=lang)
    if v is not None:
        return v
    if trial:
        return parse_trial_markdown(text, lang or "zh")
    return parse_verdict_markdown(text, labels, lang=lang)


def unparsed(text: str, judge: str = "") -> Verdict:
    return Verdict(winner=None, parsed=False, raw=text or "", judge=judge)


UNPARSED_WARNING = "the judge's verdict could not be parsed twice: stored as raw text, no winner"


def ask_judge(gateway, messages: list[dict], parse, repair, *, on_token=None) -> tuple[Verdict, str, bool]:
    """One judge call, asked once more with a repair message when its answer does not parse.

    Returns ``(verdict, raw text, parsed)``; an answer that never parses becomes an
    unparsed verdict with no winner (never a silent draw).  Gateway errors propagate.
    """
    text = ""
    for _attempt in range(2):
        text = gateway.complete(messages, purpose="verdict", on_token=on_token).text
        verdict = parse(text)
        if verdict.parsed:
            verdict.raw = text
            return verdict, text, True
        messages = repair(messages, text)
    return unparsed(text), text, False


__all__ = ["ask_judge", "UNPARSED_WARNING", "parse_verdict", "parse_verdict_json", "parse_verdict_markdown", "parse_trial_markdown",
           "parse_table", "parse_reasons", "find_winner", "unparsed", "REASON_KEYS"]
