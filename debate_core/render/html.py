"""One debate as one self-contained HTML page: for reading on a screen, for a projector, for print.

The page holds everything it shows: its CSS is inline (:mod:`debate_core.render.html_style`), it
has no script, no image, no font and no link to anywhere, and a Content-Security-Policy of
``default-src 'none'`` makes any request it might still contain fail.  Every piece of a debate's
text (topic, names, speeches, judges' notes) is HTML-escaped and never read as Markdown or HTML:
``<script>``, ``<img src=…>`` or a Markdown image ``![x](http://host/x.png)`` in a speech shows
as the characters it is.  Only ``**bold**``, bullet lines and paragraphs are given form.

It is written in the debate's language (``debate.lang``; a master debate is Chinese):

1. the header: the seed's disclaimer where there is one, the topic, who argued, when;
2. the speeches as cards: paragraphs, the citations as numbered notes (the source's title and
   its verification mark, ✓ only when the whole speech passed its checks), and one check badge
   that opens (``<details>``) to the findings;
3. the closing: the neutral observation, or the verdict (winner, reasons, per-round commentary,
   the table per debater without empty columns), or the judge panel;
4. a compact analysis: the checks per speech, the argument ledger's counts and dropped claims
   (when the caller passes a ledger: this layer cannot build one), and usage.

Nothing here knows a protocol by name: what a card shows follows from the record (an envelope of
arguments and rebuttals, a source heading, citation marks, findings).
"""

from __future__ import annotations

import re
from html import escape
from typing import Any

from debate_core.models import Debate, Finding, Ledger, Observation, Speech
from debate_core.render.html_style import CSS
from debate_core.render.master import (
    DISCLAIMER,
    MARK_ZH,
    MARK_ZH_PLAIN,
    MODEL_LAYER_ZH,
    OBSERVATION_HEADING,
    citation_marks,
    rule_label,
    speech_clean,
    speech_verdict,
)

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

