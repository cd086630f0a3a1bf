"""The topic debate: stance split → parallel blind openings → cross rebuttals → independent judge.

* :func:`prepare` validates the config (at most 3 rounds: the openings plus up to 2
  rebuttal rounds, as the seed caps it), splits the topic into 2-4 stances with one
  model call (or takes ``config.stances``), assigns the neutral labels as the seed
  does (stance 1 → 辩手乙, stance 2 → 辩手甲, stances 3 and 4 → 辩手丙 / 辩手丁) and one
  model each, in label order 甲, 乙, 丙, 丁 (reused in order when there are fewer
  models than debaters: the debate is then *degraded*, not heterogeneous) and
  reports ``recorder.start``.
* :class:`TopicDebate` runs the rounds.  All debaters of a round speak concurrently
  (``Gateway.acomplete`` under ``asyncio.gather``); round 1 is blind, later rounds
  show each debater its own previous envelope and the others'.  Every reply is
  parsed into an envelope (one repair request with the parse error, then an empty
  envelope with a warning).  The debate stops when every debater reports
  ``no_new_points``; a round where every debater produced nothing usable never
  stops it: it is retried once, then the judge rules on what exists.  When no round
  holds anything usable at all, the judge is not asked: the debate ends as
  未成辩论 (no debate took place, status ``failed``) and says why.
* Everything the debate shows or sends is in the debate's language (``debate.lang``,
  resolved from ``config.lang`` or the topic): prompts, labels (辩手甲… / Debater A…),
  warnings, stop reasons, the repair requests to the models — through
  :mod:`debate_core.engines.judged_prompts` (prompts) and the library's catalogs.  Stances are
  cut at :data:`MAX_STANCE_CHARS` characters in Chinese, :data:`MAX_STANCE_WORDS` words in English.
* A debater's rebuttals are checked before they are kept: round 1 is a blind opening, so
  its rebuttals are dropped; from round 2 a rebuttal aimed at the debater's own label (and
  no other) is dropped.  Each drop is a note on the speech (:func:`drop_rebuttals`).
* The judge is a fresh call that sees the topic, the stances and the anonymous log
  and names one winning label, asked as a JSON schema where the provider has structured
  output (:mod:`debate_core.engines.judging`).  An unparseable verdict is asked for once
  more, then stored raw with ``parsed=False`` and no winner; a verdict that leaves out a
  debater's row or its reasons is asked for once more naming exactly what is missing, then
  stored with ``complete=False`` and ``missing``.  The rows carry the stances the debate
  assigned, in seat order.

No model or provider name is ever passed to a prompt builder: debaters and the
judge see labels only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from debate_core.engines.envelopes import EnvelopeError, empty_envelope, envelope_json, parse_envelope, render_envelope
from debate_core.engines.gateway import Gateway, GatewayError, Generation, TokenCallback, cause_in
from debate_core.engines.judged_prompts import en as _en
from debate_core.engines.judged_prompts import for_lang
from debate_core.engines.judged_prompts import zh as _zh
from debate_core.engines.judging import ask_judge, fit_verdict, structured_output, verdict_gaps
from debate_core.engines.verdicts import parse_verdict, response_schema
from debate_core.errors import InputError
from debate_core.lang import resolve as resolve_lang
from debate_core.models import Debate, DebateConfig, LLMCall, Participant, Speech, utcnow
from debate_core.protocols.base import ASK_STANCES, ProtocolSpec, Role, check_no_checker
from debate_core.protocols.judged_common import (  # noqa: F401 - re-exported: they were defined here
    api_base_of,
    check_models,
    cut_words,
    debater_models,
    gateway_options_from_env,
    make_gateway,
    need_model_error,
    run_coro,
)
from debate_core.protocols.master import new_id
from debate_core.protocols.topic_stances import (  # noqa: F401 - re-exported: they were defined here
    MAX_STANCE_CHARS,
    MAX_STANCE_WORDS,
    clean_stances,
    drop_rebuttals,
    label_stances,
    split_stances,
    target_seats,
)
from debate_core.recorder import NULL_RECORDER, Recorder
from debate_core.render.judged import render_topic, wrap_up, wrap_up_md
from debate_core.settings import validate_topic

LABELS = _zh.LABELS  # the seats, as a Chinese debate labels them (seat_names gives each language's)
DEFAULT_ROUNDS = 3
MAX_ROUNDS = 3  # the seed's hard cap: the openings plus up to 2 rebuttal rounds
MIN_STANCES, MAX_STANCES = 2, 4


MAX_CAUSES = 3  # a no-debate's stop reason names at most this many distinct causes


def rounds_error(rounds: int):
    """The one-line refusal of a topic debate with too many (or too few) rounds."""

    return InputError(
        f"rounds {rounds} out of range: a topic debate runs 1-{MAX_ROUNDS} rounds "
        f"(the openings plus up to {MAX_ROUNDS - 1} rebuttal rounds, as the topic-debate seed caps it)"
    )


def check_rounds(rounds: int | None) -> int:
    """``rounds`` (default 3) when it is within the seed's cap, else :func:`rounds_error`."""
    rounds = DEFAULT_ROUNDS if rounds is None else rounds
    if not 1 <= rounds <= MAX_ROUNDS:
        raise rounds_error(rounds)
    return rounds


