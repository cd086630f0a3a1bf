"""The routing table: which pair a topic selects, by which rule, on the default pack, the upstream pack and
the project's mini pack in the Master-skill layout (tests/fixtures/master-skill-mini).

Each case is (topic, master A, master B, rule).  ``ROUTES`` hold on every pack (all three hold the fifteen
masters); ``PER_PACK`` lists the topics whose routing by coverage or keywords differs between the packs (their
argument layers and keywords differ).
"""

from __future__ import annotations

import re

import pytest

from debate_core.content.aliases import apply_default_aliases, default_aliases, resolve_name, topic_names
from debate_core.content.packs import load_pack, resolve_master
from debate_core.content.pairing import PairError, choose_pair, pair_table, table_matches
from tests.conftest import REPO, SKILL_PACKS, run_cli, skill_pack_folders

ROUTES = [
    # short forms: two characters that name both sides at once
    ("禅净之争", "huineng", "yinguang", "table"),
    ("禅净", "huineng", "yinguang", "table"),
    ("禅与净，孰为易行？", "huineng", "yinguang", "table"),
    ("禅净双修", "huineng", "yinguang", "table"),
    ("空有", "kumarajiva", "xuanzang", "table"),
    ("空有之争", "kumarajiva", "xuanzang", "table"),
    ("空与有", "kumarajiva", "xuanzang", "table"),
    ("性相之争", "kumarajiva", "xuanzang", "table"),
    ("性相", "kumarajiva", "xuanzang", "table"),
    ("顿渐", "huineng", "zhiyi", "table"),
    ("顿渐之辩", "huineng", "zhiyi", "table"),
    ("顿还是渐？", "huineng", "zhiyi", "table"),
    # the halves of the seed's "X vs Y" labels: a term on each side
    ("念佛 vs 参禅", "huineng", "yinguang", "table"),
    ("中观 vs 唯识", "kumarajiva", "xuanzang", "table"),
    ("顿悟 vs 次第", "huineng", "zhiyi", "table"),
    ("顿悟与渐修", "huineng", "zhiyi", "table"),
    ("应成 vs 顿悟", "tsongkhapa", "huineng", "table"),
    ("中观分判 vs 直指", "tsongkhapa", "huineng", "table"),
    ("戒律行持 vs 直观内观", "ajahn-chah", "mahasi-sayadaw", "table"),
    ("三士道 vs 自性见", "atisha", "huineng", "table"),
    ("教宗天台 vs 行归净土", "ouyi", "yinguang", "table"),
    ("教观纲宗 vs 应成中观", "ouyi", "tsongkhapa", "table"),
    ("格鲁派与禅宗", "tsongkhapa", "huineng", "table"),
    # the upstream fidelity questions and boundary cases
    ("禅宗顿悟和净土念佛，到底谁更直接？", "huineng", "yinguang", "table"),
    ("三论宗讲一切皆空，唯识宗讲万法唯识，二者怎么辩？", "kumarajiva", "xuanzang", "table"),
    ("宗喀巴应成中观和六祖顿悟，谁的见地更究竟？", "tsongkhapa", "huineng", "table"),
    ("阿姜查讲戒律行持，马哈希讲直观内观，南传内部怎么辩？", "ajahn-chah", "mahasi-sayadaw", "table"),
    ("禅净之争中，禅宗赢了对吧？", "huineng", "yinguang", "table"),
    ("假设宗喀巴和慧能当面辩论，他们具体怎么说？", "tsongkhapa", "huineng", "table"),
    # common names (aliases) evoke a side like any term
    ("六祖与印光老法师，谁的法门更契机？", "huineng", "yinguang", "table"),
    ("罗什和唐三藏的译经之争", "kumarajiva", "xuanzang", "table"),
    ("玄奘三藏与鸠摩罗什", "kumarajiva", "xuanzang", "table"),
    ("智者大师与六祖论顿悟", "huineng", "zhiyi", "table"),
    ("天台智者谈止观，六祖谈顿悟", "huineng", "zhiyi", "table"),
    ("蕅益智旭与宗喀巴", "ouyi", "tsongkhapa", "table"),
    ("阿底峡与惠能", "atisha", "huineng", "table"),
    ("蕅益大师的教宗天台与印光的老实念佛", "ouyi", "yinguang", "table"),
    # a term inside a longer term of another master counts for that master only
    ("菩提道次第与顿悟", "atisha", "huineng", "table"),
    # no table row: a topic that names two masters pairs them
    ("龙树与米拉日巴", "milarepa", "nagarjuna", "keywords"),
    ("印光大师与虚云老和尚", "xuyun", "yinguang", "keywords"),
    # nothing: the default pair (the seed's first row, covered both ways); one-character words never route
    ("今天的天气怎么样", "huineng", "yinguang", "default"),
    ("有空吗？我戒烟了", "huineng", "yinguang", "default"),
    ("人性相近还是相远？", "huineng", "yinguang", "default"),  # 性相 is an ordinary word here
]

