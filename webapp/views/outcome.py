"""The Outcome page: the closing section (a neutral observation, or a judge's verdict), the checks
per round, the transcript and the downloads.  Nothing here imports streamlit."""

from __future__ import annotations

import io
import re
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from debate_core.analysis.ledger import build_ledger
from debate_core.io.exporters import export_debate
from debate_core.models import Debate
from debate_core.protocols import registry
from debate_core.checks.registry import rule_names
from debate_core.render.master import citation_marks, speech_clean
from debate_core.render.judged import incomplete_line, summary_text
from debate_core.render.safe import neutral_debate

from webapp.i18n import N_, _
from webapp.views import chrome
from webapp.views.common import SpeechView, is_chinese, plot_frame, speech_views, status_text

# the deterministic rules, in the order they run: read from the rule registry (debate_core.checks.registry)
CHECK_RULES = rule_names()
SPEECH_STATUS = {"ok": N_("ok"), "flagged": N_("flagged"), "failed": N_("failed"), "empty": N_("empty")}


def _message(f) -> str:
    """A finding's message in the reader's language from its details (the debate's words it quotes inline),
    else the checker's own words."""
    said = chrome.finding_said(f, inline=True)
    return f.message if said is None else said.text


def _cell(f, clean: bool) -> str:
    """One finding in the checks table: ✓ only when the whole speech passed; ✗ failed; ? undecided."""
    if f is None:
        return "—"
    if not getattr(f, "applies", True):  # not applicable is never a pass
        return _("not applicable")
    if f.undecided:
        return f"? {_message(f)}".strip()
    if not f.passed:
        return f"✗ {_message(f)}".strip()
    return "✓" if clean else _("passed")


def _model_cell(findings, clean: bool) -> str:
    """The model audit's column: ✓ (or passed), or each rule it failed or could not decide."""
    model = [f for f in findings if f.layer == "model"]
    bad = [f for f in model if not f.passed or f.undecided]
    if not model:
        return "—"
    if not bad:
        return "✓" if clean else _("passed")
    return _("; ").join(("? " if f.undecided else "✗ ")
                        + (_("{rule} ({message})").format(rule=chrome.rule_text(f.rule), message=_message(f))
                           if f.message else chrome.rule_text(f.rule)) for f in bad)


def _mark_cell(findings, clean: bool) -> str:
    """The quote marks of a speech: id, the cited title, the mark (reader's language), the quote."""
    return _("; ").join(f"{m.id}" + (f"《{m.title.strip('《》')}》" if m.title else " ")
                        + chrome.mark_label(m.status, clean=clean) + (f"「{m.quote}」" if m.quote else "")
                        for m in citation_marks(findings)) or "—"


def checks_table(debate: Debate):
    """Per round: speaker, role, status, retries, the speech's overall result and each check's result.

    Deterministic rules have a column each (named from the rule registry in the reader's language);
    the optional model audit (findings of layer ``model``) has its own column beside them.  Every
    column name and cell is the app's, in the reader's language (``ui.table`` translates the column
    names); only the quoted titles and quotes are the debate's.
    """
    import pandas as pd

    rules = [r for r in CHECK_RULES if is_chinese(debate) or r != "hygiene"]
    for s in debate.rounds:
        for f in s.findings:
            if f.layer != "model" and f.rule not in rules:
                rules.append(f.rule)
    has_model = any(f.layer == "model" for s in debate.rounds for f in s.findings)
    has_marks = any(citation_marks(s.findings) for s in debate.rounds)
    head = [N_("round"), N_("speaker"), N_("role"), N_("status"), N_("retries"), N_("result")]
    rows = []
    for s in debate.rounds:
        clean = speech_clean(s.findings)
        findings = [{"rule": f.rule, "passed": f.passed, "undecided": f.undecided, "layer": f.layer}
                    for f in s.findings]
        row = dict(zip(head, [s.round, s.speaker_name or s.speaker, chrome.role_text(s.role),
                              _(SPEECH_STATUS[s.status]) if s.status in SPEECH_STATUS else s.status, s.retries,
                              chrome.badge(findings, clean) or "—"]))
        by = {f.rule: f for f in s.findings if f.layer != "model"}
        for r in rules:
            row[chrome.rule_text(r)] = _cell(by.get(r), clean)
        if has_marks:
            row[_("quotes")] = _mark_cell(s.findings, clean)
        if has_model:
            row[_("model audit")] = _model_cell(s.findings, clean)
        rows.append(row)
    columns = head + [chrome.rule_text(r) for r in rules]
    columns += [_("quotes")] if has_marks else []
    columns += [_("model audit")] if has_model else []
    return pd.DataFrame(rows, columns=columns)


