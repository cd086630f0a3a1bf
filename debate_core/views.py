"""View models for the Streamlit workbench: everything a page shows, computed here.

Pages only lay these out.  Where a view differs by protocol (the master debate's
neutral observation against a judged verdict, who speaks in the round being
written), it is decided in this module, once, through :data:`PROTOCOLS` and
:func:`outcome_view`; a new protocol plugs in by adding a :class:`ProtocolSpec`.

Nothing here imports streamlit, and plotly / litellm are imported only inside the
functions that need them, so the home page stays light.
"""

from __future__ import annotations

import io
import json
import os
import re
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from debate_core.models import Debate, DebateConfig, Master, Pack, Speech
from debate_core.render.master import (MARK_ZH, MARK_ZH_PLAIN, MODEL_LAYER_ZH, OBSERVATION_HEADING, SPEECH_STATUS_ZH, citation_marks,
                     finding_lines, mark_text, rule_label, speech_clean, speech_verdict, status_zh)
from debate_core.io.exporters import export_debate
from debate_core.io.importers import import_paths


def is_chinese(debate_or_protocol: Any) -> bool:
    """Whether a debate is shown in Chinese throughout: master debates are (their seed is Chinese)."""
    protocol = getattr(debate_or_protocol, "protocol", debate_or_protocol)
    return protocol == "master"

# ---------------------------------------------------------------- protocols


@dataclass(frozen=True)
class Role:
    key: str  # the DebateConfig slot: "model", "models[i]", "judge_model"
    label: str
    help: str = ""


@dataclass(frozen=True)
class ProtocolSpec:
    key: str
    title: str
    blurb: str
    needs_model: bool  # no offline engine: a model must be configured
    uses_pack: bool  # master personas from a pack
    uses_stances: bool
    min_rounds: int
    max_rounds: int
    default_rounds: int
    outcome: str  # "observation" or "verdict"
    roles: tuple[Role, ...] = ()
    fixed_sides: tuple[str, ...] = ()  # trial: pro / con


def _judged_limits(protocol: str) -> tuple[int, int, int]:
    """(min, max, default) rounds of a judged protocol, from its own module when present."""
    try:
        if protocol == "topic":
            from debate_core.protocols import topic as mod
        else:
            from debate_core.protocols import trial as mod
        return 1, int(mod.MAX_ROUNDS), int(mod.DEFAULT_ROUNDS)
    except Exception:  # noqa: BLE001 - the protocol is not in this build yet
        return 1, 8, 3


def protocol_specs() -> dict[str, ProtocolSpec]:
    """The protocols the app offers, in order."""
    tmin, tmax, tdef = _judged_limits("topic")
    rmin, rmax, rdef = _judged_limits("trial")
    return {
        "master": ProtocolSpec(
            key="master", title="Master debate",
            blurb="Two Buddhist masters from a persona pack argue in isolated rounds, with their own ammunition "
                  "and sources; every speech is checked; it ends with a neutral observation, never a winner.",
            needs_model=False, uses_pack=True, uses_stances=False, min_rounds=2, max_rounds=6, default_rounds=4,
            outcome="observation",
            roles=(Role("model", "Model for both masters and the moderator",
                        "Empty or 'offline' runs the embedded offline engine: no key, no network."),)),
        "topic": ProtocolSpec(
            key="topic", title="Topic debate",
            blurb="2-4 anonymous debaters (辩手甲/乙/丙/丁), one stance and ideally one model each, argue in "
                  "parallel rounds; an independent judge names a winner with reasons and scores.",
            needs_model=True, uses_pack=False, uses_stances=True, min_rounds=tmin, max_rounds=tmax,
            default_rounds=tdef, outcome="verdict",
            roles=(Role("judge_model", "Judge model", "Defaults to the first debater's model."),)),
        "trial": ProtocolSpec(
            key="trial", title="Trial",
            blurb="Pro and con argue over the full transcript, round by round; one judge call gives per-round "
                  "commentary, the winner (pro / con / draw) and the reasons.",
            needs_model=True, uses_pack=False, uses_stances=False, min_rounds=rmin, max_rounds=rmax,
            default_rounds=rdef, outcome="verdict", fixed_sides=("pro", "con"),
            roles=(Role("models[0]", "Pro model"), Role("models[1]", "Con model", "Defaults to the pro model."),
                   Role("judge_model", "Judge model", "Defaults to the pro model."))),
    }


def spec_for(protocol: str) -> ProtocolSpec:
    specs = protocol_specs()
    if protocol not in specs:
        raise ValueError(f"unknown protocol {protocol!r} (known: {', '.join(specs)})")
    return specs[protocol]


# ------------------------------------------------------------- engine / model

OFFLINE_LABEL = "the embedded default offline engine (no key, no network)"


def configured_model() -> Optional[str]:
    from debate_core.settings import resolve_model

    return resolve_model(None)


def engine_summary() -> dict[str, str]:
    """What the workbench runs on by default (``DEBATE_MODEL`` / ``DEBATE_API_BASE``)."""
    from debate_core.settings import resolve_api_base

    model = configured_model()
    base = resolve_api_base(None) or ""
    if model is None:
        return {"model": "offline", "label": OFFLINE_LABEL, "api_base": base,
                "note": "Master debates run offline; topic debates and trials need a model: set DEBATE_MODEL "
                        "(and its provider key) or DEBATE_API_BASE for an OpenAI-compatible server."}
    return {"model": model, "label": f"{model} (from DEBATE_MODEL)", "api_base": base,
            "note": "Master debates may still choose the offline engine in Setup."}


def model_problem(model: Optional[str], api_base: Optional[str] = None) -> Optional[str]:
    """Why ``model`` cannot run here (e.g. the provider's key is missing), or None.

    Never contacts the network (no reachability probe); the offline engine needs nothing.
    """
    from debate_core.settings import resolve_api_base, resolve_model
    from debate_core.engines.gateway import ConfigError, check_model_config

    m = resolve_model(model) if model is not None else None
    if m is None:
        return None
    try:
        check_model_config(m, resolve_api_base(api_base), probe=False)
    except ConfigError as exc:
        return str(exc).replace("or pass --api-base for", "or give an API base for")
    return None


def needs_model_message(spec: ProtocolSpec) -> str:
    return (f"A {spec.title.lower()} needs a model: there is no offline engine for it. Enter a litellm model "
            "string such as openai/gpt-4o-mini (with OPENAI_API_KEY exported before starting the app), or an "
            "OpenAI-compatible server URL as API base (vLLM, Ollama, a litellm proxy), or start the app with "
            "DEBATE_MODEL set.")


# ------------------------------------------------------------------- packs


