"""The Ray tier: batches through ``--ray`` on one local Ray instance (2 CPUs, started once for
the module), against the offline engine and the scripted OpenAI-compatible server on
127.0.0.1.  Every debate is archived whole by the driver with its batch id and the same
structure as a local run; a rerun skips the finished cells and continues the failed one; a
debate whose model calls get HTTP 500 is recorded failed with a one-line reason; no key
reaches a result or the archive.

Runs where requirements-ray.txt is installed (``make test`` installs it); elsewhere the Ray
tests skip and say why.  Two checks need no Ray: the one-line error of ``--ray`` without
Ray, and which variables a task is given.
"""

from __future__ import annotations

import importlib.util
import json
import sys

import pytest

from debate_core.archive import open_archive
from debate_core.batch import batch_debates, expand, load_spec, run_batch, simulated_model
from debate_core.batch.ray_runner import RAY_MISSING, RayBatchRunner, worker_env
from debate_core.engines.scripted_server import Reply, ScriptedServer
from tests.conftest import run_cli

HAS_RAY = importlib.util.find_spec("ray") is not None
WHY = "Ray is not installed (pip install -r requirements-ray.txt): the ray tier is skipped"
needs_ray = [pytest.mark.ray, pytest.mark.skipif(not HAS_RAY, reason=WHY)]

CHAN = "禅宗顿悟和净土念佛，到底谁更直接？"
KONG = "三论宗讲一切皆空，唯识宗讲万法唯识，二者怎么辩？"
BROKEN = "城市应该限制私家车吗？"
SECRET_VAR, SECRET = "DEBATE_RAYTEST_API_KEY", "zq4-ray-tier-secret-0123456789"
FAST = {"backoff": 0.01, "max_backoff": 0.05}


# ------------------------------------------------------------- without Ray


def test_without_ray_the_flag_says_how_to_install(tmp_path, monkeypatch, capsys):
    from debate_core.cli.main import main

    spec = tmp_path / "s.yaml"
    spec.write_text(f"topics: [{CHAN}]\n", encoding="utf-8")
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    db = tmp_path / "a.duckdb"
    assert main(["batch", str(spec), "--archive", str(db), "--ray", "auto"]) == 2
    assert capsys.readouterr().err == f"error: {RAY_MISSING}\n"
    assert RAY_MISSING == "--ray needs Ray: pip install -r requirements-ray.txt"
    assert not db.exists()  # refused before the archive is opened


def test_a_task_gets_the_provider_variables_and_the_specs_references_only():
    spec = load_spec({"topics": ["x"], "models": ["deb"], "ray": {"env_vars": ["AWS_ACCESS_KEY_ID"]},
                      "deployments": [{"model_name": "deb", "litellm_params": {
                          "model": "openai/m", "api_key": "os.environ/TEAM_LLM_SECRET"}}],
                      "router": {"redis_url": "os.environ/TEAM_REDIS_URL", "redis_password": "os.environ/TEAM_RP"}})
    env = {"OPENAI_API_KEY": "sk-a", "AZURE_API_BASE": "https://x", "DEBATE_MODEL": "m", "DEBATE_BACKOFF": "0.1",
           "TEAM_LLM_SECRET": "s", "TEAM_REDIS_URL": "redis://r:6379/0", "TEAM_RP": "p", "AWS_ACCESS_KEY_ID": "A",
           "RAY_AUTH_TOKEN": "never", "GITHUB_TOKEN": "gh", "RAY_ADDRESS": "h:1", "DEBATE_ARCHIVE": "a.duckdb",
           "HOME": "/root", "UNRELATED": "u"}
    got = worker_env(spec, env)
    got.pop("PYTHONPATH", None)  # this checkout's folder, when debate_core is not an installed package
    assert got == {"OPENAI_API_KEY": "sk-a", "AZURE_API_BASE": "https://x", "DEBATE_MODEL": "m",
                   "DEBATE_BACKOFF": "0.1", "TEAM_LLM_SECRET": "s", "TEAM_REDIS_URL": "redis://r:6379/0",
                   "TEAM_RP": "p", "AWS_ACCESS_KEY_ID": "A", "GITHUB_TOKEN": "gh"}
    # named like a provider variable (settings.SECRET_NAME) → sent; Ray's own, the archive, the rest → not


