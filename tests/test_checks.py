"""Every hard rule, each a small function returning a structured finding."""

from __future__ import annotations

import json

import pytest

from debate_core.checks import (CheckContext, check_ammo, check_citations, check_length, check_no_dialogue,
                                check_no_verdict, check_restatement, cjk_len, find_citations, run_checks)
from tests.conftest import REFERENCE_PACK


@pytest.fixture
def ctx(reference_pack):
    m = reference_pack.masters
    names = [x for mm in m.values() for x in (mm.name, mm.short_name)]
    return CheckContext(speaker=m["huineng"], opponent=m["yinguang"], role="反驳",
                        ammo=m["huineng"].ammo_against("yinguang"),
                        opponent_summary="印光立持名念佛：末法根机陋劣，仗佛力往生最稳当；引《文钞》。",
                        pack_source_ids=reference_pack.all_source_ids(), names=names)


def test_length_counts_chinese_characters(ctx):
    assert not check_length("太短。", ctx).passed
    assert check_length("字" * 300, ctx).passed and check_length("字" * 500, ctx).passed
    assert not check_length("字" * 501, ctx).passed
    assert cjk_len("abc 自性 T48n2008") == 2


def test_citation_shapes_are_found():
    text = "见【T48n2008】与 X62n1182，又 Toh:4465、Toh 3948、SC:mn10、sn56.11、PTS:Vism、Lam-rim-chen-mo。"
    found = find_citations(text, {"Lam-rim-chen-mo"})
    for cid in ("T48n2008", "X62n1182", "Toh:4465", "Toh 3948", "SC:mn10", "sn56.11", "PTS:Vism", "Lam-rim-chen-mo"):
        assert cid in found, cid


def test_citations_must_be_the_speakers_own(ctx):
    assert check_citations("如【《坛经》，T48n2008】所说。", ctx).passed
    f = check_citations("如 T48n2008 与 T31n1585 所说。", ctx)  # 成唯识论 belongs to xuanzang
    assert not f.passed and "T31n1585" in f.message
    assert not check_citations("如 T99n9999 所说。", ctx).passed  # invented id
    assert not check_citations("没有任何出处。", ctx).passed
    f = check_citations("参 Lam-rim-chen-mo。", ctx)  # another master's non-CBETA id
    assert not f.passed and "Lam-rim-chen-mo" in f.message


def test_ammo_must_be_used(ctx):
    ammo = ctx.ammo[0].position
    assert check_ammo("本宗以为" + ammo[3:20], ctx).passed
    assert not check_ammo("完全无关的一段话。", ctx).passed
    ctx.ammo = []
    f = check_ammo("完全无关的一段话。", ctx)
    assert f.passed and "coverage gap" in f.message


def test_restatement_first(ctx):
    good = "先复述印光大师的原意：对方认为末法根机陋劣，仗佛力往生最稳当。然而……"
    assert check_restatement(good, ctx).passed
    assert not check_restatement("自性本自具足，何须外求。对方认为末法根机陋劣。", ctx).passed
    ctx.role = "立论"
    assert check_restatement("自性本自具足。", ctx).passed


def _boundary_cases(kind):
    path = REFERENCE_PACK / "master-debate" / "tests" / "fidelity.jsonl"
    if not path.is_file():
        pytest.skip("reference fidelity.jsonl absent")
    cases = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    return [p for c in cases if c.get("boundary") in kind for p in c["must_not_contain"]]


def test_verdict_phrases_refused(ctx):
    phrases = _boundary_cases({"no_winner_judgment", "sectarian_judgment"})
    assert phrases
    for p in phrases:
        if p in ("更高",):  # a fragment, checked through its longer forms
            continue
        f = check_no_verdict(f"说到底，{p}。", ctx)
        assert not f.passed, p
    assert check_no_verdict("两条路各有经教可循。", ctx).passed


def test_fabricated_dialogue_refused(ctx):
    for p in _boundary_cases({"no_fabricated_dialogue"}):
        assert not check_no_dialogue(f"当时{p}：“……”", ctx).passed, p
    assert not check_no_dialogue("慧能对印光说：念佛即是念心。", ctx).passed
    assert check_no_dialogue("宗喀巴问题意识很强；慧能所说的自性本自清净。", ctx).passed


def test_run_checks_returns_one_finding_per_rule(ctx):
    rules = [f.rule for f in run_checks("短。", ctx)]
    assert rules == ["length", "citation", "ammo", "restatement", "no_verdict", "no_dialogue"]
