"""Every hard rule, each a small function returning a structured finding (messages in Chinese)."""

from __future__ import annotations

import json

import pytest
from pathlib import Path

from debate_core.checks import (RULES, VERDICT_PATTERNS, CheckContext, check_ammo, check_citations, check_hygiene,
                                check_length, check_no_dialogue, check_no_verdict, check_restatement, cjk_len,
                                find_citations, is_safe_fragment, run_checks)
from tests.conftest import fidelity_cases

SUMMARY = "印光立持名念佛：末法根机陋劣，仗佛力往生最稳当；引《文钞》。"


@pytest.fixture
def ctx(skill_pack):
    """慧能 answering 印光 on a pack in the Master-skill layout: the upstream one, and always the fixture."""
    m = skill_pack.masters
    return CheckContext(speaker=m["huineng"], opponent=m["yinguang"], role="反驳",
                        ammo=m["huineng"].ammo_against("yinguang"), opponent_summary=SUMMARY,
                        pack_source_ids=skill_pack.all_source_ids(), pack=skill_pack)


@pytest.fixture
def dctx(default_pack):
    m = default_pack.masters
    return CheckContext(speaker=m["huineng"], opponent=m["yinguang"], role="立论",
                        ammo=m["huineng"].ammo_against("yinguang"), pack=default_pack,
                        pack_source_ids=default_pack.all_source_ids())


def test_length_counts_chinese_characters(ctx):
    assert not check_length("太短。", ctx).passed
    assert check_length("字" * 300, ctx).passed and check_length("字" * 500, ctx).passed
    f = check_length("字" * 501, ctx)
    assert not f.passed and "501" in f.message and "300–500" in f.message
    assert cjk_len("abc 自性 T48n2008") == 2


def test_citation_shapes_are_found():
    text = "见【T48n2008】与 X62n1182，又 Toh:4465、Toh 3948、SC:mn10、sn56.11、PTS:Vism、Lam-rim-chen-mo。"
    found = find_citations(text, {"Lam-rim-chen-mo"})
    for cid in ("T48n2008", "X62n1182", "Toh:4465", "Toh 3948", "SC:mn10", "sn56.11", "PTS:Vism", "Lam-rim-chen-mo"):
        assert cid in found, cid


def test_citations_must_be_the_speakers_own(ctx):
    assert check_citations("如【《坛经》，T48n2008】所说。", ctx).passed
    f = check_citations("如 T48n2008 与 T31n1585 所说。", ctx)  # 成唯识论 belongs to xuanzang
    assert not f.passed and "T31n1585" in f.message and "玄奘" in f.message
    assert not check_citations("如 T99n9999 所说。", ctx).passed  # invented id
    f = check_citations("没有任何出处。", ctx)
    assert not f.passed and "没有出处" in f.message
    # another master's non-CBETA id (宗喀巴's in the upstream pack, 阿姜查's in the fixture)
    other = "Lam-rim-chen-mo" if "tsongkhapa" in ctx.pack.masters else "AjahnChah:LivingDhamma"
    f = check_citations(f"参 {other}。", ctx)
    assert not f.passed and other in f.message


def test_the_title_must_name_the_cited_source(ctx):
    f = check_citations("如【《金刚般若波罗蜜经》，T48n2008】所说。", ctx)
    assert not f.passed and not f.undecided and "书名与编号不符" in f.message and "T08n0235" in f.message
    for short, sid in (("坛经", "T48n2008"), ("六祖坛经·般若品", "T48n2008"), ("金刚经", "T08n0235"),
                       ("维摩诘经", "T14n0475"), ("六祖大师法宝坛经", "T48n2008")):
        assert check_citations(f"见【《{short}》，{sid}】。", ctx).passed, short
    assert not check_citations("见【《法华经》，T48n2008】。", ctx).passed
    f = check_citations("见【《本经》，T48n2008】。", ctx)
    assert f.undecided and not f.passed and f.message.startswith("无法判定")