# ---------------------------------------------------------------- on Ray


@pytest.fixture(scope="module")
def ray_instance():
    if not HAS_RAY:
        pytest.skip(WHY)
    import logging

    import os

    import ray

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report from a test run
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def server():
    """The simulated model for topic debates and trials; debates on BROKEN get HTTP 500 while ``broken``.

    The 500's message carries the test's key value, as a careless server might echo it."""
    state = {"broken": True}

    def faults(body):
        if state["broken"] and any(BROKEN in str(m.get("content")) for m in body["messages"]):
            return Reply(status=500, error=f"scripted outage (key {SECRET} rejected)")
        return None

    with ScriptedServer(simulated_model({"m1": 2.0, "m2": 1.0}, faults=faults)) as srv:
        srv.state = state
        yield srv


def _specs(url: str) -> dict[str, dict]:
    return {
        "master": {"batch_id": "ray-master", "topics": [CHAN, KONG], "rounds": 2},
        "topic": {"batch_id": "ray-topic", "protocol": "topic", "topics": ["远程办公还是坐班？", BROKEN],
                  "stances": ["远程好", "坐班好"], "models": [["openai/m1", "openai/m2"]],
                  "judge_models": ["openai/judge"], "api_base": url, "max_retries": 1, "gateway": FAST},
        "trial": {"batch_id": "ray-trial", "protocol": "trial", "topics": ["应该禁止燃油车"],
                  "models": [["openai/m1", "openai/m2"]], "rounds": 1, "api_base": url, "gateway": FAST},
    }


def _shape(d) -> dict:
    """What must be the same whichever way a debate ran (texts of the model's answers included)."""
    return {"protocol": d.protocol, "topic": d.config.topic, "status": d.status, "batch_id": d.batch_id,
            "tag": d.config.batch_id, "stop_reason": d.stop_reason,
            "participants": [(p.label, p.model) for p in d.participants],
            "rounds": [(s.round, s.speaker, s.role, s.status, s.text, [f.rule for f in s.findings])
                       for s in d.rounds],
            "summaries": [(s.round, s.speaker, s.text) for s in d.summaries],
            "observation": d.observation.model_dump() if d.observation else None,
            "verdict": (d.verdict.winner, d.verdict.parsed) if d.verdict else None,
            "calls": sorted((c.purpose, c.round or 0, c.speaker, bool(c.error)) for c in d.llm_calls)}


def _by_cell(archive, batch_id: str) -> dict:
    df = batch_debates(archive, batch_id)
    return {cell: archive.get_debate(i) for cell, i in zip(df["cell"], df["id"])}


def _archive_text(archive) -> str:
    tables = archive.query("SELECT table_name FROM information_schema.tables")["table_name"]
    return "\n".join(archive.query(f'SELECT * FROM "{t}"').to_csv() for t in tables)


