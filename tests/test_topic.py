"""The topic debate end to end, through litellm, against the scripted server on 127.0.0.1."""

from __future__ import annotations

import json
import re
import threading
from collections import defaultdict
from pathlib import Path
from typing import Callable, Optional, Union

import pytest

from debate_core.engines.prompts import quote

from debate_core.api import InputError, start_debate
from debate_core.models import DebateConfig
from debate_core import runs
from debate_core.protocols import registry
from debate_core.recorder import Recorder
from debate_core.protocols.registry import render as render_markdown
from debate_core.render.judged import debate_log_md, verdict_md, wrap_up_md
from debate_core.engines.scripted_server import Reply, ScriptedServer
from debate_core.engines.verdicts import parse_verdict_markdown

FAST = {"backoff": 0.01}
SAMPLE_VERDICT = Path(__file__).resolve().parents[2] / "shared" / "reference" / "topic-debate-sample" / "verdict.md"

Answer = Union[Reply, str]


def envelope(label: str, round_no: int, *, no_new: bool = False, fenced: bool = True) -> str:
    data = {"stance": "whatever", "no_new_points": no_new,
            "arguments": [] if no_new else [{"id": f"A{round_no}", "point": f"{label}第{round_no}轮论点",
                                              "reasoning": "理由", "evidence": "例子"}],
            "rebuttals": [] if round_no == 1 else [{"target": "辩手甲 A1" if label == "辩手乙" else "辩手乙 A1",
                                                    "type": "反驳", "content": f"{label}的反驳"}]}
    text = json.dumps(data, ensure_ascii=False)
    return f"好的。\n```json\n{text}\n```" if fenced else text


def judge_json(winner: str, labels: list[str]) -> str:
    return json.dumps({
        "winner": winner, "summary": f"{winner}论证更完整",
        "reasons": {"论点强度": "强", "攻防表现": "准", "逻辑硬伤": "少"},
        "rows": [{"label": l, "stance": "", "strongest": "s", "weakness": "w", "score": 8 if l == winner else 5}
                 for l in labels],
        "note": "看情况"}, ensure_ascii=False)


class Script:
    """Routes each request: stance split, judge, or one debater's round (with attempt counts)."""

    def __init__(self, stances=("远程办公更好", "坐班更好"), *,
                 debater: Optional[Callable[[str, int, int, dict], Answer]] = None,
                 judge: Optional[Callable[[int, dict], Answer]] = None,
                 split: Optional[Callable[[dict], Answer]] = None):
        self.stances = list(stances)
        self.debater = debater or (lambda label, r, attempt, body: envelope(label, r, no_new=r >= 2))
        self.judge = judge or (lambda attempt, body: judge_json("辩手甲", ["辩手甲", "辩手乙"]))
        self.split = split or (lambda body: json.dumps({"stances": self.stances, "reason": "r"}, ensure_ascii=False))
        self.attempts: dict = defaultdict(int)
        self.lock = threading.Lock()
        self.kinds: list[str] = []

    def __call__(self, body: dict) -> Answer:
        msgs = body["messages"]
        system = msgs[0]["content"]
        if "中立编排者" in system:
            kind, key = "split", ("split",)
        elif "独立裁判" in system:
            kind, key = "judge", ("judge",)
        else:
            label = re.search(r"你是(辩手.)", system).group(1)
            # this round's request: the last user message naming a round (a repair request names none)
            round_no = next(int(r.group(1)) for x in reversed(msgs) if x["role"] == "user"
                            and (r := re.search(r"第 (\d+) 轮", x["content"])))
            kind, key = "debater", (label, round_no)
        with self.lock:
            self.attempts[key] += 1
            attempt = self.attempts[key]
            self.kinds.append(kind)
        if kind == "split":
            return self.split(body)
        if kind == "judge":
            return self.judge(attempt, body)
        return self.debater(key[0], key[1], attempt, body)


class Log(Recorder):
    def __init__(self):
        self.events: list[tuple] = []

    def start(self, debate):
        self.events.append(("start", debate.id, debate.status))

    def speech(self, debate, speech):
        self.events.append(("speech", speech.round, speech.speaker, speech.status))

    def call(self, debate, call):
        self.events.append(("call", call.purpose, call.round, call.speaker, call.error))

    def update(self, debate):
        self.events.append(("update", debate.status))

    def of(self, kind):
        return [e for e in self.events if e[0] == kind]


def config(server, **kw) -> DebateConfig:
    base = dict(protocol="topic", topic="远程办公还是坐班？", models=["openai/m-one", "openai/m-two"],
                api_base=server.url, timeout=5, max_retries=2)
    base.update(kw)
    return DebateConfig(**base)


def run(server, recorder=None, **kw):
    runner, debate = runs.start(config(server, **kw), recorder or Recorder(), probe=False, gateway_options=FAST)
    return runner.run(debate)


def all_prompt_text(server) -> str:
    return "\n".join(str(m.get("content") or "") for msgs in server.messages() for m in msgs)


# --------------------------------------------------------------------- the flow