def test_quotes_are_verified_against_the_pack(ctx):
    good = "《坛经》云：「菩提本无树，明镜亦非台。」【《六祖坛经·行由品》，T48n2008】"
    f = check_citations(good, ctx)
    assert f.passed and [m.status for m in f.marks] == ["verified"]
    trad = "「菩提本無樹，明鏡亦非臺」【《壇經》，T48n2008】"  # traditional characters, punctuation dropped
    assert check_citations(trad, ctx).marks[0].status == "verified"
    fake = "「念佛之人，不必见性，但凭佛力即可往生」【《坛经》，T48n2008】"
    f = check_citations(fake, ctx)
    assert not f.passed and f.marks[0].status == "unverified" and "疑为杜撰" in f.message
    f = check_citations("自性本自具足【《坛经》，T48n2008】。", ctx)
    assert f.passed and f.marks[0].status == "id_only"


def test_a_quote_the_pack_cannot_check_is_marked_not_failed(dctx):
    # the default pack holds notes in its own words, not the sutra's wording: the quote cannot be checked
    f = check_citations("经云「菩提本无树，明镜亦非台」【《坛经》，T48n2008】。", dctx)
    assert f.passed and f.marks[0].status == "unchecked" and "无法核对" in f.message


CBETA = __import__("pathlib").Path(__file__).parent / "fixtures" / "cbeta"


def test_a_quote_is_checked_against_the_users_cbeta_checkout(dctx, monkeypatch):
    """With $DEBATE_CBETA naming a checkout (our own fixture in the CBETA XML P5 layout), a quote the
    pack cannot check is verified against the real text of the cited work, or fails as fabricated."""
    monkeypatch.setenv("DEBATE_CBETA", str(CBETA))
    f = check_citations("经中说「本來無一物」【《坛经》，T48n2008】。", dctx)
    assert f.passed and f.marks[0].status == "verified"
    f = check_citations("经中说「念佛之人不必见性」【《坛经》，T48n2008】。", dctx)
    assert not f.passed and f.marks[0].status == "unverified" and "CBETA" in f.message
    # a work the checkout does not hold stays unchecked, never a failure
    f = check_citations("经中说「念佛之人不必见性」【《维摩诘所说经》，T14n0475】。", dctx)
    assert f.passed and f.marks[0].status == "unchecked"
    # a checkout that is not one: the quote stays unchecked, the check does not crash
    monkeypatch.setenv("DEBATE_CBETA", str(CBETA / "T"))
    f = check_citations("经中说「本來無一物」【《坛经》，T48n2008】。", dctx)
    assert f.passed and f.marks[0].status == "unchecked"


def test_ammo_must_be_used(ctx):
    ammo = ctx.ammo[0].position
    assert check_ammo("本宗以为" + ammo[3:20], ctx).passed
    assert not check_ammo("完全无关的一段话。", ctx).passed
    ctx.ammo = []
    f = check_ammo("完全无关的一段话。", ctx)
    assert f.passed and "覆盖缺口" in f.message


def test_restatement_first(ctx):
    good = "先复述印光大师的原意：对方认为末法根机陋劣，仗佛力往生最稳当。然而……"
    assert check_restatement(good, ctx).passed
    assert not check_restatement("自性本自具足，何须外求。对方认为末法根机陋劣。", ctx).passed
    f = check_restatement("印光大师认为参禅毫无意义，末法根机陋劣，仗佛力往生最稳当。", ctx)
    assert not f.passed and "毫无" in f.message
    ctx.opponent_summary = ""
    f = check_restatement(good, ctx)
    assert f.undecided and not f.passed
    ctx.role = "立论"
    assert check_restatement("自性本自具足。", ctx).passed


def _boundary_cases(kind, pack):
    """The phrases the pack's own boundary cases (master-debate/tests/fidelity.jsonl) forbid: the upstream
    pack's where present, the fixture's (written by the project) always."""
    return [p for c in fidelity_cases(pack.path) if c.get("boundary") in kind for p in c["must_not_contain"]]


def test_verdict_phrases_refused(ctx):
    phrases = _boundary_cases({"no_winner_judgment", "sectarian_judgment"}, ctx.pack)
    assert phrases
    for p in phrases:
        if p in ("更高",):  # a fragment, checked through its longer forms
            continue
        f = check_no_verdict(f"禅净二门，说到底，{p}。", ctx)
        assert not f.passed, p
    assert check_no_verdict("两条路各有经教可循。", ctx).passed


