"""Asking a judge: structured output where the provider has it, one repair naming what is missing,
and the verdict stored complete or marked incomplete.

* :func:`structured_output` — the call's ``response_format``: the verdict's JSON schema
  (:func:`debate_core.engines.verdicts.response_schema`) for an OpenAI-compatible server
  (``api_base``) or a model litellm says supports response schemas, else None (text only).
  A server that refuses it (a 400 / 422 naming the request) is asked again without it.
* :func:`verdict_gaps` — what a verdict lacks against what the judge was asked for:
  ``winner`` (none could be read), ``reasons`` (no reasons at all), ``row:<label>`` (a debater
  with no row, or a row with neither a score nor an assessment), ``round:<n>`` (a trial
  round with no comment).  A verdict with no gap is *complete*.
* :func:`fit_verdict` — a verdict made to fit its debate: rows of the debaters only, one each,
  in seat order, with the stance the debate assigned; comments on the rounds judged only.
* :func:`ask_judge` — one judge call; when its verdict has a gap, one repair call that names
  exactly what is missing; then the better of the two (the repair's parts filling the first's
  gaps when they name the same winner), stored with ``complete`` and ``missing``.  A verdict
  is never stored as complete while it has a gap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from debate_core.engines.gateway import GatewayError, litellm, provider_of
from debate_core.engines.verdicts import unparsed
from debate_core.models import RoundComment, Verdict, VerdictRow

# providers whose api_base is an OpenAI-compatible server: the json_schema form is sent as it is
OPENAI_COMPATIBLE = ("openai", "hosted_vllm", "lm_studio", "openai_like", "")


def structured_output(gateway, schema: dict, name: str) -> dict | None:
    """``response_format`` for a judge call through ``gateway``, or None where the provider has no
    structured output (the verdict is then read from text alone)."""
    model = getattr(gateway, "model", "") or ""
    fmt = {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": False}}
    if getattr(gateway, "api_base", None) and provider_of(model) in OPENAI_COMPATIBLE:
        return fmt
    if getattr(gateway, "api_base", None):
        return None  # another provider's protocol at a custom address: text only
    try:
        return fmt if litellm().supports_response_schema(model=model) else None
    except Exception:  # noqa: BLE001 - an unknown model: text only
        return None


def refused_format(exc: GatewayError) -> bool:
    """The server refused the request itself (not the model failing): try it without ``response_format``."""
    low = exc.cause.lower()
    return not exc.retryable and (
        exc.status in (400, 415, 422, 501) or "response_format" in low or "json_schema" in low
    )


# ----------------------------------------------------------------------- gaps


def has_assessment(row) -> bool:
    return row.score is not None or bool((row.strongest or "").strip()) or bool((row.weakness or "").strip())


def verdict_gaps(verdict: Verdict, *, labels: Iterable[str] | None = None, rounds: int | None = None) -> list[str]:
    """What ``verdict`` lacks: ``winner``, ``reasons``, ``row:<label>`` for each of ``labels``
    without an assessed row, ``round:<n>`` for each round 1..``rounds`` without a comment."""
    if not verdict.parsed or not verdict.winner:
        return ["winner"]
    missing = []
    for label in labels or ():
        if not any(r.label == label and has_assessment(r) for r in verdict.rows):
            missing.append(f"row:{label}")
    for n in range(1, (rounds or 0) + 1):
        if not any(c.round == n and c.comment.strip() for c in verdict.per_round):
            missing.append(f"round:{n}")
    if not any(str(v).strip() for v in verdict.reasons.values()):
        missing.append("reasons")
    return missing


def fit_verdict(verdict: Verdict, *, stances: dict[str, str] | None = None, rounds: int | None = None) -> Verdict:
    """``verdict`` fitted to its debate: with ``stances`` (label → stance) the rows are the debaters'
    only, the first assessed one each, in seat order, with the assigned stance (a judge's copy of it
    is no assessment); with ``rounds`` the comments are on rounds 1..rounds, one each, in order."""
    if stances is not None:
        rows: dict[str, VerdictRow] = {}
        for r in verdict.rows:
            kept = rows.get(r.label)
            if r.label in stances and (kept is None or (has_assessment(r) and not has_assessment(kept))):
                rows[r.label] = r
        verdict.rows = [rows[lab].model_copy(update={"stance": stances[lab]}) for lab in stances if lab in rows]
    if rounds is not None:
        by_round: dict[int, RoundComment] = {}
        for c in verdict.per_round:
            if 1 <= c.round <= rounds and (c.round not in by_round or not by_round[c.round].comment.strip()):
                by_round[c.round] = c
        verdict.per_round = [by_round[n] for n in sorted(by_round)]
    return verdict


def fill(first: Verdict, second: Verdict, missing: list[str]) -> tuple[Verdict, bool]:
    """``first`` with its gaps filled from ``second`` (the repair's answer), when ``second`` names
    no other winner; (verdict, whether anything was taken)."""
    if second.winner not in (None, first.winner):
        return first, False
    out = first.model_copy(deep=True)
    taken = False
    for gap in missing:
        kind, _, key = gap.partition(":")
        if kind == "reasons" and any(str(v).strip() for v in second.reasons.values()):
            out.reasons, taken = dict(second.reasons), True
        elif kind == "row":
            row = next((r for r in second.rows if r.label == key and has_assessment(r)), None)
            if row is not None:
                out.rows = [r for r in out.rows if r.label != key] + [row]
                taken = True
        elif kind == "round":
            c = next((c for c in second.per_round if str(c.round) == key and c.comment.strip()), None)
            if c is not None:
                out.per_round = sorted([x for x in out.per_round if str(x.round) != key] + [c], key=lambda x: x.round)
                taken = True
    return out, taken


# ----------------------------------------------------------------------- asking


def ask_judge(
    gateway,
    messages: list[dict],
    parse: Callable[[str], Verdict],
    repair: Callable[[list[dict], str, list[str]], list[dict]],
    *,
    on_token=None,
    response_format: dict | None = None,
    gaps: Callable[[Verdict], list[str]] | None = None,
) -> tuple[Verdict, str, bool]:
    """One judge call, and one repair call when its verdict has a gap (``gaps``, default: only a
    missing winner counts); ``repair(messages, reply, missing)`` builds the repair request.

    Returns ``(verdict, raw text, parsed)``: the verdict carries ``complete`` and ``missing``; one
    that names no winner after the repair is an unparsed verdict (never a silent draw).  Gateway
    errors propagate (a refused ``response_format`` is retried without it first)."""
    check = gaps or (lambda v: [] if v.parsed and v.winner else ["winner"])
    fmt = {"value": response_format}

    def call(msgs: list[dict]) -> str:
        if fmt["value"]:
            try:
                return gateway.complete(msgs, purpose="verdict", on_token=on_token, response_format=fmt["value"]).text
            except GatewayError as exc:
                if not refused_format(exc):
                    raise
                fmt["value"] = None  # the server has no structured output: text from now on
        return gateway.complete(msgs, purpose="verdict", on_token=on_token).text

    def done(v: Verdict) -> tuple[Verdict, str, bool]:
        v.missing = check(v)
        v.complete = not v.missing
        return v, v.raw, v.parsed

    text = call(messages)
    first = parse(text)
    first.raw = text
    missing = check(first)
    if not missing:
        return done(first)
    text2 = call(repair(messages, text, missing))
    second = parse(text2)
    second.raw = text2
    if second.parsed and not check(second):
        return done(second)
    if first.parsed:
        merged, taken = fill(first, second, missing)
        if taken:
            merged.raw = f"{text}\n\n---\n\n{text2}"
        if second.parsed and len(check(second)) < len(check(merged)):
            return done(second)
        return done(merged)
    if second.parsed:
        return done(second)
    return done(unparsed(text2))


__all__ = [
    "ask_judge",
    "fit_verdict",
    "fill",
    "refused_format",
    "structured_output",
    "verdict_gaps",
    "OPENAI_COMPATIBLE",
]
