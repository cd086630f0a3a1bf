"""What several pages show: a debate's speeches, its language, safe Markdown, packs, errors.

A protocol's differences come from its spec (:func:`debate_core.protocols.registry.get`),
never from its name.  Nothing here imports streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from debate_core.engines.envelopes import without_flag_lines
from debate_core.models import Debate, Pack, Speech
from debate_core.protocols import registry
from debate_core.protocols.base import ASK_PACK
from debate_core.render.master import citation_marks, speech_clean
from debate_core.render.safe import md_code, neutralize_markdown, plotly_text

from webapp.i18n import N_, _
from webapp.views import chrome

STATUS_NAMES = {"running": N_("running"), "completed": N_("completed"), "failed": N_("failed"),
                "stopped": N_("stopped"), "interrupted": N_("interrupted")}


# a table's field-like column names (the frames keep them: code reads them) and what the page calls them
COLUMN_LABELS = {"created_at": N_("created"), "last_at": N_("last debated"), "lang": N_("language"),
                 "ci_low": N_("95% CI low"), "ci_high": N_("95% CI high"), "win_rate": N_("win rate"),
                 "pro_wins": N_("PRO wins"), "con_wins": N_("CON wins"), "pro_win_rate": N_("PRO win rate"),
                 "mean_margin": N_("mean margin"), "dropped_rate": N_("dropped rate"),
                 "claims_made": N_("claims made"), "own_dropped": N_("own claims dropped")}


def column_label(name: Any) -> str:
    """A table column as the page names it, in the reader's language: a field-like name by its label
    (:data:`COLUMN_LABELS`), any other through the catalog when it is a msgid, else as it is."""
    from webapp.i18n import maybe

    return _(COLUMN_LABELS[name]) if name in COLUMN_LABELS else maybe(name)


def status_text(status: str) -> str:
    """A debate status in the app's language."""
    return _(STATUS_NAMES[status]) if status in STATUS_NAMES else str(status)


def is_chinese(debate: Debate) -> bool:
    """Whether the debate itself speaks Chinese (its protocol's seed is Chinese): its own lines, never the
    app's labels around them, which follow the reader's language (:mod:`webapp.views.chrome`)."""
    return registry.get(debate.protocol).app_in_chinese


def safe_markdown(text: Any) -> str:
    """Untrusted text (a speech, an observation, a note …) for ``st.markdown`` and the other
    Markdown elements (raw HTML is off there as well): :func:`debate_core.render.safe.neutralize_markdown`,
    so no image, link, autolink, bare URL, HTML tag or math can come out of it; emphasis, lists and
    code spans still render."""
    return neutralize_markdown(text)


def safe_inline(text: Any) -> str:
    """Untrusted text set inside one line of our own Markdown (a heading, a bullet, a caption, a
    page-link label): :func:`safe_markdown` with its line breaks made spaces."""
    return neutralize_markdown(text, inline=True)


def safe_code(text: Any) -> str:
    """Untrusted text (an id, a model string, a rule) as one inline code span, shown exactly."""
    return md_code(text)


def safe_format(template: str, **values: Any) -> str:
    """Our own Markdown ``template`` (a translated message) with untrusted ``values``: a placeholder
    written in backticks (```{model}```) becomes :func:`safe_code` of its value, any other one
    :func:`safe_inline` of it."""
    for key, value in values.items():
        template = template.replace(f"`{{{key}}}`", md_code(value).replace("{", "{{").replace("}", "}}"))
    return template.format(**{k: safe_inline(v) for k, v in values.items()})


def plot_text(value: Any) -> str:
    """A name for a plotly legend, axis tick or hover text (:func:`debate_core.render.safe.plotly_text`)."""
    return plotly_text(value)


def plot_frame(df, *columns: str):
    """A copy of ``df`` with ``columns`` (the names a figure shows: models, judges, stances, speakers)
    HTML-escaped for plotly; the frame itself is left as it is (tables show it unescaped)."""
    if df is None:
        return df
    import pandas as pd

    present = [c for c in columns if c in df.columns]
    escape = lambda v: v if not isinstance(v, str) and pd.isna(v) else plotly_text(v)  # noqa: E731 - gaps stay gaps
    return df.assign(**{c: df[c].map(escape) for c in present}) if present else df


# ------------------------------------------------------------------- packs


def load_pack(folder: Optional[str] = None) -> Pack:
    """The default pack or a folder (cached by :func:`debate_core.content.packs.get_pack`)."""
    from debate_core.content.packs import get_pack

    folder = (folder or "").strip() or None
    return get_pack(folder)