def load_pack(folder: Optional[str] = None) -> Pack:
    """The default pack or a folder (cached by :func:`debate_core.content.packs.get_pack`)."""
    from debate_core.content.packs import get_pack

    folder = (folder or "").strip() or None
    return get_pack(folder)


def pack_summary(pack: Pack) -> str:
    r = pack.report
    return (f"pack **{pack.name}** {pack.version} — {r.masters} masters, {r.critiques} critiques, "
            f"{r.pairs_both_ways} pairs covered both ways, {r.one_way} one-way entries"
            + (f", {r.errors} errors" if r.errors else ""))


def master_label(m: Master) -> str:
    """A master as the pickers show it: name, school, tradition and era."""
    parts = [m.name, m.school or "—", m.tradition or "—", m.era or "—"]
    return " · ".join(parts)


def master_options(pack: Pack) -> list[str]:
    return list(pack.masters)


def suggest_pair(topic: str, pack: Pack):
    """The pair the topic selects (a :class:`~debate_core.pairing.PairChoice`)."""
    from debate_core.content.pairing import choose_pair

    return choose_pair(topic.strip(), pack)


def pair_reason(choice, pack: Pack) -> dict[str, Any]:
    hits = {pack.masters[s].name if s in pack.masters else s: h for s, h in choice.hits.items()}
    rule_text = {"user": "named by the user", "table": "the seed's topic-to-pair table",
                 "keywords": "keyword scoring over search_scope.keywords", "default": "the default pair"}
    return {"rule": choice.rule, "rule_text": rule_text.get(choice.rule, choice.rule), "reason": choice.reason,
            "row": choice.row, "hits": hits}


@dataclass
class AmmoView:
    a: str
    b: str
    a_name: str
    b_name: str
    a_to_b: list[dict[str, str]]
    b_to_a: list[dict[str, str]]
    warning: Optional[str]  # the seed's coverage warning when a direction is empty
    rounds: int  # the pack's rounds for this pair
    empty: list[str] = field(default_factory=list)


def ammo_view(pack: Pack, a: str, b: str) -> AmmoView:
    from debate_core.protocols.master import COVERAGE_WARNING, ammo_for, plan_rounds

    ammo = ammo_for(pack, a, b)
    ma, mb = pack.masters[a], pack.masters[b]

    def rows(items, speaker: Master) -> list[dict[str, str]]:
        return [{"position": c.position, "citation": c.citation,
                 "source": speaker.source_title(c.citation) or ""} for c in items]

    empty = []
    if not ammo.a_vs_b:
        empty.append(f"{ma.name} → {mb.name}")
    if not ammo.b_vs_a:
        empty.append(f"{mb.name} → {ma.name}")
    rounds, _ = plan_rounds(pack, a, b, None)
    return AmmoView(a=a, b=b, a_name=ma.name, b_name=mb.name, a_to_b=rows(ammo.a_vs_b, ma),
                    b_to_a=rows(ammo.b_vs_a, mb), warning=COVERAGE_WARNING if empty else None,
                    rounds=rounds, empty=empty)


def rounds_range(spec: ProtocolSpec, pack: Optional[Pack] = None, pair: Optional[tuple[str, str]] = None
                 ) -> tuple[int, int, int]:
    """(min, max, default) rounds for the protocol (for masters: the pack's, per pair)."""
    if spec.key == "master" and pack is not None:
        from debate_core.protocols.master import plan_rounds

        proto = pack.protocol
        default = plan_rounds(pack, pair[0], pair[1], None)[0] if pair else proto.default_rounds
        lo, hi = proto.min_rounds, max(proto.min_rounds, proto.max_rounds)
        return lo, hi, max(lo, min(default, hi))
    return spec.min_rounds, spec.max_rounds, spec.default_rounds


def stance_labels(stances: list[str]) -> dict[str, str]:
    """Debater label → stance as the topic-debate seed assigns them (stance 1 → 辩手乙, 2 → 辩手甲, …)."""
    from debate_core.protocols.topic import label_stances

    return label_stances(stances)


def split_lines(text: str, sep: str = "\n") -> list[str]:
    parts = re.split(r"[\n|]" if sep == "\n" else re.escape(sep), text or "")
    return [p.strip() for p in parts if p.strip()]


def build_config(protocol: str, topic: str, *, masters: Optional[list[str]] = None, rounds: Optional[int] = None,
                 model: Optional[str] = None, models: Optional[list[str]] = None,
                 judge_model: Optional[str] = None, check_model: Optional[str] = None,
                 api_base: Optional[str] = None, pack: Optional[str] = None,
                 stances: Optional[list[str]] = None, workspace: Optional[str] = None) -> DebateConfig:
    """The :class:`DebateConfig` for what the Setup form holds (validated by the protocol on start).

    ``check_model`` (master debates only; empty = off) is the optional model-graded audit of every speech.
    """
    clean = lambda s: (s or "").strip() or None  # noqa: E731
    return DebateConfig(
        protocol=protocol, topic=topic, masters=[m for m in (masters or []) if m], rounds=rounds,
        model=clean(model), models=[m.strip() for m in (models or []) if m and m.strip()],
        judge_model=clean(judge_model), check_model=clean(check_model) if protocol == "master" else None,
        api_base=clean(api_base), pack=clean(pack) if protocol == "master" else None,
        stances=[s for s in (stances or []) if s], workspace=clean(workspace))


# ------------------------------------------------------------------ speeches


@dataclass
class CitationView:
    id: str
    verified: bool  # the id is one of the speaker's own sources
    title: str = ""
    status: str = ""  # quote verification: verified / id_only / unverified ("" when not checked)
    quote: str = ""
    label: str = ""  # what the page shows beside the id


@dataclass
class SpeechView:
    round: int
    speaker: str
    speaker_name: str
    role: str
    status: str
    text: str
    ammo_used: list[str]
    citations: list[CitationView]
    findings: list[dict[str, Any]]
    retries: int
    prompt_tokens: int
    completion_tokens: int
    cost: float
    latency_ms: float
    engine: str
    warnings: list[str]
    truncated: bool
    tool_calls: list[str]
    chinese: bool = False  # a master debate: every label is Chinese
    clean: bool = False  # every finding passed: the only case shown with ✓
    verdict: str = ""  # ✓ 检查通过 / ✗ 复述 ? 文面 …
    check_lines: list[str] = field(default_factory=list)  # the same lines as the Markdown export

    @property
    def title(self) -> str:
        if self.chinese:  # the seed's heading, exactly: R1｜慧能大师 立论
            return f"R{self.round}｜{self.speaker_name or self.speaker} {self.role}"
        return f"R{self.round}｜{self.speaker_name or self.speaker} · {self.role}"

    @property
    def failed_rules(self) -> list[str]:
        return [f["rule"] for f in self.findings if not f["passed"]]

    @property
    def rule_findings(self) -> list[dict[str, Any]]:
        return [f for f in self.findings if f.get("layer", "rules") != "model"]

    @property
    def model_findings(self) -> list[dict[str, Any]]:
        return [f for f in self.findings if f.get("layer") == "model"]


