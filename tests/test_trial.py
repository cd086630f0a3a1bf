"""The trial end to end: open / round / verdict steps, research tools, faults — via the scripted server."""

from __future__ import annotations

import json
import os
import re
import threading
from collections import defaultdict
from typing import Callable, Optional

import pytest

from debate_core.api import InputError, start_debate
from debate_core.models import DebateConfig
from debate_core import runs
from debate_core.protocols import registry
from debate_core.protocols.trial import MAX_TOOL_CALLS, open_trial, trial_round, trial_verdict
from debate_core.recorder import Recorder
from debate_core.protocols.registry import render as render_markdown
from debate_core.engines.scripted_server import Reply, ScriptedServer

FAST = {"backoff": 0.01}


def verdict_json(winner="con", rounds=2) -> str:
    return json.dumps({"per_round": [{"round": i, "comment": f"第{i}轮点评"} for i in range(1, rounds + 1)],
                       "winner": winner, "summary": "反方更有说服力", "reasons": "反方的证据更具体"},
                      ensure_ascii=False)


def last_round(body) -> int:
    """The round a speaker is asked for: the last user message that names one (tool results come after it)."""
    return next(int(m.group(1)) for x in reversed(body["messages"]) if x["role"] == "user"
                and (m := re.search(r"现在是第 (\d+) 轮", str(x["content"]))))


class Script:
    """Routes requests to the judge or to a side; counts calls per (side, round)."""

    def __init__(self, speaker: Optional[Callable] = None, judge: Optional[Callable] = None):
        self.speaker = speaker or (lambda side, r, n, body: f"{side} 第{r}轮发言")
        self.judge = judge or (lambda n, body: verdict_json())
        self.counts: dict = defaultdict(int)
        self.lock = threading.Lock()

    def __call__(self, body):
        system = body["messages"][0]["content"]
        if "庭审式辩论的裁判" in system:
            key = ("judge",)
        else:
            side = "pro" if "担任正方" in system else "con"
            r = last_round(body)
            key = (side, r)
        with self.lock:
            self.counts[key] += 1
            n = self.counts[key]
        if key == ("judge",):
            return self.judge(n, body)
        return self.speaker(key[0], key[1], n, body)


class Log(Recorder):
    def __init__(self):
        self.events = []

    def start(self, d):
        self.events.append(("start",))

    def speech(self, d, s):
        self.events.append(("speech", s.round, s.speaker, s.status))

    def call(self, d, c):
        self.events.append(("call", c.purpose, c.round, c.speaker))

    def update(self, d):
        self.events.append(("update", d.status))


def cfg(srv, **kw) -> DebateConfig:
    base = dict(protocol="trial", topic="我们应该把 REST API 换成 gRPC", models=["openai/pro-m", "openai/con-m"],
                api_base=srv.url, rounds=2, timeout=5, max_retries=1)
    base.update(kw)
    return DebateConfig(**base)


# ------------------------------------------------------------------------- open


def test_open_validates_and_records(monkeypatch):
    rec = Log()
    with ScriptedServer(Script()) as srv:
        d = open_trial(cfg(srv, rounds=None), rec, probe=False)
        assert d.status == "running" and d.planned_rounds == 3 and rec.events == [("start",)]
        assert [(p.label, p.model) for p in d.participants] == [("pro", "openai/pro-m"), ("con", "openai/con-m")]
        assert d.config.judge_model == "openai/pro-m"  # the judge defaults to the first debater's model
        assert srv.requests == []  # opening calls no model
        assert open_trial(cfg(srv, rounds=8), probe=False).planned_rounds == 8
        with pytest.raises(InputError, match="rounds 9 out of range: a trial allows 1-8"):
            open_trial(cfg(srv, rounds=9), probe=False)
        with pytest.raises(InputError, match="allows 1-4"):
            open_trial(cfg(srv, rounds=5), probe=False, max_rounds=4)
        with pytest.raises(InputError, match="not a folder"):
            open_trial(cfg(srv, workspace="/no/such/folder"), probe=False)
        one = open_trial(cfg(srv, models=[], model="openai/both"), probe=False)
        assert [p.model for p in one.participants] == ["openai/both", "openai/both"]
    monkeypatch.delenv("DEBATE_MODEL", raising=False)
    with pytest.raises(InputError, match="the trial protocol needs a model.*--api-base.*DEBATE_MODEL"):
        start_debate(DebateConfig(protocol="trial", topic="x 还是 y"))