def pack_summary(pack: Pack) -> str:
    r = pack.report
    return (_("pack **{name}** {version} — {masters} masters, {critiques} critiques, {both} pairs covered both "
              "ways, {one_way} one-way entries").format(name=safe_inline(pack.name), version=safe_inline(pack.version),
                                                        masters=r.masters, critiques=r.critiques,
                                                        both=r.pairs_both_ways, one_way=r.one_way)
            + (_(", {n} errors").format(n=r.errors) if r.errors else ""))


# ------------------------------------------------------------------ speeches


@dataclass
class CitationView:
    id: str
    title: str = ""
    status: str = ""  # quote verification: verified / id_only / unverified / unchecked
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
    chinese: bool = False  # the debate speaks Chinese (its text is cut into paragraphs as Chinese)
    clean: bool = False  # every finding passed: the only case shown with ✓
    verdict: str = ""  # the check badge in the reader's language: ✓ all checks passed / ✗ Restatement ? Hygiene …
    heading: str = ""  # the source's own heading of an imported turn (Turn 3: PRO Rebuttal 1)
    model: str = ""  # the model that spoke, where the record names it (an imported turn's model)
    cited: list[str] = field(default_factory=list)  # the opponent's claim ids an imported turn cites
    no_new_points: bool = False  # a topic debater said it had nothing new this round (its envelope's flag)

    @property
    def title(self) -> str:
        role = chrome.role_text(self.role)  # the role is the app's word: the reader's language
        if self.chinese:  # the seed's heading form: R1｜慧能大师 立论 (R1｜慧能大师 Opening in English)
            return f"R{self.round}｜{self.speaker_name or self.speaker} {role}"
        if self.heading:  # an imported turn's own heading (Turn 3: PRO Rebuttal 1): the debate's words
            return f"{self.heading} · {self.speaker_name or self.speaker}"
        return f"R{self.round}｜{self.speaker_name or self.speaker} · {role}"

    @property
    def rule_findings(self) -> list[dict[str, Any]]:
        return [f for f in self.findings if f.get("layer", "rules") != "model"]

    @property
    def model_findings(self) -> list[dict[str, Any]]:
        return [f for f in self.findings if f.get("layer") == "model"]


def speaker_sources(debate: Debate, archive: Any = None) -> dict[str, dict[str, str]]:
    """{speaker label: {source id: title}} for verifying citations.

    Protocols whose speakers come from a pack: from the pack (or the archive's pack snapshot
    of the debate when the pack is gone).  The others have no per-speaker source list: empty.
    """
    if not registry.get(debate.protocol).asks_for(ASK_PACK):
        return {}
    labels = [p.label for p in debate.participants]
    try:
        pack = load_pack(debate.config.pack)
        if all(label in pack.masters for label in labels):
            return {label: {s.id: s.title for s in pack.masters[label].sources} for label in labels}
    except Exception:  # noqa: BLE001 - the pack is gone: read the archive's snapshot
        pass
    if archive is not None:
        try:
            df = archive.snapshot_sources(debate.id)
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
        return [CitationView(id=m.id, title=m.title or own.get(m.id, ""), status=m.status,
                             quote=m.quote, label=chrome.mark_label(m.status, clean=clean))
                for m in marks]
    out = []
    for c in s.citations:
        if chinese:  # a master's citation checked against his own sources: the id only
            label = chrome.mark_label("id_only", clean=clean) if c in own else _(chrome.NOT_IN_OWN)
        else:
            label = _(N_("✅ verified") if clean or not s.findings else N_("verified")) if c in own \
                else _(N_("❔ unknown"))
        out.append(CitationView(id=c, title=own.get(c, ""), label=label))
    return out


