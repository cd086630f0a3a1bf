"""Faults over real HTTP (the scripted server on 127.0.0.1), plain and streaming.

Each fault either recovers (bounded retries; a 429's Retry-After really waited) or
stops the debate cleanly in a failed state that ``retry`` continues, with nothing
already saved lost.  The debate-level matrix is bench/faults.py's, run here case by
case; the CLI and the app show the one-line cause.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import time
from email.utils import formatdate
from pathlib import Path

import pytest

from debate_core.engines.gateway import EMPTY_CAUSE, Gateway, GatewayError, _retry_after
from debate_core.engines.scripted_server import Reply, ScriptedServer, sequence
from debate_core import runs
from tests.conftest import DEFAULT_PACK, REPO, run_cli
from tests.master_script import master_script

TOPIC = "禅宗顿悟和净土念佛，到底谁更直接？"
GOOD = "这是一段完好的回答，" * 6
MSGS = [{"role": "user", "content": "hi"}]


def _bench():
    name = "bench_faults"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "bench" / "faults.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


class Clock:
    """Records when the server received each request."""

    def __init__(self, server: ScriptedServer):
        self.times: list[float] = []
        original = server._record

        def record(body):
            self.times.append(time.monotonic())
            original(body)
        server._record = record

    def gaps(self) -> list[float]:
        return [b - a for a, b in zip(self.times, self.times[1:])]


def quiet(server: ScriptedServer) -> ScriptedServer:
    server._httpd.handle_error = lambda *a, **k: None  # a timed-out client breaks the pipe: expected
    return server


def gateway(srv, **kw) -> Gateway:
    slept: list[float] = []
    kw.setdefault("max_retries", 2)
    kw.setdefault("timeout", 5.0)
    gw = Gateway(model="openai/scripted", api_base=srv.url, backoff=0.01,
                 sleep=lambda s: (slept.append(s), time.sleep(s)), **kw)
    gw.slept = slept  # type: ignore[attr-defined]
    return gw


def call(gw: Gateway, stream: bool, tokens: list | None = None):
    return gw.complete(MSGS, on_token=(tokens.append if tokens is not None else (lambda t: None)) if stream else None)


@pytest.fixture(autouse=True)
def _fast_backoff(monkeypatch):
    monkeypatch.setenv("DEBATE_BACKOFF", "0.01")


@pytest.fixture(scope="module")
def _server():
    with quiet(ScriptedServer()) as server:
        yield server


@pytest.fixture
def srv(_server):
    """One server for the module (stopping one costs half a second); each test sets its script."""
    _server.requests.clear()
    yield _server
    _server.__dict__.pop("_record", None)
    _server.script = lambda body: Reply(text="ok")


# ------------------------------------------------------------- gateway level

FAULTS = {
    "500": (Reply(status=500, error="upstream exploded"), "server error (500): upstream exploded"),
    "reset": (Reply(reset=True), "connection failed"),
    "cut": (Reply(text=GOOD * 4, chunk_chars=8, cut_after=3), "the stream was cut in the middle"),
    "empty": (Reply(text=""), EMPTY_CAUSE),
    "blank": (Reply(text="  \n "), EMPTY_CAUSE),
    "slow": (Reply(text=GOOD, delay=0.9), "timed out waiting for the model"),
    "429": (Reply(status=429, headers={"Retry-After": "0"}, error="slow down"), "rate limited (429)"),
}
CASES = [(name, stream) for name in FAULTS for stream in (False, True) if not (name == "cut" and not stream)]


@pytest.mark.parametrize("name,stream", CASES, ids=[f"{n}-{'stream' if s else 'plain'}" for n, s in CASES])
def test_a_transient_fault_is_retried_and_recovers(name, stream, srv):
    fault, _ = FAULTS[name]
    srv.script = sequence(fault, GOOD)
    gw = gateway(srv, timeout=0.4 if name == "slow" else 5.0)
    tokens: list[str] = []
    gen = call(gw, stream, tokens)
    assert gen.text == GOOD and gen.retries == 1
    assert len(srv.requests) == 2
    assert len(gw.slept) == 1 and gw.slept[0] < 0.1  # backoff, not a fixed long sleep
    if stream:
        assert "".join(tokens).endswith(GOOD)


@pytest.mark.parametrize("name,stream", CASES, ids=[f"{n}-{'stream' if s else 'plain'}" for n, s in CASES])
def test_a_persistent_fault_stops_after_bounded_retries_with_a_one_line_cause(name, stream, srv):
    fault, cause = FAULTS[name]
    calls = []
    srv.script = lambda body: fault
    gw = gateway(srv, max_retries=2, timeout=0.4 if name == "slow" else 5.0)
    gw.on_call = calls.append
    with pytest.raises(GatewayError) as info:
        call(gw, stream)
    exc = info.value
    assert cause in exc.cause and exc.cause.endswith("after 3 attempts"), exc.cause
    assert "\n" not in exc.cause and len(exc.cause) < 260
    assert exc.retryable
    assert len(srv.requests) == 3  # bounded: 1 + max_retries
    assert [bool(c.error) for c in calls] == [True] * 3  # every failed attempt is reported


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_retry_after_is_really_waited(stream, srv):
    srv.script = sequence("warm-up", Reply(status=429, headers={"Retry-After": "1"}, error="slow down"), GOOD)
    gw = gateway(srv)
    call(gw, stream)  # warm litellm up so the gap below is the wait, not first-call set-up
    clock = Clock(srv)
    gen = call(gw, stream)
    assert gen.text == GOOD and gen.retries == 1
    assert gw.slept == [1.0]  # the header, not the 0.01 s backoff
    assert clock.gaps()[0] >= 0.95, clock.gaps()


def test_retry_after_forms_and_cap():
    class Exc(Exception):
        def __init__(self, headers):
            super().__init__("x")
            self.litellm_response_headers = headers

    assert _retry_after(Exc({"retry-after": "2"})) == 2.0
    assert _retry_after(Exc({"retry-after-ms": "1500"})) == 1.5
    http_date = _retry_after(Exc({"retry-after": formatdate(time.time() + 3, usegmt=True)}))
    assert http_date is not None and 1.0 <= http_date <= 3.5
    assert _retry_after(Exc({"retry-after": "soon"})) is None
    assert _retry_after(Exc({})) is None
    gw = Gateway(model="openai/x", max_backoff=5.0)
    assert gw._delay(0, Exc({"retry-after": "3600"})) == 5.0  # a server cannot park a debate for an hour


def test_a_cut_stream_tells_the_live_view_it_starts_over(srv):
    srv.script = sequence(Reply(text="半截" * 40, chunk_chars=8, cut_after=3), GOOD)
    tokens: list[str] = []
    gen = call(gateway(srv), True, tokens)
    live = "".join(tokens)
    assert gen.text == GOOD  # the record holds the complete reply only
    assert "[retry: the stream was cut in the middle of the response]" in live
    assert live.split("[retry:")[0].startswith("半截") and live.endswith(GOOD)


def test_async_path_retries_an_empty_completion(srv):
    from debate_core.protocols.topic import run_coro

    srv.script = sequence("", GOOD)
    gen = run_coro(gateway(srv).acomplete(MSGS))
    assert gen.text == GOOD and gen.retries == 1 and len(srv.requests) == 2


def test_a_tool_call_without_text_is_not_empty(srv):
    srv.script = lambda b: Reply(tool_calls=[{"name": "read", "arguments": {"path": "a.md"}}])
    gen = gateway(srv).complete(MSGS, tools=[{"type": "function", "function": {
        "name": "read", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}])
    assert gen.tool_calls and gen.tool_calls[0]["name"] == "read" and len(srv.requests) == 1


# -------------------------------------------------------- debate level (bench)


BENCH_KEYS = [c.key for c in _bench().CASES]


@pytest.mark.parametrize("key", BENCH_KEYS)
def test_fault_matrix_case(key, default_pack, tmp_path):
    bench = _bench()
    case = bench.CASES_BY_KEY[key]
    row = bench.run_case(case, default_pack, tmp_path)
    assert row.lost == [], row.lost
    assert row.final_status == "completed"
    if case.times is None and key != "long":
        assert row.first_status == "failed"
        assert row.first_reason.startswith(f"第 {bench.FAULT_ROUND} 轮失败：") and "\n" not in row.first_reason
        assert row.rounds_kept == bench.FAULT_ROUND - 1
        assert row.failed_calls == bench.MAX_RETRIES + 1
        assert row.continued.startswith("retry: ") and row.continued.endswith("completed")
    else:
        assert row.first_status == "completed" and row.rounds_kept == row.planned
        assert row.failed_calls == (0 if key == "long" else 1)
    if key.startswith("429"):
        assert row.wait_s is not None and row.wait_s >= bench.RETRY_AFTER - 0.05, row.waits
    if key == "long":
        assert "length" in row.flagged  # kept, flagged, never passed off as fine
        from debate_core.archive import open_archive

        stored = open_archive(row.archive).get_debate(row.debate_id)
        speech = [s for s in stored.rounds if s.round == bench.FAULT_ROUND][0]
        assert speech.status == "flagged" and speech.retries == 2 and len(speech.text) == len(bench.LONG.strip())


def test_failed_round_records_the_cause_on_the_round_and_in_the_archive(default_pack, tmp_path):
    from debate_core.archive import open_archive

    bench = _bench()
    row = bench.run_case(bench.CASES_BY_KEY["500-hard"], default_pack, tmp_path)
    arc = open_archive(row.archive)
    calls = arc.query("SELECT round, error FROM llm_calls WHERE debate_id = ? AND error <> '' ORDER BY seq",
                      [row.debate_id])
    assert list(calls["round"]) == [2, 2, 2]
    assert all(e.startswith("server error (500): upstream exploded") for e in calls["error"])


# -------------------------------------------------------------- trial faults


def _trial_script(long_pro: bool = False, fail_con_round: int | None = None, healed: dict | None = None):
    import json as _json

    def script(body):
        system = body["messages"][0]["content"]
        if "庭审式辩论的裁判" in system:
            return _json.dumps({"per_round": [{"round": 1, "comment": "ok"}], "winner": "draw",
                                "summary": "s", "reasons": "r"}, ensure_ascii=False)
        side = "pro" if "担任正方" in system else "con"
        r = next(int(m.group(1)) for x in reversed(body["messages"]) if x["role"] == "user"
                 and (m := re.search(r"现在是第 (\d+) 轮", str(x["content"]))))
        if side == "con" and r == fail_con_round and not (healed or {}).get("yes"):
            return Reply(status=500, error="con is down")
        if side == "pro" and long_pro:
            return "正方" * 20_000
        return f"{side} 第{r}轮发言"
    return script


def test_trial_over_length_reply_is_cut_and_flagged(tmp_path):
    from debate_core.archive import open_archive
    from debate_core.models import DebateConfig

    arc = open_archive(tmp_path / "a.duckdb")
    with ScriptedServer(_trial_script(long_pro=True)) as srv:
        cfg = DebateConfig(protocol="trial", topic="远程办公好", model="openai/t", api_base=srv.url, rounds=1,
                           max_speech_length=500)
        runner, d = runs.start(cfg, arc, probe=False, gateway_options={"backoff": 0.01})
        d = runner.run(d)
    pro = arc.get_debate(d.id).rounds[0]
    assert pro.truncated and len(pro.text) == 500 and "超过 500 字符，已截断" in pro.warnings


def test_trial_failed_round_is_continued_by_the_archive_retry(tmp_path):
    """A trial that failed at round 2 (con's call) is continued by ``runs.retry``."""
    from debate_core.archive import open_archive
    from debate_core.models import DebateConfig

    arc = open_archive(tmp_path / "a.duckdb")
    healed = {"yes": False}
    with quiet(ScriptedServer(_trial_script(fail_con_round=2, healed=healed))) as srv:
        cfg = DebateConfig(protocol="trial", topic="远程办公好", model="openai/t", api_base=srv.url, rounds=2,
                           max_retries=1)
        runner, d = runs.start(cfg, arc, probe=False, gateway_options={"backoff": 0.01})
        d = runner.run(d)
        assert d.status == "failed" and d.stop_reason.startswith("第 2 轮反方发言失败：") and "\n" not in d.stop_reason
        kept = [(s.round, s.speaker, s.text) for s in arc.get_debate(d.id).rounds if s.status != "failed"]
        assert kept == [(1, "pro", "pro 第1轮发言"), (1, "con", "con 第1轮发言"), (2, "pro", "pro 第2轮发言")]
        healed["yes"] = True
        d2 = runs.retry(arc, d.id)
        assert d2.status in ("completed", "interrupted"), d2.stop_reason
    stored = arc.get_debate(d.id)
    assert [(s.round, s.speaker, s.text) for s in stored.rounds][:3] == kept


# ----------------------------------------------------------------- CLI + app


def test_cli_shows_a_one_line_cause_and_retry_continues_without_loss(default_pack, tmp_path):
    from debate_core.archive import open_archive

    good = master_script(default_pack)
    state = {"down": True}

    def script(body):
        msgs = body["messages"]
        if state["down"] and "你扮演" in msgs[0]["content"] and "这是第 2 轮" in msgs[1]["content"]:
            return Reply(status=500, error="upstream exploded")
        return good(body)

    path = tmp_path / "cli.duckdb"
    with ScriptedServer(script) as srv:
        r = run_cli("debate", TOPIC, "--masters", "huineng,yinguang", "--model", "openai/scripted",
                    "--api-base", srv.url, "--archive", str(path), "--quiet", env={"DEBATE_BACKOFF": "0.01"})
        assert r.returncode == 1, r.stderr
        errors = [x for x in r.stderr.splitlines() if x.startswith("错误")]  # a Chinese debate's failure line
        assert len(errors) == 1 and "Traceback" not in r.stderr and "LiteLLM" not in r.stderr, r.stderr
        m = re.fullmatch(r"错误：第 2 轮失败：模型服务出错（HTTP 500）（共尝试 4 次）（辩论 ([0-9a-f]{12})）", errors[0])
        assert m, errors[0]
        debate_id = m.group(1)
        arc = open_archive(path)
        before = arc.query("SELECT * FROM speeches WHERE debate_id = ? AND round = 1", [debate_id])
        assert arc.get_debate(debate_id).status == "failed"
        # the provider's own message is kept with the recorded call, not in the Chinese stop reason
        assert any("upstream exploded" in c.error for c in arc.get_debate(debate_id).llm_calls)

        state["down"] = False
        r = run_cli("retry", debate_id, "--archive", str(path), "--quiet", env={"DEBATE_BACKOFF": "0.01"})
        assert r.returncode == 0, r.stderr
        assert r.stderr.strip().splitlines()[-1] == f"debate {debate_id}: interrupted (已重跑第 2 轮；续跑即可完成)"
        d = runs.resume(arc, debate_id)
    assert d.status == "completed" and [s.round for s in d.rounds] == [1, 2, 3, 4]
    after = arc.query("SELECT * FROM speeches WHERE debate_id = ? AND round = 1", [debate_id])
    assert before.equals(after)  # round 1 untouched, byte for byte


def test_live_page_shows_the_one_line_cause_and_offers_retry(default_pack, tmp_path, monkeypatch):
    AppTest = pytest.importorskip("streamlit.testing.v1").AppTest
    if not (REPO / "pages" / "2_Live.py").is_file():
        pytest.skip("the Live page does not exist in this checkout")
    bench = _bench()
    case = bench.Case("reset-left", "connection reset", bench.CASES_BY_KEY["reset-hard"].fault, None)
    plan_row = _left_failed(bench, case, default_pack, tmp_path)
    monkeypatch.setenv("DEBATE_ARCHIVE", plan_row["archive"])
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.switch_page("pages/2_Live.py")
    at.query_params["id"] = plan_row["id"]
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value for e in at.error]
    # the app's words in the reader's language (English here), the cause too: the stored Chinese read back into
    # its code (debate_core.engines.gateway.read_cause) and said through the catalog
    cause = [e for e in errors if "round 2 failed: could not connect to the model service" in e]
    assert cause, errors
    assert "This round failed: could not connect to the model service" in "\n".join(errors)
    assert "Traceback" not in "".join(errors)
    assert at.button(key="retry").label.startswith("🔁 Retry round 2")