def test_full_debate_split_parallel_rounds_stop_and_judge():
    script = Script()
    rec = Log()
    with ScriptedServer(script) as srv:
        d = run(srv, rec)
    assert d.status == "completed" and d.protocol == "topic"
    # the seed's assignment: stance 1 → 辩手乙, stance 2 → 辩手甲; models go to 甲, 乙 in order
    assert [(p.label, p.stance, p.model) for p in d.participants] == [
        ("辩手甲", "坐班更好", "openai/m-one"), ("辩手乙", "远程办公更好", "openai/m-two")]
    assert d.models == ["openai/m-one", "openai/m-two"] and not d.warnings
    # round 1 openings, round 2 everybody says no_new_points -> stop before the 3-round cap
    assert [(s.round, s.speaker, s.role, s.status) for s in d.rounds] == [
        (1, "辩手甲", "opening", "ok"), (1, "辩手乙", "opening", "ok"),
        (2, "辩手甲", "rebuttal", "ok"), (2, "辩手乙", "rebuttal", "ok")]
    assert d.stop_reason == "第 2 轮全员报告无新论点，自然收敛"
    s = d.rounds[0]
    assert s.envelope["arguments"][0]["point"] == "辩手甲第1轮论点" and s.envelope["stance"] == "坐班更好"
    assert "辩手甲第1轮论点" in s.text and s.engine == "openai/m-one" and s.prompt_tokens > 0
    assert script.kinds[0] == "split" and script.kinds[-1] == "judge" and len(script.kinds) == 6
    v = d.verdict
    assert v.parsed and v.winner == "辩手甲" and v.judge == "openai/m-one" and v.scores == {"辩手甲": 8.0, "辩手乙": 5.0}
    # recorder: start first, every call reported, speeches before the judge, a final update with the verdict
    assert rec.events[0][0] == "start"
    assert [e[1] for e in rec.of("call")] == ["stance_split", "speech", "speech", "speech", "speech", "verdict"]
    assert len(d.llm_calls) == 6 and [c.purpose for c in d.llm_calls][0] == "stance_split"
    assert [e[1:3] for e in rec.of("speech")] == [(1, "辩手甲"), (1, "辩手乙"), (2, "辩手甲"), (2, "辩手乙")]
    assert rec.events[-1] == ("update", "completed")


def test_rebuttal_prompts_carry_own_and_others_previous_envelopes_and_openings_are_blind():
    with ScriptedServer(Script(stances=("甲立场", "乙立场", "丙立场"))) as srv:
        d = run(srv, models=["openai/a", "openai/b", "openai/c"])
        msgs = srv.messages()
    by = {}
    for m in msgs:
        system = m[0]["content"]
        lab = re.search(r"你是(辩手.)", system)
        if lab:
            # the debater's whole conversation; this round's request is its last message
            by[(lab.group(1), int(re.search(r"第 (\d+) 轮", m[-1]["content"]).group(1)))] = \
                "\n\n".join(x["content"] for x in m[1:])
    for label in ("辩手甲", "辩手乙", "辩手丙"):
        opening = by[(label, 1)]
        others = [o for o in ("辩手甲", "辩手乙", "辩手丙") if o != label]
        assert quote(d.participant(label).stance) in opening
        for o in others:  # blind: no other debater, stance or argument in an opening prompt
            assert o not in opening and d.participant(o).stance not in opening and "第1轮论点" not in opening
        rebuttal = by[(label, 2)]
        mine, theirs = rebuttal.split("其他辩手上一轮的信封")
        assert f"{label}第1轮论点" in mine
        for o in others:
            assert f"{o}第1轮论点" in theirs and f"【{o}】立场：\n{quote(d.participant(o).stance)}" in theirs
        assert f"{label}第1轮论点" not in theirs


def test_round_debaters_run_concurrently():
    # every opening waits for all three at a barrier: sequential calls would never meet there
    barrier = threading.Barrier(3, timeout=10)

    def debater(label, r, attempt, body):
        if r == 1:
            try:
                barrier.wait()
            except threading.BrokenBarrierError:
                return Reply(status=400, error="not concurrent")
        return envelope(label, r, no_new=r >= 2)

    with ScriptedServer(Script(stances=("A", "B", "C"), debater=debater)) as srv:
        d = run(srv, models=["openai/a", "openai/b", "openai/c"], max_retries=0)
    assert [s.status for s in d.rounds if s.round == 1] == ["ok", "ok", "ok"]


def test_speeches_are_committed_before_the_next_round_starts():
    rec = Log()
    seen: list[int] = []

    def debater(label, r, attempt, body):
        if r == 2:
            seen.append(len([e for e in rec.of("speech") if e[1] == 1]))
        return envelope(label, r, no_new=r >= 2)

    with ScriptedServer(Script(debater=debater)) as srv:
        run(srv, rec)
    assert seen == [2, 2]


def test_no_model_or_provider_name_reaches_any_prompt():
    models = ["openai/gpt-4o-secretname", "openai/claude-3-codename"]
    with ScriptedServer(Script(stances=("A方", "B方", "C方"),
                               judge=lambda a, b: judge_json("辩手丙", ["辩手甲", "辩手乙", "辩手丙"]))) as srv:
        d = run(srv, models=models, judge_model="openai/deepseek-judgename")
        requests = list(srv.requests)
    assert d.status == "completed" and d.verdict.winner == "辩手丙"
    assert {r["model"] for r in requests} == {"gpt-4o-secretname", "claude-3-codename", "deepseek-judgename"}
    text = "\n".join(str(m.get("content") or "") for r in requests for m in r["messages"]).lower()
    for needle in ("secretname", "codename", "judgename", "gpt", "claude", "codex", "openai", "deepseek", "anthropic",
                   "model", "模型"):
        assert needle not in text, needle
    # the judge call went to the judge model and saw labels and stances only
    judge_req = [r for r in requests if "独立裁判" in r["messages"][0]["content"]][0]
    assert judge_req["model"] == "deepseek-judgename"
    assert '"label": "辩手乙",\n  "stance": "A方"' in judge_req["messages"][1]["content"]  # stance 1 → 乙