TEXT: dict[str, dict[str, Any]] = {
    "zh": {
        "html_lang": "zh-CN", "topic": "议题", "speeches": "发言", "analysis": "分析", "verdict": "裁决",
        "observation": OBSERVATION_HEADING, "no_ranking": "不判胜负，只陈述分歧所在。",
        "obs_keys": ("分歧本质", "共识点", "留给读者"), "vs": " 对 ", "status": "状态", "rounds": "{n} 篇发言",
        "status_names": {"running": "进行中", "completed": "已完成", "failed": "失败", "stopped": "已停止",
                         "interrupted": "已中断"},
        "head": "R{round}｜{name} {role}", "roles": {"opening": "立论", "rebuttal": "反驳", "closing": "综合",
                                                   "pro": "发言", "con": "发言", "pressure_questions": "追问",
                                                   "answers": "答问"},
        "failed": "（本轮未完成：{why}）", "gen_failed": "生成失败", "empty": "（本篇没有内容）",
        "reasoning": "理由", "evidence": "证据", "rebuttal": "反驳", "no_new": "本轮没有新论点",
        "notes": "引注", "no_checks": "无检查", "retries": "重试 {n} 次", "truncated": "已截断",
        "research": "调研（{n} 次）", "model_layer": MODEL_LAYER_ZH,
        "winner": "胜方：{who}", "no_winner": "没有胜方", "draw": "平局",
        "unparsed": "未能解析裁判的输出：没有判定胜方（不是平局）。裁判原文：",
        "reasons": "判词", "per_round": "逐轮点评", "round_n": "第 {n} 轮", "debaters": "逐方点评",
        "to_reader": "给读者的话", "judge": "裁判：{judge}", "panel": "裁判团", "decisive": "最关键的一点：",
        "pending": "尚无结论：本场辩论{status}。",
        "cols": {"debater": "辩手", "stance": "立场", "model": "模型", "strongest": "最强论点", "weakness": "致命弱点",
                 "score": "评分", "judge": "裁判", "winner": "胜方", "margin": "差距（正方为正）",
                 "normalized": "归一化差距", "entertainment": "观赏性", "round": "轮次", "speaker": "发言者",
                 "result": "结果"},
        "checks_table": "各篇检查", "checks_note": "✓ 仅在一篇发言的全部检查都通过时出现；✗ 未通过；? 未能判定。",
        "ledger": "论证账本", "claims": "论点", "attacks": "回应", "dropped": "未被回应",
        "ledger_note": "回应关系读自：{basis}；依据：{evidence}。未被回应：对方之后发过言却没有回应的论点。",
        "dropped_list": "未被回应的论点（{n}）", "usage": "用量",
        "usage_line": "{speeches} 篇发言 · 输入 {prompt} / 输出 {completion} 词元{cost}",
        "models": "模型：{models}", "exported": "导出自辩论工作台 · 辩论 {id} · {date}",
    },
    "en": {
        "html_lang": "en", "topic": "Motion", "speeches": "Speeches", "analysis": "Analysis", "verdict": "Verdict",
        "observation": "Neutral observation", "no_ranking": "No winner is named; the observation states where "
                                                            "the two part ways.",
        "obs_keys": ("Where they differ", "Common ground", "For the reader"), "vs": " vs ", "status": "Status",
        "rounds": "{n} speeches",
        "status_names": {"running": "running", "completed": "completed", "failed": "failed", "stopped": "stopped",
                         "interrupted": "interrupted"},
        "head": "Round {round} · {name} · {role}", "roles": {"opening": "opening", "rebuttal": "rebuttal",
                                                             "closing": "closing", "pro": "speech", "con": "speech",
                                                             "pressure_questions": "pressure questions",
                                                             "answers": "answers"},
        "failed": "(this round did not finish: {why})", "gen_failed": "generation failed",
        "empty": "(nothing was said)", "reasoning": "Reasoning", "evidence": "Evidence", "rebuttal": "Rebuttal",
        "no_new": "no new points this round", "notes": "Notes", "no_checks": "no checks",
        "retries": "{n} retries", "truncated": "cut at the length limit", "research": "Research ({n} calls)",
        "model_layer": "model audit",
        "winner": "Winner: {who}", "no_winner": "no winner", "draw": "a draw",
        "unparsed": "The judge's output could not be parsed: there is no winner (this is not a draw). Its text:",
        "reasons": "Reasons", "per_round": "Per-round commentary", "round_n": "Round {n}",
        "debaters": "Per debater", "to_reader": "To the reader", "judge": "judge: {judge}", "panel": "Judge panel",
        "decisive": "Most decisive: ", "pending": "No outcome yet: the debate is {status}.",
        "cols": {"debater": "debater", "stance": "stance", "model": "model", "strongest": "strongest point",
                 "weakness": "fatal weakness", "score": "score", "judge": "judge", "winner": "winner",
                 "margin": "signed margin (PRO +)", "normalized": "normalized", "entertainment": "entertainment",
                 "round": "round", "speaker": "speaker", "result": "result"},
        "checks_table": "Checks per speech", "checks_note": "✓ only when every check of a speech passed; "
                                                            "✗ failed; ? undecided.",
        "ledger": "Argument ledger", "claims": "claims", "attacks": "attacks", "dropped": "dropped",
        "ledger_note": "Attacks read from: {basis}; evidence used: {evidence}. A claim is dropped when another "
                       "speaker spoke after it and nobody answered it.",
        "dropped_list": "Dropped claims ({n})", "usage": "Usage",
        "usage_line": "{speeches} speeches · {prompt} prompt / {completion} completion tokens{cost}",
        "models": "models: {models}", "exported": "Exported from the Debate Workbench · debate {id} · {date}",
    },
}
MARK_EN = {"verified": "✓ quote verified", "id_only": "source id only", "unverified": "✗ quote not found",
           "unchecked": "no text to check the quote against"}
MARK_EN_PLAIN = {**MARK_EN, "verified": "quote verified"}
BASIS = {"zh": {"claim ids": "发言中引用的论点编号", "envelopes": "辩手的结构化论点与反驳",
                "speech plans": "各轮的发言计划",
                "speech plans and passages": "发言计划，以及模型所写发言的段落", "passages": "各篇发言的段落",
                "restatements": "每轮开头对对方上一轮的复述", "none": "无"},
         "en": {"claim ids": "the claim ids the speakers cite", "envelopes": "the debaters' structured arguments "
                "and rebuttals", "speech plans": "each round's speech plan", "speech plans and passages":
                "the speech plans, and the passages of model-written speeches", "passages": "the passages of each "
                "speech", "restatements": "each round's restatement of the opponent", "none": "nothing"}}