def prepare(
    config: DebateConfig,
    recorder: Recorder = NULL_RECORDER,
    *,
    probe: bool = True,
    gateway_options: dict[str, Any] | None = None,
) -> Debate:
    """Validate, split the stances, assign labels and models, create the record (status running)."""

    options = {**gateway_options_from_env(), **(gateway_options or {})}
    topic = validate_topic(config.topic)
    lang = resolve_lang(topic, config.lang)
    notes = for_lang(lang).NOTES
    rounds = check_rounds(config.rounds)  # before the model: a bad plan is refused whatever is configured
    models = debater_models(config, "topic")
    judge = (config.judge_model or "").strip() or models[0]
    api_base = api_base_of(config)
    check_models(models + [judge], api_base, probe)

    calls: list[LLMCall] = []
    warnings: list[str] = []
    if config.stances:
        stances = clean_stances(config.stances, lang)
        if len(stances) < MIN_STANCES:
            raise InputError('a topic debate needs at least 2 distinct stances (--stances "A|B")')
        if len(stances) > MAX_STANCES:
            raise InputError(f"a topic debate takes at most {MAX_STANCES} stances; {len(stances)} given")
    else:
        gw = make_gateway(config, judge, calls.append, options)
        stances, reason = split_stances(topic, gw, lang)
        if len(stances) < MIN_STANCES:
            why = f" ({reason})" if reason else ""
            raise InputError(
                f"not a debatable topic: it does not split into two or more opposing stances{why}. "
                "Ask it as an ordinary question, rephrase it as a claim people disagree on, "
                'or give the stances yourself with --stances "A|B"'
            )
        if len(stances) > MAX_STANCES:
            warnings.append(notes["too_many_stances"].format(n=len(stances), max=MAX_STANCES))
            stances = stances[:MAX_STANCES]

    # labels in order 甲, 乙, 丙, 丁 take the models in order; each label takes its stance as the seed assigns it
    by_label = label_stances(stances, lang)
    labels = list(by_label)
    assigned = [models[i % len(models)] for i in range(len(labels))]
    distinct = list(dict.fromkeys(assigned))
    if len(distinct) < len(labels):
        warnings.insert(0, notes["degraded"].format(distinct=len(distinct), n=len(labels)))
    if len(models) > len(stances):
        warnings.append(notes["extra_models"].format(k=len(models) - len(stances), n=len(stances)))
    participants = [
        Participant(label=lab, name=lab, stance=by_label[lab], model=assigned[i]) for i, lab in enumerate(labels)
    ]
    debate = Debate(
        id=new_id(),
        protocol="topic",
        topic=topic,
        participants=participants,
        models=list(dict.fromkeys(assigned + [judge])),
        planned_rounds=rounds,
        config=config.model_copy(
            update={
                "topic": topic,
                "rounds": rounds,
                "stances": stances,
                "models": models,
                "judge_model": judge,
                "lang": lang,
            }
        ),
        warnings=warnings,
        batch_id=config.batch_id,
        source="run",
        lang=lang,
    )
    recorder.start(debate)
    for c in calls:
        debate.llm_calls.append(c)
        recorder.call(debate, c)
    return debate


