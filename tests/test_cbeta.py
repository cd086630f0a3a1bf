"""The CBETA XML P5 reader (debate_core/content/cbeta.py), on the miniature checkout in
tests/fixtures/cbeta (the real layout and markup around short texts written for the tests) and on
checkouts built in tmp_path. Real files, real parsing: nothing is mocked."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from debate_core.content import cbeta
from debate_core.content.cbeta import Canon, configured_canon, open_canon

FIXTURE = Path(__file__).parent / "fixtures" / "cbeta"

XML_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<TEI xmlns="http://www.tei-c.org/ns/1.0" xmlns:cb="http://www.cbeta.org/ns/1.0">'
    "<teiHeader><fileDesc><titleStmt><title>t</title></titleStmt></fileDesc></teiHeader>"
    "<text><body>"
)
XML_TAIL = "</body></text></TEI>\n"


def xml(body: str) -> str:
    return XML_HEAD + body + XML_TAIL


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def canon() -> Canon:
    return Canon(FIXTURE)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A writable copy of the fixture checkout."""
    root = tmp_path / "xml-p5"
    shutil.copytree(FIXTURE, root)
    return root


# --- ids and paths -----------------------------------------------------------------------------


def test_path_of_single_file(canon):
    assert canon.path_of("T48n2008") == [FIXTURE.resolve() / "T" / "T48" / "T48n2008.xml"]
    assert canon.path_of("T08n0235") == [FIXTURE.resolve() / "T" / "T08" / "T08n0235.xml"]
    assert canon.path_of("X62n1182") == [FIXTURE.resolve() / "X" / "X62" / "X62n1182.xml"]


def test_path_of_fascicle_files_in_order(canon):
    paths = canon.path_of("T09n0262")
    assert [p.name for p in paths] == ["T09n0262_001.xml", "T09n0262_002.xml"]


def test_path_of_unknown_or_malformed_id(canon):
    assert canon.path_of("T48n9999") == []
    assert canon.path_of("T47n2008") == []  # no such volume folder
    assert canon.path_of("Z99n0001") == []  # no such collection
    assert canon.path_of("T48-2008") == []
    assert canon.path_of("../T48n2008") == []
    assert canon.path_of("") == []
    assert canon.path_of("  T48n2008 ") == canon.path_of("T48n2008")


def test_split_id_forms():
    assert Canon.split_id("T48n2008") == ("T", "48", "2008")
    assert Canon.split_id("T02n0128a") == ("T", "02", "0128a")
    assert Canon.split_id("T48n2002A") == ("T", "48", "2002A")
    assert Canon.split_id("J01nA042") == ("J", "01", "A042")
    assert Canon.split_id("GA001n0001") == ("GA", "001", "0001")
    assert Canon.split_id("t48n2008") == ("T", "48", "2008")
    assert Canon.split_id("T48n2008.xml") is None
    assert Canon.split_id("T/T48/T48n2008") is None


def test_other_works_sharing_the_number_prefix_are_not_mixed_in(checkout):
    folder = checkout / "T" / "T09"
    write(folder / "T09n0262a.xml", xml("<p>別本</p>"))
    write(folder / "T09n02620.xml", xml("<p>別經</p>"))
    write(folder / "T09n0262_notes.xml", xml("<p>雜</p>"))
    c = Canon(checkout)
    assert [p.name for p in c.path_of("T09n0262")] == ["T09n0262_001.xml", "T09n0262_002.xml"]
    assert [p.name for p in c.path_of("T09n0262a")] == ["T09n0262a.xml"]


def test_fascicles_sort_numerically(checkout):
    folder = checkout / "T" / "T09"
    for n in (10, 3):
        write(folder / f"T09n0262_{n:03d}.xml", xml(f"<p>卷{n}</p>"))
    c = Canon(checkout)
    assert [p.name[-7:-4] for p in c.path_of("T09n0262")] == ["001", "002", "003", "010"]


# --- the text ----------------------------------------------------------------------------------


def test_text_keeps_body_head_byline_verse_and_punctuation(canon):
    t = canon.text("T48n2008")
    assert "試編壇經序" in t  # <head>
    assert "試編比丘某甲撰" in t  # <byline>
    assert "本來無一物，日用自分明。」" in t  # <lg>/<l>, caesura and line break joined
    assert "「善知識！" in t  # CJK punctuation kept
    assert not any(ch.isspace() for ch in t)  # whitespace and line breaks removed


