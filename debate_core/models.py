"""The one schema: pydantic models for packs, configs, rounds, speeches, verdicts.

Everything that crosses a module boundary (pack loader -> protocol -> engine ->
archive -> renderer/exporter) is one of these models.  Pack models keep unknown
fields (``extra="allow"``) so a pack written for a newer Master-skill release still
loads; debate records forbid nothing either, so an export from a newer workbench
imports into an older one.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from debate_core.plans import ArgumentBank, SpeechPlan


def utcnow() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


class _Open(BaseModel):
    """Base for pack models: unknown fields are kept, not rejected."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)


# --------------------------------------------------------------------------- packs


class Source(_Open):
    type: str = ""
    id: str
    title: str = ""


class CrossCritique(_Open):
    target_master: str
    position: str
    citation: str = ""


class Style(_Open):
    all: str = ""
    qa: str = ""
    monologue: str = ""


class SearchScope(_Open):
    keywords: list[str] = Field(default_factory=list)
    primary_cbeta_ids: list[str] = Field(default_factory=list)
    traditions: list[str] = Field(default_factory=list)
    dictionary_sources: list[str] = Field(default_factory=list)


class StarterQuestion(_Open):
    q: str
    why: str = ""


class LoreTrigger(_Open):
    keys: list[str] = Field(default_factory=list)
    content: str = ""
    source_ref: str = ""


class Excerpt(BaseModel):
    """One themed section of a master's ``sources/*.md`` file."""

    file: str
    heading: str
    source_id: str = ""
    points: list[str] = Field(default_factory=list)
    text: str = ""


class Teaching(BaseModel):
    """One unit a master taught, as a sentence the offline engine may speak from.

    Produced by the pack reader (``teachings.py``) from ``sources/*.md``: only
    what the master taught, never a pack's editorial notes, reading lists, URLs,
    headings or list fragments.
    """

    text: str
    source_id: str = ""
    own_source: bool = False  # the source was named for this unit's section (or a text it quotes), not guessed
    file: str = ""
    heading: str = ""
    line: int = 0


class SetAside(BaseModel):
    """Material in a pack's files that the pack reader did not take as teaching."""

    file: str
    line: int = 0
    text: str
    reason: str  # url, editorial, reading_list, heading, fragment, foreign, ...


class Master(_Open):
    """A persona: the fields of ``master-<slug>/meta.json`` plus its loaded notes."""

    name: str
    slug: str
    tradition: str = ""
    school: str = ""
    era: str = ""
    languages: list[str] = Field(default_factory=list)
    sources: list[Source] = Field(default_factory=list)
    search_scope: SearchScope = Field(default_factory=SearchScope)
    signature_phrases: list[str] = Field(default_factory=list)
    style: Style = Field(default_factory=Style)
    cross_critique: list[CrossCritique] = Field(default_factory=list)
    citation_contract: dict[str, Any] = Field(default_factory=dict)
    starter_questions: list[StarterQuestion] = Field(default_factory=list)
    lore_triggers: list[LoreTrigger] = Field(default_factory=list)
    fojin_entity_id: Any | None = None
    version: str = ""
    created_at: str = ""
    updated_at: str = ""
    disclaimer: str = ""
    # Loaded from the master's folder, not from meta.json.
    aliases: list[str] = Field(default_factory=list)  # common names: 六祖, 罗什, 智者大师 ...
    excerpts: list[Excerpt] = Field(default_factory=list, exclude=True)
    teachings: list[Teaching] = Field(default_factory=list, exclude=True)
    set_aside: list[SetAside] = Field(default_factory=list, exclude=True)
    voice_notes: str = Field(default="", exclude=True)
    teaching_notes: str = Field(default="", exclude=True)

    @property
    def source_ids(self) -> list[str]:
        return [s.id for s in self.sources]

    def listing_row(self) -> dict[str, Any]:
        """The master in one row: who, which school, and how much the pack holds (the archive's
        ``pack_masters`` and ``masters`` listings)."""
        return {
            "slug": self.slug,
            "name": self.name,
            "school": self.school,
            "tradition": self.tradition,
            "era": self.era,
            "sources": len(self.sources),
            "critiques": len(self.cross_critique),
        }

    @property
    def short_name(self) -> str:
        for suffix in ("老和尚", "大师", "法师", "尊者", "菩萨", "禅师"):
            if self.name.endswith(suffix) and len(self.name) > len(suffix) + 1:
                return self.name[: -len(suffix)]
        return self.name

    @property
    def all_names(self) -> list[str]:
        """Full name, short name and aliases, longest first, without duplicates."""
        names = [n for n in (self.name, self.short_name, *self.aliases) if n]
        return sorted(dict.fromkeys(names), key=len, reverse=True)

    def source_title(self, source_id: str) -> str:
        for s in self.sources:
            if s.id == source_id:
                return s.title
        return ""

    def ammo_against(self, target: str) -> list[CrossCritique]:
        return [c for c in self.cross_critique if c.target_master == target]


