"""Topic-debate envelopes: extract, validate (tolerantly) and render one debater's round.

An envelope is the JSON object a debater returns each round::

    {"stance": "...", "arguments": [{"id", "point", "reasoning", "evidence"}],
     "rebuttals": [{"target", "type", "content"}], "no_new_points": false}

Real models drift from that shape (see the sample log in the reference folder):
arguments come back as plain strings, ``evidence`` goes missing, closing points get
stuffed into rebuttal objects, booleans arrive as ``"true"``.  The models below
accept those drifts and normalise them; what they do not accept is text that holds
no JSON object, or an object that is not an envelope at all.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator


class EnvelopeError(ValueError):
    """The text holds no usable envelope; the message says why, in the debate's language (it is
    sent to the model in the repair request and shown in the debate's warnings)."""


# What this module says, per debate language: parse errors, the rendering's headings, the
# default rebuttal type, the separator joining drifted list values.
TEXT = {
    "zh": {"no_json": "回复里没有 JSON 对象", "bad_json": "JSON 无法解析：第 {line} 行第 {col} 列附近有语法错误",
           "not_object": "JSON 不是一个对象",
           "no_fields": "这个对象没有任何信封字段（arguments / rebuttals / no_new_points）",
           "bad_field": "字段 {where} 的值不合约定的格式",
           "nothing": "信封里既没有论点也没有反驳，却没有把 no_new_points 设为 true",
           "table": ("| id | 论点 | 论证 | 论据 |", "|----|------|------|------|"),
           "rebuttal": "反驳", "colon": "：", "join": "——", "sep": "；", "pipe": "｜",
           "empty": "（本轮无论点、无反驳）"},
    "en": {"no_json": "the reply holds no JSON object",
           "bad_json": "the JSON does not parse: syntax error near line {line}, column {col}",
           "not_object": "the JSON is not an object",
           "no_fields": "the object has none of the envelope fields (arguments / rebuttals / no_new_points)",
           "bad_field": "the value of field {where} is not in the agreed format",
           "nothing": "the envelope has neither arguments nor rebuttals, yet no_new_points is not true",
           "table": ("| id | Point | Reasoning | Evidence |", "|----|-------|-----------|----------|"),
           "rebuttal": "rebuttal", "colon": ": ", "join": " — ", "sep": "; ", "pipe": "/",
           "empty": "(no arguments and no rebuttals this round)"},
}


def _t(lang: str | None) -> dict:
    return TEXT["en" if lang == "en" else "zh"]


def _lang(info: Any) -> str:
    ctx = getattr(info, "context", None) or {}
    return ctx.get("lang") or "zh"


def _s(value: Any, sep: str = "；") -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, (list, tuple)):
        return sep.join(_s(v, sep) for v in value if _s(v, sep))
    if isinstance(value, dict):
        return sep.join(f"{k}: {_s(v, sep)}" for k, v in value.items() if _s(v, sep))
    return str(value).strip()


