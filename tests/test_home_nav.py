"""Issue 25 item 9 (Home and navigation) and item 4 (copy link) through AppTest, on a real archive with
real offline debates: a "Start a debate" path whatever the archive holds, the recent debates listed once
(one table, the ticked or newest row's links below it), both languages; the shareable address of a page.
The deep link as a first visit (the full sidebar, the language selector) is in tests/test_browser.py."""

from __future__ import annotations

import time

import pytest

from tests.app_support import REPO, judged_debate, offline_debate
from tests.test_app import archive, archive_path  # noqa: F401 - the app tests' fixtures

AppTest = pytest.importorskip("streamlit.testing.v1").AppTest

from webapp import i18n  # noqa: E402


def home(lang: str = "en", url: str | None = None):
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.query_params["lang"] = lang
    if url:
        at.context["url"] = url
    i18n.MISSING.clear()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def links(at) -> list[tuple[str, str, str]]:
    return [(p.proto.page, p.proto.label, p.proto.query_string) for p in at.get("page_link")]


def test_start_path_on_an_empty_and_a_full_archive(archive_path, archive):
    at = home()
    assert [label for page, label, _q in links(at) if page == "Setup"][0] == "Start a debate"
    assert "No debate in the archive yet" in "\n".join(i.value for i in at.info)

    offline_debate(archive)
    judged_debate(archive, "topic")
    at = home()
    assert [label for page, label, _q in links(at) if page == "Setup"][0] == "Start a debate"  # still first
    assert not at.info


def test_recent_debates_are_listed_once_with_the_newest_links(archive_path, archive):
    older = offline_debate(archive)
    time.sleep(1.1)  # created_at is kept to the second: the newest is newer, not a tie
    newest = offline_debate(archive)
    at = home()
    assert len(at.dataframe) == 1
    assert set(at.dataframe[0].value["id"]) == {older.id, newest.id}
    lines = [m.value for m in at.markdown if older.id in m.value or newest.id in m.value]
    assert len(lines) == 1 and lines[0].startswith("**Newest** · `") and newest.id in lines[0]  # no second list
    assert newest.topic not in lines[0] and newest.topic in [m.value for m in at.markdown]  # its own line: content
    opened = {(page, label): q for page, label, q in links(at) if f"={newest.id}" in q}
    assert set(opened) == {("Outcome", "Outcome"), ("Live", "Live"), ("Present", "Present"),
                           ("Compare", "Compare with…")}
    assert opened[("Compare", "Compare with…")] == f"a={newest.id}&lang=en"
    assert not any(f"={older.id}" in q for _p, _l, q in links(at))


def test_home_in_chinese_names_every_page_and_the_start_path(archive_path, archive):
    offline_debate(archive)
    at = home("zh")
    assert not i18n.MISSING, sorted(i18n.MISSING)
    labels = [label for _p, label, _q in links(at)]
    assert labels[0] == "开始一场辩论"
    assert {"设置", "实况", "结果", "档案", "演示", "对比"} <= set(labels)
    assert "两场辩论并排，逐轮对照" in [c.value for c in at.caption]
    assert any(m.value.startswith("**最新** · ") for m in at.markdown)
    assert "语言" in at.dataframe[0].value.columns or "编号" in at.dataframe[0].value.columns
    assert at.sidebar.radio[0].label == "Language · 语言"


def test_copy_link_is_the_pages_address_with_the_debate_and_language(archive_path, archive):
    from webapp import ui

    d = offline_debate(archive)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.switch_page("pages/3_Outcome.py")
    at.query_params["id"] = d.id
    at.query_params["lang"] = "zh"
    at.context["url"] = "http://127.0.0.1:8501/Outcome"
    at.run()
    assert not at.exception and not at.error
    assert [c.value for c in at.code] == [f"http://127.0.0.1:8501/Outcome?id={d.id}&lang=zh"]
    assert "本页的分享地址：点框右侧的复制按钮即可复制。" in [c.value for c in at.caption]
    assert ui.share_url("compare", a="x", b=None) == "/Compare?a=x&lang=en"  # no browser: the path alone
