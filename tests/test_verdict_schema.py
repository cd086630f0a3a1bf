"""Issue 24, items 3 and 4: verdicts read against a schema (pydantic models, structured output, synonyms),
repaired once with the gap named, stored complete or incomplete and shown so; the winner line once;
topic debates to the seed (round-1 and self rebuttals, the wrap-up's files, the all-empty story).

End to end through litellm against the scripted OpenAI-compatible server on 127.0.0.1 (no mocks)."""

from __future__ import annotations

import json
import re

import pytest

from debate_core import runs
from debate_core.archive import open_archive
from debate_core.engines.judging import fit_verdict, structured_output, verdict_gaps
from debate_core.engines.scripted_server import ScriptedServer
from debate_core.engines.verdicts import (RowOut, TopicVerdictOut, TrialVerdictOut, parse_trial_markdown,
                                          parse_verdict, response_schema)
from debate_core.models import Debate, DebateConfig, Participant, RoundComment, Verdict, VerdictRow
from debate_core.protocols.registry import render as render_markdown
from debate_core.protocols.trial import open_trial, trial_round, trial_verdict
from debate_core.recorder import Recorder
from debate_core.render.judged import debate_log_md, incomplete_line, render_trial, verdict_md, wrap_up_md

from tests.test_lang_judged import Script as LangScript
from tests.test_topic import Script as TopicScript, judge_json
from tests.test_trial import Script as TrialScript

FAST = {"backoff": 0.01}
ZH_LABELS = ["辩手甲", "辩手乙"]


def topic_config(srv, **kw) -> DebateConfig:
    base = dict(protocol="topic", topic="远程办公还是坐班？", models=["openai/m-one", "openai/m-two"],
                api_base=srv.url, timeout=5, max_retries=1, stances=["远程办公更好", "坐班更好"])
    base.update(kw)
    return DebateConfig(**base)


def run_topic(srv, recorder=None, **kw) -> Debate:
    runner, debate = runs.start(topic_config(srv, **kw), recorder or Recorder(), probe=False, gateway_options=FAST)
    return runner.run(debate)


def judge_requests(srv, marker: str = "独立裁判") -> list[dict]:
    return [r for r in srv.requests if marker in r["messages"][0]["content"]]


def without_row(label: str, winner: str = "辩手乙", **extra) -> str:
    data = json.loads(judge_json(winner, ZH_LABELS))
    data["rows"] = [r for r in data["rows"] if r["label"] != label]
    data.update(extra)
    return json.dumps(data, ensure_ascii=False)


# ------------------------------------------------------------ topic: the judge's gaps


def test_a_judge_that_omits_a_debater_is_asked_once_naming_it_then_stored_incomplete_and_shown_so(tmp_path):
    arc = open_archive(tmp_path / "a.duckdb")
    with ScriptedServer(TopicScript(judge=lambda a, b: without_row("辩手甲"))) as srv:
        d = run_topic(srv, arc)
        judged = judge_requests(srv)
    assert len(judged) == 2  # the verdict, then one repair: never more
    repair = judged[1]["messages"][-1]["content"]
    assert repair.startswith("上一条裁决不完整，缺：辩手甲的逐方点评。") and "辩手甲、辩手乙" in repair
    assert judged[1]["messages"][-2] == {"role": "assistant", "content": without_row("辩手甲")}
    v = d.verdict
    assert d.status == "completed" and v.parsed and v.winner == "辩手乙"
    assert v.complete is False and v.missing == ["row:辩手甲"]  # never parsed-and-complete
    # shown so: the verdict, its table, the wrap-up and the app
    md = render_markdown(d)
    assert "> ⚠️ 判决不完整：缺辩手甲的逐方点评" in md
    assert "| 辩手甲 | 坐班更好 | （裁判未点评） | — | — |" in md
    assert "（判决不完整：缺辩手甲的逐方点评）" in wrap_up_md(d)
    from webapp.views import outcome_view

    # the app says it in the reader's language (English by default here), the library's words either way
    assert outcome_view(d).incomplete == incomplete_line(d, "en") == "Verdict incomplete: missing 辩手甲's row"
    # stored so, and read back so
    back = arc.get_debate(d.id)
    assert back.verdict.complete is False and back.verdict.missing == ["row:辩手甲"]
    assert incomplete_line(back) == "判决不完整：缺辩手甲的逐方点评"