class PairOverride(_Open):
    default_rounds: int


class DebateProtocol(_Open):
    default_rounds: int = 4
    max_rounds: int = 6
    min_rounds: int = 2
    selector: str = "alternating"
    stop_on_consensus: bool = False
    subagent_isolation: bool = True
    moderator_summary: bool = True
    per_pair_overrides: dict[str, PairOverride] = Field(default_factory=dict)


class Problem(BaseModel):
    """One validation finding, always naming file, field and value."""

    file: str
    field: str = ""
    value: str = ""
    message: str
    severity: Literal["error", "warning"] = "error"

    def __str__(self) -> str:
        where = self.file + (f" [{self.field}]" if self.field else "")
        val = f" (value: {self.value!r})" if self.value else ""
        return f"{self.severity}: {where}: {self.message}{val}"


class PackReport(BaseModel):
    path: str
    name: str
    version: str = ""
    masters: int = 0
    critiques: int = 0
    pairs_both_ways: int = 0
    one_way: int = 0
    errors: int = 0
    warnings: int = 0
    problems: list[Problem] = Field(default_factory=list)
    pairs: list[str] = Field(default_factory=list)
    one_way_entries: list[str] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.errors == 0


class Pack(BaseModel):
    name: str
    version: str = ""
    path: str
    masters: dict[str, Master] = Field(default_factory=dict)
    protocol: DebateProtocol = Field(default_factory=DebateProtocol)
    report: PackReport
    bank: ArgumentBank | None = Field(default=None, exclude=True)  # content.arguments.bank_of loads it

    def master(self, slug: str) -> Master:
        return self.masters[slug]

    def all_source_ids(self) -> set[str]:
        return {s.id for m in self.masters.values() for s in m.sources}


# ------------------------------------------------------------------------ debates

# master / topic / trial run here; benchmark debates are imported (a public benchmark's transcripts)
Protocol = Literal["master", "topic", "trial", "benchmark"]
Status = Literal["running", "completed", "failed", "stopped", "interrupted"]


class CitationMark(BaseModel):
    """One citation in a speech and what quote verification made of it."""

    id: str
    title: str = ""
    quote: str = ""
    status: Literal["verified", "id_only", "unverified", "unchecked"] = "id_only"


class Detail(BaseModel):
    """One statement a check makes, as data: ``code`` names what it says (``length.range``,
    ``citation.not_own`` …; docs/checks.md lists them), ``args`` its values (numbers, ids, the names of
    masters, and the debate's own words it quotes).  A reader's app says it in its own language from
    the code; ``Finding.message`` is the checker's Chinese wording of the same details."""

    code: str
    args: dict[str, Any] = Field(default_factory=dict)


class Finding(BaseModel):
    """Result of one check on one speech.

    ``undecided`` marks a rule that could not decide: it is never a pass
    (``passed`` is False), and its message says why.  ``layer`` tells the
    deterministic rules from the optional model-graded audit.
    """

    rule: str
    passed: bool
    message: str = ""
    undecided: bool = False
    # False: the rule does not apply to this speech (a 立论 restates nobody; no ammo exists for this
    # direction). It is shown as 不适用 and never counted as a pass, nor as a failure.
    applies: bool = True
    layer: Literal["rules", "model"] = "rules"
    marks: list[CitationMark] = Field(default_factory=list)
    # what the message says, as codes and values (empty on a finding stored before details existed, an
    # imported one, or the model audit's own words: then only ``message`` says it)
    details: list[Detail] = Field(default_factory=list)


class ToolCallRecord(BaseModel):
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    result: str = ""
    error: str = ""


