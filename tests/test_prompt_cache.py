"""Prompts a provider can cache: every protocol puts what stays the same between one speaker's calls
first, in the same bytes; Anthropic requests carry cache_control breakpoints on that part; the cached
input tokens providers report are recorded per call, stored, and priced by litellm's cost.

The provider side is the scripted OpenAI-compatible server on 127.0.0.1 playing a prompt cache
(OpenAI-style automatic prefix caching, and Anthropic's Messages API with breakpoints)."""

from __future__ import annotations

import json
import re

import pytest

from debate_core import runs
from debate_core.archive import open_archive
from debate_core.engines.gateway import STABLE_PREFIX, cache_layout, usage_cached_tokens, wants_cache_control
from debate_core.engines.scripted_server import ScriptedServer, serialize
from debate_core.models import DebateConfig

FAST = {"backoff": 0.01}
SPEECH = "我方坚持这一点，理由如下：迁移的成本可以分期摊销，收益则逐年累积。" * 12


def trial_script(body: dict) -> str:
    system = body["messages"][0]["content"]
    if "庭审式辩论的裁判" in system:
        return json.dumps({"per_round": [{"round": r, "comment": "点评"} for r in (1, 2, 3)], "winner": "con",
                           "summary": "反方胜", "reasons": "理由"}, ensure_ascii=False)
    side = "正方" if "担任正方" in system else "反方"
    n = sum(1 for m in body["messages"] if m["role"] == "assistant") + 1
    return f"{side}第{n}篇：{SPEECH}"


def run_trial(tmp_path, model: str, server: ScriptedServer, name: str = "t"):
    arc = open_archive(tmp_path / f"{name}.duckdb")
    config = DebateConfig(protocol="trial", topic="我们应该把 REST API 换成 gRPC", models=[model, model],
                          api_base=server.url if model.startswith("openai/") else server.url.rsplit("/v1", 1)[0],
                          rounds=3, timeout=5, max_retries=1)
    runner, debate = runs.start(config, arc, probe=False, gateway_options=FAST)
    debate = runner.run(debate)
    assert debate.status == "completed", debate.stop_reason
    return arc, arc.get_debate(debate.id)


def speaker_calls(debate, side: str):
    return [c for c in debate.llm_calls if c.purpose == "speech" and c.speaker == side]


def test_a_trial_speaker_call_begins_with_its_previous_call_and_the_cache_is_reported_and_priced(tmp_path):
    with ScriptedServer(trial_script, prompt_cache=True) as cached_srv:
        arc, d = run_trial(tmp_path, "openai/gpt-4o", cached_srv, "cached")
    for side in ("pro", "con"):
        calls = speaker_calls(d, side)
        assert len(calls) == 3
        for prev, cur in zip(calls, calls[1:]):
            assert cur.messages[:len(prev.messages)] == prev.messages  # the whole previous call, message for message
            assert serialize(cur.messages).startswith(serialize(prev.messages))
            assert cur.cached_tokens >= len(serialize(prev.messages)) // 2 - 2
        assert calls[0].cached_tokens < calls[1].cached_tokens < calls[2].cached_tokens
    # stored per call and per debate
    stored = arc.query("SELECT sum(cached_tokens) AS c FROM llm_calls WHERE debate_id = ?", [d.id])["c"][0]
    assert stored == sum(c.cached_tokens for c in d.llm_calls) > 0
    assert arc.query("SELECT cached_tokens FROM debates WHERE id = ?", [d.id])["cached_tokens"][0] == stored
    tokens = arc.tokens_by_model().set_index("model")
    assert tokens.loc["openai/gpt-4o", "cached_tokens"] == stored
    # litellm prices the cached tokens at the provider's cache rate: the same debate costs less
    with ScriptedServer(trial_script) as plain_srv:
        _, p = run_trial(tmp_path, "openai/gpt-4o", plain_srv, "plain")
    assert [c.prompt_tokens for c in p.llm_calls] == [c.prompt_tokens for c in d.llm_calls]
    assert all(c.cached_tokens == 0 for c in p.llm_calls)
    assert sum(c.cost for c in d.llm_calls) < sum(c.cost for c in p.llm_calls)


def test_anthropic_requests_carry_cache_breakpoints_and_read_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-scripted-not-a-key")
    with ScriptedServer(trial_script, prompt_cache=True) as srv:
        arc, d = run_trial(tmp_path, "anthropic/claude-sonnet-4-5", srv)
        raw = [r["anthropic"] for r in srv.requests if "anthropic" in r]
    speeches = [r for r in raw if "担任" in json.dumps(r["system"], ensure_ascii=False)]
    assert len(speeches) == 6
    for r in speeches:
        assert r["system"][-1]["cache_control"] == {"type": "ephemeral"}  # the system prompt is cached
        marked = [i for i, m in enumerate(r["messages"]) if isinstance(m["content"], list)
                  and any(b.get("cache_control") for b in m["content"])]
        if len(r["messages"]) >= 2:
            assert marked == [len(r["messages"]) - 2]  # the end of the conversation so far
    for side in ("pro", "con"):
        calls = speaker_calls(d, side)
        # the first call writes the cache; each later one reads up to the previous call's last breakpoint
        assert calls[0].cached_tokens == 0 < calls[1].cached_tokens < calls[2].cached_tokens
    assert all("cache_control" not in json.dumps(c.messages) for c in d.llm_calls)  # the record stays plain
    with ScriptedServer(trial_script) as plain:
        _, p = run_trial(tmp_path, "anthropic/claude-sonnet-4-5", plain, "plain")
    assert sum(c.cost for c in d.llm_calls) < sum(c.cost for c in p.llm_calls)