def safe_markdown(text: str) -> str:
    """Speech text for ``st.markdown`` (raw HTML is off there): ``<`` is written as an
    entity as well, so a tag in a speech can only ever show as text."""
    return (text or "").replace("<", "&lt;")


def speaker_sources(debate: Debate, archive: Any = None) -> dict[str, dict[str, str]]:
    """{speaker label: {source id: title}} for verifying citations.

    Master debates: from the pack (or the archive's pack snapshot of the debate when
    the pack is gone).  Judged protocols have no per-speaker source list: empty.
    """
    if debate.protocol != "master":
        return {}
    labels = [p.label for p in debate.participants]
    try:
        pack = load_pack(debate.config.pack)
        if all(label in pack.masters for label in labels):
            return {label: {s.id: s.title for s in pack.masters[label].sources} for label in labels}
    except Exception:  # noqa: BLE001 - fall back on the snapshot
        pass
    if archive is not None:
        try:
            df = archive.query("""SELECT s.slug, s.source_id, s.title FROM pack_sources s
                                  JOIN debates d ON d.pack_hash = s.pack_hash WHERE d.id = ?""", [debate.id])
            out: dict[str, dict[str, str]] = {label: {} for label in labels}
            for slug, sid, title in df.itertuples(index=False):
                out.setdefault(slug, {})[sid] = title or ""
            return out
        except Exception:  # noqa: BLE001
            return {}
    return {}


def citation_views(s: Speech, own: dict[str, str], *, chinese: bool) -> list[CitationView]:
    """A speech's citations: the quote-verification marks when the checks made them, else its ids
    checked against the speaker's own sources.  ✓ only when the whole speech passed its checks."""
    clean = speech_clean(s.findings)
    marks = citation_marks(s.findings)
    if marks:
        return [CitationView(id=m.id, verified=m.id in own, title=m.title or own.get(m.id, ""), status=m.status,
                             quote=m.quote, label=(MARK_ZH if clean else MARK_ZH_PLAIN).get(m.status, m.status))
                for m in marks]
    out = []
    for c in s.citations:
        if chinese:
            label = "仅经号" if c in own else "✗不在本人经典之列"
        else:
            label = ("✅ verified" if clean or not s.findings else "verified") if c in own else "❔ unknown"
        out.append(CitationView(id=c, verified=c in own, title=own.get(c, ""), label=label))
    return out


def speech_view(s: Speech, sources: dict[str, dict[str, str]], *, chinese: bool = False) -> SpeechView:
    own = sources.get(s.speaker, {})
    tools = [f"{t.name}({', '.join(f'{k}={v}' for k, v in t.arguments.items())})" + (" ✗" if t.error else "")
             for t in s.tool_calls]
    return SpeechView(
        round=s.round, speaker=s.speaker, speaker_name=s.speaker_name or s.speaker, role=s.role, status=s.status,
        text=s.text, ammo_used=list(s.ammo_used), citations=citation_views(s, own, chinese=chinese),
        findings=[{"rule": f.rule, "label": rule_label(f.rule) if chinese else f.rule, "passed": f.passed,
                   "undecided": f.undecided, "layer": f.layer, "message": f.message} for f in s.findings],
        retries=s.retries, prompt_tokens=s.prompt_tokens, completion_tokens=s.completion_tokens, cost=s.cost,
        latency_ms=s.latency_ms, engine=s.engine, warnings=list(s.warnings), truncated=s.truncated,
        tool_calls=tools, chinese=chinese, clean=speech_clean(s.findings), verdict=speech_verdict(s.findings),
        check_lines=finding_lines(s.findings) if chinese else [])


# ---------------------------------------------------------------------- live


@dataclass
class LiveView:
    debate: Debate
    speeches: list[SpeechView]
    running_here: bool  # a job of this process is running it
    stop_requested: bool
    live_text: str  # tokens of the round being written
    next_turn: str  # who speaks in the round being written
    rounds_done: int
    progress: float
    progress_text: str
    can_stop: bool
    can_retry: bool
    can_resume: bool
    failed_round: Optional[int]
    job_error: str
    message: str  # status line for people

    @property
    def finished(self) -> bool:
        return self.debate.status in ("completed", "failed", "stopped", "interrupted") and not self.running_here


def rounds_done(debate: Debate) -> int:
    """Rounds fully played, by each protocol's own rule."""
    ok = [s for s in debate.rounds if s.status != "failed"]
    if debate.protocol == "master":
        return len({s.round for s in ok})
    if debate.protocol == "trial":
        n = 0
        while {s.speaker for s in ok if s.round == n + 1} >= {"pro", "con"}:
            n += 1
        return n
    # topic: a round is recorded whole (a debater whose call failed still has its entry)
    labels = {p.label for p in debate.participants}
    return len([r for r in {s.round for s in debate.rounds}
                if {s.speaker for s in debate.rounds if s.round == r} >= labels])


def next_turn(debate: Debate) -> str:
    """Who is speaking in the round being written — the one place that knows each protocol's order."""
    r = rounds_done(debate) + 1
    if r > debate.planned_rounds:
        return "the verdict" if debate.protocol != "master" else OBSERVATION_HEADING
    if debate.protocol == "master" and len(debate.participants) >= 2:
        from debate_core.protocols.master import role_for

        p = debate.participants[(r - 1) % 2]
        return f"R{r}｜{p.name or p.label} {role_for(r, debate.planned_rounds)}"
    if debate.protocol == "trial":
        done = {s.speaker for s in debate.rounds if s.round == r and s.status != "failed"}
        side = "con" if "pro" in done else "pro"
        return f"round {r}: {'正方 (pro)' if side == 'pro' else '反方 (con)'}"
    names = "、".join(p.label for p in debate.participants)
    return f"round {r}: {names} (in parallel)"


