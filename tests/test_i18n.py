"""The app's languages (zh / en): the catalogs, the extraction, and every page under ?lang=zh and ?lang=en.

* both catalogs (webapp/locales/<lang>/LC_MESSAGES/messages.po) hold the same msgids, each
  with a non-empty translation keeping the msgid's {placeholders};
* every string the code marks (``_()``, ``ngettext``, ``N_``) and every protocol spec's app
  string is in the catalogs (extracted with Babel and babel.cfg, as a translator would);
* AppTest renders every page in both languages: the known labels come out in that language,
  no label of the other language shows, and no msgid is missing from the catalog.
"""

from __future__ import annotations

import re

import pytest

from tests.app_support import REPO, judged_debate, offline_debate
from tests.test_app import archive, archive_path  # noqa: F401 - the app tests' fixtures

AppTest = pytest.importorskip("streamlit.testing.v1").AppTest

from webapp import i18n  # noqa: E402

PAGES = {"setup": "pages/1_Setup.py", "live": "pages/2_Live.py", "outcome": "pages/3_Outcome.py",
         "archive": "pages/4_Archive.py", "coverage": "pages/5_Coverage.py"}
PLACEHOLDER = re.compile(r"\{[a-z_]*\}")


def po(lang: str):
    from babel.messages.pofile import read_po

    with (REPO / "webapp" / "locales" / lang / "LC_MESSAGES" / "messages.po").open("rb") as fh:
        return read_po(fh, locale=lang)


def key(m) -> str:
    return m.id[0] if isinstance(m.id, (tuple, list)) else m.id


def forms(m) -> list[str]:
    return list(m.string) if isinstance(m.string, (tuple, list)) else [m.string]


# ----------------------------------------------------------------- catalogs


def test_both_catalogs_hold_the_same_keys_with_translations():
    en, zh = po("en"), po("zh")
    en_keys, zh_keys = {key(m) for m in en if m.id}, {key(m) for m in zh if m.id}
    assert en_keys == zh_keys, (en_keys ^ zh_keys)
    assert len(en_keys) > 250
    for cat in (en, zh):
        for m in cat:
            if not m.id:
                continue
            assert all(f.strip() for f in forms(m)), (cat.locale, m.id)
            assert not m.fuzzy, m.id
            wanted = set(PLACEHOLDER.findall(key(m)))
            for f in forms(m):
                assert set(PLACEHOLDER.findall(f)) == wanted, (cat.locale, m.id, f)
    for m in en:  # English is the source language: msgstr = msgid
        if m.id:
            assert forms(m) == ([m.id] if isinstance(m.id, str) else list(m.id)), m.id


def test_every_marked_string_and_spec_string_is_in_the_catalogs():
    from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
    from babel.messages.frontend import parse_mapping_cfg

    with (REPO / "babel.cfg").open(encoding="utf-8") as fh:
        method_map, options_map = parse_mapping_cfg(fh)
    found = {}
    for filename, lineno, message, _comments, _ctx in extract_from_dir(
            str(REPO), method_map, options_map, keywords=DEFAULT_KEYWORDS):
        msg = message[0] if isinstance(message, tuple) else message
        if msg:
            found[msg] = f"{filename}:{lineno}"
    assert "Start debate" in found and "Master debate" in found  # code and spec strings both extracted
    for lang in ("en", "zh"):
        keys = {key(m) for m in po(lang) if m.id}
        missing = {m: where for m, where in found.items() if m not in keys}
        assert not missing, (lang, missing)
        unused = keys - set(found)
        assert not unused, (lang, unused)  # nothing stale either
    assert set(i18n.spec_messages()) <= set(found)


def test_gettext_ngettext_and_the_fallbacks():
    with i18n.use("zh"):
        assert i18n._("Start debate") == "开始辩论"
        assert i18n.ngettext("{n} row", "{n} rows", 3).format(n=3) == "3 行"
        assert i18n.maybe("score") == "得分" and i18n.maybe("轮次") == "轮次"
    assert i18n._("Start debate") == "Start debate"  # outside a Streamlit run: English
    assert i18n.ngettext("{n} row", "{n} rows", 1) == "{n} row"
    assert i18n.ngettext("{n} row", "{n} rows", 2) == "{n} rows"
    assert [i18n.normalize(v) for v in ("zh-CN", "zh_TW", "ZH", "en-US", "fr-FR", None, "")] == \
        ["zh", "zh", "zh", "en", None, None, None]
    i18n.MISSING.discard("no such msgid")
    assert i18n._("no such msgid") == "no such msgid" and "no such msgid" in i18n.MISSING
    i18n.MISSING.discard("no such msgid")


# ------------------------------------------------------------------- pages


