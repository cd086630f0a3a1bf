"""A Chinese debate names a mixed-script source by its Chinese title, or by its id alone, and the
citation check accepts that Chinese title as naming the source (issue 12)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from debate_core.checks import CheckContext, check_citations
from debate_core.content.titles import chinese_title, title_matches
from debate_core.content.packs import load_pack

FIXTURE = Path(__file__).parent / "fixtures" / "reader-pack"
LATIN_RUN = re.compile(r"[A-Za-zÀ-ɏḀ-ỿ]{2,}")


@pytest.mark.parametrize("title, zh", [
    ("Mountain Letters（《山中书简》）", "山中书简"),           # the Chinese title inside （《…》）
    ("清溪语录 (Qingxi yulu)", "清溪语录"),                     # the Chinese title before a Latin gloss
    ("Hill Talks (《山谈》《山居夜话》)", "山谈"),               # two Chinese names: the first
    ("溪声集（溪声十首，Xisheng ji）", "溪声集"),                # Chinese outside the brackets wins
    ("Collected Evening Talks", ""),                           # no Chinese name: none is made up
    ("山居问答经", "山居问答经"),                               # already Chinese: unchanged
])
def test_chinese_title_is_the_chinese_part_and_names_its_source(title, zh):
    assert chinese_title(title) == zh
    if zh:
        assert title_matches(zh, title)


@pytest.fixture(scope="module")
def pack():
    return load_pack(FIXTURE)


@pytest.fixture
def ctx(pack):
    m = pack.masters["qingxi"]
    return CheckContext(speaker=m, opponent=m, role="立论", pack=pack, pack_source_ids=pack.all_source_ids())


def test_the_check_accepts_the_chinese_sub_title(ctx):
    f = check_citations("放下并不难，难在肯不肯松手【《山中书简》，QX:Letters】。", ctx)
    assert f.passed, f.message
    assert [m.title for m in f.marks] == ["山中书简"]
    # the Chinese title of another source is still a mismatch
    f = check_citations("放下并不难【《山居问答经》，QX:Letters】。", ctx)
    assert not f.passed and "书名与编号不符" in f.message


def test_a_mark_without_a_written_title_shows_no_english(ctx):
    f = check_citations("放下并不难，难在肯不肯松手【QX:Letters】。", ctx)
    assert f.passed, f.message
    assert f.marks[0].title == "山中书简"


def test_the_engine_cites_the_chinese_title_or_the_id_alone(pack, skill_pack):
    from debate_core.engines.offline.compose import cite

    m = pack.masters["qingxi"]
    assert cite(m, "QX:Letters") == "【《山中书简》，QX:Letters】"
    chah, mahasi = skill_pack.masters["ajahn-chah"], skill_pack.masters["mahasi-sayadaw"]
    assert cite(chah, "AjahnChah:FoodForTheHeart") == "【《心灵的资粮》，AjahnChah:FoodForTheHeart】"
    assert cite(mahasi, "Mahasi:ProgressOfInsight") == "【Mahasi:ProgressOfInsight】"
    for m in (chah, mahasi):
        for s in m.sources:
            title = re.findall(r"^【《(.*)》，", cite(m, s.id))  # the title written, if any; the id is Latin
            assert not (title and LATIN_RUN.search(title[0])), (s.id, title)
