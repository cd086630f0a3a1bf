"""Envelope extraction, tolerant validation and rendering."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings, strategies as st

from debate_core.engines.envelopes import (Envelope, EnvelopeError, empty_envelope, envelope_json, extract_json,
                                   parse_envelope, render_envelope)

GOOD = {"stance": "远程更好", "arguments": [{"id": "A1", "point": "省通勤", "reasoning": "每天两小时", "evidence": "调查"}],
        "rebuttals": [], "no_new_points": False}


def test_fenced_block_wins_over_other_braces():
    text = 'Sure {not this}\n```json\n' + json.dumps(GOOD, ensure_ascii=False) + '\n```\ntrailing {x}'
    env = parse_envelope(text)
    assert env.arguments[0].point == "省通勤"
    assert env.arguments[0].evidence == "调查"


def test_first_to_last_brace_without_fence():
    text = "好的，这是我的信封：" + json.dumps(GOOD, ensure_ascii=False) + " 以上。"
    assert extract_json(text).startswith("{") and extract_json(text).endswith("}")
    assert parse_envelope(text).stance == "远程更好"


def test_plain_fence_without_language():
    text = "```\n" + json.dumps(GOOD) + "\n```"
    assert parse_envelope(text).arguments[0].id == "A1"


def test_drift_arguments_as_plain_strings_and_missing_evidence():
    # the sample log's drift: arguments degraded to a string array; evidence absent
    data = {"stance": "不缺爱更懂爱", "arguments": ["懂爱是稳定供给的能力", "更懂珍惜不等于更懂去爱"],
            "rebuttals": [{"target": "辩手甲 B1", "type": "反驳", "content": "偷换概念"}], "no_new_points": "false"}
    env = parse_envelope(json.dumps(data, ensure_ascii=False))
    assert [a.point for a in env.arguments] == ["懂爱是稳定供给的能力", "更懂珍惜不等于更懂去爱"]
    assert [a.id for a in env.arguments] == ["A1", "A2"]
    assert all(a.evidence == "" for a in env.arguments)
    assert env.no_new_points is False
    data2 = {"arguments": [{"id": "B1", "point": "p", "reasoning": "r"}], "rebuttals": [], "no_new_points": False}
    assert parse_envelope(json.dumps(data2)).arguments[0].evidence == ""


def test_drift_closing_points_inside_rebuttal_objects():
    data = {"stance": "s", "arguments": [], "no_new_points": "true",
            "rebuttals": [{"target": "", "point": "收尾立论：懂爱是手艺", "reasoning": "要付学费"}, "驳乙B2：偷换"]}
    env = parse_envelope(json.dumps(data, ensure_ascii=False))
    assert env.no_new_points is True
    assert "懂爱是手艺" in env.rebuttals[0].content and "要付学费" in env.rebuttals[0].content
    assert env.rebuttals[1].content == "驳乙B2：偷换" and env.rebuttals[1].type == "反驳"


@pytest.mark.parametrize("text, why", [
    ("I cannot answer that.", "没有 JSON 对象"),
    ("```json\n{\"arguments\": [1, }\n```", "无法解析"),
    ("[1, 2, 3]", "没有 JSON 对象"),
    ('{"name": "x", "age": 3}', "没有任何信封字段"),
    ('{"arguments": [], "rebuttals": [], "no_new_points": false}', "既没有论点也没有反驳"),
    ('{"arguments": [42]}', "字段 arguments"),
    ("", "没有 JSON 对象"),
])
def test_invalid_replies_raise_with_a_reason(text, why):
    # the reason is sent back to the model in the repair request: Chinese, like the debate
    with pytest.raises(EnvelopeError) as exc:
        parse_envelope(text)
    assert why in str(exc.value)
    assert not re.search(r"[A-Za-z]{4,}", re.sub(r"arguments|rebuttals|no_new_points|JSON|true", "", str(exc.value)))


def test_nothing_new_is_a_valid_envelope():
    env = parse_envelope('{"stance": "s", "arguments": [], "rebuttals": [], "no_new_points": true}')
    assert env.is_empty and env.no_new_points


def test_empty_envelope_follows_the_contract():
    env = empty_envelope("立场")
    assert env.model_dump()["arguments"] == [] and env.rebuttals == [] and env.no_new_points is True


def test_render_is_readable_and_escapes_table_cells():
    env = Envelope.model_validate({"stance": "s", "arguments": [{"point": "a|b", "reasoning": "r\nr2"}],
                                   "rebuttals": [{"target": "辩手乙 A2", "type": "质疑", "content": "证据呢"}],
                                   "no_new_points": False})
    md = render_envelope(env)
    assert "| A1 | a｜b | r r2 | — |" in md
    assert "- **质疑 辩手乙 A2**：证据呢" in md
    assert "no_new_points: false" in md
    assert "（本轮无论点、无反驳）" in render_envelope(empty_envelope("s"))


def test_envelope_json_round_trips():
    env = parse_envelope(json.dumps(GOOD, ensure_ascii=False))
    again = parse_envelope(envelope_json(env))
    assert again.model_dump() == env.model_dump()


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_arbitrary_text_either_parses_or_raises_envelope_error(text):
    try:
        env = parse_envelope(text)
    except EnvelopeError:
        return
    assert isinstance(env, Envelope)


@settings(max_examples=100, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3),
                    max_leaves=10))
def test_arbitrary_json_in_envelope_fields_never_crashes(value):
    for key in ("arguments", "rebuttals", "stance", "no_new_points"):
        text = json.dumps({key: value, "no_new_points": True} if key != "no_new_points" else {key: value})
        try:
            parse_envelope(text)
        except EnvelopeError:
            pass
