"""The batch runner: spec parsing, the grid, scripted models over real HTTP on 127.0.0.1,
errors in some debates, a resumed spec, the router (rpm and fallbacks), the CLI."""

from __future__ import annotations

import json
import re
import threading

import pytest

from debate_core.archive import open_archive
from debate_core.batch import (BatchRunner, SpecError, batch_debates, build_router, config_for, expand, load_spec,
                               run_batch, simulated_model, split_tag)
from debate_core.engines.gateway import Gateway
from debate_core.batch.runner import _cores
from debate_core.analysis.ratings import ratings_from_archive
from debate_core.engines.scripted_server import Reply, ScriptedServer
from tests.conftest import run_cli
from tests.master_script import master_script

CHAN = "禅宗顿悟和净土念佛，到底谁更直接？"
KONG = "三论宗讲一切皆空，唯识宗讲万法唯识，二者怎么辩？"
FAST = {"backoff": 0.01, "max_backoff": 0.05}


@pytest.fixture
def archive(tmp_path):
    return open_archive(tmp_path / "archive.duckdb")


# ---------------------------------------------------------------- spec and grid


def test_spec_grid_keys_and_batch_id_from_the_file_name(tmp_path):
    spec_file = tmp_path / "chan-pure.yaml"
    spec_file.write_text(
        "topics:\n  - " + CHAN + "\n  - " + KONG + "\n"
        "pairs:\n  - huineng vs yinguang\n  - auto\nswap: true\nrepeats: 2\nconcurrency: 3\n", encoding="utf-8")
    spec = load_spec(spec_file)
    assert spec.batch_id == "chan-pure" and spec.protocol == "master" and spec.concurrency == 3
    cells = expand(spec)
    # CHAN: the named pair and "auto" are the same pair; KONG: the named pair and kumarajiva/xuanzang
    assert len(cells) == (1 + 2) * 2 * 2
    assert len({c.key for c in cells}) == len(cells)
    assert {c.masters for c in cells if c.topic == KONG} == {("huineng", "yinguang"), ("yinguang", "huineng"),
                                                               ("kumarajiva", "xuanzang"), ("xuanzang", "kumarajiva")}
    # the same spec as JSON gives the same keys; concurrency is not part of a key
    json_file = tmp_path / "chan-pure.json"
    data = {"topics": [CHAN, KONG], "pairs": ["huineng,yinguang", "auto"], "swap": True, "repeats": 2,
            "concurrency": 8}
    json_file.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    assert [c.key for c in expand(load_spec(json_file))] == [c.key for c in cells]
    cfg = config_for(spec, cells[0])
    assert split_tag(cfg.batch_id) == ("chan-pure", cells[0].key) and cfg.masters == list(cells[0].masters)


def test_topic_grid_tournament_swap_and_stances():
    spec = load_spec({"protocol": "topic", "topics": ["远程办公还是坐班？", {"topic": "猫还是狗？", "stances": ["猫", "狗"]}],
                      "stances": ["远程好", "坐班好"], "models": ["a", "b", "c"], "tournament": True, "swap": True,
                      "judge_models": ["j1", "j2"]})
    cells = expand(spec)
    assert len(cells) == 2 * 3 * 2  # topics × model pairs × both orders
    assert {c.models for c in cells} == {("a", "b"), ("b", "a"), ("a", "c"), ("c", "a"), ("b", "c"), ("c", "b")}
    assert {c.stances for c in cells} == {("远程好", "坐班好"), ("猫", "狗")}
    assert {c.judge_model for c in cells} == {"j1"}


