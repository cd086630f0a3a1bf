"""Secrets: API keys come only from the environment and never reach a record, an export, a log or a page.

Fake keys are planted (OPENAI_API_KEY, DEEPSEEK_API_KEY); real debates then run against
the scripted server on 127.0.0.1, which really receives the keys (checked) and is
hostile: it echoes the Authorization header into a speech and into error messages.
Then every place a key could land is searched, in raw bytes and decoded: the archive
file and every table in it, every export format, stdout/stderr and log records
(with LITELLM_LOG=DEBUG), files left behind, and the Streamlit pages rendered by AppTest.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from pathlib import Path

import pytest

from debate_core.engines import scripted_server
from debate_core.models import DebateConfig
from debate_core.engines.scripted_server import Reply, ScriptedServer
from debate_core.io.exporters import export_debate
from tests.conftest import REPO, run_cli
from tests.master_script import master_script

OPENAI_KEY = "sk-test-PLANTED0123456789abcdef"
DEEPSEEK_KEY = "sk-ds-PLANTEDfedcba9876543210zz"
KEYS = {"OPENAI_API_KEY": OPENAI_KEY, "DEEPSEEK_API_KEY": DEEPSEEK_KEY}
# the keys, and long enough pieces of them that a partial mask would still be caught
NEEDLES = [OPENAI_KEY, DEEPSEEK_KEY, "PLANTED0123456789", "0123456789abcdef", "PLANTEDfedcba98", "fedcba9876543210"]
TOPIC = "禅宗顿悟和净土念佛，到底谁更直接？"
_tls = threading.local()


def leaks(blob) -> list[str]:
    if isinstance(blob, bytes):
        found = [n for n in NEEDLES if n.encode() in blob]
        return found + leaks(blob.decode("utf-8", "replace")) if not found else found
    return [n for n in NEEDLES if n in str(blob)]


@pytest.fixture
def keys(monkeypatch):
    for k, v in KEYS.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("DEBATE_BACKOFF", "0.01")
    return KEYS


@pytest.fixture
def seen_auth(monkeypatch):
    """Authorization headers the server received; the handler thread's value is visible to the script."""
    seen: list[str] = []
    original = scripted_server._Handler.do_POST

    def do_post(self):
        _tls.auth = self.headers.get("Authorization", "")
        seen.append(_tls.auth)
        return original(self)
    monkeypatch.setattr(scripted_server._Handler, "do_POST", do_post)
    return seen


def hostile_master(pack, fail_round: int | None = None, fail_always: bool = False):
    """Valid master replies, except: round 3 echoes the Authorization header into the speech, and
    round ``fail_round`` answers 500 with the header in the error message (once, or always)."""
    good = master_script(pack)
    state = {"failed": 0}

    def script(body):
        msgs = body["messages"]
        reply = good(body)
        if "你扮演" not in msgs[0]["content"]:
            return reply
        auth = getattr(_tls, "auth", "")
        if fail_round and f"这是第 {fail_round} 轮" in msgs[1]["content"] and (fail_always or not state["failed"]):
            state["failed"] += 1
            return Reply(status=500, error=f"upstream rejected credentials {auth}")
        if "这是第 3 轮" in msgs[1]["content"]:
            return Reply(text=reply.text + f"（调试信息：{auth}）", chunk_chars=16)
        return reply
    return script


def archive_text(path: Path) -> str:
    """Every value of every table in the archive, as text (the file itself may compress strings)."""
    import duckdb

    con = duckdb.connect(str(path), read_only=True)
    try:
        parts = []
        for (table,) in con.execute("SELECT table_name FROM information_schema.tables "
                                    "WHERE table_type = 'BASE TABLE'").fetchall():
            parts.append(con.execute(f'SELECT * FROM "{table}"').df().to_csv())
        return "\n".join(parts)
    finally:
        con.close()


def all_files(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}


