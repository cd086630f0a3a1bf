"""Persona packs: loading both real packs, and every validation rule on broken copies."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from debate_core.content.packs import PackError, load_pack, pair_key
from tests.conftest import DEFAULT_PACK, SKILL_FIXTURE, need_reference, run_cli

SEED_PAIRS = [("huineng", "yinguang"), ("kumarajiva", "xuanzang"), ("huineng", "zhiyi"), ("tsongkhapa", "huineng"),
              ("ajahn-chah", "mahasi-sayadaw"), ("atisha", "huineng"), ("ouyi", "yinguang"), ("ouyi", "tsongkhapa")]
SEED_MASTERS = ["huineng", "yinguang", "kumarajiva", "xuanzang", "zhiyi", "tsongkhapa", "ajahn-chah",
                "mahasi-sayadaw", "atisha", "ouyi"]


def test_reference_pack_loads_as_it_is(reference_pack):
    r = reference_pack.report
    assert (r.masters, r.critiques, r.pairs_both_ways, r.one_way, r.errors) == (15, 26, 8, 10, 0)
    huineng = reference_pack.masters["huineng"]
    assert huineng.name == "慧能大师" and "T48n2008" in huineng.source_ids
    assert huineng.excerpts and any(e.source_id == "T48n2008" for e in huineng.excerpts)
    assert huineng.voice_notes and huineng.teaching_notes
    # fields the schema does not name are kept, not dropped
    assert reference_pack.masters["tsongkhapa"].model_extra.get("name_tib")
    assert reference_pack.protocol.per_pair_overrides["huineng-vs-tsongkhapa"].default_rounds == 5


def test_fixture_pack_loads_as_it_is(skill_fixture_pack):
    """The project's own Master-skill pack (tests/fixtures/master-skill-mini) loads with no problem: the
    fifteen masters of the upstream pack, 22 critiques, the eight seed pairs covered both ways and six
    one-way entries.  The twin of test_reference_pack_loads_as_it_is, on a pack every clone has."""
    pack = skill_fixture_pack
    r = pack.report
    assert (r.masters, r.critiques, r.pairs_both_ways, r.one_way, r.errors, r.warnings) == (15, 22, 8, 6, 0, 0), \
        [str(p) for p in r.problems]
    assert pack.name == "master-skill-mini" and set(pack.masters) == set(SEED_MASTERS) | {
        "buddhaghosa", "fazang", "milarepa", "nagarjuna", "xuyun"}
    assert r.pairs == sorted(pair_key(a, b) for a, b in SEED_PAIRS)
    assert r.one_way_entries == ["buddhaghosa->kumarajiva", "fazang->xuanzang", "huineng->xuanzang",
                                 "milarepa->tsongkhapa", "nagarjuna->buddhaghosa", "xuyun->yinguang"]
    huineng = pack.masters["huineng"]
    assert huineng.name == "慧能大师" and "T48n2008" in huineng.source_ids
    assert huineng.excerpts and any(e.source_id == "T48n2008" for e in huineng.excerpts)
    assert huineng.voice_notes and huineng.teaching_notes
    for m in pack.masters.values():  # every master has excerpts, notes and teachings, each of his own sources
        assert m.excerpts and all(e.source_id in m.source_ids for e in m.excerpts), m.slug
        assert m.voice_notes and m.teaching_notes and len(m.teachings) >= 10, m.slug
    # a ``> 出处：【SC: …】`` line names SuttaCentral; fields the schema does not name are kept
    assert {e.source_id for e in pack.masters["ajahn-chah"].excerpts} >= {"SuttaCentral", "AjahnChah:LivingDhamma"}
    assert pack.masters["ajahn-chah"].model_extra.get("name_thai")
    assert pack.masters["tsongkhapa"].model_extra.get("name_tib")
    assert pack.protocol.per_pair_overrides["kumarajiva-vs-xuanzang"].default_rounds == 5
    assert pack.protocol.per_pair_overrides["huineng-vs-tsongkhapa"].default_rounds == 4
    assert "help" not in pack.masters  # master-help has no meta.json: a meta-skill, not a persona


def test_default_pack_is_complete_and_valid(default_pack):
    r = default_pack.report
    assert r.errors == 0, [str(p) for p in r.problems]
    assert set(SEED_MASTERS) <= set(default_pack.masters)
    for a, b in SEED_PAIRS:
        assert default_pack.masters[a].ammo_against(b), f"{a} has no critique of {b}"
        assert default_pack.masters[b].ammo_against(a), f"{b} has no critique of {a}"
    assert r.pairs_both_ways >= 8
    for slug in SEED_MASTERS:
        m = default_pack.masters[slug]
        assert m.sources and m.search_scope.keywords and m.school and m.era and m.signature_phrases
        assert sum(len(e.points) for e in m.excerpts) >= 12, slug
        assert all(e.source_id in m.source_ids for e in m.excerpts), slug


def test_default_pack_prose_is_our_own(default_pack):
    """No 12-character run of the default pack's prose appears in the reference pack."""
    ref = need_reference("compares the default pack's prose with the upstream pack's")
    corpus = "".join(p.read_text(encoding="utf-8") for p in ref.rglob("*") if p.suffix in (".json", ".md"))
    texts = []
    for m in default_pack.masters.values():
        texts += [c.position for c in m.cross_critique] + [m.style.all, m.style.qa, m.style.monologue]
        texts += [p for e in m.excerpts for p in e.points]
    copied = [t for t in texts if any(t[i:i + 12] in corpus for i in range(0, max(1, len(t) - 11)))]
    assert not copied, copied[:3]