def live_view(archive: Any, manager: Any, debate_id: str) -> LiveView:
    debate = archive.get_debate(debate_id)
    job = manager.job(debate_id) if manager is not None else None
    here = job is not None and job.alive
    if not here and debate.status == "running":
        archive.mark_interrupted()  # a debate whose writer is gone
        debate = archive.get_debate(debate_id)
    sources = speaker_sources(debate, archive)
    zh = is_chinese(debate)
    speeches = [speech_view(s, sources, chinese=zh) for s in debate.rounds]
    done = rounds_done(debate)
    planned = max(1, debate.planned_rounds)
    failed = [s.round for s in debate.rounds if s.status == "failed"]
    status = debate.status
    if zh:
        msg = _live_message_zh(debate, here, bool(here and job.stop_requested), done,
                               job.error if job else "")
    elif here and job.stop_requested:
        msg = ("Stopping: a reply being streamed is abandoned (a topic round finishes first), "
               "then the debate stops (what is done is kept).")
    elif here or status == "running":
        msg = f"Running — {next_turn(debate)}"
    elif status == "completed":
        msg = f"Completed: {debate.stop_reason or 'all rounds done'}."
    elif status == "failed":
        msg = (f"Failed: {debate.stop_reason or (job.error if job else '') or 'a round failed'}. "
               "Retry the round, or fix the model configuration first.")
    elif status == "stopped":
        msg = f"Stopped: {debate.stop_reason}. Resume continues from round {done + 1}."
    else:
        msg = f"Interrupted: {debate.stop_reason}. Resume continues from round {done + 1}."
    progress_text = (f"已完成 {done} / {debate.planned_rounds} 轮" if zh
                     else f"{done} of {debate.planned_rounds} rounds")
    return LiveView(
        debate=debate, speeches=speeches, running_here=here, stop_requested=bool(here and job.stop_requested),
        live_text=job.live() if here else "", next_turn=next_turn(debate), rounds_done=done,
        progress=min(1.0, done / planned), progress_text=progress_text,
        can_stop=here and not job.stop_requested, can_retry=not here and status == "failed",
        can_resume=not here and status in ("interrupted", "stopped", "failed"),
        failed_round=min(failed) if failed else (done + 1 if status == "failed" else None),
        job_error=job.error if job else "", message=msg)


def _live_message_zh(debate: Debate, here: bool, stopping: bool, done: int, job_error: str) -> str:
    """The Live page's status line for a Chinese debate; stop reasons are shown as the protocol gave them."""
    status, reason = debate.status, debate.stop_reason
    if stopping:
        return "正在停止：正在生成的回复会被放弃，已完成的轮次保留。"
    if here or status == "running":
        return f"进行中：{next_turn(debate)}"
    if status == "completed":
        return f"已完成：{reason or '各轮均已完成'}。"
    if status == "failed":
        return f"失败：{reason or job_error or '有一轮未能完成'}。可重跑该轮，或先检查模型配置。"
    return f"{status_zh(status)}：{reason}。续跑将从第 {done + 1} 轮开始。"


# ------------------------------------------------------------------- outcome


CHECK_RULES = ("length", "citation", "ammo", "restatement", "no_verdict", "no_dialogue", "hygiene")
MARKS_COLUMN_ZH = "引文核对"


def _cell(f, clean: bool) -> str:
    """One finding in the checks table: ✓ only when the whole speech passed; ✗ failed; ? undecided."""
    if f is None:
        return "—"
    if f.undecided:
        return f"? {f.message}".strip()
    if not f.passed:
        return f"✗ {f.message}".strip()
    return "✓" if clean else "通过"


def checks_table(debate: Debate):
    """Per round: speaker, role, status, retries, the speech's overall result and each check's result.

    Deterministic rules have a column each; the optional model audit (findings of layer
    ``model``) has its own column beside them.  A master debate's table is in Chinese.
    """
    import pandas as pd

    zh = is_chinese(debate)
    rules = [r for r in CHECK_RULES if zh or r != "hygiene"]
    for s in debate.rounds:
        for f in s.findings:
            if f.layer != "model" and f.rule not in rules:
                rules.append(f.rule)
    has_model = any(f.layer == "model" for s in debate.rounds for f in s.findings)
    has_marks = any(citation_marks(s.findings) for s in debate.rounds)
    name = rule_label if zh else (lambda r: r)
    head = ["轮次", "发言者", "角色", "状态", "重试", "结果"] if zh else \
        ["round", "speaker", "role", "status", "retries", "result"]
    rows = []
    for s in debate.rounds:
        clean = speech_clean(s.findings)
        row = dict(zip(head, [s.round, s.speaker_name or s.speaker, s.role,
                              SPEECH_STATUS_ZH.get(s.status, s.status) if zh else s.status, s.retries,
                              speech_verdict(s.findings) if zh else _verdict_en(s.findings)]))
        by = {f.rule: f for f in s.findings if f.layer != "model"}
        for r in rules:
            row[name(r)] = _cell(by.get(r), clean)
        if has_marks:
            row[MARKS_COLUMN_ZH if zh else "quotes"] = "；".join(
                mark_text(m, clean=clean) for m in citation_marks(s.findings)) or "—"
        if has_model:
            model = [f for f in s.findings if f.layer == "model"]
            bad = [f for f in model if not f.passed or f.undecided]
            if not model:
                text = "—"
            elif not bad:
                text = "✓" if clean else "通过"
            else:
                text = "；".join(("? " if f.undecided else "✗ ") + rule_label(f.rule)
                                 + (f"（{f.message}）" if f.message else "") for f in bad)
            row[MODEL_LAYER_ZH if zh else "model audit"] = text
        rows.append(row)
    columns = head + [name(r) for r in rules]
    columns += [MARKS_COLUMN_ZH if zh else "quotes"] if has_marks else []
    columns += [MODEL_LAYER_ZH if zh else "model audit"] if has_model else []
    return pd.DataFrame(rows, columns=columns)


def _verdict_en(findings) -> str:
    findings = list(findings)
    if not findings:
        return "—"
    if speech_clean(findings):
        return "✓"
    bad = [("? " if f.undecided else "✗ ") + f.rule for f in findings if not f.passed or f.undecided]
    return " ".join(bad)


@dataclass
class OutcomeView:
    kind: str  # observation / verdict / pending
    debate: Debate
    headline: str
    observation: Optional[dict[str, str]] = None
    checks: Any = None  # DataFrame
    winner: Optional[str] = None
    winner_text: str = ""
    summary: str = ""
    reasons: dict[str, str] = field(default_factory=dict)
    per_round: Any = None  # DataFrame
    debaters: Any = None  # DataFrame
    parsed: bool = True
    raw: str = ""
    note: str = ""
    wrap_up: str = ""  # topic debate: the seed's closing summary (Markdown, Chinese)
    judge: str = ""
    speeches: list[SpeechView] = field(default_factory=list)

    def scores_figure(self):
        return scores_figure(self.debaters) if self.debaters is not None else None