def export_everything(arc, debate_id: str, out: Path) -> dict[str, str]:
    """Every export format the archive offers, written under ``out``; returns decoded text per format."""
    from debate_core.io.exporters import FORMATS

    texts = {}
    for fmt in FORMATS:
        target = out / fmt
        target.mkdir(parents=True)
        result = export_debate(arc, debate_id, fmt, target)
        blobs = []
        for p, data in all_files(target).items():
            blobs.append(data.decode("utf-8", "replace"))
            if p.suffix == ".parquet":  # compressed columns: read them back
                import pandas as pd

                blobs.append(pd.read_parquet(p).to_csv())
        texts[fmt] = "\n".join(blobs) + (result if isinstance(result, str) else "")
        assert blobs, f"export {fmt} wrote nothing"
    return texts


def page_text(at) -> str:
    parts = []
    for kind in ("markdown", "caption", "code", "text", "title", "header", "subheader", "error", "warning", "info",
                 "success", "exception", "json", "latex", "metric"):
        for el in getattr(at, kind, []):
            parts.append(str(getattr(el, "value", "")) + str(getattr(el, "label", "")))
    for df in getattr(at, "dataframe", []):
        parts.append(df.value.to_csv() if hasattr(df.value, "to_csv") else str(df.value))
    for kind in ("text_input", "text_area", "selectbox", "button", "expander", "tabs"):
        for el in getattr(at, kind, []):
            parts.append(str(getattr(el, "label", "")) + str(getattr(el, "value", "")))
    return "\n".join(parts)


# ---------------------------------------------------------------- the run


