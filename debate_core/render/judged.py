"""Markdown for the judged protocols.

* Topic debate: the two files of the topic-debate folder layout — ``debate-log.md``
  (:func:`debate_log_md`: header with the label↔stance map and the mode, then one
  section per round, one block per debater) and ``verdict.md`` (:func:`verdict_md`:
  conclusion, reasons, the per-debater table, a note to readers).  Neither names a
  model: the log is what the judge reads (``for_judge=True`` drops the header's
  run metadata too).  The full rendering ends with the seed's wrap-up
  (:func:`wrap_up_md`): topic, stances, rounds run, converged or capped, degraded
  or not, where the artifacts are, and the note that the verdict is a reference
  conclusion, not a final one.  :func:`progress_line` is the CLI's progress line.
* Trial: a transcript (round by round, pro then con, with the research each side
  did and a truncation flag) followed by the verdict with per-round commentary.
"""

from __future__ import annotations

import re

from debate_core.engines.envelopes import Envelope, render_envelope
from debate_core.models import Debate, Speech

ROUND_TITLES = {1: "立论（并行，互不可见）"}
STATUS_ZH = {"running": "进行中", "completed": "已完成", "failed": "失败", "stopped": "已停止", "interrupted": "已中断"}
CLOSING_NOTE = "这是 AI 辩论给出的参考结论，非定论；每一轮的论点与反驳都记在 debate-log.md 里，可以逐条追溯。"
NO_DEBATE_NOTE = "本场未成辩论，没有裁决，也就没有结论；已有的记录都在 debate-log.md 里，可以逐条追溯。"
REASON_ORDER = ("论点强度", "攻防表现", "逻辑硬伤")
SIDE = {"pro": "正方", "con": "反方"}
WINNER_TEXT = {"pro": "正方胜", "con": "反方胜", "draw": "平局"}


def _stance(debate: Debate, label: str) -> str:
    p = debate.participant(label)
    return p.stance if p else ""


def is_degraded(debate: Debate) -> bool:
    return any(w.startswith(("降级", "degraded")) for w in debate.warnings)  # "degraded": older records


def no_debate(debate: Debate) -> bool:
    """The debate ended without any usable round: the judge was not asked (未成辩论)."""
    return debate.verdict is None and debate.stop_reason.startswith("未成辩论")


def _speech_block(debate: Debate, s: Speech, *, for_judge: bool) -> list[str]:
    out = [f"### {s.speaker}（{_stance(debate, s.speaker)}）", ""]
    if s.status in ("failed", "empty") or s.envelope is None:
        if for_judge:
            out += ["（本轮没有有效产出，按空信封处理：无论点、无反驳）", ""]
        else:
            why = "；".join(s.warnings) or "没有有效产出"
            out += [f"> 注：{s.speaker}第 {s.round} 轮没有有效产出（{why}），按空产出处理", ""]
        if s.envelope is not None and not Envelope.model_validate(s.envelope).is_empty:
            out += [render_envelope(s.envelope), ""]
        return out
    out += [render_envelope(s.envelope), ""]
    if not for_judge:
        for w in s.warnings:
            out += [f"> 注：{w}", ""]
    return out


def debate_log_md(debate: Debate, *, for_judge: bool = False) -> str:
    """The topic debate's ``debate-log.md``; ``for_judge`` gives the anonymous log the judge reads."""
    out = [f"# 辩论日志：{debate.topic}", ""]
    if not for_judge:
        out.append(f"- **辩题**：{debate.topic}")
        out.append("- **立场映射（匿名）**：")
        out += [f"  - {p.label} → 「{p.stance}」" for p in debate.participants]
        n = len(debate.participants)
        if is_degraded(debate):
            distinct = len({p.model for p in debate.participants})
            out.append(f"- **模式**：降级（{distinct} 个模型供 {n} 位辩手轮流使用，非异构）")
        else:
            out.append(f"- **模式**：正常（{n} 位辩手各用一个不同的模型，互相匿名）")
        out.append(f"- **赛制**：并行立论 → 交叉反驳（至多 {debate.planned_rounds} 轮，全员无新论点即停）→ 独立裁判")
        out.append(f"- **生成时间**：{debate.created_at.isoformat()} · 辩论 {debate.id}")
        for w in debate.warnings:
            out.append(f"\n> ⚠️ {w}")
        out += ["", "---", ""]
    else:
        out += ["各方立场：", *[f"- {p.label} → 「{p.stance}」" for p in debate.participants], ""]
    rounds = sorted({s.round for s in debate.rounds})
    for r in rounds:
        title = ROUND_TITLES.get(r, "交叉反驳")
        out += [f"## 第 {r} 轮：{title}", ""]
        for s in [s for s in debate.rounds if s.round == r]:
            out += _speech_block(debate, s, for_judge=for_judge)
        out += ["---", ""]
    if not for_judge and debate.stop_reason:
        out += [f"**停机**：{debate.stop_reason}", ""]
    return "\n".join(out).rstrip() + "\n"