@dataclass
class OutcomeView:
    kind: str  # observation / verdict / pending
    debate: Debate
    headline: str
    own_reason: str = ""  # the debate's own stop reason (not one the app wrote): shown as its words, apart
    heading: str = ""  # the closing section's heading when the protocol ends without a verdict
    observation: Optional[dict[str, str]] = None
    checks: Any = None  # DataFrame
    winner: Optional[str] = None
    winner_text: str = ""
    summary: str = ""
    reasons: dict[str, str] = field(default_factory=dict)
    per_round: Any = None  # DataFrame
    debaters: Any = None  # DataFrame
    parsed: bool = True
    incomplete: str = ""  # 判决不完整：缺… / Verdict incomplete: missing … (a checked verdict with gaps)
    raw: str = ""
    note: str = ""
    note_own: bool = False  # the note is the judge's own words (the debate's language), not the app's
    # the seed's closing summary where the protocol has one (debate_core.render.judged.WrapUp): its frame in the
    # reader's language, the debate's own words (topic, stances, the judge's summary) apart and neutralised
    wrap_up: Any = None
    winner_stance: str = ""  # the winner's stance when it is the debate's own words (a topic debate's)
    judge: str = ""
    judge_own: bool = False  # the verdict's judge line is the judge's own words (an import's), not a model id
    speeches: list[SpeechView] = field(default_factory=list)
    panel: Any = None  # DataFrame: one row per judge of an imported panel (judge, winner, margins, entertainment)
    panel_notes: list[dict[str, str]] = field(default_factory=list)  # judge, winner, notes, preview, decisive
    side_legend: str = ""  # "Side A = PRO, Side B = CON" when the judges' notes name the sides by letter
    twin: Optional[str] = None  # the side-swapped twin's id (same motion and models, sides swapped), if archived

    def scores_figure(self):
        return scores_figure(self.debaters) if self.debaters is not None else None


def winner_text(debate: Debate, winner: Optional[str]) -> str:
    """The winner in the reader's language: a side by its side (PRO wins; an imported panel's by its model's
    name too: gpt-x (PRO) wins), an anonymous debater by its label (辩手乙 wins: its stance is the debate's
    own words, :func:`winner_stance`); a winner who is no participant (a draw) as it is."""
    if not winner:
        return _("no winner")
    p = debate.participant(winner)
    if p is None:
        return winner
    name = chrome.name_text(winner, p.name)
    if winner in chrome.SIDES and name != chrome.side_text(winner):  # an imported panel's sides: PRO / CON
        return _("{who} wins").format(who=f"{name} ({chrome.side_text(winner)})")
    return _("{who} wins").format(who=name)


def winner_stance(debate: Debate, winner: Optional[str]) -> str:
    """The winner's stance when it is the debate's own words (shown apart, in a content region), else empty."""
    p = debate.participant(winner) if winner else None
    return chrome.own_stance(p.stance) if p is not None else ""


def _judge_is_own(judge: str) -> bool:
    """A verdict's judge line that is words (an imported verdict's introduction), not a model id."""
    return bool(re.search(r"\s|[\u3400-\u9fff]", (judge or "").strip()))