def test_a_repair_that_sends_the_missing_row_completes_the_verdict():
    def judge(attempt, body):
        if attempt == 1:
            return without_row("辩手乙", winner="辩手甲")
        # the repair sends only what was missing: it fills the first verdict's gap
        return json.dumps({"rows": [{"label": "乙", "strongest": "省通勤", "weakness": "协作难", "score": "6/10"}]},
                          ensure_ascii=False)

    with ScriptedServer(TopicScript(judge=judge)) as srv:
        d = run_topic(srv)
    v = d.verdict
    assert v.complete is True and v.missing == [] and v.winner == "辩手甲"
    assert [(r.label, r.stance, r.score) for r in v.rows] == [("辩手甲", "坐班更好", 8.0),
                                                             ("辩手乙", "远程办公更好", 6.0)]
    assert "判决不完整" not in render_markdown(d)
    assert v.raw.count("\n\n---\n\n") == 1  # both answers kept: the first and the repair it was completed from


def test_a_judge_writing_reasoning_and_a_placeholder_stance_is_read_complete_without_a_repair():
    def judge(attempt, body):
        return json.dumps({"winner": "辩手乙", "summary": "证据更硬",
                           "reasoning": {"argument_strength": "乙的数据更扎实", "clash": "甲没有回应通勤成本"},
                           "table": {"辩手甲": {"stance": "甲方立场", "strongest_argument": "协作",
                                               "weakness": "无数据", "score": 5},
                                     "辩手乙": {"stance": "乙方立场", "strongest": "通勤", "fatal_weakness": "孤独",
                                               "rating": "8.5"}}}, ensure_ascii=False)

    with ScriptedServer(TopicScript(judge=judge)) as srv:
        d = run_topic(srv)
        assert len(judge_requests(srv)) == 1
    v = d.verdict
    assert v.complete is True and v.reasons == {"论点强度": "乙的数据更扎实", "攻防表现": "甲没有回应通勤成本"}
    # the stance column is the stance the debate assigned, not the judge's placeholder
    assert [(r.label, r.stance, r.strongest, r.score) for r in v.rows] == [
        ("辩手甲", "坐班更好", "协作", 5.0), ("辩手乙", "远程办公更好", "通勤", 8.5)]
    assert "甲方立场" not in render_markdown(d)


def test_a_verdict_with_no_reasons_after_the_repair_is_stored_incomplete():
    rows = json.loads(judge_json("辩手甲", ZH_LABELS))["rows"]
    no_reasons = json.dumps({"winner": "辩手甲", "summary": "甲胜", "rows": rows}, ensure_ascii=False)
    with ScriptedServer(TopicScript(judge=lambda a, b: no_reasons)) as srv:
        d = run_topic(srv)
        repair = judge_requests(srv)[1]["messages"][-1]["content"]
    assert "缺：判词" in repair
    assert d.verdict.complete is False and d.verdict.missing == ["reasons"]
    assert "> ⚠️ 判决不完整：缺判词" in verdict_md(d) and "（裁判未写判词）" in verdict_md(d)


def test_the_judge_is_asked_for_the_schema_and_a_server_refusing_it_gets_text():
    with ScriptedServer(TopicScript()) as srv:
        d = run_topic(srv)
        formats = [r.get("response_format") for r in judge_requests(srv)]
        others = [f for r, f in zip(srv.requests, srv.response_formats(), strict=True)
                  if "独立裁判" not in r["messages"][0]["content"]]
    assert d.verdict.complete is True and all(f is None for f in others)  # debaters are not asked for it
    [fmt] = formats
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "topic_verdict"
    schema = fmt["json_schema"]["schema"]
    assert schema["properties"]["winner"]["enum"] == ZH_LABELS and schema["properties"]["rows"]["minItems"] == 2
    assert set(schema["properties"]["reasons"]["required"]) == {"论点强度", "攻防表现", "逻辑硬伤"}
    assert set(schema["required"]) == {"winner", "summary", "reasons", "rows"}
    # a server without structured output: one refused call (recorded), then the same request as text
    with ScriptedServer(TopicScript(), response_format="refuse") as srv:
        d = run_topic(srv)
        formats = [r.get("response_format") is not None for r in judge_requests(srv)]
    assert formats == [True, False] and d.verdict.parsed and d.verdict.complete is True
    verdict_calls = [c for c in d.llm_calls if c.purpose == "verdict"]
    assert len(verdict_calls) == 2 and "400" in verdict_calls[0].error and not verdict_calls[1].error