# ---------------------------------------------------------------------- running


@dataclass
class TopicDebate:
    """Runs (or resumes) topic debates; one instance may serve many debates."""

    recorder: Recorder = field(default_factory=lambda: NULL_RECORDER)
    gateway_options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.gateway_options = {**gateway_options_from_env(), **self.gateway_options}

    # ---------------------------------------------------------------- plumbing
    def _sink(self, debate: Debate) -> Callable[[LLMCall], None]:
        def sink(call: LLMCall) -> None:
            debate.llm_calls.append(call)
            self.recorder.call(debate, call)

        return sink

    def _gateways(self, debate: Debate) -> dict[str, Gateway]:
        sink = self._sink(debate)
        models = {p.model for p in debate.participants} | {self.judge_model(debate)}
        return {m: make_gateway(debate.config, m, sink, self.gateway_options) for m in models}

    @staticmethod
    def judge_model(debate: Debate) -> str:
        return debate.config.judge_model or debate.participants[0].model

    def _touch(self, debate: Debate) -> None:
        debate.updated_at = utcnow()
        self.recorder.update(debate)

    # ------------------------------------------------------------------ prompts
    def messages_for(self, debate: Debate, label: str, round_no: int) -> list[dict]:
        """The exact messages debater ``label`` gets in ``round_no`` (labels and stances only)."""
        me = debate.participant(label)
        assert me is not None
        P = for_lang(debate.lang)
        if round_no == 1:
            return P.opening_messages(label, me.stance, debate.topic, debate.planned_rounds)

        def env_text(lab: str, r: int) -> str:
            s = next((x for x in debate.rounds if x.round == r and x.speaker == lab), None)
            part = debate.participant(lab)
            stance = part.stance if part else ""
            env = s.envelope if s is not None and s.envelope else empty_envelope(stance).model_dump()
            return envelope_json(env)

        def pair(r: int) -> tuple[str, list[tuple[str, str, str]]]:
            return env_text(label, r), [
                (p.label, p.stance, env_text(p.label, r)) for p in debate.participants if p.label != label
            ]

        # the whole conversation so far (the seed's previous-round envelopes come last), so that each
        # call starts with the debater's previous call byte for byte
        earlier = [pair(r) for r in range(1, round_no - 1)]
        own, others = pair(round_no - 1)
        return P.rebuttal_messages(
            label, me.stance, debate.topic, round_no, debate.planned_rounds, own, others, earlier
        )

    # ------------------------------------------------------------------ speech
    async def _speak(self, debate: Debate, gw: Gateway, label: str, round_no: int) -> Speech:
        me = debate.participant(label)
        assert me is not None
        role = "opening" if round_no == 1 else "rebuttal"
        lang = debate.lang
        P = for_lang(lang)
        messages = self.messages_for(debate, label, round_no)
        totals = {"pt": 0, "ct": 0, "cost": 0.0, "lat": 0.0}
        warnings: list[str] = []

        def add(gen: Generation) -> None:
            totals["pt"] += gen.prompt_tokens
            totals["ct"] += gen.completion_tokens
            totals["cost"] += gen.cost
            totals["lat"] += gen.latency_ms

        def speech(**kw: Any) -> Speech:
            return Speech(
                round=round_no,
                speaker=label,
                speaker_name=label,
                role=role,
                engine=gw.model,
                prompt_tokens=totals["pt"],
                completion_tokens=totals["ct"],
                cost=totals["cost"],
                latency_ms=totals["lat"],
                warnings=warnings,
                **kw,
            )

        retries = 0
        try:
            gen = await gw.acomplete(messages, purpose="speech", round=round_no, speaker=label)
            add(gen)
            try:
                env = parse_envelope(gen.text, lang)
            except EnvelopeError as first:
                retries = 1
                gen2 = await gw.acomplete(
                    P.repair_messages(messages, gen.text, str(first)),
                    purpose="speech_repair",
                    round=round_no,
                    speaker=label,
                )
                add(gen2)
                try:
                    env = parse_envelope(gen2.text, lang)
                    warnings.append(P.NOTES["repaired"].format(first=first))
                except EnvelopeError as second:
                    same = str(second) == str(first)
                    warnings.append(
                        P.NOTES["invalid_twice_same" if same else "invalid_twice"].format(first=first, second=second)
                    )
                    env = empty_envelope(me.stance)
                    return speech(
                        text=render_envelope(env, lang=lang), envelope=env.model_dump(), retries=retries, status="empty"
                    )
        except GatewayError as exc:
            warnings.append(P.NOTES["call_failed"].format(cause=cause_in(lang, exc.cause)))
            env = empty_envelope(me.stance)
            return speech(text="", envelope=env.model_dump(), retries=retries, status="failed")
        env.stance = me.stance  # the assigned stance is authoritative; paraphrases are not kept
        warnings += drop_rebuttals(env, label, round_no, lang)
        return speech(text=render_envelope(env, lang=lang), envelope=env.model_dump(), retries=retries, status="ok")

    async def _round_async(self, debate: Debate, gateways: dict[str, Gateway], round_no: int) -> list[Speech]:
        tasks = [self._speak(debate, gateways[p.model], p.label, round_no) for p in debate.participants]
        return list(await asyncio.gather(*tasks))

    def play_round(self, debate: Debate, round_no: int, gateways: dict[str, Gateway] | None = None) -> list[Speech]:
        """All debaters of one round, concurrently; returns the speeches (not yet recorded)."""
        gateways = gateways or self._gateways(debate)
        return run_coro(self._round_async(debate, gateways, round_no))

    @staticmethod
    def all_empty(speeches: list[Speech]) -> bool:
        return all(s.status in ("empty", "failed") for s in speeches)

    @staticmethod
    def has_content(speeches: list[Speech]) -> bool:
        """Some debater said something: an argument or a rebuttal, in some round."""
        return any(
            s.status == "ok" and ((s.envelope or {}).get("arguments") or (s.envelope or {}).get("rebuttals"))
            for s in speeches
        )

    @staticmethod
    def all_done(speeches: list[Speech]) -> bool:
        """Every debater reports no_new_points (invalid replies count as 'nothing new', as the contract says)."""
        return bool(speeches) and all(bool((s.envelope or {}).get("no_new_points")) for s in speeches)

    def _record_round(self, debate: Debate, speeches: list[Speech], on_speech: Callable[[Speech], None] | None) -> None:
        r = speeches[0].round
        debate.rounds = [s for s in debate.rounds if s.round != r] + speeches
        for s in speeches:
            self.recorder.speech(debate, s)
            if on_speech is not None:
                on_speech(s)

    def next_round(self, debate: Debate) -> int:
        done = [s.round for s in debate.rounds]
        return (max(done) + 1) if done else 1

    # --------------------------------------------------------------------- run
    def run(
        self,
        debate: Debate,
        *,
        on_token: TokenCallback | None = None,
        on_speech: Callable[[Speech], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
        only_one: bool = False,
    ) -> Debate:
        """Run (or resume) from the first round not yet played, then the judge.

        ``only_one`` plays a single round and leaves the debate ``interrupted`` (the
        archive's retry); a debate whose rounds are all played goes straight to the judge.
        """
        gateways = self._gateways(debate)
        labels = [p.label for p in debate.participants]
        P = for_lang(debate.lang)
        notes = P.NOTES  # the debate's own table (Chinese or English)
        # a resumed debate drops any round some debater did not get to (an interrupted gather)
        by_round: dict[int, set[str]] = {}
        for s in debate.rounds:
            by_round.setdefault(s.round, set()).add(s.speaker)
        incomplete = {r for r, who in by_round.items() if who != set(labels)}
        if incomplete:
            debate.rounds = [s for s in debate.rounds if s.round < min(incomplete)]
        if debate.rounds and not self.has_content(debate.rounds):
            debate.rounds = []  # a debate that never took place starts again from the openings
        debate.status, debate.stop_reason = "running", ""
        self._touch(debate)

        start = self.next_round(debate)
        last = [s for s in debate.rounds if s.round == start - 1]
        if start - 1 >= 2 and self.all_done(last) and not self.all_empty(last):
            stop_reason = notes["converged"].format(r=start - 1)
        elif start > debate.planned_rounds:
            stop_reason = notes["cap"].format(n=debate.planned_rounds)
        else:
            for round_no in range(start, debate.planned_rounds + 1):
                if should_stop is not None and should_stop():
                    debate.status, debate.stop_reason = "stopped", notes["stopped_before_round"].format(r=round_no)
                    self._touch(debate)
                    return debate
                speeches = self.play_round(debate, round_no, gateways)
                if self.all_empty(speeches):
                    # the failed attempt is not archived as speeches (its calls are); the retry replaces it
                    debate.warnings.append(notes["round_retry"].format(r=round_no))
                    self._touch(debate)
                    speeches = self.play_round(debate, round_no, gateways)
                    for s in speeches:
                        s.retries += 1
                        s.warnings.append(notes["retried_speech"])
                    self._record_round(debate, speeches, on_speech)
                    if self.all_empty(speeches):
                        if self.has_content(debate.rounds):  # else no judge is asked: no_debate says why
                            debate.warnings.append(notes["round_empty_again"].format(r=round_no))
                        stop_reason = notes["stop_empty_twice"].format(r=round_no)
                        break
                else:
                    self._record_round(debate, speeches, on_speech)
                failed = [s.speaker for s in speeches if s.status == "failed"]
                if failed:
                    debate.warnings.append(notes["no_reply"].format(r=round_no, labels=P.LIST_SEP.join(failed)))
                    self._touch(debate)
                if round_no >= 2 and self.all_done(speeches) and not self.all_empty(speeches):
                    stop_reason = notes["converged"].format(r=round_no)
                    break
                if only_one and round_no < debate.planned_rounds:
                    debate.status, debate.stop_reason = "interrupted", notes["one_round"].format(r=round_no)
                    self._touch(debate)
                    return debate
            else:
                stop_reason = notes["cap"].format(n=debate.planned_rounds)
        if should_stop is not None and should_stop():
            debate.status, debate.stop_reason = "stopped", notes["stopped_before_verdict"]
            self._touch(debate)
            return debate
        debate.stop_reason = stop_reason
        if not self.has_content(debate.rounds):
            return self.no_debate(debate)
        return self.judge(debate, gateways, on_token=on_token)

    def no_debate(self, debate: Debate) -> Debate:
        """Every round empty: the judge is not asked; the debate ends as 未成辩论 and says why."""
        P = for_lang(debate.lang)
        notes = P.NOTES
        played = sorted({s.round for s in debate.rounds})
        who: dict[str, list[str]] = {}  # each cause once, with the debaters it was recorded for
        for s in debate.rounds:
            for w in s.warnings:
                if w != notes["retried_speech"] and s.speaker not in who.setdefault(w, []):
                    who[w].append(s.speaker)
        why = notes["no_debate_played"].format(n=len(played)) if played else notes["no_debate_none"]
        if who:
            shown = list(who.items())[:MAX_CAUSES]
            more = notes["no_debate_more"].format(n=len(who) - len(shown)) if len(who) > len(shown) else ""
            cause = P.SEP.join(f"{P.LIST_SEP.join(labels)}{P.COLON}{w}" for w, labels in shown)
            why += notes["no_debate_cause"].format(cause=cause, more=more)
        debate.status = "failed"
        debate.stop_reason = notes["no_debate"].format(why=why)
        self._touch(debate)
        return debate

    # ------------------------------------------------------------------- judge
    def judge(
        self, debate: Debate, gateways: dict[str, Gateway] | None = None, *, on_token: TokenCallback | None = None
    ) -> Debate:
        from debate_core.render.judged import debate_log_md

        gateways = gateways or self._gateways(debate)
        gw = gateways[self.judge_model(debate)]
        labels = [p.label for p in debate.participants]
        stances = {p.label: p.stance for p in debate.participants}
        P = for_lang(debate.lang)
        messages = P.judge_messages(
            debate.topic, [(p.label, p.stance) for p in debate.participants], debate_log_md(debate, for_judge=True)
        )
        schema = response_schema(labels=labels, lang=debate.lang or "zh")
        try:
            verdict, _raw, ok = ask_judge(
                gw,
                messages,
                lambda t: fit_verdict(parse_verdict(t, labels, lang=debate.lang), stances=stances),
                lambda m, t, missing: P.judge_repair_messages(m, t, labels, missing),
                on_token=on_token,
                response_format=structured_output(gw, schema, "topic_verdict"),
                gaps=lambda v: verdict_gaps(v, labels=labels),
            )
        except GatewayError as exc:
            debate.status = "failed"
            failed = P.NOTES["judge_failed"].format(cause=cause_in(debate.lang, exc.cause))
            debate.stop_reason = (debate.stop_reason + P.SEP if debate.stop_reason else "") + failed
            self._touch(debate)
            return debate
        if not ok:
            debate.warnings.append(P.NOTES["unparsed"])
        verdict = fit_verdict(verdict, stances=stances)  # a repair's rows, filled in, in seat order too
        verdict.judge = gw.model
        debate.verdict = verdict
        debate.status = "completed"
        self._touch(debate)
        return debate


def start(
    config: DebateConfig,
    recorder: Recorder = NULL_RECORDER,
    *,
    probe: bool = True,
    gateway_options: dict[str, Any] | None = None,
) -> tuple[TopicDebate, Debate]:
    debate = prepare(config, recorder, probe=probe, gateway_options=gateway_options)
    return TopicDebate(recorder=recorder, gateway_options=dict(gateway_options or {})), debate


def rejudge(debate: Debate, gateway_options: dict[str, Any] | None = None) -> Debate:
    """The judge's step alone, on ``debate`` as it stands (nothing is recorded): for judge audits."""
    return TopicDebate(recorder=NULL_RECORDER, gateway_options=dict(gateway_options or {})).judge(debate)


def runner_for(
    debate: Debate,
    recorder: Recorder = NULL_RECORDER,
    *,
    gateway_options: dict | None = None,
    pack_path: str | None = None,
) -> TopicDebate:
    """A runner that continues a stored topic debate (a topic debate has no pack)."""
    return TopicDebate(recorder=recorder, gateway_options=dict(gateway_options or {}))


def rounds_done(debate: Debate) -> int:
    """Rounds recorded whole: every debater has its entry (a debater whose call failed has one too)."""
    labels = {p.label for p in debate.participants}
    return len(
        [r for r in {s.round for s in debate.rounds} if {s.speaker for s in debate.rounds if s.round == r} >= labels]
    )


def turn(debate: Debate, round_no: int) -> str:
    """Every debater speaks at once."""
    P = for_lang(debate.lang)
    return P.NOTES["turn_parallel"].format(r=round_no, who=P.LIST_SEP.join(p.label for p in debate.participants))


SPEC = ProtocolSpec(
    name="topic",
    title="议题辩论",
    summary="2–4 个立场由匿名辩手以 JSON 信封辩论，至多 3 轮，再由独立裁判裁决",
    roles=(
        Role("debaters", "辩手模型（逗号分隔，轮流分给各位辩手）", "model", many=True),
        Role("judge", "裁判模型（留空则用第一位辩手的模型）", "judge_model", required=False),
    ),
    min_rounds=1,
    max_rounds=MAX_ROUNDS,
    default_rounds=DEFAULT_ROUNDS,
    asks=(ASK_STANCES,),
    judged=True,
    start=start,
    runner_for=runner_for,
    render=render_topic,
    check=check_no_checker("topic"),
    rejudge=rejudge,
    anonymous_labels=True,
    judge_reads_participants=True,
    wrap_up=wrap_up_md,
    wrap_up_lines=wrap_up,
    first_labels=(_zh.LABELS[0], _en.LABELS[0]),
    rounds_note=f"the openings plus up to {MAX_ROUNDS - 1} rebuttal rounds",
    app_title="Topic debate",
    app_summary="2-4 anonymous debaters (Debater A, B, C, D), one stance and ideally one model each, argue in "
    "parallel rounds; an independent judge names a winner with reasons and scores.",
    app_fields={
        "debaters": ("**A model per debater** (reused in order when fewer are given: the debate is then degraded)", ""),
        "judge": ("Judge model", "Defaults to the first debater's model."),
    },
    seats=LABELS,
    seat_names=lambda lang: for_lang(lang).LABELS,
    stance_seats=label_stances,
    export_formats=("md", "json", "ipynb", "debate-dir"),
    rounds_done=rounds_done,
    turn=turn,
)