EVIDENCE = {"zh": {"explicit": "明示引用", "inferred": "对齐推断", "model": "模型标注"},
            "en": {"explicit": "explicit references", "inferred": "inferred by the aligner", "model": "model labels"}}
SIDE_WORDS = {"zh": {"pro": "正方", "con": "反方"}, "en": {"pro": "PRO", "con": "CON"}}

_BRACKET = re.compile(r"【([^【】\n]{1,200})】")
_TITLE = re.compile(r"《([^》]{1,80})》")
_CLAIM_TAG = re.compile(r"^\s*\[([A-Za-z]{1,3}\d+(?:\.\d+)+)\]\s*")
_CLAIM_REF = re.compile(r"\[([A-Za-z]{1,3}\d+(?:\.\d+)+)\]")
_BOLD = re.compile(r"\*\*(?=\S)([^*\n]{1,400}?)(?<=\S)\*\*")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+")
_SENTENCE_END = re.compile(r"(?<=[。！？])[」』”’）)]*")
_MARKERS = re.compile(r"^(?:其[一二三四五六]|第[一二三四五六]点|首先|其次|再次|最后|反过来说|关于|总之|所以)")
LONG_PARAGRAPH = 260  # a CJK paragraph longer than this is cut into readable parts at sentence ends


def _e(text: Any) -> str:
    return escape(str(text if text is not None else ""), quote=True)


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[:n] + "…"


def _anchor(value: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "-", value)


# ------------------------------------------------------------------ text


def _cjk_parts(par: str) -> list[str]:
    """A long Chinese paragraph cut at sentence ends: before an enumeration marker (其一, 第二点, 最后…)
    once the part has some length, or once it is long."""
    if len(par) <= LONG_PARAGRAPH or "\n" in par or not re.search(r"[\u4e00-\u9fff]", par):
        return [par]
    sentences, pos = [], 0
    for m in _SENTENCE_END.finditer(par):
        if m.end() > pos:
            sentences.append(par[pos:m.end()])
            pos = m.end()
    if pos < len(par):
        sentences.append(par[pos:])
    parts, cur = [], ""
    for s in sentences:
        if cur and ((_MARKERS.match(s.strip()) and len(cur) >= 60) or len(cur) >= 220):
            parts.append(cur)
            cur = ""
        cur += s
    if cur:
        parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


class _Notes:
    """A speech's citations as numbered notes: each 【…】 bracket of the text becomes a reference to
    one note (the same source with the same mark keeps its number), marks left over are listed too."""

    def __init__(self, speech: Speech, prefix: str, t: dict, lang: str):
        self.prefix, self.t, self.lang = prefix, t, lang
        self.clean = speech_clean(speech.findings)
        self.marks = citation_marks(speech.findings)
        self.used = [False] * len(self.marks)
        self.ids = list(dict.fromkeys(speech.citations))
        self.notes: list[tuple[str, str, str, str]] = []  # (id, title, status, quote)

    def _number(self, note: tuple[str, str, str, str]) -> int:
        if note not in self.notes:
            self.notes.append(note)
        return self.notes.index(note) + 1

    def ref(self, inner: str) -> str | None:
        """The note reference for a bracket's inside, or None when the bracket cites nothing."""
        title_m = _TITLE.search(inner)
        title = title_m.group(1) if title_m else ""
        hit = next((i for i, m in enumerate(self.marks) if not self.used[i] and m.id and m.id in inner), None)
        if hit is None:
            hit = next((i for i, m in enumerate(self.marks) if m.id and m.id in inner), None)
        if hit is not None:
            self.used[hit] = True
            m = self.marks[hit]
            note: tuple[str, str, str, str] = (m.id, m.title or title, m.status, m.quote)
        else:
            cid = next((c for c in self.ids if c and c in inner), "")
            if not cid and not title:
                return None
            note = (cid, title, "", "")
        n = self._number(note)
        return f'<sup class="nref"><a href="#{self.prefix}-{n}">{n}</a></sup>'

    def html(self) -> str:
        for i, m in enumerate(self.marks):
            if not self.used[i]:
                self._number((m.id, m.title, m.status, m.quote))
        if not self.notes:
            return ""
        items = []
        for n, (cid, title, status, quote) in enumerate(self.notes, 1):
            parts = []
            if title:
                parts.append(f'<span class="title">《{_e(title.strip("《》"))}》</span>' if self.lang == "zh"
                             else f'<span class="title">{_e(title)}</span>')
            if cid:
                parts.append(_e(cid))
            if status:
                table = (MARK_ZH if self.clean else MARK_ZH_PLAIN) if self.lang == "zh" else \
                    (MARK_EN if self.clean else MARK_EN_PLAIN)
                parts.append(f'<span class="mark-{_e(status)}">{_e(table.get(status, status))}</span>')
            if quote:
                parts.append(f"「{_e(quote)}」" if self.lang == "zh" else f"“{_e(quote)}”")
            items.append(f'<li id="{self.prefix}-{n}">{" · ".join(parts)}</li>')
        return f'<ol class="notes" aria-label="{_e(self.t["notes"])}">' + "".join(items) + "</ol>"