def test_keys_never_leave_the_environment(keys, seen_auth, default_pack, tmp_path, capfd, caplog, monkeypatch):
    from debate_core.archive import open_archive
    from debate_core.engines.gateway import Gateway, litellm
    from debate_core.engines.llm import LLMEngine
    from debate_core import runs
    from debate_core.protocols.master import MasterDebate

    caplog.set_level(logging.DEBUG)  # every logger, litellm's included, at its most talkative
    litellm()
    path = tmp_path / "secrets.duckdb"
    arc = open_archive(path)

    # 1. a master debate, streaming, through the archive: a 500 echoing the key, then a speech echoing it
    with ScriptedServer(hostile_master(default_pack, fail_round=2)) as srv:
        md = MasterDebate(default_pack, LLMEngine(Gateway(model="openai/scripted", api_base=srv.url, max_retries=2,
                                                          backoff=0.01)), recorder=arc)
        cfg = DebateConfig(topic=TOPIC, masters=["huineng", "yinguang"], model="openai/scripted", api_base=srv.url,
                           pack=str(default_pack.path))
        tokens: list[str] = []
        master = md.run(md.prepare(cfg), on_token=tokens.append)
    assert master.status == "completed", master.stop_reason
    assert any(OPENAI_KEY in a for a in seen_auth), "the planted key was not even sent: the test proves nothing"
    assert master.rounds[2].text.endswith("（调试信息：Bearer [redacted]）")
    assert any("[redacted]" in c.error for c in master.llm_calls)

    # 2. a trial through the deepseek provider (DEEPSEEK_API_KEY), the same hostile echo in its speeches
    def trial_script(body):
        if "庭审式辩论的裁判" in body["messages"][0]["content"]:
            return json.dumps({"per_round": [{"round": 1, "comment": "c"}], "winner": "pro", "summary": "s",
                               "reasons": f"r {getattr(_tls, 'auth', '')}"}, ensure_ascii=False)
        return f"发言，附带 {getattr(_tls, 'auth', '')}"
    seen_auth.clear()
    with ScriptedServer(trial_script) as srv:
        runner, trial = runs.start(DebateConfig(protocol="trial", topic="远程办公好", model="deepseek/deepseek-chat",
                                                    api_base=srv.url, rounds=1), arc, probe=False,
                                       gateway_options={"backoff": 0.01})
        trial = runner.run(trial)
    assert trial.status == "completed", trial.stop_reason
    assert any(DEEPSEEK_KEY in a for a in seen_auth), seen_auth

    # 3. the CLI, with litellm asked for debug logs, failing for good on an error that echoes the key
    seen_auth.clear()
    with ScriptedServer(hostile_master(default_pack, fail_round=2, fail_always=True)) as srv:
        r = run_cli("debate", TOPIC, "--masters", "huineng,yinguang", "--model", "openai/scripted", "--api-base",
                    srv.url, "--archive", str(path), "--format", "json",
                    env={**KEYS, "LITELLM_LOG": "DEBUG", "DEBATE_BACKOFF": "0.01"})
    assert r.returncode == 1 and any(OPENAI_KEY in a for a in seen_auth)
    assert "第 2 轮失败：模型服务出错（HTTP 500）" in r.stderr
    assert not leaks(r.stdout) and not leaks(r.stderr), (leaks(r.stdout), leaks(r.stderr))
    failed_id = re.search(r"（辩论 ([0-9a-f]{12})）", r.stderr).group(1)  # a Chinese debate's own line

    # the archive: raw bytes of the file, and every value of every table
    assert not leaks(path.read_bytes())
    assert not leaks(archive_text(path))
    stored = arc.get_debate(failed_id)
    assert stored.status == "failed" and "第 2 轮失败" in stored.stop_reason
    # the provider's own words, key redacted, stay with the recorded call
    assert any("upstream rejected credentials Bearer [redacted]" in c.error for c in stored.llm_calls)

    # every export of every debate
    for d_id in (master.id, trial.id, failed_id):
        texts = export_everything(arc, d_id, tmp_path / "exports" / d_id)
        for fmt, text in texts.items():
            assert not leaks(text), (d_id, fmt, leaks(text))

    # logs: records of every logger, the captured stdout/stderr, any file the runs left behind
    assert not leaks("\n".join(rec.getMessage() for rec in caplog.records))
    out, err = capfd.readouterr()
    assert not leaks(out + err)
    live = "".join(tokens)  # what the Live page shows while a speech streams in
    assert "Bearer [redacted]" in live and not leaks(live)
    for p, data in all_files(tmp_path).items():
        assert not leaks(data), p

    # the rendered pages
    AppTest = pytest.importorskip("streamlit.testing.v1").AppTest
    if not (REPO / "pages").is_dir() or not (REPO / "app.py").is_file():
        pytest.skip("the Streamlit app is not in this checkout")
    monkeypatch.setenv("DEBATE_ARCHIVE", str(path))
    rendered = []
    for page, debate_id in [(None, None), ("pages/1_Setup.py", None), ("pages/2_Live.py", failed_id),
                            ("pages/3_Outcome.py", master.id), ("pages/3_Outcome.py", trial.id),
                            ("pages/4_Archive.py", None)]:
        at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
        if page:
            at.switch_page(page)
        if debate_id:
            at.query_params["id"] = debate_id
        at.run()
        assert not at.exception, (page, [e.value for e in at.exception])
        text = page_text(at)
        rendered.append(text)
        assert not leaks(text), (page, leaks(text))
    assert any("[redacted]" in t for t in rendered)  # the pages did show the echoed header, redacted


def test_configs_and_the_cli_take_no_key(keys):
    """A key can only come from the environment: no config field or CLI option carries one."""
    from debate_core.cli.main import build_parser

    cfg = DebateConfig(topic="t", model="openai/x", api_key=OPENAI_KEY)  # type: ignore[call-arg]
    assert not leaks(cfg.model_dump_json())
    options = {a for action in build_parser()._subparsers._group_actions[0].choices.values()  # noqa: SLF001
               for a in (o for act in action._actions for o in act.option_strings)}  # noqa: SLF001
    assert not [o for o in options if "key" in o.lower() or "token" in o.lower() or "secret" in o.lower()]


def test_litellm_is_kept_quiet_and_redacting(keys, capfd):
    """gateway.litellm() sets litellm's verbosity off; what litellm still logs has keys redacted."""
    from debate_core.engines.gateway import LITELLM_LOGGERS, litellm

    lm = litellm()
    assert lm.suppress_debug_info is True and not lm.set_verbose
    for name in LITELLM_LOGGERS:
        log = logging.getLogger(name)
        assert log.getEffectiveLevel() >= logging.ERROR
        log.error("request failed with api_key=%s and %s", OPENAI_KEY, DEEPSEEK_KEY)
    out, err = capfd.readouterr()
    assert not leaks(out + err)


