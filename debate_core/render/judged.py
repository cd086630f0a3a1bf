"""Markdown for the judged protocols.

* Topic debate: the two files of the topic-debate folder layout — ``debate-log.md``
  (:func:`debate_log_md`: header with the label↔stance map and the mode, then one
  section per round, one block per debater) and ``verdict.md`` (:func:`verdict_md`:
  conclusion, reasons, the per-debater table, a note to readers).  Neither names a
  model: the log is what the judge reads (``for_judge=True`` drops the header's
  run metadata too).  The full rendering ends with the seed's wrap-up
  (:func:`wrap_up_md`): topic, stances, rounds run, converged or capped, degraded
  or not, where the artifacts are (the files an export wrote, else the command that
  writes them: never a file that does not exist), and the note that the verdict is a
  reference conclusion, not a final one.  The winner line is written once
  (:func:`summary_text`); an incomplete verdict says so (:func:`incomplete_line`); a
  debate that never took place has no verdict block.  :func:`progress_line` is the
  CLI's progress line.
* Trial: a transcript (round by round, pro then con, with the research each side
  did and a truncation flag) followed by the verdict with per-round commentary.

Everything is written in the debate's language (``debate.lang``): the tables
:data:`TEXT` hold each language's headings and notes (the Chinese ones are the seed's).
"""

from __future__ import annotations

import re
from pathlib import PurePath

from debate_core.engines.envelopes import Envelope, render_envelope
from debate_core.engines.judged_prompts import for_lang
from debate_core.lang import has_cjk
from debate_core.models import Debate, Speech

# ------------------------------------------------------------ per-language text

