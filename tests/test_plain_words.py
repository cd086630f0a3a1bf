"""Plain words (issue 25, point 7): the pages say what ammo, coverage and a persona pack are where the words
first appear (Setup's pack and ammo, the Coverage page), and show no field or seed name of ours: no
``cross_critique``, ``created_at`` or other snake_case field, no "seed" / 种子, no ``tournament``, no
``huineng-vs-yinguang`` slug, no master's pinyin id where the pack gives a name.

Every page a reader meets first is rendered with streamlit.testing's AppTest in both languages (Setup for
each protocol, Outcome of a master debate and of a judged one, the Archive's tabs, Coverage) over a temporary
archive, and everything the page shows is read: text, labels, help texts, options, tab and expander labels,
table columns and cells, chart titles, axes and ticks.  Code spans and code blocks (ids, model strings, SQL
columns, commands) are code, not words, and are left out.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.app_support import REPO, judged_debate, offline_debate, vega_data, vega_title
from tests.test_app import archive, archive_path  # noqa: F401 - the app tests' fixtures

AppTest = pytest.importorskip("streamlit.testing.v1").AppTest

from webapp import i18n, views  # noqa: E402

PAGES = {"setup": "pages/1_Setup.py", "outcome": "pages/3_Outcome.py", "archive": "pages/4_Archive.py",
         "coverage": "pages/5_Coverage.py"}

JARGON = [
    (re.compile(r"\b[a-z]+(?:_[a-z]+)+\b"), "a field name (snake_case)"),
    (re.compile(r"\b[a-z]+-vs-[a-z]+\b"), "a pair slug"),
    (re.compile(r"\bseeds?\b|种子", re.I), "the seed"),
    (re.compile(r"\btournament\b|\bmeta\.json\b|\bslugs?\b|<slug>|search_scope|cross_critique", re.I), "a file or key"),
    (re.compile(r"\bAmmunition\b"), "the long word for ammo"),
]
CODE = re.compile(r"`[^`]*`")


def render(page: str, lang: str, debate_id: str | None = None, protocol: str | None = None):
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=90)
    at.switch_page(PAGES[page])
    at.query_params["lang"] = lang
    if debate_id:
        at.query_params["id"] = debate_id
    at.run()
    if protocol:
        with i18n.use(lang):  # the radio's format_func names the options in the page's language
            at.radio(key="protocol").set_value(protocol).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _figure_words(spec: str) -> list[str]:
    """A plotly figure's shown strings: title, axis titles, ticks, legend names, category labels, colour bar."""
    fig = json.loads(spec)
    fig = fig.get("figure", fig)
    out: list[str] = []
    layout = fig.get("layout", {})
    for value in layout.values():
        if isinstance(value, dict):
            title = value.get("title")
            out.append(title.get("text", "") if isinstance(title, dict) else str(title or ""))
            out += [str(t) for t in value.get("ticktext", []) or []]
    for trace in fig.get("data", []):
        out.append(str(trace.get("name") or ""))
        for axis in ("x", "y"):
            values = trace.get(axis)
            if isinstance(values, list):
                out += [v for v in values if isinstance(v, str)]
        bar = trace.get("colorbar") or {}
        out += [str(t) for t in bar.get("ticktext", []) or []]
    return out