# ---------------------------------------------------------------- stances, models


def test_given_stances_skip_the_split_and_fewer_models_degrade():
    script = Script()
    with ScriptedServer(script) as srv:
        d = run(srv, stances=["支持", "反对", "看情况：小团队远程"], models=["openai/only-one", "openai/second"],
                rounds=2)
    assert "split" not in script.kinds
    assert [p.model for p in d.participants] == ["openai/only-one", "openai/second", "openai/only-one"]
    assert [(p.label, p.stance) for p in d.participants] == [("辩手甲", "反对"), ("辩手乙", "支持"),
                                                              ("辩手丙", "看情况：小团队远程")]
    assert d.warnings[0] == "降级：2 个模型供 3 位辩手轮流使用，辩论不是异构的"
    log = debate_log_md(d)
    assert "**模式**：降级（2 个模型供 3 位辩手轮流使用，非异构）" in log
    assert "辩手丙 → 「看情况：小团队远程」" in log
    assert "only-one" not in log and "second" not in log


def test_one_model_for_two_stances_is_degraded_and_split_gives_four_at_most():
    five = ["一", "二", "三", "四", "五"]
    with ScriptedServer(Script(stances=five)) as srv:
        d = run(srv, models=["openai/solo"], rounds=1)
    assert [p.label for p in d.participants] == ["辩手甲", "辩手乙", "辩手丙", "辩手丁"]
    assert {p.model for p in d.participants} == {"openai/solo"}
    assert [p.stance for p in d.participants] == ["二", "一", "三", "四"]  # 甲, 乙, 丙, 丁
    assert any(w.startswith("降级：") for w in d.warnings)
    assert "立场拆分给出了 5 个立场，只辩前 4 个" in d.warnings
    assert d.stop_reason == "达到 1 轮上限，触顶停机"


def test_not_a_debatable_topic_is_a_clear_input_error():
    split = lambda body: json.dumps({"stances": ["地球是圆的"], "reason": "这是事实问题"}, ensure_ascii=False)
    with ScriptedServer(Script(split=split)) as srv:
        with pytest.raises(InputError, match="not a debatable topic.*这是事实问题"):
            runs.start(config(srv, topic="地球是什么形状？"), probe=False)
        with pytest.raises(InputError, match="at least 2 distinct stances"):
            runs.start(config(srv, stances=["只有一个"]), probe=False)
        with pytest.raises(InputError, match="at most 4 stances"):
            runs.start(config(srv, stances=list("ABCDE")), probe=False)
        with pytest.raises(InputError, match="rounds 9 out of range"):
            runs.start(config(srv, rounds=9, stances=["A", "B"]), probe=False)


def test_no_model_configured_says_how_to_set_one(monkeypatch):
    monkeypatch.delenv("DEBATE_MODEL", raising=False)
    with pytest.raises(InputError) as exc:
        start_debate(DebateConfig(protocol="topic", topic="远程还是坐班"))
    msg = str(exc.value)
    assert "the topic protocol needs a model" in msg and "--model" in msg and "--api-base" in msg and "DEBATE_MODEL" in msg


# ------------------------------------------------------------------ envelopes


def test_malformed_envelope_is_asked_again_with_the_error_then_recorded_empty():
    def debater(label, r, attempt, body):
        if label == "辩手甲" and r == 1:
            return "我拒绝用 JSON。" if attempt == 1 else envelope(label, r)
        if label == "辩手乙" and r == 1:
            return "{broken json" if attempt == 1 else "still not json"
        return envelope(label, r, no_new=True)

    with ScriptedServer(Script(debater=debater)) as srv:
        d = run(srv)
        msgs = srv.messages()
    a1, b1 = d.rounds[0], d.rounds[1]
    assert a1.status == "ok" and a1.retries == 1 and "已采用重发的回复" in a1.warnings[0]
    assert b1.status == "empty" and b1.retries == 1
    assert b1.envelope == {"stance": "远程办公更好", "arguments": [], "rebuttals": [], "no_new_points": True}
    assert b1.warnings[0].startswith("两次回复都不是合法信封") and b1.warnings[0].endswith("按空产出记录")
    repair = [m for m in msgs if "不能作为信封使用" in m[-1]["content"] and "你是辩手甲" in m[0]["content"]][0]
    assert repair[2] == {"role": "assistant", "content": "我拒绝用 JSON。"}
    assert "回复里没有 JSON 对象" in repair[3]["content"]  # the repair request is Chinese, like the debate
    assert "> 注：辩手乙第 1 轮没有有效产出（两次回复都不是合法信封" in debate_log_md(d)
    assert [c.purpose for c in d.llm_calls].count("speech_repair") == 2


