"""Untrusted text renders as text (issue 23 item 4): debate_core.render.safe, and the app using it.

A Markdown image, link, autolink, bare URL or HTML tag in debate content (a topic, a speech, an
observation, a judge's note, a name, a stance, imported data) or in the ``?id=`` of the URL must
neither fetch nor link once the app shows it; names reach plotly HTML-escaped.

The Markdown is checked with markdown-it (CommonMark, as Streamlit's renderer parses it) plus the two
regular expressions GFM uses for literal autolinks, copied from Streamlit's frontend bundle
(``StreamlitMarkdown.*.js``, mdast-util-gfm-autolink-literal), run on the decoded text as it does.
The real browser against a listening beacon host is tests/test_browser.py
(``test_imported_beacons_reach_no_listener``).
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from debate_core.render.safe import ZWSP, md_code, neutral_debate, neutralize_markdown, plotly_text, restore_markdown
from tests.app_support import vega_strings

HOST = "http://127.0.0.1:9"  # the discard port: nothing may point here
# GFM's literal autolinks (mdast-util-gfm-autolink-literal, as bundled by Streamlit), made stricter:
# any match counts, whatever character precedes it.
GFM_URL = re.compile(r"(https?://|www(?=\.))([-.\w]+)([^ \t\r\n]*)", re.I)
GFM_EMAIL = re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)")


def _parser():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable(["table", "strikethrough"])


def live_parts(markdown: str) -> list[str]:
    """Whatever in ``markdown`` would fetch or link once rendered: images, links, raw HTML, literal
    autolinks (URLs and e-mail addresses in the decoded text) and math (two unescaped ``$``)."""
    out: list[str] = []

    def walk(tokens):
        for t in tokens:
            if t.type == "image":
                out.append(f"image {t.attrs.get('src')}")
            elif t.type == "link_open":
                out.append(f"link {t.attrs.get('href')}")
            elif t.type in ("html_inline", "html_block"):
                out.append(f"html {t.content.strip()}")
            elif t.type == "text":
                out.extend(f"autolink {m.group()}" for m in GFM_URL.finditer(t.content))
                out.extend(f"email {m.group()}" for m in GFM_EMAIL.finditer(t.content))
            if t.children:
                walk(t.children)

    walk(_parser().parse(markdown))
    if len(re.findall(r"(?<!\\)(?:\\\\)*\$", markdown)) >= 2:  # a pair of unescaped $ makes math
        out.append("math $…$")
    return out


def beacon(tag: str, host: str = HOST) -> str:
    """Every way Markdown has to reach ``host``: an image, links of each kind, HTML, a bare URL."""
    return (f"Before ![img]({host}/{tag}-img.png) and [link]({host}/{tag}-link), <{host}/{tag}-auto>, "
            f"bare {host}/{tag}-bare www.{tag}.example a@{tag}.example <img src={host}/{tag}-html.png> "
            f"[ref][r-{tag}] ![nested [a]({host}/{tag}-n1)]({host}/{tag}-n2) **bold** after\n\n"
            f"[r-{tag}]: {host}/{tag}-ref\n")


def hostile_name(tag: str, host: str = HOST) -> str:
    return f'<a href="{host}/{tag}">{tag}</a> ![x]({host}/{tag}.png)'


# ----------------------------------------------------------------- the function


CASES = {
    "image": f"![x]({HOST}/x.png)",
    "link": f"[t]({HOST}/t)",
    "autolink": f"<{HOST}/auto>",
    "bare url": f"see {HOST}/bare and https://evil.example/a?b=c and WWW.evil.example/x",
    "email": "write to a.b+c@evil.example",
    "reference link": f"[text][ref] and [ref]\n\n[ref]: {HOST}/ref \"title\"",
    "footnote": f"a[^1]\n\n[^1]: {HOST}/fn",
    "html img": f'<img src="{HOST}/h.png" onerror=alert(1)>',
    "html link": f'<a href="{HOST}/a">x</a>',
    "html comment": f"<!-- x --><img src={HOST}/c.png>",
    "nested brackets": f"![outer [inner]({HOST}/in)]({HOST}/out) [[x]]({HOST}/x) [a [b] c]({HOST}/abc)",
    "escaped colon": "http\\://127.0.0.1:9/esc",
    "entity colon": "h&#116;tp&#58;//127.0.0.1:9/ent &lt;img src=x&gt;",
    "math": f"$\\href{{{HOST}/k}}{{x}}$ and $$\\includegraphics{{{HOST}/k.png}}$$",
    "streamlit directive": f":red[{HOST}/dir] :blue-badge[x]",
    "backslash before bracket": f"\\![x]({HOST}/bs.png)",
    "table": f"| a | b |\n|---|---|\n| `x | [t]({HOST}/tab) |` | c |",
    "code span": f"`![x]({HOST}/code.png)` then [y]({HOST}/after)",
}


@pytest.mark.parametrize("name", list(CASES))
def test_nothing_fetches_or_links_after_neutralising(name):
    text = CASES[name]
    assert live_parts(text), f"the case {name!r} should be live as it is"  # the probe is real
    out = neutralize_markdown(text)
    assert live_parts(out) == [], (name, out)
    assert live_parts(neutralize_markdown(text, inline=True)) == [], name
    assert restore_markdown(out) == text


def test_emphasis_cannot_splice_a_url_together():
    for text in ("**http**://127.0.0.1:9/em", "ht*tp://127.0.0.1:9/em2*", "http_://_x.org", "<b>http</b>://x.org"):
        assert live_parts(neutralize_markdown(text)) == [], text


def test_the_text_still_reads_the_same():
    """Rendered, the neutralised text shows the characters it was given (a zero-width space aside)."""
    from html import unescape

    text = "![x](http://h/x.png) <b>&amp; $5 \\ [1] a@b.org www.x.org"
    html = _parser().render(neutralize_markdown(text))
    shown = unescape(re.sub(r"<[^>]+>", "", html)).replace(ZWSP, "").strip()
    assert shown == text


def test_markdown_itself_still_renders():
    out = neutralize_markdown("**bold** *it* `code`\n\n- a\n- b\n\n> quote\n\n# Heading")
    html = _parser().render(out)
    assert "<strong>bold</strong>" in html and "<em>it</em>" in html and "<code>code</code>" in html
    assert "<li>a</li>" in html and "<blockquote>" in html and "<h1>Heading</h1>" in html


def test_chinese_text_is_untouched():
    for text in ("念佛与参禅，哪个更适合现代人？", "《六祖坛经》云：「菩提本无树，明镜亦非台。」",
                 "辩手甲（正方）：**远程办公**提高效率！"):
        assert neutralize_markdown(text) == text
        assert neutralize_markdown(text, inline=True) == text


def test_plain_text_and_ids_are_untouched():
    for text in ("judged000001", "openai/gpt-4o-mini", "R1｜慧能大师 立论", "pro (con) 3 > 2 - ok!", "a_b*c"):
        assert neutralize_markdown(text) == text


def test_our_own_links_are_kept():
    """Our Markdown around a neutralised value keeps its links; the value brings none."""
    topic = f"![x]({HOST}/t.png) [evil]({HOST}/e)"
    md = f"[Open the outcome](/Outcome?id=abc123) · {neutralize_markdown(topic, inline=True)} · [Live](/Live?id=abc123)"
    assert live_parts(md) == ["link /Outcome?id=abc123", "link /Live?id=abc123"]


def test_inline_keeps_a_value_on_one_line():
    out = neutralize_markdown("first\n\n# not a heading\r\n- not a list", inline=True)
    assert "\n" not in out and "\r" not in out
    html = _parser().render(f"- **judge**: {out}")
    assert "<h1>" not in html and html.count("<li>") == 1


PIECES = list("![]()<>`\\$&:/@.wht ps-_*#|\n\u200b念佛") + ["http://", "www.", "&lt;", "&#58;", "a@b.co", "127.0.0.1"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
def test_any_text_is_inert_and_restorable(text):
    out = neutralize_markdown(text)
    assert live_parts(out) == [], (text, out)
    assert live_parts(neutralize_markdown(text, inline=True)) == []
    assert restore_markdown(out) == text


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_any_unicode_text_is_restorable(text):
    assert restore_markdown(neutralize_markdown(text)) == text


def test_md_code_holds_anything_verbatim():
    for value in ("plain", "a`b", "``x``", "`lead", "trail`", f"x` ![i]({HOST}/c.png) `y", "line\nbreak"):
        tokens = _parser().parseInline(f"model {md_code(value)} end")[0].children
        codes = [t.content for t in tokens if t.type == "code_inline"]
        assert codes == [" ".join(value.splitlines())], (value, codes)
        assert not [t for t in tokens if t.type in ("image", "link_open", "html_inline")]
    assert md_code("") == "" and md_code(None) == ""


def test_plotly_text_escapes_html():
    assert plotly_text(f'<a href="{HOST}/x">Evil</a> & co') == f'&lt;a href="{HOST}/x"&gt;Evil&lt;/a&gt; &amp; co'
    assert plotly_text("辩手甲") == "辩手甲" and plotly_text(None) == ""


def test_safe_format_puts_code_placeholders_in_code_spans():
    from webapp.views import safe_format

    out = safe_format("**model** `{model}` by {who}", model="a`b{x}", who=f"[e]({HOST}/w)")
    assert out.startswith("**model** ``a`b{x}`` by ")
    assert live_parts(out) == []


def test_neutral_debate_renders_no_live_markdown():
    """The master render of a neutral copy (what a Markdown export should write): no image or link."""
    from debate_core.models import Debate, DebateConfig, Observation, Participant, Speech
    from debate_core.render.master import render_master

    d = Debate(id="safe00000001", protocol="master", topic=beacon("topic"), status="completed",
               config=DebateConfig(topic="x"),
               participants=[Participant(label="huineng", name=hostile_name("name"))],
               rounds=[Speech(round=1, speaker="huineng", speaker_name=hostile_name("speaker"), role="立论",
                              text=beacon("speech"), engine="offline")],
               observation=Observation(divergence=beacon("div"), consensus="共识", to_reader=beacon("reader")),
               warnings=[f"⚠️ {beacon('warning')}"], planned_rounds=1)
    assert live_parts(render_master(d))  # as it is, the export would be live
    safe = neutral_debate(d)
    assert live_parts(render_master(safe)) == []
    assert d.topic == beacon("topic")  # the debate itself is left as it is
    assert (safe.id, safe.protocol, safe.status, safe.rounds[0].speaker) == (d.id, d.protocol, d.status, "huineng")
    assert restore_markdown(safe.rounds[0].text) == d.rounds[0].text


def test_neutral_debate_renders_no_live_markdown_for_a_judged_debate(tmp_path):
    """The topic debate's Markdown (log, verdict, wrap-up) and its debate-folder files, from a neutral copy."""
    from debate_core.archive import open_archive
    from debate_core.protocols import registry
    from debate_core.render.judged import debate_log_md, verdict_md

    _master, topic = hostile_debates(open_archive(tmp_path / "a.duckdb"))
    render = registry.get(topic.protocol).render
    assert live_parts(render(topic))
    safe = neutral_debate(topic)
    for text in (render(safe), debate_log_md(safe), verdict_md(safe)):
        assert live_parts(text) == []
    assert [p.label for p in safe.participants] == [p.label for p in topic.participants]


