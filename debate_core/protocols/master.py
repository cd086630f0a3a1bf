"""The master debate (master-debate v0.8): an orchestrator over isolated rounds.

Each round is a fresh engine call from a :class:`SpeechRequest` that holds only the
speaker, role, round, topic, the opponent's <=80-character summary, the ammo and
the speaker's own style notes and sources.  The orchestrator writes the summaries,
checks every speech, retries failing ones with their findings, and ends with a
neutral observation, never a winner.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from debate_core.checks import RULE_LABELS_ZH, CheckContext, ammo_used, find_citations, run_checks
from debate_core.content.arguments import bank_of
from debate_core.content.distress import distress_notice
from debate_core.content.packs import get_pack, pair_key
from debate_core.content.pairing import PairChoice, choose_pair, row_theme
from debate_core.content.plan import debate_theme, material_note, plan_speech
from debate_core.engines.gateway import GatewayError, Generation, TokenCallback, cause_in
from debate_core.errors import InputError, PackError, PairError
from debate_core.models import (
    CrossCritique,
    Debate,
    DebateConfig,
    Finding,
    LLMCall,
    ObservationRequest,
    Pack,
    Participant,
    RoundSummary,
    Speech,
    SpeechRequest,
    SummaryRequest,
    utcnow,
)
from debate_core.protocols.base import ASK_MASTERS, ASK_PACK, ProtocolSpec, Role, check_lang
from debate_core.recorder import NULL_RECORDER, Recorder
from debate_core.render.master import OBSERVATION_HEADING, render_master
from debate_core.settings import resolve_api_base, resolve_model

if TYPE_CHECKING:
    from debate_core.engines.check_model import ModelAuditor
    from debate_core.engines.llm import LLMEngine
    from debate_core.engines.offline.engine import OfflineEngine

SUMMARY_LIMIT = 80
COVERAGE_WARNING = "⚠️ 本配对 cross_critique 未双向覆盖，对辩力度可能降级。"
CONSENSUS_MARKERS = ("可", "亦", "诚然", "许之", "认同", "同意")


def new_id() -> str:
    return uuid.uuid4().hex[:12]


def rule_label(rule: str) -> str:
    return RULE_LABELS_ZH.get(rule, rule)


def feedback_line(f: Finding) -> str:
    """One failed finding as the retry prompt states it (Chinese, like the debate)."""
    who = "（模型审核）" if f.layer == "model" else ""
    return f"{rule_label(f.rule)}{who}：{f.message or '未通过'}"


def role_for(round_no: int, total: int) -> str:
    if round_no == 1:
        return "立论"
    if round_no == total:
        return "综合"
    return "反驳" if round_no % 2 == 0 else "回应"


MAX_ASKED_ROUNDS = 100  # a larger value is a typo, not a wish: refused rather than clamped
REBUTTAL_MIN_ROUNDS = 3  # the seed's roles: 立论, then 反驳 …, the last round 综合 — a 反驳 needs three rounds


def plan_rounds(pack: Pack, a: str, b: str, requested: int | None) -> tuple[int, str | None]:
    """Rounds for the pair (the seed: min(user value, max_rounds), and at least the pack's minimum) and
    a note when a user value was clamped or leaves no 反驳."""
    proto = pack.protocol
    override = proto.per_pair_overrides.get(pair_key(a, b))
    base = override.default_rounds if override else proto.default_rounds
    if requested is None:
        return base, None
    clamped = max(proto.min_rounds, min(requested, proto.max_rounds))
    notes = []
    if clamped != requested:
        notes.append(
            f"⚠️ 轮数 {requested} 超出本人物包允许的 {proto.min_rounds}-{proto.max_rounds} 轮，已调整为 {clamped} 轮。"
        )
    if clamped < REBUTTAL_MIN_ROUNDS:
        notes.append(
            f"⚠️ 本场只有 {clamped} 轮：依规则末轮为综合，{clamped} 轮只有立论与综合，没有反驳；"
            f"要有反驳，须至少 {REBUTTAL_MIN_ROUNDS} 轮。"
        )
    return clamped, "\n\n".join(notes) or None


@dataclass
class Ammo:
    a_vs_b: list[CrossCritique]
    b_vs_a: list[CrossCritique]

    @property
    def complete(self) -> bool:
        return bool(self.a_vs_b) and bool(self.b_vs_a)


def ammo_against(pack: Pack, speaker: str, opponent: str, case: str = "") -> list[CrossCritique]:
    """The speaker's ammo: the argument layer's objections at the opponent's claims (the debate's
    theme first), and, on a case, his objections at the opponent's answer to it, in the seed's
    cross_critique shape."""
    bank = bank_of(pack)
    c = bank.case(case) if case else None
    on_case = [(o, c.raw(o.id)) for o in c.objections_at(speaker, opponent)] if c is not None else []
    objs = [o for o, _raw in on_case] + bank.objections(speaker, opponent)
    out = [CrossCritique(target_master=opponent, position=o.text, citation=o.source) for o in objs]
    # and his further word on a case objection once it is answered (its press)
    presses = [raw.press for _o, raw in on_case if raw is not None and raw.press is not None]
    return out + [CrossCritique(target_master=opponent, position=p.text, citation=p.source) for p in presses]


def ammo_for(pack: Pack, a: str, b: str) -> Ammo:
    return Ammo(ammo_against(pack, a, b), ammo_against(pack, b, a))


def consensus_reached(pack: Pack, debate: Debate) -> bool:
    """The seed's heuristic: both last summaries show assent and name the other side."""
    if len(debate.summaries) < 2:
        return False
    s1, s2 = debate.summaries[-2], debate.summaries[-1]
    for s, other in ((s1, s2.speaker), (s2, s1.speaker)):
        m = pack.masters.get(other)
        names = [m.name, m.short_name] if m else [other]
        terms = names + [c.position[:4] for c in (m.cross_critique if m else [])]
        if not (any(k in s.text for k in CONSENSUS_MARKERS) and any(t and t in s.text for t in terms)):
            return False
    return True