def _rich(text: Any) -> str:
    """Prose of the record outside the speeches (a verdict's reasons, a judge's notes): escaped, **bold** kept."""
    return _inline(str(text if text is not None else ""), None, set())


def _inline(raw: str, notes: _Notes | None, claims: set[str]) -> str:
    """One run of text as HTML: escaped, with citation brackets as note references, known claim
    ids as links, and **bold**."""
    out, pos = [], 0
    pattern = re.compile(_BRACKET.pattern + "|" + _CLAIM_REF.pattern)
    for m in pattern.finditer(raw):
        replaced = None
        if m.group(1) is not None and notes is not None:
            replaced = notes.ref(m.group(1))
        elif m.group(2) is not None and m.group(2) in claims:
            replaced = f'<a class="ref" href="#claim-{_anchor(m.group(2))}">{_e(m.group(2))}</a>'
        if replaced is None:
            continue
        out.append(_BOLD.sub(r"<strong>\1</strong>", _e(raw[pos:m.start()])))
        out.append(replaced)
        pos = m.end()
    out.append(_BOLD.sub(r"<strong>\1</strong>", _e(raw[pos:])))
    return "".join(out)


def _paragraphs(text: str, notes: _Notes | None = None, claims: set[str] | None = None,
                tagged: set[str] | None = None) -> str:
    """Text as paragraphs (blank lines apart; a long Chinese one cut at sentence ends), bullet lines
    as a list, a paragraph's leading claim tag ``[P1.2]`` as a label that references point to."""
    claims, tagged = claims or set(), tagged if tagged is not None else set()
    out = []
    for block in re.split(r"\n\s*\n", (text or "").strip()):
        lines = [ln for ln in block.split("\n") if ln.strip()]
        if not lines:
            continue
        if len(lines) > 1 and all(_BULLET.match(ln) for ln in lines):
            out.append("<ul>" + "".join(f"<li>{_inline(_BULLET.sub('', ln), notes, claims)}</li>" for ln in lines)
                       + "</ul>")
            continue
        for par in _cjk_parts("\n".join(lines)):
            tag = ""
            m = _CLAIM_TAG.match(par)
            if m:
                cid = m.group(1)
                anchor = f' id="claim-{_anchor(cid)}"' if cid not in tagged else ""
                tagged.add(cid)
                tag, par = f'<span class="claim"{anchor}>{_e(cid)}</span>', par[m.end():]
            body = "<br>".join(_inline(ln, notes, claims) for ln in par.split("\n"))
            out.append(f"<p>{tag}{body}</p>")
    return "\n".join(out)


# --------------------------------------------------------------- speeches


def _speaker(debate: Debate, label: str, fallback: str = "") -> str:
    """A participant as the page names it: its name, after its side where it has one (PRO · Alpha 7B)."""
    p = debate.participant(label)
    name = (p.name if p and p.name else "") or fallback or label
    side = _side(debate, label)
    return f"{side} · {name}" if side and name.upper() != side.upper() else name


def _side(debate: Debate, label: str) -> str:
    return SIDE_WORDS["zh" if debate.lang == "zh" else "en"].get(label, "")


def _stance(debate: Debate, stance: str) -> str:
    if not stance:
        return ""
    return f"（{stance}）" if debate.lang == "zh" else f" ({stance})"


def _heading(debate: Debate, s: Speech, t: dict) -> str:
    env = s.envelope if isinstance(s.envelope, dict) else {}
    if env.get("heading"):
        return str(env["heading"])
    p = debate.participant(s.speaker)
    name = s.speaker_name or (p.name if p else "") or s.speaker
    return t["head"].format(round=s.round, name=name, role=t["roles"].get(s.role, s.role))