ZH_TEXT = {
    "round_titles": {1: "立论（并行，互不可见）"}, "round_title": "交叉反驳",
    "status": {"running": "进行中", "completed": "已完成", "failed": "失败", "stopped": "已停止",
               "interrupted": "已中断"},
    "closing": "这是 AI 辩论给出的参考结论，非定论；{trace}",
    "trace_file": "每一轮的论点与反驳都记在 `{log}` 里，可以逐条追溯。",
    "trace_how": "每一轮的论点与反驳都在本场的记录里，可以逐条追溯（写成文件的命令见「产物」一行）。",
    "no_debate_note": "本场未成辩论，没有裁决，也就没有结论；{trace}",
    "no_debate_file": "已有的记录在 `{log}` 里。", "no_debate_how": "已有的记录可以用「产物」一行的命令写成文件。",
    "reason_order": ("论点强度", "攻防表现", "逻辑硬伤"),
    "side": {"pro": "正方", "con": "反方"}, "winner": {"pro": "正方胜", "con": "反方胜", "draw": "平局"},
    "role": {"opening": "立论", "rebuttal": "交叉反驳", "pro": "发言", "con": "发言"},
    "degraded_prefixes": ("降级", "degraded"), "no_debate_prefix": "未成辩论",
    "sep": "；", "colon": "：", "dash": "——", "lq": "「", "rq": "」", "lp": "（", "rp": "）",
    "empty_for_judge": "（本轮没有有效产出，按空信封处理：无论点、无反驳）",
    "no_output": "没有有效产出", "note": "注：",
    "speech_empty_note": "{label}第 {r} 轮没有有效产出（{why}），按空产出处理",
    "speech_empty_plain": "{label}第 {r} 轮没有有效产出，按空产出处理（原因见文末的停机说明）",
    "log_title": "辩论日志：{topic}", "topic": "辩题", "map": "立场映射（匿名）", "mode": "模式",
    "mode_degraded": "降级（{distinct} 个模型供 {n} 位辩手轮流使用，非异构）",
    "mode_normal": "正常（{n} 位辩手各用一个不同的模型，互相匿名）",
    "format": "赛制", "format_topic": "并行立论 → 交叉反驳（至多 {n} 轮，全员无新论点即停）→ 独立裁判",
    "generated": "生成时间", "debate_word": "辩论", "stances_for_judge": "各方立场：",
    "round_head": "第 {r} 轮：{title}", "stop": "停机",
    "verdict_title": "裁判判词：{topic}", "verdict_intro": "独立裁判（未参与辩论，只见匿名日志）依据论证本身裁决。",
    "h_conclusion": "一、判赢结论", "h_reasons": "二、判词", "h_table": "三、逐方点评表", "h_note": "四、给读者的话",
    "h_raw": "裁判原文",
    "no_debate_verdict": "**未成辩论，没有请裁判，所以没有裁决。** 原因见 debate-log.md 文末的停机说明。",
    "no_verdict_yet": "（尚无裁决：{status}，{reason}）",
    "incomplete": "判决不完整：缺{what}", "row_missing": "（裁判未点评）", "round_missing": "（裁判未点评这一轮）",
    "judge_not_run": "裁判未运行",
    "unparsed": "**未能解析裁判的输出：没有判定胜方（不是平局）。** 裁判原文如下。", "empty": "（空）",
    "wins": "胜出", "no_reasons": "（裁判未写判词）",
    "table": ("| 辩手 | 立场 | 最强论点 | 致命弱点 | 评分 |", "|------|------|----------|----------|------|"),
    "end_none": "一轮也没有跑成", "end_converged": "自然收敛（第 {r} 轮全员无新论点）",
    "end_cap": "触顶停机（{n} 轮上限）", "end_empty": "第 {r} 轮全员空产出后停机",
    "end_unfinished": "未跑完（{status}）",
    "out_no_debate": "未成辩论，没有请裁判", "out_pending": "尚无裁决（{status}）",
    "out_unparsed": "裁判的输出无法解析，没有判定胜方（不是平局）",
    "where_id": "辩论编号 `{id}`", "where_archive": "存档 `{path}`", "where_export": "`{log}` 与 `{verdict}`",
    "where_how": "写成文件：`python -m debate_core export {id} --format md --out {id}.md`（全文），"
                 "或 `--format debate-dir`（写出 debate-log.md 与 verdict.md 两个文件）",
    "wrap_title": "收尾", "w_topic": "辩题", "w_stances": "立场", "w_stances_v": "{n} 方——{stances}",
    "w_rounds": "轮次", "w_rounds_v": "跑了 {n} 轮（上限 {cap} 轮），{ending}", "w_mode": "模式", "w_win": "判赢",
    "w_out": "产物", "arrow": " →",
    "progress": "  第 {r} 轮｜{who} {role}", "p_failed": "失败", "p_no_reply": "没有回复", "p_empty": "空产出",
    "p_done": "完成", "p_retries": "重发 {n} 次", "p_no_new": "无新论点", "p_cut": "已截断", "p_flag_sep": "，",
    "trial_title": "庭审辩论：{topic}", "t_format": "赛制",
    "t_format_v": "{n} 轮，每轮正方先发言、反方后发言；每篇至多 {limit} 字符；最后由裁判一次裁决",
    "t_scope": "调研范围", "t_scope_v": "工作区 `{path}`（只读：read / glob / grep）",
    "t_debate": "辩论", "t_status": "状态", "t_round": "第 {r} 轮", "t_research": "调研：",
    "t_unfinished": "（本篇未完成：{why}）", "t_gen_failed": "生成失败",
    "t_cut": "✂️ 已截断：超过 {limit} 字符的部分被截去", "t_verdict": "裁决", "t_no_verdict": "（尚未裁决）",
    "t_unparsed": "**未能解析裁判的输出：没有判定胜方。** 裁判原文如下。", "t_round_c": "第 {r} 轮",
    "t_ruling": "裁决",
}