@dataclass
class MasterDebate:
    """Runs master debates on one pack with one engine (offline or LLM)."""

    pack: Pack
    engine: OfflineEngine | LLMEngine  # speech(), summarize(), observe()
    recorder: Recorder = field(default_factory=lambda: NULL_RECORDER)
    auditor: ModelAuditor | None = None  # the optional model-graded layer

    # ----------------------------------------------------------------- set-up
    def prepare(self, config: DebateConfig, pair: PairChoice | None = None) -> Debate:
        pair = pair or choose_pair(config.topic, self.pack, config.masters or None)
        a, b = self.pack.masters[pair.a], self.pack.masters[pair.b]
        rounds, note = plan_rounds(self.pack, a.slug, b.slug, config.rounds)
        warnings = note.split("\n\n") if note else []
        notice = distress_notice(config.topic)  # before anything else (r20: a student's 活着毫无意义)
        warnings = [notice, *warnings] if notice else warnings
        broken = [x for x in self.pack.report.problems if x.severity == "error"]
        if broken:  # a pack loads around its bad files: say so, since the pair may have changed
            warnings.append(f"⚠️ 人物包有 {len(broken)} 处错误，出错的部分没有载入（首处在 {broken[0].file}）。")
        if not ammo_for(self.pack, a.slug, b.slug).complete:
            warnings.append(COVERAGE_WARNING)
        bank = bank_of(self.pack)
        choice = debate_theme(bank, config.topic, a.slug, b.slug, row_theme(a.slug, b.slug))
        warnings += material_note(
            bank,
            choice,
            {a.slug: a.name, b.slug: b.name},
            topic_matched=choice.how in ("topic", "case"),
            topic=config.topic,
        )
        model = getattr(self.engine, "name", "offline")
        debate = Debate(
            id=new_id(),
            protocol="master",
            topic=config.topic,
            participants=[Participant(label=m.slug, name=m.name, school=m.school, model=model) for m in (a, b)],
            models=[model],
            pack_name=self.pack.name,
            pack_version=self.pack.version,
            planned_rounds=rounds,
            config=config.model_copy(update={"masters": [a.slug, b.slug], "rounds": rounds}),
            warnings=warnings,
            batch_id=config.batch_id,
            source="run",
        )
        debate.config.pack = config.pack
        self.recorder.start(debate)
        return debate

    # ------------------------------------------------------------------- run
    def _on_call(self, debate: Debate) -> Callable[[LLMCall], None]:
        def sink(call: LLMCall) -> None:
            debate.llm_calls.append(call)
            self.recorder.call(debate, call)

        return sink

    def request_for(self, debate: Debate, round_no: int) -> SpeechRequest:
        a_slug, b_slug = debate.participants[0].label, debate.participants[1].label
        speaker_slug, opp_slug = (a_slug, b_slug) if round_no % 2 == 1 else (b_slug, a_slug)
        speaker, opp = self.pack.masters[speaker_slug], self.pack.masters[opp_slug]
        prev = [s for s in debate.summaries if s.round == round_no - 1]
        role = role_for(round_no, debate.planned_rounds)
        summary = prev[-1].text if prev else ""
        # the bank entries this speaker's own earlier plans spoke: no entry is said twice
        spoken = frozenset(
            p.ref
            for s in debate.rounds
            if s.speaker == speaker.slug and s.round < round_no and s.plan
            for p in s.plan.points
            if p.ref and p.kind not in ("restate", "restate_summary", "hold")
        )
        # and the opponent's points they restated: what this speaker has heard of the other side
        restated = frozenset(
            p.target
            for s in debate.rounds
            if s.speaker == speaker.slug and s.round < round_no and s.plan
            for p in s.plan.points
            if p.kind == "restate" and p.target
        )
        plan = plan_speech(
            bank_of(self.pack),
            topic=debate.topic,
            role=role,
            round_no=round_no,
            speaker=speaker.slug,
            opponent=opp.slug,
            opponent_summary=summary,
            row_theme=row_theme(a_slug, b_slug),
            spoken=spoken,
            restated=restated,
        )
        return SpeechRequest(
            topic=debate.topic,
            round=round_no,
            role=role,
            is_last=round_no == debate.planned_rounds,
            speaker=speaker.slug,
            speaker_name=speaker.name,
            opponent=opp.slug,
            opponent_name=opp.name,
            opponent_summary=summary,
            ammo=ammo_against(self.pack, speaker.slug, opp.slug, plan.case),
            style=speaker.style,
            signature_phrases=speaker.signature_phrases,
            voice_notes=speaker.voice_notes,
            sources=speaker.sources,
            plan=plan,
        )

    def _context(self, req: SpeechRequest) -> CheckContext:
        names = []
        for m in self.pack.masters.values():
            names += [m.name, m.short_name]
        return CheckContext(
            speaker=self.pack.masters[req.speaker],
            opponent=self.pack.masters[req.opponent],
            role=req.role,
            ammo=req.ammo,
            opponent_summary=req.opponent_summary,
            pack_source_ids=self.pack.all_source_ids(),
            names=names,
            plan=req.plan,  # the plan the speech is written from (the engages rule reads it)
            topic=req.topic,
        )

    def speak(self, debate: Debate, round_no: int, on_token: TokenCallback | None = None) -> Speech:
        """Produce one checked speech; raises GatewayError when the engine fails for good."""
        req = self.request_for(debate, round_no)
        ctx = self._context(req)
        retries, tokens_in, tokens_out, cost, latency = 0, 0, 0, 0.0, 0.0
        max_retries = debate.config.check_retries
        while True:
            gen: Generation = self.engine.speech(req, on_token=on_token)
            tokens_in += gen.prompt_tokens
            tokens_out += gen.completion_tokens
            cost += gen.cost
            latency += gen.latency_ms
            text = gen.text.strip()
            findings = run_checks(text, ctx) + self._audit(text, req)
            failed = [f for f in findings if not f.passed]
            if not failed or retries >= max_retries:
                break
            retries += 1
            req = req.model_copy(update={"feedback": [feedback_line(f) for f in failed]})
            if on_token is not None:
                on_token(
                    "\n\n（未通过检查，重写本轮："
                    + "、".join(dict.fromkeys(rule_label(f.rule) for f in failed))
                    + "）\n\n"
                )
        speaker = self.pack.masters[req.speaker]
        return Speech(
            round=round_no,
            speaker=req.speaker,
            speaker_name=speaker.name,
            role=req.role,
            text=text,
            citations=find_citations(text, ctx.pack_source_ids),
            findings=findings,
            ammo_used=ammo_used(text, req.ammo),
            retries=retries,
            engine=gen.model,
            prompt_tokens=tokens_in,
            completion_tokens=tokens_out,
            cost=cost,
            latency_ms=latency,
            status="flagged" if failed else "ok",
            plan=req.plan,
        )

    def _audit(self, text: str, req: SpeechRequest) -> list[Finding]:
        if self.auditor is None:
            return []
        return self.auditor.audit(
            text,
            speaker=self.pack.masters[req.speaker],
            opponent=self.pack.masters[req.opponent],
            role=req.role,
            opponent_summary=req.opponent_summary,
            ammo=[a.position for a in req.ammo],
            round=req.round,
        )

    def summarize(self, debate: Debate, speech: Speech) -> RoundSummary:
        gen = self.engine.summarize(
            SummaryRequest(
                topic=debate.topic,
                round=speech.round,
                role=speech.role,
                speaker=speech.speaker,
                speaker_name=speech.speaker_name,
                text=speech.text,
                citations=speech.citations,
                limit=SUMMARY_LIMIT,
                plan=speech.plan if getattr(self.engine, "name", "") == "offline" else None,
            )
        )
        text = gen.text.strip()
        if len(text) > SUMMARY_LIMIT:
            text = text[: SUMMARY_LIMIT - 1] + "…"
        return RoundSummary(round=speech.round, speaker=speech.speaker, text=text)

    def _fail(self, debate: Debate, round_no: int, cause: str, what: str = "") -> Debate:
        """Record a failed round; the stop reason is Chinese, the raw cause stays in the call log."""
        speaker = self.request_for(debate, round_no)
        shown = (what + "：" if what else "") + cause_in("zh", cause)
        failed = Speech(
            round=round_no,
            speaker=speaker.speaker,
            speaker_name=speaker.speaker_name,
            role=speaker.role,
            status="failed",
            engine=getattr(self.engine, "name", ""),
            warnings=[shown],
        )
        debate.rounds.append(failed)
        self.recorder.speech(debate, failed)
        debate.status = "failed"
        debate.stop_reason = f"第 {round_no} 轮失败：{shown}"
        debate.updated_at = utcnow()
        self.recorder.update(debate)
        return debate

    def next_round(self, debate: Debate) -> int:
        done = [s.round for s in debate.rounds if s.status != "failed"]
        return (max(done) + 1) if done else 1

    def run(
        self,
        debate: Debate,
        *,
        on_token: TokenCallback | None = None,
        on_speech: Callable[[Speech], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
        only_one: bool = False,
    ) -> Debate:
        """Run (or resume) from the first round not yet done.  ``only_one`` reruns one round."""
        if hasattr(self.engine, "on_call"):
            self.engine.on_call = self._on_call(debate)
        if self.auditor is not None:
            self.auditor.gateway.on_call = self._on_call(debate)
        debate.rounds = [s for s in debate.rounds if s.status != "failed"]
        # A process killed between a speech and its summary: the next isolated round needs
        # that summary, so it is written first (the speech itself is not redone).
        have = {s.round for s in debate.summaries}
        for speech in [s for s in debate.rounds if s.round not in have]:
            try:
                summary = self.summarize(debate, speech)
            except GatewayError as exc:
                return self._fail(debate, speech.round + 1, exc.cause, what="摘要")
            debate.summaries = sorted(debate.summaries + [summary], key=lambda x: x.round)
            self.recorder.summary(debate, summary)
        debate.status = "running"
        debate.stop_reason = ""
        self.recorder.update(debate)
        start = self.next_round(debate)
        for round_no in range(start, debate.planned_rounds + 1):
            if should_stop is not None and should_stop():
                debate.status, debate.stop_reason = "stopped", f"用户在第 {round_no} 轮开始前停止"
                debate.updated_at = utcnow()
                self.recorder.update(debate)
                return debate
            try:
                speech = self.speak(debate, round_no, on_token=on_token)
            except GatewayError as exc:
                return self._fail(debate, round_no, exc.cause)
            debate.rounds.append(speech)
            self.recorder.speech(debate, speech)
            try:
                summary = self.summarize(debate, speech)
            except GatewayError as exc:
                return self._fail(debate, round_no, exc.cause, what="摘要")
            debate.summaries = [s for s in debate.summaries if s.round != round_no] + [summary]
            self.recorder.summary(debate, summary)
            if on_speech is not None:
                on_speech(speech)
            if self.pack.protocol.stop_on_consensus and consensus_reached(self.pack, debate):
                debate.stop_reason = f"第 {round_no} 轮后双方已相互认可，提前收束"
                break
            if only_one and round_no < debate.planned_rounds:
                debate.status = "interrupted"
                debate.stop_reason = f"已重跑第 {round_no} 轮；续跑即可完成"
                debate.updated_at = utcnow()
                self.recorder.update(debate)
                return debate
        return self.finish(debate)

    def finish(self, debate: Debate) -> Debate:
        a, b = (self.pack.masters[p.label] for p in debate.participants[:2])
        req = ObservationRequest(
            topic=debate.topic,
            a=a.slug,
            a_name=a.name,
            a_school=a.school,
            b=b.slug,
            b_name=b.name,
            b_school=b.school,
            summaries=debate.summaries,
        )
        try:
            debate.observation = self.engine.observe(req)
        except GatewayError as exc:
            debate.status, debate.stop_reason = "failed", f"中立观察失败：{cause_in('zh', exc.cause)}"
            debate.updated_at = utcnow()
            self.recorder.update(debate)
            return debate
        debate.status = "completed"
        debate.stop_reason = debate.stop_reason or f"已完成预定的 {debate.planned_rounds} 轮"
        debate.updated_at = utcnow()
        self.recorder.update(debate)
        return debate


# ------------------------------------------------------------------ engines and start


def make_engine(pack: Pack, config: DebateConfig, *, probe: bool = True, gateway_options: dict | None = None):
    """The embedded offline engine when no model is configured, else an LLM engine."""
    model = resolve_model(config.model)
    if model is None:
        from debate_core.engines.offline import OfflineEngine

        return OfflineEngine(pack)
    from debate_core.engines.gateway import make_gateway
    from debate_core.engines.llm import LLMEngine

    return LLMEngine(
        make_gateway(
            model,
            api_base=resolve_api_base(config.api_base),
            temperature=config.temperature,
            timeout=config.timeout,
            max_retries=config.max_retries,
            probe=probe,
            options=gateway_options,
        )
    )


def make_auditor(config: DebateConfig, *, probe: bool = True, gateway_options: dict | None = None):
    """The optional model-graded check layer (``config.check_model``), or None when it is off."""
    check_model = (config.check_model or "").strip()
    if not check_model:
        return None
    from debate_core.engines.check_model import ModelAuditor
    from debate_core.engines.gateway import make_gateway

    return ModelAuditor(
        make_gateway(
            check_model,
            api_base=resolve_api_base(config.api_base),
            temperature=0.0,
            timeout=config.timeout,
            max_retries=config.max_retries,
            probe=probe,
            options=gateway_options,
        )
    )


def master_runner(
    config: DebateConfig, recorder: Recorder = NULL_RECORDER, *, probe: bool = True, gateway_options: dict | None = None
) -> MasterDebate:
    """A runner on the config's pack (cached) with its engine and optional auditor."""
    pack = get_pack(config.pack)
    if pack.report.masters < 2:
        raise PackError(f"pack {pack.path} has fewer than two loadable masters; run `pack check` on it")
    engine = make_engine(pack, config, probe=probe, gateway_options=gateway_options)
    return MasterDebate(
        pack=pack,
        engine=engine,
        recorder=recorder,
        auditor=make_auditor(config, probe=probe, gateway_options=gateway_options),
    )


def check_rounds(config: DebateConfig, pack: Pack) -> None:
    """Only a round count that is no count is refused: the seed takes min(user value, max_rounds), so
    a value outside the pack's range is clamped by :func:`plan_rounds`, with a notice at the top."""
    if config.rounds is not None and not 1 <= config.rounds <= MAX_ASKED_ROUNDS:
        raise InputError(
            f"rounds {config.rounds} out of range: give 1-{MAX_ASKED_ROUNDS} (this pack runs "
            f"{pack.protocol.min_rounds}-{pack.protocol.max_rounds}; other values are clamped to that)"
        )


def check(config: DebateConfig) -> None:
    """Master debates are Chinese: the packs are Chinese, so an English debate is refused."""
    check_lang("master", ("zh",), config)


def start(
    config: DebateConfig,
    recorder: Recorder = NULL_RECORDER,
    *,
    probe: bool = True,
    gateway_options: dict[str, Any] | None = None,
) -> tuple[MasterDebate, Debate]:
    """Choose the pair, create the record (status running) and return (runner, debate)."""
    runner = master_runner(config, recorder, probe=probe, gateway_options=gateway_options)
    check_rounds(config, runner.pack)
    try:
        pair = choose_pair(config.topic, runner.pack, config.masters or None)
    except PairError as exc:
        raise InputError(str(exc)) from None
    return runner, runner.prepare(config, pair)


def runner_for(
    debate: Debate,
    recorder: Recorder = NULL_RECORDER,
    *,
    gateway_options: dict | None = None,
    pack_path: str | None = None,
) -> MasterDebate:
    """A runner that continues a stored master debate on its pack (``pack_path`` overrides the
    config's, e.g. the folder the archive recorded, or one the user passes)."""
    if pack_path:
        debate.config = debate.config.model_copy(update={"pack": pack_path})
    stored = debate.config.pack
    if stored and not Path(stored).expanduser().is_dir():
        raise PackError(f"the pack of debate {debate.id} ({stored}) is not found; pass --pack DIR")
    runner = master_runner(debate.config, recorder, probe=False, gateway_options=gateway_options)
    missing = [p.label for p in debate.participants if p.label not in runner.pack.masters]
    if missing:
        raise PackError(f"the pack at {runner.pack.path} lacks master(s) {', '.join(missing)} of debate {debate.id}")
    return runner


def rounds_done(debate: Debate) -> int:
    """Rounds played: one speech a round, done when it did not fail."""
    return len({s.round for s in debate.rounds if s.status != "failed"})


def turn(debate: Debate, round_no: int) -> str:
    """The speech of round ``round_no`` by its seed heading: R3｜慧能大师 回应."""
    p = debate.participants[(round_no - 1) % len(debate.participants)]
    return f"R{round_no}｜{p.name or p.label} {role_for(round_no, debate.planned_rounds)}"


SPEC = ProtocolSpec(
    name="master",
    title="大师辩论",
    summary="两位大师按人物包轮流立论、反驳、回应、综合，以中立观察收束",
    roles=(
        Role("speakers", "模型（两位大师共用；留空则用内置离线引擎）", "model", required=False),
        Role("checker", "检查模型（可选：逐条规则的模型审查）", "check_model", required=False),
    ),
    min_rounds=2,
    max_rounds=6,
    default_rounds=None,
    asks=(ASK_PACK, ASK_MASTERS),
    judged=False,
    offline=True,
    start=start,
    runner_for=runner_for,
    render=render_master,
    check=check,
    languages=("zh",),
    app_title="Master debate",
    app_summary="Two Buddhist masters from a persona pack argue in isolated rounds, with their own ammunition "
    "and sources; every speech is checked; it ends with a neutral observation, never a winner.",
    app_fields={
        "speakers": (
            "Model for both masters and the moderator",
            "A litellm model string; empty or 'offline' is the embedded offline engine.",
        ),
        "checker": (
            "Check model (optional)",
            "A model that also audits every speech against the debate's rules and answers per rule; "
            "its findings are shown beside the deterministic checks (模型审核). Empty: off, the "
            "deterministic checks alone.",
        ),
    },
    app_in_chinese=True,
    outcome_heading=OBSERVATION_HEADING,
    rounds_done=rounds_done,
    turn=turn,
)
