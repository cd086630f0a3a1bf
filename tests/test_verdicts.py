"""Verdict parsing: the real sample's Markdown, JSON, variants, unparseable text, round trips."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from debate_core.models import Debate, DebateConfig, Participant, Verdict, VerdictRow
from debate_core.render.judged import verdict_md
from debate_core.engines.verdicts import parse_verdict, parse_verdict_json, parse_verdict_markdown

SAMPLE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "topic-debate-sample" / "verdict.md"
needs_sample = pytest.mark.skipif(not SAMPLE.is_file(), reason=f"reference sample not present at {SAMPLE}")


@needs_sample
def test_the_real_sample_verdict_parses_completely():
    v = parse_verdict_markdown(SAMPLE.read_text(encoding="utf-8"))
    assert v.parsed and v.winner == "辩手乙"
    assert v.summary.startswith("辩手乙（不缺爱的人更懂得如何爱人）胜出")
    assert set(v.reasons) == {"论点强度", "攻防表现", "逻辑硬伤"}
    assert v.reasons["论点强度"].startswith("乙方更扎实")
    assert "因果反转" in v.reasons["攻防表现"]
    assert "幸存者偏差" in v.reasons["逻辑硬伤"]
    assert [(r.label, r.stance, r.score) for r in v.rows] == [("辩手甲", "缺爱更懂爱", 6.5), ("辩手乙", "不缺爱更懂爱", 8.0)]
    assert v.rows[0].strongest.startswith('"懂爱是要付学费的手艺')
    assert "B2 撞进对方边界论框架" in v.rows[0].weakness
    assert v.note.startswith("这场辩论真正的结论")
    assert "**" not in v.summary + v.note + v.rows[1].strongest
    assert v.scores == {"辩手甲": 6.5, "辩手乙": 8.0}
    assert v.raw.startswith("# 裁判判词")


@needs_sample
def test_sample_winner_outside_the_given_labels_is_unparsed():
    v = parse_verdict_markdown(SAMPLE.read_text(encoding="utf-8"), labels=["辩手甲", "辩手丙"])
    assert not v.parsed and v.winner is None and v.raw


MD_VARIANT = """## 1. 判赢结论
胜方：辩手丙。它的论证链条最完整。

## 2. 判词
- **论点强度**：丙最扎实。
- **攻防表现**：甲的反驳落空。
- **逻辑硬伤**：乙以偏概全。

