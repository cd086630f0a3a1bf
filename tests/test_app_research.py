"""The workbench's research pieces through streamlit.testing's AppTest, on real DuckDB archives in tmp:
imported benchmark debates on the Outcome page (argument map, judge panel, transcript cards), the
Archive page's judge / side / winner / topic filters, its "Judges and matchups" section, and the
import of a local folder with skipped malformed files.

The archive is ``tests/fixtures/benchmark`` imported with the library's importer; what a page
should show is computed from the stored debates (their participants, judgments and ledgers), not
written down here.
"""

from __future__ import annotations

import json
import zipfile
from io import BytesIO
from pathlib import Path

import pytest

from tests.app_support import REPO
from tests.test_app import archive, archive_path  # noqa: F401 - the app tests' fixtures
from tests.test_i18n import assert_language

AppTest = pytest.importorskip("streamlit.testing.v1").AppTest

from webapp import i18n  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "benchmark"
BAD = REPO / "tests" / "fixtures" / "benchmark_bad"
PAGES = {"outcome": "pages/3_Outcome.py", "archive": "pages/4_Archive.py"}
PANEL = {"en": ["judge", "winner", "signed margin", "normalized", "entertainment"],
         "zh": ["裁判", "胜方", "带符号分差", "归一化分差", "观赏性"]}


# ---------------------------------------------------------------- helpers


@pytest.fixture
def bench(archive):  # noqa: F811 - the app tests' fixture
    """The archive with the benchmark fixture imported (9 debates, 3 judges, a leaderboard)."""
    from debate_core.io.importers import import_paths

    results = import_paths(archive, [str(FIXTURE)])
    assert results and all(r.status == "imported" for r in results)
    return archive


ARCHIVE_TABS = {"ratings": {"en": "Ratings and judges", "zh": "评级与裁判"}, "import": {"en": "Import", "zh": "导入"}}


def page(name: str, lang: str = "en", debate_id: str | None = None, tab: str = ""):
    """A page; for the Archive, ``tab`` (ratings, import) opens that tab as a click would: of its sections only
    Charts and the open tab's run."""
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=90)
    at.switch_page(PAGES[name])
    at.query_params["lang"] = lang
    if debate_id:
        at.query_params["id"] = debate_id
    if tab:
        at.session_state["archive_tab"] = ARCHIVE_TABS[tab][lang]
    i18n.MISSING.clear()
    at.run()
    clean(at)
    return at


def clean(at) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert not i18n.MISSING, sorted(i18n.MISSING)


def chart(at, key: str) -> dict:
    """A plotly chart on the page, by key, as its figure JSON."""
    hits = [c for c in at.get("plotly_chart") if c.key == key]
    assert hits, (key, chart_keys(at))
    return json.loads(hits[0].proto.spec)


def chart_keys(at) -> list[str]:
    return [c.key for c in at.get("plotly_chart")]


def frame(at, columns: list[str]):
    hits = [f.value for f in at.dataframe if list(f.value.columns)[:len(columns)] == columns]
    assert hits, (columns, [list(f.value.columns) for f in at.dataframe])
    return hits[0]


def select(at, label: str, value, lang: str = "en"):
    box = next(s for s in at.selectbox if s.label == label)
    with i18n.use(lang):  # AppTest formats widget values in the test's thread
        box.select(value).run()
    clean(at)
    return at


def ids(at) -> set[str]:
    table = at.dataframe[0].value
    return set(table["id" if "id" in table.columns else "编号"])