def _cell(text: str) -> str:
    return re.sub(r"\s+", " ", (text or "").replace("|", "｜")).strip() or "—"


def _score(v) -> str:
    if v is None:
        return "—"
    return f"**{v:.1f}**" if round(v, 1) == v else f"**{v:g}**"


def verdict_md(debate: Debate) -> str:
    """The topic debate's ``verdict.md``; an unparsed verdict is shown raw and says no winner was read."""
    out = [f"# 裁判判词：{debate.topic}", "", "> 独立裁判（未参与辩论，只见匿名日志）依据论证本身裁决。", ""]
    v = debate.verdict
    if v is None:
        if no_debate(debate):
            out += ["## 一、判赢结论", "", f"**未成辩论，没有裁决。** {debate.stop_reason}"]
        else:
            status = STATUS_ZH.get(debate.status, debate.status)
            out += ["## 一、判赢结论", "", f"（尚无裁决：{status}，{debate.stop_reason or '裁判未运行'}）"]
        return "\n".join(out).rstrip() + "\n"
    if not v.parsed:
        out += ["## 一、判赢结论", "", "**未能解析裁判的输出：没有判定胜方（不是平局）。** 裁判原文如下。", "",
                "## 裁判原文", "", v.raw.strip() or "（空）"]
        return "\n".join(out).rstrip() + "\n"
    stance = _stance(debate, v.winner or "")
    head = f"**{v.winner}（{stance}）胜出**" if stance else f"**{v.winner} 胜出**"
    summary = v.summary.strip()
    if summary and v.winner and summary.startswith(v.winner):
        summary = re.sub(r"^.*?胜出[\s—\-：:，,]*", "", summary, count=1)
    out += ["## 一、判赢结论", "", head + (f"——{summary}" if summary else ""), ""]
    out += ["## 二、判词", ""]
    keys = [k for k in REASON_ORDER if k in v.reasons] + [k for k in v.reasons if k not in REASON_ORDER]
    for k in keys:
        out += [f"**{k}**：{v.reasons[k].strip()}", ""]
    if not keys:
        out += ["（裁判未写判词）", ""]
    out += ["## 三、逐方点评表", "", "| 辩手 | 立场 | 最强论点 | 致命弱点 | 评分 |", "|------|------|----------|----------|------|"]
    for row in v.rows:
        out.append(f"| {row.label} | {_cell(row.stance or _stance(debate, row.label))} | {_cell(row.strongest)} | "
                   f"{_cell(row.weakness)} | {_score(row.score)} |")
    out.append("")
    if v.note.strip():
        out += ["## 四、给读者的话", "", v.note.strip(), ""]
    return "\n".join(out).rstrip() + "\n"


def ending(debate: Debate) -> str:
    """How the rounds ended: converged, hit the cap, stopped on empty rounds, or not finished."""
    rounds = sorted({s.round for s in debate.rounds})
    if not rounds:
        return "一轮也没有跑成"
    last = [s for s in debate.rounds if s.round == rounds[-1]]
    said = [s for s in last if s.status not in ("empty", "failed")]
    if rounds[-1] >= 2 and said and all((s.envelope or {}).get("no_new_points") for s in last):
        return f"自然收敛（第 {rounds[-1]} 轮全员无新论点）"
    if rounds[-1] >= debate.planned_rounds:
        return f"触顶停机（{debate.planned_rounds} 轮上限）"
    if not said:
        return f"第 {rounds[-1]} 轮全员空产出后停机"
    return f"未跑完（{STATUS_ZH.get(debate.status, debate.status)}）"


def wrap_up_md(debate: Debate, *, archive: str | None = None, export: str | None = None) -> str:
    """The seed's closing summary: what was debated, how it went, where the artifacts are."""
    by_stance = sorted(debate.participants, key=lambda p: _stance_order(p.label))
    stances = "；".join(f"{p.label} →「{p.stance}」" for p in by_stance)
    rounds = sorted({s.round for s in debate.rounds})
    n = len(debate.participants)
    if is_degraded(debate):
        mode = f"降级（{len({p.model for p in debate.participants})} 个模型供 {n} 位辩手轮流使用，非异构）"
    else:
        mode = f"正常（{n} 位辩手各用一个不同的模型，互相匿名）"
    v = debate.verdict
    if no_debate(debate):
        outcome = "未成辩论，没有请裁判"
    elif v is None:
        outcome = f"尚无裁决（{STATUS_ZH.get(debate.status, debate.status)}）"
    elif not v.parsed or not v.winner:
        outcome = "裁判的输出无法解析，没有判定胜方（不是平局）"
    else:
        stance = _stance(debate, v.winner)
        outcome = f"{v.winner}（{stance}）胜出" if stance else f"{v.winner} 胜出"
        summary = v.summary.strip()
        if summary:
            outcome += f"——{summary}"
    where = [f"辩论编号 `{debate.id}`"]
    if archive:
        where.append(f"存档 `{archive}`")
    if export:
        where.append(f"debate-log.md 与 verdict.md 在 `{export}`")
    else:
        where.append(f"用 `python -m debate_core export {debate.id} --format debate-dir` 可写出 debate-log.md 与 verdict.md")
    out = ["## 收尾", "",
           f"- **辩题**：{debate.topic}",
           f"- **立场**：{n} 方——{stances}",
           f"- **轮次**：跑了 {len(rounds)} 轮（上限 {debate.planned_rounds} 轮），{ending(debate)}",
           f"- **模式**：{mode}",
           f"- **判赢**：{outcome}",
           f"- **产物**：{'；'.join(where)}",
           "", f"> {NO_DEBATE_NOTE if no_debate(debate) or v is None else CLOSING_NOTE}"]
    return "\n".join(out) + "\n"