ARCHIVE_TABS = {"en": ["Browse", "Charts", "Ratings and judges", "SQL", "Import"],
                "zh": ["浏览", "图表", "评级与裁判", "SQL", "导入"]}


def render(page: str | None, lang: str | None, debate_id: str | None = None, tab: str = ""):
    """A page in ``lang``; ``tab`` opens an Archive tab as a click would (only Charts and the open tab's run)."""
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    if page:
        at.switch_page(PAGES[page])
    if lang:
        at.query_params["lang"] = lang
    if debate_id:
        at.query_params["id"] = debate_id
    if tab:
        at.session_state["archive_tab"] = tab
    i18n.MISSING.clear()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert not i18n.MISSING, sorted(i18n.MISSING)  # every string the page asked for is in the catalog
    return at


def chrome(at, with_text: bool = True) -> list[str]:
    """What the app itself labels: widgets, buttons, links, titles, metrics (and captions / notes)."""
    out = []
    for kind in ("radio", "selectbox", "text_input", "text_area", "slider", "button", "toggle", "date_input",
                 "metric", "segmented_control", "button_group", "file_uploader"):
        for w in at.get(kind):
            label = getattr(w, "label", None)
            out.append(str(label if label is not None else getattr(w.proto, "label", "")))
    out += [p.proto.label for p in at.get("page_link")] + [b.proto.label for b in at.get("download_button")]
    out += [re.sub(r"^\W+\s", "", t.value) for t in at.title] + [s.value for s in at.subheader]
    if with_text:
        out += [c.value for c in at.caption] + [i.value for i in at.info] + [w.value for w in at.warning]
    return [s for s in out if s]


def catalogue_pairs() -> list[tuple[str, str]]:
    return [(key(m), forms(m)[0]) for m in po("zh") if m.id and forms(m)[0] != key(m)]


def assert_language(at, lang: str, *, with_text: bool = True) -> None:
    """No label of the other language: under zh no English msgid shows as a label, under en no
    Chinese translation does (a debate's own text is never a label, and stays as it is)."""
    labels = chrome(at, with_text)
    pairs = catalogue_pairs()
    other = {en for en, _zh in pairs} if lang == "zh" else {zh for _en, zh in pairs}
    leaked = [s for s in labels if s in other]
    assert not leaked, (lang, leaked)