def outcome_view(debate: Debate, archive: Any = None) -> OutcomeView:
    """What the Outcome page shows: a judged protocol's verdict, or the other protocols' closing section."""
    import pandas as pd

    spec = registry.get(debate.protocol)
    speeches = speech_views(debate, archive)
    reason = chrome.app_stop_reason(debate.stop_reason)
    own = "" if reason is not None else (debate.stop_reason or "").strip()
    status_line = _("status {status}").format(status=status_text(debate.status)) + (f" — {reason}" if reason else "")
    if not (spec.judged or spec.panel):
        o = debate.observation
        heading = _(chrome.OBSERVATION_HEADING) if spec.outcome_heading else ""
        view = OutcomeView(kind="observation" if o else "pending", debate=debate, headline=status_line, own_reason=own,
                           heading=heading, checks=checks_table(debate), speeches=speeches)
        if o is not None:  # the seed's three bullets: the app's keys (reader's language), the debate's words
            keys = chrome.OBSERVATION_KEYS
            view.observation = {_(keys["分歧本质"]): o.divergence, _(keys["共识点"]): o.consensus,
                                _(keys["留给读者"]): o.to_reader}
        return view
    v = debate.verdict
    view = OutcomeView(kind="verdict" if v else "pending", debate=debate, headline=status_line, own_reason=own,
                       speeches=speeches,
                       checks=checks_table(debate) if any(s.findings for s in debate.rounds) else None)
    if spec.wrap_up_lines is not None and debate.status in ("completed", "failed"):
        # the library's words in the reader's language around the debate's values, which are neutralised
        view.wrap_up = spec.wrap_up_lines(neutral_debate(debate), lang=chrome.lang(),
                                          archive=str(getattr(archive, "path", "") or "") or None)
    if debate.judgments:
        view.panel, view.panel_notes = judge_panel(debate)
        view.side_legend = side_legend(debate)
        view.twin = twin_debate(archive, debate) if archive is not None else None
    if v is None:
        return view
    by_label = {p.label: p for p in debate.participants}
    rows = []
    labels = [r.label for r in v.rows] or list(by_label)
    for label in labels:
        row = next((r for r in v.rows if r.label == label), None)
        p = by_label.get(label)
        # pro / con: PRO / CON (正方 / 反方); a topic debater by its seat in the reader's language (Debater A)
        rows.append({N_("debater"): chrome.name_text(label, p.name if p else ""),
                     N_("stance"): chrome.stance_text(row.stance if row and row.stance else (p.stance if p else "")),
                     N_("model"): p.model if p else "", N_("strongest point"): row.strongest if row else "",
                     N_("fatal weakness"): row.weakness if row else "", N_("score"): row.score if row else None})
    view.winner, view.winner_text = v.winner, winner_text(debate, v.winner)
    view.winner_stance = winner_stance(debate, v.winner)
    notes = {j.judge: j.notes for j in debate.judgments}
    reasons = {k: r for k, r in v.reasons.items() if notes.get(k) != r}  # a panel's notes show under the panel
    # the summary without a leading winner statement: the winner line says the winner once
    view.summary, view.reasons, view.note, view.judge = summary_text(debate), reasons, chrome.note_text(v.note), v.judge
    view.note_own = bool(v.note) and chrome.app_note(v.note) is None
    view.judge_own = _judge_is_own(v.judge)
    view.incomplete = incomplete_line(debate, chrome.lang())  # the library's words, in the reader's language
    view.parsed, view.raw = v.parsed, v.raw
    view.per_round = pd.DataFrame([{"round": c.round, "commentary": c.comment} for c in v.per_round],
                                  columns=[N_("round"), N_("commentary")])
    view.debaters = pd.DataFrame(rows, columns=["debater", "stance", "model", "strongest point", "fatal weakness",
                                                "score"])
    return view


PANEL_COLUMNS = (N_("judge"), N_("winner"), N_("signed margin"), N_("normalized"), N_("entertainment"))


def judge_panel(debate: Debate):
    """An imported panel: (a table with one row per judge — judge, winner (name and side), the signed
    margin (PRO positive), the normalized margin, entertainment — and each judge's notes)."""
    import pandas as pd

    rows, notes = [], []
    for j in debate.judgments:
        p = debate.participant(j.winner) if j.winner in ("pro", "con") else None
        who = f"{j.winner_name or (p.name if p else '') or j.winner} ({chrome.side_text(j.winner)})" \
            if j.winner != "tie" else (j.winner_name if j.winner_name and j.winner_name.lower() != "tie" else _("tie"))
        rows.append(dict(zip(PANEL_COLUMNS, (j.judge, who, j.margin, j.normalized, j.entertainment))))
        notes.append({"judge": j.judge, "winner": who, "notes": j.notes, "preview": preview(j.notes),
                      "decisive": j.decisive})
    return pd.DataFrame(rows, columns=list(PANEL_COLUMNS)), notes


PREVIEW_CHARS = 280  # a judge's notes longer than this show their first words and expand to the whole


def preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    """The first words of a long text, cut at a word (or sentence) boundary, never mid-word, with "…";
    empty when the text is short enough to show whole."""
    text = (text or "").strip()
    if len(text) <= limit:
        return ""
    cut = text[:limit]
    space = max(cut.rfind(" "), cut.rfind("\n"))
    if re.search(r"[\u4e00-\u9fff]", cut):  # Chinese has no spaces: cut after a punctuation mark
        space = max(space, max(cut.rfind(c) for c in "。！？；，"))
    if space > limit // 2:
        cut = cut[:space + (1 if not cut[space].isspace() else 0)]
    return cut.rstrip(" ,;:") + " …"


_SIDE_LETTER = re.compile(r"\bSide ([AB])\b")


def side_legend(debate: Debate) -> str:
    """When the judges' notes call the sides Side A / Side B: a one-line legend from the debate's own data
    (Side A is the side that spoke first, as the benchmark presents it to its judges), else empty."""
    if not any(_SIDE_LETTER.search(j.notes or "") or _SIDE_LETTER.search(j.decisive or "") for j in debate.judgments):
        return ""
    first = min(debate.rounds, key=lambda s: ((s.envelope or {}).get("turn") or 0, s.round), default=None) \
        if debate.rounds else None
    a = first.speaker if first is not None and first.speaker in chrome.SIDES else "pro"
    b = "con" if a == "pro" else "pro"
    return _("In the judges' notes: Side A = {a}, Side B = {b}.").format(a=chrome.side_text(a), b=chrome.side_text(b))


def twin_debate(archive: Any, debate: Debate) -> Optional[str]:
    """The side-swapped twin of an imported benchmark debate, when the archive holds it: the other debate
    of its side-swap group (same motion, same two models, sides swapped); None when there is none."""
    if not debate.group or archive is None:
        return None
    try:
        df = archive.group_debates(debate.group, exclude=debate.id)
    except Exception:  # noqa: BLE001 - an archive without the column: no twin
        return None
    pro, con = (debate.models + ["", ""])[:2]
    for row in df.itertuples(index=False):
        models = list(row.models) if row.models is not None else []
        if models[:2] == [con, pro]:  # the same two models, sides swapped
            return str(row.id)
    return None


def scores_figure(debaters):
    import plotly.express as px

    df = debaters.dropna(subset=["score"]) if debaters is not None else None
    if df is None or df.empty:
        return None
    df = plot_frame(df, "debater", "stance", "model")  # names in the axis, legend and hover: HTML-escaped
    fig = px.bar(df, x="debater", y="score", color="debater", hover_data=["stance", "model"], range_y=[0, 10],
                 text="score", title=_("Judge's scores (0-10)"),
                 labels={k: _(k) for k in (N_("debater"), N_("score"), N_("stance"), N_("model"))})
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
    """The download buttons: the formats the debate's protocol offers."""
    base = f"debate-{debate.id}"
    every = {"md": Download(_("Markdown (.md)"), f"{base}.md", "text/markdown", "md"),
             "json": Download(_("JSON (.json)"), f"{base}.json", "application/json", "json"),
             "ipynb": Download(_("Notebook (.ipynb)"), f"{base}.ipynb", "application/x-ipynb+json", "ipynb"),
             "html": Download(_("HTML page (.html)"), f"{base}.html", "text/html", "html"),
             "debate-dir": Download(_("Topic-debate folder (.zip)"), f"{slug_for(debate)}.debate.zip",
                                    "application/zip", "debate-dir")}
    formats = list(registry.get(debate.protocol).export_formats)
    if "html" not in formats:  # every protocol's debate reads as a page: offered beside its Markdown
        formats.insert(formats.index("md") + 1 if "md" in formats else 0, "html")
    return [every[fmt] for fmt in formats]


def export_bytes(archive: Any, debate_id: str, fmt: str) -> bytes:
    """A debate exported as ``fmt`` by :func:`debate_core.io.exporters.export_debate` (md, json,
    ipynb, html with the argument ledger in its analysis; debate-dir as a zip of its folder)."""
    options = {"ledger_of": build_ledger} if fmt == "html" else {}
    with tempfile.TemporaryDirectory(prefix="debate-export-") as tmp:
        written = Path(export_debate(archive, debate_id, fmt, Path(tmp) / f"debate.{fmt}", **options))
        return _zip_folder(written) if written.is_dir() else written.read_bytes()


def _zip_folder(folder: Path) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                zf.write(p, str(Path(folder.name) / p.relative_to(folder)))
    return buf.getvalue()


# ------------------------------------------------------------- reading a speech

SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_INLINE_CITE = re.compile(r"【([^【】\n]{1,200})】")
_NOTE = re.compile("\ue000(\\d+)\ue001")
_SENTENCE_ZH = re.compile(r"(?<=[。！？])(?![」』”’）)])")
_SENTENCE_EN = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"”’)]))\s+(?=[A-Z\"“(])")
PARAGRAPH_CHARS_ZH = 130  # a paragraph is cut at the first sentence end past this many characters
PARAGRAPH_CHARS_EN = 480


def _mark_citations(text: str, citations) -> str:
    """Each inline citation 【《title》，ID】 of one of the speech's sources becomes a note mark: the
    n-th citation of an id takes the n-th note of that id (a note per quote, in the order cited)."""
    notes: dict[str, list[int]] = {}
    for n, c in enumerate(citations, 1):
        notes.setdefault(c.id, []).append(n)
    if not notes:
        return text
    used: dict[str, int] = {}

    def sub(m: re.Match) -> str:
        inner = m.group(1)
        marks = []
        for sid, numbers in notes.items():
            if sid and sid in inner:
                k = used.get(sid, 0)
                marks.append(numbers[min(k, len(numbers) - 1)])
                used[sid] = k + 1
        return "".join(f"\ue000{n}\ue001" for n in sorted(set(marks))) if marks else m.group(0)

    return _INLINE_CITE.sub(sub, text)


_OPENERS = re.compile(r"^\s*(其[一二三四五六七八九十]|第[一二三四五六七八九十]+[点条]|首先|其次|再次|最后|总之|"
                      r"(First|Second|Third|Fourth|Finally|In short|To conclude)\b)")


def paragraphs(text: str, *, chinese: Optional[bool] = None) -> list[str]:
    """A speech cut into readable paragraphs: its own blank-line paragraphs kept; a long block cut at
    sentence ends (a Chinese speech at about 130 characters, an English one at about 480)."""
    text = (text or "").replace("\r\n", "\n").strip()
    if not text:
        return []
    if chinese is None:
        chinese = bool(re.search(r"[\u4e00-\u9fff]", text))
    limit = PARAGRAPH_CHARS_ZH if chinese else PARAGRAPH_CHARS_EN
    splitter = _SENTENCE_ZH if chinese else _SENTENCE_EN
    out: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        block = block.strip()
        if not block:
            continue
        if len(block) <= limit or re.search(r"^\s*([-*+]|\d+[.)]|#|>|\|)", block, re.M):
            out.append(block)  # short, or Markdown of its own (a list, a table, a quote): kept whole
            continue
        current = ""
        for sentence in (s for s in splitter.split(block) if s and s.strip()):
            if current and len(current) >= limit // 3 and _OPENERS.match(sentence):
                out.append(current.strip())  # "其二，…" / "Second, …" opens a paragraph of its own
                current = ""
            current += sentence if chinese or not current else " " + sentence.strip()
            if len(current) >= limit:
                out.append(current.strip())
                current = ""
        if current.strip():
            out.append(current.strip())
    return out


def reading_paragraphs(sv: SpeechView) -> list[str]:
    """The speech as safe Markdown paragraphs, its inline citations replaced by note numbers (¹ ²)."""
    from webapp.views.common import safe_markdown

    marked = _mark_citations(sv.text or "", sv.citations)
    return [_NOTE.sub(lambda m: m.group(1).translate(SUPERSCRIPT), safe_markdown(p))
            for p in paragraphs(marked, chinese=sv.chinese or None)]


def reading_markdown(sv: SpeechView) -> str:
    return "\n\n".join(reading_paragraphs(sv))


def check_badge(sv: SpeechView) -> str:
    """One line for all of a speech's checks: ✓ when every one passed, else the rules that failed (✗)
    or could not be decided (?); empty when the protocol has no checks."""
    if not sv.findings:
        return ""
    if sv.chinese:
        return sv.verdict
    if sv.clean:
        return "✓ " + _("all checks passed")
    bad = [("? " if f.get("undecided") else "✗ ") + str(f["rule"]) + (_(" (model audit)") if f.get("layer") == "model"
                                                                       else "")
           for f in sv.findings if not f["passed"] or f.get("undecided")]
    return " ".join(bad) or "✓"


def shows_usage(sv: SpeechView) -> bool:
    """Token usage means something only for a model's reply: never for the offline engine."""
    return bool(sv.engine) and sv.engine != "offline"
