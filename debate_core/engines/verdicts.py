"""Judge verdicts: parse what a judge wrote, in JSON or Markdown, into a :class:`Verdict`.

JSON is read through pydantic models of every judge output (:class:`TopicVerdictOut` with
its :class:`RowOut` rows, :class:`TrialVerdictOut` with its :class:`RoundCommentOut`
comments), which take the synonyms judges write (``reasoning`` / ``reason`` for
``reasons``, ``commentary`` / ``comments`` for ``comment``, ``table`` / ``scores`` for
``rows``, Chinese keys); :func:`response_schema` gives their JSON schema for a call's
``response_format``.  Asking the judge, the one repair and completeness live in
:mod:`debate_core.engines.judging`.

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
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, model_validator

from debate_core.engines.envelopes import extract_json
from debate_core.engines.judged_prompts import for_lang
from debate_core.i18n import tr
from debate_core.models import RoundComment, Verdict, VerdictRow

LABEL_CHARS, LABEL_LETTERS = for_lang("zh").SEATS, for_lang("en").SEATS  # 辩手甲… and Debater A…: the same seats
REASON_KEYS = for_lang("zh").REASON_KEYS  # a language's: for_lang(lang).REASON_KEYS; unkeyed: .UNKEYED_REASONS
TRIAL_WINNERS = {
    "pro": "pro",
    "con": "con",
    "draw": "draw",
    "正方": "pro",
    "反方": "con",
    "平局": "draw",
    "tie": "draw",
    "平": "draw",
    "affirmative": "pro",
    "negative": "con",
}

_HEADING = re.compile(r"^(#{1,4})\s+(.*?)\s*#*\s*$")
_ZH_LABEL = rf"辩手\s*([{LABEL_CHARS}])"
_EN_LABEL = rf"\bDebater\s+([{LABEL_LETTERS}])\b"
_LABEL = re.compile(rf"{_ZH_LABEL}|{_EN_LABEL}")
_WIN_AFTER = re.compile(
    rf"{_ZH_LABEL}[^。\n；;]{{0,80}}?(?:胜出|获胜|胜|赢|最有力)"
    rf"|{_EN_LABEL}[^.\n;]{{0,80}}?\b(?:wins|won|prevails|is the winner|carries the debate)\b"
)
_WIN_FIELD = re.compile(
    rf"(?:胜方|赢家|获胜方|\bwinner\b)\s*[:：]?\s*\**\s*(?:(?:辩手)?\s*([{LABEL_CHARS}])|(?:Debater\s+)([{LABEL_LETTERS}])\b)",
    re.I,
)
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


def _find(sections: list[tuple[str, str]], *keys: str) -> str | None:
    for heading, body in sections:
        low = heading.lower()
        if any(k.lower() in low for k in keys):
            return body
    return None


def _seat(m: re.Match[str]) -> int:
    """The seat (0 for 甲 / A, 1 for 乙 / B, …) of a label match."""
    zh, en = m.group(1), m.group(2)
    return LABEL_CHARS.index(zh) if zh else LABEL_LETTERS.index(en.upper())


def _label(seat: int, lang: str = "zh") -> str:
    P = for_lang(lang)
    return P.LABEL.format(P.SEATS[seat])


def _label_of(m: re.Match[str], lang: str | None) -> str:
    """The matched label, in ``lang``'s form (None: as written)."""
    if lang is None:
        lang = "zh" if m.group(1) else "en"
    return _label(_seat(m), lang)


def labels_lang(labels: Iterable[str] | None) -> str | None:
    """``en`` when the debate's labels are English (Debater A…), ``zh`` when Chinese, None when unknown."""
    labels = list(labels or [])
    if not labels:
        return None
    return "en" if all(str(lab).startswith("Debater") for lab in labels) else "zh"


def find_winner(text: str, lang: str | None = None) -> str | None:
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


_REASON_START = re.compile(
    r"^\s*(?:[-*]\s+)?(?:\*\*)?\s*(论点强度|攻防表现|逻辑硬伤|硬伤对比|硬伤|攻防"
    r"|argument strength|attack and defence|attack and defense|logical flaws|flaws"
    r"|strength of arguments|clash)\s*(?:\*\*)?\s*[:：]?",
    re.I,
)


