"""Markdown renderers: each protocol in its own seed's framework.

Master debates follow the master-debate v0.8 output framework exactly: the
disclaimer first, ``## 议题：…``, ``### R1｜<name> 立论`` with the full-width bar,
and ``### 教内余争 — 中立观察`` with the bullets 分歧本质 / 共识点 / 留给读者 at
the end.  A master debate is Chinese throughout: besides the framework, each
speech is followed by its check findings and its citation marks, in Chinese.

The labels a Chinese debate shows (statuses, rule names, citation marks, the
lines that state a speech's findings) are defined here once; the app's views
(:mod:`webapp.views`) use the same ones, so the Markdown export and the
Live / Outcome pages say the same thing.

The one rule for the ✓ sign: a speech is shown with ✓ only when every finding
it has (deterministic rules and the optional model audit) passed.  A failed rule
is shown with ✗, a rule that could not decide with ?, each with its name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from debate_core.checks import RULE_LABELS_ZH, RULES
from debate_core.models import CitationMark, Debate, Finding, Speech

DISCLAIMER = "> 本对话依据历史佛教文献生成，对比旨在展现多元视角，不评判优劣。"
COVERAGE_PREFIX = "⚠️"
OBSERVATION_HEADING = "教内余争 — 中立观察"
OBSERVATION_KEYS = ("分歧本质", "共识点", "留给读者")

# A debate's status and a speech's status, as a Chinese debate shows them.
STATUS_ZH = {"running": "进行中", "completed": "已完成", "failed": "失败", "stopped": "已停止", "interrupted": "已中断"}
SPEECH_STATUS_ZH = {"ok": "检查通过", "flagged": "检查未通过，已标记保留", "failed": "本轮失败", "empty": "空发言"}

# Citation marks (quote verification), with and without the ✓ sign.
# unverified: checked against a text and not found; unchecked: a quote with no text to check it against.
MARK_ZH = {"verified": "✓已核对原文", "id_only": "仅经号", "unverified": "✗引文未核对", "unchecked": "引文无原文可核"}
MARK_ZH_PLAIN = {
    "verified": "已核对原文",
    "id_only": "仅经号",
    "unverified": "✗引文未核对",
    "unchecked": "引文无原文可核",
}
MODEL_LAYER_ZH = "模型审核"

# The md lines that state findings (read back by the importer).
LINE_PASS = "检查通过："
LINE_FAIL = "检查未通过："
LINE_UNDECIDED = "检查未能判定："
LINE_NA = "本轮不适用："
LINE_MARK = "引证核对："


def rule_label(rule: str) -> str:
    """A rule's name as a Chinese debate shows it (篇幅, 引证, 复述 …)."""
    return RULE_LABELS_ZH.get(rule, rule)


# Labels older transcripts wrote, read back as the rule they named (切题回应 read as "on topic": renamed).
OLD_LABELS = {"切题回应": "engages"}


def rule_from_label(label: str) -> str:
    """The rule id for a label written by :func:`rule_label`, or by an older version (unknown labels stay
    as they are)."""
    back = {v: k for k, v in RULE_LABELS_ZH.items()}
    return back.get(label, OLD_LABELS.get(label, label))


def status_zh(status: str) -> str:
    return STATUS_ZH.get(status, status)


def status_from_zh(text: str) -> str:
    back = {v: k for k, v in STATUS_ZH.items()}
    return back.get(text, text)


@dataclass
class CheckState:
    """What a speech's findings add up to, per layer."""

    passed: list[Finding] = field(default_factory=list)
    failed: list[Finding] = field(default_factory=list)  # failed and decided
    undecided: list[Finding] = field(default_factory=list)
    not_applicable: list[Finding] = field(default_factory=list)  # neither a pass nor a failure

    @property
    def clean(self) -> bool:
        return bool(self.passed) and not self.failed and not self.undecided

    @property
    def empty(self) -> bool:
        return not (self.passed or self.failed or self.undecided)


def split_findings(findings: Iterable[Finding], layer: str = "rules") -> CheckState:
    state = CheckState()
    for f in findings:
        if (f.layer or "rules") != layer:
            continue
        if not f.applies:
            state.not_applicable.append(f)
        elif f.passed and not f.undecided:
            state.passed.append(f)
        elif f.undecided:
            state.undecided.append(f)
        else:
            state.failed.append(f)
    return state


def speech_clean(findings: Iterable[Finding]) -> bool:
    """True when a speech may be shown with ✓: it has findings that apply and every one of them passed, in
    every layer (a rule that does not apply is neither: it is listed as 不适用)."""
    findings = [f for f in findings if f.applies]
    return bool(findings) and all(f.passed and not f.undecided for f in findings)


def speech_verdict(findings: Iterable[Finding]) -> str:
    """One short line for a speech's checks: ``✓ 检查通过`` only when all passed, else ✗ / ? with rule names."""
    findings = list(findings)
    if not findings:
        return "— 无检查"
    if speech_clean(findings):
        return "✓ 检查通过"
    parts = []
    failed = [f for f in findings if not f.passed and not f.undecided]
    undecided = [f for f in findings if f.undecided]
    if failed:
        parts.append("✗ " + "、".join(dict.fromkeys(_named(f) for f in failed)))
    if undecided:
        parts.append("? " + "、".join(dict.fromkeys(_named(f) for f in undecided)))
    return " ".join(parts)


def _named(f: Finding) -> str:
    return rule_label(f.rule) + (f"（{MODEL_LAYER_ZH}）" if f.layer == "model" and f.rule != "model_audit" else "")