EN_TEXT = {
    "round_titles": {1: "Openings (in parallel, unseen by each other)"}, "round_title": "Cross rebuttals",
    "status": {"running": "running", "completed": "completed", "failed": "failed", "stopped": "stopped",
               "interrupted": "interrupted"},
    "closing": "This is a reference conclusion from an AI debate, not a final answer; {trace}",
    "trace_file": "every argument and rebuttal of every round is in `{log}` and can be traced point by point.",
    "trace_how": "every argument and rebuttal of every round is in this debate's record and can be traced point by "
                 "point (the Artifacts line gives the command that writes it to a file).",
    "no_debate_note": "No debate took place: there is no verdict and so no conclusion; {trace}",
    "no_debate_file": "what was recorded is in `{log}`.",
    "no_debate_how": "what was recorded can be written to a file with the command on the Artifacts line.",
    "reason_order": ("Argument strength", "Attack and defence", "Logical flaws"),
    "side": {"pro": "Pro", "con": "Con"}, "winner": {"pro": "Pro wins", "con": "Con wins", "draw": "Draw"},
    "role": {"opening": "opening", "rebuttal": "rebuttal", "pro": "speech", "con": "speech"},
    "degraded_prefixes": ("Degraded",), "no_debate_prefix": "No debate",
    "sep": "; ", "colon": ": ", "dash": " — ", "lq": "\"", "rq": "\"", "lp": " (", "rp": ")",
    "empty_for_judge": "(nothing usable this round; treated as an empty envelope: no arguments, no rebuttals)",
    "no_output": "nothing usable", "note": "Note: ",
    "speech_empty_note": "{label} produced nothing usable in round {r} ({why}); treated as empty",
    "speech_empty_plain": "{label} produced nothing usable in round {r}; treated as empty (the cause is in the stop "
                          "note at the end)",
    "log_title": "Debate log: {topic}", "topic": "Topic", "map": "Stances (anonymous)", "mode": "Mode",
    "mode_degraded": "degraded ({distinct} model(s) shared in turn by {n} debaters, not heterogeneous)",
    "mode_normal": "normal ({n} debaters, each on a different model, anonymous to each other)",
    "format": "Format", "format_topic": "parallel openings → cross rebuttals (at most {n} rounds, stopping when "
                                      "nobody has new points) → independent judge",
    "generated": "Generated", "debate_word": "debate", "stances_for_judge": "The stances:",
    "round_head": "Round {r}: {title}", "stop": "Stopped",
    "verdict_title": "Judge's verdict: {topic}",
    "verdict_intro": "An independent judge (who took no part and saw only the anonymous log) rules on the "
                     "arguments alone.",
    "h_conclusion": "1. Winner", "h_reasons": "2. Reasons", "h_table": "3. Debater by debater",
    "h_note": "4. A note for readers", "h_raw": "The judge's text",
    "no_debate_verdict": "**No debate: the judge was not asked, so there is no verdict.** The cause is in the stop "
                         "note at the end of debate-log.md.",
    "no_verdict_yet": "(no verdict yet: {status}, {reason})",
    "incomplete": "Verdict incomplete: missing {what}", "row_missing": "(not assessed by the judge)",
    "round_missing": "(the judge did not comment on this round)",
    "judge_not_run": "the judge has not run",
    "unparsed": "**The judge's output could not be parsed: no winner (not a draw).** The judge's text follows.",
    "empty": "(empty)", "wins": "wins", "no_reasons": "(the judge gave no reasons)",
    "table": ("| Debater | Stance | Strongest argument | Fatal weakness | Score |",
              "|---------|--------|--------------------|----------------|-------|"),
    "end_none": "not a single round was played", "end_converged": "converged (nobody had new points in round {r})",
    "end_cap": "stopped at the cap ({n} rounds)", "end_empty": "stopped after round {r} was empty for everyone",
    "end_unfinished": "not finished ({status})",
    "out_no_debate": "no debate, the judge was not asked", "out_pending": "no verdict yet ({status})",
    "out_unparsed": "the judge's output could not be parsed: no winner (not a draw)",
    "where_id": "debate id `{id}`", "where_archive": "archive `{path}`", "where_export": "`{log}` and `{verdict}`",
    "where_how": "to write files: `python -m debate_core export {id} --format md --out {id}.md` (the whole debate), "
                 "or `--format debate-dir` (debate-log.md and verdict.md)",
    "wrap_title": "Wrap-up", "w_topic": "Topic", "w_stances": "Stances", "w_stances_v": "{n} sides — {stances}",
    "w_rounds": "Rounds", "w_rounds_v": "{n} played (cap {cap}), {ending}", "w_mode": "Mode", "w_win": "Winner",
    "w_out": "Artifacts", "arrow": " →",
    "progress": "  Round {r} | {who} {role}", "p_failed": "failed", "p_no_reply": "no reply", "p_empty": "empty",
    "p_done": "done", "p_retries": "resent {n}x", "p_no_new": "no new points", "p_cut": "cut", "p_flag_sep": ", ",
    "trial_title": "Trial: {topic}", "t_format": "Format",
    "t_format_v": "{n} round(s), pro speaks first in each round, then con; each speech at most {limit} words; "
                  "one verdict from the judge at the end",
    "t_scope": "Research", "t_scope_v": "workspace `{path}` (read-only: read / glob / grep)",
    "t_debate": "Debate", "t_status": "status", "t_round": "Round {r}", "t_research": "Research: ",
    "t_unfinished": "(speech not finished: {why})", "t_gen_failed": "generation failed",
    "t_cut": "✂️ Cut: the part beyond {limit} words was removed", "t_verdict": "Verdict",
    "t_no_verdict": "(no verdict yet)",
    "t_unparsed": "**The judge's output could not be parsed: no winner.** The judge's text follows.",
    "t_round_c": "Round {r}", "t_ruling": "Verdict",
}