@pytest.mark.ray
@pytest.mark.skipif(not HAS_RAY, reason=WHY)
def test_batches_on_ray_match_a_local_run_rerun_and_keep_keys_out(ray_instance, server, tmp_path, monkeypatch):
    monkeypatch.setenv(SECRET_VAR, SECRET)  # set after Ray started: only the tasks' runtime_env carries it
    server.state["broken"] = True
    specs = _specs(server.url)
    local, on_ray = open_archive(tmp_path / "local.duckdb"), open_archive(tmp_path / "ray.duckdb")
    seen = []
    results = {}
    for name, spec in specs.items():
        results[name] = RayBatchRunner(spec, on_ray, address="auto", on_result=seen.append).run()
        run_batch(spec, local)
    assert len(seen) == 5  # 2 master, 2 topic, 1 trial

    for name, spec in specs.items():
        keys = [c.key for c in expand(load_spec(spec))]
        ray_debates, local_debates = _by_cell(on_ray, spec["batch_id"]), _by_cell(local, spec["batch_id"])
        assert sorted(ray_debates) == sorted(local_debates) == sorted(keys)  # every cell archived, once
        for key in keys:
            assert _shape(ray_debates[key]) == _shape(local_debates[key]), (name, key)
            assert ray_debates[key].batch_id == spec["batch_id"]
            assert ray_debates[key].config.batch_id == f"{spec['batch_id']}#{key}"

    # the outage: that cell's debate is archived failed, with one line saying why
    broken = next(r for r in results["topic"].results if r.cell.topic == BROKEN)
    assert broken.status == "failed" and "\n" not in broken.reason and "500" in broken.reason
    failed = on_ray.get_debate(broken.debate_id)
    assert failed.status == "failed" and failed.stop_reason == broken.reason
    assert [r.status for r in results["master"].results] == ["completed", "completed"]
    assert results["trial"].ok and not results["topic"].ok
    summary = results["topic"].summary()
    assert summary["cells"] == 2 and summary["completed"] == 1 and summary["failed"] == 1

    # no key in a result, a reason or the archive (the 500 echoed it; the worker scrubbed it)
    assert SECRET not in json.dumps([r.as_row() for res in results.values() for r in res.results], default=str)
    text = _archive_text(on_ray)
    assert SECRET not in text and "[redacted]" in text

    # the outage ends: a rerun skips what is finished and continues the failed debate, keeping its id
    server.state["broken"] = False
    before = len(server.requests)
    again = RayBatchRunner(specs["topic"], on_ray, address="auto").run()
    by_topic = {r.cell.topic: r for r in again.results}
    assert by_topic["远程办公还是坐班？"].status == "skipped"
    fixed = by_topic[BROKEN]
    assert fixed.status == "completed" and fixed.resumed and fixed.debate_id == broken.debate_id and again.ok
    resumed = on_ray.get_debate(broken.debate_id)
    assert resumed.status == "completed" and resumed.verdict is not None and resumed.batch_id == "ray-topic"
    assert len(server.requests) > before
    assert len(batch_debates(on_ray, "ray-topic")) == 2
    # ... and the same rerun locally leaves the same debate behind
    run_batch(specs["topic"], local)
    local_fixed = _by_cell(local, "ray-topic")[fixed.cell.key]
    assert _shape(local_fixed) == _shape(resumed)

    # a third run has nothing to do: everything skipped, no model call
    before = len(server.requests)
    third = RayBatchRunner(specs["topic"], on_ray, address="auto").run()
    assert {r.status for r in third.results} == {"skipped"} and len(server.requests) == before


@pytest.mark.ray
@pytest.mark.skipif(not HAS_RAY, reason=WHY)
def test_a_task_returns_the_debate_as_json_with_the_key_scrubbed(ray_instance, server, monkeypatch):
    from debate_core.batch.ray_runner import run_remote_cell

    monkeypatch.setenv(SECRET_VAR, SECRET)
    server.state["broken"] = True
    spec = load_spec(_specs(server.url)["topic"])
    cell = next(c for c in expand(spec) if c.topic == BROKEN)
    task = ray_instance.remote(run_remote_cell).options(num_cpus=1, runtime_env={"env_vars": worker_env(spec)})
    out = ray_instance.get(task.remote(spec, cell, "run", None, None, None))
    assert out["status"] == "failed" and out["debate"] and SECRET not in json.dumps(out)
    data = json.loads(out["debate"])
    assert data["batch_id"] == "ray-topic" and data["status"] == "failed"
    errors = [c["error"] for c in data["llm_calls"] if c["error"]]
    assert errors and all("[redacted]" in e for e in errors)  # the worker had the variable (runtime_env) and
    # scrubbed it: the task's result never held the key


