"""The master debate's Markdown, CLI progress and prompts: Chinese throughout, the seed's headings,
findings and citation marks per speech, read back by the importer."""

from __future__ import annotations

import re
from pathlib import Path

from debate_core.cli.main import master_progress_line
from debate_core.io.importers import parse_master_md
from debate_core.models import (CitationMark, Debate, DebateConfig, Finding, Observation, Participant, Speech,
                                SpeechRequest, Source)
from debate_core.engines.prompts import speech_messages
from debate_core.render.master import finding_lines, render_master, speech_verdict

TEXT = {
    1: "慧能立论：自性本自清净，念佛参禅都要回到自心上看【《六祖大师法宝坛经》，T48n2008】。",
    2: "先复述慧能大师的原意：修行要回到自心。印光以为持名念佛更稳当【《印光法师文钞》，X62n1182】。",
    3: "先复述印光大师的原意：持名念佛稳当。慧能接受其重实修，仍坚持见性【《六祖大师法宝坛经》，T48n2008】。",
    4: "印光综合：双方都重实修，所异在下手处【《印光法师文钞》，X62n1182】。",
}
PASSING = ("length", "ammo", "restatement", "no_verdict", "no_dialogue", "hygiene")


def passing(*skip: str) -> list[Finding]:
    return [Finding(rule=r, passed=True) for r in PASSING if r not in skip]


def marked_debate(status: str = "completed") -> Debate:
    who = [("huineng", "慧能大师"), ("yinguang", "印光大师")]
    roles = ["立论", "反驳", "回应", "综合"]
    rounds = [Speech(round=n, speaker=who[(n - 1) % 2][0], speaker_name=who[(n - 1) % 2][1], role=roles[n - 1],
                     text=TEXT[n], engine="offline") for n in range(1, 5)]
    rounds[0].findings = passing() + [Finding(rule="citation", passed=True, marks=[
        CitationMark(id="T48n2008", title="六祖大师法宝坛经", quote="自性本自清净", status="verified")])]
    rounds[1].findings = passing("restatement") + [
        Finding(rule="restatement", passed=False, message="复述中有摘要没有的说法"),
        Finding(rule="citation", passed=False, message="引文在原文中找不到", marks=[
            CitationMark(id="X62n1182", title="印光法师文钞", quote="凡事只求速成", status="unverified")])]
    rounds[1].status = "flagged"
    rounds[2].findings = passing("hygiene") + [
        Finding(rule="hygiene", passed=False, undecided=True, message="无法判定：括号不成对"),
        Finding(rule="citation", passed=True, marks=[
            CitationMark(id="T48n2008", title="坛经", quote="菩提自性", status="verified"),
            CitationMark(id="T08n0235", title="金刚般若波罗蜜经", status="id_only")])]
    rounds[2].status = "flagged"
    rounds[3].findings = passing() + [Finding(rule="citation", passed=True),
                                      Finding(rule="no_verdict", passed=False, layer="model", message="有高下之意"),
                                      Finding(rule="length", passed=True, layer="model")]
    rounds[3].status = "flagged"
    obs = Observation(divergence="分歧在行门。", consensus="都重实修。", to_reader="两条都是通路。") \
        if status == "completed" else None
    return Debate(id="render000001", protocol="master", topic="念佛与参禅", status=status,
                  stop_reason="已完成预定的 4 轮" if status == "completed" else "用户在第 4 轮开始前停止",
                  participants=[Participant(label=s, name=n) for s, n in who], models=["offline"],
                  pack_name="default", pack_version="1.0.0", planned_rounds=4,
                  config=DebateConfig(topic="念佛与参禅", masters=["huineng", "yinguang"]),
                  rounds=rounds if status == "completed" else rounds[:3], observation=obs)


def key(f: Finding):
    return (f.rule, f.passed, f.undecided, f.layer, [(m.id, m.title, m.quote, m.status) for m in f.marks])


def test_markdown_follows_the_seed_and_lists_findings_and_marks_per_speech():
    md = render_master(marked_debate())
    lines = md.splitlines()
    assert lines[0] == "> 本对话依据历史佛教文献生成，对比旨在展现多元视角，不评判优劣。"
    assert [x for x in lines if x.startswith("### ")] == [
        "### R1｜慧能大师 立论", "### R2｜印光大师 反驳", "### R3｜慧能大师 回应", "### R4｜印光大师 综合",
        "### 教内余争 — 中立观察", "### 附：各轮检查"]
    assert lines[lines.index("### 教内余争 — 中立观察") + 1:][:3] == [
        "- 分歧本质：分歧在行门。", "- 共识点：都重实修。", "- 留给读者：两条都是通路。"]
    # read first: no check line between the speeches, the findings per round in the appendix
    debate_part = md[:md.index("### 附：各轮检查")]
    assert "检查通过" not in debate_part and "引证核对" not in debate_part
    md = md[md.index("### 附：各轮检查"):].replace("#### ", "### ").replace("### 附：各轮检查", "")
    md += "### 教内余争"
    r1 = md[md.index("### R1"):md.index("### R2")]
    assert "> ✓ 检查通过：篇幅、弹药、复述、禁裁决、禁伪造对话、文面、引证" in r1
    assert "> 引证核对：T48n2008《六祖大师法宝坛经》✓已核对原文「自性本自清净」" in r1
    r2 = md[md.index("### R2"):md.index("### R3")]
    assert "> ✗ 检查未通过：复述（复述中有摘要没有的说法）" in r2 and "> ✗ 检查未通过：引证（引文在原文中找不到）" in r2
    assert "> 检查通过：篇幅、弹药、禁裁决、禁伪造对话、文面" in r2 and "✓" not in r2
    assert "> 引证核对：X62n1182《印光法师文钞》✗引文未核对「凡事只求速成」" in r2
    r3 = md[md.index("### R3"):md.index("### R4")]
    assert "> ? 检查未能判定：文面（无法判定：括号不成对）" in r3 and "✓" not in r3
    assert "> 引证核对：T48n2008《坛经》已核对原文「菩提自性」" in r3 and "T08n0235《金刚般若波罗蜜经》仅经号" in r3
    r4 = md[md.index("### R4"):md.index("### 教内余争")]
    assert "> ✗ 模型审核检查未通过：禁裁决（有高下之意）" in r4 and "> 模型审核检查通过：篇幅" in r4 and "✓" not in r4
    # no English in the debate's own lines (ids and the engine / pack names aside)
    prose = re.sub(r"[A-Z]\d{2}n\d{4}|引擎：.*|render000001", "", md)
    assert not re.findall(r"[A-Za-z]{3,}", prose)