def test_text_excludes_notes_readings_mulu_and_back(canon):
    t = canon.text("T48n2008")
    assert "此夾註之句唯在註中" not in t  # <note place="inline">
    assert "作禮異讀之文" not in t  # <rdg> inside the body
    assert "目錄標籤唯在此處" not in t  # <cb:mulu>
    assert "No.2008" not in t and "No. 2008" not in t  # <cb:docNumber>
    assert "校勘記之文唯在書末" not in t  # <back> apparatus notes
    assert "書末異讀之文" not in t  # <back> <app>/<rdg>
    assert "Test fixture" not in t  # <teiHeader>


def test_text_keeps_lem_and_the_text_around_skipped_elements(canon):
    t = canon.text("T48n2008")
    assert "弟子頂禮而呈" in t  # <lem> kept, its rdg dropped, tails kept
    assert "非言可盡，學者當自觀照" in t  # the text after a skipped note is kept
    assert "默然不語，良久乃作一偈" in t  # anchors are empty


def test_gaiji_mapped_through_char_decl(canon):
    t = canon.text("T48n2008")
    assert "遂以䟦語記之" in t  # mapping type="unicode"
    assert "記之，傳於後人" in t  # a gaiji with only a PUA mapping is dropped
    assert "如鑄金成麫" in canon.text("X62n1182")  # mapping type="normal_unicode"
    for text_id in ("T48n2008", "X62n1182"):
        assert not any(0xE000 <= ord(ch) <= 0xF8FF or ord(ch) >= 0xF0000 for ch in canon.text(text_id))


def test_choice_and_bilingual_lines(canon):
    t = canon.text("T08n0235")
    assert "眾比丘乞食已" in t and "迄" not in t  # <corr> kept, <sic> dropped
    assert "次說真言唵，試語已" in t  # Chinese line of <cb:tt> kept
    assert "Pali" not in t


def test_two_lb_numberings_and_lists(canon):
    t = canon.text("X62n1182")
    assert "是故念佛之人，先淨其心。" in t
    assert "示眾普說" in t and "門人試記" not in t


def test_multi_file_text_joined_in_order(canon):
    t = canon.text("T09n0262")
    order = [t.index(s) for s in ("第一卷初文", "第一卷終文", "第二卷初文", "第二卷終文")]
    assert order == sorted(order)
    assert "眾會歡喜" in t and "懽悅異讀" not in t
    assert "長者見子歸來" in t and "還來異讀" not in t
    assert canon.contains("T09n0262", "第一卷终文第二卷初文") is False  # the jhead sits between
    assert canon.contains("T09n0262", "各还本座……心大欢喜") is True


def test_text_of_unknown_work_is_empty(canon):
    assert canon.text("T48n9999") == ""


# --- quotation check ---------------------------------------------------------------------------


def test_simplified_quote_found_in_traditional_text(canon):
    assert canon.contains("T48n2008", "本来无一物") is True
    assert canon.contains("T48n2008", "本來無一物") is True
    assert canon.contains("T48n2008", "烦恼即菩提") is True
    assert canon.contains("X62n1182", "随其心净则佛土净") is True


def test_punctuation_whitespace_and_line_breaks_ignored(canon):
    assert canon.contains("T08n0235", "应无所住而生其心") is True  # the phrase spans two <lb>
    assert canon.contains("T08n0235", "「應無所住，而生其心！」") is True
    assert canon.contains("X62n1182", "隨其心淨 則佛土淨") is True
    assert canon.contains("T48n2008", "无一物日用") is True  # across a verse line


def test_quote_not_in_text(canon):
    assert canon.contains("T48n2008", "应无所住而生其心") is False
    assert canon.contains("T48n2008", "本来无二物") is False
    assert canon.contains("T48n2008", "") is False
    assert canon.contains("T48n2008", "，。！") is False


def test_ellipsis_pieces_must_occur_in_order(canon):
    assert canon.contains("T48n2008", "善知识……本来无一物") is True
    assert canon.contains("T48n2008", "善知识…煩惱即菩提") is True
    assert canon.contains("T48n2008", "心地法门...直了成佛...迷悟只在一念") is True
    assert canon.contains("T48n2008", "本来无一物……心地法门") is False  # out of order
    assert canon.contains("T48n2008", "本来无一物……应无所住") is False  # a piece missing
    assert canon.contains("T48n2008", "……本来无一物……") is True


def test_phrases_only_in_notes_readings_or_toc_are_not_found(canon):
    assert canon.contains("T48n2008", "此夹注之句唯在注中") is False
    assert canon.contains("T48n2008", "此夾註之句唯在註中") is False
    assert canon.contains("T48n2008", "作禮異讀之文") is False
    assert canon.contains("T48n2008", "目錄標籤唯在此處") is False
    assert canon.contains("T48n2008", "校勘記之文唯在書末") is False