## 3. 逐方点评表
| 辩手 | 立场 | 最强论点 | 致命弱点 | 评分(0-10) |
|:---:|---|---|---|---|
| **辩手甲** | A | a1 | w1 | 5 |
| 辩手乙 | B | b1 | w2 | 4.5/10 |
| 辩手丙 | C | c1 | w3 | **8.5** |
"""


def test_markdown_variant_with_winner_field_bullets_and_score_suffixes():
    v = parse_verdict_markdown(MD_VARIANT, labels=["辩手甲", "辩手乙", "辩手丙"])
    assert v.parsed and v.winner == "辩手丙"
    assert v.reasons == {"论点强度": "丙最扎实。", "攻防表现": "甲的反驳落空。", "逻辑硬伤": "乙以偏概全。"}
    assert v.scores == {"辩手甲": 5.0, "辩手乙": 4.5, "辩手丙": 8.5}
    assert v.note == ""


@pytest.mark.parametrize("text", [
    "",
    "双方都有道理，难分高下。",
    "## 一、判赢结论\n本场平局，各有千秋。\n",
    "| 辩手 | 评分 |\n|---|---|\n| 辩手甲 | 7 |\n| 辩手乙 | 6 |\n",
])
def test_no_winner_means_unparsed_never_a_draw(text):
    v = parse_verdict_markdown(text)
    assert v.parsed is False and v.winner is None and v.raw == text


def test_json_verdict_with_tolerated_shapes():
    data = {"winner": "乙", "summary": "乙胜", "reasons": {"论点强度": "乙强", "攻防表现": "乙准", "逻辑硬伤": "甲漏"},
            "rows": [{"label": "辩手甲", "stance": "A", "strongest": "x", "weakness": "y", "score": "6"},
                     {"label": "辩手乙", "stance": "B", "strongest": "z", "weakness": "w", "score": 8.5}],
            "note": "看情况"}
    text = "裁决如下：\n```json\n" + json.dumps(data, ensure_ascii=False) + "\n```"
    v = parse_verdict(text, ["辩手甲", "辩手乙"])
    assert v.parsed and v.winner == "辩手乙" and v.scores == {"辩手甲": 6.0, "辩手乙": 8.5}
    assert v.reasons["逻辑硬伤"] == "甲漏" and v.note == "看情况"


def test_json_with_an_unknown_winner_falls_back_to_markdown_then_unparsed():
    text = json.dumps({"winner": "辩手丁", "reasons": "x"}, ensure_ascii=False)
    assert parse_verdict_json(text, ["辩手甲", "辩手乙"]) is None
    v = parse_verdict(text, ["辩手甲", "辩手乙"])
    assert not v.parsed and v.winner is None


def test_trial_verdicts_json_and_markdown():
    data = {"per_round": [{"round": 1, "comment": "正方立得稳"}, {"round": "2", "comment": "反方反击有力"}],
            "winner": "CON", "summary": "反方胜", "reasons": "第二轮的证据决定胜负"}
    v = parse_verdict(json.dumps(data, ensure_ascii=False), trial=True)
    assert v.parsed and v.winner == "con"
    assert [(c.round, c.comment) for c in v.per_round] == [(1, "正方立得稳"), (2, "反方反击有力")]
    assert v.reasons == {"判词": "第二轮的证据决定胜负"}
    md = "## 第 1 轮\n正方好。\n\n## 第 2 轮\n反方好。\n\n## 理由\n势均力敌。\n\n胜方：平局\n"
    v2 = parse_verdict(md, trial=True)
    assert v2.parsed and v2.winner == "draw" and [c.round for c in v2.per_round] == [1, 2]
    assert not parse_verdict("我觉得都不错", trial=True).parsed
    assert parse_verdict(json.dumps({"winner": "maybe"}), trial=True).parsed is False


def _debate_with(verdict: Verdict) -> Debate:
    return Debate(id="x", protocol="topic", topic="远程还是坐班",
                  participants=[Participant(label="辩手甲", stance="远程更好"), Participant(label="辩手乙", stance="坐班更好")],
                  config=DebateConfig(protocol="topic", topic="远程还是坐班"), verdict=verdict, status="completed")


def test_rendered_verdict_md_parses_back_to_the_same_verdict():
    v = Verdict(winner="辩手甲", summary="甲的论证更完整", reasons={"论点强度": "甲更硬", "攻防表现": "甲击中要害",
                                                                 "逻辑硬伤": "乙偷换概念"},
                rows=[VerdictRow(label="辩手甲", stance="远程更好", strongest="省时", weakness="协作弱", score=8.0),
                      VerdictRow(label="辩手乙", stance="坐班更好", strongest="氛围", weakness="通勤", score=6.5)],
                note="按岗位选择。")
    md = verdict_md(_debate_with(v))
    assert "## 一、判赢结论" in md and "**辩手甲（远程更好）胜出**" in md
    assert "| 辩手 | 立场 | 最强论点 | 致命弱点 | 评分 |" in md and "**6.5**" in md and "**8.0**" in md
    back = parse_verdict_markdown(md, ["辩手甲", "辩手乙"])
    assert back.winner == "辩手甲" and back.reasons == v.reasons and back.note == v.note
    assert [(r.label, r.stance, r.strongest, r.weakness, r.score) for r in back.rows] == \
        [(r.label, r.stance, r.strongest, r.weakness, r.score) for r in v.rows]


def test_unparsed_verdict_md_says_no_winner():
    md = verdict_md(_debate_with(Verdict(winner=None, parsed=False, raw="胡言乱语")))
    assert "没有判定胜方" in md and "胡言乱语" in md and "胜出" not in md
    assert parse_verdict_markdown(md).parsed is False


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("#|*-:： \n辩手甲乙丙胜出判词评分读者0123456789.{}\"")), max_size=300))
def test_markdown_parser_never_raises(text):
    v = parse_verdict_markdown(text)
    assert v.parsed == (v.winner is not None)
    for r in v.rows:
        assert r.score is None or 0 <= r.score <= 10


def test_trial_synonyms_and_a_winner_written_with_its_win_word():
    v = parse_verdict(json.dumps({"winner": "con", "reasoning": "证据", "per_round": [{"round": 1, "commentary": "好"}]},
                                 ensure_ascii=False), trial=True)
    assert v.reasons == {"判词": "证据"} and [(c.round, c.comment) for c in v.per_round] == [(1, "好")]
    # 反方胜 / 正方胜出: the side is read even with the win word right after it (no word boundary in Chinese)
    assert parse_verdict("**裁决：反方胜**——证据更具体", trial=True).winner == "con"
    assert parse_verdict("胜方：正方胜出", trial=True).winner == "pro"
