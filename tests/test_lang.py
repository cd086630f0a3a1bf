"""A debate's language: chosen (--lang, a batch spec's lang) or following the topic, refused where a
protocol does not speak it, recorded in the archive and filtered on."""

from __future__ import annotations

import json

import pytest

from debate_core import lang
from debate_core.archive import open_archive
from debate_core.batch import SpecError, config_for, expand, parse_spec
from debate_core.batch.spec import spec_identity
from debate_core.errors import InputError
from debate_core.models import Debate, DebateConfig
from tests.conftest import run_cli


@pytest.mark.parametrize("topic,expected", [
    ("禅净之争", "zh"), ("Is free will an illusion?", "en"), ("AI 会取代程序员吗", "zh"),
    ("Tabs vs spaces：which is better", "zh"),  # a full-width colon is CJK punctuation
    ("", "en"), ("1984", "en"),
])
def test_the_topic_decides_when_nothing_is_asked(topic, expected):
    assert lang.detect(topic) == expected
    assert lang.resolve(topic) == expected


def test_an_asked_language_wins_and_a_bad_one_is_named():
    assert lang.resolve("Is free will an illusion?", "zh") == "zh"
    assert lang.resolve("禅净之争", "EN") == "en"
    with pytest.raises(InputError, match=r"lang: 'fr' is not a debate language"):
        lang.resolve("x", "fr")


def test_a_record_without_a_language_follows_its_config_else_was_chinese():
    # before debates had a language every protocol spoke Chinese, whatever the topic
    d = Debate(id="t1", protocol="topic", topic="Should cities ban cars?", config=DebateConfig(protocol="topic", topic="x"))
    assert d.lang == "zh"
    d = Debate(id="t3", protocol="topic", topic="城市该禁车吗", config=DebateConfig(protocol="topic", topic="x", lang="en"))
    assert d.lang == "en"
    d = Debate(id="t2", protocol="topic", topic="Should cities ban cars?",
               config=DebateConfig(protocol="topic", topic="x", lang="zh"))
    assert d.lang == "zh"
    # an export written before debates had a language reads back with one
    data = json.loads(Debate(id="m1", protocol="master", topic="禅净之争",
                             config=DebateConfig(topic="禅净之争")).model_dump_json())
    data.pop("lang")
    assert Debate.model_validate(data).lang == "zh"


@pytest.mark.parametrize("args,needle", [
    (["debate", "Is free will an illusion?"], "topic: 'Is free will an illusion?' is not Chinese"),
    (["debate", "Is free will an illusion?", "--lang", "zh"], "is not Chinese"),
    (["debate", "禅净之争", "--lang", "en"], "lang: 'en' — a master debate speaks only zh"),
])
def test_master_debates_refuse_english_in_one_line(args, needle, tmp_path):
    arc = tmp_path / "a.duckdb"
    out = run_cli(*args, "--archive", str(arc))
    assert out.returncode == 2, out.stdout
    assert needle in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert not arc.exists() or open_archive(arc).count_debates() == 0  # refused before any debate was created


def test_a_bad_lang_value_is_refused_by_the_cli():
    out = run_cli("debate", "禅净之争", "--lang", "fr")
    assert out.returncode == 2 and "--lang" in out.stderr and "'fr'" in out.stderr


def test_batch_spec_lang_reaches_every_debate_and_is_refused_for_master():
    spec = parse_spec({"protocol": "topic", "topics": ["Should cities ban cars?", "城市该禁车吗"],
                       "models": ["openai/a"], "lang": "zh", "name": "b1"})
    assert {config_for(spec, c).lang for c in expand(spec)} == {"zh"}
    auto = parse_spec({"protocol": "topic", "topics": ["Should cities ban cars?"], "models": ["openai/a"],
                       "name": "b1"})
    assert [config_for(auto, c).lang for c in expand(auto)] == [None]  # each follows its topic when it starts
    # a spec written before languages keeps its identity (its batch id and cells)
    assert "lang" not in spec_identity(auto) and spec_identity(spec)["lang"] == "zh"
    with pytest.raises(SpecError, match=r"lang 'en': a master debate speaks only zh"):
        parse_spec({"protocol": "master", "topics": ["禅净之争"], "lang": "en"})
    with pytest.raises(SpecError, match=r"lang"):
        parse_spec({"protocol": "topic", "topics": ["x"], "models": ["m"], "lang": "fr"})