@pytest.mark.parametrize("size", [1, 3, 7, 16, 64])
def test_streamed_tokens_are_redacted_even_when_a_key_is_split(keys, size):
    from debate_core.engines.gateway import _TokenGuard

    text = f"开头。Authorization: Bearer {OPENAI_KEY} 中间 {DEEPSEEK_KEY}{OPENAI_KEY[:10]} 结尾。"
    out: list[str] = []
    guard = _TokenGuard(out.append)
    for i in range(0, len(text), size):
        guard.feed(text[i:i + size])
    guard.flush()
    joined = "".join(out)
    assert joined == text.replace(OPENAI_KEY, "[redacted]").replace(DEEPSEEK_KEY, "[redacted]")
    assert not [n for n in (OPENAI_KEY, DEEPSEEK_KEY) if n in joined]


def test_streaming_without_keys_passes_tokens_through_at_once(monkeypatch):
    from debate_core.engines.gateway import _TokenGuard

    for k in list(__import__("os").environ):
        if k.endswith(("_KEY", "_TOKEN", "_SECRET")):
            monkeypatch.delenv(k)
    out: list[str] = []
    guard = _TokenGuard(out.append)
    guard.feed("a")
    guard.feed("b")
    assert out == ["a", "b"]


def test_a_gateway_error_never_carries_a_key(keys):
    from debate_core.engines.gateway import GatewayError, classify

    assert OPENAI_KEY not in GatewayError(f"bad key {OPENAI_KEY}").cause
    assert DEEPSEEK_KEY not in classify(RuntimeError(f"401: {DEEPSEEK_KEY} invalid"))[2]


def test_prompts_are_blanked_in_litellm_logs_once_anything_receives_them(monkeypatch):
    """litellm blanks prompts and replies in its logging payloads (turn_off_message_logging) by copying
    every payload; the gateway turns that on only once a callback (or the payload printout) would
    receive them, and then a callback sees neither the prompt nor the reply."""
    import time

    from debate_core.engines import gateway as gw_mod
    from debate_core.engines.gateway import Gateway, litellm

    lm = litellm()
    before = (list(lm.success_callback), lm.turn_off_message_logging)
    # an earlier test in the same process may have left a receiver registered (the whole suite ran this
    # after one did): the first call must meet none, so they are set aside here and put back at the end
    monkeypatch.delenv("LITELLM_PRINT_STANDARD_LOGGING_PAYLOAD", raising=False)
    kept = {a: getattr(lm, a) for a in gw_mod._LOG_RECEIVERS if isinstance(getattr(lm, a, None), list)}
    for a, v in kept.items():
        setattr(lm, a, [])
    got: list[tuple[dict, object]] = []
    prompt, reply = "请摘要这段发言：PROMPT-TEXT-7", "REPLY-TEXT-7，一段回答。"
    try:
        with ScriptedServer(lambda body: Reply(text=reply)) as srv:
            gw = Gateway(model="openai/scripted", api_base=srv.url, max_retries=0, timeout=5.0)
            lm.turn_off_message_logging = False
            assert gw.complete([{"role": "user", "content": prompt}]).text == reply
            assert lm.turn_off_message_logging is False  # nothing receives litellm's logs: no copy made
            lm.success_callback.append(lambda kwargs, resp, start, end: got.append((kwargs, resp)))
            assert gw.complete([{"role": "user", "content": prompt}]).text == reply  # the caller's reply is whole
            assert lm.turn_off_message_logging is True
            for _ in range(100):  # litellm calls its callbacks from its logging thread
                if got:
                    break
                time.sleep(0.05)
        assert got, "the callback was never called"
        payload = repr(got[0][0].get("messages")) + repr(got[0][1]) + repr(got[0][0].get("standard_logging_object"))
        assert prompt not in payload and reply not in payload
    finally:
        for a, v in kept.items():
            setattr(lm, a, v)
        lm.success_callback[:] = before[0]
        lm.turn_off_message_logging = before[1]