def test_unknown_work_is_none(canon):
    assert canon.contains("T48n9999", "本来无一物") is None
    assert canon.contains("not-an-id", "本来无一物") is None


def test_variant_table_is_a_flat_fold():
    table = cbeta.VARIANTS
    assert len(table) >= 150
    assert all(len(k) == 1 and len(v) == 1 and k != v for k, v in table.items())
    assert not set(table) & set(table.values())  # no chains: one step folds
    for trad, simp in "說说 無无 爲为 為为 於于 眞真 淨净 經经 來来 門门 見见 覺觉 師师 衆众 眾众".split():
        assert table[trad] == simp
    assert cbeta.fold("「本來無一物！」") == cbeta.fold("本来无一物")


# --- configuration -----------------------------------------------------------------------------


def test_not_a_checkout_names_the_path(tmp_path):
    (tmp_path / "X").mkdir()
    with pytest.raises(ValueError) as e:
        Canon(tmp_path)
    msg = str(e.value)
    assert str(tmp_path) in msg and "no T/ folder" in msg and "\n" not in msg
    with pytest.raises(ValueError, match="no such folder") as e:
        Canon(tmp_path / "missing")
    assert str(tmp_path / "missing") in str(e.value)


def test_open_canon():
    assert open_canon(None) is None
    assert open_canon("") is None
    assert open_canon("   ") is None
    assert isinstance(open_canon(str(FIXTURE)), Canon)


def test_configured_canon_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv(cbeta.ENV_VAR, raising=False)
    assert configured_canon() is None
    monkeypatch.setenv(cbeta.ENV_VAR, "  ")
    assert configured_canon() is None
    monkeypatch.setenv(cbeta.ENV_VAR, str(FIXTURE))
    c = configured_canon()
    assert c is not None and c.contains("T48n2008", "本来无一物") is True
    assert configured_canon() is c  # kept, with its cache, while the variable is unchanged
    monkeypatch.setenv(cbeta.ENV_VAR, str(tmp_path))
    with pytest.raises(ValueError) as e:
        configured_canon()
    assert cbeta.ENV_VAR in str(e.value) and str(tmp_path) in str(e.value)
    assert cbeta.canon_from_env is configured_canon


# --- safety ------------------------------------------------------------------------------------


def test_entity_declaration_refused(canon):
    assert canon.path_of("T85n9001")
    with pytest.raises(ValueError) as e:
        canon.text("T85n9001")
    msg = str(e.value)
    assert "T85n9001.xml" in msg and "ENTITY" in msg and "\n" not in msg
    with pytest.raises(ValueError):
        canon.contains("T85n9001", "試")


def test_doctype_refused_and_broken_xml_reported(checkout):
    write(
        checkout / "T" / "T85" / "T85n9002.xml",
        '<?xml version="1.0"?>\n<!DOCTYPE TEI SYSTEM "http://example.invalid/tei.dtd">\n'
        + xml("<p>文</p>").split("\n", 1)[1],
    )
    write(checkout / "T" / "T85" / "T85n9003.xml", XML_HEAD + "<p>未閉")
    c = Canon(checkout)
    with pytest.raises(ValueError, match="DOCTYPE") as e:
        c.text("T85n9002")
    assert "T85n9002.xml" in str(e.value)
    with pytest.raises(ValueError, match="not well-formed") as e:
        c.text("T85n9003")
    assert "T85n9003.xml" in str(e.value) and "\n" not in str(e.value)


def test_entity_hidden_by_another_encoding_refused(checkout):
    folder = checkout / "T" / "T85"
    doc = (
        '<?xml version="1.0" encoding="UTF-16"?>\n<!DOCTYPE TEI [<!ENTITY x "試">]>\n'
        "<TEI><text><body><p>&x;</p></body></text></TEI>"
    )
    (folder / "T85n9005.xml").write_bytes(doc.encode("utf-16"))
    (folder / "T85n9006.xml").write_bytes(doc.replace("UTF-16", "ISO-8859-1").encode("latin-1", "replace"))
    c = Canon(checkout)
    with pytest.raises(ValueError, match="not UTF-8") as e:
        c.text("T85n9005")
    assert "T85n9005.xml" in str(e.value)
    with pytest.raises(ValueError, match="ISO-8859-1"):
        c.text("T85n9006")
    assert c.files_read == 0