def _winner_text(debate: Debate, winner: Optional[str]) -> str:
    if not winner:
        return "no winner"
    if debate.protocol == "trial":
        return {"pro": "正方 (pro) wins", "con": "反方 (con) wins", "draw": "draw"}.get(winner, winner)
    p = debate.participant(winner)
    return f"{winner}（{p.stance}）wins" if p and p.stance else f"{winner} wins"


def outcome_view(debate: Debate, archive: Any = None) -> OutcomeView:
    """What the Outcome page shows: dispatched on the protocol's outcome kind, here only."""
    import pandas as pd

    spec = protocol_specs().get(debate.protocol)
    kind = spec.outcome if spec else ("observation" if debate.observation else "verdict")
    zh = is_chinese(debate)
    speeches = [speech_view(s, speaker_sources(debate, archive), chinese=zh) for s in debate.rounds]
    if zh:
        status_line = f"状态：{status_zh(debate.status)}" + (f"（{debate.stop_reason}）" if debate.stop_reason else "")
    else:
        status_line = f"status {debate.status}" + (f" — {debate.stop_reason}" if debate.stop_reason else "")
    if kind == "observation":
        o = debate.observation
        view = OutcomeView(kind="observation" if o else "pending", debate=debate, headline=status_line,
                           checks=checks_table(debate), speeches=speeches)
        if o is not None:  # the seed's three bullets, exactly
            view.observation = {"分歧本质": o.divergence, "共识点": o.consensus, "留给读者": o.to_reader}
        return view
    v = debate.verdict
    view = OutcomeView(kind="verdict" if v else "pending", debate=debate, headline=status_line, speeches=speeches,
                       checks=checks_table(debate) if any(s.findings for s in debate.rounds) else None)
    if debate.protocol == "topic" and debate.status in ("completed", "failed"):
        from debate_core.render.judged import wrap_up_md

        view.wrap_up = wrap_up_md(debate, archive=str(getattr(archive, "path", "") or "") or None)
    if v is None:
        return view
    by_label = {p.label: p for p in debate.participants}
    rows = []
    labels = [r.label for r in v.rows] or list(by_label)
    for label in labels:
        row = next((r for r in v.rows if r.label == label), None)
        p = by_label.get(label)
        rows.append({"debater": label, "stance": (row.stance if row and row.stance else (p.stance if p else "")),
                     "model": p.model if p else "", "strongest point": row.strongest if row else "",
                     "fatal weakness": row.weakness if row else "", "score": row.score if row else None})
    view.winner, view.winner_text = v.winner, _winner_text(debate, v.winner)
    view.summary, view.reasons, view.note, view.judge = v.summary, dict(v.reasons), v.note, v.judge
    view.parsed, view.raw = v.parsed, v.raw
    view.per_round = pd.DataFrame([{"round": c.round, "commentary": c.comment} for c in v.per_round],
                                  columns=["round", "commentary"])
    view.debaters = pd.DataFrame(rows, columns=["debater", "stance", "model", "strongest point", "fatal weakness",
                                                "score"])
    return view


def scores_figure(debaters):
    import plotly.express as px

    df = debaters.dropna(subset=["score"]) if debaters is not None else None
    if df is None or df.empty:
        return None
    fig = px.bar(df, x="debater", y="score", color="debater", hover_data=["stance", "model"], range_y=[0, 10],
                 text="score", title="Judge's scores (0-10)")
    fig.update_layout(showlegend=False, height=320, margin=dict(l=10, r=10, t=40, b=10))
    return fig


# ------------------------------------------------------------------- exports


@dataclass(frozen=True)
class Download:
    label: str
    file_name: str
    mime: str
    fmt: str


def slug_for(debate: Debate) -> str:
    ascii_part = re.sub(r"[^a-z0-9]+", "-", debate.topic.lower()).strip("-")[:40]
    return (ascii_part + "-" if ascii_part else "") + debate.id


def downloads(debate: Debate) -> list[Download]:
    base = f"debate-{debate.id}"
    out = [Download("Markdown (.md)", f"{base}.md", "text/markdown", "md"),
           Download("JSON (.json)", f"{base}.json", "application/json", "json"),
           Download("Notebook (.ipynb)", f"{base}.ipynb", "application/x-ipynb+json", "ipynb")]
    if debate.protocol == "topic":
        out.append(Download("Topic-debate folder (.zip)", f"{slug_for(debate)}.debate.zip", "application/zip",
                            "debate-dir"))
    return out


def _read_export(result: Any, out: Path) -> Optional[bytes]:
    """The bytes of what an exporter produced: text, a file, or a folder (zipped)."""
    if isinstance(result, bytes):
        return result
    target = None
    if isinstance(result, Path) or (isinstance(result, str) and len(result) < 4096 and "\n" not in result):
        p = Path(result)
        target = p if p.exists() else None
    if target is None and isinstance(result, str):
        return result.encode("utf-8")
    if target is None:
        target = out if out.exists() else None
    if target is None:
        return None
    if target.is_dir():
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for p in sorted(target.rglob("*")):
                if p.is_file():
                    zf.write(p, str(Path(target.name) / p.relative_to(target)))
        return buf.getvalue()
    return target.read_bytes()


def export_bytes(archive: Any, debate_id: str, fmt: str) -> bytes:
    """A debate exported as ``fmt`` (md, json, ipynb, debate-dir as a zip).

    Uses the archive's exporter (``Archive.export``); where this build has none yet,
    the workbench's own renderers produce the same formats.
    """
    try:
        from debate_core.io import exporters

        has_exporter = hasattr(exporters, "export_debate")
    except ImportError:
        has_exporter = False
    if has_exporter:
        with tempfile.TemporaryDirectory(prefix="debate-export-") as tmp:
            name = {"md": "debate.md", "json": "debate.json", "ipynb": "debate.ipynb"}.get(fmt, "out")
            out = Path(tmp) / name
            result = export_debate(archive, debate_id, fmt, out)
            data = _read_export(result, out)
            if data is not None:
                return data
    return _fallback_export(archive.get_debate(debate_id), fmt, archive)


def _fallback_export(debate: Debate, fmt: str, archive: Any = None) -> bytes:
    from debate_core.io.exporters import to_json_dict
    from debate_core.render.master import render_markdown

    if fmt == "md":
        return render_markdown(debate).encode("utf-8")
    if fmt == "json":
        return json.dumps(to_json_dict(debate), ensure_ascii=False, indent=2).encode("utf-8")
    if fmt == "ipynb":
        return _notebook(debate, archive).encode("utf-8")
    if fmt in ("debate-dir", "zip"):
        from debate_core.render.judged import debate_log_md, verdict_md

        buf = io.BytesIO()
        folder = f"{slug_for(debate)}.debate"
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(f"{folder}/debate-log.md", debate_log_md(debate))
            zf.writestr(f"{folder}/verdict.md", verdict_md(debate))
        return buf.getvalue()
    raise ValueError(f"unknown export format {fmt!r} (md, json, ipynb, debate-dir)")


