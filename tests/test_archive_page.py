"""The Archive in tabs (issue 25 item 8), through AppTest on a real archive: real offline master
debates, a judged topic debate and the benchmark fixture imported with the library's importer.

Browse (the filters, the table with a winner column, text search), Charts, Ratings and judges,
SQL (tables and columns, example queries, one-line errors) and Import, in both languages; every
tab says which filters it uses.  Charts runs on every run, and of the other sections only the open
tab's: a test opens a tab as a click would (the tabs' widget state, ``archive_tab``, holds the open
tab's label).
"""

from __future__ import annotations

import pytest

from tests.app_support import REPO, judged_debate, offline_debate, vega_specs, vega_title, vega_values
from tests.test_app import archive, archive_path  # noqa: F401 - the app tests' fixtures

AppTest = pytest.importorskip("streamlit.testing.v1").AppTest

from webapp import i18n  # noqa: E402

TABS = {"en": ["Browse", "Charts", "Ratings and judges", "SQL", "Import"],
        "zh": ["浏览", "图表", "评级与裁判", "SQL", "导入"]}
FIXTURE = REPO / "tests" / "fixtures" / "benchmark"


@pytest.fixture
def filled(archive):  # noqa: F811
    """Two offline master debates on different topics, a judged topic debate, the benchmark fixture."""
    from debate_core.io.importers import import_paths

    a = offline_debate(archive)
    b = offline_debate(archive, topic="空与唯识，如何理解万法？")
    j = judged_debate(archive, "topic")
    import_paths(archive, [str(FIXTURE)])
    return archive, a, b, j


def page(lang: str = "en", tab: int = 0):
    """The Archive page with its tab ``tab`` (0: Browse, the first shown) open."""
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=90)
    at.switch_page("pages/4_Archive.py")
    at.query_params["lang"] = lang
    if tab:
        at.session_state["archive_tab"] = TABS[lang][tab]
    at.run()
    clean(at)
    return at


def clean(at) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def captions(at) -> str:
    return "\n".join(c.value for c in at.caption)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_archive_is_in_five_tabs_each_saying_which_filters_it_uses(archive_path, filled, lang):  # noqa: F811
    i18n.MISSING.clear()
    at = page(lang)
    assert [t.label for t in at.tabs] == TABS[lang]
    browse = at.tabs[0]
    assert at.tabs[1].children and not any(t.children for t in at.tabs[2:])  # Charts and the open tab's section
    # each other tab opened on a page of its own (AppTest cannot rerun a zh page: its selectboxes' values are
    # not among their shown, translated options)
    charts, ratings, sql, imports = (page(lang, n).tabs[n] for n in range(1, 5))
    assert not i18n.MISSING, sorted(i18n.MISSING)
    zh = lang == "zh"
    whole = "基于整个档案" if zh else "Over the whole archive"
    assert any(("下列筛选条件都作用于此表" if zh else "Every filter below applies to this table") in c.value
               for c in browse.caption)
    for tab in (charts, ratings, sql):
        assert any(whole in c.value for c in tab.caption), tab.label
    # the filters live in Browse, and only there
    assert {s.label for s in browse.selectbox} >= ({"辩论形式", "大师", "模型", "状态"} if zh else
                                                  {"Protocol", "Master", "Model", "Status"})
    assert not any(s.label in ("Protocol", "辩论形式") for t in (charts, ratings, sql, imports) for s in t.selectbox)
    # the judges section names its scope, and the ratings do not contradict it
    heads = [s.value for s in ratings.subheader]
    assert heads == (["评级", "裁判与对阵"] if zh else ["Ratings", "Judges and matchups"])
    assert [b.label for b in imports.button] == (["导入", "导入文件夹"] if zh else ["Import", "Import folder"])


def test_browse_has_a_winner_column_and_the_text_search_filters_rows(archive_path, filled):  # noqa: F811
    arc, a, b, j = filled
    at = page()
    table = at.dataframe[0].value
    assert "winner" in table.columns and "topic" in table.columns
    winners = dict(zip(table["id"], table["winner"]))
    assert winners[j.id] == "辩手乙"  # the judged debate: its winner by name
    assert winners[a.id] == "" and winners[b.id] == ""  # a master debate has an observation, not a winner
    bench = [d for d in arc.get_debates(list(table["id"])) if d.protocol == "benchmark"]
    for d in bench:
        want = "draw" if d.verdict.winner == "draw" else d.participant(d.verdict.winner).name
        assert winners[d.id] == want, (d.id, d.verdict.winner)
    assert "Benchmark debate" in set(table["protocol"]) and "benchmark" not in set(table["protocol"])  # names

    box = next(t for t in at.text_input if t.label == "Text in the topic or the speeches")
    box.input("唯识").run()
    clean(at)
    assert list(at.dataframe[0].value["id"]) == [b.id]
    box = next(t for t in at.text_input if t.label == "Text in the topic or the speeches")
    box.input("marathons").run()
    clean(at)
    hits = at.dataframe[0].value
    assert len(hits) == 2 and all("marathons" in t for t in hits["topic"])
    assert "2 debates, newest first" in captions(at)
    # another tab open (only its section runs), then Browse again: the filters kept their values
    for tab in ("Charts", "Browse"):
        at.session_state["archive_tab"] = tab
        at.run()
        clean(at)
    assert at.text_input(key="f_text").value == "marathons" and list(at.dataframe[0].value["id"]) == list(hits["id"])

    at = page("zh")
    assert "胜方" in at.dataframe[0].value.columns