def test_a_stopped_debate_states_its_status_in_chinese():
    md = render_master(marked_debate("stopped"))
    assert "> 状态：已停止（用户在第 4 轮开始前停止）" in md and "stopped" not in md
    assert "### 教内余争" not in md


def test_the_importer_reads_the_findings_and_marks_back(tmp_path: Path):
    d = marked_debate()
    path = tmp_path / "debate.md"
    path.write_text(render_master(d), encoding="utf-8")
    back = parse_master_md(path, path.read_text(encoding="utf-8"))
    assert [s.text for s in back.rounds] == [s.text for s in d.rounds]  # no findings line in a speech
    for got, want in zip(back.rounds, d.rounds):
        assert sorted(map(key, got.findings), key=str) == sorted(map(key, want.findings), key=str), got.round
    assert [s.status for s in back.rounds] == ["ok", "flagged", "flagged", "flagged"]
    assert back.status == "completed"

    stopped = marked_debate("stopped")
    path.write_text(render_master(stopped), encoding="utf-8")
    back = parse_master_md(path, path.read_text(encoding="utf-8"))
    assert back.status == "stopped" and back.stop_reason == "用户在第 4 轮开始前停止"


def test_the_older_one_line_failure_form_still_imports(tmp_path: Path):
    md = render_master(marked_debate()).replace(
        "> ✗ 检查未通过：复述（复述中有摘要没有的说法）\n>\n> ✗ 检查未通过：引证（引文在原文中找不到）",
        "> 检查未通过：restatement（复述有误）；引证（找不到）")
    path = tmp_path / "old.md"
    path.write_text(md, encoding="utf-8")
    r2 = parse_master_md(path, md).rounds[1]
    failed = {(f.rule, f.message) for f in r2.findings if not f.passed}
    assert failed == {("restatement", "复述有误"), ("citation", "找不到")}
    assert r2.text == TEXT[2]


def test_cli_progress_lines_are_chinese_with_the_seed_heading():
    d = marked_debate()
    lines = [master_progress_line(s) for s in d.rounds]
    assert lines[0] == "  R1｜慧能大师 立论 完成 ✓ 检查通过"
    assert lines[1] == "  R2｜印光大师 反驳 完成 ✗ 复述、引证"
    assert lines[2] == "  R3｜慧能大师 回应 完成 ? 文面"
    assert lines[3] == "  R4｜印光大师 综合 完成 ✗ 禁裁决（模型审核）"
    d.rounds[1].retries = 2
    assert master_progress_line(d.rounds[1]).startswith("  R2｜印光大师 反驳 完成（重写 2 次） ✗")
    failed = Speech(round=3, speaker="huineng", speaker_name="慧能大师", role="回应", status="failed",
                    warnings=["等待模型超时（共尝试 4 次）"])
    assert master_progress_line(failed) == "  R3｜慧能大师 回应 失败：等待模型超时（共尝试 4 次）"
    assert not any(re.search(r"[A-Za-z]{3,}", x) for x in lines)


def test_a_speech_is_never_shown_with_a_tick_unless_every_finding_passed():
    ok = passing() + [Finding(rule="citation", passed=True)]
    assert speech_verdict(ok) == "✓ 检查通过"
    assert speech_verdict(ok + [Finding(rule="hygiene", passed=False, undecided=True)]) == "? 文面"
    assert speech_verdict(ok + [Finding(rule="model_audit", passed=False, undecided=True, layer="model")]) \
        == "? 模型审核"
    assert speech_verdict([]) == "— 无检查"
    undecided = ok + [Finding(rule="no_dialogue", passed=False, undecided=True, message="无法判定")]
    assert not any(line.startswith("✓") for line in finding_lines(undecided))


def test_the_retry_prompt_and_the_speech_prompt_are_chinese():
    req = SpeechRequest(topic="念佛与参禅", round=2, role="反驳", speaker="yinguang", speaker_name="印光大师",
                        opponent="huineng", opponent_name="慧能大师", opponent_summary="慧能：修行回到自心。",
                        sources=[Source(id="X62n1182", title="印光法师文钞")],
                        feedback=["复述：第一句没有复述对方的摘要", "禁裁决（模型审核）：有高下之意"])
    system, user = (m["content"] for m in speech_messages(req))
    assert "【上一稿未通过检查，请修正】\n- 复述：第一句没有复述对方的摘要\n- 禁裁决（模型审核）：有高下之意\n请针对以上各条重写" in user
    prose = re.sub(r"```data\n.*?\n```", "", system + user, flags=re.S)
    prose = re.sub(r"X62n1182|yinguang|huineng|```data", "", prose)  # ids, slugs and the data-block marker
    assert not re.findall(r"[A-Za-z]{3,}", prose), re.findall(r"[A-Za-z]{3,}", prose)