def shown(at) -> list[str]:
    """Everything the page shows a reader (code spans taken out)."""
    out: list[str] = []
    for kind in ("markdown", "caption", "info", "warning", "success", "error", "title", "header", "subheader",
                 "text", "latex"):
        out += [str(e.value) for e in at.get(kind)]
    for kind in ("radio", "selectbox", "multiselect", "text_input", "text_area", "slider", "select_slider", "button",
                 "toggle", "checkbox", "date_input", "number_input", "segmented_control", "button_group",
                 "file_uploader", "metric", "download_button", "page_link"):
        for w in at.get(kind):
            proto = w.proto
            out += [str(getattr(proto, "label", "") or ""), str(getattr(proto, "help", "") or ""),
                    str(getattr(proto, "placeholder", "") or "")]
            out += [str(o) for o in getattr(w, "options", None) or []]  # as shown (formatted)
    for kind in ("tab", "expander"):
        out += [str(getattr(e.proto, "label", "") or "") for e in at.get(kind)]
    for frame in at.dataframe:
        df = frame.value
        out += [str(c) for c in df.columns]
        for c in df.columns:
            if df[c].dtype == object:
                out += [v for v in df[c].tolist() if isinstance(v, str)]
    for chart in at.get("plotly_chart"):
        out += _figure_words(chart.proto.spec)
    for chart in at.get("vega_lite_chart"):  # the Archive's Charts tab: titles, axes, legends, and the names drawn
        spec = json.loads(chart.proto.spec)
        out += [vega_title(spec)] + [str(e.get("title") or "") for e in spec.get("encoding", {}).values()
                                     if isinstance(e, dict)]
        out += [str(v) for row in vega_data(chart) for v in row.values() if isinstance(v, str)]
    return [CODE.sub("", s) for s in out if s]


def jargon(texts: list[str], slugs: list[str]) -> list[tuple[str, str]]:
    found = []
    named = re.compile(r"\b(?:" + "|".join(map(re.escape, slugs)) + r")\b") if slugs else None
    for text in (CODE.sub("", t) for t in texts):
        for pattern, what in JARGON:
            m = pattern.search(text)
            if m:
                found.append((what, m.group(0), text[:120]))
        if named is not None and named.search(text):
            found.append(("a master's id where the pack gives his name", named.search(text).group(0), text[:120]))
    return found


@pytest.fixture
def debates(archive_path, archive):  # noqa: F811 - the app tests' fixture
    return {"master": offline_debate(archive), "judged": judged_debate(archive, "topic"),
            "trial": judged_debate(archive, "trial", debate_id="trial0000001")}


def slugs() -> list[str]:
    return list(views.load_pack(None).masters)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_first_pages_say_what_ammo_coverage_and_a_persona_pack_are(archive_path, lang):  # noqa: F811
    with i18n.use(lang):
        pack, ammo, coverage = i18n._(views.PACK_HELP), i18n._(views.AMMO_HELP), i18n._(views.COVERAGE_HELP)
    setup = "\n".join(shown(render("setup", lang)))
    assert pack in setup and ammo in setup  # beside the pack picker and the ammo both ways
    assert ("弹药" if lang == "zh" else "Ammo") in setup and ("人物包" if lang == "zh" else "Persona pack") in setup
    cov = "\n".join(shown(render("coverage", lang)))
    assert coverage in cov and pack in cov


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_field_seed_or_slug_words_on_setup_outcome_archive_and_coverage(debates, lang):
    pages = [("setup", None, None), ("setup", None, "topic"), ("setup", None, "trial"),
             ("outcome", debates["master"].id, None), ("outcome", debates["judged"].id, None),
             ("outcome", debates["trial"].id, None), ("archive", None, None), ("coverage", None, None)]
    for page, debate_id, protocol in pages:
        at = render(page, lang, debate_id, protocol)
        texts = shown(at)
        assert len(texts) > 10, (page, texts)
        found = jargon(texts, slugs())
        assert found == [], (page, debate_id, protocol, lang, found)


def test_the_finder_sees_the_jargon_the_issue_names():
    """The words issue 25 found on the pages are what the finder reports (so the test above can fail)."""
    texts = ["**Ammunition both ways** (cross_critique entries of each master aimed at the other)",
             "rule `table` (the seed's topic-to-pair table)", "with 'tournament: true' list plain model strings",
             "created_at", "huineng-vs-yinguang", "huineng → yinguang", "种子的议题—配对表", "last_at"]
    found = {what for what, _word, _text in jargon(texts, ["huineng", "yinguang"])}
    assert found == {what for _p, what in JARGON} | {"a master's id where the pack gives his name"}
    assert jargon(["`created_at` in a code span", "慧能大师 → 印光大师", "Ammo both ways"], ["huineng"]) == []