def test_charts_show_names_and_no_unknown_bar(archive_path, filled):  # noqa: F811
    from webapp.views import archive as av
    from webapp.views import chart_spec

    arc = filled[0]
    at = page(tab=1)
    group = at.get("button_group")[0]
    group.set_value("Winners (judged)").run()
    clean(at)
    assert [vega_title(s) for s in vega_specs(at)] == ["Judged debates: wins by stance",
                                                       "Judged debates: wins by model"]
    draws = int((arc.winners()["winner"] == "draw").sum())
    assert draws and f"{draws} judged debates ended in a draw" in captions(at)
    figs, notes = av.archive_charts(arc, "Winners (judged)")
    spec = chart_spec(figs["win_model"])
    bars = set(vega_values(spec, "model"))
    assert "(unknown)" not in bars and "draw" not in bars
    assert {"Alpha 7B", "Gamma 2"} <= bars and "alpha-7b" not in bars  # display names, not slugs
    legends = {v for f in figs.values() for v in vega_values(chart_spec(f), "protocol")}
    assert "Benchmark debate" in legends and "benchmark" not in legends
    enc = spec["encoding"]
    assert enc["x"]["title"] == "model" and enc["y"]["title"] == "wins" and enc["x"]["sort"] == "-y"
    act, _notes = av.archive_charts(arc, "Activity")
    rounds = chart_spec(act["rounds"])
    assert set(vega_values(rounds, "protocol")) == {"Master debate", "Topic debate", "Benchmark debate"}
    assert rounds["encoding"]["x"]["title"] == "rounds played"
    # the same charts in Chinese: titles, axes and protocols in the reader's language
    with i18n.use("zh"):
        act, _notes = av.archive_charts(arc, "Activity")
    rounds = chart_spec(act["rounds"])
    assert vega_title(rounds) == "每场辩论的轮数（已进行的轮数）" and rounds["encoding"]["x"]["title"] == "已进行轮数"
    assert "大师辩论" in vega_values(rounds, "protocol") and "Master debate" not in vega_values(rounds, "protocol")


def test_sql_tab_lists_tables_runs_an_example_and_errors_in_one_line(archive_path, filled):  # noqa: F811
    at = page(tab=3)
    sql = at.tabs[3]
    schema = "\n".join(m.value for m in sql.markdown)
    for table, column in (("debates", "topic varchar"), ("speeches", "speaker_name"), ("verdicts", "winner"),
                          ("findings", "rule")):
        assert f"**`{table}`**" in schema and column in schema, (table, column)  # names as code
    examples = [b for b in sql.button if b.key.startswith("sql_example_")]
    assert 3 <= len(examples) <= 4
    assert [b.label for b in examples][1] == "Winners of judged debates"
    at.button(key="sql_example_1").click().run()
    clean(at)
    assert at.text_area(key="sql").value.startswith("SELECT d.created_at, d.protocol, d.topic, v.winner")
    at.button(key="run_sql").click().run()
    clean(at)
    result = at.dataframe[-1].value
    assert list(result.columns) == ["created_at", "protocol", "topic", "winner", "judge"]
    assert len(result) == len(filled[0].winners())
    assert f"{len(result)} rows" in captions(at)

    at.text_area(key="sql").input("SELECT nope FROM debates").run()
    at.button(key="run_sql").click().run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "\n" not in errors[0], errors
    assert errors[0].startswith("Binder Error: ") and "nope" in errors[0]
    assert "SQL: " not in errors[0] and "SQL error" not in errors[0] and "refused" not in errors[0].lower()

    at.text_area(key="sql").input("COPY debates TO '/tmp/archive-page-stolen.csv'").run()
    at.button(key="run_sql").click().run()
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "\n" not in errors[0], errors
    assert errors[0].startswith("refused: COPY") and "Only one read-only SELECT" in errors[0]