def speech_view(s: Speech, sources: dict[str, dict[str, str]], *, chinese: bool = False) -> SpeechView:
    own = sources.get(s.speaker, {})
    env = s.envelope if isinstance(s.envelope, dict) else {}
    clean = speech_clean(s.findings)
    findings = [{"rule": f.rule, "label": chrome.rule_text(f.rule), "passed": f.passed, "undecided": f.undecided,
                 "applies": f.applies, "layer": f.layer, "message": f.message,
                 "details": [d.model_dump() for d in f.details]} for f in s.findings]
    tools = [f"{t.name}({', '.join(f'{k}={v}' for k, v in t.arguments.items())})" + (" ✗" if t.error else "")
             for t in s.tool_calls]
    return SpeechView(
        round=s.round, speaker=s.speaker, speaker_name=chrome.name_text(s.speaker, s.speaker_name), role=s.role,
        status=s.status,
        # a topic debater's stop flag is envelope data: said by the app (no_new_points), not left in the text
        text=without_flag_lines(s.text) if env else s.text, ammo_used=list(s.ammo_used), citations=citation_views(s, own, chinese=chinese),
        findings=findings,
        retries=s.retries, prompt_tokens=s.prompt_tokens, completion_tokens=s.completion_tokens, cost=s.cost,
        latency_ms=s.latency_ms, engine=s.engine, warnings=list(s.warnings), truncated=s.truncated,
        tool_calls=tools, chinese=chinese, clean=clean, verdict=chrome.badge(findings, clean),
        heading=str(env.get("heading") or ""), model=str(env.get("model") or ""),
        cited=[str(c) for c in env.get("cited") or [] if isinstance(c, str)],
        no_new_points=env.get("no_new_points") is True)


def speech_views(debate: Debate, archive: Any = None) -> list[SpeechView]:
    """Every speech of a debate, in the debate's language."""
    sources = speaker_sources(debate, archive)
    zh = is_chinese(debate)
    return [speech_view(s, sources, chinese=zh) for s in debate.rounds]


def recent_debates(archive: Any, limit: int = 10):
    """The newest debates, readable (Home, and the pickers of Live and Outcome)."""
    return debates_frame(archive.list_debates(limit=limit))


def debates_frame(df):
    """A list_debates frame made readable: lists joined, tokens totalled."""
    import pandas as pd

    if df is None or len(df) == 0:
        return pd.DataFrame(columns=[N_("id"), "created_at", N_("protocol"), "lang", N_("topic"),
                                     N_("participants"), N_("models"), N_("status"), N_("rounds"), N_("tokens"),
                                     N_("cost"), N_("degraded")])
    out = pd.DataFrame({
        "id": df["id"], "created_at": df["created_at"], "protocol": df["protocol"],
        "lang": df["lang"] if "lang" in df.columns else "", "topic": df["topic"],
        "participants": [" vs ".join(map(str, p)) if p is not None else "" for p in df["participants"]],
        "models": [", ".join(map(str, m)) if m is not None else "" for m in df["models"]],
        "status": df["status"],
        "rounds": [f"{int(r or 0)}/{int(p or 0)}" for r, p in zip(df["rounds"], df["planned_rounds"])],
        "tokens": (df["prompt_tokens"].fillna(0) + df["completion_tokens"].fillna(0)).astype("int64"),
        "cost": df["cost"].fillna(0.0), "degraded": df["degraded"].fillna(False).astype(bool),
    })
    return out.reset_index(drop=True)


# -------------------------------------------------------------------- errors


def explain(exc: BaseException) -> tuple[str, str]:
    """(one-line cause, what to do) for any error a page may meet; never a traceback."""
    from debate_core.jobs import one_line

    name = type(exc).__name__
    cause = one_line(exc)
    todo = {
        "InputError": N_("Correct the input above and try again."),
        "ConfigError": N_("Export the named key before starting the app, choose the offline engine, "
                          "or give an API base for an OpenAI-compatible server."),
        "PackError": N_("Choose the default pack or a persona pack folder in the Master-skill layout (a master-… "
                        "folder per master)."),
        "PairError": N_("Pick two different masters of the pack."),
        "SqlRefused": N_("Only one read-only SELECT runs at a time; COPY, ATTACH, INSTALL and file access are "
                         "refused."),
        "ArchiveError": N_("Check the archive file (DEBATE_ARCHIVE); it was left untouched."),
        "JobError": N_("Wait for the run to finish, or stop it first."),
        "KeyError": N_("Open a debate from the Archive page, or start one in Setup."),
        "GatewayError": N_("Check the model, its key and the API base, then retry the round."),
        "UploadError": N_("Check the uploaded files: topic-debate folders (debate-log.md + verdict.md), "
                          "master-debate Markdown, a benchmark checkout (transcripts/ and reports/) or this "
                          "workbench's JSON export."),
        "ImportPathError": N_("Give the full path of a benchmark checkout, an artifact folder or a file on the "
                              "machine running the app."),
        "ImportFormatError": N_("Fix or remove the named file (the line is given) and import again; nothing was "
                                "written."),
    }.get(name, N_("Reload the page; if it persists, check the terminal running the app."))
    todo = _(todo)
    if name == "GatewayError":
        cause = getattr(exc, "cause", cause)
    return cause, todo