def _reason_key(word: str, lang: str = "zh") -> str:
    keys = for_lang(lang).REASON_KEYS
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
    current = for_lang(lang).UNKEYED_REASONS
    for line in body.splitlines():
        m = _REASON_START.match(line)
        if m:
            current = _reason_key(m.group(1), lang)
            line = line[m.end() :]
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


def parse_score(cell: str) -> float | None:
    m = _NUMBER.search(_plain(cell))
    if not m:
        return None
    value = float(m.group(1))
    return value if 0 <= value <= 10 else None


def parse_table(body: str, lang: str | None = None) -> list[VerdictRow]:
    """Rows of the first Markdown table whose header names the debaters."""
    lines = [ln for ln in body.splitlines() if ln.strip().startswith("|")]
    rows: list[VerdictRow] = []
    header: list[str] | None = None
    for ln in lines:
        cells = _cells(ln)
        if header is None:
            if any("辩手" in c or c.lower() in ("label", "debater", "side") for c in cells):
                header = [_plain(c) for c in cells]
            continue
        if all(re.fullmatch(r":?-{2,}:?", c.replace(" ", "")) for c in cells if c):
            continue
        col: dict[str, int] = {}
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

        def get(key: str, col: dict[str, int] = col, cells: list[str] = cells) -> str:
            i = col.get(key)
            return _plain(cells[i]) if i is not None and i < len(cells) else ""

        label = get("label")
        m = _LABEL.search(label)
        if m:
            label = _label_of(m, lang)
        if not label:
            continue
        rows.append(
            VerdictRow(
                label=label,
                stance=get("stance"),
                strongest=get("strongest"),
                weakness=get("weakness"),
                score=parse_score(cells[col["score"]]) if "score" in col and col["score"] < len(cells) else None,
            )
        )
    return rows


def _first_sentence(text: str) -> str:
    text = _plain(text).strip()
    return text.split("\n\n")[0].strip()


def parse_verdict_markdown(text: str, labels: Iterable[str] | None = None, *, lang: str | None = None) -> Verdict:
    """Parse a judge's Markdown verdict (the sample's layout, in Chinese or English); never raises.

    ``labels`` (e.g. 辩手甲, 辩手乙 or Debater A, Debater B) restricts the winner; a winner
    outside them, or none found, gives ``parsed=False`` with the raw text kept.  ``lang``
    (default: the labels', else Chinese) names the unkeyed reasons and the labels' form.
    """
    labels = list(labels) if labels else None
    lang = lang or labels_lang(labels)
    text = (text or "").replace("\r\n", "\n")
    sections = _sections(text)
    conclusion = _find(
        sections, "判赢", "结论", "胜负", "裁决结果", "winner", "verdict", "conclusion", "decision", "result"
    )
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
        reasons=reasons,
        rows=rows,
        note=_plain(note or ""),
        parsed=ok,
        raw=text,
    )


# ----------------------------------------------------------------- the schema (JSON)
#
# What a judge is asked to return, as pydantic models: the JSON schema sent as the call's
# ``response_format`` comes from them (:func:`response_schema`), and a JSON answer is read
# through them.  Reading is tolerant: the ``mode="before"`` validators take the synonyms a
# judge writes (``reasoning`` / ``reason`` for ``reasons``; ``commentary`` / ``comments`` for
# ``comment``; ``table`` / ``scores`` for ``rows``; Chinese keys), reasons given as a string or
# a list, rows keyed by label, labels in either language.  The validation context carries the
# debate's ``labels``, ``lang`` and whether it is a ``trial``.