def test_structured_output_only_where_the_provider_has_it():
    from debate_core.engines.gateway import make_gateway

    schema = response_schema(labels=ZH_LABELS)
    served = make_gateway("openai/anything", api_base="http://127.0.0.1:9/v1", check=False)
    assert structured_output(served, schema, "v")["json_schema"]["schema"] is schema
    assert structured_output(make_gateway("openai/gpt-4o", check=False), schema, "v") is not None
    assert structured_output(make_gateway("local/gemma-3-270m", check=False), schema, "v") is None
    # another provider's protocol at a custom address: text only
    assert structured_output(make_gateway("anthropic/claude-sonnet-4-5", api_base="http://127.0.0.1:9", check=False),
                             schema, "v") is None


# ------------------------------------------------------------------- the winner line


def test_the_winner_line_is_written_once():
    summary = "辩手乙（远程办公更好）胜出——辩手乙胜出——通勤成本没有被回应"
    with ScriptedServer(TopicScript(judge=lambda a, b: json.dumps(
            {**json.loads(judge_json("辩手乙", ZH_LABELS)), "summary": summary}, ensure_ascii=False))) as srv:
        d = run_topic(srv)
    md = render_markdown(d)
    assert "**辩手乙（远程办公更好）胜出**——通勤成本没有被回应" in md
    assert "- **判赢**：辩手乙（远程办公更好）胜出——通勤成本没有被回应" in md
    assert md.count("胜出") == 2  # the verdict's line and the wrap-up's, once each
    from webapp.views import outcome_view

    assert outcome_view(d).summary == "通勤成本没有被回应"
    # a summary that does not restate the winner is kept whole; an English one too
    d.verdict.summary = "辩手乙的论证更完整"
    assert "胜出——辩手乙的论证更完整" in wrap_up_md(d)
    en = d.model_copy(update={"lang": "en", "participants": [Participant(label="Debater A", stance="Office"),
                                                              Participant(label="Debater B", stance="Remote")]})
    en.verdict = Verdict(winner="Debater B", summary="**Winner:** Debater B — Debater B wins — commuting costs")
    assert "- **Winner**: Debater B (\"Remote\") wins — commuting costs" in wrap_up_md(en)


# --------------------------------------------------------------------------- trials


def trial_cfg(srv, **kw) -> DebateConfig:
    base = dict(protocol="trial", topic="我们应该把 REST API 换成 gRPC", models=["openai/pro-m", "openai/con-m"],
                api_base=srv.url, rounds=2, timeout=5, max_retries=1)
    base.update(kw)
    return DebateConfig(**base)


def run_trial(srv, recorder=None, **kw) -> Debate:
    runner, d = runs.start(trial_cfg(srv, **kw), recorder or Recorder(), probe=False, gateway_options=FAST)
    return runner.run(d)


def test_a_trial_judge_that_skips_a_round_is_asked_once_then_stored_incomplete(tmp_path):
    one_round = json.dumps({"per_round": [{"round": 1, "comment": "正方立得稳"}], "winner": "con",
                            "summary": "反方更有说服力", "reasons": "反方的证据更具体"}, ensure_ascii=False)
    arc = open_archive(tmp_path / "t.duckdb")
    with ScriptedServer(TrialScript(judge=lambda n, b: one_round)) as srv:
        d = run_trial(srv, arc)
        judged = judge_requests(srv, "庭审式辩论的裁判")
    assert len(judged) == 2 and judged[1]["messages"][-1]["content"].startswith("上一条裁决不完整，缺：第 2 轮的点评。")
    v = d.verdict
    assert v.parsed and v.winner == "con" and v.complete is False and v.missing == ["round:2"]
    md = render_markdown(d)
    assert "> ⚠️ 判决不完整：缺第 2 轮的点评" in md
    assert "- **第 1 轮**：正方立得稳\n- **第 2 轮**：（裁判未点评这一轮）" in md
    assert arc.get_debate(d.id).verdict.missing == ["round:2"]
    fmt = judged[0]["response_format"]
    assert fmt["json_schema"]["name"] == "trial_verdict"
    assert fmt["json_schema"]["schema"]["properties"]["winner"]["enum"] == ["pro", "con", "draw"]