PER_PACK = [
    # by coverage (the argument layer, written or derived), so the two packs may differ
    ("自性与唯识的关系", {"default": ("fazang", "xuanzang", "coverage"),
                          "reference": ("kumarajiva", "xuanzang", "coverage"),
                          "fixture": ("kumarajiva", "xuanzang", "coverage")}),
    ("华严法界与唯识", {"default": ("fazang", "xuanzang", "coverage"),
                        "reference": ("kumarajiva", "xuanzang", "coverage"),
                        "fixture": ("kumarajiva", "xuanzang", "coverage")}),
    ("话头与四念处", {"default": ("mahasi-sayadaw", "xuyun", "coverage"),  # a case of the layer asks it
                      "reference": ("ajahn-chah", "mahasi-sayadaw", "keywords"),
                      "fixture": ("ajahn-chah", "mahasi-sayadaw", "keywords")}),
    ("持名念佛与戒律", {"default": ("xuyun", "yinguang", "coverage"),
                        "reference": ("ouyi", "yinguang", "coverage"),
                        "fixture": ("ouyi", "yinguang", "coverage")}),
    ("菩提道次第广论", {"default": ("fazang", "zhiyi", "coverage"),
                        "reference": ("huineng", "zhiyi", "coverage"),
                        "fixture": ("huineng", "tsongkhapa", "coverage")}),
]


def test_the_table_has_at_least_thirty_topics_of_every_kind():
    assert len(ROUTES) + len(PER_PACK) >= 30
    rules = {r for *_x, r in ROUTES}
    assert rules == {"table", "keywords", "default"}
    short = [t for t, *_x in ROUTES if any(sf in t for sf in ("禅净", "空有", "顿渐", "性相"))]
    assert len(short) >= 8


@pytest.mark.parametrize("topic,a,b,rule", ROUTES, ids=[t[:10] for t, *_x in ROUTES])
def test_route(topic, a, b, rule, any_pack):
    c = choose_pair(topic, any_pack)
    assert (c.a, c.b, c.rule) == (a, b, rule), c.reason
    if rule == "table":
        assert c.hits[a] and c.hits[b] and c.row


@pytest.mark.parametrize("topic,expected", PER_PACK, ids=[t[:10] for t, _e in PER_PACK])
@pytest.mark.parametrize("which", ["default", *SKILL_PACKS])  # [reference] only where the upstream pack is present
def test_route_per_pack(topic, expected, which, request):
    pack = request.getfixturevalue({"default": "default_pack", "reference": "reference_pack",
                                    "fixture": "skill_fixture_pack"}[which])
    c = choose_pair(topic, pack)
    assert (c.a, c.b, c.rule) == expected[which], c.reason


def test_short_forms_name_both_sides_and_outrank_term_matches(default_pack):
    c = choose_pair("禅净之争", default_pack)
    assert "short form 禅净" in c.reason and c.hits["huineng"][0] == c.hits["yinguang"][0] == "禅净"
    # 顿渐 with 净土 terms about: the short form decides, not the count of terms
    m = table_matches("顿渐之间，净土念佛往生", default_pack)
    assert m[0]["row"]["id"] == "sudden-gradual" and m[0]["short"] == ["顿渐"]
    assert "chan-pureland" not in [x["row"]["id"] for x in m]  # no chan side term in it