@pytest.mark.parametrize("text", [
    "禅宗之法更为究竟。", "唯有明心见性才是正道。", "学人当舍净归禅。", "顿悟法门远胜持名念佛。",
    "念佛一门终究不及直指人心。", "禅宗的见地高于净土。", "这一轮本宗已占上风。", "诸位不妨放下念珠，改修禅宗。",
    "禅与净孰优孰劣，一目了然。", "与其念佛求生，不如回光返照参禅。",
])
def test_verdicts_in_many_shapes(text, ctx):
    assert not check_no_verdict(text, ctx).passed, text


@pytest.mark.parametrize("text", [
    "念佛亦可达至究竟解脱。", "此是胜义谛，非世俗谛。", "《金刚经》云：「是法平等，无有高下。」",
    "印光大师主张「末法唯仗佛力」，然而自性本具，不假外求。", "这不是谁更究竟的问题，而是根机各别。",
    "禅净二门，并无高下之分。", "佛性在圣不增，在凡不减，不高于诸佛，不低于众生。",
])
def test_verdict_traps_pass(text, ctx):
    f = check_no_verdict(text, ctx)
    assert f.passed, (text, f.message)


def test_fabricated_dialogue_refused(ctx):
    from debate_core.content.aliases import default_aliases

    # a boundary case names masters; a pack knows the names of its own masters only
    outside = [n for slug, names in default_aliases().items() if slug not in ctx.pack.masters for n in names]
    phrases = [p for p in _boundary_cases({"no_fabricated_dialogue"}, ctx.pack) if not any(n in p for n in outside)]
    assert phrases
    for p in phrases:
        assert not check_no_dialogue(f"当时{p}：“……”", ctx).passed, p
    for text in ("慧能对印光说：念佛即是念心。", "慧能曰：「本来无一物。」印光答曰：「老实念佛。」",
                 "印光大师曾亲至曹溪与六祖论道。", "印光听罢默然。", "印光大师连连点头。", "两人相对而坐，良久无言。"):
        assert not check_no_dialogue(text, ctx).passed, text
    for text in ("宗喀巴问题意识很强；慧能所说的自性本自清净。", "六祖在《坛经》中说：「菩提自性，本来清净。」",
                 "佛告舍利弗：「彼土何故名为极乐？」", "请问印光大师：若自心不净，念佛何以得净？",
                 "印光大师上一轮问道：末法众生如何见性？"):
        f = check_no_dialogue(text, ctx)
        assert f.passed, (text, f.message)


def test_hygiene(ctx):
    for text in ("详见 https://fojin.app/texts/58 。", "见[坛经](https://x.org)。", "引用时应注明经号。",
                 "不可代笔虚构祖师之言。", "【弹药库 — 至少引用 1 条】", "遵守硬性规则。", "自性本来清净【《坛经》，T48n2008",
                 "In short, the self nature is pure.", "深入研究请查阅 CBETA 全本。", "经文全本可点击链接免费下载。",
                 "下载链接附在文末。"):
        assert not check_hygiene(text, ctx).passed, text
    for text in ("自性本来清净【《六祖坛经·行由品》，T48n2008】。", "毗婆舍那（vipassanā）即是观。",
                 "禅与净不是 A or B。",
                 # a speech about the asker's downloads is speech (a case on pirated software: 每次想下载时，标记想要)
                 "依我所教，每次想下载时，标记想要、想要，再看一看是真要用还是怕错过。"):
        f = check_hygiene(text, ctx)
        assert f.passed, (text, f.message)


def test_run_checks_returns_one_finding_per_rule(ctx):
    assert [f.rule for f in run_checks("短。", ctx)] == list(RULES)
    assert RULES == ("length", "citation", "ammo", "restatement", "engages", "no_verdict", "no_dialogue", "hygiene")


def test_compatibility_helpers():
    assert any(p.search("慧能赢了") for p in VERDICT_PATTERNS)
    assert not any(p.search("自性本自清净") for p in VERDICT_PATTERNS)
    assert is_safe_fragment("自性本自清净，不假外求。", ["慧能", "印光"])
    assert not is_safe_fragment("慧能对印光说：念佛即是念心。", ["慧能", "印光"])


# ------------------------------------------------------------------ the check subcommand

def _speech(name="hn_yg_hui"):
    from tests.check_corpus_support import base_cases

    return next(c for c in base_cases() if c.id == name)