TEXT = {"zh": ZH_TEXT, "en": EN_TEXT}

# the Chinese tables under their former names
ROUND_TITLES = ZH_TEXT["round_titles"]
STATUS_ZH = ZH_TEXT["status"]
REASON_ORDER = ZH_TEXT["reason_order"]
SIDE = ZH_TEXT["side"]
WINNER_TEXT = ZH_TEXT["winner"]
ROLE_ZH = ZH_TEXT["role"]


def _t(debate_or_lang) -> dict:
    lang = debate_or_lang if isinstance(debate_or_lang, str) else getattr(debate_or_lang, "lang", "zh")
    return TEXT["en" if lang == "en" else "zh"]


def _stance(debate: Debate, label: str) -> str:
    p = debate.participant(label)
    return p.stance if p else ""


def is_degraded(debate: Debate) -> bool:
    # "降级" / "Degraded" start the warning; "degraded": records older than both
    return any(w.startswith(("降级", "degraded", "Degraded")) for w in debate.warnings)


def no_debate(debate: Debate) -> bool:
    """The debate ended without any usable round: the judge was not asked (未成辩论 / No debate)."""
    return debate.verdict is None and debate.stop_reason.startswith(("未成辩论", "No debate"))


def _speech_block(debate: Debate, s: Speech, *, for_judge: bool) -> list[str]:
    t = _t(debate)
    out = [f"### {s.speaker}{t['lp']}{_stance(debate, s.speaker)}{t['rp']}", ""]
    if s.status in ("failed", "empty") or s.envelope is None:
        if for_judge:
            out += [t["empty_for_judge"], ""]
        elif no_debate(debate):  # the stop note says the causes, once each
            out += ["> " + t["note"] + t["speech_empty_plain"].format(label=s.speaker, r=s.round), ""]
        else:
            why = t["sep"].join(s.warnings) or t["no_output"]
            out += ["> " + t["note"] + t["speech_empty_note"].format(label=s.speaker, r=s.round, why=why), ""]
        if s.envelope is not None and not Envelope.model_validate(s.envelope).is_empty:
            out += [render_envelope(s.envelope, lang=debate.lang), ""]
        return out
    out += [render_envelope(s.envelope, lang=debate.lang), ""]
    if not for_judge:
        for w in s.warnings:
            out += [f"> {t['note']}{w}", ""]
    return out


def _mode(debate: Debate) -> str:
    t, n = _t(debate), len(debate.participants)
    if is_degraded(debate):
        return t["mode_degraded"].format(distinct=len({p.model for p in debate.participants}), n=n)
    return t["mode_normal"].format(n=n)