REASONS_KEYS = ("reasons", "reasoning", "reason", "rationale", "justification", "判词", "理由")
SUMMARY_KEYS = ("summary", "conclusion", "verdict_summary", "结论", "判赢结论", "裁决")
NOTE_KEYS = ("note", "to_reader", "note_to_readers", "reader_note", "给读者的话", "给读者")
WINNER_KEYS = ("winner", "winning_label", "winning_side", "胜方", "获胜方")
ROWS_KEYS = ("rows", "table", "scores", "debaters", "assessments", "assessment", "逐方点评表", "逐方点评", "点评表")
PER_ROUND_KEYS = ("per_round", "rounds", "round_comments", "per_round_commentary", "commentary", "comments", "逐轮点评")
COMMENT_KEYS = ("comment", "commentary", "comments", "点评", "评语", "text")
ROW_KEYS = {
    "label": ("label", "debater", "辩手", "name", "side", "who"),
    "stance": ("stance", "position", "立场"),
    "strongest": ("strongest", "strongest_argument", "strongest_point", "strength", "最强论点"),
    "weakness": ("weakness", "fatal_weakness", "weakest_point", "weak_point", "致命弱点", "弱点"),
    "score": ("score", "rating", "points", "评分", "得分"),
}


def _ctx(info: ValidationInfo) -> dict:
    return getattr(info, "context", None) or {}


def _lang_of(ctx: dict) -> str | None:
    return ctx.get("lang") or labels_lang(ctx.get("labels"))


def _pick(data: dict, keys: Iterable[str]) -> Any:
    """The value of the first of ``keys`` present in ``data`` (latin keys in any case)."""
    low = {str(k).lower(): v for k, v in data.items()}
    for k in keys:
        if k in data:
            return data[k]
        if k.lower() in low:
            return low[k.lower()]
    return None


def _flat(value: Any, sep: str = "；") -> str:
    """A judge's value as plain text: lists joined, ``{key: text}`` as ``key：text``."""
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return sep.join(t for t in (_flat(v, sep) for v in value) if t)
    if isinstance(value, dict):
        colon = ": " if sep == "; " else "："
        return sep.join(f"{k}{colon}{t}" for k, v in value.items() if (t := _flat(v, sep)))
    return _plain(str(value))


def _canonical_reason(key: str, lang: str) -> str:
    low = key.lower()
    if (
        re.search(r"论点|strength", low)
        or re.search(r"攻防|attack|clash|defen", low)
        or re.search(r"硬伤|flaw|logic", low)
    ):
        return _reason_key(key, lang)
    return key.strip()


def _reasons(value: Any, lang: str) -> dict[str, str]:
    sep = tr("en" if lang == "en" else "zh", "; ")
    unkeyed = for_lang(lang).UNKEYED_REASONS
    if isinstance(value, dict):
        out: dict[str, str] = {}
        for k, v in value.items():
            text = _flat(v, sep)
            if text:
                key = _canonical_reason(str(k), lang)
                out[key] = f"{out[key]}{sep}{text}" if key in out else text
        return out
    if isinstance(value, (list, tuple)):
        text = "\n".join(f"- {t}" for t in (_flat(v, sep) for v in value) if t)
        return {unkeyed: text} if text else {}
    text = _flat(value, sep)
    return {unkeyed: text} if text else {}


class RowOut(BaseModel):
    """One debater's line of a topic-debate verdict."""

    model_config = ConfigDict(extra="ignore")

    label: str = Field(description="the debater's label, as listed")
    stance: str = ""
    strongest: str = Field("", description="its strongest argument")
    weakness: str = Field("", description="its fatal weakness")
    score: float | None = Field(None, description="0 to 10")

    @model_validator(mode="before")
    @classmethod
    def _coerce(cls, data: Any, info: ValidationInfo) -> Any:
        if not isinstance(data, dict):
            raise ValueError("a row must be an object")
        lang = _lang_of(_ctx(info))
        out = {k: _pick(data, names) for k, names in ROW_KEYS.items()}
        label = _flat(out["label"])
        m = _LABEL.search(label)
        if m:
            label = _label_of(m, lang)
        elif len(label) == 1 and label in LABEL_CHARS:
            label = _label(LABEL_CHARS.index(label), lang or "zh")
        score = out["score"]
        if isinstance(score, (int, float)) and not isinstance(score, bool):
            score = float(score)
        else:
            score = parse_score(str(score)) if score is not None and str(score).strip() else None
        return {
            "label": label,
            "stance": _flat(out["stance"]),
            "strongest": _flat(out["strongest"]),
            "weakness": _flat(out["weakness"]),
            "score": score if score is not None and 0 <= score <= 10 else None,
        }