def test_cli_check_passes_a_clean_speech_and_prints_json(tmp_path):
    from tests.conftest import run_cli

    case = _speech()
    path = tmp_path / "speech.txt"
    path.write_text(case.text, encoding="utf-8")
    r = run_cli("check", str(path), "--speaker", "六祖", "--opponent", "印光", "--role", "回应", "--round", "3",
                "--opponent-summary", case.opponent_summary, "--format", "json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["passed"] is True and data["speaker"] == "huineng" and data["opponent"] == "yinguang"
    assert [f["rule"] for f in data["findings"]] == list(RULES)
    assert all(f["passed"] and f["message"] for f in data["findings"])
    cit = next(f for f in data["findings"] if f["rule"] == "citation")
    assert {m["status"] for m in cit["marks"]} == {"id_only"} and len(cit["marks"]) == 3


def test_cli_check_fails_a_bad_speech_from_stdin():
    import subprocess
    import sys

    from tests.conftest import REPO

    case = _speech()
    text = case.text.replace("接受与坚持各有分寸", "禅宗之法更为究竟，接受与坚持各有分寸")
    r = subprocess.run([sys.executable, "-m", "debate_core", "check", "-", "--speaker", "huineng", "--opponent",
                        "yinguang", "--role", "回应", "--opponent-summary", case.opponent_summary],
                       input=text, capture_output=True, text=True, cwd=REPO, timeout=120)
    assert r.returncode == 1, r.stderr
    assert "✗ no_verdict：" in r.stdout and "更为究竟" in r.stdout and "✓ citation：" in r.stdout


def test_cli_check_says_when_a_rule_cannot_decide(tmp_path):
    from tests.conftest import run_cli

    path = tmp_path / "s.txt"
    path.write_text(_speech().text, encoding="utf-8")
    r = run_cli("check", str(path), "--speaker", "huineng", "--opponent", "yinguang", "--role", "回应")
    assert r.returncode == 1
    assert "? restatement：无法判定" in r.stdout


@pytest.mark.parametrize("args, needle", [
    (["--speaker", "无名氏", "--opponent", "印光", "--role", "立论"], "--speaker '无名氏'"),
    (["--speaker", "慧能", "--opponent", "印光", "--role", "辩论"], "--role '辩论'"),
    (["--speaker", "慧能", "--opponent", "六祖", "--role", "立论"], "--opponent '六祖'"),
    (["--opponent", "印光", "--role", "立论"], "--speaker is required"),
])
def test_cli_check_bad_input_is_one_line_and_exit_2(tmp_path, args, needle):
    from tests.conftest import run_cli

    path = tmp_path / "s.txt"
    path.write_text(_speech().text, encoding="utf-8")
    r = run_cli("check", str(path), *args)
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], r.stderr


def test_cli_check_refuses_an_empty_text_and_a_missing_file(tmp_path):
    from tests.conftest import run_cli

    empty = tmp_path / "empty.txt"
    empty.write_text("  \n", encoding="utf-8")
    r = run_cli("check", str(empty), "--speaker", "慧能", "--opponent", "印光", "--role", "立论")
    assert r.returncode == 2 and r.stderr.strip() == f"error: {empty}: the speech is empty"
    r = run_cli("check", str(tmp_path / "nope.txt"), "--speaker", "慧能", "--opponent", "印光", "--role", "立论")
    assert r.returncode == 2 and "no such file" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_aliases_are_known_without_the_pack(default_pack):
    """The master protocol may give only names and short names: common names still count."""
    m = default_pack.masters
    names = [n for x in m.values() for n in (x.name, x.short_name)]
    ctx = CheckContext(speaker=m["huineng"], opponent=m["yinguang"], role="立论", names=names)
    for text in ("智者大师对罗什说：「止观双运。」", "唐三藏拜访了天台大师。", "六祖听罢，默然良久。"):
        assert not check_no_dialogue(text, ctx).passed, text
    assert check_no_dialogue("智者不惑，仁者不忧。", ctx).passed  # 智者 without an honorific is a word