def test_a_trial_judge_writing_reasoning_and_commentary_is_read_complete():
    answer = json.dumps({"commentary": [{"round": 1, "commentary": "正方开局好"},
                                        {"round": "第2轮", "comments": "反方反击"}],
                         "winner": "反方", "reasoning": "第二轮的证据决定胜负"}, ensure_ascii=False)
    with ScriptedServer(TrialScript(judge=lambda n, b: answer)) as srv:
        d = run_trial(srv)
        assert len(judge_requests(srv, "庭审式辩论的裁判")) == 1
    v = d.verdict
    assert v.complete is True and v.winner == "con" and v.reasons == {"判词": "第二轮的证据决定胜负"}
    assert [(c.round, c.comment) for c in v.per_round] == [(1, "正方开局好"), (2, "反方反击")]
    md = render_markdown(d)
    assert "**裁决：反方胜**" in md and "**判词**：第二轮的证据决定胜负" in md


def test_a_trial_verdict_without_reasons_is_no_longer_parsed_and_complete():
    no_reasons = json.dumps({"per_round": [{"round": 1, "comment": "a"}, {"round": 2, "comment": "b"}],
                             "winner": "con", "reasoning": ""})
    with ScriptedServer(TrialScript(judge=lambda n, b: no_reasons if n == 1 else json.dumps(
            {"reasons": "反方的数据更具体"}, ensure_ascii=False))) as srv:
        d = run_trial(srv)
    # the repair named the reasons, and sent only them: they fill the first verdict's gap
    assert d.verdict.complete is True and d.verdict.reasons == {"判词": "反方的数据更具体"}
    with ScriptedServer(TrialScript(judge=lambda n, b: no_reasons)) as srv:
        d = run_trial(srv)
    assert d.verdict.complete is False and d.verdict.missing == ["reasons"]
    assert "判决不完整：缺判词" in render_markdown(d)


def test_an_english_trial_says_verdict_incomplete():
    one = json.dumps({"per_round": [{"round": 1, "comment": "Pro was sharper."}], "winner": "pro",
                      "reasons": "Pro cited the workspace"})
    with ScriptedServer(LangScript(trial_judge=lambda n, b: one)) as srv:
        d = open_trial(trial_cfg(srv, topic="We should replace REST with gRPC", lang="en"), probe=False)
        for _ in range(2):
            trial_round(d, gateway_options=FAST)
        d = trial_verdict(d, gateway_options=FAST)
        repair = srv.requests[-1]["messages"][-1]["content"]
    assert repair.startswith("The previous verdict is incomplete: it lacks the comment on round 2.")
    assert d.verdict.missing == ["round:2"]
    md = render_trial(d)
    assert "> ⚠️ Verdict incomplete: missing the comment on round 2" in md
    assert "- **Round 2**: (the judge did not comment on this round)" in md


# ------------------------------------------------------------ topic: rebuttals, the seed


def test_round_one_rebuttals_are_dropped_and_a_debater_rebutting_itself_is_refused():
    def debater(label, r, attempt, body):
        other = "辩手乙" if label == "辩手甲" else "辩手甲"
        data = {"stance": "x", "no_new_points": r >= 2,
                "arguments": [{"id": f"A{r}", "point": f"{label}第{r}轮论点", "reasoning": "r"}] if r == 1 else [],
                "rebuttals": [{"target": f"{other} A1", "content": f"{label}驳{other}"},
                              {"target": f"{label} A1", "content": f"{label}驳自己"}]}
        return json.dumps(data, ensure_ascii=False)

    with ScriptedServer(TopicScript(debater=debater)) as srv:
        d = run_topic(srv)
    r1 = [s for s in d.rounds if s.round == 1]
    assert all(s.envelope["rebuttals"] == [] for s in r1)
    assert all(s.warnings == ["第 1 轮是盲立论，看不到其他辩手：丢弃了 2 条反驳"] for s in r1)
    r2 = {s.speaker: s for s in d.rounds if s.round == 2}
    assert [x["content"] for x in r2["辩手甲"].envelope["rebuttals"]] == ["辩手甲驳辩手乙"]
    assert r2["辩手甲"].warnings == ["丢弃了 1 条针对自己论点的反驳（辩手甲 A1）"]
    # the judge never reads what was dropped; the log says what was
    judge_log = debate_log_md(d, for_judge=True)
    assert "驳自己" not in judge_log and "辩手甲驳辩手乙" in judge_log
    assert "> 注：丢弃了 1 条针对自己论点的反驳（辩手甲 A1）" in debate_log_md(d)


