"""The optional model-graded check layer, through a real OpenAI-compatible server on loopback."""

from __future__ import annotations

import json

import pytest

from debate_core.api import start_debate
from debate_core.archive import Archive
from debate_core.engines.check_model import AUDITED_RULES, parse_audit
from debate_core.models import DebateConfig

from .conftest import run_cli

TOPIC = "禅净之争"


def _audit_reply(failing: tuple[str, ...] = ()) -> str:
    body = {r: {"passed": r not in failing, "message": "发言中判定某宗更为究竟" if r in failing else "合规"}
            for r in AUDITED_RULES}
    return "审核结果如下：\n```json\n" + json.dumps(body, ensure_ascii=False) + "\n```"


def _is_audit(body: dict) -> bool:
    return "审核员" in body["messages"][0]["content"]


def test_audit_findings_sit_beside_the_rules_and_are_archived(tmp_path, scripted):
    scripted.script = lambda body: _audit_reply() if _is_audit(body) else "不该有别的请求。"
    archive = Archive(tmp_path / "a.duckdb")
    runner, debate = start_debate(DebateConfig(topic=TOPIC, check_model="openai/auditor",
                                               api_base=scripted.url, rounds=2), archive)
    debate = runner.run(debate)
    stored = Archive(tmp_path / "a.duckdb").get_debate(debate.id)
    assert stored.status == "completed"
    audits = [r for r in scripted.requests if _is_audit(r)]
    assert len(audits) == 2  # one audit per speech, no other traffic: the offline engine wrote the speeches
    for speech in stored.rounds:
        layers = {f.layer for f in speech.findings}
        assert layers == {"rules", "model"}
        model_rules = [f.rule for f in speech.findings if f.layer == "model"]
        assert model_rules == list(AUDITED_RULES)
    check_calls = [c for c in stored.llm_calls if c.purpose == "check"]
    assert len(check_calls) == 2 and all(c.model == "openai/auditor" for c in check_calls)
    # the audited speech travels as quoted data, and the reply is stored with the call
    assert json.dumps(stored.rounds[0].text, ensure_ascii=False) in check_calls[0].messages[1]["content"]
    assert "no_verdict" in check_calls[0].response


def test_a_failing_audit_flags_the_speech_and_retries_it(tmp_path, scripted):
    scripted.script = lambda body: _audit_reply(("no_verdict",)) if _is_audit(body) else "?"
    runner, debate = start_debate(DebateConfig(topic=TOPIC, check_model="openai/auditor", api_base=scripted.url,
                                               rounds=2, check_retries=1))
    speech = runner.speak(debate, 1)
    assert speech.status == "flagged" and speech.retries == 1
    failed = [f for f in speech.findings if not f.passed]
    assert [(f.rule, f.layer) for f in failed] == [("no_verdict", "model")]
    assert len([r for r in scripted.requests if _is_audit(r)]) == 2


def test_an_unparseable_audit_is_undecided_never_a_pass(scripted):
    scripted.script = lambda body: "我觉得都挺好。"
    runner, debate = start_debate(DebateConfig(topic=TOPIC, check_model="openai/auditor", api_base=scripted.url,
                                               rounds=2, check_retries=0))
    speech = runner.speak(debate, 1)
    model = [f for f in speech.findings if f.layer == "model"]
    assert len(model) == 1 and model[0].undecided and not model[0].passed
    assert speech.status == "flagged"


def test_parse_audit_marks_unanswered_rules_undecided():
    found = parse_audit(json.dumps({"length": {"passed": True}, "no_verdict": False}))
    by_rule = {f.rule: f for f in found}
    assert by_rule["length"].passed and not by_rule["length"].undecided
    assert not by_rule["no_verdict"].passed and not by_rule["no_verdict"].undecided
    assert by_rule["hygiene"].undecided and not by_rule["hygiene"].passed


def test_cli_check_model_and_its_refusal_outside_master_debates(scripted):
    scripted.script = lambda body: _audit_reply() if _is_audit(body) else "?"
    r = run_cli("debate", TOPIC, "--rounds", "2", "--check-model", "openai/auditor", "--api-base", scripted.url,
                "--format", "json", "--quiet")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert all(any(f["layer"] == "model" for f in s["findings"]) for s in d["rounds"])
    r = run_cli("debate", "远程办公还是坐班", "--protocol", "topic", "--check-model", "openai/auditor",
                "--api-base", scripted.url)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines()[-1].endswith("check_model applies to master debates only, not to the topic protocol")


@pytest.mark.parametrize("cause", ["timed out waiting for the model after 4 attempts", "rate limited (429): slow down"])
def test_failure_causes_read_in_chinese(cause):
    from debate_core.engines.gateway import cause_in

    text = cause_in("zh", cause)
    assert text and not any("a" <= ch.lower() <= "z" for ch in text)


@pytest.mark.parametrize("cause", ["timed out waiting for the model after 4 attempts", "rate limited (429): slow down",
                                   "server error (503): upstream down after 2 attempts", "KeyError: boom",
                                   "the model returned an empty completion"])
def test_a_failure_cause_reads_back_into_its_code(cause):
    """What a debate stores (the Chinese words, with a summary's 摘要： in front or not) reads back into the
    cause's code and values, which an app says in its own language; words that are no cause read as None."""
    from debate_core.engines.gateway import CAUSES, cause_detail, cause_in, read_cause

    detail = cause_detail(cause)
    assert detail["kind"] in {c for c, _en, _zh in CAUSES} | {"failed"}
    assert read_cause(cause_in("zh", cause)) == detail  # the stored Chinese words
    assert read_cause(cause) == (detail if detail["kind"] != "failed" else None)  # the gateway's own English
    assert read_cause("意外的说法") is None and read_cause("") is None
    f = parse_audit("不是 JSON")[0]
    assert f.details[0].code == "audit.not_json" and f.message.startswith("无法判定")