# ------------------------------------------------------------------ the app

AppTest = pytest.importorskip("streamlit.testing.v1").AppTest
PAGES = {"live": "pages/2_Live.py", "outcome": "pages/3_Outcome.py", "archive": "pages/4_Archive.py"}


@pytest.fixture
def archive_path(tmp_path, monkeypatch):
    path = tmp_path / "archive.duckdb"
    monkeypatch.setenv("DEBATE_ARCHIVE", str(path))
    for var in ("DEBATE_MODEL", "DEBATE_API_BASE", "DEBATE_TEST_SLOW_ROUND"):
        monkeypatch.delenv(var, raising=False)
    return path


def app(page: str | None = None, debate_id: str | None = None, tab: str = ""):
    """A page; ``tab`` opens an Archive tab as a click would (only Charts and the open tab's section run)."""
    from tests.app_support import REPO

    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    if page:
        at.switch_page(PAGES[page])
    if debate_id:
        at.query_params["id"] = debate_id
    if tab:
        at.session_state["archive_tab"] = tab
    return at.run()


def shown_markdown(at) -> list[str]:
    """Everything the page renders as Markdown: Markdown elements, alerts, headings, page-link labels."""
    out: list[str] = []
    for kind in ("markdown", "caption", "info", "success", "warning", "error", "title", "header", "subheader",
                 "toast"):
        out += [str(e.value) for e in getattr(at, kind, [])]
    out += [e.proto.label for e in at.get("page_link")]
    out += [e.proto.label for e in at.expander]
    return out