KNOWN = {  # page -> {lang: labels that must show}
    "home": {"zh": ["辩论工作台", "页面", "最近的辩论", "设置", "档案"],
             "en": ["Debate Workbench", "Pages", "Recent debates", "Setup", "Archive"]},
    "setup": {"zh": ["设置", "辩论形式", "议题", "辩论语言", "人物包", "大师甲（先发言）", "轮数", "开始辩论",
                     "两位大师与主持人共用的模型"],
              "en": ["Setup", "Protocol", "Topic", "Debate language", "Persona pack", "Master A (opens)", "Rounds",
                     "Start debate", "Model for both masters and the moderator"]},
    "live": {"zh": ["实况", "查看结果"], "en": ["Live", "Open the outcome"]},
    "outcome": {"zh": ["结果", "裁决", "下载", "在实况页打开", "Markdown（.md）"],
                "en": ["Outcome", "Verdict", "Downloads", "Open in Live", "Markdown (.md)"]},
    "archive": {"zh": ["档案", "辩论形式", "大师", "模型", "状态", "辩论语言", "图表", "评级", "导入", "运行查询",
                       "SQL（只读）"],
                "en": ["Archive", "Protocol", "Master", "Model", "Status", "Debate language", "Charts", "Ratings",
                       "Import", "Run query", "SQL (read-only)"]},
    "coverage": {"zh": ["覆盖", "大师", "批评条目", "完整配对（双向）", "经典配对", "没有任何批评条目的大师"],
                 "en": ["Coverage", "Masters", "Critiques", "Complete pairs (both ways)", "Canonical pairs",
                        "Masters with no critique at all"]},
}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_page_speaks_the_chosen_language(archive_path, archive, lang):
    master = offline_debate(archive)
    judged = judged_debate(archive, "topic")
    ids = {"live": master.id, "outcome": judged.id}
    for name in ("home", "setup", "live", "outcome", "archive", "coverage"):
        at = render(None if name == "home" else name, lang, ids.get(name))
        labels = chrome(at)
        if name == "archive":  # every tab, each opened as a click opens it (its section runs only then)
            for tab in ARCHIVE_TABS[lang][2:]:
                opened = render(name, lang, tab=tab)
                labels += chrome(opened)
                assert_language(opened, lang, with_text=True)
        for label in KNOWN[name][lang]:
            assert label in labels, (name, lang, label, labels)
        for label in KNOWN[name]["en" if lang == "zh" else "zh"]:
            if label not in KNOWN[name][lang]:  # e.g. "Markdown" is both
                assert label not in labels, (name, lang, label)
        # a master debate's own Chinese (Live) is content, not chrome: only widget labels are checked there
        assert_language(at, lang, with_text=name not in ("live",))
        assert (at.query_params["lang"][0] if isinstance(at.query_params["lang"], list)
                else at.query_params["lang"]) == lang
        if name == "home":
            cols = list(at.dataframe[0].value.columns)
            assert (["编号", "辩论形式", "语言", "状态"] if lang == "zh" else ["id", "protocol", "language", "status"]) \
                == [c for c in cols if c in ("编号", "辩论形式", "语言", "状态", "id", "protocol", "language", "status")]
        if name == "outcome":
            frames = [f.value for f in at.dataframe]
            score = "得分" if lang == "zh" else "score"
            assert any(score in f.columns for f in frames)
            assert ("胜方：" if lang == "zh" else "Winner: ") in "\n".join(s.value for s in at.success)
        if name == "live":  # the debate itself stays in its own language under both; its role is the app's word
            md = "\n".join(m.value for m in at.markdown)
            assert ("### R1｜慧能大师 立论" if lang == "zh" else "### R1｜慧能大师 Opening") in md
            assert master.rounds[0].text[:12] in md


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_setup_judged_protocols_and_live_without_a_debate(archive_path, lang):
    at = render("setup", lang)
    radio = next(r for r in at.radio if r.label == ("辩论形式" if lang == "zh" else "Protocol"))
    assert radio.options == (
        ["大师辩论", "议题辩论", "庭审"] if lang == "zh" else ["Master debate", "Topic debate", "Trial"])
    with i18n.use(lang):  # AppTest formats widget values in the test's thread: render them in the page's language
        radio.set_value("topic").run()
    assert not at.exception and not i18n.MISSING, sorted(i18n.MISSING)
    assert_language(at, lang)
    warning = "\n".join(w.value for w in at.warning)
    assert ("需要模型" if lang == "zh" else "needs a model") in warning
    labels = [t.label for t in at.text_input]
    assert ("裁判模型" if lang == "zh" else "Judge model") in labels
    langs = next(r for r in at.radio if r.label == ("辩论语言" if lang == "zh" else "Debate language"))
    assert langs.options == ["自动（跟随议题）" if lang == "zh" else "auto (follow the topic)", "中文", "English"]

    at = render("live", lang)
    assert ("尚未选择辩论" if lang == "zh" else "No debate chosen") in at.info[0].value
    assert_language(at, lang)


def test_the_language_follows_the_selector_and_is_kept_across_pages(archive_path):
    at = render(None, None)
    assert at.query_params["lang"] in ("en", ["en"])  # AppTest has no browser locale: English
    assert "💬 Debate Workbench" in [t.value for t in at.title]
    at.sidebar.radio(key=i18n.WIDGET_KEY).set_value("zh").run()
    assert not at.exception
    assert "💬 辩论工作台" in [t.value for t in at.title]
    assert at.query_params["lang"] in ("zh", ["zh"])
    links = [p.proto for p in at.get("page_link")]
    assert links and all("lang=zh" in p.query_string for p in links), [p.query_string for p in links]
    del at.query_params["lang"]  # a page switch from the sidebar drops the URL's params: the session keeps it
    at.switch_page(PAGES["archive"]).run()
    assert "🗄️ 档案" in [t.value for t in at.title]
    assert at.query_params["lang"] in ("zh", ["zh"])
    at.query_params["lang"] = "en"  # the URL wins over the session
    with i18n.use("zh"):  # AppTest formats the widget values of the last run in the test's thread
        at.run()
    assert "🗄️ Archive" in [t.value for t in at.title]


def test_setup_debate_language_sets_the_config_and_archive_filters_by_it(archive_path, archive):
    from webapp import ui, views

    at = render("setup", "en")
    langs = next(r for r in at.radio if r.label == "Debate language")
    assert langs.options == ["中文"] and langs.value == "zh"  # a master debate speaks only Chinese
    at.button(key="start").click().run()
    assert not at.exception
    qid = at.query_params["id"]
    qid = qid[0] if isinstance(qid, list) else qid
    assert ui._jobs(str(archive_path)).wait(qid, 30)
    stored = archive.get_debate(qid)
    assert stored.config.lang == "zh" and stored.lang == "zh"

    cfg = views.build_config("topic", "Does remote work raise productivity?", lang="en")
    assert cfg.lang == "en"
    assert views.build_config("topic", "x", lang="auto").lang is None
    assert views.debate_languages(views.protocol_specs()["trial"]) == ["auto", "zh", "en"]

    at = render("archive", "zh")
    table = at.dataframe[0].value
    assert "语言" in table.columns and list(table["语言"]) == ["zh"]
    pick = next(s for s in at.selectbox if s.label == "辩论语言")
    assert pick.options == ["（全部）", "中文", "English"]
    with i18n.use("zh"):  # AppTest formats widget values in the test's thread
        pick.select("en").run()
    assert not at.exception
    assert at.dataframe[0].value.empty
    assert "0 场辩论" in "\n".join(c.value for c in at.caption)
    with i18n.use("zh"):
        next(s for s in at.selectbox if s.label == "辩论语言").select("zh").run()
    assert list(at.dataframe[0].value["编号"]) == [qid]