def test_a_rule_registered_with_the_decorator_runs_everywhere_the_rules_are_read():
    # one decorated function is a rule: it runs with the others, has its label and is in the audit's list
    from debate_core import checks
    from debate_core.checks import registry
    from debate_core.engines import check_model

    assert checks.RULES == tuple(r.name for r in registry.rules())
    assert set(check_model.AUDITED_RULES) == {r.name for r in registry.rules() if r.audited}
    assert all(checks.RULE_LABELS_ZH[r] for r in checks.RULES)
    saved = dict(registry._REGISTRY)
    try:
        @registry.rule("no_exclamation", label="禁感叹", requires="不用感叹号。")
        def no_exclamation(text, ctx):
            return checks._finding("no_exclamation", "！" not in text, "有感叹号" if "！" in text else "")

        from debate_core.content.packs import load_pack

        pack = load_pack(None)
        ctx = checks.CheckContext(speaker=pack.masters["huineng"], opponent=pack.masters["yinguang"], role="立论")
        found = {f.rule: f for f in checks.run_checks("好！", ctx)}
        assert found["no_exclamation"].passed is False
        assert registry.labels_zh()["no_exclamation"] == "禁感叹"
        prompt = check_model.audit_messages("好！", speaker=ctx.speaker, opponent=ctx.opponent, role="立论",
                                            opponent_summary="", ammo=[])[0]["content"]
        assert "- no_exclamation：不用感叹号。" in prompt
    finally:
        registry._REGISTRY.clear()
        registry._REGISTRY.update(saved)


# ------------------------------------------------------------------ registry: labels, scope, not applicable


def test_the_registry_carries_labels_in_both_languages_and_a_scope():
    from debate_core.checks import registry

    for r in registry.rules():
        assert r.labels["zh"] and r.labels["en"] and r.requires, r.name
        assert "master" in r.protocols
    assert registry.label("restatement", "zh") == "复述" and registry.label("restatement", "en") == "restatement"
    assert registry.label("engages", "zh") == "回应论点" and registry.label("engages", "en") == "answers the point"
    assert registry.get("restatement").roles == frozenset({"反驳", "回应"}) == registry.get("engages").roles
    assert registry.in_scope("立论") == ("length", "citation", "ammo", "no_verdict", "no_dialogue", "hygiene")
    assert "engages" in registry.in_scope("反驳") and "restatement" in registry.in_scope("回应")
    assert registry.in_scope("反驳", protocol="topic") == ()


def test_a_rule_out_of_scope_is_not_applicable_never_a_pass(ctx):
    from debate_core.checks import registry
    from debate_core.render.master import finding_lines, speech_clean, split_findings

    for role in ("立论", "综合"):
        c = CheckContext(speaker=ctx.speaker, opponent=ctx.opponent, role=role, opponent_summary="")
        found = {f.rule: f for f in run_checks("短。", c)}
        for name in ("restatement", "engages"):
            f = found[name]
            assert f.applies is False and "不适用" in f.message, (role, name, f)
        st = split_findings(found.values())
        assert {f.rule for f in st.not_applicable} >= {"restatement", "engages"}
        assert not {f.rule for f in st.passed} & {"restatement", "engages"}
    # a speech whose applicable rules pass is ✓ without counting the not-applicable ones as passed
    only_na = [registry.not_applicable(registry.get("restatement"), "立论")]
    assert not speech_clean(only_na)
    from debate_core.models import Finding

    lines = finding_lines([Finding(rule="length", passed=True)] + only_na)
    assert lines == ["✓ 检查通过：篇幅", "本轮不适用：复述"], lines
    # another protocol: out of scope too
    c = CheckContext(speaker=ctx.speaker, opponent=ctx.opponent, role="反驳", protocol="topic")
    assert all(not f.applies for f in run_checks("短。", c))


def test_every_hard_coded_rule_list_reads_the_registry():
    from debate_core import checks
    from debate_core.checks import registry
    from debate_core.engines import check_model
    from webapp.views.outcome import CHECK_RULES

    assert CHECK_RULES == checks.RULES == registry.rule_names()
    assert checks.RULE_LABELS_ZH == registry.labels_zh() and checks.RULE_LABELS_EN == registry.labels_en()
    assert check_model.audited_rules("立论") == tuple(r for r in check_model.audited_rules()
                                                     if r not in ("restatement", "engages"))
    assert "engages" in check_model.audited_rules("反驳")  # the audit grades it too