def _envelope_html(debate: Debate, s: Speech, t: dict, claims: set[str]) -> str | None:
    """A debater's structured reply (arguments with their reasoning and evidence, rebuttals), or None
    when the speech holds no such envelope."""
    env = s.envelope if isinstance(s.envelope, dict) else None
    if not env or not any(k in env for k in ("arguments", "rebuttals")):
        return None
    from debate_core.engines.envelopes import Envelope

    try:
        e = Envelope.model_validate(env, context={"lang": debate.lang})
    except Exception:  # noqa: BLE001 - a malformed stored envelope: show the text instead
        return None
    out = []
    if e.arguments:
        items = []
        for a in e.arguments:
            detail = "".join(f'<p class="detail">{_e(label)}：{_inline(v, None, claims)}</p>' if debate.lang == "zh"
                             else f'<p class="detail">{_e(label)}: {_inline(v, None, claims)}</p>'
                             for label, v in ((t["reasoning"], a.reasoning), (t["evidence"], a.evidence)) if v)
            items.append(f'<li><span class="claim">{_e(a.id)}</span><strong>{_inline(a.point, None, claims)}</strong>'
                         f"{detail}</li>")
        out.append('<ol class="args">' + "".join(items) + "</ol>")
    if e.rebuttals:
        items = [f'<li><span class="kind">{_e(r.type or t["rebuttal"])}{(" → " + _e(r.target)) if r.target else ""}'
                 f'</span>{"：" if debate.lang == "zh" else ": "}{_inline(r.content, None, claims)}</li>'
                 for r in e.rebuttals]
        out.append('<ul class="rebuttals">' + "".join(items) + "</ul>")
    if not out:
        out.append(f"<p>{_e(t['empty'])}</p>")
    if e.no_new_points:
        out.append(f'<p class="meta">{_e(t["no_new"])}</p>')
    return "\n".join(out)


def _finding_line(f: Finding, lang: str, t: dict, clean: bool) -> str:
    sign = "?" if f.undecided else ("✗" if not f.passed else ("✓" if clean else "·"))
    name = rule_label(f.rule) if lang == "zh" else f.rule
    layer = f"（{t['model_layer']}）" if lang == "zh" and f.layer == "model" else \
        (f" ({t['model_layer']})" if f.layer == "model" else "")
    sep = "：" if lang == "zh" else ": "
    return f"<li>{sign} {_e(name)}{_e(layer)}{sep if f.message else ''}{_e(f.message)}</li>"


def _verdict_line(findings: list[Finding], lang: str, t: dict) -> str:
    if lang == "zh":
        return speech_verdict(findings)
    if speech_clean(findings):
        return "✓ all checks passed"
    bad = [("? " if f.undecided else "✗ ") + f.rule for f in findings if not f.passed or f.undecided]
    return " · ".join(dict.fromkeys(bad))


def _checks_badge(s: Speech, lang: str, t: dict) -> str:
    findings = list(s.findings)
    extra = []
    if s.retries:
        extra.append(t["retries"].format(n=s.retries))
    if s.truncated:
        extra.append(t["truncated"])
    extra += list(s.warnings) if s.status != "failed" else []
    if not findings and not extra:
        return ""
    clean = speech_clean(findings)
    state = "ok" if clean else ("bad" if any(not f.passed and not f.undecided for f in findings) else
                                ("undecided" if findings else "none"))
    summary = _verdict_line(findings, lang, t) if findings else "· " + t["no_checks"]
    items = "".join(_finding_line(f, lang, t, clean) for f in findings)
    items += "".join(f"<li>{_e(x)}</li>" for x in extra)
    return f'<details class="checks {state}"><summary>{_e(summary)}</summary><ul>{items}</ul></details>'