def test_drifted_envelopes_from_the_sample_are_accepted():
    def debater(label, r, attempt, body):
        return json.dumps({"stance": "x", "arguments": ["懂爱是稳定供给的能力", {"point": "无证据的论点", "reasoning": "r"}],
                           "rebuttals": [{"point": "塞进反驳里的收尾论点"}], "no_new_points": "true"},
                          ensure_ascii=False)

    with ScriptedServer(Script(debater=debater)) as srv:
        d = run(srv, rounds=2)
    s = d.rounds[0]
    assert s.status == "ok" and s.retries == 0
    assert [a["point"] for a in s.envelope["arguments"]] == ["懂爱是稳定供给的能力", "无证据的论点"]
    assert s.envelope["arguments"][1]["evidence"] == ""
    # round 1 is a blind opening: its rebuttal is dropped (and said so); round 2 keeps the drifted one
    assert s.envelope["rebuttals"] == [] and s.warnings == ["第 1 轮是盲立论，看不到其他辩手：丢弃了 1 条反驳"]
    assert d.rounds[2].envelope["rebuttals"][0]["content"] == "塞进反驳里的收尾论点"


# -------------------------------------------------------------- empty rounds


def test_all_empty_round_is_retried_once_then_judged_on_what_exists():
    def debater(label, r, attempt, body):
        return envelope(label, r) if r == 1 else "……"

    rec = Log()
    with ScriptedServer(Script(debater=debater)) as srv:
        d = run(srv, rec)
    assert d.status == "completed" and d.verdict.parsed
    assert d.stop_reason == "第 2 轮两次均为空轮，依据已有内容裁决"
    r2 = [s for s in d.rounds if s.round == 2]
    assert [s.status for s in r2] == ["empty", "empty"] and all(s.retries == 2 for s in r2)
    assert d.warnings.count("第 2 轮：所有辩手都没有有效产出，本轮重跑一次") == 1
    assert "第 2 轮：重跑后所有辩手仍没有有效产出，裁判只依据已有的轮次裁决" in d.warnings
    # two attempts x (reply + repair) x 2 debaters for round 2; only the retry's speeches are archived
    assert [c.purpose for c in d.llm_calls if c.round == 2].count("speech") == 4
    assert [e[1] for e in rec.of("speech")] == [1, 1, 2, 2]
    assert "裁判只依据已有的轮次裁决" in debate_log_md(d)
    # the judge's log marks the empty round without any error detail
    judge_log = debate_log_md(d, for_judge=True)
    assert "本轮没有有效产出" in judge_log and "合法信封" not in judge_log


def test_an_all_empty_attempt_never_stops_the_debate_and_a_good_retry_continues():
    def debater(label, r, attempt, body):
        if r == 2 and attempt <= 2:  # first attempt (reply + repair) is garbage for everyone
            return "nope"
        return envelope(label, r, no_new=r == 3)

    with ScriptedServer(Script(debater=debater)) as srv:
        d = run(srv)
    assert [(s.round, s.status) for s in d.rounds] == [(1, "ok"), (1, "ok"), (2, "ok"), (2, "ok"), (3, "ok"), (3, "ok")]
    assert d.stop_reason == "第 3 轮全员报告无新论点，自然收敛"


# ---------------------------------------------------------------- faults


def test_rate_limit_then_success():
    def debater(label, r, attempt, body):
        if label == "辩手乙" and r == 1 and attempt == 1:
            return Reply(status=429, headers={"Retry-After": "0"}, error="slow down")
        return envelope(label, r, no_new=r >= 2)

    with ScriptedServer(Script(debater=debater)) as srv:
        d = run(srv)
    b1 = d.rounds[1]
    assert b1.status == "ok" and b1.speaker == "辩手乙"
    errors = [c for c in d.llm_calls if c.error]
    assert len(errors) == 1 and errors[0].error.startswith("rate limited (429)") and errors[0].speaker == "辩手乙"


def test_one_parallel_debater_times_out_while_the_others_succeed():
    def debater(label, r, attempt, body):
        if label == "辩手乙" and r == 1:
            return Reply(text=envelope(label, r), delay=1.5)
        return envelope(label, r, no_new=r >= 2)

    with ScriptedServer(Script(stances=("A", "B", "C"), debater=debater,
                               judge=lambda a, b: judge_json("辩手甲", ["辩手甲", "辩手乙", "辩手丙"]))) as srv:
        d = run(srv, models=["openai/a", "openai/b", "openai/c"], timeout=0.5, max_retries=0)
    r1 = {s.speaker: s for s in d.rounds if s.round == 1}
    assert r1["辩手甲"].status == "ok" and r1["辩手丙"].status == "ok"
    assert r1["辩手乙"].status == "failed" and r1["辩手乙"].warnings[0].startswith("模型调用失败：")
    assert r1["辩手乙"].warnings[0].startswith("模型调用失败：等待模型超时")  # the raw cause stays in the call
    assert any(c.error and "timed out" in c.error for c in d.llm_calls if c.speaker == "辩手乙")
    assert "第 1 轮：辩手乙 没有回复（模型调用失败）" in d.warnings
    assert d.status == "completed" and d.verdict.winner == "辩手甲"
    # round 2: the others see 辩手乙's round 1 as an empty envelope
    assert all(s.status == "ok" for s in d.rounds if s.round == 2)


# ---------------------------------------------------------------------- judge


@pytest.mark.skipif(not SAMPLE_VERDICT.is_file(), reason="reference sample verdict.md not present")
def test_judge_answering_in_the_samples_markdown_is_parsed():
    md = SAMPLE_VERDICT.read_text(encoding="utf-8")
    with ScriptedServer(Script(judge=lambda a, b: md)) as srv:
        d = run(srv)
    v = d.verdict
    assert v.parsed and v.winner == "辩手乙" and v.scores == {"辩手甲": 6.5, "辩手乙": 8.0}
    assert set(v.reasons) == {"论点强度", "攻防表现", "逻辑硬伤"} and v.raw == md
    out = verdict_md(d)
    assert parse_verdict_markdown(out, ["辩手甲", "辩手乙"]).winner == "辩手乙"