def debate_log_md(debate: Debate, *, for_judge: bool = False) -> str:
    """The topic debate's ``debate-log.md``; ``for_judge`` gives the anonymous log the judge reads."""
    t = _t(debate)
    c, lq, rq = t["colon"], t["lq"], t["rq"]
    out = ["# " + t["log_title"].format(topic=debate.topic), ""]
    if not for_judge:
        out.append(f"- **{t['topic']}**{c}{debate.topic}")
        out.append(f"- **{t['map']}**{c}")
        out += [f"  - {p.label} → {lq}{p.stance}{rq}" for p in debate.participants]
        out.append(f"- **{t['mode']}**{c}{_mode(debate)}")
        out.append(f"- **{t['format']}**{c}" + t["format_topic"].format(n=debate.planned_rounds))
        out.append(f"- **{t['generated']}**{c}{debate.created_at.isoformat()} · {t['debate_word']} {debate.id}")
        for w in debate.warnings:
            out.append(f"\n> ⚠️ {w}")
        out += ["", "---", ""]
    else:
        out += [t["stances_for_judge"], *[f"- {p.label} → {lq}{p.stance}{rq}" for p in debate.participants], ""]
    rounds = sorted({s.round for s in debate.rounds})
    for r in rounds:
        title = t["round_titles"].get(r, t["round_title"])
        out += ["## " + t["round_head"].format(r=r, title=title), ""]
        for s in [s for s in debate.rounds if s.round == r]:
            out += _speech_block(debate, s, for_judge=for_judge)
        out += ["---", ""]
    if not for_judge and debate.stop_reason:
        out += [f"**{t['stop']}**{c}{debate.stop_reason}", ""]
    return "\n".join(out).rstrip() + "\n"


def _cell(text: str, lang: str = "zh") -> str:
    return re.sub(r"\s+", " ", (text or "").replace("|", "/" if lang == "en" else "｜")).strip() or "—"


def _score(v) -> str:
    if v is None:
        return "—"
    return f"**{v:.1f}**" if round(v, 1) == v else f"**{v:g}**"


def _win_head(debate: Debate, winner: str) -> str:
    """辩手乙（远程更好）胜出 / Debater B ("Remote is better") wins."""
    t = _t(debate)
    stance = _stance(debate, winner)
    if debate.lang == "en":
        return f"{winner} ({t['lq']}{stance}{t['rq']}) wins" if stance else f"{winner} wins"
    return f"{winner}（{stance}）胜出" if stance else f"{winner} 胜出"


_SEPS = r"[\s—\-－–:：，,。.；;!！]"
_WIN_WORD = rf"(?:胜出|获胜|胜(?={_SEPS}|$)|\s+(?:wins|won|prevails|is the winner|carries the debate)\b)"


def _win_prefix(winner: str) -> re.Pattern[str]:
    """A leading winner statement: 辩手乙（…）胜出—— / **Winner:** Debater B — / Debater B wins."""
    w, paren = re.escape(winner), r"(?:\s*[（(][^）)]*[）)])?"
    field = rf"(?:胜方|获胜方|winner)\s*\**\s*[:：]\s*(?:\*\*)?\s*{w}{paren}(?:\*\*)?{_WIN_WORD}?"
    return re.compile(rf"^\s*(?:\*\*)?(?:{field}|{w}{paren}\s*{_WIN_WORD})(?:\*\*)?{_SEPS}*", re.I)


def summary_text(debate: Debate) -> str:
    """The verdict's summary without a leading winner statement (辩手乙（…）胜出——, Winner: Debater B —):
    the heading already names the winner, so the winner line says it once."""
    v = debate.verdict
    summary = (v.summary if v else "").strip()
    if summary and v and v.winner:
        pat = _win_prefix(v.winner)
        for _ in range(3):  # a judge who wrote it twice
            cut = pat.sub("", summary, count=1).strip()
            if cut == summary:
                break
            summary = cut
    return summary


