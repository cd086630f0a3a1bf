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


# ------------------------------------------------------------------ schools and masters the topic names


def _schools(pack, slugs):
    from debate_core.content.pairing import school_key

    return {school_key(pack.masters[s]) for s in slugs}


def test_schools_named_in_a_topic(any_pack):
    from debate_core.content.schools import schools_named

    def said(topic):
        return [(n.label, set(n.masters)) for n in schools_named(topic, any_pack)]

    assert said("上座部的安般念和曹洞的默照，下手处一样吗") == [
        ("南传", {"ajahn-chah", "buddhaghosa", "mahasi-sayadaw"}),
        ("禅宗", {"huineng", "xuyun"}),
    ]
    # the narrower school wins over the one holding it (格鲁派 inside 藏传); 天台 inside 天台宗 is one word
    # (the reference pack's meta.json counts 阿底峡 as a forerunner of 格鲁派)
    (gelug, gelug_masters), tiantai = said("藏传佛教格鲁派的止观，和天台宗的止观同不同")
    assert gelug == "格鲁派" and "tsongkhapa" in gelug_masters and "milarepa" not in gelug_masters
    assert tiantai == ("天台宗", {"ouyi", "zhiyi"})
    # other words: a roof, an act of concentrating, a promise; 汉传 or 大乘 alone asks for no one
    for topic in ("夏天晚上在楼顶天台上打坐，蚊子太多怎么办", "集中观察呼吸时总走神", "答应成家以后还能修行吗",
                  "汉传佛教的寺院为什么要收门票", "大乘佛法讲发菩提心，我做得到吗"):
        assert said(topic) == [], topic
    # 汉传 beside 南传 is a side of its own
    assert [label for label, _m in said("南传比丘托钵，汉传僧人为什么不托钵")] == ["南传", "汉传"]


@pytest.mark.parametrize(
    "topic,first,second",
    [
        ("上座部的安般念和曹洞的默照，下手处一样吗？", {"ajahn-chah", "buddhaghosa", "mahasi-sayadaw"}, {"huineng", "xuyun"}),
        ("华严宗的十玄门，在天台宗看来是圆教还是别教？", {"fazang"}, {"zhiyi", "ouyi"}),
        ("格鲁派讲先闻思后修，噶举派重上师加持，初学的人该先走哪一步？", {"tsongkhapa"}, {"milarepa"}),
    ],
)
def test_a_topic_naming_two_schools_gets_a_voice_of_each(default_pack, topic, first, second):
    c = choose_pair(topic, default_pack)
    assert ({c.a, c.b} & first) and ({c.a, c.b} & second) and c.a != c.b, (c.a, c.b, c.reason)
    assert "the topic names" in c.reason and "a pair with two of these voices" in c.reason


def test_a_topic_naming_one_school_gets_its_voice_and_another(default_pack):
    """藏传为什么… asks for a 藏传 voice and one from outside it, not two 藏传 masters; when no pair with the
    voice has something to say on the topic, the reason says so."""
    tibetan = {"atisha", "milarepa", "tsongkhapa"}
    c = choose_pair("藏传的寺院里为什么人人都要先拜一位上师？", default_pack)
    assert len({c.a, c.b} & tibetan) == 1, (c.a, c.b, c.reason)
    assert c.reason.endswith("one of these voices and a master outside them"), c.reason
    c = choose_pair("南传的法师为什么说没有中阴身？人死了马上就投生吗？", default_pack)
    nanchuan = {"ajahn-chah", "buddhaghosa", "mahasi-sayadaw"}
    assert {c.a, c.b} & nanchuan or c.reason.endswith("but no pair with these voices fits it"), c.reason
    # a master named by name is in the pair, although the question is a case others answer too
    c = choose_pair("印光大师常说老实念佛，可我一坐下念佛就坐不住，怎么办？", default_pack)
    assert "yinguang" in (c.a, c.b), (c.a, c.b, c.reason)
    c = choose_pair("六祖说何期自性本自清净，那我每天早晚课还要不要做？", default_pack)
    assert "huineng" in (c.a, c.b), (c.a, c.b, c.reason)