def _rows(value: Any) -> list:
    if isinstance(value, dict):  # {"辩手甲": {...}} or {"辩手甲": 7}
        value = [{"label": k, **(v if isinstance(v, dict) else {"score": v})} for k, v in value.items()]
    return [r for r in value if isinstance(r, dict)] if isinstance(value, list) else []


class TopicVerdictOut(BaseModel):
    """A topic-debate judge's verdict: one winning label, the reasons, a row per debater, a note."""

    model_config = ConfigDict(extra="ignore")

    winner: str | None = Field(None, description="the winning debater's label")
    summary: str = Field("", description="the ruling in one sentence: what decided it")
    reasons: dict[str, str] = Field(default_factory=dict)
    rows: list[RowOut] = Field(default_factory=list)
    note: str = ""

    @model_validator(mode="before")
    @classmethod
    def _coerce(cls, data: Any, info: ValidationInfo) -> Any:
        if not isinstance(data, dict):
            raise ValueError("a verdict must be an object")
        ctx = _ctx(info)
        lang = _lang_of(ctx)
        labels = ctx.get("labels")
        winner = _winner_from(_pick(data, WINNER_KEYS), set(labels) if labels else None, False, lang)
        if winner is not None and labels and winner not in labels:
            winner = None
        return {
            "winner": winner,
            "summary": _flat(_pick(data, SUMMARY_KEYS)),
            "reasons": _reasons(_pick(data, REASONS_KEYS), lang or "zh"),
            "rows": _rows(_pick(data, ROWS_KEYS)),
            "note": _flat(_pick(data, NOTE_KEYS)),
        }


class RoundCommentOut(BaseModel):
    """A trial judge's comment on one round."""

    model_config = ConfigDict(extra="ignore")

    round: int
    comment: str = ""

    @model_validator(mode="before")
    @classmethod
    def _coerce(cls, data: Any, info: ValidationInfo) -> Any:
        if isinstance(data, dict):
            m = _NUMBER.search(str(_pick(data, ("round", "round_no", "轮次", "轮")) or ""))
            comment = _pick(data, COMMENT_KEYS)
            if comment is None:  # {"round": 1, "pro": "…", "con": "…"}: the rest is the comment
                comment = {k: v for k, v in data.items() if str(k).lower() not in ("round", "round_no", "轮次", "轮")}
            sep = tr("en" if _lang_of(_ctx(info)) == "en" else "zh", "; ")
            return {"round": int(float(m.group(1))) if m else 0, "comment": _flat(comment, sep)}
        raise ValueError("a round comment must be an object")


def _per_round(value: Any) -> list:
    if isinstance(value, dict):  # {"1": "…", "第2轮": "…"}
        value = [{"round": k, "comment": v} for k, v in value.items()]
    if not isinstance(value, list):
        return []
    out = []
    for i, item in enumerate(value, 1):
        if isinstance(item, str):
            out.append({"round": i, "comment": item})
        elif isinstance(item, dict):
            if _pick(item, ("round", "round_no", "轮次", "轮")) is None:
                item = {**item, "round": i}
            out.append(item)
    return out


class TrialVerdictOut(BaseModel):
    """A trial judge's verdict: a comment per round, the winner (pro / con / draw), the reasons."""

    model_config = ConfigDict(extra="ignore")

    per_round: list[RoundCommentOut] = Field(default_factory=list)
    winner: Literal["pro", "con", "draw"] | None = None
    summary: str = Field("", description="the verdict in one sentence")
    reasons: dict[str, str] = Field(default_factory=dict)
    note: str = ""

    @model_validator(mode="before")
    @classmethod
    def _coerce(cls, data: Any, info: ValidationInfo) -> Any:
        if not isinstance(data, dict):
            raise ValueError("a verdict must be an object")
        lang = _lang_of(_ctx(info)) or "zh"
        per_round = _pick(data, PER_ROUND_KEYS)
        if isinstance(per_round, str):  # a top-level "commentary" string is no per-round commentary
            per_round = None
        return {
            "per_round": _per_round(per_round),
            "winner": _winner_from(_pick(data, WINNER_KEYS), None, True, lang),
            "summary": _flat(_pick(data, SUMMARY_KEYS)),
            "reasons": _reasons(_pick(data, REASONS_KEYS), lang),
            "note": _flat(_pick(data, NOTE_KEYS)),
        }