def test_the_model_audit_leaves_out_of_scope_rules_not_applicable():
    import json as _json

    from debate_core.engines.check_model import audited_rules, parse_audit

    reply = _json.dumps({r: {"passed": True, "message": "ok"} for r in audited_rules()})
    found = {f.rule: f for f in parse_audit(reply, role="立论")}
    assert found["restatement"].applies is False and found["restatement"].layer == "model"
    assert found["length"].applies and found["length"].passed
    found = {f.rule: f for f in parse_audit(reply, role="反驳")}
    assert found["restatement"].applies and found["restatement"].passed


# ------------------------------------------------------------------ lexicons as data


def _lexicon_entries():
    from debate_core.checks import lexicons

    return [(name, key) for name in lexicons.names() for key in lexicons.load(name).entries]


@pytest.mark.parametrize("name, key", _lexicon_entries(), ids=lambda x: str(x))
def test_every_lexicon_entry_matches_its_example_and_not_its_counterexample(name, key):
    from debate_core.checks import lexicons

    e = lexicons.load(name).entries[key]
    examples = e.example if isinstance(e.example, list) else [e.example]
    nots = e.not_ if isinstance(e.not_, list) else ([e.not_] if e.not_ else [])
    for ex in examples:
        assert lexicons.matches(f"{name}.{key}", ex), (name, key, ex)
    for ex in nots:
        assert not lexicons.matches(f"{name}.{key}", ex), (name, key, ex)


def test_the_lexicons_are_package_data_and_the_rules_read_them():
    import tomllib

    from debate_core.checks import dialogue, hygiene, lexicons, verdict

    data = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text(encoding="utf-8"))
    assert "resources/lexicons/*.yaml" in data["tool"]["setuptools"]["package-data"]["debate_core"]
    assert verdict._OUTCOME is lexicons.regex("verdict.outcome")
    assert dialogue._MEET == lexicons.pattern("dialogue.meet")
    assert hygiene._PROMPT is lexicons.regex("hygiene.prompt")
    assert len(lexicons.names()) >= 5 and sum(len(lexicons.load(n).entries) for n in lexicons.names()) >= 60


# ------------------------------------------------------------------ synonyms