# ------------------------------------------------------------------------ rounds


def test_each_round_pro_then_con_who_has_read_pro_with_the_full_transcript():
    rec = Log()
    with ScriptedServer(Script()) as srv:
        d = open_trial(cfg(srv), rec, probe=False)
        first = trial_round(d, rec, gateway_options=FAST)
        assert [(s.round, s.speaker, s.text) for s in first] == [(1, "pro", "pro 第1轮发言"), (1, "con", "con 第1轮发言")]
        assert len(srv.requests) == 2  # exactly one round
        second = trial_round(d, rec, gateway_options=FAST)
        msgs = srv.messages()
    assert [s.round for s in second] == [2, 2]
    pro1, con1, pro2, con2 = ("\n".join(x["content"] for x in m[1:]) for m in msgs)
    assert "第 1 轮 ·" not in pro1 and "发言" not in pro1.split("现在是")[0].split("辩题")[0]
    assert "pro 第1轮发言" in con1 and "第 1 轮 · 正方" in con1
    assert "pro 第1轮发言" in pro2 and "con 第1轮发言" in pro2 and "第2轮" not in pro2
    assert "pro 第2轮发言" in con2 and "con 第1轮发言" in con2
    # a side's call begins with its previous call, message for message: a prompt cache serves it
    assert msgs[2][:len(msgs[0])] == msgs[0] and msgs[3][:len(msgs[1])] == msgs[1]
    assert msgs[2][len(msgs[0])] == {"role": "assistant", "content": "pro 第1轮发言"}
    # each speech is archived before the next speaker is asked
    kinds = [e for e in rec.events if e[0] in ("speech", "call")]
    assert kinds[:4] == [("call", "speech", 1, "pro"), ("speech", 1, "pro", "ok"),
                         ("call", "speech", 1, "con"), ("speech", 1, "con", "ok")]
    with ScriptedServer(Script()) as srv2:
        with pytest.raises(InputError, match="all 2 rounds are played"):
            d.config.api_base = srv2.url
            trial_round(d, gateway_options=FAST)


def test_speeches_are_cut_at_max_speech_length_and_flagged():
    long_text = "论" * 450
    with ScriptedServer(Script(speaker=lambda side, r, n, b: long_text if side == "pro" else "短")) as srv:
        d = open_trial(cfg(srv, max_speech_length=300, rounds=1), probe=False)
        pro, con = trial_round(d, gateway_options=FAST)
        system = srv.messages()[0][0]["content"]
    assert pro.truncated and len(pro.text) == 300 and pro.text == long_text[:300]
    assert "超过 300 字符，已截断" in pro.warnings
    assert not con.truncated and con.text == "短"
    assert "不超过 300 个字符" in system
    assert "已截断" in render_markdown(d)


def test_a_failed_round_is_rerun_alone():
    down = {"con": True}

    def speaker(side, r, n, body):
        if side == "con" and r == 2 and down["con"]:
            return Reply(status=503, error="overloaded")
        return f"{side} 第{r}轮第{n}稿"

    script = Script(speaker=speaker)
    rec = Log()
    with ScriptedServer(script) as srv:
        d = open_trial(cfg(srv, max_retries=0), rec, probe=False)
        trial_round(d, rec, gateway_options=FAST)
        out = trial_round(d, rec, gateway_options=FAST)
        assert [(s.speaker, s.status) for s in out] == [("pro", "ok"), ("con", "failed")]
        assert d.status == "failed" and d.stop_reason == "第 2 轮反方发言失败：模型调用失败：连接模型服务失败；请重跑该轮"
        assert "overloaded" not in d.stop_reason  # the provider's own words stay in the recorded call
        assert any("overloaded" in c.error for c in d.llm_calls)
        assert ("speech", 2, "con", "failed") in rec.events
        down["con"] = False
        out = trial_round(d, rec, gateway_options=FAST)
    assert d.status == "running"
    assert [(s.speaker, s.text) for s in out] == [("pro", "pro 第2轮第1稿"), ("con", "con 第2轮第2稿")]
    assert script.counts[("pro", 1)] == 1 and script.counts[("con", 1)] == 1 and script.counts[("pro", 2)] == 1
    assert [s.status for s in d.rounds] == ["ok"] * 4