def plotly_strings(at) -> list[str]:
    """Every string of every plotly figure on the page (names, ticks, hover text …)."""
    out: list[str] = []

    def walk(v):
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    for chart in at.get("plotly_chart"):
        walk(json.loads(chart.proto.spec))
    return out


def figure_strings(fig) -> list[str]:
    out: list[str] = []

    def walk(v):
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(json.loads(fig.to_json()))
    return out


def hostile_debates(archive, host: str = HOST):
    """An offline master debate and a judged topic debate whose every text field holds beacons:
    topic, speeches, observation, names, stances, models, judge, verdict, notes."""
    from debate_core.models import Judgment
    from tests.app_support import judged_debate, offline_debate

    master = offline_debate(archive).model_copy(deep=True)
    master.id = "beaconmaster1"
    master.topic = beacon("m-topic", host)
    master.rounds[0].text = beacon("m-speech", host)
    master.rounds[1].speaker_name = hostile_name("m-speaker", host)
    master.observation.divergence = beacon("m-div", host)
    master.observation.to_reader = beacon("m-reader", host)
    master.stop_reason = beacon("m-stop", host)

    topic = judged_debate(archive, "topic", debate_id="beacontopic01").model_copy(deep=True)
    topic.topic = beacon("t-topic", host)
    for i, p in enumerate(topic.participants):
        p.name, p.stance, p.model = hostile_name(f"t-name{i}", host), beacon(f"t-stance{i}", host), \
            hostile_name(f"t-model{i}", host)
    topic.models = [p.model for p in topic.participants] + [hostile_name("t-judge", host)]
    for s in topic.rounds:
        s.text = beacon(f"t-speech{s.round}", host)
        s.speaker_name = next(p.name for p in topic.participants if p.label == s.speaker)
    v = topic.verdict
    v.summary, v.note, v.judge = beacon("t-summary", host), beacon("t-note", host), hostile_name("t-judge", host)
    v.reasons = {hostile_name("t-reason-key", host): beacon("t-reason", host)}
    for r in v.rows:
        r.strongest, r.weakness = beacon("t-strong", host), beacon("t-weak", host)
    topic.judgments = [Judgment(judge=hostile_name("t-panel", host), winner="con",
                                winner_name=hostile_name("t-winner", host), notes=beacon("t-notes", host),
                                decisive=beacon("t-decisive", host), template=hostile_name("t-template", host))]
    return master, topic