class Speech(BaseModel):
    round: int
    speaker: str  # master slug, or neutral label (辩手甲, pro, con)
    speaker_name: str = ""
    role: str  # 立论 / 反驳 / 回应 / 综合, opening / rebuttal, pro / con
    text: str = ""
    citations: list[str] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    ammo_used: list[str] = Field(default_factory=list)
    retries: int = 0
    truncated: bool = False
    engine: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    latency_ms: float = 0.0
    status: Literal["ok", "flagged", "failed", "empty"] = "ok"
    envelope: dict[str, Any] | None = None
    plan: SpeechPlan | None = None  # master debates: the speech plan it was written from
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)

    @property
    def failed_rules(self) -> list[str]:
        return [f.rule for f in self.findings if not f.passed]


class RoundSummary(BaseModel):
    round: int
    speaker: str
    text: str


class Observation(BaseModel):
    """The master debate's closing neutral observation: never a winner."""

    divergence: str
    consensus: str
    to_reader: str
    engine: str = ""


class VerdictRow(BaseModel):
    label: str
    stance: str = ""
    strongest: str = ""
    weakness: str = ""
    score: float | None = None


class RoundComment(BaseModel):
    round: int
    comment: str


class Verdict(BaseModel):
    winner: str | None = None  # label (辩手乙) or pro / con / draw
    summary: str = ""
    reasons: dict[str, str] = Field(default_factory=dict)
    rows: list[VerdictRow] = Field(default_factory=list)
    per_round: list[RoundComment] = Field(default_factory=list)
    note: str = ""
    parsed: bool = True
    raw: str = ""
    judge: str = ""
    # checked against what the judge was asked for (a row per debater, a comment per round, the reasons):
    # True / False once checked, None when never checked (stored before the check, or imported)
    complete: bool | None = None
    # what a checked verdict lacks: winner, reasons, row:<label>, round:<n>
    missing: list[str] = Field(default_factory=list)

    @property
    def scores(self) -> dict[str, float | None]:
        return {r.label: r.score for r in self.rows}


class Judgment(BaseModel):
    """One judge's decision on one two-sided debate: a row of an imported benchmark's judge panel,
    or one of our own judges.  ``winner`` is the side (pro / con) or ``tie``; ``margin`` is signed
    with PRO positive, as the benchmark writes it; ``normalized`` is the source's normalized margin."""

    judge: str
    winner: Literal["pro", "con", "tie"]
    winner_name: str = ""  # the winner as the source wrote it (a model's display name, Tie)
    margin: float | None = None
    normalized: float | None = None
    entertainment: float | None = None
    notes: str = ""
    decisive: str = ""  # the judge's "most decisive rebuttal" line, when the source has one
    group: str = ""  # the side-swap group: the debates of one matchup on one topic, sides reversed
    template: str = ""  # the source's judging template


class LLMCall(BaseModel):
    purpose: str
    model: str
    round: int | None = None
    speaker: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # of prompt_tokens, those the provider served from its prompt cache
    cost: float = 0.0
    latency_ms: float = 0.0
    error: str = ""
    messages: list[dict[str, Any]] = Field(default_factory=list)
    response: str = ""
    created_at: datetime = Field(default_factory=utcnow)


class Participant(BaseModel):
    label: str  # slug for masters, 辩手甲 / pro / con otherwise
    name: str = ""
    stance: str = ""
    model: str = ""
    school: str = ""


class DebateConfig(BaseModel):
    """What a user asked for.  Never holds an API key."""

    protocol: Protocol = "master"
    topic: str
    masters: list[str] = Field(default_factory=list)
    rounds: int | None = None
    model: str | None = None
    models: list[str] = Field(default_factory=list)
    judge_model: str | None = None
    check_model: str | None = None  # master debate: a model that audits each speech against the rules
    api_base: str | None = None
    temperature: float = 0.7
    timeout: float = 60.0
    max_retries: int = 3
    check_retries: int = 2
    pack: str | None = None
    stances: list[str] = Field(default_factory=list)
    workspace: str | None = None
    max_speech_length: int = 2000
    batch_id: str | None = None
    lang: Literal["zh", "en"] | None = None  # None: follow the topic (debate_core.lang.resolve)