def test_rows_sharing_huineng_are_told_apart_by_the_other_side(any_pack):
    for topic, other in (("六祖与印光", "yinguang"), ("六祖与智者大师", "zhiyi"), ("六祖与宗喀巴", "tsongkhapa"),
                         ("六祖与阿底峡", "atisha")):
        c = choose_pair(topic, any_pack)
        assert c.rule == "table" and {c.a, c.b} == {"huineng", other}, topic
    # huineng alone evokes four rows' A or B side but no row's both sides
    assert choose_pair("六祖顿悟见性", any_pack).rule != "table"


def test_ties_go_to_the_seeds_row_order(default_pack):
    # 禅宗 + 顿悟 + 净土 + 天台: rows 1 (禅净) and 3 (顿渐) both have three terms; row 1 comes first
    m = table_matches("禅宗顿悟，天台与净土", default_pack)
    assert [x["row"]["id"] for x in m][:2] == ["chan-pureland", "sudden-gradual"]
    assert m[0]["score"][:2] == m[1]["score"][:2]
    assert choose_pair("禅宗顿悟，天台与净土", default_pack).row.startswith("禅净")


def test_user_named_masters_by_alias(any_pack):
    c = choose_pair("随便", any_pack, ["六祖", "印光老法师"])
    assert (c.a, c.b, c.rule) == ("huineng", "yinguang", "user")
    c = choose_pair("随便", any_pack, ["罗什", "唐三藏"])
    assert (c.a, c.b) == ("kumarajiva", "xuanzang")
    with pytest.raises(PairError, match="same master twice"):
        choose_pair("x", any_pack, ["六祖", "慧能大师"])


ALIASES = {
    "六祖": "huineng", "六祖慧能": "huineng", "惠能": "huineng", "罗什": "kumarajiva", "鸠摩罗什大师": "kumarajiva",
    "智者大师": "zhiyi", "天台智者": "zhiyi", "智顗": "zhiyi", "唐三藏": "xuanzang", "玄奘三藏": "xuanzang",
    "玄奘": "xuanzang", "蕅益智旭": "ouyi", "灵峰蕅益": "ouyi", "印光老法师": "yinguang", "印祖": "yinguang",
    "宗喀巴": "tsongkhapa", "阿底峡": "atisha", "龙树": "nagarjuna", "虚云": "xuyun", "密勒日巴": "milarepa",
    "贤首国师": "fazang", "觉音": "buddhaghosa", "马哈希": "mahasi-sayadaw", "阿姜查尊者": "ajahn-chah",
    "Huineng": "huineng", "ajahn chah": "ajahn-chah",
}


@pytest.mark.parametrize("name,slug", ALIASES.items())
def test_common_names_resolve_on_every_pack(name, slug, any_pack):
    assert resolve_master(any_pack, name) == slug


def test_every_alias_of_a_pack_resolves_to_its_own_master(any_pack):
    checked = 0
    for slug, m in any_pack.masters.items():
        for n in m.all_names:
            assert resolve_master(any_pack, n) == slug, n
            checked += 1
    assert checked >= 3 * len(any_pack.masters)


def test_the_upstream_pack_gets_the_fallback_aliases(skill_pack_path):
    import json

    meta = json.loads((skill_pack_path / "master-huineng" / "meta.json").read_text(encoding="utf-8"))
    assert "aliases" not in meta  # the Master-skill files have none of their own
    pack = load_pack(skill_pack_path)
    assert pack.masters["huineng"].aliases == default_aliases()["huineng"]
    assert "六祖" in pack.masters["huineng"].all_names


