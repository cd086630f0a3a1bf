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

or in JSON.  :func:`parse_verdict_markdown` never raises: text with no
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
REASON_KEYS = ("论点强度", "攻防表现", "逻辑硬伤")
TRIAL_WINNERS = {"pro": "pro", "con": "con", "draw": "draw", "正方": "pro", "反方": "con", "平局": "draw",
                 "tie": "draw", "平": "draw", "affirmative": "pro", "negative": "con"}

_HEADING = re.compile(r"^(#{1,4})\s+(.*?)\s*#*\s*$")
_LABEL = re.compile(rf"辩手\s*([{LABEL_CHARS}])")
_WIN_AFTER = re.compile(rf"辩手\s*([{LABEL_CHARS}])[^。\n；;]{{0,80}}?(?:胜出|获胜|胜|赢|最有力)")
_WIN_FIELD = re.compile(rf"(?:胜方|赢家|获胜方|winner)\s*[:：]?\s*\**\s*(?:辩手)?\s*([{LABEL_CHARS}])", re.I)
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
        if any(k in heading for k in keys):
            return body
    return None


def _label(ch: str) -> str:
    return f"辩手{ch}"


def find_winner(text: str) -> Optional[str]:
    """The label a conclusion declares the winner (辩手乙), or None."""
    for pat in (_WIN_FIELD, _WIN_AFTER):
        m = pat.search(text)
        if m:
            return _label(m.group(1))
    labels = {m.group(1) for m in _LABEL.finditer(text)}
    if len(labels) == 1 and re.search(r"胜|赢|最有力|更有说服力", text):
        return _label(labels.pop())
    return None


_REASON_START = re.compile(r"^\s*(?:[-*]\s+)?(?:\*\*)?\s*(论点强度|攻防表现|逻辑硬伤|硬伤对比|硬伤|攻防)\s*(?:\*\*)?\s*[:：]?")


def _reason_key(word: str) -> str:
    if "论点" in word:
        return "论点强度"
    if "攻防" in word:
        return "攻防表现"
    return "逻辑硬伤"


def parse_reasons(body: str) -> dict[str, str]:
    """Split a 判词 section into 论点强度 / 攻防表现 / 逻辑硬伤 (anything unkeyed goes to 判词)."""
    reasons: dict[str, list[str]] = {}
    current = "判词"
    for line in body.splitlines():
        m = _REASON_START.match(line)
        if m:
            current = _reason_key(m.group(1))
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


def parse_table(body: str) -> list[VerdictRow]:
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
            label = _label(m.group(1))
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


def parse_verdict_markdown(text: str, labels: Optional[Iterable[str]] = None) -> Verdict:
    """Parse a judge's Markdown verdict (the sample's layout); never raises.

    ``labels`` (e.g. 辩手甲, 辩手乙) restricts the winner; a winner outside them, or
    none found, gives ``parsed=False`` with the raw text kept.
    """
    text = (text or "").replace("\r\n", "\n")
    sections = _sections(text)
    conclusion = _find(sections, "判赢", "结论", "胜负", "裁决结果")
    reasons_body = _find(sections, "判词", "理由")
    table_body = _find(sections, "点评", "评分", "逐方")
    note = _find(sections, "读者", "建议", "权衡")
    winner = find_winner(conclusion) if conclusion else None
    if winner is None:
        # no conclusion heading: look for "**辩手乙…胜出**" anywhere before the table
        head = text.split("|", 1)[0]
        winner = find_winner(head) if _WIN_AFTER.search(head) or _WIN_FIELD.search(head) else None
    rows = parse_table(table_body if table_body is not None else text)
    reasons = parse_reasons(reasons_body) if reasons_body else {}
    allowed = set(labels) if labels else None
    ok = winner is not None and (allowed is None or winner in allowed)
    return Verdict(
        winner=winner if ok else None,
        summary=_first_sentence(conclusion) if conclusion else "",
        reasons=reasons, rows=rows, note=_plain(note or ""), parsed=ok, raw=text,
    )