def test_processes_from_the_spec_or_the_runner():
    base = {"topics": ["x"], "models": ["m"], "api_base": "http://127.0.0.1:9/v1", "concurrency": 16}
    assert load_spec({**base, "processes": "auto"}).processes is None
    spec = load_spec({**base, "processes": 3})
    assert spec.processes == 3
    assert spec.batch_id == load_spec(base).batch_id  # how a batch runs, not what: the same batch and cells
    cells = expand(spec)
    assert BatchRunner(spec).processes_for(cells) == 3
    assert BatchRunner(spec, processes=1).processes_for(cells) == 1  # the argument overrides the spec
    assert BatchRunner(spec, processes="auto").processes_for(cells) == min(2, _cores())
    assert BatchRunner(load_spec({**base, "concurrency": 4})).processes_for(cells) == 1  # auto: narrow stays here
    with pytest.raises(SpecError, match=r"processes 2: .*with commit: speech a batch runs in one process"):
        BatchRunner(spec, processes=2, commit="speech")
    with pytest.raises(SpecError, match=r"processes 'many': a number of worker processes"):
        BatchRunner(spec, processes="many")


@pytest.mark.parametrize("data, message", [
    ({"topics": ["x"], "modles": ["a"]}, "modles: unknown key"),
    ({"topics": []}, "topics"),
    ({"protocol": "topic", "topics": ["x"], "pairs": ["a,b"], "models": ["m"]}, "'pairs' is for master debates"),
    ({"topics": ["x"], "pairs": ["huineng,nobody"]}, "pairs"),
    ({"protocol": "topic", "topics": ["x"], "models": ["m"], "tournament": True}, "at least two models"),
    ({"topics": ["x"], "batch_id": "bad id!"}, "batch_id"),
    ({"topics": ["x"], "processes": 0}, "processes: Input should be greater than or equal to 1"),
    ({"topics": ["x"], "processes": "two"}, "processes: 'two': a number of worker processes"),
    ({"topics": ["x"], "models": ["m"], "processes": 2, "commit": "speech"},
     "processes 2: worker processes write through group commits (commit: auto); with commit: speech"),
    ({"topics": ["x"], "models": ["deb"], "processes": 2,
      "deployments": [{"model_name": "deb", "litellm_params": {"model": "openai/m", "rpm": 10}}]},
     "processes 2: each process would count the deployments' rpm / tpm on its own; name a Redis in 'router'"),
])
def test_bad_specs_say_which_key(data, message):
    with pytest.raises(SpecError, match=re.escape(message)):
        expand(load_spec(data))


# ------------------------------------------------------- master debates over HTTP


def _master_server(default_pack, broken: set[str], state: dict):
    """master_script plus a fault: speeches of round 2 in debates on a broken topic get a 500."""
    inner = master_script(default_pack)

    def script(body):
        user = body["messages"][-1]["content"]
        if state["broken"] and "这是第 2 轮" in user and any(t in user for t in broken):
            return Reply(status=500, error="scripted outage")
        return inner(body)
    return script


def test_master_batch_errors_do_not_stop_it_and_a_rerun_resumes(default_pack, scripted, archive):
    broken_topic = "念佛往生要不要先明心见性？"
    state = {"broken": True}
    scripted.script = _master_server(default_pack, {broken_topic}, state)
    spec = {"batch_id": "m-http", "topics": [CHAN, broken_topic, KONG], "models": ["openai/scripted-master"],
            "api_base": scripted.url, "rounds": 2, "max_retries": 1, "gateway": FAST, "concurrency": 3}
    seen = []
    first = run_batch(spec, archive, on_result=seen.append)
    by_topic = {r.cell.topic: r for r in first.results}
    assert by_topic[broken_topic].status == "failed" and "第 2 轮失败" in by_topic[broken_topic].reason
    assert by_topic[CHAN].status == by_topic[KONG].status == "completed"
    assert len(seen) == 3 and not first.ok
    df = batch_debates(archive, "m-http")
    assert len(df) == 3 and set(df["batch_id"]) == {"m-http"}
    assert set(df["cell"]) == {c.key for c in expand(load_spec(spec))}
    failed_id = by_topic[broken_topic].debate_id
    assert archive.get_debate(failed_id).status == "failed"

    # the outage ends; the same spec skips what is finished and continues the failed debate
    state["broken"] = False
    n_before = len(scripted.requests)
    second = run_batch(spec, archive)
    by_topic2 = {r.cell.topic: r for r in second.results}
    assert by_topic2[CHAN].status == by_topic2[KONG].status == "skipped"
    assert by_topic2[broken_topic].status == "completed" and by_topic2[broken_topic].resumed
    assert by_topic2[broken_topic].debate_id == failed_id and second.ok
    resumed = archive.get_debate(failed_id)
    assert resumed.status == "completed" and [s.round for s in resumed.rounds] == [1, 2]
    # only round 2 (speech, summary) and the observation were asked for again
    assert len(scripted.requests) - n_before == 3
    assert len(batch_debates(archive, "m-http")) == 3

    # a third run does nothing at all
    n_before = len(scripted.requests)
    third = run_batch(spec, archive)
    assert {r.status for r in third.results} == {"skipped"} and len(scripted.requests) == n_before