def test_file_over_the_size_limit_refused_unread(checkout):
    big = checkout / "T" / "T85" / "T85n9004.xml"
    big.parent.mkdir(parents=True, exist_ok=True)
    with open(big, "wb") as fh:  # sparse: nothing is written, the size is what counts
        fh.truncate(cbeta.MAX_FILE_BYTES + 1)
    c = Canon(checkout)
    with pytest.raises(ValueError, match="MiB limit") as e:
        c.text("T85n9004")
    assert "T85n9004.xml" in str(e.value)
    assert c.files_read == 0


def test_symlink_leading_outside_the_checkout_is_ignored(checkout, tmp_path):
    outside = tmp_path / "outside"
    write(outside / "T48n7777.xml", xml("<p>本來無一物</p>"))
    write(outside / "T50" / "T50n0001.xml", xml("<p>本來無一物</p>"))
    link = checkout / "T" / "T48" / "T48n7777.xml"
    try:
        link.symlink_to(outside / "T48n7777.xml")
        (checkout / "T" / "T50").symlink_to(outside / "T50", target_is_directory=True)
    except (OSError, NotImplementedError):
        pytest.skip("symlinks are not available here")
    c = Canon(checkout)
    assert c.path_of("T48n7777") == []
    assert c.contains("T48n7777", "本来无一物") is None
    assert c.path_of("T50n0001") == []  # a volume folder linked outside
    assert c.contains("T50n0001", "本来无一物") is None
    # A link that stays inside the checkout is followed.
    (checkout / "T" / "T48" / "T48n7778.xml").symlink_to(checkout / "T" / "T48" / "T48n2008.xml")
    assert c.contains("T48n7778", "本来无一物") is True


def test_root_given_through_a_symlink(checkout, tmp_path):
    alias = tmp_path / "alias"
    try:
        alias.symlink_to(checkout, target_is_directory=True)
    except (OSError, NotImplementedError):
        pytest.skip("symlinks are not available here")
    assert Canon(alias).contains("T48n2008", "本来无一物") is True


# --- laziness and the cache ---------------------------------------------------------------------


def test_hundred_file_checkout_is_read_lazily(tmp_path):
    root = tmp_path / "big"
    ids = []
    for vol in range(1, 11):
        for k in range(10):
            text_id = f"T{vol:02d}n{vol * 100 + k:04d}"
            ids.append(text_id)
            # Every file but the one asked for would fail if it were read.
            body = (
                xml(f"<p>第{vol}冊第{k}經：本來無一物。</p>")
                if text_id == "T05n0503"
                else "<!ENTITY poison 'x'> not xml at all"
            )
            write(root / "T" / f"T{vol:02d}" / f"{text_id}.xml", body)
    assert len(ids) == 100
    c = Canon(root)
    assert c.files_read == 0
    for text_id in ids:
        assert len(c.path_of(text_id)) == 1
    assert c.files_read == 0  # finding files reads none of them
    assert c.contains("T05n0503", "第5册第3经……本来无一物") is True
    assert c.files_read == 1  # only the work asked for was parsed
    assert c.text("T05n0503").startswith("第5冊第3經")
    assert c.files_read == 1  # served from the cache
    with pytest.raises(ValueError, match="ENTITY"):
        c.text("T05n0504")


def test_cache_is_bounded(tmp_path):
    root = tmp_path / "many"
    n = cbeta.CACHE_TEXTS + 5
    for k in range(n):
        write(root / "T" / "T01" / f"T01n{k:04d}.xml", xml(f"<p>經{k}</p>"))
    c = Canon(root)
    for k in range(n):
        assert c.text(f"T01n{k:04d}") == f"經{k}"
    assert len(c._texts) == cbeta.CACHE_TEXTS
    assert c.files_read == n
    c.text(f"T01n{n - 1:04d}")  # the most recent is still cached
    assert c.files_read == n
    c.text("T01n0000")  # the oldest was evicted and is read again
    assert c.files_read == n + 1


def test_deeply_nested_markup_does_not_recurse(tmp_path):
    root = tmp_path / "deep"
    depth = 5000
    write(root / "T" / "T01" / "T01n0001.xml", xml("<p>" + "<hi>" * depth + "深" + "</hi>" * depth + "</p>"))
    assert Canon(root).text("T01n0001") == "深"


def test_fixture_is_in_the_real_layout():
    assert sorted(str(p.relative_to(FIXTURE)) for p in FIXTURE.rglob("*.xml")) == [
        os.path.join("T", "T08", "T08n0235.xml"),
        os.path.join("T", "T09", "T09n0262_001.xml"),
        os.path.join("T", "T09", "T09n0262_002.xml"),
        os.path.join("T", "T48", "T48n2008.xml"),
        os.path.join("T", "T85", "T85n9001.xml"),
        os.path.join("X", "X62", "X62n1182.xml"),
    ]