# --------------------------------------------------------------------------- JSON


def _winner_from(value: Any, labels: Optional[set[str]], trial: bool) -> Optional[str]:
    if value is None:
        return None
    v = _plain(str(value)).strip()
    if trial:
        low = v.lower()
        for key, norm in TRIAL_WINNERS.items():
            if low == key or low.startswith(key):
                return norm
        return None
    m = _LABEL.search(v)
    if m:
        return _label(m.group(1))
    if len(v) == 1 and v in LABEL_CHARS:
        return _label(v)
    if labels and v in labels:
        return v
    return None


def _reasons_from(value: Any) -> dict[str, str]:
    if isinstance(value, dict):
        return {str(k): _plain(str(v)) for k, v in value.items() if str(v).strip()}
    if isinstance(value, list):
        text = "\n".join(f"- {_plain(str(v))}" for v in value if str(v).strip())
        return {"判词": text} if text else {}
    if isinstance(value, str) and value.strip():
        return {"判词": value.strip()}
    return {}


def _rows_from(value: Any) -> list[VerdictRow]:
    rows = []
    if isinstance(value, dict):  # {"辩手甲": {...}}
        value = [{"label": k, **(v if isinstance(v, dict) else {"score": v})} for k, v in value.items()]
    for item in value or []:
        if not isinstance(item, dict):
            continue
        label = str(item.get("label") or item.get("debater") or item.get("辩手") or "").strip()
        m = _LABEL.search(label)
        if m:
            label = _label(m.group(1))
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


def parse_verdict_json(text: str, labels: Optional[Iterable[str]] = None, *, trial: bool = False) -> Optional[Verdict]:
    """A verdict from a JSON object in the text, or None when there is no usable one."""
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
    winner = _winner_from(data.get("winner", data.get("胜方")), allowed, trial)
    if winner is None or (not trial and allowed is not None and winner not in allowed):
        return None
    return Verdict(
        winner=winner, summary=_plain(str(data.get("summary") or data.get("conclusion") or "")),
        reasons=_reasons_from(data.get("reasons", data.get("判词"))),
        rows=_rows_from(data.get("rows") or data.get("table") or data.get("scores")),
        per_round=_per_round_from(data.get("per_round") or data.get("rounds")),
        note=_plain(str(data.get("note") or data.get("to_reader") or "")), parsed=True, raw=text,
    )


# ------------------------------------------------------------------------ trial md

_ROUND_HEAD = re.compile(r"(?:第\s*(\d+)\s*轮|round\s*(\d+))", re.I)


def parse_trial_markdown(text: str) -> Verdict:
    """A trial verdict written as Markdown: per-round sections plus a winner line; never raises."""
    text = (text or "").replace("\r\n", "\n")
    per_round, reasons, winner = [], {}, None
    for heading, body in _sections(text):
        m = _ROUND_HEAD.search(heading)
        if m:
            per_round.append(RoundComment(round=int(m.group(1) or m.group(2)), comment=_plain(body)))
        elif any(k in heading for k in ("理由", "reason", "Reason")):
            reasons = {"判词": _plain(body)}
    m = re.search(r"(?:胜方|获胜方|winner|裁决|判定)\s*[:：]?\s*\**\s*(pro|con|draw|正方|反方|平局)", text, re.I)
    if m:
        winner = TRIAL_WINNERS[m.group(1).lower()]
    return Verdict(winner=winner, per_round=per_round, reasons=reasons, parsed=winner is not None, raw=text)


def parse_verdict(text: str, labels: Optional[Iterable[str]] = None, *, trial: bool = False) -> Verdict:
    """JSON first, then Markdown.  ``parsed=False`` (winner None) when neither yields a winner."""
    labels = list(labels) if labels else None
    v = parse_verdict_json(text, labels, trial=trial)
    if v is not None:
        return v
    if trial:
        return parse_trial_markdown(text)
    return parse_verdict_markdown(text, labels)


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