def test_self_rebuttals_are_recognised_in_either_language():
    from debate_core.engines.envelopes import parse_envelope
    from debate_core.protocols.topic import drop_rebuttals, target_seats

    assert target_seats("辩手乙 A2") == {1} and target_seats("Debater B's A2") == {1}
    assert target_seats("A2") == set() and target_seats("辩手甲 A1 与辩手乙 A2") == {0, 1}
    env = parse_envelope(json.dumps({"rebuttals": [{"target": "Debater A A1", "content": "me"},
                                                   {"target": "Debater B A1", "content": "them"},
                                                   {"target": "A3", "content": "unnamed"}]}), "en")
    notes = drop_rebuttals(env, "Debater A", 2, "en")
    assert [r.content for r in env.rebuttals] == ["them", "unnamed"]
    assert notes == ["1 rebuttal(s) aimed at the debater's own points dropped (Debater A A1)"]


def test_the_wrap_up_names_an_exports_files_or_the_command_that_writes_them(tmp_path):
    from debate_core.io.exporters import write_debate_dir

    with ScriptedServer(TopicScript()) as srv:
        d = run_topic(srv)
    plain = wrap_up_md(d)
    assert "debate-log.md 里" not in plain and "debate-log.md`" not in plain  # no file that does not exist
    assert f"`python -m debate_core export {d.id} --format md --out {d.id}.md`" in plain
    folder = write_debate_dir(d, tmp_path)
    w = wrap_up_md(d, export=str(folder))
    named = re.findall(r"`([^`]*\.md)`", w)
    assert named == [str(folder / "debate-log.md"), str(folder / "verdict.md"), str(folder / "debate-log.md")]
    assert all((folder / name).is_file() for name in named)  # every file the wrap-up names exists
    assert f"记在 `{folder / 'debate-log.md'}` 里" in w


def test_an_english_all_empty_debate_is_one_story():
    with ScriptedServer(LangScript(debater=lambda label, r, a, b: "nothing")) as srv:
        d = run_topic(srv, topic="Remote work or the office?", lang="en", stances=["Remote", "Office"])
    assert d.status == "failed" and d.verdict is None
    assert d.stop_reason == ("No debate: in the 1 round(s) played, no debater made any argument or rebuttal "
                             "(Debater A, Debater B: neither reply was a valid envelope (the reply holds no JSON "
                             "object); recorded as empty), so the judge was not asked. Check the model configuration "
                             "and resume: the debate starts again from the openings")
    md = render_markdown(d)
    assert "the judge rules on" not in md and "Judge's verdict" not in md
    assert md.count("the reply holds no JSON object") == 1
    assert "- **Winner**: no debate, the judge was not asked" in md
    assert md.rstrip().endswith("what was recorded can be written to a file with the command on the Artifacts line.")


# ------------------------------------------------------------------- unit: the schema


def test_the_schema_models_take_synonyms_and_drifted_shapes():
    ctx = {"labels": ZH_LABELS, "lang": "zh"}
    out = TopicVerdictOut.model_validate({"胜方": "乙", "reason": ["甲没回应", "乙有数据"], "conclusion": "乙胜",
                                          "scores": {"辩手甲": 6, "Debater B": {"score": "8.5/10"}}}, context=ctx)
    assert out.winner == "辩手乙" and out.summary == "乙胜"
    assert out.reasons == {"判词": "- 甲没回应\n- 乙有数据"}
    assert [(r.label, r.score) for r in out.rows] == [("辩手甲", 6.0), ("辩手乙", 8.5)]
    assert TopicVerdictOut.model_validate({"winner": "辩手丙"}, context=ctx).winner is None  # not a debater here
    assert RowOut.model_validate({"debater": "辩手甲", "score": 42}).score is None  # out of 0-10
    trial = TrialVerdictOut.model_validate({"rounds": {"1": "好", "第2轮": {"pro": "强", "con": "弱"}},
                                            "winner": "The Pro side", "justification": "论据"})
    assert trial.winner == "pro" and trial.reasons == {"判词": "论据"}
    assert [(c.round, c.comment) for c in trial.per_round] == [(1, "好"), (2, "pro：强；con：弱")]
    schema = response_schema(trial=True)
    assert schema["properties"]["reasons"] == {"type": "string"} and "note" not in schema["properties"]