def test_rerun_redoes_the_last_round_only():
    script = Script(speaker=lambda side, r, n, b: f"{side} r{r} v{n}")
    with ScriptedServer(script) as srv:
        d = open_trial(cfg(srv), probe=False)
        with pytest.raises(InputError, match="nothing to rerun"):
            trial_round(d, rerun=True, gateway_options=FAST)
        trial_round(d, gateway_options=FAST)
        trial_round(d, gateway_options=FAST)
        out = trial_round(d, rerun=True, gateway_options=FAST)
    assert [s.text for s in out] == ["pro r2 v2", "con r2 v2"]
    assert [s.text for s in d.rounds] == ["pro r1 v1", "con r1 v1", "pro r2 v2", "con r2 v2"]


# ----------------------------------------------------------------------- verdict


def test_verdict_gives_per_round_commentary_winner_and_closes():
    rec = Log()
    with ScriptedServer(Script()) as srv:
        d = open_trial(cfg(srv), rec, probe=False)
        with pytest.raises(InputError, match="no complete round"):
            trial_verdict(d, gateway_options=FAST)
        trial_round(d, rec, gateway_options=FAST)
        trial_round(d, rec, gateway_options=FAST)
        d = trial_verdict(d, rec, gateway_options=FAST)
        judge_req = srv.requests[-1]
        with pytest.raises(InputError, match="already"):
            trial_round(d, gateway_options=FAST)
    v = d.verdict
    assert d.status == "completed" and d.stop_reason == "2 轮全部跑完后裁决"
    assert v.parsed and v.winner == "con" and v.judge == "openai/pro-m"
    assert [(c.round, c.comment) for c in v.per_round] == [(1, "第1轮点评"), (2, "第2轮点评")]
    assert v.reasons == {"判词": "反方的证据更具体"}
    assert judge_req["model"] == "pro-m"
    judge_text = judge_req["messages"][1]["content"]
    assert all(f"{side} 第{r}轮发言" in judge_text for side in ("pro", "con") for r in (1, 2))
    assert rec.events[-1] == ("update", "completed")
    md = render_markdown(d)
    assert "## 裁决" in md and "- **第 2 轮**：第2轮点评" in md and "**裁决：反方胜**" in md


def test_unparseable_trial_verdict_is_asked_again_then_stored_raw():
    with ScriptedServer(Script(judge=lambda n, b: "都挺好")) as srv:
        runner, d = runs.start(cfg(srv, rounds=1), Recorder(), probe=False, gateway_options=FAST)
        d = runner.run(d)
        judge_reqs = [r for r in srv.requests if "庭审式辩论的裁判" in r["messages"][0]["content"]]
    assert len(judge_reqs) == 2 and d.status == "completed"
    assert d.verdict.parsed is False and d.verdict.winner is None and d.verdict.raw == "都挺好"
    assert "没有判定胜方" in render_markdown(d)


def test_draw_is_only_a_draw_when_the_judge_says_so():
    with ScriptedServer(Script(judge=lambda n, b: "```json\n" + verdict_json("draw", 1) + "\n```")) as srv:
        runner, d = runs.start(cfg(srv, rounds=1, judge_model="openai/judge-m"), Recorder(), probe=False,
                                   gateway_options=FAST)
        d = runner.run(d)
        assert srv.requests[-1]["model"] == "judge-m"
    assert d.verdict.winner == "draw" and d.verdict.parsed


def test_rate_limit_then_success_and_no_model_names_in_prompts():
    def speaker(side, r, n, b):
        return Reply(status=429, headers={"Retry-After": "0"}) if (side, r, n) == ("con", 1, 1) else f"{side}{r}"

    with ScriptedServer(Script(speaker=speaker)) as srv:
        runner, d = runs.start(cfg(srv, models=["openai/gpt-secret-pro", "openai/claude-secret-con"]),
                                   Recorder(), probe=False, gateway_options=FAST)
        d = runner.run(d)
        requests = list(srv.requests)
    assert d.status == "completed" and [s.status for s in d.rounds] == ["ok"] * 4
    assert [c.error[:16] for c in d.llm_calls if c.error] == ["rate limited (42"]
    text = "\n".join(str(m.get("content") or "") for r in requests for m in r["messages"]).lower()
    for needle in ("secret", "gpt", "claude", "openai", "model", "模型"):
        assert needle not in text, needle