def response_schema(*, labels: Iterable[str] | None = None, trial: bool = False, lang: str = "zh") -> dict:
    """The JSON schema a judge is asked to fill (for ``response_format``): from the models above,
    with the winner limited to the debate's labels (a trial's to pro / con / draw), the reasons a
    string for a trial and the three keyed reasons for a topic debate."""
    if trial:
        schema = TrialVerdictOut.model_json_schema()
        props = schema["properties"]
        props["winner"] = {"type": "string", "enum": ["pro", "con", "draw"]}
        props["reasons"] = {"type": "string"}
        props["per_round"]["minItems"] = 1
        props.pop("note", None)  # a trial's judge is asked for no note
        schema["required"] = ["per_round", "winner", "summary", "reasons"]
    else:
        schema = TopicVerdictOut.model_json_schema()
        props = schema["properties"]
        labels = list(labels or [])
        props["winner"] = {"type": "string", **({"enum": labels} if labels else {})}
        keys = for_lang(lang).REASON_KEYS
        props["reasons"] = {
            "type": "object",
            "properties": {k: {"type": "string"} for k in keys},
            "required": list(keys),
            "additionalProperties": {"type": "string"},
        }
        if labels:
            props["rows"]["minItems"] = len(labels)
        schema["required"] = ["winner", "summary", "reasons", "rows"]
    return schema


def _winner_from(value: Any, labels: set[str] | None, trial: bool, lang: str | None = None) -> str | None:
    if value is None or isinstance(value, (dict, list)):
        return None
    v = _plain(str(value)).strip()
    if trial:
        low = re.sub(r"^the\s+", "", v.lower())
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


def _json_verdict(text: str, labels: list[str] | None, trial: bool, lang: str | None) -> Verdict | None:
    """What a JSON object in ``text`` says, read through the schema (``parsed`` when it names a
    winner; the parts are kept either way); None when the text holds no JSON object."""
    candidate = extract_json(text or "")
    if candidate is None:
        return None
    try:
        data = json.loads(candidate)
    except json.JSONDecodeError:
        return None
    ctx = {"labels": labels, "lang": lang, "trial": trial}
    try:
        out = (TrialVerdictOut if trial else TopicVerdictOut).model_validate(data, context=ctx)
    except ValidationError:
        return None
    rows = [VerdictRow(**r.model_dump()) for r in getattr(out, "rows", []) if r.label]
    per_round = [RoundComment(round=c.round, comment=c.comment) for c in getattr(out, "per_round", [])]
    return Verdict(
        winner=out.winner,
        summary=out.summary,
        reasons=out.reasons,
        rows=rows,
        per_round=per_round,
        note=out.note,
        parsed=out.winner is not None,
        raw=text,
    )


def parse_verdict_json(
    text: str, labels: Iterable[str] | None = None, *, trial: bool = False, lang: str | None = None
) -> Verdict | None:
    """A verdict from a JSON object in the text, or None when there is none naming a usable winner.

    ``lang`` (default: the labels', else Chinese) names the unkeyed reasons and the labels' form."""
    labels = list(labels) if labels else None
    v = _json_verdict(text, labels, trial, lang or labels_lang(labels))
    return v if v is not None and v.parsed else None


# ------------------------------------------------------------------------ trial md