class Argument(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str = ""
    point: str = ""
    reasoning: str = ""
    evidence: str = ""

    @model_validator(mode="before")
    @classmethod
    def _coerce(cls, data: Any, info: ValidationInfo) -> Any:
        sep = _t(_lang(info))["sep"]
        if isinstance(data, str):  # drift: an argument given as a bare sentence
            return {"point": data}
        if isinstance(data, dict):
            data = dict(data)
            for alias, key in (("claim", "point"), ("content", "point"), ("argument", "point"),
                               ("论点", "point"), ("reason", "reasoning"), ("论证", "reasoning"),
                               ("论据", "evidence")):
                if key not in data and alias in data:
                    data[key] = data.pop(alias)
            for key in ("id", "point", "reasoning", "evidence"):
                if key in data:
                    data[key] = _s(data[key], sep)
            return data
        raise ValueError("an argument must be an object or a string")


class Rebuttal(BaseModel):
    model_config = ConfigDict(extra="allow")

    target: str = ""
    type: str = "反驳"
    content: str = ""

    @model_validator(mode="before")
    @classmethod
    def _coerce(cls, data: Any, info: ValidationInfo) -> Any:
        text = _t(_lang(info))
        if isinstance(data, str):
            return {"content": data, "type": text["rebuttal"]}
        if isinstance(data, dict):
            data = dict(data)
            for key in ("target", "type", "content"):
                if key in data:
                    data[key] = _s(data[key], text["sep"])
            if not data.get("content"):
                # drift: a closing argument stuffed into a rebuttal object
                parts = [_s(data.get(k), text["sep"]) for k in ("point", "reasoning", "text", "argument")
                         if _s(data.get(k), text["sep"])]
                if parts:
                    data["content"] = text["join"].join(parts)
            if not data.get("type"):
                data["type"] = text["rebuttal"]
            return data
        raise ValueError("a rebuttal must be an object or a string")


class Envelope(BaseModel):
    model_config = ConfigDict(extra="allow")

    stance: str = ""
    arguments: list[Argument] = Field(default_factory=list)
    rebuttals: list[Rebuttal] = Field(default_factory=list)
    no_new_points: bool = False

    @field_validator("stance", mode="before")
    @classmethod
    def _stance(cls, v: Any, info: ValidationInfo) -> str:
        return _s(v, _t(_lang(info))["sep"])

    @field_validator("arguments", "rebuttals", mode="before")
    @classmethod
    def _listify(cls, v: Any) -> Any:
        if v is None:
            return []
        if isinstance(v, (str, dict)):
            return [v] if v else []
        return v

    @field_validator("no_new_points", mode="before")
    @classmethod
    def _flag(cls, v: Any) -> Any:
        if isinstance(v, str):
            low = v.strip().lower()
            if low in ("true", "yes", "是", "1", "y"):
                return True
            if low in ("false", "no", "否", "0", "n", ""):
                return False
        return v

    @model_validator(mode="after")
    def _number(self) -> Envelope:
        for i, a in enumerate(self.arguments, 1):
            if not a.id:
                a.id = f"A{i}"
        self.arguments = [a for a in self.arguments if a.point or a.reasoning]
        self.rebuttals = [r for r in self.rebuttals if r.content]
        return self

    @property
    def is_empty(self) -> bool:
        return not self.arguments and not self.rebuttals


ENVELOPE_KEYS = ("arguments", "rebuttals", "no_new_points")
_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n?(.*?)```", re.S)


def extract_json(text: str) -> str | None:
    """The fenced json block if there is one holding an object, else the first ``{`` to the last ``}``."""
    if not text:
        return None
    for m in _FENCE.finditer(text):
        body = m.group(1).strip()
        if body.startswith("{"):
            return body
    start, end = text.find("{"), text.rfind("}")
    if start == -1 or end <= start:
        return None
    return text[start:end + 1]


def parse_envelope(text: str, lang: str = "zh") -> Envelope:
    """Validate one debater's reply; raises :class:`EnvelopeError` with a reason a model can act on,
    in the debate's language ``lang``."""
    t = _t(lang)
    candidate = extract_json(text or "")
    if candidate is None:
        raise EnvelopeError(t["no_json"])
    try:
        data = json.loads(candidate)
    except json.JSONDecodeError as exc:
        raise EnvelopeError(t["bad_json"].format(line=exc.lineno, col=exc.colno)) from None
    if not isinstance(data, dict):
        raise EnvelopeError(t["not_object"])
    if not any(k in data for k in ENVELOPE_KEYS):
        raise EnvelopeError(t["no_fields"])
    try:
        env = Envelope.model_validate(data, context={"lang": "en" if lang == "en" else "zh"})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise EnvelopeError(t["bad_field"].format(where=where or "?")) from None
    if env.is_empty and not env.no_new_points:
        raise EnvelopeError(t["nothing"])
    return env


def empty_envelope(stance: str) -> Envelope:
    """What an invalid reply is recorded as: nothing said, nothing new."""
    return Envelope(stance=stance, arguments=[], rebuttals=[], no_new_points=True)


def _cell(text: str, pipe: str = "｜") -> str:
    return re.sub(r"\s+", " ", text.replace("|", pipe)).strip() or "—"


def render_envelope(env: Envelope | dict, *, heading: str = "", lang: str = "zh") -> str:
    """A readable Markdown rendering: an argument table, then the rebuttals, then the stop flag
    (headings and notes in the debate's language ``lang``)."""
    t = _t(lang)
    if isinstance(env, dict):
        env = Envelope.model_validate(env, context={"lang": "en" if lang == "en" else "zh"})
    out: list[str] = []
    if heading:
        out += [heading, ""]
    if env.arguments:
        out += list(t["table"])
        out += [f"| {_cell(a.id, t['pipe'])} | {_cell(a.point, t['pipe'])} | {_cell(a.reasoning, t['pipe'])} | "
                f"{_cell(a.evidence, t['pipe'])} |" for a in env.arguments]
        out.append("")
    if env.rebuttals:
        for r in env.rebuttals:
            target = f" {r.target}" if r.target else ""
            out.append(f"- **{r.type or t['rebuttal']}{target}**{t['colon']}{r.content}")
        out.append("")
    if not env.arguments and not env.rebuttals:
        out += [t["empty"], ""]
    out.append(f"`no_new_points: {'true' if env.no_new_points else 'false'}`")
    return "\n".join(out).strip()


def envelope_json(env: Envelope | dict) -> str:
    """Compact JSON for a prompt (what a debater sees of an earlier envelope)."""
    if isinstance(env, Envelope):
        env = env.model_dump()
    data = {"stance": env.get("stance", ""), "arguments": env.get("arguments", []),
            "rebuttals": env.get("rebuttals", []), "no_new_points": bool(env.get("no_new_points"))}
    return json.dumps(data, ensure_ascii=False, indent=1)