class Debate(BaseModel):
    """A debate record: what the archive stores and the JSON export carries."""

    id: str
    protocol: Protocol
    topic: str
    status: Status = "running"
    stop_reason: str = ""
    participants: list[Participant] = Field(default_factory=list)
    models: list[str] = Field(default_factory=list)
    pack_name: str = ""
    pack_version: str = ""
    planned_rounds: int = 0
    config: DebateConfig
    warnings: list[str] = Field(default_factory=list)
    rounds: list[Speech] = Field(default_factory=list)
    summaries: list[RoundSummary] = Field(default_factory=list)
    observation: Observation | None = None
    verdict: Verdict | None = None
    llm_calls: list[LLMCall] = Field(default_factory=list)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    batch_id: str | None = None
    source: str = ""  # "run", or where an import came from
    lang: Literal["zh", "en"] = "zh"  # the language the debate speaks (debate_core.lang)
    judgments: list[Judgment] = Field(default_factory=list)  # per-judge decisions (imported benchmark panels)
    group: str = ""  # the side-swap group an imported benchmark debate belongs to

    @model_validator(mode="before")
    @classmethod
    def _default_lang(cls, data: Any) -> Any:
        # the config's language (resolved when the debate started); a record written before debates
        # had a language (an old export, an import of the seeds' Chinese formats) spoke Chinese
        if isinstance(data, dict) and not data.get("lang"):
            cfg = data.get("config")
            asked = cfg.get("lang") if isinstance(cfg, dict) else getattr(cfg, "lang", None)
            data = {**data, "lang": asked or "zh"}
        return data

    def participant(self, label: str) -> Participant | None:
        return next((p for p in self.participants if p.label == label), None)


# ------------------------------------------------------------- argument ledger


class Claim(BaseModel):
    """One claim a speaker put forward in a debate (a tagged paragraph, an envelope argument or
    rebuttal, a master's round)."""

    id: str
    speaker: str  # the participant label (pro / con, 辩手甲, a master slug)
    round: int
    text: str
    name: str = ""  # the speaker's display name
    model: str = ""
    phase: str = ""  # opening / rebuttal / pressure_questions / answers / closing, 立论 …, argument / rebuttal


class Attack(BaseModel):
    """A claim that answers an earlier claim of another speaker."""

    source: str  # the answering claim's id
    target: str  # the answered claim's id
    speaker: str
    round: int
    kind: str = "answer"  # cites / answer (to a question) / rebuttal / challenge / concession / objection /
    # partly / hold / engages (an inferred or model-labelled answer)
    evidence: Literal["explicit", "inferred", "model"] = "explicit"  # a cited id, a plan target or a typed
    # rebuttal target / the offline aligner / a model's label (docs/research.md, The argument ledger)
    score: float | None = None  # inferred: the aligner's score


class Ledger(BaseModel):
    """A debate's arguments: claims, attacks, and the claims one side never answered.

    ``dropped`` holds the claims that another speaker could have answered (someone else spoke
    after them) and nobody else did; ``basis`` says what the attacks were read from."""

    debate_id: str
    protocol: str
    basis: str  # claim ids / envelopes / restatements / none
    claims: list[Claim] = Field(default_factory=list)
    attacks: list[Attack] = Field(default_factory=list)
    dropped: list[Claim] = Field(default_factory=list)
    unresolved: list[str] = Field(default_factory=list)  # cited ids or targets that name no claim
    evidence: list[str] = Field(default_factory=list)  # the kinds of evidence consulted: explicit, inferred, model
    labeller: str = ""  # the model whose labels the ledger used (evidence "model")
    refused: list[str] = Field(default_factory=list)  # recorded targets that cannot be attacks (self, not earlier)


# ---------------------------------------------------------------- engine requests


class SpeechRequest(BaseModel):
    """Everything one isolated master round may see; nothing else reaches the engine.

    No earlier speech text is here: only the opponent's <=80-character summary.
    """

    model_config = ConfigDict(extra="forbid")

    topic: str
    round: int
    role: str
    is_last: bool = False
    speaker: str
    speaker_name: str
    opponent: str
    opponent_name: str
    opponent_summary: str
    ammo: list[CrossCritique] = Field(default_factory=list)
    style: Style = Field(default_factory=Style)
    signature_phrases: list[str] = Field(default_factory=list)
    voice_notes: str = ""
    sources: list[Source] = Field(default_factory=list)
    feedback: list[str] = Field(default_factory=list)
    plan: SpeechPlan | None = None  # built by the orchestrator over the argument bank


class SummaryRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    topic: str
    round: int
    role: str
    speaker: str
    speaker_name: str
    text: str
    citations: list[str] = Field(default_factory=list)
    limit: int = 80
    plan: SpeechPlan | None = None


class ObservationRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    topic: str
    a: str
    a_name: str
    a_school: str
    b: str
    b_name: str
    b_school: str
    summaries: list[RoundSummary] = Field(default_factory=list)