PROSE_RUN = re.compile(r"[\u4e00-\u9fff，。；：、？！]{12,}")


def test_fixture_pack_prose_is_our_own():
    """No 12-character run of the fixture pack's prose appears in the upstream pack.  The block quote
    under each 原典（节选） is left out: a short line of the canonical text itself (the sutra's words,
    which both packs quote), never the upstream pack's own prose."""
    ref = need_reference("compares the fixture's prose with the upstream pack's")
    corpus = "".join(p.read_text(encoding="utf-8") for p in ref.rglob("*") if p.suffix in (".json", ".md"))
    texts = []
    for f in sorted(SKILL_FIXTURE.rglob("*")):
        if f.suffix == ".md":
            before = ""
            for ln in (x.strip() for x in f.read_text(encoding="utf-8").splitlines() if x.strip()):
                if not (ln.startswith(">") and before.startswith("原典")):  # the canonical line under 原典
                    texts.append(ln)
                    before = ln
        elif f.suffix == ".json":
            data = json.loads(f.read_text(encoding="utf-8"))
            texts += [c["position"] for c in data.get("cross_critique", [])]
            texts += [v for v in (data.get("style") or {}).values()]
            texts += [t["content"] for t in data.get("lore_triggers", [])]
            texts += [x for q in data.get("starter_questions", []) for x in (q["q"], q["why"])]
    runs = [r for t in texts for r in PROSE_RUN.findall(t)]  # Chinese prose, not ids, titles or markup
    copied = [r for r in runs if any(r[i:i + 12] in corpus for i in range(0, len(r) - 11))]
    assert runs and not copied, copied[:5]


def _copy(tmp_path, src):
    dst = tmp_path / "pack"
    shutil.copytree(src, dst)
    return dst


# The masters each broken-copy test breaks: one with bad JSON, one missing its name.
BROKEN = {"prebuilt": ("zhiyi", "xuanzang"), "master-skill-mini": ("mahasi-sayadaw", "xuanzang")}