_summary = summary_text


def incomplete_line(debate: Debate) -> str:
    """判决不完整：缺辩手乙的逐方点评、判词 / Verdict incomplete: missing …; empty for a verdict that is
    complete, unparsed (that says so itself) or never checked."""
    v = debate.verdict
    if v is None or not v.parsed or v.complete is not False:
        return ""
    what = for_lang(debate.lang).missing_text(v.missing) if v.missing else "?"
    return _t(debate)["incomplete"].format(what=what)


def verdict_md(debate: Debate) -> str:
    """The topic debate's ``verdict.md``; an unparsed verdict is shown raw and says no winner was read."""
    t = _t(debate)
    c = t["colon"]
    out = ["# " + t["verdict_title"].format(topic=debate.topic), ""]
    v = debate.verdict
    if no_debate(debate):  # no judge was asked: no judge's introduction, the cause is in the log, once
        out += ["## " + t["h_conclusion"], "", t["no_debate_verdict"]]
        return "\n".join(out).rstrip() + "\n"
    out += ["> " + t["verdict_intro"], ""]
    if v is None:
        status = t["status"].get(debate.status, debate.status)
        out += ["## " + t["h_conclusion"], "",
                t["no_verdict_yet"].format(status=status, reason=debate.stop_reason or t["judge_not_run"])]
        return "\n".join(out).rstrip() + "\n"
    if not v.parsed:
        out += ["## " + t["h_conclusion"], "", t["unparsed"], "", "## " + t["h_raw"], "", v.raw.strip() or t["empty"]]
        return "\n".join(out).rstrip() + "\n"
    head = f"**{_win_head(debate, v.winner or '')}**"
    summary = _summary(debate)
    out += ["## " + t["h_conclusion"], "", head + (f"{t['dash']}{summary}" if summary else ""), ""]
    if incomplete_line(debate):
        out += [f"> ⚠️ {incomplete_line(debate)}", ""]
    out += ["## " + t["h_reasons"], ""]
    order = t["reason_order"]
    keys = [k for k in order if k in v.reasons] + [k for k in v.reasons if k not in order]
    for k in keys:
        out += [f"**{k}**{c}{v.reasons[k].strip()}", ""]
    if not keys:
        out += [t["no_reasons"], ""]
    out += ["## " + t["h_table"], "", *t["table"]]
    lang = debate.lang
    for row in v.rows:
        out.append(f"| {row.label} | {_cell(row.stance or _stance(debate, row.label), lang)} | "
                   f"{_cell(row.strongest, lang)} | {_cell(row.weakness, lang)} | {_score(row.score)} |")
    for code in v.missing:  # a debater the judge left out shows as left out
        if code.startswith("row:") and not any(r.label == code[4:] for r in v.rows):
            label = code[4:]
            out.append(f"| {label} | {_cell(_stance(debate, label), lang)} | {t['row_missing']} | — | — |")
    out.append("")
    if v.note.strip():
        out += ["## " + t["h_note"], "", v.note.strip(), ""]
    return "\n".join(out).rstrip() + "\n"


def ending(debate: Debate) -> str:
    """How the rounds ended: converged, hit the cap, stopped on empty rounds, or not finished."""
    t = _t(debate)
    rounds = sorted({s.round for s in debate.rounds})
    if not rounds:
        return t["end_none"]
    last = [s for s in debate.rounds if s.round == rounds[-1]]
    said = [s for s in last if s.status not in ("empty", "failed")]
    if rounds[-1] >= 2 and said and all((s.envelope or {}).get("no_new_points") for s in last):
        return t["end_converged"].format(r=rounds[-1])
    if rounds[-1] >= debate.planned_rounds:
        return t["end_cap"].format(n=debate.planned_rounds)
    if not said:
        return t["end_empty"].format(r=rounds[-1])
    return t["end_unfinished"].format(status=t["status"].get(debate.status, debate.status))