def test_judge_markdown_written_by_hand_is_parsed():
    md = ("## 一、判赢结论\n**辩手甲（远程办公更好）胜出**——论证更完整。\n\n## 二、判词\n**论点强度**：甲强。\n\n"
          "## 三、逐方点评表\n| 辩手 | 立场 | 最强论点 | 致命弱点 | 评分 |\n|---|---|---|---|---|\n"
          "| 辩手甲 | 远程 | 省时 | 协作 | **7.5** |\n| 辩手乙 | 坐班 | 氛围 | 通勤 | **5** |\n")
    with ScriptedServer(Script(judge=lambda a, b: md)) as srv:
        d = run(srv)
    assert d.verdict.winner == "辩手甲" and d.verdict.scores == {"辩手甲": 7.5, "辩手乙": 5.0}


def test_unparseable_verdict_is_retried_once_then_stored_raw_never_a_draw():
    with ScriptedServer(Script(judge=lambda a, b: f"双方都很精彩，难分伯仲（第{a}次）。")) as srv:
        d = run(srv)
        judge_reqs = [m for m in srv.messages() if "独立裁判" in m[0]["content"]]
    assert len(judge_reqs) == 2 and "无法读出胜者" in judge_reqs[1][-1]["content"]
    v = d.verdict
    assert v.parsed is False and v.winner is None and v.raw == "双方都很精彩，难分伯仲（第2次）。"
    assert d.status == "completed" and "裁判的输出两次都无法解析：原文照存，没有判定胜方（不是平局）" in d.warnings
    assert "没有判定胜方" in render_markdown(d)


def test_a_bad_first_verdict_then_a_good_one():
    with ScriptedServer(Script(judge=lambda a, b: "嗯……" if a == 1 else judge_json("辩手乙", ["辩手甲", "辩手乙"]))) as srv:
        d = run(srv)
    assert d.verdict.parsed and d.verdict.winner == "辩手乙"


def test_judge_failure_fails_the_debate_and_resume_reruns_only_the_judge():
    state = {"down": True}

    def judge(a, b):
        return Reply(status=500, error="boom") if state["down"] else judge_json("辩手甲", ["辩手甲", "辩手乙"])

    script = Script(judge=judge)
    with ScriptedServer(script) as srv:
        d = run(srv, max_retries=0)
        assert d.status == "failed" and "裁判调用失败" in d.stop_reason and d.verdict is None
        state["down"] = False
        n = script.kinds.count("debater")
        d = registry.get(d.protocol).runner_for(d, Recorder(), gateway_options=FAST).run(d)
        assert script.kinds.count("debater") == n
    assert d.status == "completed" and d.verdict.winner == "辩手甲"


def test_only_one_round_then_resume_through_runner_for():
    with ScriptedServer(Script(debater=lambda l, r, a, b: envelope(l, r, no_new=r == 3))) as srv:
        runner, d = runs.start(config(srv), Recorder(), probe=False, gateway_options=FAST)
        d = runner.run(d, only_one=True)
        assert d.status == "interrupted" and {s.round for s in d.rounds} == {1}
        d = registry.get(d.protocol).runner_for(d, Recorder(), gateway_options=FAST).run(d, only_one=True)
        assert d.status == "interrupted" and {s.round for s in d.rounds} == {1, 2}
        d = registry.get(d.protocol).runner_for(d, Recorder(), gateway_options=FAST).run(d)
    assert d.status == "completed" and {s.round for s in d.rounds} == {1, 2, 3}
    assert d.stop_reason == "第 3 轮全员报告无新论点，自然收敛"


def test_should_stop_stops_between_rounds():
    with ScriptedServer(Script(debater=lambda l, r, a, b: envelope(l, r))) as srv:
        runner, d = runs.start(config(srv), Recorder(), probe=False, gateway_options=FAST)
        d = runner.run(d, should_stop=lambda: len(d.rounds) >= 2)
    assert d.status == "stopped" and d.stop_reason == "用户在第 2 轮开始前停止" and d.verdict is None


# ------------------------------------------------------------------ render, CLI


def test_render_follows_the_log_and_verdict_layout():
    with ScriptedServer(Script()) as srv:
        d = run(srv)
    log = debate_log_md(d)
    assert log.startswith("# 辩论日志：远程办公还是坐班？")
    assert "- **立场映射（匿名）**：" in log and "  - 辩手甲 → 「坐班更好」\n  - 辩手乙 → 「远程办公更好」" in log
    assert "**模式**：正常" in log and "## 第 1 轮：立论" in log and "## 第 2 轮：交叉反驳" in log
    assert "### 辩手乙（远程办公更好）" in log and "| A1 | 辩手乙第1轮论点 | 理由 | 例子 |" in log
    assert "**停机**：第 2 轮全员报告无新论点，自然收敛" in log
    assert "m-one" not in log and "m-two" not in log
    ver = verdict_md(d)
    assert "## 一、判赢结论" in ver and "## 二、判词" in ver and "## 三、逐方点评表" in ver and "## 四、给读者的话" in ver
    assert render_markdown(d) == log + "\n---\n\n" + ver + "\n---\n\n" + wrap_up_md(d)