def _notebook(debate: Debate, archive: Any = None) -> str:
    import nbformat
    from nbformat import v4

    from debate_core.render.master import render_markdown

    path = str(getattr(archive, "path", "data/archive.duckdb"))
    nb = v4.new_notebook()
    nb.cells = [
        v4.new_markdown_cell(render_markdown(debate)),
        v4.new_code_cell(f"from debate_core.archive import open_archive\narchive = open_archive({path!r})\n"
                         f"debate = archive.get_debate({debate.id!r})\ndebate.topic"),
        v4.new_code_cell("import plotly.express as px\ndf = archive.tokens_per_round(debate.id)\n"
                         "px.bar(df, x='round', y=['prompt_tokens', 'completion_tokens'], "
                         "title='Tokens per round')"),
    ]
    nb.metadata["debate_id"] = debate.id
    return nbformat.writes(nb)


# ------------------------------------------------------------------- archive


def recent_debates(archive: Any, limit: int = 10):
    df = archive.list_debates(limit=limit)
    return debates_frame(df)


def debates_frame(df):
    """A list_debates frame made readable: lists joined, tokens totalled."""
    import pandas as pd

    if df is None or len(df) == 0:
        return pd.DataFrame(columns=["id", "created_at", "protocol", "topic", "participants", "models", "status",
                                     "rounds", "tokens", "cost", "degraded"])
    out = pd.DataFrame({
        "id": df["id"], "created_at": df["created_at"], "protocol": df["protocol"], "topic": df["topic"],
        "participants": [" vs ".join(map(str, p)) if p is not None else "" for p in df["participants"]],
        "models": [", ".join(map(str, m)) if m is not None else "" for m in df["models"]],
        "status": df["status"],
        "rounds": [f"{int(r or 0)}/{int(p or 0)}" for r, p in zip(df["rounds"], df["planned_rounds"])],
        "tokens": (df["prompt_tokens"].fillna(0) + df["completion_tokens"].fillna(0)).astype("int64"),
        "cost": df["cost"].fillna(0.0), "degraded": df["degraded"].fillna(False).astype(bool),
    })
    return out.reset_index(drop=True)


STATUSES = ("running", "completed", "failed", "stopped", "interrupted")


def filter_options(archive: Any) -> dict[str, list[str]]:
    """Distinct values for the Archive filters: masters (label), models, protocols."""
    df = archive.query("""
        SELECT 'master' AS kind, l AS value FROM (SELECT DISTINCT unnest(labels) AS l FROM debates
             WHERE protocol = 'master')
        UNION ALL SELECT 'model', m FROM (SELECT DISTINCT unnest(models) AS m FROM debates)
        UNION ALL SELECT 'protocol', p FROM (SELECT DISTINCT protocol AS p FROM debates)""")
    out: dict[str, list[str]] = {"master": [], "model": [], "protocol": []}
    for kind, value in df.itertuples(index=False):
        if value:
            out[kind].append(str(value))
    for k in out:
        out[k] = sorted(set(out[k]))
    specs = list(protocol_specs())
    out["protocol"] = specs + [p for p in out["protocol"] if p not in specs]
    out["status"] = list(STATUSES)
    return out


def find_debates(archive: Any, *, protocol: Optional[str] = None, master: Optional[str] = None,
                 model: Optional[str] = None, status: Optional[str] = None, date_from: Any = None,
                 date_to: Any = None, text: Optional[str] = None, limit: int = 500):
    clean = lambda v: None if v in (None, "", "all", "(any)") else v  # noqa: E731
    df = archive.list_debates(protocol=clean(protocol), master=clean(master), model=clean(model),
                              status=clean(status), date_from=date_from, date_to=date_to,
                              text=(text or "").strip() or None, limit=limit)
    return debates_frame(df)


def _empty_fig(title: str, note: str = "nothing in the archive yet"):
    import plotly.graph_objects as go

    fig = go.Figure()
    fig.update_layout(title=title, height=300, margin=dict(l=10, r=10, t=40, b=10),
                      annotations=[dict(text=note, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")],
                      xaxis=dict(visible=False), yaxis=dict(visible=False))
    return fig


def _layout(fig, height: int = 320):
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=40, b=10), legend_title_text="")
    return fig


CHART_GROUPS = {
    "Activity": ("over_time", "rounds"),
    "Tokens & cost": ("tokens", "cost"),
    "Check failures": ("fail_rule", "fail_master"),
    "Winners (judged)": ("win_stance", "win_model"),
}


def archive_figures(archive: Any, group: Optional[str] = None) -> dict[str, Any]:
    """The Archive page's charts over the whole archive: one group of :data:`CHART_GROUPS`, or all."""
    import plotly.express as px

    want = set(CHART_GROUPS.get(group, ())) if group else {k for v in CHART_GROUPS.values() for k in v}
    figs: dict[str, Any] = {}
    if want & {"over_time"}:
        t = archive.debates_over_time("day")
        if len(t):
            figs["over_time"] = _layout(px.bar(t, x="period", y="debates", color="protocol",
                                               title="Debates over time (per day)"))
            figs["over_time"].update_xaxes(type="date", tickformat="%Y-%m-%d", title="")
        else:
            figs["over_time"] = _empty_fig("Debates over time")

    if want & {"tokens", "cost"}:
        tok = archive.tokens_by_model()
        if len(tok) and (tok["tokens"].fillna(0).sum() > 0 or tok["cost"].fillna(0).sum() > 0):
            figs["tokens"] = _layout(px.bar(tok, x="model", y=["prompt_tokens", "completion_tokens"],
                                            title="Tokens by model", barmode="stack"))
            figs["cost"] = _layout(px.bar(tok, x="model", y="cost", title="Cost by model (USD)"))
        else:
            note = "no tokens recorded yet (the offline engine uses none)"
            figs["tokens"], figs["cost"] = _empty_fig("Tokens by model", note), _empty_fig("Cost by model (USD)", note)

    if want & {"rounds"}:
        r = archive.rounds_per_debate()
        if len(r):
            counts = r.assign(rounds=r["rounds"].fillna(0).astype("int64")).groupby(
                ["protocol", "rounds"], as_index=False).size().rename(columns={"size": "debates"})
            figs["rounds"] = _layout(px.bar(counts, x="rounds", y="debates", color="protocol", barmode="group",
                                            title="Rounds per debate (rounds played)"))
        else:
            figs["rounds"] = _empty_fig("Rounds per debate")

    if want & {"fail_rule", "fail_master"}:
        f = archive.check_failures()
        if len(f):
            by_rule = f.groupby("rule", as_index=False)["count"].sum().sort_values("count", ascending=False)
            f = f.assign(master=f["speaker_name"].fillna(f["speaker"]))
            by_master = f.groupby(["master", "rule"], as_index=False)["count"].sum()
            figs["fail_rule"] = _layout(px.bar(by_rule, x="rule", y="count", title="Check failures by rule"))
            figs["fail_master"] = _layout(px.bar(by_master, x="master", y="count", color="rule",
                                                 title="Check failures by master"))
        else:
            figs["fail_rule"] = _empty_fig("Check failures by rule", "no failed check recorded")
            figs["fail_master"] = _empty_fig("Check failures by master", "no failed check recorded")

    if want & {"win_stance", "win_model"}:
        w = archive.winners()
        if len(w):
            w = w.assign(stance=w["stance"].fillna("(none)").replace("", "(none)"),
                         model=w["model"].fillna("(unknown)").replace("", "(unknown)"),
                         winner=w["winner"].fillna("no winner"))
            st_counts = w.groupby(["protocol", "stance"], as_index=False).size().rename(columns={"size": "wins"})
            md_counts = w.groupby(["protocol", "model"], as_index=False).size().rename(columns={"size": "wins"})
            figs["win_stance"] = _layout(px.bar(st_counts, x="stance", y="wins", color="protocol",
                                                title="Judged debates: wins by stance"))
            figs["win_model"] = _layout(px.bar(md_counts, x="model", y="wins", color="protocol",
                                               title="Judged debates: wins by model"))
        else:
            figs["win_stance"] = _empty_fig("Judged debates: wins by stance", "no judged debate yet")
            figs["win_model"] = _empty_fig("Judged debates: wins by model", "no judged debate yet")
    return {k: v for k, v in figs.items() if k in want}