def _speech_card(debate: Debate, s: Speech, i: int, t: dict, side: dict[str, int], claims: set[str],
                 tagged: set[str]) -> str:
    lang = debate.lang
    notes = _Notes(s, f"n{i + 1}", t, lang)
    if s.status == "failed":
        body = f"<p>{_e(t['failed'].format(why='; '.join(s.warnings) or t['gen_failed']))}</p>"
    else:
        env_body = _envelope_html(debate, s, t, claims)
        if env_body is not None:
            body = env_body
        else:
            body = _paragraphs(s.text, notes, claims, tagged) if s.text.strip() else f"<p>{_e(t['empty'])}</p>"
    env = s.envelope if isinstance(s.envelope, dict) else {}
    who = _speaker(debate, s.speaker, s.speaker_name)
    sub = [who] if env.get("heading") else []
    model = str(env.get("model") or "")
    if model and model not in who:
        sub.append(model)
    p = debate.participant(s.speaker)
    if p and p.stance and not env.get("heading"):
        sub.append(p.stance)
    research = ""
    if s.tool_calls:
        calls = "".join(f"<li>{_e(c.name)}({_e(', '.join(f'{k}={v}' for k, v in c.arguments.items()))})"
                        f"{' ✗' if c.error else ''}</li>" for c in s.tool_calls)
        research = f'<details class="more"><summary>{_e(t["research"].format(n=len(s.tool_calls)))}</summary>' \
                   f"<ul>{calls}</ul></details>"
    classes = f"speech side-{side.get(s.speaker, 0) % 6}" + (" failed" if s.status == "failed" else "")
    return (f'<article class="{classes}" id="r{i + 1}"><header><h3>{_e(_heading(debate, s, t))}</h3>'
            + (f'<span class="side-name">{_e(" · ".join(sub))}</span>' if sub else "")
            + f"</header>\n{body}\n{notes.html()}{research}{_checks_badge(s, lang, t)}</article>")


# ---------------------------------------------------------------- closing


def _table(head: list[str], rows: list[list[Any]], numeric: tuple[int, ...] = ()) -> str:
    """A table without the columns that are empty in every row."""
    keep = [c for c in range(len(head)) if any(r[c] not in (None, "") for r in rows)]
    if not rows or not keep:
        return ""
    th = "".join(f"<th>{_e(head[c])}</th>" for c in keep)
    body = "".join("<tr>" + "".join(f'<td{" class=num" if c in numeric else ""}>{_e("" if r[c] is None else r[c])}</td>'
                                    for c in keep) + "</tr>" for r in rows)
    return f'<div class="table-wrap"><table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table></div>'


def _num(value: Any, fmt: str) -> str:
    return "" if value is None else fmt.format(value)


def _winner(debate: Debate, winner: str | None, t: dict) -> str:
    if not winner:
        return t["no_winner"]
    if winner in ("draw", "tie"):
        return t["draw"]
    p = debate.participant(winner)
    if p is None:
        return winner
    return _speaker(debate, winner) + _stance(debate, p.stance)


def _observation(debate: Debate, o: Observation, t: dict) -> str:
    values = (o.divergence, o.consensus, o.to_reader)
    items = "".join(f"<dt>{_e(k)}</dt><dd>{_rich(v)}</dd>" for k, v in zip(t["obs_keys"], values, strict=True))
    return (f'<section id="closing"><h2>{_e(t["observation"])}</h2><div class="closing"><dl>{items}</dl>'
            f'<p class="meta">{_e(t["no_ranking"])}</p></div></section>')


