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
import unicodedata
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from debate_core.i18n import tr, translator, trp


class EnvelopeError(ValueError):
    """The text holds no usable envelope; the message says why, in the debate's language (it is
    sent to the model in the repair request and shown in the debate's warnings)."""


def _width(text: str) -> int:
    """Display columns: a wide (CJK) character takes two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def table_head(cells: list[str]) -> list[str]:
    """A Markdown table's header row and the rule under it, each rule as wide as its cell on screen:
    ``| id | Point |`` / ``|----|-------|``, ``| id | 论点 |`` / ``|----|------|``."""
    shown = [f" {c} " for c in cells]
    return ["|" + "|".join(shown) + "|", "|" + "|".join("-" * _width(c) for c in shown) + "|"]


def _norm(lang: str | None) -> str:
    return "en" if lang == "en" else "zh"


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
        sep = tr(_lang(info), "; ")
        if isinstance(data, str):  # drift: an argument given as a bare sentence
            return {"point": data}
        if isinstance(data, dict):
            data = dict(data)
            for alias, key in (
                ("claim", "point"),
                ("content", "point"),
                ("argument", "point"),
                ("论点", "point"),
                ("reason", "reasoning"),
                ("论证", "reasoning"),
                ("论据", "evidence"),
            ):
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
        lang = _lang(info)
        sep = tr(lang, "; ")
        if isinstance(data, str):
            return {"content": data, "type": tr(lang, "rebuttal")}
        if isinstance(data, dict):
            data = dict(data)
            for key in ("target", "type", "content"):
                if key in data:
                    data[key] = _s(data[key], sep)
            if not data.get("content"):
                # drift: a closing argument stuffed into a rebuttal object
                parts = [
                    _s(data.get(k), sep) for k in ("point", "reasoning", "text", "argument") if _s(data.get(k), sep)
                ]
                if parts:
                    data["content"] = tr(lang, " — ").join(parts)
            if not data.get("type"):
                data["type"] = tr(lang, "rebuttal")
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
        return _s(v, tr(_lang(info), "; "))

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
    return text[start : end + 1]


def parse_envelope(text: str, lang: str = "zh") -> Envelope:
    """Validate one debater's reply; raises :class:`EnvelopeError` with a reason a model can act on,
    in the debate's language ``lang``."""
    lang = _norm(lang)
    _ = translator(lang)
    candidate = extract_json(text or "")
    if candidate is None:
        raise EnvelopeError(_("the reply holds no JSON object"))
    try:
        data = json.loads(candidate)
    except json.JSONDecodeError as exc:
        raise EnvelopeError(
            _("the JSON does not parse: syntax error near line {line}, column {col}", line=exc.lineno, col=exc.colno)
        ) from None
    if not isinstance(data, dict):
        raise EnvelopeError(_("the JSON is not an object"))
    if not any(k in data for k in ENVELOPE_KEYS):
        raise EnvelopeError(_("the object has none of the envelope fields (arguments / rebuttals / no_new_points)"))
    try:
        env = Envelope.model_validate(data, context={"lang": lang})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise EnvelopeError(_("the value of field {where} is not in the agreed format", where=where or "?")) from None
    if env.is_empty and not env.no_new_points:
        raise EnvelopeError(_("the envelope has neither arguments nor rebuttals, yet no_new_points is not true"))
    return env


def empty_envelope(stance: str) -> Envelope:
    """What an invalid reply is recorded as: nothing said, nothing new."""
    return Envelope(stance=stance, arguments=[], rebuttals=[], no_new_points=True)


def _cell(text: str, pipe: str = "｜") -> str:
    return re.sub(r"\s+", " ", text.replace("|", pipe)).strip() or "—"


def render_envelope(env: Envelope | dict, *, heading: str = "", lang: str = "zh") -> str:
    """A readable Markdown rendering: an argument table, then the rebuttals, then the stop flag
    (headings and notes in the debate's language ``lang``)."""
    lang = _norm(lang)
    _ = translator(lang)
    if isinstance(env, dict):
        env = Envelope.model_validate(env, context={"lang": lang})
    out: list[str] = []
    if heading:
        out += [heading, ""]
    if env.arguments:
        pipe = trp(lang, "table cell", "/")
        out += table_head(
            [
                "id",
                trp(lang, "argument table", "Point"),
                trp(lang, "argument table", "Reasoning"),
                trp(lang, "argument table", "Evidence"),
            ]
        )
        out += [
            f"| {_cell(a.id, pipe)} | {_cell(a.point, pipe)} | {_cell(a.reasoning, pipe)} | {_cell(a.evidence, pipe)} |"
            for a in env.arguments
        ]
        out.append("")
    if env.rebuttals:
        for r in env.rebuttals:
            target = f" {r.target}" if r.target else ""
            out.append("- **" + (r.type or _("rebuttal")) + target + "**" + _(": ") + r.content)
        out.append("")
    if not env.arguments and not env.rebuttals:
        out += [_("(no arguments and no rebuttals this round)"), ""]
    out.append(f"`no_new_points: {'true' if env.no_new_points else 'false'}`")
    return "\n".join(out).strip()


# an envelope's stop flag written out as a line of a speech's text (``no_new_points: false``, as render_envelope
# ends and a topic-debate log states it, in backticks or as a bullet): data of the envelope, not the debater's words
FLAG_LINE = re.compile(r"^(?:[-*]\s*)?`?\s*no_new_points\s*[:：=]\s*(true|false)\s*`?\s*$", re.I)


def without_flag_lines(text: str) -> str:
    """``text`` without its ``no_new_points`` lines (:data:`FLAG_LINE`) and the blank lines they leave at its end."""
    lines = [line for line in (text or "").splitlines() if not FLAG_LINE.match(line.strip())]
    while lines and lines[-1].strip() in ("", "---"):
        lines.pop()
    return "\n".join(lines).strip("\n")


def envelope_json(env: Envelope | dict) -> str:
    """Compact JSON for a prompt (what a debater sees of an earlier envelope)."""
    if isinstance(env, Envelope):
        env = env.model_dump()
    data = {
        "stance": env.get("stance", ""),
        "arguments": env.get("arguments", []),
        "rebuttals": env.get("rebuttals", []),
        "no_new_points": bool(env.get("no_new_points")),
    }
    return json.dumps(data, ensure_ascii=False, indent=1)