SQL_EXAMPLE = "SELECT protocol, status, count(*) AS debates FROM debates GROUP BY ALL ORDER BY debates DESC"
SQL_HELP = ("Read-only: one SELECT (or EXPLAIN / an informational PRAGMA) at a time over the tables debates, "
            "speeches, summaries, observations, verdicts, verdict_rows, verdict_rounds, llm_calls, findings, "
            "packs, pack_masters, pack_sources, pack_critiques. COPY, ATTACH, INSTALL/LOAD, file reads and "
            "writes and any change are refused.")


def run_sql(archive: Any, query: str):
    """The SQL box: :meth:`Archive.sql` (raises SqlRefused with a one-line reason)."""
    return archive.sql(query, max_rows=2000)


def _safe_rel(name: str) -> Optional[Path]:
    """An uploaded name as a relative path with no '..', no root, no drive and no control characters."""
    parts = []
    for p in re.split(r"[\\/]+", name or ""):
        p = re.sub(r"[\x00-\x1f]", "", p).strip()
        if p in ("", ".", "..") or re.fullmatch(r"[A-Za-z]:", p):
            continue
        parts.append(p)
    return Path(*parts) if parts else None


def stage_uploads(files: list[tuple[str, bytes]], root: Path) -> list[Path]:
    """Write uploaded (name, bytes) under ``root``; zips are unpacked (never outside it).

    Returns the top-level entries to import: folders (an artifact folder) and files.
    """
    root = root.resolve()
    for name, data in files:
        rel = _safe_rel(name)
        if rel is None:
            continue
        target = (root / rel).resolve()
        if root not in target.parents:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if rel.suffix.lower() == ".zip":
            dest = target.with_suffix("")
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                for info in zf.infolist():
                    r = _safe_rel(info.filename)
                    if r is None or info.is_dir():
                        continue
                    out = (dest / r).resolve()
                    if dest.resolve() not in out.parents:
                        continue
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_bytes(zf.read(info))
            continue
        target.write_bytes(data)
    entries: list[Path] = []
    for p in sorted(root.iterdir()):
        if p.is_dir():
            # an unpacked zip holding one folder: import that folder
            kids = [k for k in p.iterdir()]
            entries.append(kids[0] if len(kids) == 1 and kids[0].is_dir() and kids[0].name.endswith(".debate")
                           else p)
        else:
            entries.append(p)
    return entries


class UploadError(ValueError):
    """An upload that cannot be imported; the message names the file (and line)."""


def import_uploads(archive: Any, files: list[tuple[str, bytes]]) -> list[str]:
    """Import uploaded artifact files / folders / zips; returns one line per debate."""
    if not files:
        raise UploadError("choose files or a folder to import first")
    with tempfile.TemporaryDirectory(prefix="debate-import-") as tmp:
        root = str(Path(tmp).resolve())
        paths = stage_uploads(files, Path(tmp))
        if not paths:
            raise UploadError("nothing importable in the upload (empty or unsafe file names)")
        try:
            results = import_paths(archive, [str(p) for p in paths])
        except ImportError:
            raise UploadError("import is not available in this build (debate_core.importers is missing)") from None
        except Exception as exc:  # noqa: BLE001 - shown with the uploaded names, not the staging folder
            from debate_core.jobs import one_line

            raise UploadError(one_line(exc).replace(root + os.sep, "").replace(tmp + os.sep, "")) from None
        lines = [_result_line(r, root) for r in results or []]
    return lines or ["nothing was imported"]


def _result_line(r: Any, root: str) -> str:
    if hasattr(r, "as_dict"):
        r = r.as_dict()
    if isinstance(r, dict):
        keys = [k for k in ("id", "status", "kind", "topic", "path") if k in r] or list(r)
        text = " · ".join(f"{r[k]}" for k in keys)
    else:
        text = str(r)
    return text.replace(root + os.sep, "")


# ------------------------------------------------------------------ coverage


@dataclass
class CoverageView:
    pack: Pack
    matrix: Any
    gaps: dict
    canonical: Any  # DataFrame
    one_way: Any  # DataFrame
    both_ways: Any  # DataFrame
    no_critique: list[str]
    degraded: Any  # DataFrame
    names: dict[str, str]

    @property
    def complete_pairs(self) -> int:
        return len(self.gaps["both_ways"])

    @property
    def one_way_entries(self) -> int:
        return len(self.gaps["one_way"])

    def heatmap(self):
        return coverage_heatmap(self.matrix, self.gaps, self.names)