def _with_message(f: Finding) -> str:
    return rule_label(f.rule) + (f"（{f.message}）" if f.message else "")


def citation_marks(findings: Iterable[Finding]) -> list[CitationMark]:
    """The quote-verification marks of a speech (from its deterministic ``citation`` finding)."""
    for f in findings:
        if f.rule == "citation" and (f.layer or "rules") == "rules" and f.marks:
            return list(f.marks)
    return []


def mark_text(mark: CitationMark, *, clean: bool) -> str:
    """``T48n2008《坛经》✓已核对原文「…」``; without ✓ when the speech is not clean."""
    label = (MARK_ZH if clean else MARK_ZH_PLAIN).get(mark.status, mark.status)
    title = f"《{mark.title.strip('《》')}》" if mark.title else ""
    quote = f"「{mark.quote}」" if mark.quote else ""
    return f"{mark.id}{title}{label}{quote}"


def finding_lines(findings: Iterable[Finding]) -> list[str]:
    """A speech's findings as Chinese lines: per layer, failed (✗) and undecided (?) one per line,
    then the rules that passed (with ✓ only when the whole speech is clean), then the marks."""
    findings = list(findings)
    clean = speech_clean(findings)
    out: list[str] = []
    for layer, prefix in (("rules", ""), ("model", MODEL_LAYER_ZH)):
        st = split_findings(findings, layer)
        if st.empty:
            continue
        for f in st.failed:
            out.append(f"✗ {prefix}{LINE_FAIL}{_with_message(f)}")
        for f in st.undecided:
            out.append(f"? {prefix}{LINE_UNDECIDED}{_with_message(f)}")
        if st.passed:
            names = "、".join(rule_label(f.rule) for f in st.passed)
            out.append(("✓ " if clean else "") + f"{prefix}{LINE_PASS}{names}")
        if st.not_applicable:
            out.append(f"{prefix}{LINE_NA}" + "、".join(rule_label(f.rule) for f in st.not_applicable))
    for m in citation_marks(findings):
        out.append(LINE_MARK + mark_text(m, clean=clean))
    return out


def speech_heading(speech: Speech, name: str | None = None) -> str:
    """The seed's round heading, without the ``###``: ``R1｜慧能大师 立论``."""
    return f"R{speech.round}｜{name or speech.speaker_name or speech.speaker} {speech.role}"


CHECKS_HEADING = "附：各轮检查"
CHECKS_NOTE = (
    "（每轮发言的规则检查与引证核对。✓ 只在该轮所有适用的规则都通过时出现；不适用的规则另列，不算通过。"
    "✓ 只说明这些规则（" + "、".join(RULE_LABELS_ZH[r] for r in RULES) + "）没有查出问题，"
    "不说明发言切题（回应论点只看是否回应了对方的论点），也不说明引文内容与出处相符：「仅经号」表示只核对了编号。）"
)


def render_master(debate: Debate, *, engine_line: bool = True, plain: bool = False) -> str:
    """The debate in the seed's framework, read first: the speeches, the observation, then an appendix
    with each round's findings and citation marks (### 附：各轮检查), a status line (an unfinished
    debate) and the engine line.

    ``plain``: the seed's transcript exactly — the disclaimer (and the seed's coverage warning),
    ``## 议题：…``, each speech under its ``### R1｜…`` heading, and the observation; no check
    blockquotes, citation-check lines, status line or engine line, and a round that failed (no
    speech) is left out."""
    names = {p.label: p.name for p in debate.participants}
    out = [DISCLAIMER, ""]
    for w in debate.warnings:
        if w.startswith(COVERAGE_PREFIX):
            out += [f"> {w}", ""]
    out += [f"## 议题：{debate.topic}", ""]
    for s in debate.rounds:
        if plain and (s.status == "failed" or not s.text.strip()):
            continue
        out.append("### " + speech_heading(s, s.speaker_name or names.get(s.speaker, s.speaker)))
        out.append("")
        if s.status == "failed":
            out.append(f"（本轮未完成：{'; '.join(s.warnings) or '生成失败'}）")
        else:
            out.append(s.text.strip())
        out.append("")
    if debate.observation:
        o = debate.observation
        out += [
            f"### {OBSERVATION_HEADING}",
            f"- 分歧本质：{o.divergence}",
            f"- 共识点：{o.consensus}",
            f"- 留给读者：{o.to_reader}",
            "",
        ]
    elif debate.status != "completed" and not plain:
        out += [f"> 状态：{status_zh(debate.status)}（{debate.stop_reason}）", ""]
    checked = [] if plain else [(s, finding_lines(s.findings)) for s in debate.rounds]
    if any(lines for _s, lines in checked):
        out += [f"### {CHECKS_HEADING}", "", CHECKS_NOTE, ""]
        for s, lines in checked:
            if lines:
                out += [
                    "#### " + speech_heading(s, s.speaker_name or names.get(s.speaker, s.speaker)),
                    "",
                    "\n>\n".join(f"> {line}" for line in lines),
                    "",
                ]
    if engine_line and not plain:
        engines = sorted({s.engine for s in debate.rounds if s.engine}) or debate.models
        shown = ["离线引擎" if e == "offline" else e for e in engines]  # a model string is a name, kept as it is
        out.append(
            f"> 引擎：{'、'.join(shown)} · 辩论 {debate.id} · 人物包 {debate.pack_name} {debate.pack_version}".rstrip()
        )
    return "\n".join(out).rstrip() + "\n"