def test_runner_pauses_with_only_one_and_resumes_through_runner_for():
    with ScriptedServer(Script()) as srv:
        runner, d = runs.start(cfg(srv), Recorder(), probe=False, gateway_options=FAST)
        d = runner.run(d, only_one=True)
        assert d.status == "interrupted" and len(d.rounds) == 2
        d = registry.get(d.protocol).runner_for(d, Recorder(), gateway_options=FAST).run(d)
    assert d.status == "completed" and len(d.rounds) == 4 and d.verdict.winner == "con"


# ------------------------------------------------------------------ research tools


@pytest.fixture()
def workspace(tmp_path):
    root = tmp_path / "repo"
    (root / "api").mkdir(parents=True)
    (root / "api" / "routes.py").write_text("# 42 REST endpoints live here\nROUTES = 42\n", encoding="utf-8")
    (tmp_path / "private.txt").write_text("password=hunter2\n", encoding="utf-8")
    os.symlink(tmp_path / "private.txt", root / "shortcut.txt")
    return root


def test_debaters_research_the_workspace_and_tool_calls_are_archived(workspace):
    def speaker(side, r, n, body):
        assert "tools" in body and [t["function"]["name"] for t in body["tools"]] == ["read", "glob", "grep"]
        msgs = body["messages"]
        if msgs[-1]["role"] != "tool":
            return Reply(tool_calls=[{"name": "grep", "arguments": {"pattern": "REST"}},
                                     {"name": "read", "arguments": {"path": "../private.txt"}},
                                     {"name": "read", "arguments": {"path": "shortcut.txt"}}])
        tool_text = " ".join(m["content"] for m in msgs if m["role"] == "tool")
        return f"{side}：据 api/routes.py:1，{'有 42 个 REST 端点' if '42 REST' in tool_text else '查无'}。"

    rec = Log()
    with ScriptedServer(Script(speaker=speaker)) as srv:
        d = open_trial(cfg(srv, rounds=1, workspace=str(workspace)), rec, probe=False)
        pro, con = trial_round(d, rec, gateway_options=FAST)
        second = srv.requests[1]["messages"]
    assert pro.text == "pro：据 api/routes.py:1，有 42 个 REST 端点。" and pro.status == "ok"
    assert [t.name for t in pro.tool_calls] == ["grep", "read", "read"]
    assert pro.tool_calls[0].result == "api/routes.py:1: # 42 REST endpoints live here"
    # a Chinese trial's tools answer in Chinese (test_lang_judged covers the English ones)
    assert pro.tool_calls[1].error.startswith("错误：") and "不接受 '..'" in pro.tool_calls[1].error
    assert "经由符号链接通向工作区之外" in pro.tool_calls[2].error
    assert all("hunter2" not in (t.result + t.error) for t in pro.tool_calls)
    assert second[-3]["role"] == "tool" and second[-3]["tool_call_id"] == "call_0"
    assert second[-4]["role"] == "assistant" and second[-4]["tool_calls"][0]["function"]["name"] == "grep"
    assert len(con.tool_calls) == 3
    md = render_markdown(d)
    assert "> 调研：grep(pattern=REST)；read(path=../private.txt) ✗" in md
    assert not d.warnings


def test_the_tool_loop_is_bounded(workspace):
    def speaker(side, r, n, body):
        if any(m["role"] == "user" and "工具调用次数已用完" in (m["content"] or "") for m in body["messages"]) and n > 9:
            return "终于发言。"
        return Reply(tool_calls=[{"name": "glob", "arguments": {"pattern": "**/*.py"}}])

    script = Script(speaker=speaker)
    with ScriptedServer(script) as srv:
        d = open_trial(cfg(srv, rounds=1, workspace=str(workspace)), probe=False)
        pro, con = trial_round(d, gateway_options=FAST)
    executed = [t for t in pro.tool_calls if not t.error]
    refused = [t for t in pro.tool_calls if t.error]
    assert len(executed) == MAX_TOOL_CALLS and all(t.result == "api/routes.py" for t in executed)
    assert refused and all("6 次工具调用额度已用完" in t.error for t in refused)
    # bounded: at most MAX_TOOL_CALLS + 3 model calls per speech
    assert script.counts[("pro", 1)] <= MAX_TOOL_CALLS + 3
    assert pro.status == "empty" and pro.warnings[0] == "发言者一直在调用工具，始终没有写出发言"


