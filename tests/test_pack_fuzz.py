"""Bad packs, tried and answered: random JSON, wrong types, huge files, odd Unicode.

Whatever a pack folder holds, :func:`debate_core.content.packs.load_pack` returns a pack with
a validation report (problems naming file, field and value) and never raises anything
but :class:`~debate_core.content.packs.PackError` for a folder that is unusable as a whole.
The report must also survive being printed and dumped as JSON (what ``pack check``
does), so a lone surrogate or a NUL in a pack cannot crash the CLI either.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from debate_core.models import PackReport
from debate_core.content.packs import MAX_META_BYTES, PackError, load_pack
from tests.conftest import DEFAULT_PACK, run_cli

BASE_MASTERS = ("huineng", "yinguang")
META = {slug: json.loads((DEFAULT_PACK / f"master-{slug}" / "meta.json").read_text("utf-8")) for slug in BASE_MASTERS}
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Any code point, lone surrogates included (json.dumps writes them as \udXXX escapes).
odd_text = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=()), max_size=40)
json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | odd_text
json_values = st.recursive(json_scalars, lambda kids: st.lists(kids, max_size=4)
                           | st.dictionaries(odd_text, kids, max_size=4), max_leaves=16)


def make_pack(root: Path) -> Path:
    """A small valid pack: two masters that critique each other, and the protocol file."""
    for slug in BASE_MASTERS:
        shutil.copytree(DEFAULT_PACK / f"master-{slug}", root / f"master-{slug}")
    (root / "master-debate").mkdir()
    (root / "master-debate" / "meta.json").write_text(json.dumps(
        {"debate_protocol": {"default_rounds": 4, "max_rounds": 6, "min_rounds": 2}}), "utf-8")
    (root / "pack.json").write_text(json.dumps({"name": "fuzz", "version": "0.1"}), "utf-8")
    return root


def check_report(root: Path, broken: str = "") -> PackReport:
    """Load ``root``: a report (never an exception), printable and JSON-dumpable as UTF-8."""
    try:
        pack = load_pack(root)
    except PackError as exc:  # the only refusal allowed: the folder as a whole is unusable
        assert str(exc) and "\n" not in str(exc)
        return None  # type: ignore[return-value]
    r = pack.report
    assert r.errors == sum(p.severity == "error" for p in r.problems)
    assert r.masters == len(pack.masters)
    for p in r.problems:
        assert p.file and p.message
        str(p).encode("utf-8")  # what `pack check` prints
    json.dumps(r.model_dump(mode="json"), ensure_ascii=False).encode("utf-8")  # what `pack check --format json` prints
    if broken:
        slug = broken
        if slug not in pack.masters:  # a master that did not load is explained by a problem on its file
            assert any(p.file == f"master-{slug}/meta.json" and p.severity == "error" for p in r.problems), \
                [str(p) for p in r.problems]
    return r


def with_meta(text: str | bytes, slug: str = "huineng") -> PackReport:
    with tempfile.TemporaryDirectory() as tmp:
        root = make_pack(Path(tmp))
        path = root / f"master-{slug}" / "meta.json"
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
        return check_report(root, slug)


# ------------------------------------------------------------------ fuzzing


@FUZZ
@given(json_values)
def test_any_json_value_as_meta_json(value):
    with_meta(json.dumps(value))


@FUZZ
@given(st.sampled_from(sorted(META["huineng"])), json_values)
def test_a_field_of_the_wrong_type(field, value):
    meta = dict(META["huineng"], **{field: value})
    with_meta(json.dumps(meta))


@FUZZ
@given(st.sampled_from(["sources", "cross_critique", "starter_questions", "lore_triggers"]),
       st.integers(0, 2), st.sampled_from(["id", "target_master", "citation", "position", "q", "keys", "title"]),
       json_values)
def test_a_nested_field_of_the_wrong_type(field, index, key, value):
    meta = json.loads(json.dumps(META["huineng"]))
    items = meta.get(field) or [{}]
    item = items[min(index, len(items) - 1)]
    if isinstance(item, dict):
        item[key] = value
    meta[field] = items
    with_meta(json.dumps(meta))


@FUZZ
@given(st.sampled_from(sorted(META["huineng"])))
def test_a_missing_field(field):
    meta = {k: v for k, v in META["huineng"].items() if k != field}
    r = with_meta(json.dumps(meta))
    if field in ("name", "slug"):
        assert any(p.field == field and p.message == "missing required field" for p in r.problems)


@FUZZ
@given(st.binary(max_size=200))
def test_random_bytes_as_meta_json(data):
    with_meta(data)


@FUZZ
@given(st.text(max_size=200))
def test_random_text_as_meta_json(text):
    with_meta(text)


@FUZZ
@given(odd_text, odd_text, odd_text)
def test_odd_unicode_in_names_slugs_and_ids(name, slug, source_id):
    meta = dict(META["huineng"], name=name, slug=slug,
                sources=[{"type": "cbeta", "id": source_id, "title": name}] + META["huineng"]["sources"])
    with_meta(json.dumps(meta))  # ensure_ascii: lone surrogates become \udXXX escapes
    with_meta(json.dumps(meta, ensure_ascii=False).encode("utf-8", "surrogatepass"))  # and raw (invalid UTF-8)


@FUZZ
@given(json_values)
def test_any_json_as_the_protocol_and_pack_info(value):
    with tempfile.TemporaryDirectory() as tmp:
        root = make_pack(Path(tmp))
        (root / "master-debate" / "meta.json").write_text(json.dumps({"debate_protocol": value}), "utf-8")
        (root / "pack.json").write_text(json.dumps(value), "utf-8")
        r = check_report(root)
        assert r.masters == 2


@FUZZ
@given(st.dictionaries(odd_text, st.dictionaries(st.sampled_from(["default_rounds", "x"]), json_values, max_size=2),
                       max_size=4))
def test_any_per_pair_overrides(overrides):
    with tempfile.TemporaryDirectory() as tmp:
        root = make_pack(Path(tmp))
        (root / "master-debate" / "meta.json").write_text(json.dumps(
            {"debate_protocol": {"default_rounds": 4, "per_pair_overrides": overrides}}), "utf-8")
        check_report(root)


@FUZZ
@given(st.text(max_size=400), st.sampled_from(["a.md", "INDEX.md", "x.md"]))
def test_any_markdown_as_a_source_file(text, name):
    with tempfile.TemporaryDirectory() as tmp:
        root = make_pack(Path(tmp))
        (root / "master-huineng" / "sources" / name).write_text(text, "utf-8", errors="surrogatepass")
        r = check_report(root)
        assert r.masters == 2


# -------------------------------------------------------------- the extremes


@pytest.mark.parametrize("text,expect", [
    ("1" * 5000, "bad JSON"),  # an integer longer than Python's 4300-digit limit
    ('{"name": ' + "9" * 10_000 + "}", "bad JSON"),
    ("[" * 200_000 + "]" * 200_000, "nested too deeply"),
    ('{"a": ' * 100_000 + "1" + "}" * 100_000, "nested too deeply"),
    ("\ufeff" + json.dumps(META["huineng"]), ""),  # a UTF-8 BOM
    (json.dumps(META["huineng"]).replace('"slug"', '"slug\\u0000"'), ""),  # NUL in a key
    ("", "bad JSON"),
    ("null", "top level must be a JSON object"),
    ('"\\ud800"', "lone surrogate"),
], ids=["long-int", "long-int-field", "deep-list", "deep-object", "bom", "nul-key", "empty", "null", "surrogate"])
def test_extreme_meta_json(text, expect):
    t0 = time.monotonic()
    r = with_meta(text)
    assert time.monotonic() - t0 < 10
    if expect:
        assert any(expect in p.message for p in r.problems if p.file == "master-huineng/meta.json"), \
            [str(p) for p in r.problems]


def test_a_bom_is_accepted_and_a_lone_surrogate_is_named(tmp_path):
    r = with_meta("\ufeff" + json.dumps(META["huineng"]))
    assert r.masters == 2 and not [p for p in r.problems if "JSON" in p.message]
    r = with_meta(json.dumps(dict(META["huineng"], name="\ud800")))
    hits = [p for p in r.problems if "lone surrogate" in p.message]
    assert hits and hits[0].file == "master-huineng/meta.json" and hits[0].value == "'\\ud800'"


def test_a_huge_meta_json_is_refused_by_size_without_reading_it(tmp_path):
    root = make_pack(tmp_path)
    big = dict(META["huineng"], padding="字" * MAX_META_BYTES)
    (root / "master-huineng" / "meta.json").write_text(json.dumps(big, ensure_ascii=False), "utf-8")
    r = check_report(root, "huineng")
    assert any("byte limit" in p.message for p in r.problems)


def test_huge_source_and_reference_files_load_in_bounded_time(tmp_path):
    root = make_pack(tmp_path)
    section = "## 主题\n来源：T48n2008\n- " + "字" * 200 + "\n"
    (root / "master-huineng" / "sources" / "huge.md").write_text(section * 20_000, "utf-8")  # ~12 MB
    (root / "master-huineng" / "references" / "voice.md").write_text("声" * 3_000_000, "utf-8")
    t0 = time.monotonic()
    r = check_report(root)
    assert time.monotonic() - t0 < 30 and r.masters == 2


def test_odd_folder_shapes(tmp_path):
    root = make_pack(tmp_path)
    (root / "master-dir-meta").mkdir()
    (root / "master-dir-meta" / "meta.json").mkdir()  # a folder named meta.json
    (root / "master-yinguang" / "sources" / "folder.md").mkdir()  # a folder named *.md
    (root / "master-loop").mkdir()
    (root / "master-loop" / "meta.json").symlink_to(root / "master-loop" / "meta.json")  # a symlink loop
    (root / "master-dangling").mkdir()
    (root / "master-dangling" / "meta.json").symlink_to(tmp_path / "nowhere.json")
    (root / "master-字").mkdir()
    (root / "master-字" / "meta.json").write_text(json.dumps(dict(META["huineng"], slug="字")), "utf-8")
    (root / "master-").mkdir()
    (root / "master-" / "meta.json").write_text(json.dumps(dict(META["huineng"], slug="")), "utf-8")
    r = check_report(root)
    assert r.masters >= 2


def test_a_folder_with_nothing_usable_is_refused_in_one_line(tmp_path):
    with pytest.raises(PackError, match="no master-<slug>/meta.json"):
        load_pack(tmp_path)
    with pytest.raises(PackError, match="not found"):
        load_pack(tmp_path / "missing")
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(PackError, match="not a folder"):
        load_pack(f)


def test_pack_check_cli_reports_a_hostile_pack_without_a_traceback(tmp_path):
    root = make_pack(tmp_path / "p")
    (root / "master-huineng" / "meta.json").write_text('{"name": "\\ud800", "slug": 5, "sources": "x"}', "utf-8")
    (root / "master-yinguang" / "meta.json").write_bytes(b"\xff\xfe{")
    (root / "master-debate" / "meta.json").write_text("1" * 5000, "utf-8")
    for fmt in ("text", "json"):
        r = run_cli("pack", "check", str(root), "--format", fmt)
        assert r.returncode in (1, 2) and "Traceback" not in r.stderr, r.stderr
        out = r.stdout + r.stderr
        assert "master-yinguang/meta.json" in out or "no master" in out