def wrap_up_md(debate: Debate, *, archive: str | None = None, export: str | None = None) -> str:
    """The seed's closing summary: what was debated, how it went, where the artifacts are."""
    t = _t(debate)
    c, lq, rq = t["colon"], t["lq"], t["rq"]
    by_stance = sorted(debate.participants, key=lambda p: _stance_order(p.label))
    stances = t["sep"].join(f"{p.label}{t['arrow']}{'' if debate.lang == 'zh' else ' '}{lq}{p.stance}{rq}"
                            for p in by_stance)
    rounds = sorted({s.round for s in debate.rounds})
    n = len(debate.participants)
    v = debate.verdict
    if no_debate(debate):
        outcome = t["out_no_debate"]
    elif v is None:
        outcome = t["out_pending"].format(status=t["status"].get(debate.status, debate.status))
    elif not v.parsed or not v.winner:
        outcome = t["out_unparsed"]
    else:
        outcome = _win_head(debate, v.winner)
        summary = _summary(debate)
        if summary:
            outcome += f"{t['dash']}{summary}"
        if incomplete_line(debate):
            outcome += f"{t['lp']}{incomplete_line(debate)}{t['rp']}"
    where = [t["where_id"].format(id=debate.id)]
    if archive:
        where.append(t["where_archive"].format(path=archive))
    log = verdict_file = None
    if export:  # the folder an export wrote (or its log file): the files that exist
        folder = PurePath(export).parent if str(export).endswith(".md") else PurePath(export)
        log, verdict_file = str(folder / "debate-log.md"), str(folder / "verdict.md")
        where.append(t["where_export"].format(log=log, verdict=verdict_file))
    else:
        where.append(t["where_how"].format(id=debate.id))
    if no_debate(debate) or v is None:
        closing = t["no_debate_note"].format(trace=t["no_debate_file"].format(log=log) if log else t["no_debate_how"])
    else:
        closing = t["closing"].format(trace=t["trace_file"].format(log=log) if log else t["trace_how"])
    out = ["## " + t["wrap_title"], "",
           f"- **{t['w_topic']}**{c}{debate.topic}",
           f"- **{t['w_stances']}**{c}" + t["w_stances_v"].format(n=n, stances=stances),
           f"- **{t['w_rounds']}**{c}" + t["w_rounds_v"].format(n=len(rounds), cap=debate.planned_rounds,
                                                              ending=ending(debate)),
           f"- **{t['w_mode']}**{c}{_mode(debate)}",
           f"- **{t['w_win']}**{c}{outcome}",
           f"- **{t['w_out']}**{c}{t['sep'].join(where)}",
           "", f"> {closing}"]
    return "\n".join(out) + "\n"


def _stance_order(label: str) -> int:
    # stance 1, 2, 3, 4 as the seed assigns them, in either language
    for order in (("辩手乙", "辩手甲", "辩手丙", "辩手丁"), ("Debater B", "Debater A", "Debater C", "Debater D")):
        if label in order:
            return order.index(label)
    return 4


def render_topic(debate: Debate, *, archive: str | None = None, export: str | None = None) -> str:
    """The log, the verdict and the wrap-up; a debate that never took place has no verdict block
    (its log's stop note says why, once, and the wrap-up says no judge was asked)."""
    verdict = "" if no_debate(debate) else verdict_md(debate) + "\n---\n\n"
    return debate_log_md(debate) + "\n---\n\n" + verdict + wrap_up_md(debate, archive=archive, export=export)


def speech_lang(speech: Speech) -> str:
    """A speech's debate language, read from its speaker's name (辩手甲 / 正方 → zh; Debater A / Pro → en)."""
    name = speech.speaker_name or ""
    return "en" if name and not has_cjk(name) and name not in ("pro", "con") else "zh"