def test_a_model_without_tool_support_degrades_to_none_logged_once(workspace):
    def speaker(side, r, n, body):
        if "tools" in body:
            return Reply(status=400, error="this model does not support tools")
        return f"{side} 无工具发言 {r}"

    with ScriptedServer(Script(speaker=speaker)) as srv:
        runner, d = runs.start(cfg(srv, models=["openai/plain"], workspace=str(workspace)), Recorder(),
                                   probe=False, gateway_options=FAST)
        d = runner.run(d)
        requests = list(srv.requests)
    assert d.status == "completed" and [s.status for s in d.rounds] == ["ok"] * 4
    assert all(not s.tool_calls for s in d.rounds)
    warnings = [w for w in d.warnings if w.startswith("调研工具已关闭")]
    assert len(warnings) == 1 and "openai/plain" in warnings[0] and "服务器拒绝了工具定义（请求被模型服务拒绝（HTTP 400））" in warnings[0]
    assert sum("tools" in r for r in requests) == 1  # asked once, never again
    later = [r for r in requests if "tools" not in r and "担任" in r["messages"][0]["content"]]
    assert all("没有调研工具" in r["messages"][0]["content"] for r in later)


def test_without_a_workspace_no_tools_are_offered():
    with ScriptedServer(Script()) as srv:
        d = open_trial(cfg(srv, rounds=1), probe=False)
        trial_round(d, gateway_options=FAST)
        assert all("tools" not in r for r in srv.requests)


# -------------------------------------------------------------------------- CLI


def test_cli_trial_json(capsys, monkeypatch, workspace):
    from debate_core.cli.main import main

    monkeypatch.setenv("DEBATE_BACKOFF", "0.01")
    monkeypatch.delenv("DEBATE_ARCHIVE", raising=False)
    with ScriptedServer(Script()) as srv:
        code = main(["debate", "我们应该把 REST API 换成 gRPC", "--protocol", "trial", "--models",
                     "openai/pro-m,openai/con-m", "--rounds", "2", "--api-base", srv.url, "--workspace",
                     str(workspace), "--format", "json", "--quiet"])
        data = json.loads(capsys.readouterr().out)
        assert code == 0
        assert data["protocol"] == "trial" and data["status"] == "completed"
        assert data["verdict"]["winner"] == "con" and len(data["verdict"]["per_round"]) == 2
        assert [s["speaker"] for s in data["rounds"]] == ["pro", "con", "pro", "con"]
        code = main(["debate", "我们应该把 REST API 换成 gRPC", "--protocol", "trial", "--model", "openai/both",
                     "--rounds", "1", "--api-base", srv.url, "--quiet"])
        md = capsys.readouterr().out
    assert code == 0 and md.startswith("# 庭审辩论") and "### 正方" in md and "### 反方" in md


def test_a_trials_stop_reasons_warnings_and_progress_are_chinese():
    from debate_core.render.judged import progress_line

    with ScriptedServer(Script()) as srv:
        runner, d = runs.start(cfg(srv, models=["openai/pro-m", "openai/con-m", "openai/extra"]), Recorder(),
                                   probe=False, gateway_options=FAST)
        d = runner.run(d, only_one=True)
        assert d.status == "interrupted" and d.stop_reason == "已跑完第 1 轮；续跑即可完成辩论"
        d = registry.get(d.protocol).runner_for(d, Recorder(), gateway_options=FAST).run(d)
    assert d.status == "completed" and d.stop_reason == "2 轮全部跑完后裁决"
    assert d.warnings == ["多出 1 个模型未使用：庭审只有正反两方"]
    assert [progress_line(s) for s in d.rounds] == ["  第 1 轮｜正方 发言 完成", "  第 1 轮｜反方 发言 完成",
                                                     "  第 2 轮｜正方 发言 完成", "  第 2 轮｜反方 发言 完成"]
    assert "状态：已完成（2 轮全部跑完后裁决）" in render_markdown(d)