def test_the_archive_records_the_language_and_list_filters_by_it(tmp_path):
    path = tmp_path / "a.duckdb"
    out = run_cli("debate", "空与有", "--rounds", "2", "--quiet", "--archive", str(path))
    assert out.returncode == 0, out.stderr
    arc = open_archive(path)
    en = Debate(id="en1", protocol="topic", topic="Should cities ban cars?", status="completed",
                config=DebateConfig(protocol="topic", topic="Should cities ban cars?", lang="en"))
    arc.save(en)
    zh_ids = list(arc.list_debates(lang="zh")["id"])
    assert len(zh_ids) == 1 and arc.get_debate(zh_ids[0]).lang == "zh"
    assert list(arc.list_debates(lang="en")["id"]) == [en.id]
    assert arc.get_debate(en.id).lang == "en"
    del arc  # the CLI below opens the file in its own process
    out = run_cli("list", "--lang", "en", "--format", "json", "--archive", str(path))
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert [r["id"] for r in rows] == [en.id] and rows[0]["lang"] == "en"
    out = run_cli("list", "--lang", "zh", "--archive", str(path))
    assert out.returncode == 0 and zh_ids[0] in out.stdout and en.id not in out.stdout


def test_english_labels_in_setup_seats_and_the_relabel_audit():
    from debate_core.analysis.audit import variant
    from debate_core.models import Participant, Speech
    from debate_core.protocols import registry
    from webapp.views import model_fields

    spec = registry.get("topic")
    labels = {lang: [f.label for rf in model_fields(spec, ["Ban cars", "Keep cars"], lang) for f in rf.fields
                     if rf.role.many] for lang in ("en", "zh")}
    assert labels["en"] == ["Debater A — Keep cars", "Debater B — Ban cars"]
    assert labels["zh"] == ["辩手甲 — Keep cars", "辩手乙 — Ban cars"]
    assert spec.first_labels == ("辩手甲", "Debater A")

    d = Debate(id="en2", protocol="topic", topic="Should cities ban cars?", status="completed",
               config=DebateConfig(protocol="topic", topic="Should cities ban cars?", lang="en"),
               participants=[Participant(label="Debater A", name="Debater A", stance="Keep"),
                             Participant(label="Debater B", name="Debater B", stance="Ban")],
               rounds=[Speech(round=2, speaker="Debater A", role="rebuttal",
                              text="Debater B A2 ignores cost; Debater AB is not a label.")])
    shown, back = variant(d, "relabel")
    assert [p.label for p in shown.participants] == ["Debater B", "Debater A"]
    assert shown.rounds[0].speaker == "Debater B"
    assert shown.rounds[0].text == "Debater A A2 ignores cost; Debater AB is not a label."
    assert back == {"Debater B": "Debater A", "Debater A": "Debater B"}


@pytest.mark.parametrize("lang,topic_turn,trial_turn", [
    ("zh", "第 1 轮：辩手甲、辩手乙（同时发言）", "第 2 轮：反方"),
    ("en", "Round 1: Debater A, Debater B (in parallel)", "Round 2: Con"),
])
def test_the_live_turn_is_in_the_debate_language(lang, topic_turn, trial_turn):
    from debate_core.engines.judged_prompts import for_lang
    from debate_core.models import Participant, Speech
    from debate_core.protocols import registry

    labels = for_lang(lang).LABELS[:2]
    d = Debate(id="t", protocol="topic", topic="t", config=DebateConfig(protocol="topic", topic="t", lang=lang),
               participants=[Participant(label=lab, name=lab) for lab in labels], planned_rounds=3)
    assert registry.get("topic").turn(d, 1) == topic_turn
    d = Debate(id="p", protocol="trial", topic="t", config=DebateConfig(protocol="trial", topic="t", lang=lang),
               participants=[Participant(label=s, name=s) for s in ("pro", "con")], planned_rounds=3,
               rounds=[Speech(round=2, speaker="pro", role="speech", text="x")])
    assert registry.get("trial").turn(d, 2) == trial_turn
