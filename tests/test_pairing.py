"""Pair selection in the seed's order of rules, on the default pack and the Master-skill packs."""

from __future__ import annotations

import json

import pytest

from debate_core.content.pairing import PairError, choose_pair, pair_table, school_key
from tests.conftest import fidelity_cases, run_cli, skill_pack_folders

# How many pair questions each Master-skill pack's own test cases hold (master-debate/tests/fidelity.jsonl).
PAIR_QUESTIONS = {"reference": 4, "fixture": 5}


def fidelity_params():
    """The pair questions of every Master-skill pack present: the upstream pack's own where present, the
    fixture's (written by the project) always."""
    out = []
    for which, folder in skill_pack_folders().items():
        cases = [c for c in fidelity_cases(folder) if "must_select_pair" in c]
        assert len(cases) == PAIR_QUESTIONS[which], (which, len(cases))
        out += [pytest.param(c["q"], c["must_select_pair"], id=f"{which}-{c['q'][:12]}") for c in cases]
    return out


@pytest.mark.parametrize("topic,expected", fidelity_params())
def test_fidelity_pairs_on_every_pack(topic, expected, any_pack):
    """Each pack's own questions select their pair by the topic table, on the default pack and every
    Master-skill pack (all three hold the fifteen masters)."""
    c = choose_pair(topic, any_pack)
    assert [c.a, c.b] == expected
    assert c.rule == "table" and c.hits[c.a] and c.hits[c.b]


def test_table_is_data_with_eight_rows():
    rows = pair_table()["rows"]
    assert len(rows) == 8
    assert {(r["a"]["master"], r["b"]["master"]) for r in rows} >= {("huineng", "yinguang"), ("ouyi", "tsongkhapa")}


def test_row_matches_by_evocation_not_literal_words(any_pack):
    topic = "禅宗顿悟和净土念佛，到底谁更直接？"
    assert "禅净" not in topic and "参禅" not in topic
    c = choose_pair(topic, any_pack)
    assert (c.a, c.b, c.rule) == ("huineng", "yinguang", "table")
    # one side alone is not enough for a row
    assert choose_pair("净土法门的信愿行", any_pack).rule != "table"


def test_user_named_masters_win(any_pack):
    c = choose_pair("禅宗顿悟和净土念佛", any_pack, ["玄奘", "kumarajiva"])
    assert (c.a, c.b, c.rule) == ("xuanzang", "kumarajiva", "user")


def test_user_errors(any_pack):
    with pytest.raises(PairError, match="same master twice"):
        choose_pair("x", any_pack, ["huineng", "慧能大师"])
    with pytest.raises(PairError, match="did you mean 'huineng'"):
        choose_pair("x", any_pack, ["huineg", "yinguang"])
    with pytest.raises(PairError, match="exactly two"):
        choose_pair("x", any_pack, ["huineng"])


def test_keyword_rule_picks_different_schools(skill_pack):
    """On a derived layer with no covered pair for the topic's theme, keywords pick two schools."""
    c = choose_pair("话头与四念处", skill_pack)
    assert c.rule == "keywords"
    assert school_key(skill_pack.masters[c.a]) != school_key(skill_pack.masters[c.b])


def test_coverage_rule_explains_the_theme_and_the_objections(default_pack):
    c = choose_pair("生气的时候该怎么办？", default_pack)
    assert c.rule == "coverage" and "对治嗔恨与烦恼" in c.reason and "生气" in c.reason


def test_short_keywords_are_ignored(skill_pack):
    # 空 and 戒 are single-character keywords in both Master-skill packs: ordinary Chinese must not fire them
    c = choose_pair("有空吗？我戒烟了", skill_pack)
    assert c.rule == "default"


def test_school_key_separates_chan_and_pure_land(skill_pack):
    m = skill_pack.masters
    assert m["huineng"].tradition == m["yinguang"].tradition == "汉传"
    assert school_key(m["huineng"]) != school_key(m["yinguang"])
    assert school_key(m["huineng"]) == school_key(m["xuyun"])  # 禅宗 and 禅宗（五宗兼嗣）
    assert school_key(m["ajahn-chah"]) != school_key(m["mahasi-sayadaw"])  # two schools of one tradition


def test_default_pair(any_pack):
    c = choose_pair("今天的天气怎么样", any_pack)
    assert c.rule == "default" and (c.a, c.b) == tuple(pair_table()["default_pair"])


def test_pair_cli_json():
    out = run_cli("pair", "宗喀巴应成中观和六祖顿悟，谁的见地更究竟？", "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["pair"] == ["tsongkhapa", "huineng"] and data["rule"] == "table"
    assert "应成" in data["keywords"]["tsongkhapa"]