def import_through_the_page(archive_path, debates) -> None:
    """The Archive page's upload, with each debate as this workbench's JSON export."""
    from debate_core.io.exporters import to_json_text

    at = app("archive", tab="Import")
    at.file_uploader(key="up_files").set_value(
        [(f"{d.id}.json", to_json_text(d).encode(), "application/json") for d in debates])
    at.run()
    at.button(key="import").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    report = "\n".join(s.value for s in at.success)
    for d in debates:
        assert f"{d.id} · imported" in report
    beacons = [p for m in shown_markdown(at) for p in live_parts(m) if "127.0.0.1" in p or "example" in p]
    assert beacons == []  # the report lists the topics: as text (the page's own "<slug>" aside)


def assert_inert(at, page: str) -> None:
    shown = shown_markdown(at)
    assert shown, page
    live = {m: live_parts(m) for m in shown if live_parts(m)}
    assert not live, (page, live)
    for m in shown:  # nothing else either: the host is text wherever it shows
        for p in live_parts(m):
            assert "127.0.0.1" not in p, (page, p)


def test_imported_beacons_render_as_text_on_every_page(archive_path, tmp_path):
    from debate_core.archive import open_archive

    other = open_archive(tmp_path / "other.duckdb")
    master, topic = hostile_debates(other)
    import_through_the_page(archive_path, [master, topic])

    for page, d in (("outcome", master), ("live", master), ("outcome", topic), ("live", topic)):
        at = app(page, d.id)
        assert not at.exception, [e.value for e in at.exception]
        assert not at.error, (page, [e.value for e in at.error])
        assert_inert(at, f"{page} {d.id}")
        text = "\n".join(shown_markdown(at))
        assert "127.0.0.1:9" in text.replace(ZWSP, "")  # the beacons are shown, as text
        assert "**bold**" in text  # and Markdown still renders
        labels = [e.proto.label for e in at.get("page_link")]
        assert any(label.startswith("Open") for label in labels), labels  # our own links stay

    at = app("outcome", topic.id)
    strings = plotly_strings(at)
    assert strings, "the outcome of a judged topic debate shows its scores and argument map"
    assert not [s for s in strings if re.search(r"<a\b|<img\b", s, re.I)]
    assert any("&lt;a href=" in s for s in strings)  # the names are there, escaped

    at = app("live")  # the picker's page links carry the topics in their labels
    assert_inert(at, "live picker")
    at = app()  # home: the recent debates
    assert_inert(at, "home")