def _stance_order(label: str) -> int:
    order = ("辩手乙", "辩手甲", "辩手丙", "辩手丁")  # stance 1, 2, 3, 4 as the seed assigns them
    return order.index(label) if label in order else len(order)


def render_topic(debate: Debate, *, archive: str | None = None, export: str | None = None) -> str:
    return (debate_log_md(debate) + "\n---\n\n" + verdict_md(debate) + "\n---\n\n"
            + wrap_up_md(debate, archive=archive, export=export))


ROLE_ZH = {"opening": "立论", "rebuttal": "交叉反驳", "pro": "发言", "con": "发言"}


def progress_line(speech: Speech) -> str:
    """The CLI's progress line for a topic-debate or trial speech, in Chinese:
    ``  第 1 轮｜辩手甲 立论 完成`` (or 空产出 / 失败 with the cause)."""
    who = SIDE.get(speech.speaker, speech.speaker_name or speech.speaker)
    head = f"  第 {speech.round} 轮｜{who} {ROLE_ZH.get(speech.role, speech.role)}"
    if speech.status == "failed":
        return f"{head} 失败：{'；'.join(speech.warnings) or '没有回复'}"
    if speech.status == "empty":
        return f"{head} 空产出：{'；'.join(speech.warnings) or '没有有效产出'}"
    flags = []
    if speech.retries:
        flags.append(f"重发 {speech.retries} 次")
    if (speech.envelope or {}).get("no_new_points"):
        flags.append("无新论点")
    if speech.truncated:
        flags.append("已截断")
    return f"{head} 完成" + (f"（{'，'.join(flags)}）" if flags else "")


# ----------------------------------------------------------------------- trial


def render_trial(debate: Debate) -> str:
    out = [f"# 庭审辩论：{debate.topic}", ""]
    out.append(f"- **赛制**：{debate.planned_rounds} 轮，每轮正方先发言、反方后发言；每篇至多 "
               f"{debate.config.max_speech_length} 字符；最后由裁判一次裁决")
    if debate.config.workspace:
        out.append(f"- **调研范围**：工作区 `{debate.config.workspace}`（只读：read / glob / grep）")
    status = STATUS_ZH.get(debate.status, debate.status)
    out.append(f"- **辩论**：{debate.id} · 状态：{status}" + (f"（{debate.stop_reason}）" if debate.stop_reason else ""))
    for w in debate.warnings:
        out.append(f"\n> ⚠️ {w}")
    out.append("")
    for r in sorted({s.round for s in debate.rounds}):
        out += [f"## 第 {r} 轮", ""]
        for s in [s for s in debate.rounds if s.round == r]:
            out += [f"### {SIDE.get(s.speaker, s.speaker)}", ""]
            if s.tool_calls:
                out.append("> 调研：" + "；".join(
                    f"{t.name}({', '.join(f'{k}={v}' for k, v in t.arguments.items())})" + (" ✗" if t.error else "")
                    for t in s.tool_calls))
                out.append("")
            if s.status == "failed":
                out += [f"（本篇未完成：{'；'.join(s.warnings) or '生成失败'}）", ""]
                continue
            out += [s.text.strip() or "（空）", ""]
            if s.truncated:
                out += [f"> ✂️ 已截断：超过 {debate.config.max_speech_length} 字符的部分被截去", ""]
    v = debate.verdict
    out += ["## 裁决", ""]
    if v is None:
        out.append("（尚未裁决）")
    elif not v.parsed:
        out += ["**未能解析裁判的输出：没有判定胜方。** 裁判原文如下。", "", v.raw.strip() or "（空）"]
    else:
        for c in v.per_round:
            out += [f"- **第 {c.round} 轮**：{c.comment}"]
        if v.per_round:
            out.append("")
        out += [f"**裁决：{WINNER_TEXT.get(v.winner or '', v.winner)}**" + (f"——{v.summary}" if v.summary else ""), ""]
        for k, text in v.reasons.items():
            out += [f"**{k}**：{text}", ""]
    return "\n".join(out).rstrip() + "\n"
