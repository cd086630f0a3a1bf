"""The words of the HTML export (:mod:`debate_core.render.html`), per language.

``TEXT`` holds every label, heading and sentence frame the page writes, in Chinese (a master
debate's and any ``zh`` debate's) and in English; ``MARK_EN`` the citation marks in English (the
Chinese ones are the Markdown renderer's, :mod:`debate_core.render.master`); ``BASIS`` and
``EVIDENCE`` name how the argument ledger was read; ``SIDE_WORDS`` the sides (PRO / CON).
"""

from __future__ import annotations

from typing import Any

from debate_core.render.master import MODEL_LAYER_ZH, OBSERVATION_HEADING

__all__ = ["TEXT", "MARK_EN", "MARK_EN_PLAIN", "BASIS", "EVIDENCE", "SIDE_WORDS"]

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