def test_named_voices_are_in_the_readers_language():
    from debate_core.content.packs import load_pack
    from tests.conftest import DEFAULT_PACK
    from webapp import i18n
    from webapp.views.chrome import pair_reason_text

    reason = choose_pair("华严宗的十玄门，在天台宗看来是圆教还是别教？", load_pack(DEFAULT_PACK)).reason
    with i18n.use("zh"):
        zh = pair_reason_text(reason)
    with i18n.use("en"):
        en = pair_reason_text(reason)
    assert "议题提到" in zh and "the topic" not in zh and "华严宗" in zh, zh
    assert en.endswith("a pair with two of these voices") and "华严宗" in en, en


def test_a_schools_name_says_who_not_what(default_pack):
    """天台宗讲的止观 is a question on 止观 asked of 天台: the school's name counts one towards a theme, so the
    practice word decides the theme, and the pair holds a 天台 voice."""
    from debate_core.content.arguments import bank_of
    from debate_core.content.themes import match_themes

    topic = "天台宗讲的止观，初学的人要怎么下手？"
    bank = bank_of(default_pack)
    assert match_themes(topic, bank.themes)[0].theme == "meditation-method"
    c = choose_pair(topic, default_pack)
    assert {c.a, c.b} & {"zhiyi", "ouyi"}, (c.a, c.b, c.reason)
    # a school's name alone still finds the theme that lists it
    assert match_themes("华严宗和唯识宗，哪个是了义？", bank.themes)[0].theme == "classification"


def test_two_masters_the_topic_names_come_before_a_table_row(default_pack):
    """r25: 宗喀巴讲…慧能却说… matched the 顿渐 row (慧能 / 智顗), and 宗喀巴 never spoke."""
    c = choose_pair("宗喀巴说修道要按次第一步步来，慧能却说一悟即至佛地，到底谁说得对？", default_pack)
    assert {c.a, c.b} == {"huineng", "tsongkhapa"} and "names both masters" in c.reason, c
    # a row that gives the very pair the topic names keeps its own rule and reason
    c = choose_pair("蕅益大师的教观和宗喀巴大师的应成中观有何不同？", default_pack)
    assert (c.a, c.b, c.rule) == ("ouyi", "tsongkhapa", "table")


def test_a_body_of_precepts_is_not_the_bodhisattva(default_pack):
    """菩萨 / 声闻 inside 菩萨戒 / 声闻戒 name precepts: a question on 持犯 is not the case of arahant and bodhisattva."""
    from debate_core.content.arguments import bank_of

    bank = bank_of(default_pack)
    ids = [c.id for c in bank.cases_for("菩萨戒和声闻戒在开遮持犯上，判断的标准一样吗？")]
    assert "compassion/arahant-and-bodhisattva" not in ids
    assert "compassion/arahant-and-bodhisattva" in [c.id for c in bank.cases_for("阿罗汉和菩萨有什么区别？")]


@pytest.mark.parametrize("topic", ["藏传讲依止上师、重视灌顶，禅宗讲自性自度，修行到底要不要依靠上师？",
                                   "每天通勤两个小时，阿姜查说的随时正念和马哈希的标记法，哪个更适合在地铁上练？"])
def test_a_debate_is_argued_where_each_side_has_ammo_against_the_other(default_pack, topic):
    # r26: 阿底峡 / 慧能 (the two schools named) argued 依止老师, and 阿姜查 / 马哈希 (a table row) 日常生活, themes
    # where neither aims an objection at the other: every speech failed the ammo rule and the 回应 had nothing
    # to answer. The pair is now taken, and the theme chosen, where both hold a position and aim objections
    # at each other's claims
    from debate_core.content.arguments import bank_of
    from debate_core.engines.offline import OfflineEngine
    from debate_core.models import DebateConfig
    from debate_core.protocols.master import MasterDebate

    bank = bank_of(default_pack)
    md = MasterDebate(default_pack, OfflineEngine(default_pack))
    d = md.run(md.prepare(DebateConfig(topic=topic)))
    a, b = (p.label for p in d.participants)
    theme = d.rounds[0].plan.theme
    assert bank.objections(a, b, theme) and bank.objections(b, a, theme), (a, b, theme)
    assert all(not s.failed_rules for s in d.rounds), [(s.round, s.failed_rules) for s in d.rounds]