def _left_failed(bench, case, pack, tmp_path) -> dict:
    """A debate failed at round 2 by a real reset, left failed in its archive."""
    from debate_core.archive import open_archive
    from debate_core.engines.gateway import Gateway
    from debate_core.engines.llm import LLMEngine
    from debate_core.models import DebateConfig
    from debate_core.protocols.master import MasterDebate

    plan = bench.FaultPlan(pack, case)
    path = tmp_path / "left.duckdb"
    with quiet(ScriptedServer(plan)) as srv:
        arc = open_archive(path)
        cfg = DebateConfig(topic=TOPIC, masters=bench.MASTERS, model="openai/s", api_base=srv.url, max_retries=1,
                           pack=str(DEFAULT_PACK))
        md = MasterDebate(pack, LLMEngine(Gateway(model="openai/s", api_base=srv.url, max_retries=1, backoff=0.01)),
                          recorder=arc)
        d = md.run(md.prepare(cfg), on_token=lambda t: None)
    assert d.status == "failed"
    return {"archive": str(path), "id": d.id}


@pytest.mark.parametrize("model", ["openai/gpt-4o-mini", "openai/scripted"])
def test_each_reply_is_priced_once(model, srv, monkeypatch):
    # litellm prices the replies it returns; the gateway uses that figure instead of pricing each reply a
    # second time, and a model without a price in the cost map is looked up once, not on every reply
    from debate_core.engines import gateway as g

    lm = g.litellm()
    lookups: list[str] = []
    real = lm.completion_cost

    def counted(*a, **kw):
        lookups.append(model)
        return real(*a, **kw)

    monkeypatch.setattr(lm, "completion_cost", counted)
    monkeypatch.setattr(g, "_UNPRICED", set())
    srv.script = lambda body: Reply(text="ok")
    gw = Gateway(model=model, api_base=srv.url, backoff=0.01, max_retries=0, timeout=5.0)
    gens = [gw.complete(MSGS) for _ in range(4)]
    if model == "openai/gpt-4o-mini":  # priced by litellm on the way back: no lookup of ours at all
        assert all(x.cost > 0 for x in gens) and lookups == []
    else:  # no price anywhere: 0, after at most one lookup of ours
        assert all(x.cost == 0 for x in gens) and len(lookups) <= 1