@pytest.mark.parametrize("lang,warning", [
    ("en", "A master debate speaks only Chinese"),
    ("zh", "大师辩论只用中文"),
])
def test_setup_refuses_an_english_master_topic_before_start(archive_path, lang, warning):
    at = render("setup", lang)
    with i18n.use(lang):  # AppTest formats widget values in the test's thread
        at.text_area(key="topic").set_value("Is free will real?").run()
    assert not at.exception
    assert any(warning in w.value for w in at.warning)
    assert at.button(key="start").disabled
    with i18n.use(lang):
        at.text_area(key="topic").set_value("禅净之争").run()
    assert not any(warning in w.value for w in at.warning) and not at.button(key="start").disabled


# ------------------------------------------------------------ what the checks find


CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def test_check_findings_are_said_from_their_details_in_both_languages():
    """Every finding the checks make on the rule corpus carries details whose codes the app knows. Said in
    English (for a Chinese debate) it has no Chinese but the masters' names: the speech's words it quotes are
    numbered notes; said in Chinese they are inline.  No msgid is missing from a catalog."""
    from debate_core.checks import run_checks
    from debate_core.content.packs import get_pack
    from tests.check_corpus_support import context, load_corpus
    from webapp.views import codes

    pack = get_pack(None)
    names = sorted((m.name for m in pack.masters.values()), key=len, reverse=True)
    seen: set[str] = set()
    i18n.MISSING.clear()
    for case in load_corpus():
        for f in run_checks(case.text, context(case, pack)):
            assert f.details, (case.id, f.rule, f.message)
            seen |= {d.code for d in f.details}
            with i18n.use("en"):
                en = codes.finding_said(f, inline=False)
            with i18n.use("zh"):
                zh = codes.finding_said(f, inline=True)
            assert en is not None and zh is not None, (case.id, [d.code for d in f.details])
            bare = en.text
            for n in names:
                bare = bare.replace(n, "")
            assert not CJK.search(bare.replace("、", "")), (case.id, en.text)
            assert all(q in zh.text for q in en.notes), (case.id, en.notes, zh.text)  # the same words, inline
    assert not i18n.MISSING, sorted(i18n.MISSING)
    assert {"length.range", "citation.not_own", "citation.title_other", "ammo.unused", "restatement.distorts",
            "engages.missing", "no_verdict.hit", "no_dialogue.hit", "hygiene.url", "hygiene.editorial"} <= seen


def test_a_finding_without_details_or_with_an_unknown_code_is_left_to_its_own_words():
    from debate_core.models import Detail, Finding
    from webapp.views import codes

    old = Finding(rule="hygiene", passed=False, message="不是发言正文：旧记录")  # stored before details existed
    assert Finding(**old.model_dump(exclude={"details"})).details == []
    assert codes.finding_said(old) is None
    later = old.model_copy(update={"details": [Detail(code="hygiene.not_speech"), Detail(code="hygiene.new_kind")]})
    assert codes.finding_said(later) is None  # a code this app does not know: the stored words, not half a line
    with i18n.use("en"):
        assert codes.cause_text("摘要：等待模型超时（共尝试 4 次）") == "the summary: timed out waiting for the model (4 attempts)"
        assert codes.cause_text("模型服务出错（HTTP 503）") == "the model service failed (HTTP 503)"
        assert codes.cause_text("某个引擎自己的话") is None
        # a topic debate's failed speech, in either debate language (the judged protocols' call_failed note)
        assert codes.cause_text("模型调用失败：等待模型超时（共尝试 3 次）") == \
            codes.cause_text("the model call failed: timed out waiting for the model after 3 attempts") == \
            "the model call failed: timed out waiting for the model (3 attempts)"
    with i18n.use("zh"):
        assert codes.cause_text("摘要：等待模型超时（共尝试 4 次）") == "摘要：等待模型超时（共尝试 4 次）"