def test_cli_topic_debate_json_and_markdown(capsys, monkeypatch):
    from debate_core.cli.main import main
    from debate_core.io.exporters import to_json_dict

    monkeypatch.setenv("DEBATE_BACKOFF", "0.01")
    monkeypatch.delenv("DEBATE_ARCHIVE", raising=False)
    with ScriptedServer(Script()) as srv:
        code = main(["debate", "远程办公还是坐班？", "--protocol", "topic", "--models", "openai/m-one,openai/m-two",
                     "--api-base", srv.url, "--rounds", "2", "--format", "json", "--quiet"])
        out = capsys.readouterr().out
        assert code == 0
        data = json.loads(out)
        assert data["protocol"] == "topic" and data["verdict"]["winner"] == "辩手甲"
        assert data["verdict"]["scores"] == {"辩手甲": 8.0, "辩手乙": 5.0}
        assert set(data) == set(to_json_dict(__import__("debate_core.models", fromlist=["Debate"]).Debate.model_validate(data)))
        code = main(["debate", "远程办公还是坐班？", "--protocol", "topic", "--stances", "远程|坐班",
                     "--model", "openai/m-one", "--judge-model", "openai/judge", "--api-base", srv.url, "--quiet"])
        md = capsys.readouterr().out
    assert code == 0 and md.startswith("# 辩论日志") and "辩手乙 → 「远程」" in md and "# 裁判判词" in md
    assert "降级" in md


def test_cli_without_a_model_exits_with_usage(capsys, monkeypatch):
    from debate_core.cli.main import main

    monkeypatch.delenv("DEBATE_MODEL", raising=False)
    assert main(["debate", "远程还是坐班", "--protocol", "topic", "--quiet"]) == 2
    assert "the topic protocol needs a model" in capsys.readouterr().err


# ------------------------------------------------------- the seed's limits (issue 11)


def test_rounds_are_capped_at_three_everywhere():
    from debate_core.batch import SpecError, parse_spec
    from debate_core.protocols.topic import MAX_ROUNDS
    from debate_core.protocols import registry
    from webapp.views import rounds_range

    assert MAX_ROUNDS == 3
    with ScriptedServer(Script(debater=lambda l, r, a, b: envelope(l, r))) as srv:
        for n in (4, 5, 8):
            with pytest.raises(InputError, match=f"rounds {n} out of range: a topic debate runs 1-3 rounds"):
                runs.start(config(srv, rounds=n, stances=["A", "B"]), probe=False)
        d = run(srv)  # nobody ever runs out of points: the cap stops it
        prompts = [m[-1]["content"] for m in srv.messages() if "你是辩手" in m[0]["content"]]
    assert sorted({s.round for s in d.rounds}) == [1, 2, 3] and d.planned_rounds == 3
    assert d.stop_reason == "达到 3 轮上限，触顶停机"
    assert all("共至多 3 轮" in p for p in prompts) and sum("这是最后一轮" in p for p in prompts) == 2
    # the app's Setup slider cannot go past the cap
    assert rounds_range(registry.get("topic")) == (1, 3, 3)
    # batch specs refuse more, with one line naming the field
    with pytest.raises(SpecError) as exc:
        parse_spec({"protocol": "topic", "topics": ["远程还是坐班"], "models": ["openai/x"], "rounds": 5})
    assert str(exc.value) == ("batch spec: rounds: 5 is too many: a topic debate runs at most 3 rounds "
                              "(the openings plus up to 2 rebuttal rounds)")
    assert parse_spec({"protocol": "topic", "topics": ["t"], "models": ["openai/x"], "rounds": 3}).rounds == 3
    assert parse_spec({"protocol": "trial", "topics": ["t"], "models": ["openai/x"], "rounds": 5}).rounds == 5