def _verdict(debate: Debate, t: dict) -> str:
    v = debate.verdict
    out = []
    if v is not None and not v.parsed:
        out.append(f"<p><strong>{_e(t['unparsed'])}</strong></p><pre class=\"raw\">{_e(v.raw)}</pre>")
    elif v is not None:
        out.append(f'<p class="winner">{_e(t["winner"].format(who=_winner(debate, v.winner, t)))}</p>')
        if v.summary:
            out.append(f"<p>{_rich(v.summary)}</p>")
        if v.judge:
            out.append(f'<p class="meta">{_e(t["judge"].format(judge=v.judge))}</p>')
        notes = {j.judge: j.notes for j in debate.judgments}
        reasons = {k: r for k, r in v.reasons.items() if notes.get(k) != r}
        if reasons:
            out.append(f"<h3>{_e(t['reasons'])}</h3><dl>"
                       + "".join(f"<dt>{_e(k)}</dt><dd>{_rich(r)}</dd>" for k, r in reasons.items()) + "</dl>")
        if v.per_round:
            out.append(f"<h3>{_e(t['per_round'])}</h3><dl>"
                       + "".join(f"<dt>{_e(t['round_n'].format(n=c.round))}</dt><dd>{_rich(c.comment)}</dd>"
                                 for c in v.per_round) + "</dl>")
        if v.rows:
            c = t["cols"]
            rows = []
            for r in v.rows:
                p = debate.participant(r.label)
                rows.append([_speaker(debate, r.label), r.stance or (p.stance if p else ""), p.model if p else "",
                             r.strongest, r.weakness, _num(r.score, "{:g}")])
            out.append(f"<h3>{_e(t['debaters'])}</h3>" + _table(
                [c["debater"], c["stance"], c["model"], c["strongest"], c["weakness"], c["score"]], rows, (5,)))
        if v.note:
            out.append(f"<h3>{_e(t['to_reader'])}</h3><p>{_rich(v.note)}</p>")
    if debate.judgments:
        c = t["cols"]
        rows = [[j.judge, (j.winner_name or j.winner) + (f" ({_side(debate, j.winner)})" if _side(debate, j.winner)
                                                         else ""),
                 _num(j.margin, "{:+.1f}"), _num(j.normalized, "{:+.2f}"), _num(j.entertainment, "{:.1f}")]
                for j in debate.judgments]
        out.append(f"<h3>{_e(t['panel'])}</h3>"
                   + _table([c["judge"], c["winner"], c["margin"], c["normalized"], c["entertainment"]], rows,
                            (2, 3, 4)))
        items = []
        for j in debate.judgments:
            if j.notes or j.decisive:
                items.append(f"<dt>{_e(j.judge)}</dt><dd>{_rich(j.notes)}"
                             + (f'<br><span class="meta">{_e(t["decisive"])}{_rich(j.decisive)}</span>'
                                if j.decisive else "") + "</dd>")
        if items:
            out.append("<dl>" + "".join(items) + "</dl>")
    return f'<section id="closing"><h2>{_e(t["verdict"])}</h2><div class="closing">{"".join(out)}</div></section>'


def _closing(debate: Debate, t: dict) -> str:
    if debate.observation is not None:
        return _observation(debate, debate.observation, t)
    if debate.verdict is not None or debate.judgments:
        return _verdict(debate, t)
    status = t["status_names"].get(debate.status, debate.status)
    reason = f"（{debate.stop_reason}）" if debate.lang == "zh" else f" ({debate.stop_reason})"
    return (f'<section id="closing"><div class="closing"><p>{_e(t["pending"].format(status=status))}'
            f'{_e(reason) if debate.stop_reason else ""}</p></div></section>')


# --------------------------------------------------------------- analysis


def _checks_table(debate: Debate, t: dict) -> str:
    if not any(s.findings for s in debate.rounds):
        return ""
    zh = debate.lang == "zh"
    rules = list(dict.fromkeys(f.rule for s in debate.rounds for f in s.findings if f.layer != "model"))
    c = t["cols"]
    head = [c["round"], c["speaker"], c["result"]] + [rule_label(r) if zh else r for r in rules]
    rows = []
    for s in debate.rounds:
        clean = speech_clean(s.findings)
        by = {f.rule: f for f in s.findings if f.layer != "model"}
        cells = []
        for r in rules:
            f = by.get(r)
            cells.append("—" if f is None else "?" if f.undecided else "✗" if not f.passed else
                         ("✓" if clean else "·"))
        rows.append([s.round, s.speaker_name or _speaker(debate, s.speaker),
                     _verdict_line(list(s.findings), debate.lang, t) if s.findings else "—"] + cells)
    return f"<h3>{_e(t['checks_table'])}</h3>" + _table(head, rows) + f'<p class="meta">{_e(t["checks_note"])}</p>'


def _ledger(debate: Debate, ledger: Ledger | None, t: dict) -> str:
    if ledger is None or not ledger.claims:
        return ""
    lang = "zh" if debate.lang == "zh" else "en"
    evidence = ("、" if lang == "zh" else ", ").join(EVIDENCE[lang].get(k, k) for k in
                                                     (getattr(ledger, "evidence", None) or [])) or "—"
    basis = BASIS[lang].get(ledger.basis, ledger.basis)
    counts = "".join(f"<div><b>{n}</b><span>{_e(label)}</span></div>" for n, label in
                     ((len(ledger.claims), t["claims"]), (len(ledger.attacks), t["attacks"]),
                      (len(ledger.dropped), t["dropped"])))
    out = [f"<h3>{_e(t['ledger'])}</h3>", f'<div class="counts">{counts}</div>',
           f'<p class="meta">{_e(t["ledger_note"].format(basis=basis, evidence=evidence))}</p>']
    if ledger.dropped:
        items = "".join(f"<li><span class=\"claim\">{_e(c.id)}</span>{_e(c.name or _speaker(debate, c.speaker))}"
                        f"{'：' if debate.lang == 'zh' else ': '}{_e(_clip(c.text, 240))}"
                        f"</li>" for c in ledger.dropped)
        out.append(f'<details class="more"><summary>{_e(t["dropped_list"].format(n=len(ledger.dropped)))}'
                   f"</summary><ul>{items}</ul></details>")
    return "".join(out)