_ROUND_HEAD = re.compile(r"(?:第\s*(\d+)\s*轮|round\s*(\d+))", re.I)
_ROUND_LINE = re.compile(
    r"^\s*(?:[-*]\s+)?(?:\*\*)?\s*(?:第\s*(\d+)\s*轮|round\s*(\d+))\s*(?:\*\*)?\s*[:：]\s*"
    r"(?:\*\*\s*)?(.+)$",
    re.I,
)
_REASON_LINE = re.compile(
    r"^\s*(?:[-*]\s+)?(?:\*\*)?\s*(判词|理由|reasons?|reasoning)\s*(?:\*\*)?\s*[:：]\s*"
    r"(?:\*\*\s*)?(.+)$",
    re.I,
)
_TRIAL_WINNER = re.compile(
    r"(?:胜方|获胜方|\bwinner\b|裁决|判定|\bverdict\b)\s*[:：]?\s*\**\s*(?:the\s+)?"
    r"(pro|con|draw|tie|affirmative|negative|正方|反方|平局)(?![A-Za-z])",
    re.I,
)


def parse_trial_markdown(text: str, lang: str = "zh") -> Verdict:
    """A trial verdict written as Markdown (Chinese or English): per-round sections or lines
    (``## 第 1 轮`` / ``- **Round 1**: …``), the reasons (a ``## 理由`` / ``## Reasons`` section or a
    ``**判词**：…`` line) and a winner line (``胜方：反方`` / ``**Winner:** Pro``); never raises."""
    text = (text or "").replace("\r\n", "\n")
    unkeyed = for_lang(lang).UNKEYED_REASONS
    comments: dict[int, str] = {}
    reasons: dict[str, str] = {}
    for heading, body in _sections(text):
        m = _ROUND_HEAD.search(heading)
        if m and not _TRIAL_WINNER.search(heading):
            comments.setdefault(int(m.group(1) or m.group(2)), _plain(body))
            continue
        if any(k in heading.lower() for k in ("理由", "判词", "reason")):
            reasons = {unkeyed: _plain(body)}
            continue
        for line in body.splitlines():
            if rm := _ROUND_LINE.match(line):
                comments.setdefault(int(rm.group(1) or rm.group(2)), _plain(rm.group(3)))
            elif (wm := _REASON_LINE.match(line)) and _plain(wm.group(2)):
                reasons.setdefault(unkeyed, _plain(wm.group(2)))
    m = _TRIAL_WINNER.search(text)
    winner = TRIAL_WINNERS[m.group(1).lower()] if m else None
    per_round = [RoundComment(round=r, comment=c) for r, c in sorted(comments.items())]
    return Verdict(
        winner=winner,
        per_round=per_round,
        reasons={k: v for k, v in reasons.items() if v},
        parsed=winner is not None,
        raw=text,
    )


def parse_verdict(
    text: str, labels: Iterable[str] | None = None, *, trial: bool = False, lang: str | None = None
) -> Verdict:
    """JSON first (through the schema), then Markdown.  ``parsed=False`` (winner None) when neither
    yields a winner; the parts a JSON object did carry (rows, reasons, comments) are kept then.

    ``lang`` is the debate's language (default: the labels', else Chinese).  Completeness is not
    judged here: :func:`debate_core.engines.judging.verdict_gaps` does that."""
    labels = list(labels) if labels else None
    lang = lang or labels_lang(labels)
    from_json = _json_verdict(text, labels, trial, lang)
    if from_json is not None and from_json.parsed:
        return from_json
    md = parse_trial_markdown(text, lang or "zh") if trial else parse_verdict_markdown(text, labels, lang=lang)
    if md.parsed or from_json is None:
        return md
    return from_json


def unparsed(text: str, judge: str = "") -> Verdict:
    return Verdict(winner=None, parsed=False, raw=text or "", judge=judge, complete=False, missing=["winner"])


UNPARSED_WARNING = "the judge's verdict could not be parsed twice: stored as raw text, no winner"


__all__ = [
    "UNPARSED_WARNING",
    "parse_verdict",
    "parse_verdict_json",
    "parse_verdict_markdown",
    "parse_trial_markdown",
    "parse_table",
    "parse_reasons",
    "find_winner",
    "unparsed",
    "REASON_KEYS",
    "RowOut",
    "TopicVerdictOut",
    "RoundCommentOut",
    "TrialVerdictOut",
    "response_schema",
]
