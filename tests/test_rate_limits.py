"""Shared rate limits: the batch spec names a Redis for the router's rpm / tpm counters.

The spec's Redis keys are checked with one line each (a password only as ``os.environ/NAME``);
the real litellm Router is built with the Redis the environment names (inspected, no mocks);
an unreachable Redis or an unset variable is said in one line before any debate; and two
batch processes against the scripted server stay under ONE rpm limit together through a
real ``redis-server`` (Debian's, which scripts/test.sh installs; without it those tests skip).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections import Counter

import pytest

from debate_core.batch import SpecError, build_router, load_spec, simulated_model
from debate_core.batch.router import SharedLimits
from debate_core.engines.scripted_server import ScriptedServer
from tests.conftest import REPO, run_cli

REDIS_SERVER = shutil.which("redis-server")
NO_REDIS = "redis-server is not installed (scripts/test.sh installs Debian's redis-server): needs a real Redis"
RPM = 4


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory):
    """A private redis-server on 127.0.0.1 with a password: ``(host, port, password)``."""
    if REDIS_SERVER is None:
        pytest.skip(NO_REDIS)
    pytest.importorskip("redis", reason="the redis client is not installed (pip install -r requirements-ray.txt)")
    import redis

    port, password = _free_port(), secrets.token_hex(12)
    folder = tmp_path_factory.mktemp("redis")
    proc = subprocess.Popen([REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(folder), "--requirepass", password],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(host="127.0.0.1", port=port, password=password, socket_connect_timeout=1)
    deadline = time.time() + 20
    while True:
        try:
            client.ping()
            break
        except redis.RedisError:
            if time.time() > deadline or proc.poll() is not None:
                proc.kill()
                pytest.fail("redis-server did not start")
            time.sleep(0.1)
    client.close()
    yield "127.0.0.1", port, password
    proc.terminate()
    proc.wait(timeout=10)


def _spec(router: dict, deployments=None, **extra) -> dict:
    deployments = deployments or [{"model_name": "deb", "litellm_params": {
        "model": "openai/m", "api_base": "http://127.0.0.1:9/v1", "rpm": RPM}}]
    return {"topics": ["x"], "models": ["deb"], "deployments": deployments, "router": router, **extra}


# ------------------------------------------------------------ the spec's keys


@pytest.mark.parametrize("router, message", [
    ({"redis_host": "r", "redis_password": "hunter2-hunter2"},
     "router: redis_password: write os.environ/NAME, the variable that holds it; a password is never written"),
    ({"redis_url": "redis://:hunter2-hunter2@r:6379/0"},
     "router: redis_url 'redis://:***@r:6379/0': holds a password; put the URL in an environment variable"),
    ({"redis_url": "http://r:6379"}, "router: redis_url 'http://r:6379': a Redis URL (redis://host:port/db"),
    ({"redis_host": "r", "redis_port": "six"}, "router: redis_port 'six': a port number 1-65535, or os.environ/NAME"),
    ({"redis_host": "r", "redis_port": 70000}, "router: redis_port 70000: a port number 1-65535"),
    ({"redis_host": "r", "redis_db": -1}, "router: redis_db -1: a database number"),
    ({"redis_host": "a b"}, "router: redis_host 'a b': a host name or address"),
    ({"redis_url": "redis://r", "redis_host": "r"}, "router: redis_url and redis_host: name Redis once"),
    ({"redis_port": 6379}, "router: redis_port: name the Redis with redis_host (and redis_port) or redis_url"),
    ({"redis_url": "redis://r", "redis_port": 1}, "router: redis_port: the port goes in redis_url"),
    ({"redis_url": "os.environ/not a name"}, "router: redis_url 'os.environ/not a name': write os.environ/NAME"),
])
def test_bad_redis_keys_say_which_key_and_never_echo_a_password(router, message):
    with pytest.raises(SpecError) as info:
        load_spec(_spec(router))
    text = str(info.value)
    assert text.startswith("batch spec: ") and message in text and "\n" not in text
    assert "hunter2" not in text


@pytest.mark.parametrize("data, message", [
    ({"topics": ["x"], "router": {"redis_url": "os.environ/R"}},
     "router.redis_url: Redis shares the rpm/tpm counters of 'deployments'; list them"),
    ({"topics": ["x"], "ray": {"env_vars": ["OK_NAME", "not-a-name"]}},
     "ray.env_vars: 'not-a-name' is not an environment variable name"),
    ({"topics": ["x"], "ray": {"num_cpus": 0}}, "ray.num_cpus: Input should be greater than 0"),
    ({"topics": ["x"], "ray": {"gpus": 1}}, "ray.gpus: unknown key"),
])
def test_other_new_keys_are_checked(data, message):
    with pytest.raises(SpecError) as info:
        load_spec(data)
    assert message in str(info.value) and "\n" not in str(info.value), str(info.value)


def test_references_are_kept_as_written_and_the_grid_ignores_them():
    spec = load_spec(_spec({"redis_host": "os.environ/RH", "redis_port": "os.environ/RP",
                            "redis_password": "os.environ/RPW", "num_retries": 1}))
    assert spec.redis and spec.router["redis_password"] == "os.environ/RPW"
    plain = load_spec(_spec({"num_retries": 1}))
    assert not plain.redis and plain.batch_id == spec.batch_id  # how it runs is not part of the batch id


def test_an_unset_variable_is_named_before_any_call(monkeypatch):
    monkeypatch.delenv("RL_NOT_SET", raising=False)
    spec = load_spec(_spec({"redis_url": "os.environ/RL_NOT_SET"}))
    with pytest.raises(SpecError, match=r"^batch spec: router: redis_url: os\.environ/RL_NOT_SET is not set"):
        build_router(spec)
    monkeypatch.setenv("RL_PORT", "63x")
    spec = load_spec(_spec({"redis_host": "127.0.0.1", "redis_port": "os.environ/RL_PORT"}))
    with pytest.raises(SpecError, match=r"redis_port: \$RL_PORT is '63x', not a number"):
        build_router(spec)


def test_an_unreachable_redis_is_one_line_at_once(monkeypatch, tmp_path):
    port = _free_port()  # nothing listens there
    monkeypatch.setenv("RL_REDIS_URL", f"redis://127.0.0.1:{port}/0")
    spec = load_spec(_spec({"redis_url": "os.environ/RL_REDIS_URL"}))
    t0 = time.perf_counter()
    with pytest.raises(SpecError) as info:
        build_router(spec)
    assert time.perf_counter() - t0 < 15
    assert str(info.value).startswith(f"batch spec: router: cannot reach Redis at redis://127.0.0.1:{port}/0: ")
    # the CLI says it in one line and exits 2 before any debate
    spec_file = tmp_path / "limits.json"
    spec_file.write_text(json.dumps(_spec({"redis_url": "os.environ/RL_REDIS_URL"})), encoding="utf-8")
    out = run_cli("batch", str(spec_file), "--archive", str(tmp_path / "a.duckdb"),
                  env={"RL_REDIS_URL": f"redis://127.0.0.1:{port}/0"})
    assert out.returncode == 2 and out.stderr.startswith("error: batch spec: router: cannot reach Redis at ")
    assert out.stderr.count("\n") == 1


# ------------------------------------------------------- with a real Redis


def test_the_router_is_built_on_the_redis_the_environment_names(redis_server, monkeypatch):
    host, port, password = redis_server
    monkeypatch.setenv("RL_REDIS_HOST", host)
    monkeypatch.setenv("RL_REDIS_PORT", str(port))
    monkeypatch.setenv("RL_REDIS_PASSWORD", password)
    spec = load_spec(_spec({"redis_host": "os.environ/RL_REDIS_HOST", "redis_port": "os.environ/RL_REDIS_PORT",
                            "redis_password": "os.environ/RL_REDIS_PASSWORD", "num_retries": 0}))
    router = build_router(spec)
    # every call takes litellm's synchronous path, whose rpm check is one atomic INCR in Redis
    assert isinstance(router, SharedLimits) and type(router.router).__name__ == "Router"
    cache = router.health().store.redis_cache  # the routing state's store: memory plus this Redis
    assert cache is not None
    assert {k: cache.redis_kwargs.get(k) for k in ("host", "port", "password")} == \
        {"host": host, "port": str(port), "password": password}
    assert router.settings().routing_strategy == "usage-based-routing-v2"  # rpm set: limits are checked

    monkeypatch.setenv("RL_REDIS_URL", f"redis://{host}:{port}/3")
    spec = load_spec(_spec({"redis_url": "os.environ/RL_REDIS_URL",
                            "redis_password": "os.environ/RL_REDIS_PASSWORD"}))
    cache = build_router(spec).health().store.redis_cache
    # litellm connects by URL alone (it drops a separate password), so the password goes into the URL
    assert cache.redis_kwargs.get("url") == f"redis://:{password}@{host}:{port}/3"

    monkeypatch.setenv("RL_REDIS_PASSWORD", "wrong-password")
    with pytest.raises(SpecError, match=rf"^batch spec: router: cannot reach Redis at {host}:{port}: "):
        build_router(load_spec(_spec({"redis_host": host, "redis_port": port,
                                      "redis_password": "os.environ/RL_REDIS_PASSWORD"})))


def _limited_servers():
    """(limited, overflow) scripted servers playing the simulated model; the limited one notes each
    request's minute (litellm counts rpm per clock minute)."""
    minutes: list[int] = []
    lock = threading.Lock()
    sim = simulated_model({"m": 1.0})

    def limited(body):
        with lock:
            minutes.append(int(time.time() // 60))
        return sim(body)

    return ScriptedServer(limited), ScriptedServer(simulated_model({"m": 1.0})), minutes


def _two_batches(tmp_path, limited_url: str, overflow_url: str, router: dict, env: dict) -> list:
    # topic debates: both debaters of a round call at once (litellm's async path), two debates at a time
    spec = {"name": "shared-rpm", "protocol": "topic", "topics": ["远程办公还是坐班？", "猫还是狗？"],
            "stances": ["A好", "B好"], "models": [["deb", "deb"]], "judge_models": ["deb"], "rounds": 1,
            "concurrency": 2, "gateway": {"backoff": 0.05},
            "deployments": [
                {"model_name": "deb", "litellm_params": {"model": "openai/m", "api_base": limited_url, "rpm": RPM}},
                {"model_name": "deb-overflow", "litellm_params": {"model": "openai/m", "api_base": overflow_url}}],
            "fallbacks": [{"deb": ["deb-overflow"]}], "router": router}
    spec_file = tmp_path / f"shared-{len(router)}.json"
    spec_file.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    e = {**os.environ, **env, "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([sys.executable, "-m", "debate_core", "batch", str(spec_file), "--quiet", "--format",
                               "json", "--archive", str(tmp_path / f"machine{i}-{len(router)}.duckdb")], cwd=REPO,
                              env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in (1, 2)]
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=240)
        assert p.returncode == 0, err
        outs.append(json.loads(out)["summary"])
    return outs