def test_the_synonym_table_is_ours_and_maps_each_example_pair_together():
    import yaml as _yaml

    from debate_core.checks import lexicons

    groups = lexicons.synonym_groups()
    pairs = sum(len(g) * (len(g) - 1) // 2 for g in groups)
    assert len(groups) >= 60 and pairs >= 60
    words = [w for g in groups for w in g]
    assert len(words) == len(set(words))  # a word belongs to one group
    raw = _yaml.safe_load((Path(lexicons.__file__).resolve().parent.parent / "resources/lexicons/synonyms.yaml")
                          .read_text(encoding="utf-8"))["groups"]
    for g in raw:
        a, b = g["example"]
        assert a != b and lexicons.canon(a) == lexicons.canon(b), g
    assert lexicons.canon("浅薄") == lexicons.canon("陋劣") and lexicons.canon("末世") == lexicons.canon("末法")


def test_a_faithful_paraphrase_with_synonyms_passes_and_an_added_claim_still_fails(ctx):
    summary = "印光立净土：末法众生根机浅薄，自力难以出离，须直接仗佛力往生；引《文钞》。"
    c = CheckContext(speaker=ctx.speaker, opponent=ctx.opponent, role="反驳", opponent_summary=summary)
    para = "印光大师上一轮认为，末世众生根器陋劣，己力难以出离，须径直仗他力往生。"
    f = check_restatement(para + "然而本宗以为自性本具。", c)
    assert f.passed, f.message
    before = check_restatement("印光大师上一轮认为，末世众生根器陋劣，己力难以出离。", c)
    assert before.passed, before.message
    added = check_restatement(para.rstrip("。") + "，参禅的人都是妄想空谈。", c)
    assert not added.passed
    extra = check_restatement("印光大师上一轮认为，末世众生根器陋劣，须径直仗他力往生，又主张出家人应当另建寺院广收门徒。", c)
    assert not extra.passed and "加入了" in extra.message, extra.message


# ------------------------------------------------------------------ engages


def _engage_ctx(ctx, summary, role="反驳", plan=None):
    return CheckContext(speaker=ctx.speaker, opponent=ctx.opponent, role=role, opponent_summary=summary, plan=plan)


_ENG_SUMMARY = "印光立净土：末法众生根机浅薄，自力难以出离，主张信愿持名、仗佛力往生；引《文钞》。"
_ENG_RESTATE = "印光大师上一轮认为，末法众生根机浅薄，自力难以出离，主张信愿持名、仗佛力往生。"


def test_engages_passes_a_body_that_answers_the_restated_points_even_in_other_words(ctx):
    from debate_core.checks import check_engages

    body = ("本宗以为，众生根器虽然陋劣，己力出离虽难，本心却人人具足。"
            "信愿持名若能向自心认取，念佛便是见性的功夫；仗他力往生之说，也不离自心。")
    f = check_engages(_ENG_RESTATE + body, _engage_ctx(ctx, _ENG_SUMMARY))
    assert f.passed and f.applies, f.message


def test_engages_fails_a_body_that_turns_to_another_subject_naming_the_point(ctx):
    from debate_core.checks import check_engages

    body = ("今天要谈的是出家人的威仪。行住坐卧，衣钵整齐，早晚功课不可懈怠。"
            "寺院的清规自百丈以来代代相传，丛林里的执事各司其职，这是僧团得以长久的缘故。")
    f = check_engages(_ENG_RESTATE + body, _engage_ctx(ctx, _ENG_SUMMARY))
    assert not f.passed and not f.undecided
    assert "没有回应对方的论点「" in f.message and "\n" not in f.message
    assert any(p in f.message for p in ("末法众生根机浅薄", "自力难以出离", "主张信愿持名", "仗佛力往生"))


def test_engages_is_not_applicable_outside_rebuttals_and_undecided_without_a_summary(ctx):
    from debate_core.checks import check_engages

    f = check_engages(_ENG_RESTATE, _engage_ctx(ctx, _ENG_SUMMARY, role="立论"))
    assert f.applies is False
    f = check_engages(_ENG_RESTATE + "本宗以为。", _engage_ctx(ctx, "", role="回应"))
    assert f.undecided and not f.passed and f.message.startswith("无法判定")


def test_engages_reads_the_plan_of_an_offline_speech(ctx):
    from debate_core.checks import check_engages
    from debate_core.plans import PlanPoint, SpeechPlan

    body = "持戒坐禅各有次第，行者须自量其力，如登阶梯一步一步走上去，不可躐等。"
    text = _ENG_RESTATE + body
    plan = SpeechPlan(role="反驳", points=[
        PlanPoint(kind="restate", target="yinguang:pure-land#1", target_text="根机浅薄"),
        PlanPoint(kind="answer", target="yinguang:pure-land#1", text=body)])
    assert not check_engages(text, _engage_ctx(ctx, _ENG_SUMMARY)).passed
    f = check_engages(text, _engage_ctx(ctx, _ENG_SUMMARY, plan=plan))
    assert f.passed and "发言计划" in f.message, f.message
    # a plan whose answer is not in the body does not vouch for it
    other = plan.model_copy(update={"points": [plan.points[0], PlanPoint(kind="answer", target="yinguang:pure-land#1",
                                                                         text="完全不同的一段话，说的是别的事情。")]})
    assert not check_engages(text, _engage_ctx(ctx, _ENG_SUMMARY, plan=other)).passed


def test_a_transcript_with_the_old_engages_label_reads_back_as_engages():
    from debate_core.render.master import rule_from_label, rule_label

    assert rule_label("engages") == "回应论点"
    assert rule_from_label("回应论点") == "engages" and rule_from_label("切题回应") == "engages"


def test_hygiene_leaves_the_askers_own_words_quoted_from_the_topic(dctx):
    # a helper's case on a translator afraid of AI: the opening quotes the question (你提的是「…AI…」), and the
    # English word in it is the asker's, not the speech's; the same word in the speech's own words still fails
    import dataclasses

    topic = "我是做翻译的，担心工作被AI取代，心里很焦虑，怎么办？"
    body = "依我所学，先把这一念焦虑看清楚，它来了又走，不必跟着它跑到十年以后去【坛经，T48n2008】。" * 4
    quoted = f"你提的是「{topic}」。" + body
    assert not check_hygiene(quoted, dctx).passed  # no topic known: the word is read as the speech's
    with_topic = dataclasses.replace(dctx, topic=topic)
    assert check_hygiene(quoted, with_topic).passed
    assert not check_hygiene(quoted + "作为一个AI，我只能这样回答。", with_topic).passed