def test_a_topic_debater_call_begins_with_its_previous_call(tmp_path):
    from tests.test_topic import Script, envelope

    with ScriptedServer(Script(debater=lambda label, r, a, body: envelope(label, r)), prompt_cache=True) as srv:
        arc = open_archive(tmp_path / "topic.duckdb")
        config = DebateConfig(protocol="topic", topic="远程办公还是坐班？", models=["openai/gpt-4o", "openai/gpt-4o"],
                              api_base=srv.url, rounds=3, timeout=5, max_retries=1, stances=["远程更好", "坐班更好"])
        runner, debate = runs.start(config, arc, probe=False, gateway_options=FAST)
        debate = runner.run(debate)
    assert debate.status == "completed" and {s.round for s in debate.rounds} == {1, 2, 3}
    for label in ("辩手甲", "辩手乙"):
        calls = [c for c in debate.llm_calls if c.speaker == label and c.purpose != "judge"]
        calls = sorted(calls, key=lambda c: c.round)
        assert [c.round for c in calls] == [1, 2, 3]
        for prev, cur in zip(calls, calls[1:]):
            assert cur.messages[:len(prev.messages)] == prev.messages
            assert cur.cached_tokens > 0
        # nothing that varies comes before the conversation: the round number is in the last message only
        assert all(not re.search(r"第 \d+ 轮", m["content"]) for m in calls[2].messages[:1])


def test_a_master_speakers_stable_part_comes_first_in_the_same_bytes(tmp_path):
    from tests.master_script import master_script
    from debate_core.content.packs import load_pack
    from debate_core.archive import REPO_ROOT

    pack = load_pack(REPO_ROOT / "data" / "packs" / "default")
    with ScriptedServer(master_script(pack), prompt_cache=True) as srv:
        arc = open_archive(tmp_path / "m.duckdb")
        config = DebateConfig(topic="禅宗顿悟和净土念佛，到底谁更直接？", masters=["huineng", "yinguang"],
                              model="openai/gpt-4o", api_base=srv.url, rounds=4, timeout=5)
        runner, debate = runs.start(config, arc, probe=False, gateway_options=FAST)
        debate = runner.run(debate)
    assert debate.status == "completed", debate.stop_reason
    for slug in ("huineng", "yinguang"):
        calls = [c for c in debate.llm_calls if c.purpose == "speech" and c.speaker == slug]
        assert len(calls) >= 2
        heads = {(c.messages[0]["content"], c.messages[1]["content"].split("这是第 ")[0]) for c in calls}
        assert len(heads) == 1  # system prompt and the stable block: the same bytes every round
        head = next(iter(heads))[1]
        assert "【议题】" in head and "【你的经典】" in head and "轮" not in head.replace("轮回", "")
        assert all(c.cached_tokens >= len(serialize(c.messages[:1]) + head) // 2 - 2 for c in calls[1:])


def test_cache_layout_marks_the_stable_part_only_for_claude_models():
    msgs = [{"role": "system", "content": "rules"}, {"role": "user", "content": "topic+record|now", STABLE_PREFIX: 13}]
    out = cache_layout(msgs)
    assert out[0]["content"] == [{"type": "text", "text": "rules", "cache_control": {"type": "ephemeral"}}]
    assert out[1]["content"] == [{"type": "text", "text": "topic+record|", "cache_control": {"type": "ephemeral"}},
                                 {"type": "text", "text": "now"}]
    assert STABLE_PREFIX not in out[1] and STABLE_PREFIX in msgs[1]  # the caller's messages are left alone
    convo = [{"role": "system", "content": "s"}, {"role": "user", "content": "u1"},
             {"role": "assistant", "content": "a1"}, {"role": "user", "content": "u2"}]
    out = cache_layout(convo)
    assert out[2]["content"][0]["cache_control"] and out[3]["content"] == "u2" and out[1]["content"] == "u1"
    assert wants_cache_control("anthropic/claude-sonnet-4-5") and wants_cache_control("bedrock/anthropic.claude-3")
    assert not wants_cache_control("openai/gpt-4o") and not wants_cache_control("deepseek/deepseek-chat")


@pytest.mark.parametrize("usage, expected", [
    ({"prompt_tokens": 10, "prompt_tokens_details": {"cached_tokens": 7}}, 7),
    ({"prompt_tokens": 10, "cache_read_input_tokens": 6}, 6),
    ({"prompt_tokens": 10, "prompt_cache_hit_tokens": 5}, 5),
    ({"prompt_tokens": 10, "prompt_tokens_details": None}, 0),
    (None, 0),
])
def test_cached_tokens_are_read_from_every_providers_field(usage, expected):
    assert usage_cached_tokens(usage) == expected