def _windows(t0: float, t1: float) -> int:
    """How many clock minutes (litellm's rpm windows) the interval touches."""
    return int(t1 // 60) - int(t0 // 60) + 1


def test_two_batch_processes_share_one_rpm_limit_through_redis(redis_server, tmp_path):
    host, port, password = redis_server
    limited, overflow, minutes = _limited_servers()
    with limited, overflow:
        t0 = time.time()
        summaries = _two_batches(tmp_path, limited.url, overflow.url,
                                 {"redis_url": "os.environ/RL_REDIS_URL", "redis_password": "os.environ/RL_REDIS_PW"},
                                 {"RL_REDIS_URL": f"redis://{host}:{port}/0", "RL_REDIS_PW": password})
        windows = _windows(t0, time.time())
        total = len(limited.requests) + len(overflow.requests)
    assert [s["completed"] for s in summaries] == [2, 2]
    assert total == 2 * 2 * 3  # two processes × two debates × (two openings, the judge): every call was made
    # ONE limit for both processes: at most RPM calls per clock minute the run touched (usually one)
    assert 1 <= len(minutes) <= RPM * windows, Counter(minutes)
    assert len(overflow.requests) == total - len(minutes)

    # the same two processes without Redis: each counts alone, and together they pass the limit
    limited, overflow, minutes = _limited_servers()
    with limited, overflow:
        t0 = time.time()
        _two_batches(tmp_path, limited.url, overflow.url, {}, {})
        windows = _windows(t0, time.time())
    if windows == 1:  # (across a minute boundary each process may pass its limit twice anyway)
        assert len(minutes) == 2 * RPM


def test_worker_processes_share_the_batch_rpm_limit_through_redis(redis_server, tmp_path):
    """One batch in two worker processes (`--processes 2`), each with its own router on the spec's Redis:
    together they stay under ONE rpm limit, the overflow goes to the fallback, and the batch process
    writes every debate.  Without a Redis the same command is refused in one line (each process would
    count the limit on its own)."""
    from debate_core.archive import open_archive
    from tests.test_batch_scale import _watch_children

    host, port, password = redis_server
    limited, overflow, minutes = _limited_servers()
    spec = {"name": "workers-rpm", "protocol": "topic", "topics": ["远程办公还是坐班？", "猫还是狗？"],
            "stances": ["A好", "B好"], "models": [["deb", "deb"]], "judge_models": ["deb"], "rounds": 1,
            "repeats": 2, "concurrency": 4, "gateway": {"backoff": 0.05},
            "deployments": [
                {"model_name": "deb", "litellm_params": {"model": "openai/m", "api_base": "", "rpm": RPM}},
                {"model_name": "deb-overflow", "litellm_params": {"model": "openai/m", "api_base": ""}}],
            "fallbacks": [{"deb": ["deb-overflow"]}],
            "router": {"redis_url": "os.environ/RL_REDIS_URL", "redis_password": "os.environ/RL_REDIS_PW"}}
    env = {**os.environ, "PYTHONPATH": str(REPO), "RL_REDIS_URL": f"redis://{host}:{port}/1", "RL_REDIS_PW": password}
    path = tmp_path / "w.duckdb"
    with limited, overflow:
        spec["deployments"][0]["litellm_params"]["api_base"] = limited.url
        spec["deployments"][1]["litellm_params"]["api_base"] = overflow.url
        spec_file = tmp_path / "workers.json"
        spec_file.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
        t0 = time.time()
        proc = subprocess.Popen([sys.executable, "-m", "debate_core", "batch", str(spec_file), "--quiet", "--format",
                                 "json", "--archive", str(path), "--processes", "2"], cwd=REPO, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        most = _watch_children(proc)
        out, err = proc.communicate(timeout=240)
        windows = _windows(t0, time.time())
        total = len(limited.requests) + len(overflow.requests)
    assert proc.returncode == 0, (out, err)
    assert json.loads(out)["summary"]["completed"] == 4
    assert most == 2  # the debates ran in two worker processes
    assert total == 4 * 3  # four debates × (two openings, the judge): every call was made once
    assert 1 <= len(minutes) <= RPM * windows, Counter(minutes)  # ONE limit for both worker processes
    assert len(overflow.requests) == total - len(minutes) > 0
    arc = open_archive(path)
    heads = arc.query("SELECT status, writer_pid FROM debates WHERE batch_id = 'workers-rpm'")
    assert list(heads["status"]) == ["completed"] * 4 and set(heads["writer_pid"]) == {proc.pid}

    del spec["router"]  # no Redis: every process would count on its own
    spec_file.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    out = run_cli("batch", str(spec_file), "--archive", str(tmp_path / "n.duckdb"), "--processes", "2")
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert out.stderr.startswith("error: batch spec: processes 2: each process would count the deployments' rpm")