def test_cli_refuses_more_than_three_rounds_in_one_line(capsys, monkeypatch):
    from debate_core.cli.main import main

    monkeypatch.delenv("DEBATE_MODEL", raising=False)  # the cap is checked before the model
    assert main(["debate", "远程办公还是坐班？", "--protocol", "topic", "--rounds", "5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: rounds 5 out of range: a topic debate runs 1-3 rounds (the openings plus up to 2 "
                   "rebuttal rounds, as the topic-debate seed caps it)"]


def test_stance_one_goes_to_yi_and_stance_two_to_jia_as_the_seed_assigns():
    from debate_core.protocols.topic import label_stances

    assert label_stances(["一", "二"]) == {"辩手甲": "二", "辩手乙": "一"}
    assert list(label_stances(["一", "二", "三", "四"]).items()) == [
        ("辩手甲", "二"), ("辩手乙", "一"), ("辩手丙", "三"), ("辩手丁", "四")]
    four = ("立场一", "立场二", "立场三", "立场四")
    labels = ["辩手甲", "辩手乙", "辩手丙", "辩手丁"]
    with ScriptedServer(Script(stances=four, judge=lambda a, b: judge_json("辩手乙", labels))) as srv:
        d = run(srv, models=["openai/a", "openai/b", "openai/c", "openai/d"], rounds=1)
        systems = {re.search(r"你是(辩手.)", m[0]["content"]).group(1): m[0]["content"]
                   for m in srv.messages() if "你是辩手" in m[0]["content"]}
    assert [(p.label, p.stance, p.model) for p in d.participants] == [
        ("辩手甲", "立场二", "openai/a"), ("辩手乙", "立场一", "openai/b"),
        ("辩手丙", "立场三", "openai/c"), ("辩手丁", "立场四", "openai/d")]
    for label, stance in (("辩手甲", "立场二"), ("辩手乙", "立场一"), ("辩手丙", "立场三"), ("辩手丁", "立场四")):
        assert quote(stance) in systems[label]
    # the wrap-up names the stances in the seed's order: stance 1 (辩手乙) first
    assert "- **立场**：4 方——辩手乙 →「立场一」；辩手甲 →「立场二」；辩手丙 →「立场三」；辩手丁 →「立场四」" in wrap_up_md(d)
    assert d.verdict.winner == "辩手乙" and "- **判赢**：辩手乙（立场一）胜出" in wrap_up_md(d)


def test_every_round_empty_means_no_debate_and_the_judge_is_not_asked():
    script = Script(debater=lambda l, r, a, b: "……")
    rec = Log()
    with ScriptedServer(script) as srv:
        d = run(srv, rec)
    assert "judge" not in script.kinds and not [c for c in d.llm_calls if c.purpose == "verdict"]
    assert d.status == "failed" and d.verdict is None
    # the cause once, with whose it was (the same cause twice is said once, not nested twice)
    assert d.stop_reason == ("未成辩论：跑过的 1 轮里每位辩手都没有说出任何论点或反驳（辩手甲、辩手乙：两次回复都不是"
                             "合法信封（回复里没有 JSON 对象），按空产出记录），所以没有请裁判裁决。检查模型配置后可续跑，"
                             "辩论会从立论重新开始")
    assert {s.round for s in d.rounds} == {1}  # an empty first round, tried twice, ends it
    assert rec.events[-1] == ("update", "failed")
    # one story: no warning that a judge will rule, no judge block, the cause said once
    assert d.warnings == ["第 1 轮：所有辩手都没有有效产出，本轮重跑一次"]
    md = render_markdown(d)
    assert "裁判只依据" not in md and "# 裁判判词" not in md and "独立裁判（未参与辩论" not in md
    assert md.count("回复里没有 JSON 对象") == 1 and md.count("未成辩论：") == 1
    assert "> 注：辩手甲第 1 轮没有有效产出，按空产出处理（原因见文末的停机说明）" in md
    assert "- **判赢**：未成辩论，没有请裁判" in md and "参考结论" not in md and "debate-log.md 里" not in md
    assert md.rstrip().endswith("本场未成辩论，没有裁决，也就没有结论；已有的记录可以用「产物」一行的命令写成文件。")
    # the folder's verdict.md says no judge was asked, and points at the log it sits beside
    assert verdict_md(d).endswith("**未成辩论，没有请裁判，所以没有裁决。** 原因见 debate-log.md 文末的停机说明。\n")
    assert wrap_up_md(d, export="/tmp/x.debate").rstrip().endswith("已有的记录在 `/tmp/x.debate/debate-log.md` 里。")


def test_envelopes_that_say_nothing_in_every_round_are_no_debate_either():
    nothing = json.dumps({"stance": "x", "arguments": [], "rebuttals": [], "no_new_points": True})
    script = Script(debater=lambda l, r, a, b: nothing)
    with ScriptedServer(script) as srv:
        d = run(srv)
    assert [s.status for s in d.rounds] == ["ok"] * 4 and "judge" not in script.kinds
    assert d.status == "failed" and d.stop_reason.startswith("未成辩论：跑过的 2 轮里每位辩手都没有说出任何论点或反驳")


def test_a_no_debate_resumed_starts_again_from_the_openings():
    state = {"broken": True}

    def debater(label, r, attempt, body):
        return "……" if state["broken"] else envelope(label, r, no_new=r >= 2)

    script = Script(debater=debater)
    with ScriptedServer(script) as srv:
        d = run(srv)
        assert d.stop_reason.startswith("未成辩论")
        state["broken"] = False
        d = registry.get(d.protocol).runner_for(d, Recorder(), gateway_options=FAST).run(d)
    assert d.status == "completed" and d.verdict.winner == "辩手甲"
    assert [(s.round, s.status) for s in d.rounds] == [(1, "ok"), (1, "ok"), (2, "ok"), (2, "ok")]


def test_wrap_up_after_the_verdict_follows_the_seed():
    with ScriptedServer(Script()) as srv:
        d = run(srv)
    w = wrap_up_md(d, archive="/data/runs.duckdb", export="/tmp/远程.debate")
    assert w.splitlines()[:9] == [
        "## 收尾", "",
        "- **辩题**：远程办公还是坐班？",
        "- **立场**：2 方——辩手乙 →「远程办公更好」；辩手甲 →「坐班更好」",
        "- **轮次**：跑了 2 轮（上限 3 轮），自然收敛（第 2 轮全员无新论点）",
        "- **模式**：正常（2 位辩手各用一个不同的模型，互相匿名）",
        "- **判赢**：辩手甲（坐班更好）胜出——辩手甲论证更完整",
        f"- **产物**：辩论编号 `{d.id}`；存档 `/data/runs.duckdb`；`/tmp/远程.debate/debate-log.md` 与 "
        "`/tmp/远程.debate/verdict.md`",
        ""]
    assert w.rstrip().splitlines()[-1] == ("> 这是 AI 辩论给出的参考结论，非定论；每一轮的论点与反驳都记在 "
                                           "`/tmp/远程.debate/debate-log.md` 里，可以逐条追溯。")
    # without an export no file is named as if it existed: the record, and the command that writes it
    plain = wrap_up_md(d)
    assert "debate-log.md 里" not in plain and "debate-log.md`" not in plain
    assert plain.rstrip().splitlines()[-1] == ("> 这是 AI 辩论给出的参考结论，非定论；每一轮的论点与反驳都在本场的记录里，"
                                               "可以逐条追溯（写成文件的命令见「产物」一行）。")
    assert f"`python -m debate_core export {d.id} --format md --out {d.id}.md`" in plain
    assert render_markdown(d).rstrip().endswith(plain.rstrip().splitlines()[-1])
    # a capped, degraded debate says so; without an export it says how to write the files
    with ScriptedServer(Script(debater=lambda l, r, a, b: envelope(l, r))) as srv:
        d2 = run(srv, models=["openai/solo"])
    w2 = wrap_up_md(d2)
    assert "- **轮次**：跑了 3 轮（上限 3 轮），触顶停机（3 轮上限）" in w2
    assert "- **模式**：降级（1 个模型供 2 位辩手轮流使用，非异构）" in w2
    assert (f"写成文件：`python -m debate_core export {d2.id} --format md --out {d2.id}.md`（全文），或 "
            "`--format debate-dir`（写出 debate-log.md 与 verdict.md 两个文件）") in w2


ALLOWED_LATIN = {"JSON", "json", "arguments", "rebuttals", "no_new_points", "true", "md", "debate", "log",
                 "verdict", "python", "export", "format", "dir", "core"}


def latin_words(text: str) -> list[str]:
    return [w for w in re.findall(r"[A-Za-z][A-Za-z_]{2,}", text) if w not in ALLOWED_LATIN]


def test_a_chinese_topic_debate_shows_and_sends_chinese_only(capsys, monkeypatch):
    """Warnings, stop reasons, notes, repair requests and progress lines of a troubled debate."""
    from debate_core.cli.main import main

    def debater(label, r, attempt, body):
        if label == "辩手甲" and r == 1:
            return "I refuse." if attempt == 1 else envelope(label, r)  # repaired
        if label == "辩手乙" and r == 1:
            return "nope"  # invalid twice: recorded as empty
        if r == 2 and attempt <= 2:
            return "garbage"  # round 2: all empty once, then retried
        return envelope(label, r)

    monkeypatch.setenv("DEBATE_BACKOFF", "0.01")
    with ScriptedServer(Script(debater=debater)) as srv:
        code = main(["debate", "远程办公还是坐班？", "--protocol", "topic", "--models", "openai/solo",
                     "--api-base", srv.url, "--stances", "远程|坐班", "--format", "json"])
        out, err = capsys.readouterr()
        repairs = [m[-1]["content"] for m in srv.messages()
                   if "不能作为信封使用" in m[-1]["content"] and "你是辩手" in m[0]["content"]]
    assert code == 0
    data = json.loads(out)
    shown = [data["stop_reason"], *data["warnings"], *[w for s in data["rounds"] for w in s["warnings"]]]
    assert data["stop_reason"] == "达到 3 轮上限，触顶停机"
    assert any(w.startswith("降级：") for w in data["warnings"])
    assert "第 2 轮：所有辩手都没有有效产出，本轮重跑一次" in data["warnings"]
    progress = [line for line in err.splitlines() if line.startswith("  第")]
    assert progress[:2] == ["  第 1 轮｜辩手甲 立论 完成（重发 1 次）",
                            "  第 1 轮｜辩手乙 立论 空产出：两次回复都不是合法信封（回复里没有 JSON 对象），按空产出记录"]
    assert len(progress) == 6 and len(repairs) >= 4
    for text in shown + progress + repairs:
        assert not latin_words(text), text


def test_the_app_outcome_carries_the_wrap_up_and_a_no_debate_says_why():
    from webapp.views import outcome_view

    with ScriptedServer(Script()) as srv:
        d = run(srv)
    from webapp import i18n

    view = outcome_view(d)  # the reader's language (English here): the library's words; the debate's apart
    wu = view.wrap_up
    assert view.kind == "verdict" and [line.key for line in wu.lines] == ["Topic", "Stances", "Rounds", "Mode",
                                                                         "Winner", "Artifacts"]
    assert "reference conclusion" in wu.closing and wu.lines[0].own == (d.topic,)
    assert wu.lines[1].text == "2 sides" and all("→" in own for own in wu.lines[1].own)  # 辩手乙 →「…」: its own
    assert not any(re.search(r"[\u4e00-\u9fff]", line.key + line.text.replace(d.verdict.winner, ""))
                   for line in wu.lines)
    with i18n.use("zh"):  # a Chinese reader of a Chinese debate: the same words as the seed's wrap-up
        wu, md = outcome_view(d).wrap_up, wrap_up_md(d)
    assert "参考结论，非定论" in wu.closing and wu.closing in md
    assert all(f"**{line.key}**" in md and all(o in md for o in line.own) for line in wu.lines)
    assert all(line.text in md for line in wu.lines if line.key != "判赢")  # (md names the winner with its stance)
    w = d.verdict.winner
    assert wu.lines[4].text == f"{w} 胜出" and f"**判赢**：{w}（{d.participant(w).stance}）胜出" in md
    with ScriptedServer(Script(debater=lambda l, r, a, b: "……")) as srv:
        empty = run(srv)
    with i18n.use("zh"):
        view = outcome_view(empty)
    assert view.kind == "pending" and view.wrap_up.lines[4].text == "未成辩论，没有请裁判"
    assert "- **判赢**：未成辩论，没有请裁判" in wrap_up_md(empty)