def test_offline_batch_stop_then_resume(archive):
    spec = {"batch_id": "stop-go", "topics": [CHAN, KONG], "swap": True, "concurrency": 1}
    stop = threading.Event()
    first = BatchRunner(spec, archive, stop=stop, on_result=lambda r: stop.set()).run()
    statuses = [r.status for r in first.results]
    # the first cell finished; the one already queued beside it finished or stopped at a round
    # boundary; the others never started
    assert statuses[0] == "completed" and statuses[1] in ("completed", "stopped")
    assert statuses[2:] == ["cancelled", "cancelled"]
    second = run_batch(spec, archive)
    done = statuses.count("completed")
    assert [r.status for r in second.results] == ["skipped"] * done + ["completed"] * (4 - done)
    assert [r.resumed for r in second.results][1] == (statuses[1] == "stopped")
    df = batch_debates(archive, "stop-go")
    assert len(df) == 4 and set(df["status"]) == {"completed"}


# ------------------------------------------------------- judged debates over HTTP


def test_topic_tournament_errors_and_ratings(archive, capsys):
    strengths = {"m1": 3.0, "m2": 2.0, "m3": 1.0}

    def faults(body):  # the stance split of one topic finds no stances: that cell errors, the rest run
        if "中立编排者" in body["messages"][0]["content"] and "不可辩" in body["messages"][1]["content"]:
            return json.dumps({"stances": [], "reason": "not debatable"})
        return None

    with ScriptedServer(simulated_model(strengths, faults=faults)) as srv:
        spec = {"batch_id": "tour", "protocol": "topic", "topics": ["远程办公还是坐班？", "猫还是狗？", "这个不可辩"],
                "models": ["openai/m1", "openai/m2", "openai/m3"], "tournament": True, "swap": True,
                "judge_models": ["openai/judge"], "api_base": srv.url, "concurrency": 6, "gateway": FAST}
        result = run_batch(spec, archive)
    s = result.summary()
    assert s["cells"] == 18 and s["completed"] == 12 and s["errors"] == 6
    assert all("not a debatable topic" in r.reason for r in result.results if r.status == "error")
    df = batch_debates(archive, "tour")
    assert len(df) == 12 and set(df["status"]) == {"completed"}
    d = archive.get_debate(df["id"].iloc[0])
    assert d.batch_id == "tour" and d.verdict is not None and d.verdict.judge == "openai/judge"
    table = ratings_from_archive(archive, "model", batch_id="tour", bootstrap=50)
    assert list(table["item"]) == ["openai/m1", "openai/m2", "openai/m3"]
    assert list(table["wins"]) == [8, 4, 0]
    from debate_core.cli.main import main

    assert main(["ratings", "--archive", str(archive.path), "--batch", "tour", "--by", "stance", "--format", "json",
                 "--bootstrap", "20"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {r["item"] for r in data["ratings"]} == {"正方立场", "反方立场"}
    assert sum(r["games"] for r in data["ratings"]) == 2 * 12


def test_trial_batch_swaps_sides(archive):
    with ScriptedServer(simulated_model({"a": 2.0, "b": 1.0})) as srv:
        spec = {"batch_id": "trials", "protocol": "trial", "topics": ["应该禁止燃油车"], "models": [["openai/a", "openai/b"]],
                "swap": True, "rounds": 1, "api_base": srv.url, "gateway": FAST}
        result = run_batch(spec, archive)
    assert [r.status for r in result.results] == ["completed", "completed"]
    sides = []
    for r in result.results:
        d = archive.get_debate(r.debate_id)
        sides.append((d.participant("pro").model, d.participant("con").model, d.verdict.winner))
    assert sides == [("openai/a", "openai/b", "pro"), ("openai/b", "openai/a", "con")]


# ------------------------------------------------------------------- the router


def test_router_rpm_overflow_and_fallback_deployments(archive):
    with ScriptedServer(lambda b: "one") as s1, ScriptedServer(lambda b: "two") as s2:
        spec = load_spec({"topics": ["x"], "models": ["deb"], "deployments": [
            {"model_name": "deb", "litellm_params": {"model": "openai/m", "api_base": s1.url, "rpm": 2}},
            {"model_name": "deb-overflow", "litellm_params": {"model": "openai/m", "api_base": s2.url}}],
            "fallbacks": [{"deb": ["deb-overflow"]}]})
        assert spec.max_retries == 8  # rpm limits: calls wait out the window instead of failing
        gw = Gateway(model="deb", router=build_router(spec), max_retries=0)
        texts = [gw.complete([{"role": "user", "content": "hi"}]).text for _ in range(6)]
    assert 1 <= len(s1.requests) <= 2 and len(s2.requests) == 6 - len(s1.requests)
    assert texts.count("one") == len(s1.requests)

    sim = simulated_model({"m1": 2.0, "m2": 1.0})
    with ScriptedServer(lambda b: Reply(status=503, error="overloaded")) as down, ScriptedServer(sim) as up:
        spec = {"batch_id": "routed", "protocol": "topic", "topics": ["远程办公还是坐班？"], "stances": ["A好", "B好"],
                "models": [["deb-a", "deb-b"]], "judge_models": ["judge"], "gateway": FAST, "deployments": [
                    {"model_name": "deb-a", "litellm_params": {"model": "openai/m1", "api_base": down.url}},
                    {"model_name": "deb-a-backup", "litellm_params": {"model": "openai/m1", "api_base": up.url}},
                    {"model_name": "deb-b", "litellm_params": {"model": "openai/m2", "api_base": up.url, "tpm": 10**6}},
                    {"model_name": "judge", "litellm_params": {"model": "openai/j", "api_base": up.url}}],
                "fallbacks": [{"deb-a": ["deb-a-backup"]}]}
        result = run_batch(spec, archive)
    assert result.ok and len(down.requests) >= 1
    assert {r["model"] for r in up.requests} == {"m1", "m2", "j"}
    d = archive.get_debate(result.debate_ids[0])
    assert [p.model for p in d.participants] == ["deb-a", "deb-b"] and d.verdict.winner == "辩手甲"


# ------------------------------------------------------------------------ the CLI


def test_cli_batch_runs_skips_and_refuses_bad_specs(tmp_path):
    spec = tmp_path / "small.yaml"
    spec.write_text(f"topics: [{CHAN}]\nswap: true\nconcurrency: 2\n", encoding="utf-8")
    db = str(tmp_path / "a.duckdb")
    out = run_cli("batch", str(spec), "--archive", db)
    assert out.returncode == 0, out.stderr
    assert "completed 2" in out.stdout and "ETA" in out.stderr
    again = run_cli("batch", str(spec), "--archive", db, "--quiet", "--format", "json")
    data = json.loads(again.stdout)
    assert again.returncode == 0 and data["summary"]["skipped"] == 2 and again.stderr == ""
    plan = run_cli("batch", str(spec), "--archive", db, "--dry-run")
    assert plan.returncode == 0 and "skip 2" in plan.stdout
    bad = tmp_path / "bad.yaml"
    bad.write_text("topics: [x]\nconcurency: 2\n", encoding="utf-8")
    out = run_cli("batch", str(bad), "--archive", db)
    assert out.returncode == 2 and out.stderr.strip() == "error: batch spec: concurency: unknown key"
    assert run_cli("batch", str(tmp_path / "none.yaml"), "--archive", db).returncode == 2