def _edit(path, fn):
    data = json.loads(path.read_text(encoding="utf-8"))
    fn(data)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def test_every_problem_names_file_field_and_value(tmp_path, skill_pack_path):
    bad_json, no_name = BROKEN[skill_pack_path.name]
    whole = load_pack(skill_pack_path).report.masters
    root = _copy(tmp_path, skill_pack_path)
    (root / f"master-{bad_json}" / "meta.json").write_text('{"name": "某", "slug": ', encoding="utf-8")  # bad JSON
    _edit(root / f"master-{no_name}" / "meta.json", lambda d: d.pop("name"))  # missing field
    _edit(root / "master-huineng" / "meta.json", lambda d: (
        d["cross_critique"].append({"target_master": "nobody", "position": "x", "citation": "T48n2008"}),
        d["cross_critique"].append({"target_master": "huineng", "position": "x", "citation": "T48n2008"}),
        d["cross_critique"].append({"target_master": "yinguang", "position": "x", "citation": "T99n9999"}),
        d.__setitem__("brand_new_field", {"kept": True}),
    ))
    _edit(root / "master-debate" / "meta.json", lambda d: d["debate_protocol"]["per_pair_overrides"].update({
        "yinguang-vs-huineng": {"default_rounds": 4},  # unsorted
        "ghost-vs-huineng": {"default_rounds": 4},  # unknown slug
        "huineng-vs-xuyun": {"default_rounds": 9},  # outside [2, 6]
    }))
    pack = load_pack(root)
    probs = pack.report.problems
    def find(file_part, field_part="", value=""):
        return [p for p in probs if file_part in p.file and field_part in p.field and value in p.value]
    assert find(f"master-{bad_json}", "line 1") and "bad JSON" in find(f"master-{bad_json}")[0].message
    assert find(f"master-{no_name}", "name")[0].message == "missing required field"
    assert "unknown master" in find("master-huineng", "target_master", "nobody")[0].message
    assert "itself" in find("master-huineng", "target_master", "huineng")[0].message
    assert "sources[].id" in find("master-huineng", "citation", "T99n9999")[0].message
    assert "sorted" in find("master-debate", "per_pair_overrides", "yinguang-vs-huineng")[0].message
    assert "known master" in find("master-debate", "per_pair_overrides", "ghost-vs-huineng")[0].message
    assert find("master-debate", "huineng-vs-xuyun.default_rounds", "9")
    # broken masters do not stop the others; extra fields survive
    assert pack.report.masters == whole - 2 and "huineng" in pack.masters and bad_json not in pack.masters
    assert pack.masters["huineng"].model_extra["brand_new_field"] == {"kept": True}
    assert pack.report.errors == len([p for p in probs if p.severity == "error"]) >= 8
    for p in probs:
        assert p.file and p.message and str(p).startswith(p.severity)


def test_excerpt_citing_unknown_source_is_reported(tmp_path, skill_pack_path):
    root = _copy(tmp_path, skill_pack_path)
    (root / "master-huineng" / "sources" / "extra.md").write_text("## 主题\n来源：T01n0001\n- 一条要点。\n",
                                                                 encoding="utf-8")
    probs = load_pack(root).report.problems
    assert any("extra.md" in p.file and p.value == "T01n0001" for p in probs)


def test_unusable_folder_is_an_error(tmp_path):
    with pytest.raises(PackError, match="not found"):
        load_pack(tmp_path / "missing")
    with pytest.raises(PackError, match="no master"):
        load_pack(tmp_path)


def test_pair_key_sorts_then_joins():
    assert pair_key("yinguang", "huineng") == "huineng-vs-yinguang"
    assert pair_key("mahasi-sayadaw", "ajahn-chah") == "ajahn-chah-vs-mahasi-sayadaw"


PACK_COUNTS = {"prebuilt": {"masters": 15, "critiques": 26, "pairs_both_ways": 8, "one_way": 10, "errors": 0},
               "master-skill-mini": {"masters": 15, "critiques": 22, "pairs_both_ways": 8, "one_way": 6, "errors": 0}}


def test_pack_check_cli_json(skill_pack_path):
    out = run_cli("pack", "check", str(skill_pack_path), "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert {k: data[k] for k in PACK_COUNTS[skill_pack_path.name]} == PACK_COUNTS[skill_pack_path.name]


def test_pack_check_cli_fails_on_errors(tmp_path, skill_pack_path):
    root = _copy(tmp_path, skill_pack_path)
    (root / "master-xuanzang" / "meta.json").write_text("{", encoding="utf-8")
    out = run_cli("pack", "check", str(root))
    assert out.returncode == 1
    assert "master-xuanzang/meta.json" in out.stdout and "bad JSON" in out.stdout


def test_default_pack_check_cli():
    out = run_cli("pack", "check", str(DEFAULT_PACK), "--format", "json")
    assert out.returncode == 0, out.stdout
    assert json.loads(out.stdout)["errors"] == 0


def test_a_debate_on_a_pack_with_a_broken_file_says_so_in_chinese(tmp_path):
    root = tmp_path / "pack"
    shutil.copytree(DEFAULT_PACK, root)
    (root / "master-huineng" / "meta.json").write_text("{", encoding="utf-8")
    out = run_cli("debate", "禅净之争", "--pack", str(root), "--archive", str(tmp_path / "a.duckdb"), "--quiet")
    assert out.returncode == 0, out.stderr
    warning = next(line for line in out.stdout.splitlines() if "人物包有" in line)
    assert "出错的部分没有载入" in warning and "master-huineng/meta.json" in warning
    headings = [line for line in out.stdout.splitlines() if line.startswith("### R")]
    assert len(headings) == 4 and not any("慧能" in h for h in headings)  # the broken master does not speak
