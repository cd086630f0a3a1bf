"""The trial (dsh-debate): pro and con argue over full transcripts, then one judge call.

Three library steps, so that a live page can drive a trial one model turn at a time:

* :func:`open_trial` — validate the topic and round count (≤ ``max_rounds``, default
  cap 8), assign models to ``pro`` / ``con``, create the record (status running);
* :func:`trial_round` — advance exactly one round: a fresh pro speaker sees the
  topic and the full transcript so far, then a fresh con speaker sees it including
  pro's new speech.  Each speech is cut at ``config.max_speech_length`` characters
  in a Chinese trial, ``config.max_speech_length`` words in an English one (the
  speaker is told the limit in the same unit), and flagged ``truncated``.  A failed speech marks the debate
  failed; calling :func:`trial_round` again reruns that round alone (``rerun=True`` redoes the last
  round even when it succeeded);
* :func:`trial_verdict` — one judge call: per-round commentary, the winner
  (pro / con / draw) and the reasons (asked as a JSON schema where the provider has
  structured output); a verdict that skips a round's comment or its reasons is asked
  for once more, naming what is missing, then stored ``complete=False`` with
  ``missing`` (:mod:`debate_core.engines.judging`); closes the debate.

With ``config.workspace`` set, debaters get the read-only research tools of
:mod:`debate_core.research_tools` through litellm tool calling (at most
:data:`MAX_TOOL_CALLS` per speech).  A model without tool support degrades to no
tools, logged once in ``debate.warnings``.  Every tool call is kept on its speech.

Everything a trial shows or sends is in its language (``debate.lang``): prompts, the
side names (正方/反方 or Pro/Con), the tools' descriptions and answers, warnings and
stop reasons (:mod:`debate_core.engines.judged_prompts`).

:class:`TrialRunner` loops the rounds then the verdict for the CLI and the API.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from debate_core.engines.gateway import Gateway, GatewayError, TokenCallback, cause_in, litellm
from debate_core.engines.judged_prompts import for_lang
from debate_core.engines.judging import ask_judge, fit_verdict, structured_output, verdict_gaps
from debate_core.engines.verdicts import parse_verdict, response_schema
from debate_core.errors import InputError
from debate_core.lang import LANGS
from debate_core.lang import resolve as resolve_lang
from debate_core.models import Debate, DebateConfig, LLMCall, Participant, Speech, ToolCallRecord, utcnow
from debate_core.protocols.base import ASK_WORKSPACE, ProtocolSpec, Role, check_no_checker
from debate_core.protocols.judged_common import (
    api_base_of,
    check_models,
    cut_words,
    debater_models,
    gateway_options_from_env,
    make_gateway,
)
from debate_core.protocols.master import new_id
from debate_core.recorder import NULL_RECORDER, Recorder
from debate_core.render.judged import render_trial
from debate_core.research.tools import Workspace, tool_message_content, tool_specs
from debate_core.settings import validate_topic

SIDES = ("pro", "con")
DEFAULT_ROUNDS = 3
MAX_ROUNDS = 8
MAX_TOOL_CALLS = 6
TOOLS_OFF_OLD = "research tools off"  # the prefix in records written before the warnings were Chinese


def cut_speech(text: str, limit: int, lang: str) -> tuple[str, bool]:
    """``(text, truncated)``: a speech cut at ``limit`` characters (zh) or ``limit`` words (en)."""
    cut = cut_words(text, limit) if lang == "en" else text[:limit]
    return cut, cut != text


# ------------------------------------------------------------------------- open


def open_trial(
    config: DebateConfig, recorder: Recorder = NULL_RECORDER, *, probe: bool = True, max_rounds: int = MAX_ROUNDS
) -> Debate:
    """Create a trial record (status running) and report it; no model is called."""

    topic = validate_topic(config.topic)
    lang = resolve_lang(topic, config.lang)
    P = for_lang(lang)
    models = debater_models(config, "trial")
    rounds = DEFAULT_ROUNDS if config.rounds is None else config.rounds
    if not 1 <= rounds <= max_rounds:
        raise InputError(f"rounds {rounds} out of range: a trial allows 1-{max_rounds}")
    if config.max_speech_length < 100:
        raise InputError(
            "max_speech_length must be at least 100 "
            + ("words (an English trial counts words)" if lang == "en" else "characters")
        )
    warnings: list[str] = []
    pro, con = models[0], models[1] if len(models) > 1 else models[0]
    if len(models) > 2:
        warnings.append(P.NOTES["trial_extra_models"].format(k=len(models) - 2))
    judge = (config.judge_model or "").strip() or pro
    workspace = None
    if config.workspace:
        from debate_core.settings import check_workspace

        try:
            workspace = str(Workspace(check_workspace(config.workspace)).root)
        except ValueError as exc:
            raise InputError(str(exc)) from None
    check_models([pro, con, judge], api_base_of(config), probe)
    debate = Debate(
        id=new_id(),
        protocol="trial",
        topic=topic,
        participants=[
            Participant(label=side, name=P.SIDE_NAMES[side], stance=P.SIDE_STANCES[side], model=m)
            for side, m in (("pro", pro), ("con", con))
        ],
        models=list(dict.fromkeys([pro, con, judge])),
        planned_rounds=rounds,
        config=config.model_copy(
            update={
                "topic": topic,
                "rounds": rounds,
                "models": [pro, con],
                "judge_model": judge,
                "workspace": workspace,
                "lang": lang,
            }
        ),
        warnings=warnings,
        batch_id=config.batch_id,
        source="run",
        lang=lang,
    )
    if workspace:
        for model in dict.fromkeys([pro, con]):
            if known_without_tools(model):
                _tools_off(debate, model, P.NOTES["no_tool_support"])
    recorder.start(debate)
    return debate


def known_without_tools(model: str) -> bool:
    """True only when litellm knows the model and says it has no function calling."""
    lm = litellm()
    try:
        lm.get_model_info(model)
    except Exception:  # unknown model (custom server): try tools, degrade on a refusal
        return False
    try:
        return not lm.supports_function_calling(model=model)
    except Exception:
        return False


def _tools_off(debate: Debate, model: str, why: str) -> None:
    debate.warnings.append(for_lang(debate.lang).NOTES["tools_off"].format(model=model, why=why))


def tools_enabled(debate: Debate, model: str) -> bool:
    # the "tools off" warning for this model, in either language (up to its cause), or as older records wrote it
    off = tuple(for_lang(lang).NOTES["tools_off"].format(model=model, why="\0").split("\0")[0] for lang in LANGS)
    return bool(debate.config.workspace) and not any(
        w.startswith((*off, f"{TOOLS_OFF_OLD} for {model}:")) for w in debate.warnings
    )


def _tools_refused(exc: GatewayError) -> bool:
    if exc.retryable:
        return False
    low = exc.cause.lower()
    return exc.status in (400, 422, 501) or "tool" in low or "function" in low


# ----------------------------------------------------------------------- state


@dataclass
class _Ctx:
    debate: Debate
    recorder: Recorder
    options: dict[str, Any] = field(default_factory=dict)

    def sink(self, call: LLMCall) -> None:
        self.debate.llm_calls.append(call)
        self.recorder.call(self.debate, call)

    def gateway(self, model: str) -> Gateway:
        return make_gateway(self.debate.config, model, self.sink, self.options)

    def touch(self) -> None:
        self.debate.updated_at = utcnow()
        self.recorder.update(self.debate)


def _ctx(debate: Debate, recorder: Recorder, options: dict[str, Any] | None) -> _Ctx:
    if debate.protocol != "trial":
        raise InputError(f"debate {debate.id} is a {debate.protocol} debate, not a trial")
    return _Ctx(debate, recorder, {**gateway_options_from_env(), **(options or {})})


def transcript_of(debate: Debate) -> str:
    return for_lang(debate.lang).trial_transcript(
        [(s.round, s.speaker, s.text) for s in debate.rounds if s.status != "failed"]
    )


def round_complete(debate: Debate, round_no: int) -> bool:
    sides = {s.speaker for s in debate.rounds if s.round == round_no and s.status != "failed"}
    return sides >= set(SIDES)


def completed_rounds(debate: Debate) -> int:
    n = 0
    while round_complete(debate, n + 1):
        n += 1
    return n


# ---------------------------------------------------------------------- speech


def speaker_messages(debate: Debate, side: str, round_no: int, tools: bool) -> list[dict]:
    """The exact messages a fresh ``side`` speaker gets: topic, labels, the whole record so far (as a
    conversation that only grows, so each call starts with the same side's previous one)."""
    spoken = [(s.round, s.speaker, s.text) for s in debate.rounds if s.status != "failed"]
    return for_lang(debate.lang).trial_speaker_messages(
        side, debate.topic, round_no, debate.planned_rounds, spoken, debate.config.max_speech_length, tools
    )


def _speak(ctx: _Ctx, side: str, round_no: int, on_token: TokenCallback | None) -> Speech:
    debate = ctx.debate
    part = debate.participant(side)
    assert part is not None
    model = part.model
    lang = debate.lang
    P = for_lang(lang)
    gw = ctx.gateway(model)
    use_tools = tools_enabled(debate, model)
    workspace = Workspace(debate.config.workspace, lang=lang) if use_tools and debate.config.workspace else None
    messages = speaker_messages(debate, side, round_no, use_tools)
    records: list[ToolCallRecord] = []
    warnings: list[str] = []
    pt = ct = 0
    cost = latency = 0.0
    retries = 0
    executed = 0
    text = ""
    budget_noted = False
    for _step in range(MAX_TOOL_CALLS + 3):
        try:
            gen = gw.complete(
                messages,
                purpose="speech",
                on_token=on_token,
                tools=tool_specs(lang) if use_tools else None,
                round=round_no,
                speaker=side,
            )
        except GatewayError as exc:
            if use_tools and _tools_refused(exc):
                _tools_off(debate, model, P.NOTES["tools_refused"].format(cause=cause_in(lang, exc.cause)))
                ctx.touch()
                use_tools, workspace = False, None
                messages = speaker_messages(debate, side, round_no, False)
                records.clear()
                executed = 0
                continue
            return Speech(
                round=round_no,
                speaker=side,
                speaker_name=part.name,
                role=side,
                status="failed",
                engine=model,
                tool_calls=records,
                prompt_tokens=pt,
                completion_tokens=ct,
                cost=cost,
                latency_ms=latency,
                warnings=warnings + [P.NOTES["call_failed"].format(cause=cause_in(lang, exc.cause))],
            )
        pt += gen.prompt_tokens
        ct += gen.completion_tokens
        cost += gen.cost
        latency += gen.latency_ms
        retries += gen.retries
        if gen.tool_calls and use_tools and workspace is not None:
            messages = messages + [gen.raw_message or {"role": "assistant", "content": gen.text}]
            for tc in gen.tool_calls:
                if executed >= MAX_TOOL_CALLS:
                    rec = ToolCallRecord(
                        name=tc["name"],
                        arguments={"raw": str(tc.get("arguments", ""))[:500]},
                        error=P.NOTES["tool_budget_spent"].format(n=MAX_TOOL_CALLS),
                    )
                else:
                    rec = workspace.execute(tc["name"], tc.get("arguments") or "{}")
                    executed += 1
                records.append(rec)
                messages.append({"role": "tool", "tool_call_id": tc["id"], "content": tool_message_content(rec)})
            if executed >= MAX_TOOL_CALLS and not budget_noted:
                messages.append({"role": "user", "content": P.TOOL_BUDGET_NOTE})
                budget_noted = True
            continue
        text = (gen.text or "").strip()
        break
    else:
        warnings.append(P.NOTES["tool_loop"])
    limit = debate.config.max_speech_length
    text, truncated = cut_speech(text, limit, lang)
    if truncated:
        warnings.append(P.NOTES["truncated"].format(limit=limit))
    status = "ok" if text else "empty"
    if not text and not warnings:
        warnings.append(P.NOTES["empty_speech"])
    return Speech(
        round=round_no,
        speaker=side,
        speaker_name=part.name,
        role=side,
        text=text,
        truncated=truncated,
        status=status,
        engine=model,
        tool_calls=records,
        prompt_tokens=pt,
        completion_tokens=ct,
        cost=cost,
        latency_ms=latency,
        retries=retries,
        warnings=warnings,
    )


# ----------------------------------------------------------------------- round


def trial_round(
    debate: Debate,
    recorder: Recorder = NULL_RECORDER,
    *,
    rerun: bool = False,
    on_token: TokenCallback | None = None,
    on_speech: Callable[[Speech], None] | None = None,
    gateway_options: dict[str, Any] | None = None,
) -> list[Speech]:
    """Advance exactly one round (pro, then con who has read pro) and return its speeches.

    A failed speech is recorded, the debate is marked failed and the round stops; the
    next call reruns that round alone (keeping a pro speech that succeeded).
    ``rerun=True`` discards the last played round and plays it again.
    """

    ctx = _ctx(debate, recorder, gateway_options)
    if debate.status == "completed" or debate.verdict is not None:
        raise InputError(f"trial {debate.id} already has a verdict")
    debate.rounds = [s for s in debate.rounds if s.status != "failed"]
    if rerun:
        if not debate.rounds:
            raise InputError("no round has been played yet: nothing to rerun")
        last = max(s.round for s in debate.rounds)
        debate.rounds = [s for s in debate.rounds if s.round != last]
    played = {s.round for s in debate.rounds}
    round_no = max(played) if played and not round_complete(debate, max(played)) else max(played, default=0) + 1
    if round_no > debate.planned_rounds:
        raise InputError(f"all {debate.planned_rounds} rounds are played: ask for the verdict")
    debate.status, debate.stop_reason = "running", ""
    ctx.touch()
    out = [s for s in debate.rounds if s.round == round_no]
    for side in SIDES:
        if any(s.speaker == side for s in out):
            continue
        speech = _speak(ctx, side, round_no, on_token)
        debate.rounds.append(speech)
        recorder.speech(debate, speech)
        out.append(speech)
        if on_speech is not None:
            on_speech(speech)
        if speech.status == "failed":
            debate.status = "failed"
            P = for_lang(debate.lang)
            debate.stop_reason = P.NOTES["speech_failed"].format(
                r=round_no, side=P.SIDE_NAMES[side], why=P.SEP.join(speech.warnings)
            )
            ctx.touch()
            return out
    ctx.touch()
    return out


# --------------------------------------------------------------------- verdict


def trial_verdict(
    debate: Debate,
    recorder: Recorder = NULL_RECORDER,
    *,
    on_token: TokenCallback | None = None,
    gateway_options: dict[str, Any] | None = None,
) -> Debate:
    """One judge call over the whole transcript; sets the verdict and closes the debate."""

    ctx = _ctx(debate, recorder, gateway_options)
    if debate.status == "completed" and debate.verdict is not None:
        raise InputError(f"trial {debate.id} is already closed")
    done = completed_rounds(debate)
    if done == 0:
        raise InputError("no complete round yet: play at least one round before the verdict")
    # the judge sees complete rounds only
    debate.rounds = [s for s in debate.rounds if s.round <= done and s.status != "failed"]
    judge_model = debate.config.judge_model or debate.participants[0].model
    gw = ctx.gateway(judge_model)
    P = for_lang(debate.lang)
    messages = P.trial_judge_messages(debate.topic, transcript_of(debate), done)
    schema = response_schema(trial=True, lang=debate.lang or "zh")
    try:
        verdict, _raw, ok = ask_judge(
            gw,
            messages,
            lambda t: fit_verdict(parse_verdict(t, trial=True, lang=debate.lang), rounds=done),
            P.trial_judge_repair,
            on_token=on_token,
            response_format=structured_output(gw, schema, "trial_verdict"),
            gaps=lambda v: verdict_gaps(v, rounds=done),
        )
    except GatewayError as exc:
        debate.status = "failed"
        debate.stop_reason = P.NOTES["verdict_failed"].format(cause=cause_in(debate.lang, exc.cause))
        ctx.touch()
        return debate
    if not ok:
        debate.warnings.append(P.NOTES["unparsed"])
    verdict.judge = judge_model
    debate.verdict = fit_verdict(verdict, rounds=done)
    debate.status = "completed"
    debate.stop_reason = (
        P.NOTES["all_rounds"].format(done=done)
        if done == debate.planned_rounds
        else P.NOTES["some_rounds"].format(done=done, planned=debate.planned_rounds)
    )
    ctx.touch()
    return debate


# ---------------------------------------------------------------------- runner


@dataclass
class TrialRunner:
    """Rounds then the verdict, for the CLI, the API and the archive's resume."""

    recorder: Recorder = field(default_factory=lambda: NULL_RECORDER)
    gateway_options: dict[str, Any] = field(default_factory=dict)

    def run(
        self,
        debate: Debate,
        *,
        on_token: TokenCallback | None = None,
        on_speech: Callable[[Speech], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
        only_one: bool = False,
    ) -> Debate:
        """Run (or resume) from the first unfinished round; ``only_one`` plays one round and pauses."""
        while completed_rounds(debate) < debate.planned_rounds:
            if should_stop is not None and should_stop():
                debate.status = "stopped"
                debate.stop_reason = (
                    for_lang(debate.lang).NOTES["stopped_before_round"].format(r=completed_rounds(debate) + 1)
                )
                debate.updated_at = utcnow()
                self.recorder.update(debate)
                return debate
            trial_round(
                debate, self.recorder, on_token=on_token, on_speech=on_speech, gateway_options=self.gateway_options
            )
            if debate.status == "failed":
                return debate
            if only_one and completed_rounds(debate) < debate.planned_rounds:
                debate.status = "interrupted"
                debate.stop_reason = for_lang(debate.lang).NOTES["one_round"].format(r=completed_rounds(debate))
                debate.updated_at = utcnow()
                self.recorder.update(debate)
                return debate
        if should_stop is not None and should_stop():
            debate.status, debate.stop_reason = "stopped", for_lang(debate.lang).NOTES["stopped_before_verdict"]
            debate.updated_at = utcnow()
            self.recorder.update(debate)
            return debate
        return trial_verdict(debate, self.recorder, on_token=on_token, gateway_options=self.gateway_options)


def start(
    config: DebateConfig,
    recorder: Recorder = NULL_RECORDER,
    *,
    probe: bool = True,
    gateway_options: dict[str, Any] | None = None,
) -> tuple[TrialRunner, Debate]:
    debate = open_trial(config, recorder, probe=probe)
    return TrialRunner(recorder=recorder, gateway_options=dict(gateway_options or {})), debate


def rejudge(debate: Debate, gateway_options: dict[str, Any] | None = None) -> Debate:
    """The verdict alone, on ``debate`` as it stands (nothing is recorded): for judge audits."""
    debate.status = "running"
    return trial_verdict(debate, NULL_RECORDER, gateway_options=dict(gateway_options or {}))


def runner_for(
    debate: Debate,
    recorder: Recorder = NULL_RECORDER,
    *,
    gateway_options: dict | None = None,
    pack_path: str | None = None,
) -> TrialRunner:
    """A runner that continues a stored trial (a trial has no pack)."""
    return TrialRunner(recorder=recorder, gateway_options=dict(gateway_options or {}))


def turn(debate: Debate, round_no: int) -> str:
    """正方 speaks first in a round, then 反方."""
    done = {s.speaker for s in debate.rounds if s.round == round_no and s.status != "failed"}
    side = "con" if "pro" in done else "pro"
    P = for_lang(debate.lang)
    return P.NOTES["turn_side"].format(r=round_no, who=P.SIDE_NAMES[side])


SPEC = ProtocolSpec(
    name="trial",
    title="庭审",
    summary="正反两方就完整记录论证，可用只读调研工具，最后由一位裁判裁决",
    roles=(
        Role("sides", "正反方模型（逗号分隔：正方,反方；只给一个则两方共用）", "model", many=True),
        Role("judge", "裁判模型（留空则用正方的模型）", "judge_model", required=False),
    ),
    min_rounds=1,
    max_rounds=MAX_ROUNDS,
    default_rounds=DEFAULT_ROUNDS,
    asks=(ASK_WORKSPACE,),
    judged=True,
    start=start,
    runner_for=runner_for,
    render=render_trial,
    check=check_no_checker("trial"),
    rejudge=rejudge,
    first_labels=("pro",),
    cuts_speeches=True,
    app_title="Trial",
    app_summary="Pro and con argue over the full transcript, round by round; one judge call gives per-round "
    "commentary, the winner (pro / con / draw) and the reasons.",
    app_fields={
        "pro": ("Pro model (正方)", ""),
        "con": ("Con model (反方)", "Defaults to the pro model."),
        "judge": ("Judge model", "Defaults to the pro model."),
    },
    seats=SIDES,
    rounds_done=completed_rounds,
    turn=turn,
)