@pytest.mark.ray
@pytest.mark.skipif(not HAS_RAY, reason=WHY)
def test_cli_ray_auto_joins_the_running_instance(ray_instance, tmp_path):
    spec = tmp_path / "cli-ray.yaml"
    spec.write_text(f"topics: [{CHAN}]\nswap: true\nrounds: 2\n", encoding="utf-8")
    db = str(tmp_path / "cli.duckdb")
    out = run_cli("batch", str(spec), "--archive", db, "--ray", "auto", "--format", "json", timeout=240)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["summary"]["completed"] == 2 and data["summary"]["batch_id"] == "cli-ray"
    assert "started a local Ray instance" not in out.stderr  # it joined this module's instance
    arc = open_archive(db)
    df = batch_debates(arc, "cli-ray")
    assert len(df) == 2 and set(df["status"]) == {"completed"}
    again = run_cli("batch", str(spec), "--archive", db, "--ray", "auto", "--quiet", "--format", "json")
    assert again.returncode == 0 and json.loads(again.stdout)["summary"]["skipped"] == 2 and again.stderr == ""
    bad = run_cli("batch", str(spec), "--archive", db, "--ray", "127.0.0.1:1", "--quiet")
    # nothing left to run: the address is never needed (a rerun with work would refuse it; see below)
    assert bad.returncode == 0


@pytest.mark.ray
@pytest.mark.skipif(not HAS_RAY, reason=WHY)
def test_a_stopped_ray_batch_stops_running_debates_at_a_round_and_resumes(ray_instance, tmp_path):
    import threading

    sim = simulated_model({"m1": 2.0, "m2": 1.0})

    def script(body):  # debates on the slow topic answer after 2 s a call
        slow = any("慢" in str(m.get("content")) for m in body["messages"])
        return Reply(text=sim(body), delay=2.0) if slow else sim(body)

    arc = open_archive(tmp_path / "stop.duckdb")
    stop = threading.Event()
    with ScriptedServer(script) as srv:
        spec = {"batch_id": "ray-stop", "protocol": "topic", "topics": ["快：猫还是狗？", "慢：远程办公还是坐班？"],
                "stances": ["甲好", "乙好"], "models": [["openai/m1", "openai/m2"]], "judge_models": ["openai/judge"],
                "rounds": 3, "api_base": srv.url, "gateway": FAST, "concurrency": 2}
        first = RayBatchRunner(spec, arc, address="auto", stop=stop, on_result=lambda r: stop.set()).run()
        by_topic = {r.cell.topic[0]: r for r in first.results}
        assert by_topic["快"].status == "completed"
        slow = by_topic["慢"]
        assert slow.status == "stopped" and slow.debate_id  # it halted at a round boundary, and was written
        stored = arc.get_debate(slow.debate_id)
        assert stored.status == "stopped" and len({s.round for s in stored.rounds}) < 3
        second = RayBatchRunner(spec, arc, address="auto").run()
    again = {r.cell.topic[0]: r for r in second.results}
    assert again["快"].status == "skipped"
    assert again["慢"].status == "completed" and again["慢"].resumed and again["慢"].debate_id == slow.debate_id
    assert arc.get_debate(slow.debate_id).verdict is not None


def test_an_address_nothing_answers_on_is_one_line():
    from debate_core.errors import ConfigError

    with pytest.raises(ConfigError, match=r"^--ray 127\.0\.0\.1:1: nothing answers there .*ray start --head"):
        RayBatchRunner._reachable("127.0.0.1:1")
    with pytest.raises(ConfigError, match=r"^--ray 'somewhere': give auto or a cluster address"):
        RayBatchRunner._reachable("somewhere")