def test_the_id_in_the_url_is_echoed_as_text(archive_path):
    for bad in (f"![x]({HOST}/id.png)", f"<img src={HOST}/id2.png>", f"[a]({HOST}/id3) {HOST}/id4"):
        for page in ("outcome", "live"):
            at = app(page, bad)
            assert not at.exception
            assert at.error, (page, bad)
            assert_inert(at, f"{page} ?id={bad}")
            assert "id" in "\n".join(e.value for e in at.error)


def test_plotly_names_are_escaped_in_every_chart(archive_path, tmp_path):
    import pandas as pd

    from debate_core.archive import open_archive
    from webapp import views

    arc = open_archive(archive_path)
    master, topic = hostile_debates(arc)
    arc.save(master)
    arc.save(topic)

    # the Archive's Charts tab is Vega-Lite: it draws names as text (canvas / SVG text nodes, tooltips escaped),
    # so they go in as data, unescaped, and no other string of a specification carries them
    vega = [views.chart_spec(c) for c in views.archive_figures(arc).values()]
    data = [str(v) for spec in vega for rows in spec.get("datasets", {}).values() for row in rows
            for v in row.values()]
    assert any(f'<a href="{HOST}/t-model' in v for v in data)  # the hostile model name is in the chart, as is
    assert not [t for spec in vega for t in vega_strings(spec) if re.search(r"<a\b|<img\b|&lt;", t, re.I)]
    ratings = views.ratings_tables(arc, bootstrap=5)
    figs = [views.ratings_figure(ratings["models"], "m"), views.ratings_figure(ratings["stances"], "s")]
    names = [hostile_name(f"j{i}") for i in range(3)]
    bias = pd.DataFrame({"judge": names, "judgments": [3, 3, 3], "pro_wins": [1, 2, 3], "con_wins": [2, 1, 0],
                         "ties": [0, 0, 0], "pro_win_rate": [0.3, 0.6, 0.9], "ci_low": [0.1, 0.2, 0.4],
                         "ci_high": [0.6, 0.8, 1.0], "mean_margin": [0, 1, 2], "biased": [False, False, True]})
    square = pd.DataFrame([[0.0, 1.0, 0.5]] * 3, index=names, columns=names)
    dist = pd.DataFrame({"bin": ["0-1", "1-2", "0-1"], "share": [0.5, 0.5, 1.0], "judge": names[:2] + names[2:],
                         "count": [1, 1, 2]})
    figs += [views.side_bias_figure(bias), views.margin_heatmap(square, square),
             views.agreement_heatmap(square, square), views.margin_distribution_figure(dist)]
    lv = views.ledger_view(topic)
    figs.append(lv.figure())
    figs.append(views.outcome_view(topic, arc).scores_figure())
    for fig in figs:
        strings = figure_strings(fig)
        assert not [s for s in strings if re.search(r"<a\b|<img\b", s, re.I)], fig.layout.title.text
    every = [s for fig in figs for s in figure_strings(fig)]
    for tag in ("t-model0", "t-name0", "j0"):  # each kind of name reached a chart, escaped
        assert any(f'&lt;a href="{HOST}/{tag}"&gt;' in s for s in every), tag