def _usage(debate: Debate, t: dict) -> str:
    prompt = sum(s.prompt_tokens for s in debate.rounds)
    completion = sum(s.completion_tokens for s in debate.rounds)
    cost = sum(s.cost for s in debate.rounds)
    models = [m for m in debate.models if m and m != "offline"]
    if not (prompt or completion or models):
        return ""
    out = [f"<h3>{_e(t['usage'])}</h3>"]
    if prompt or completion:
        line = t["usage_line"].format(speeches=len(debate.rounds), prompt=f"{prompt:,}", completion=f"{completion:,}",
                                      cost=f" · ${cost:.4f}" if cost else "")
        out.append(f'<p class="meta">{_e(line)}</p>')
    if models:
        out.append(f'<p class="meta">{_e(t["models"].format(models=", ".join(models)))}</p>')
    return "".join(out)


# ------------------------------------------------------------------ page


def render_html(debate: Debate, *, ledger: Ledger | None = None, kind: str = "") -> str:
    """The debate as one self-contained HTML page (see the module's docstring); ``ledger`` adds the
    argument ledger to the analysis, ``kind`` names the protocol in the header."""
    lang = "zh" if debate.lang == "zh" else "en"
    t = TEXT[lang]
    side = {p.label: i for i, p in enumerate(debate.participants)}
    for s in debate.rounds:
        side.setdefault(s.speaker, len(side))
    claims = {str(c.get("id")) for s in debate.rounds if isinstance(s.envelope, dict)
              for c in (s.envelope.get("claims") or []) if isinstance(c, dict) and c.get("id")}
    head = []
    if lang == "zh" and (debate.pack_name or debate.observation is not None):  # a master debate: the seed's
        head.append(f'<p class="disclaimer">{_e(DISCLAIMER.lstrip("> "))}</p>')
    who = t["vs"].join(_speaker(debate, p.label) + _stance(debate, p.stance) for p in debate.participants)
    meta = [x for x in (kind, who, debate.created_at.strftime("%Y-%m-%d"),
                        t["rounds"].format(n=len(debate.rounds))) if x]
    head.append(f'<p class="kicker">{_e(t["topic"])}</p><h1>{_e(debate.topic)}</h1>')
    head.append(f'<p class="meta">{_e(" · ".join(meta))}</p>')
    if debate.status != "completed":
        status = t["status_names"].get(debate.status, debate.status)
        head.append(f'<p class="meta">{_e(t["status"])}{"：" if lang == "zh" else ": "}{_e(status)}'
                    + (_e(f"（{debate.stop_reason}）" if lang == "zh" else f" ({debate.stop_reason})")
                       if debate.stop_reason else "") + "</p>")
    head += [f'<p class="warning">{_e(w)}</p>' for w in debate.warnings]
    tagged: set[str] = set()
    cards = [_speech_card(debate, s, i, t, side, claims, tagged) for i, s in enumerate(debate.rounds)]
    analysis = _checks_table(debate, t) + _ledger(debate, ledger, t) + _usage(debate, t)
    body = [f"<header>{''.join(head)}</header>",
            f'<main><section id="speeches"><h2>{_e(t["speeches"])}</h2>' + "\n".join(cards) + "</section>",
            _closing(debate, t)]
    if analysis:
        body.append(f'<section id="analysis"><h2>{_e(t["analysis"])}</h2>{analysis}</section>')
    body.append("</main>")
    body.append(f"<footer>{_e(t['exported'].format(id=debate.id, date=debate.updated_at.strftime('%Y-%m-%d')))}"
                "</footer>")
    return ("<!DOCTYPE html>\n"
            f'<html lang="{t["html_lang"]}">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
            '<meta name="referrer" content="no-referrer">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            '<link rel="icon" href="data:,">\n'
            f"<title>{_e(debate.topic)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")