def test_own_aliases_win_over_the_fallback(default_pack):
    pack = default_pack.model_copy(deep=True)
    pack.masters["huineng"].aliases = ["曹溪古佛"]
    pack.masters["zhiyi"].aliases = []
    apply_default_aliases(pack)
    assert pack.masters["huineng"].aliases == ["曹溪古佛"]
    assert pack.masters["zhiyi"].aliases == default_aliases()["zhiyi"]
    assert resolve_master(pack, "曹溪古佛") == "huineng"
    assert resolve_name(pack, "六祖惠能") is None  # huineng's own list replaces the fallback
    assert choose_pair("曹溪古佛与印光", pack).rule == "table"


def test_an_alias_two_masters_share_names_neither(default_pack):
    pack = default_pack.model_copy(deep=True)
    pack.masters["huineng"].aliases = ["大祖师"]
    pack.masters["zhiyi"].aliases = ["大祖师"]
    with pytest.raises(KeyError, match="ambiguous.*huineng, zhiyi"):
        resolve_master(pack, "大祖师")
    assert "大祖师" not in topic_names(pack.masters["huineng"], pack)


def test_ordinary_word_aliases_are_not_looked_for_in_topics(default_pack):
    assert resolve_master(default_pack, "智者") == "zhiyi"  # a user naming a master
    assert "智者" not in topic_names(default_pack.masters["zhiyi"], default_pack)
    c = choose_pair("智者不惑，念佛往生", default_pack)
    assert "zhiyi" not in (c.a, c.b), c.reason


def test_table_rows_match_the_seed():
    seed = REPO.parent / "shared" / "seeds" / "master-debate-v0.8.md"
    rows = pair_table()["rows"]
    if not seed.is_file():
        pytest.skip("the seed ../shared/seeds/master-debate-v0.8.md is absent in this checkout")
    text = seed.read_text(encoding="utf-8")
    seed_rows = re.findall(r"^\| ([^|]+?) \| ([a-z-]+) \| ([a-z-]+) \|$", text, re.M)
    assert [(a, b) for _l, a, b in seed_rows] == [(r["a"]["master"], r["b"]["master"]) for r in rows]


README_EXAMPLE = re.compile(r'python -m debate_core (debate|pair) "([^"]+)"([^\n#]*)')


def test_readme_examples_route_by_the_table(default_pack):
    text = (REPO / "README.md").read_text(encoding="utf-8")
    examples = README_EXAMPLE.findall(text)
    assert examples
    checked = 0
    for _cmd, topic, rest in examples:
        if "--protocol" in rest or "--masters" in rest:
            continue
        if "--pack" in rest:  # an example on a Master-skill pack: the upstream one where present, the fixture always
            for folder in skill_pack_folders().values():
                c = choose_pair(topic, load_pack(folder))
                assert c.rule in ("table", "coverage", "keywords"), (folder.name, topic, c.reason)
            continue
        c = choose_pair(topic, default_pack)
        assert c.rule == "table", (topic, c.reason)
        checked += 1
    assert checked >= 3


def test_pair_cli_routes_short_forms_and_aliases():
    import json

    out = run_cli("pair", "禅净之争", "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["pair"] == ["huineng", "yinguang"] and data["rule"] == "table" and data["row"].startswith("禅净")
    out = run_cli("pair", "空有", "--format", "json")
    assert json.loads(out.stdout)["pair"] == ["kumarajiva", "xuanzang"]
    out = run_cli("pair", "随便什么", "--masters", "六祖,智者大师", "--format", "json")
    assert json.loads(out.stdout)["pair"] == ["huineng", "zhiyi"]


def test_batch_specs_name_masters_by_common_names_and_route_short_forms():
    from debate_core.batch import expand, parse_spec

    spec = parse_spec({"topics": ["禅净之争", {"topic": "随便什么", "pairs": [["六祖", "智者大师"]]}, "空有"],
                       "models": ["offline"]})
    assert [(c.topic, c.masters) for c in expand(spec)] == [
        ("禅净之争", ("huineng", "yinguang")), ("随便什么", ("huineng", "zhiyi")), ("空有", ("kumarajiva", "xuanzang"))]