def coverage_view(pack: Pack, archive: Any = None) -> CoverageView:
    import pandas as pd

    from debate_core.content.coverage import coverage_gaps, coverage_matrix

    matrix = coverage_matrix(pack)
    gaps = coverage_gaps(pack)
    names = {s: m.name for s, m in pack.masters.items()}
    canonical = pd.DataFrame([{
        "pair": c["pair"], "status": c["status"], "a→b": c["a_to_b"], "b→a": c["b_to_a"],
        "lacking": ", ".join(c["lacking"]), "label": c["label"],
        "masters": f"{names.get(c['a'], c['a'])} / {names.get(c['b'], c['b'])}", "in pack": c["in_pack"]}
        for c in gaps["canonical"]])
    one_way = pd.DataFrame([{"entry": o["entry"], "critiques": o["critiques"], "missing": f"{o['to']}->{o['from']}",
                             "from → to": f"{names.get(o['from'], o['from'])} → {names.get(o['to'], o['to'])}"}
                            for o in gaps["one_way"]],
                           columns=["entry", "critiques", "missing", "from → to"])
    both = pd.DataFrame(gaps["both_ways"], columns=["pair", "a", "b", "a_to_b", "b_to_a"])
    degraded = pd.DataFrame(columns=["pair", "a", "b", "debates", "completed", "last_at"])
    if archive is not None:
        degraded = archive.degraded_pairs()
        if len(degraded):
            degraded = degraded.assign(a=[names.get(a, a) for a in degraded["a"]],
                                       b=[names.get(b, b) for b in degraded["b"]])
    return CoverageView(pack=pack, matrix=matrix, gaps=gaps, canonical=canonical, one_way=one_way,
                        both_ways=both, no_critique=[names.get(s, s) for s in gaps["no_critique"]],
                        degraded=degraded, names=names)


HEAT_CLASSES = (("no critique either way", "#eef1f5"), ("missing direction (the reverse exists)", "#f28b82"),
                ("one-way (the reverse is missing)", "#fbbc04"), ("covered both ways", "#4285f4"))


def coverage_heatmap(matrix, gaps: dict, names: dict[str, str]):
    """Masters × masters: critiques from row A aimed at column B; one-way and missing marked.

    Colour is the cell's class (none / missing direction / one-way / both ways); the text is
    the number of critiques, ``n→`` for a one-way entry, ``✗`` for the missing direction of
    a one-way pair and ``✗✗`` for a canonical pair with no critique at all.
    """
    import plotly.graph_objects as go

    slugs = list(matrix.index)
    canon = {(c["a"], c["b"]) for c in gaps["canonical"]} | {(c["b"], c["a"]) for c in gaps["canonical"]}
    z, text, hover = [], [], []
    for a in slugs:
        zr, tr, hr = [], [], []
        for b in slugs:
            n, back = int(matrix.loc[a, b]), int(matrix.loc[b, a])
            na, nb = names.get(a, a), names.get(b, b)
            if a == b:
                zr.append(None)
                tr.append("")
                hr.append(na)
                continue
            if n and back:
                cls, mark = 3, str(n)
            elif n:
                cls, mark = 2, f"{n}→"
            elif back:
                cls, mark = 1, "✗"
            elif (a, b) in canon:
                cls, mark = 1, "✗✗"
            else:
                cls, mark = 0, ""
            what = HEAT_CLASSES[cls][0] if mark != "✗✗" else "canonical pair with no critique either way"
            zr.append(cls + 0.5)
            tr.append(mark)
            hr.append(f"{na} → {nb}: {n} critique(s) — {what}")
        z.append(zr)
        text.append(tr)
        hover.append(hr)
    scale = []
    for i, (_label, colour) in enumerate(HEAT_CLASSES):
        scale += [[i / 4, colour], [(i + 1) / 4, colour]]
    labels = [f"{names.get(s, s)} ({s})" for s in slugs]
    fig = go.Figure(go.Heatmap(
        z=z, x=labels, y=labels, text=text, texttemplate="%{text}", hovertext=hover, hoverinfo="text",
        colorscale=scale, zmin=0, zmax=4, xgap=2, ygap=2,
        colorbar=dict(tickvals=[0.5, 1.5, 2.5, 3.5], ticktext=[c[0] for c in HEAT_CLASSES], len=0.6)))
    fig.update_layout(title="Critiques from row A aimed at column B   (n→ one-way · ✗ missing direction · "
                            "✗✗ canonical pair with none)",
                      height=680, margin=dict(l=10, r=10, t=50, b=10), plot_bgcolor="white",
                      xaxis=dict(title="target (B)", tickangle=-45), yaxis=dict(title="critic (A)",
                                                                               autorange="reversed"))
    return fig


# -------------------------------------------------------------------- errors


def explain(exc: BaseException) -> tuple[str, str]:
    """(one-line cause, what to do) for any error a page may meet; never a traceback."""
    from debate_core.jobs import one_line

    name = type(exc).__name__
    cause = one_line(exc)
    todo = {
        "InputError": "Correct the input above and try again.",
        "ConfigError": "Export the named key before starting the app, choose the offline engine, "
                       "or give an API base for an OpenAI-compatible server.",
        "PackError": "Choose the default pack or a folder in the Master-skill layout (master-<slug>/meta.json).",
        "PairError": "Pick two different masters of the pack.",
        "SqlRefused": "Only one read-only SELECT runs at a time; COPY, ATTACH, INSTALL and file access are refused.",
        "ArchiveError": "Check the archive file (DEBATE_ARCHIVE); it was left untouched.",
        "JobError": "Wait for the run to finish, or stop it first.",
        "KeyError": "Open a debate from the Archive page, or start one in Setup.",
        "GatewayError": "Check the model, its key and the API base, then retry the round.",
        "UploadError": "Check the uploaded files: topic-debate folders (debate-log.md + verdict.md), master-debate "
                       "Markdown or this workbench's JSON export.",
    }.get(name, "Reload the page; if it persists, check the terminal running the app.")
    if name == "GatewayError":
        cause = getattr(exc, "cause", cause)
    return cause, todo


__all__ = [
    "AmmoView", "CoverageView", "Download", "LiveView", "OutcomeView", "ProtocolSpec", "SpeechView", "ammo_view",
    "archive_figures", "build_config", "checks_table", "coverage_view", "downloads", "engine_summary", "explain",
    "export_bytes", "filter_options", "find_debates", "import_uploads", "is_chinese", "live_view", "load_pack",
    "master_label",
    "model_problem", "outcome_view", "protocol_specs", "recent_debates", "run_sql", "safe_markdown",
    "speech_view", "suggest_pair",
]


# ---------------------------------------------------------------------- ratings


def ratings_tables(arc, bootstrap: int = 100):
    """Bradley-Terry ratings of models and stances from the archive's judged debates."""
    from debate_core.analysis.ratings import ratings_tables as _tables

    return _tables(arc, bootstrap=bootstrap)


def ratings_figure(table, title: str):
    from debate_core.analysis.ratings import ratings_figure as _figure

    return _figure(table, title)
