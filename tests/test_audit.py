"""Judge audit: swapped presentations, a judge panel, per-debate agreement and batch-level bias."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from debate_core.archive import open_archive
from debate_core.analysis.audit import audit_archive, fleiss_kappa, presented_order, summarize, variant
from debate_core.batch import run_batch, simulated_model
from debate_core.cli.main import main
from debate_core.models import Debate, DebateConfig, Participant, Speech, Verdict
from debate_core.render.judged import debate_log_md
from debate_core.engines.scripted_server import ScriptedServer

FAST = {"backoff": 0.01, "max_backoff": 0.05}
PANEL = ["openai/fair", "openai/first", "openai/label"]
MODES = {"fair": "fair", "first": "first", "label": "label"}


def _topic_debate() -> Debate:
    env = lambda lab, target: {"stance": "", "arguments": [{"id": "A1", "point": f"{lab}的论点", "reasoning": "r",  # noqa: E731
                                                           "evidence": ""}],
                               "rebuttals": [{"target": f"{target} A1", "type": "反驳", "content": f"反驳{target}"}],
                               "no_new_points": False}
    return Debate(
        id="d1", protocol="topic", topic="远程还是坐班", status="completed",
        participants=[Participant(label="辩手甲", name="辩手甲", stance="远程好", model="m1"),
                      Participant(label="辩手乙", name="辩手乙", stance="坐班好", model="m2")],
        config=DebateConfig(protocol="topic", topic="远程还是坐班", judge_model="j"),
        rounds=[Speech(round=1, speaker="辩手甲", speaker_name="辩手甲", role="opening", envelope=env("辩手甲", "辩手乙")),
                Speech(round=1, speaker="辩手乙", speaker_name="辩手乙", role="opening", envelope=env("辩手乙", "辩手甲"))],
        verdict=Verdict(winner="辩手甲", judge="j"))


def test_relabel_and_reorder_variants():
    d = _topic_debate()
    relabeled, back = variant(d, "relabel")
    assert [(p.label, p.stance) for p in relabeled.participants] == [("辩手乙", "远程好"), ("辩手甲", "坐班好")]
    assert back == {"辩手乙": "辩手甲", "辩手甲": "辩手乙"}
    first = relabeled.rounds[0]
    assert first.speaker == "辩手乙" and first.envelope["arguments"][0]["point"] == "辩手乙的论点"
    assert first.envelope["rebuttals"][0]["target"] == "辩手甲 A1"  # the rebuttal follows its target
    log = debate_log_md(relabeled, for_judge=True)
    assert log.index("### 辩手乙（远程好）") < log.index("### 辩手甲（坐班好）")
    assert d.participants[0].label == "辩手甲"  # the original is untouched

    reordered, back = variant(d, "reorder")
    assert presented_order(reordered) == ["辩手乙", "辩手甲"] and back == {"辩手甲": "辩手甲", "辩手乙": "辩手乙"}
    assert [s.speaker for s in reordered.rounds] == ["辩手乙", "辩手甲"]
    trial = d.model_copy(update={"protocol": "trial"})
    with pytest.raises(ValueError, match="relabel applies to topic debates"):
        variant(trial, "relabel")


def test_fleiss_kappa_known_values():
    assert fleiss_kappa([["a", "a"], ["b", "b"], ["a", "a"]]) == pytest.approx(1.0)
    assert fleiss_kappa([["a", "b"], ["b", "a"]]) == pytest.approx(-1.0)
    assert fleiss_kappa([]) is None


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    """A topic batch (two models, both label orders) and a trial batch, with a server that plays
    three judges: fair, position-biased ("first") and label-biased ("label")."""
    archive = open_archive(tmp_path_factory.mktemp("audit") / "archive.duckdb")
    sim = simulated_model({"strong": 3.0, "weak": 1.0}, judges={"fair": "fair", "first": "first", "label": "label"})
    server = ScriptedServer(sim).start()
    base = {"models": [["openai/strong", "openai/weak"]], "swap": True, "judge_models": ["openai/fair"],
            "api_base": server.url, "gateway": FAST, "repeats": 2}
    run_batch({**base, "batch_id": "topics", "protocol": "topic", "topics": ["远程办公还是坐班？", "猫还是狗？"],
               "stances": ["A好", "B好"]}, archive)
    run_batch({**base, "batch_id": "trials", "protocol": "trial", "topics": ["应该禁止燃油车"], "rounds": 1}, archive)
    yield archive, server
    server.stop()


def _judge_calls(server) -> int:
    return sum(1 for r in server.requests if "裁判" in r["messages"][0]["content"])


def test_panel_audit_measures_position_and_label_bias(judged):
    archive, server = judged
    before = _judge_calls(server)
    report = audit_archive(archive, batch_id="topics", judges=PANEL, concurrency=8, gateway_options=FAST)
    j = report.judgments
    assert len(j) == 8 * 3 * 3 and (j["error"] == "").all() and j["winner"].notna().all()
    # the fair judge's own verdicts are reused: 8 debates × (3 judges × 3 variants - 1 stored)
    assert _judge_calls(server) - before == 8 * 8 and j["stored"].sum() == 8

    def by(judge):
        return summarize(j[j["judge"] == judge])[1]

    fair, first, label = by("openai/fair"), by("openai/first"), by("openai/label")
    assert fair["position_bias"] == 0 and fair["label_bias"] == 0 and fair["swap_consistency"] == 1.0
    assert first["position_bias"] == 0.5 and first["label_bias"] == 0 and first["swap_consistency"] == 0.5
    assert label["label_bias"] == 0.5 and label["position_bias"] == 0 and label["swap_consistency"] == 0.5
    # every fair judgment names the strong model's debater
    strong = {d: archive.get_debate(d).participant("辩手甲").model == "openai/strong" for d in j["debate_id"].unique()}
    fair_rows = j[j["judge"] == "openai/fair"]
    assert all((w == "辩手甲") == strong[d] for d, w in zip(fair_rows["debate_id"], fair_rows["winner"]))

    # the audit is stored: its judgments as reported, and every judge call with its prompt and reply
    stored = archive.audits().set_index("audit_id").loc[report.audit_id]
    assert stored["batch_id"] == "topics" and stored["judgments"] == len(j) and stored["calls"] == 8 * 8
    assert list(stored["judges"]) == PANEL
    back = archive.audit_judgments(report.audit_id)
    mine = j.sort_values(["debate_id", "judge", "variant"]).reset_index(drop=True)
    assert list(back["winner"]) == list(mine["winner"]) and list(back["variant"]) == list(mine["variant"])
    calls = archive.query("SELECT judge, variant, purpose, messages, response, prompt_tokens FROM audit_calls "
                          "WHERE audit_id = ?", [report.audit_id])
    assert len(calls) == 8 * 8 and (calls["prompt_tokens"] > 0).all() and calls["response"].str.len().min() > 0
    assert all("裁判" in json.loads(m)[0]["content"] for m in calls["messages"])
    assert stored["prompt_tokens"] == calls["prompt_tokens"].sum() == j["prompt_tokens"].sum()
    assert f"audit `{report.audit_id}`" in report.to_markdown()

    s, per = report.summary, report.per_debate
    assert s["debates"] == 8 and s["position_bias"] > 0 and s["label_bias"] > 0
    # on the original presentation the biased judges pick 辩手甲; the panel is unanimous exactly when
    # the strong model sits at 辩手甲 (half of the debates, by the swap)
    assert s["panel_agreement_rate"] == 0.5
    assert per.set_index("debate_id")["panel_unanimous"].to_dict() == strong
    assert "position bias" in report.to_markdown()


def test_trial_audit_reorders_and_reuses_the_stored_verdict(judged):
    archive, server = judged
    before = _judge_calls(server)
    report = audit_archive(archive, batch_id="trials", judges=["openai/fair", "openai/first"], gateway_options=FAST)
    j = report.judgments
    assert set(j["variant"]) == {"original", "reorder"}  # no relabel for a trial
    assert _judge_calls(server) - before == 4 * 3 and len(j) == 4 * 4
    reo = j[(j["variant"] == "reorder")]
    assert set(reo["first"]) == {"con"}
    first = summarize(j[j["judge"] == "openai/first"])[1]
    assert first["first_position_win_rate"] == 1.0 and first["swap_consistency"] == 0.0
    fair = summarize(j[j["judge"] == "openai/fair"])[1]
    assert fair["swap_consistency"] == 1.0 and fair["label_bias"] == 0.0  # strong model on each side once


def test_audit_cli_json(judged, capsys):
    archive, server = judged
    rc = main(["audit", "--archive", str(archive.path), "--batch", "topics", "--judges", "openai/fair,openai/first",
               "--variants", "original,reorder", "--format", "json", "--api-base", server.url])
    assert rc == 0
    out = capsys.readouterr()
    data = json.loads(out.out)
    assert data["summary"]["debates"] == 8 and len(data["per_debate"]) == 8
    assert f"audit {data['audit_id']} stored" in out.err and data["audit_id"] in set(archive.audits()["audit_id"])
    assert data["summary"]["judges"] == ["openai/fair", "openai/first"]


def test_summarize_handles_undecided_and_empty():
    per, s = summarize(pd.DataFrame(columns=["debate_id"]))
    assert per.empty and s["judgments"] == 0
    rows = pd.DataFrame([
        {"debate_id": "x", "protocol": "topic", "judge": "a", "variant": "original", "winner": "辩手甲",
         "shown": "辩手甲", "position": 0, "n": 2, "error": ""},
        {"debate_id": "x", "protocol": "topic", "judge": "b", "variant": "original", "winner": None, "shown": None,
         "position": None, "n": 2, "error": "judge failed"},
    ])
    per, s = summarize(rows)
    assert s["decided"] == 1 and s["errors"] == 1 and per.iloc[0]["agreement"] == 1.0


def test_a_batch_with_audit_true_reports_the_audit(judged):
    archive, server = judged
    result = run_batch({"batch_id": "audited", "protocol": "topic", "topics": ["茶还是咖啡？"], "stances": ["茶", "咖啡"],
                        "models": [["openai/strong", "openai/weak"]], "swap": True, "api_base": server.url,
                        "judge_models": ["openai/fair", "openai/first"], "audit": True, "gateway": FAST}, archive)
    assert result.ok and result.audit is not None
    s = result.audit.summary
    assert s["debates"] == 2 and s["judges"] == ["openai/fair", "openai/first"] and s["judgments"] == 2 * 2 * 3
    assert "## judge audit" in result.to_markdown()
    assert archive.audits().set_index("audit_id").loc[result.audit.audit_id, "batch_id"] == "audited"