# ---------------------------------------------------------------- outcome


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_outcome_of_a_benchmark_debate_shows_the_argument_map_and_the_judge_panel(archive_path, bench, lang):
    from debate_core.analysis.ledger import build_ledger

    did = next(i for i in bench.list_debates()["id"] if len(bench.get_debate(i).judgments) >= 3)
    d = bench.get_debate(did)
    ledger = build_ledger(d)
    assert ledger.claims and ledger.attacks and ledger.dropped  # the fixture makes a real map
    at = page("outcome", lang, did)
    assert_language(at, lang)

    # the verdict: the panel majority, then one row per judge, and each judge's notes
    success = "\n".join(s.value for s in at.success)
    winner = d.participant(d.verdict.winner)
    assert ("胜方：" if lang == "zh" else "Winner: ") in success and winner.name in success
    panel = frame(at, PANEL[lang])
    assert list(panel[PANEL[lang][0]]) == [j.judge for j in d.judgments]
    assert list(panel[PANEL[lang][2]]) == [j.margin for j in d.judgments]
    assert list(panel[PANEL[lang][3]]) == [j.normalized for j in d.judgments]
    assert list(panel[PANEL[lang][4]]) == [j.entertainment for j in d.judgments]
    for j, cell in zip(d.judgments, panel[PANEL[lang][1]]):
        side = {"pro": ("PRO", "正方"), "con": ("CON", "反方")}[j.winner][lang == "zh"]  # the page's PRO/CON words
        assert cell.endswith(f"({side})"), cell
    markdown = "\n".join(m.value for m in at.markdown)
    for j in d.judgments:
        assert f"**{j.judge}**" in markdown and j.notes in markdown
    assert ("**裁判团**" if lang == "zh" else "**Judge panel**") in markdown

    # the argument map: every claim a node, every attack an arrow, the dropped claims ringed
    assert "argument-map" in chart_keys(at)
    fig = chart(at, "argument-map")
    assert fig["layout"]["xaxis"]["title"]["text"] == ("轮次" if lang == "zh" else "round")
    assert ("论证图" if lang == "zh" else "Argument map") in [s.value for s in at.subheader]
    names = {p.name for p in d.participants}
    nodes = [t for t in fig["data"] if t.get("name") in names]
    assert sum(len(t["x"]) for t in nodes) == len(ledger.claims)
    pro = next(t for t in nodes if t["name"] == d.participant("pro").name)
    con = next(t for t in nodes if t["name"] == d.participant("con").name)
    assert min(pro["y"]) > max(con["y"])  # pro's lane above con's
    ringed = next(t for t in fig["data"] if t.get("name") == ("未被回应的论点" if lang == "zh"
                                                             else "dropped (never answered)"))
    assert len(ringed["x"]) == len(ledger.dropped)
    arrows = [t for t in fig["data"] if t.get("mode") == "lines+markers"]
    assert sum(len(t["x"]) // 3 for t in arrows) == len(ledger.attacks)
    hover = "\n".join(h for t in nodes for h in t["hovertext"])
    first = ledger.claims[0]
    assert first.id in hover and first.text.split()[0] in hover
    metrics = {m.label: m.value for m in at.metric}
    labels = ("论点", "回应", "未被回应") if lang == "zh" else ("Claims", "Attacks", "Dropped")
    assert [metrics[k] for k in labels] == [str(len(ledger.claims)), str(len(ledger.attacks)),
                                             str(len(ledger.dropped))]
    table = frame(at, ["论点", "发言者", "轮次"] if lang == "zh" else ["claim", "speaker", "round"])
    assert list(table.iloc[:, 0]) == [c.id for c in ledger.claims]
    assert table.iloc[:, 4].sum() == len(ledger.dropped)

    # the transcript: each turn under the source's heading, with its model
    for s in d.rounds:
        assert f"#### {s.envelope['heading']} · {s.speaker_name}" in markdown
    captions = "\n".join(c.value for c in at.caption)
    model = "**模型**" if lang == "zh" else "**model**"
    assert f"{model} `{d.participant('pro').model}`" in captions
    assert f"{model} `{d.participant('con').model}`" in captions


def test_argument_map_view_for_every_fixture_debate(bench):
    """The view over each imported debate: nodes placed by round and lane, hover text capped."""
    from webapp import views

    for d in bench.get_debates(list(bench.list_debates()["id"])):
        lv = views.ledger_view(d)
        assert lv is not None and lv.claims == len(lv.ledger.claims)
        fig = lv.figure()
        pos, lanes, _rows = views.ledger.positions(d, lv.ledger)
        assert lanes[:2] == ["pro", "con"]
        for c in lv.ledger.claims:
            x, y = pos[c.id]
            assert abs(x - c.round) < 0.5  # in its round's column
            assert abs(y - (0 if c.speaker == "pro" else -1)) < 0.5  # in its speaker's lane
        for t in fig.data:
            for h in t.hovertext or ():
                assert len(h.split("<br>", 1)[-1].replace("<br>", " ")) <= 320


# ---------------------------------------------------------------- archive


def expected(bench, *, judge=None, model=None, side=None, winner=None, topic=None) -> set[str]:
    """The debates a filter should keep, read from the stored debates themselves."""
    out = set()
    for d in bench.get_debates(list(bench.list_debates()["id"])):
        if judge and judge not in {j.judge for j in d.judgments} | {d.verdict.judge if d.verdict else ""}:
            continue
        if model and side and not any(p.label == side and p.model == model for p in d.participants):
            continue
        if winner:
            won = d.verdict.winner if d.verdict else None
            if winner in ("pro", "con", "draw"):
                if won != winner:
                    continue
            elif not (won and d.participant(won) and d.participant(won).model == winner):
                continue
        if topic and d.topic != topic:
            continue
        out.add(d.id)
    return out


def test_archive_filters_by_judge_side_winner_and_topic(archive_path, bench):
    every = set(bench.list_debates()["id"])
    at = page("archive")
    assert ids(at) == every
    side = next(s for s in at.selectbox if s.label == "Side")
    assert side.disabled  # a side is the chosen model's
    judges = next(s for s in at.selectbox if s.label == "Judge").options
    assert set(judges) == {"(any)", "Judge Kappa", "Judge Lambda", "Gamma 2"}

    select(at, "Judge", "Judge Kappa")
    assert ids(at) == expected(bench, judge="Judge Kappa")  # Kappa sat on every panel
    select(at, "Judge", "Gamma 2")
    gamma = expected(bench, judge="Gamma 2")  # a judge that also debates: never on its own panels
    assert ids(at) == gamma and 0 < len(gamma) < len(every)
    select(at, "Judge", "(any)")

    select(at, "Model", "alpha-7b")
    assert not next(s for s in at.selectbox if s.label == "Side").disabled
    select(at, "Side", "pro")
    alpha_pro = expected(bench, model="alpha-7b", side="pro")
    assert ids(at) == alpha_pro and 0 < len(alpha_pro) < len(every)
    caption = "\n".join(c.value for c in at.caption)
    n = len(alpha_pro)
    assert f"{n} debate{'s' if n != 1 else ''}, newest first" in caption
    select(at, "Side", "con")
    assert ids(at) == expected(bench, model="alpha-7b", side="con")
    select(at, "Model", "(any)")
    assert ids(at) == every  # the side counts only with a model

    select(at, "Winner", "pro")
    assert ids(at) == expected(bench, winner="pro") and expected(bench, winner="pro")
    select(at, "Winner", "con")
    assert ids(at) == expected(bench, winner="con")
    select(at, "Winner", "draw")
    assert ids(at) == expected(bench, winner="draw")
    select(at, "Winner", "alpha-7b")
    assert ids(at) == expected(bench, winner="alpha-7b") and 0 < len(expected(bench, winner="alpha-7b"))
    select(at, "Winner", "(any)")

    topic = bench.get_debate(sorted(every)[0]).topic
    select(at, "Topic", topic)
    assert ids(at) == expected(bench, topic=topic) and len(expected(bench, topic=topic)) >= 1

    # the same filters under ?lang=zh (labels and options in Chinese, the same debates)
    at = page("archive", "zh")
    assert_language(at, "zh")
    select(at, "裁判", "Judge Lambda", "zh")
    assert ids(at) == expected(bench, judge="Judge Lambda")
    select(at, "胜方", "con", "zh")
    assert ids(at) == expected(bench, judge="Judge Lambda") & expected(bench, winner="con")


@pytest.mark.slow
def test_archive_caption_counts_every_match_when_the_list_is_capped(archive_path, archive, tmp_path,  # noqa: F811
                                                                     monkeypatch):
    """Over 500 matches: the table shows 500 and the caption says how many there are in all; the
    topic filter offers the most debated topics and says so."""
    from debate_core.io.importers import import_paths
    from tests.benchmark_synth import write_benchmark
    from webapp.views import archive as archive_views

    monkeypatch.setattr(archive_views, "TOPIC_OPTIONS", 100)

    write_benchmark(tmp_path / "synth", models=6, groups=251, paragraphs=1, words=6)
    import_paths(archive, [str(tmp_path / "synth")])
    total = archive.count_debates()
    assert total > 500
    at = page("archive")
    assert len(at.dataframe[0].value) == 500
    assert f"500 of {total} debates, newest first" in "\n".join(c.value for c in at.caption)
    topics = next(s for s in at.selectbox if s.label == "Topic")
    assert len(topics.options) == 101  # (any) and the 100 most debated
    n_topics = archive.query("SELECT count(DISTINCT topic) AS n FROM debates")["n"][0]
    assert topics.help == f"The 100 most debated of {n_topics} topics; the text filter finds any other."
    model = sorted(set(m for ms in archive.list_debates(limit=total)["models"] for m in ms))[0]
    select(at, "Model", model)
    n = archive.count_debates(model=model)
    assert len(at.dataframe[0].value) == min(n, 500)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_archive_judges_and_matchups_section(archive_path, bench, lang):
    from debate_core.analysis import judgments as J

    frame_ = J.judgments_frame(bench)
    at = page("archive", lang, tab="ratings")
    assert_language(at, lang)
    keys = chart_keys(at)
    for key in ("fig-margins", "fig-agreement", "fig-side-bias", "fig-margin-distribution"):
        assert key in keys, keys

    ratings = frame(at, ["名次", "模型"] if lang == "zh" else ["rank", "model"])
    want = J.matchup_ratings(frame_, names=J.model_names(bench), bootstrap=0)
    assert list(ratings.iloc[:, 1]) == list(want["model"])  # the same order as the library's fit
    captions = "\n".join(c.value for c in at.caption)
    agreement = J.rank_agreement(want, J.leaderboard(bench))
    assert f"{agreement['spearman']:.3f}" in captions and "Spearman" in captions
    assert str(len(frame_)) in captions  # how many judgments

    bias = frame(at, ["裁判", "判定数"] if lang == "zh" else ["judge", "judgments"])
    assert set(bias.iloc[:, 0]) == set(bench.judges())
    fig = chart(at, "fig-side-bias")
    assert [s["y0"] for s in fig["layout"]["shapes"]] == [0.5]  # the no-bias line
    points = fig["data"][0]
    assert set(points["x"]) == set(bench.judges()) and "error_y" in points
    margins = chart(at, "fig-margins")
    models = set(J.model_names(bench).values())
    assert set(margins["data"][0]["x"]) <= models and margins["data"][0]["customdata"]
    dist = chart(at, "fig-margin-distribution")
    assert {t["name"] for t in dist["data"]} == set(bench.judges())

    with i18n.use(lang):
        at.toggle(key="dropped_rates").set_value(True).run()
    clean(at)
    rates = frame(at, ["模型", "名称", "辩论数"] if lang == "zh" else ["model", "name", "debates"])
    assert set(rates.iloc[:, 0]) == {"alpha-7b", "beta-pro-high", "gamma-2", "delta-mini"}


def test_archive_research_section_without_judgments_is_one_caption(archive_path, archive):  # noqa: F811
    at = page("archive", tab="ratings")
    assert "No per-judge judgment yet" in "\n".join(c.value for c in at.caption)
    assert not {"fig-margins", "fig-agreement", "fig-side-bias"} & set(chart_keys(at))


# ---------------------------------------------------------------- import


def test_import_a_local_folder_reports_skipped_files(archive_path, archive, tmp_path):  # noqa: F811
    at = page("archive", tab="import")
    at.button(key="import_local").click().run()
    assert any("type the path of a folder" in e.value for e in at.error)
    at.text_input(key="import_path").input(str(tmp_path / "nowhere")).run()
    at.button(key="import_local").click().run()
    assert not at.exception and any("nothing at" in e.value for e in at.error)
    assert archive.count_debates() == 0

    at.text_input(key="import_path").input(str(BAD)).run()
    at.button(key="import_local").click().run()
    assert not at.exception and not at.error
    stored = set(archive.list_debates()["id"])
    assert len(stored) == 2  # the well-formed group
    success = "\n".join(s.value for s in at.success)
    assert "2 imported" in success and all(f"{i} · imported" in success for i in stored)
    warnings = [w.value for w in at.warning]
    skipped = [w for w in warnings if w.startswith("Skipped: ")]
    assert len(skipped) == 3, warnings
    text = "\n".join(skipped)
    assert "prop_0202__alpha-7b__gamma-2__s0__tpl_fixture_a.md" in text and "line 45" in text
    assert "prop_0202__gamma-2__alpha-7b__s1__tpl_fixture_a.md" in text and "model_con" in text
    assert "matchup-judgment-prop_0202-alpha-7b-vs-gamma-2.md" in text and "line 35" in text

    # the filters (Browse) know the new judges at once (the cached options follow the archive)
    at = page("archive")
    judges = next(s for s in at.selectbox if s.label == "Judge").options
    assert set(judges) - {"(any)"} == set(archive.judges()) and len(judges) > 1
    at = page("archive", tab="import")

    # a .zip of a checkout, uploaded: recognised inside its unpacked folder
    buf = BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for p in sorted(FIXTURE.rglob("*")):
            if p.is_file():
                zf.write(p, str(Path("debate-main") / p.relative_to(FIXTURE)))
    at.file_uploader(key="up_files").set_value(("debate-main.zip", buf.getvalue(), "application/zip"))
    at.run()
    at.button(key="import").click().run()
    clean(at)
    assert "9 imported" in "\n".join(s.value for s in at.success)
    assert archive.count_debates() == 11
