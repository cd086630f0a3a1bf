"""Markdown renderers: each protocol in its own seed's framework.

Master debates follow the master-debate v0.8 output framework exactly: the
disclaimer first, ``## 议题：…``, ``### R1｜<name> 立论`` with the full-width bar,
and ``### 教内余争 — 中立观察`` at the end.
"""

from __future__ import annotations

from .models import Debate

DISCLAIMER = "> 本对话依据历史佛教文献生成，对比旨在展现多元视角，不评判优劣。"
COVERAGE_PREFIX = "⚠️"


def render_master(debate: Debate, *, engine_line: bool = True) -> str:
    names = {p.label: p.name for p in debate.participants}
    out = [DISCLAIMER, ""]
    for w in debate.warnings:
        if w.startswith(COVERAGE_PREFIX):
            out += [f"> {w}", ""]
    out += [f"## 议题：{debate.topic}", ""]
    for s in debate.rounds:
        name = s.speaker_name or names.get(s.speaker, s.speaker)
        out.append(f"### R{s.round}｜{name} {s.role}")
        out.append("")
        if s.status == "failed":
            out.append(f"（本轮未完成：{'; '.join(s.warnings) or '生成失败'}）")
        else:
            out.append(s.text.strip())
        failed = [f for f in s.findings if not f.passed]
        if failed:
            out.append("")
            out.append("> 检查未通过：" + "；".join(f"{f.rule}（{f.message}）" for f in failed))
        out.append("")
    if debate.observation:
        o = debate.observation
        out += ["### 教内余争 — 中立观察", f"- 分歧本质：{o.divergence}", f"- 共识点：{o.consensus}",
                f"- 留给读者：{o.to_reader}", ""]
    elif debate.status != "completed":
        out += [f"> 状态：{debate.status}（{debate.stop_reason}）", ""]
    if engine_line:
        engines = sorted({s.engine for s in debate.rounds if s.engine}) or debate.models
        out.append(f"> 引擎：{', '.join(engines)} · 辩论 {debate.id} · 人物包 {debate.pack_name} {debate.pack_version}".rstrip())
    return "\n".join(out).rstrip() + "\n"


def render_markdown(debate: Debate) -> str:
    """The protocol's own framework for any debate."""
    if debate.protocol == "master":
        return render_master(debate)
    from . import render_judged  # topic and trial frameworks

    return render_judged.render(debate)