def test_gaps_and_fit():
    v = Verdict(winner="辩手甲", reasons={"判词": " "},
                rows=[VerdictRow(label="辩手甲", score=7), VerdictRow(label="辩手丙", score=3),
                      VerdictRow(label="辩手乙")])
    assert verdict_gaps(v, labels=ZH_LABELS) == ["row:辩手乙", "reasons"]  # a row with nothing in it is no row
    fit = fit_verdict(v, stances={"辩手甲": "远程", "辩手乙": "坐班"})
    assert [(r.label, r.stance) for r in fit.rows] == [("辩手甲", "远程"), ("辩手乙", "坐班")]
    t = Verdict(winner="pro", reasons={"判词": "x"},
                per_round=[RoundComment(round=3, comment="c"), RoundComment(round=1, comment="a")])
    assert verdict_gaps(fit_verdict(t, rounds=2), rounds=2) == ["round:2"]
    assert verdict_gaps(Verdict(winner=None, parsed=False)) == ["winner"]


def test_the_trial_markdown_we_render_reads_back():
    d = Debate(id="t", protocol="trial", topic="x", status="completed",
               participants=[Participant(label="pro"), Participant(label="con")],
               config=DebateConfig(protocol="trial", topic="x"),
               verdict=Verdict(winner="con", summary="反方更好", reasons={"判词": "证据具体"},
                               per_round=[RoundComment(round=1, comment="甲"), RoundComment(round=2, comment="乙")]))
    back = parse_trial_markdown(render_trial(d))
    assert back.parsed and back.winner == "con" and back.reasons == {"判词": "证据具体"}
    assert [(c.round, c.comment) for c in back.per_round] == [(1, "甲"), (2, "乙")]
    assert parse_verdict("**Winner:** Con\n\n- **Round 1**: even\n\n**Reasoning**: the data", trial=True,
                         lang="en").reasons == {"Reasons": "the data"}


@pytest.mark.parametrize("complete,missing,shown", [
    (True, [], ""), (None, [], ""), (False, ["row:辩手乙", "reasons"], "判决不完整：缺辩手乙的逐方点评、判词")])
def test_only_a_checked_verdict_with_gaps_is_shown_incomplete(complete, missing, shown):
    d = Debate(id="x", protocol="topic", topic="t", status="completed",
               config=DebateConfig(protocol="topic", topic="t"),
               participants=[Participant(label="辩手甲", stance="a"), Participant(label="辩手乙", stance="b")],
               verdict=Verdict(winner="辩手甲", reasons={"判词": "r"}, complete=complete, missing=missing))
    assert incomplete_line(d) == shown
    assert ("判决不完整" in verdict_md(d)) == bool(shown)


def test_the_repair_requests_speak_the_debates_language():
    from debate_core.engines import judged_prompts
    from debate_core.lang import has_cjk
    from tests.test_lang_judged import english_words

    zh, en = judged_prompts.for_lang("zh"), judged_prompts.for_lang("en")
    for ask in (zh.judge_repair_messages([], "", ZH_LABELS, ["row:辩手乙", "reasons"])[-1]["content"],
                zh.trial_judge_repair([], "", ["round:2", "reasons"])[-1]["content"]):
        assert has_cjk(ask) and not english_words(ask), ask
    for ask in (en.judge_repair_messages([], "", ["Debater A", "Debater B"], ["row:Debater B"])[-1]["content"],
                en.trial_judge_repair([], "", ["round:2"])[-1]["content"]):
        assert not has_cjk(ask), ask
    assert zh.missing_text(["winner", "reasons", "row:辩手丙", "round:3"]) == "胜方、判词、辩手丙的逐方点评、第 3 轮的点评"
    assert en.missing_text(["row:Debater C", "round:3"]) == "Debater C's row, the comment on round 3"