def progress_line(speech: Speech, lang: str | None = None) -> str:
    """The CLI's progress line for a topic-debate or trial speech, in the debate's language:
    ``  第 1 轮｜辩手甲 立论 完成`` / ``  Round 1 | Debater A opening done`` (or empty / failed with
    the cause).  ``lang`` defaults to the speech's own (:func:`speech_lang`)."""
    t = _t(lang or speech_lang(speech))
    who = t["side"].get(speech.speaker, speech.speaker_name or speech.speaker)
    head = t["progress"].format(r=speech.round, who=who, role=t["role"].get(speech.role, speech.role))
    if speech.status == "failed":
        return f"{head} {t['p_failed']}{t['colon']}{t['sep'].join(speech.warnings) or t['p_no_reply']}"
    if speech.status == "empty":
        return f"{head} {t['p_empty']}{t['colon']}{t['sep'].join(speech.warnings) or t['no_output']}"
    flags = []
    if speech.retries:
        flags.append(t["p_retries"].format(n=speech.retries))
    if (speech.envelope or {}).get("no_new_points"):
        flags.append(t["p_no_new"])
    if speech.truncated:
        flags.append(t["p_cut"])
    return f"{head} {t['p_done']}" + (f"{t['lp']}{t['p_flag_sep'].join(flags)}{t['rp']}" if flags else "")


# ----------------------------------------------------------------------- trial


def render_trial(debate: Debate) -> str:
    t = _t(debate)
    c = t["colon"]
    out = ["# " + t["trial_title"].format(topic=debate.topic), ""]
    out.append(f"- **{t['t_format']}**{c}" + t["t_format_v"].format(n=debate.planned_rounds,
                                                                    limit=debate.config.max_speech_length))
    if debate.config.workspace:
        out.append(f"- **{t['t_scope']}**{c}" + t["t_scope_v"].format(path=debate.config.workspace))
    status = t["status"].get(debate.status, debate.status)
    out.append(f"- **{t['t_debate']}**{c}{debate.id} · {t['t_status']}{c}{status}"
               + (f"{t['lp']}{debate.stop_reason}{t['rp']}" if debate.stop_reason else ""))
    for w in debate.warnings:
        out.append(f"\n> ⚠️ {w}")
    out.append("")
    for r in sorted({s.round for s in debate.rounds}):
        out += ["## " + t["t_round"].format(r=r), ""]
        for s in [s for s in debate.rounds if s.round == r]:
            out += [f"### {t['side'].get(s.speaker, s.speaker)}", ""]
            if s.tool_calls:
                out.append("> " + t["t_research"] + t["sep"].join(
                    f"{tc.name}({', '.join(f'{k}={v}' for k, v in tc.arguments.items())})" + (" ✗" if tc.error else "")
                    for tc in s.tool_calls))
                out.append("")
            if s.status == "failed":
                out += [t["t_unfinished"].format(why=t["sep"].join(s.warnings) or t["t_gen_failed"]), ""]
                continue
            out += [s.text.strip() or t["empty"], ""]
            if s.truncated:
                out += ["> " + t["t_cut"].format(limit=debate.config.max_speech_length), ""]
    v = debate.verdict
    out += ["## " + t["t_verdict"], ""]
    if v is None:
        out.append(t["t_no_verdict"])
    elif not v.parsed:
        out += [t["t_unparsed"], "", v.raw.strip() or t["empty"]]
    else:
        if incomplete_line(debate):
            out += [f"> ⚠️ {incomplete_line(debate)}", ""]
        left_out = [int(m[6:]) for m in v.missing if m.startswith("round:") and m[6:].isdigit()]
        comments = sorted([(cm.round, cm.comment) for cm in v.per_round]
                          + [(r, t["round_missing"]) for r in left_out if all(cm.round != r for cm in v.per_round)])
        for r, comment in comments:
            out += [f"- **{t['t_round_c'].format(r=r)}**{c}{comment}"]
        if comments:
            out.append("")
        out += [f"**{t['t_ruling']}{c}{t['winner'].get(v.winner or '', v.winner)}**"
                + (f"{t['dash']}{v.summary}" if v.summary else ""), ""]
        for k, text in v.reasons.items():
            out += [f"**{k}**{c}{text}", ""]
    return "\n".join(out).rstrip() + "\n"
