"""The workbench in a real browser: started as `make run` starts it (webapp.serve) on a free 127.0.0.1 port, driven by
Debian's Chromium through Playwright (never a downloaded browser build).

Screenshots of every page go to test-artifacts/ (gitignored).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.app_support import (CHROMIUM, CHROMIUM_ARGS, REPO, XSS_ID, browser_skip_reason, judged_debate,
                                start_streamlit, stop_streamlit, xss_debate)
from tests.slow_round import slow_env

pytestmark = pytest.mark.browser

ARTIFACTS = REPO / "test-artifacts"
VIEWPORT = {"width": 1400, "height": 2200}
TIMEOUT_MS = 30_000



if browser_skip_reason():
    pytest.skip(browser_skip_reason(), allow_module_level=True)

from playwright.sync_api import expect, sync_playwright  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from debate_core.archive import open_archive

    tmp = tmp_path_factory.mktemp("browser")
    archive_path = tmp / "archive.duckdb"
    arc = open_archive(archive_path)
    xss_debate(arc)  # an offline debate plus the XSS probe
    judged_debate(arc, "topic")  # a judged topic debate (the language pages show its verdict)
    env = {k: v for k, v in os.environ.items() if k not in ("DEBATE_MODEL", "DEBATE_API_BASE")}
    # Round 3 of a debate run by the server takes 2 s more to commit: long enough for the
    # browser to see the live page mid-debate (its round in progress streamed, then the rest).
    env.update(DEBATE_ARCHIVE=str(archive_path), PYTHONUNBUFFERED="1")
    env = slow_env(env, 3, 2)  # tests/slow_round.py: the server's sitecustomize wraps Archive.speech
    log = open(tmp / "streamlit.log", "w")
    try:
        proc, url = start_streamlit(REPO / "app.py", env, REPO, log)
    except RuntimeError as exc:
        raise RuntimeError(f"{exc}:\n" + (tmp / "streamlit.log").read_text()[-3000:]) from None
    yield {"url": url, "archive": archive_path, "log": tmp / "streamlit.log"}
    stop_streamlit(proc)
    log.close()


@pytest.fixture(scope="module")
def browser():
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport=VIEWPORT)
    ctx.add_init_script("window.__alerts = []; window.alert = (m) => window.__alerts.push(String(m));")
    pg = ctx.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    pg.dialogs = []
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
    yield pg
    ctx.close()


def settle(pg) -> None:
    """Wait until Streamlit has finished the script run (no 'Running…' status)."""
    pg.wait_for_timeout(300)
    pg.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=TIMEOUT_MS)
    pg.wait_for_timeout(300)


def shot(pg, name: str) -> Path:
    path = ARTIFACTS / f"{name}.png"
    pg.screenshot(path=str(path), full_page=True)
    return path


def test_offline_master_debate_live_outcome_in_the_browser(server, page):
    url = server["url"]
    page.goto(url + "/")
    page.get_by_role("heading", name="Debate Workbench").wait_for()
    page.get_by_text("the embedded default offline engine").wait_for()
    settle(page)
    shot(page, "home")

    page.goto(url + "/Setup")
    page.get_by_text("Suggested pair: 慧能大师 vs 印光大师").wait_for()
    settle(page)
    shot(page, "setup")
    page.get_by_role("button", name="Start debate").click()
    page.wait_for_url("**/Live?id=*")
    debate_id = page.url.split("id=")[1].split("&")[0]
    # mid-debate: two rounds on the page, round 3 streaming in, no reload needed
    # the English UI around the Chinese debate: the roles and status lines in English, the speeches in Chinese
    page.get_by_text("Progress: 2 of 4 rounds").wait_for()
    page.get_by_text("R3｜慧能大师 Response — writing…").wait_for()
    page.get_by_role("heading", name="R3｜慧能大师 Response").first.wait_for()
    assert page.get_by_role("heading", name="R2｜印光大师 Rebuttal").is_visible()
    shot(page, "live-running")
    page.get_by_text("Completed: completed the 4 planned rounds.").wait_for()
    for title in ("R1｜慧能大师 Opening", "R2｜印光大师 Rebuttal", "R3｜慧能大师 Response", "R4｜印光大师 Synthesis"):
        page.get_by_role("heading", name=title).wait_for()  # every round is on the page, the seed's heading form
    assert page.get_by_text("Progress: 4 of 4 rounds").is_visible()
    # each card lists its citation marks (waited for: the last card's list can render a moment after the status)
    page.get_by_text("Citations", exact=True).nth(3).wait_for()
    settle(page)
    shot(page, "live")

    # A reload or a second tab shows the same debate, read from the archive.
    second = page.context.new_page()
    second.goto(page.url)
    second.get_by_text("Completed: completed the 4 planned rounds.").wait_for()
    for title in ("R1｜慧能大师 Opening", "R4｜印光大师 Synthesis"):
        second.get_by_role("heading", name=title).wait_for()
    second.close()

    page.get_by_role("link", name="Open the outcome").click()
    page.wait_for_url(f"**/Outcome?id={debate_id}*")
    page.get_by_text("Open questions — a neutral observation").first.wait_for()
    page.get_by_text("Where they differ").first.wait_for()
    md_button = page.get_by_role("button", name="Markdown (.md)")
    md_button.wait_for()
    with page.expect_download() as dl:
        md_button.click()
    md = Path(dl.value.path()).read_text(encoding="utf-8")
    assert dl.value.suggested_filename == f"debate-{debate_id}.md"
    assert "## 议题：念佛与参禅，哪个更适合现代人？" in md and "### 教内余争 — 中立观察" in md
    settle(page)
    shot(page, "outcome")
    assert not page.dialogs




def test_xss_speech_shows_as_text_and_runs_nothing(server, page):
    page.goto(server["url"] + f"/Live?id={XSS_ID}")
    para = page.locator("p", has_text="<script>alert(1)</script>").first
    para.wait_for()
    text = para.inner_text()
    assert "Before <script>alert(1)</script> middle <img src=x onerror=alert(1)> after" in text
    assert para.locator("strong", has_text="bold").count() == 1  # Markdown still renders
    settle(page)
    page.wait_for_timeout(500)
    assert page.evaluate("() => document.querySelectorAll('img[src=\"x\"]').length") == 0
    assert not page.evaluate("() => [...document.scripts].some(s => s.textContent.includes('alert(1)'))")
    assert page.evaluate("() => window.__alerts") == []
    assert page.dialogs == []
    shot(page, "xss-live")

    page.goto(server["url"] + f"/Outcome?id={XSS_ID}")
    page.get_by_role("heading", name="XSS probe <script>alert(1)</script>").wait_for()
    settle(page)
    assert page.evaluate("() => window.__alerts") == [] and page.dialogs == []
    shot(page, "xss-outcome")


# ---------------------------------------------------------------- languages

LANG_PAGES = {  # name -> (path, {lang: labels shown}, {lang: labels that must not show})
    "home": ("/", {"zh": ["辩论工作台", "最近的辩论", "页面"], "en": ["Debate Workbench", "Recent debates", "Pages"]}),
    "setup": ("/Setup", {"zh": ["辩论形式", "议题", "辩论语言", "开始辩论", "轮数"],
                         "en": ["Protocol", "Topic", "Debate language", "Start debate", "Rounds"]}),
    "live": ("/Live?id=judged000001", {"zh": ["实况", "查看结果", "所用弹药"],
                                       "en": ["Live", "Open the outcome", "Ammo used"]}),
    "outcome": ("/Outcome?id=judged000001", {"zh": ["裁决", "下载", "各辩手"],
                                             "en": ["Verdict", "Downloads", "Per debater"]}),
    "archive": ("/Archive", {"zh": ["浏览", "图表", "评级与裁判", "导入", "辩论形式", "胜方"],  # the Browse tab shows
                             "en": ["Browse", "Charts", "Ratings and judges", "Import", "Protocol", "Winner"]}),
    "coverage": ("/Coverage", {"zh": ["经典配对", "完整配对（双向）", "没有任何批评条目的大师"],
                               "en": ["Canonical pairs", "Complete pairs (both ways)", "Masters with no critique at all"]}),
}
NAV = {"zh": ["首页", "设置", "实况", "结果", "档案", "覆盖"], "en": ["Home", "Setup", "Live", "Outcome", "Archive", "Coverage"]}


def shown(pg, label: str):
    """A label as a widget label, a button, a heading (its icon aside) or a line of text."""
    return pg.get_by_text(label, exact=True).or_(pg.get_by_role("heading", name=label, exact=False))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_page_in_both_languages_with_screenshots(server, page, lang):
    """Each page under ?lang=zh and ?lang=en: its labels (and the sidebar's page titles) in that
    language, none of the other's; a screenshot of each in test-artifacts/i18n-<lang>-<page>.png."""
    other = "en" if lang == "zh" else "zh"
    for name, (path, labels) in LANG_PAGES.items():
        sep = "&" if "?" in path else "?"
        page.goto(server["url"] + path + sep + f"lang={lang}")
        for label in labels[lang]:
            shown(page, label).first.wait_for()
        settle(page)
        for label in labels[other]:
            if label not in labels[lang]:
                assert shown(page, label).count() == 0, (name, lang, label)
        nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
        assert all(t in nav for t in NAV[lang]), nav
        assert f"lang={lang}" in page.url
        shot(page, f"i18n-{lang}-{name}")
    assert page.dialogs == []


# ------------------------------------------------------- archive row selection

ROW_PX = 35  # st.dataframe's header and row height (glide-data-grid defaults in Streamlit)


def _row_pick_debates(archive_path: Path) -> list:
    """Four master debates with distinct topics, all holding 选行 (the text filter shows just them),
    newest first in the order returned."""
    from datetime import timedelta

    from debate_core.archive import open_archive
    from debate_core.models import utcnow
    from tests.app_support import offline_debate

    arc = open_archive(archive_path)
    base = offline_debate(arc)
    out, now = [], utcnow()
    for n, word in enumerate(("顿悟", "渐修", "止观", "唯识")):
        d = base.model_copy(deep=True)
        d.id = f"rowpick{n:05d}"
        d.topic = f"选行第{n + 1}场：{word}与现代人"
        d.created_at = d.updated_at = now - timedelta(minutes=n)
        arc.save(d)
        out.append(d)
    return out


def tick_row(pg, row: int) -> None:
    """Tick row ``row`` (0 = the first data row) of the page's first table: a click on its row marker."""
    grid = pg.locator('[data-testid="stDataFrame"]').first
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    pg.mouse.click(box["x"] + 14, box["y"] + ROW_PX * (row + 1) + ROW_PX / 2)
    settle(pg)




def test_archive_opens_exactly_the_ticked_row(server, page):
    """Issue 25 item 1: tick a row (not the first), press Open in Outcome: that debate opens,
    not what the picker held before; then the same for another row."""
    debates = _row_pick_debates(server["archive"])
    url = server["url"]
    archive_filtered(page, url)
    for row in (2, 1):
        want = debates[row]
        tick_row(page, row)
        picker = page.get_by_role("combobox", name="Debate", exact=True)
        expect(picker).to_have_value(re.compile(f"^{want.id} · "))  # the picker follows the ticked row
        link = page.get_by_role("link", name="Open in Outcome")
        expect(link).to_have_attribute("href", re.compile(f"id={want.id}(&|$)"))
        settle(page)
        shot(page, f"archive-row-{row + 1}-ticked")
        link.click()
        page.wait_for_url(f"**/Outcome?id={want.id}*")
        page.get_by_role("heading", name=f"Topic: {want.topic}").wait_for()
        settle(page)
        for other in debates:
            if other.id != want.id:
                assert page.get_by_text(other.topic).count() == 0, (row, other.topic)
        shot(page, f"archive-row-{row + 1}-outcome")
        archive_filtered(page, url)
    assert page.dialogs == []


# ------------------------------------------------------------------ the HTML export


@pytest.fixture
def beacon():
    """A local HTTP listener on 127.0.0.1, the target of every beacon in the hostile debates: it
    records each request it receives (none may come from the exported page)."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the http.server interface
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.end_headers()

        do_POST = do_HEAD = do_GET  # noqa: N815

        def log_message(self, *args):
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}", hits
    srv.shutdown()
    srv.server_close()


def open_offline_file(browser, path: Path, width: int = 1000):
    """A fresh context on ``path`` (file://) that records every request other than the file itself.
    Nothing is blocked here, so a request the page made would reach the beacon listener too."""
    ctx = browser.new_context(viewport={"width": width, "height": 1200})
    ctx.add_init_script("window.__alerts = []; window.alert = (m) => window.__alerts.push(String(m));")
    asked: list[str] = []
    ctx.on("request", lambda r: None if r.url.startswith("file://") else asked.append(r.url))
    pg = ctx.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    pg.goto(path.resolve().as_uri())
    return ctx, pg, asked


def test_html_export_opens_from_file_complete_and_requests_nothing(server, browser, beacon, tmp_path):
    """Issue 25 item 4: the Outcome page's HTML download, opened from file:// — complete (every
    speech, its notes and check badge, the observation, the analysis), the hostile text shown as
    text, and not one request: the local listener every beacon points at receives nothing."""
    from debate_core.archive import open_archive
    from debate_core.io.exporters import export_debate
    from tests.app_support import offline_debate
    from tests.test_html_export import hostile_judged, hostile_master

    url, hits = beacon
    with urllib_get(url + "/control"):  # the listener answers: a request would be seen
        pass
    assert hits == ["/control"]
    hits.clear()

    arc = open_archive(server["archive"])
    d = hostile_master(offline_debate(arc), url)
    arc.save(d)
    ctx = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    pg = ctx.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    pg.goto(server["url"] + f"/Outcome?id={d.id}&lang=en")
    button = pg.get_by_role("button", name="HTML page (.html)")
    button.wait_for()
    with pg.expect_download() as dl:
        button.click()
    assert dl.value.suggested_filename == f"debate-{d.id}.html"
    path = tmp_path / dl.value.suggested_filename
    dl.value.save_as(path)
    ctx.close()
    hits.clear()  # whatever the app's own page did, only the file counts from here

    ctx, pg, asked = open_offline_file(browser, path)
    try:
        pg.get_by_role("heading", name="发言").wait_for()
        assert pg.evaluate("document.documentElement.lang") == "zh-CN"
        assert pg.locator("article.speech").count() == len(d.rounds)
        assert pg.locator("#closing").get_by_text("分歧本质").is_visible()
        assert pg.locator("#analysis").get_by_text("各篇检查").is_visible()
        first = pg.locator("article.speech").first
        assert first.locator("ol.notes li").count() >= 1
        assert first.get_by_text("<script>alert(1)</script>", exact=False).first.is_visible()
        assert first.get_by_text(f"![x]({url}/md.png)", exact=False).first.is_visible()
        badge = first.locator("details.checks")
        assert badge.count() == 1 and not badge.locator("li").first.is_visible()
        badge.locator("summary").click()  # the badge opens to the findings
        assert badge.locator("li").first.is_visible()
        assert pg.evaluate("document.querySelectorAll('img, script, iframe, object, embed, video, svg').length") == 0
        assert pg.evaluate("[...document.querySelectorAll('[style]')].length") == 0
        pg.wait_for_timeout(1000)
        shot(pg, "html-export-master")
        pg.emulate_media(media="print")
        pg.screenshot(path=str(ARTIFACTS / "html-export-master-print.png"), full_page=True)
        pg.pdf(path=str(ARTIFACTS / "html-export-master.pdf"))  # PDF is the browser's print
        assert pg.evaluate("window.__alerts") == []
    finally:
        ctx.close()

    # a judged debate and an imported benchmark debate, exported by the library; the benchmark at phone width
    from debate_core.io.importers import import_paths
    from tests.app_support import judged_debate

    judged = hostile_judged(judged_debate(arc, "topic", debate_id="judged000009"), url)
    arc.save(judged)
    bench = next(r for r in import_paths(arc, [str(REPO / "tests" / "fixtures" / "benchmark")])
                 if r.status != "skipped")
    for debate_id, name, width in ((judged.id, "html-export-judged", 1000), (bench.id, "html-export-benchmark-phone",
                                                                              390)):
        out = export_debate(arc, debate_id, "html", tmp_path / f"{name}.html")
        ctx, pg, more = open_offline_file(browser, out, width)
        try:
            pg.locator("#closing").wait_for()
            assert pg.locator("article.speech").count() == len(arc.get_debate(debate_id).rounds)
            assert pg.evaluate("document.querySelectorAll('img, script, iframe').length") == 0
            overflow = pg.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 1, overflow  # nothing wider than the screen: tables scroll inside their box
            pg.wait_for_timeout(500)
            shot(pg, name)
        finally:
            ctx.close()
        asked += more
    assert asked == [] and hits == [], (asked, hits)


class urllib_get:
    """``with urllib_get(url):`` one GET, its response closed."""

    def __init__(self, url: str):
        import urllib.request

        self.resp = urllib.request.urlopen(url, timeout=5)

    def __enter__(self):
        return self.resp

    def __exit__(self, *exc):
        self.resp.close()


# ---------------------------------------------- untrusted text renders as text (issue 23 item 4)

VEGA_DRAWN = "[data-testid=stVegaLiteChart] canvas, [data-testid=stVegaLiteChart] svg.marks"  # the Archive's charts

NO_LINK_TO = """(host) => {
  const bad = [];
  for (const el of document.querySelectorAll('a, img, image, iframe, source, video, audio, link, script, object, embed')) {
    for (const attr of ['href', 'src', 'xlink:href', 'srcset', 'data']) {
      const v = el.getAttribute(attr);
      let to = '';
      try { to = v ? new URL(v.trim().split(/\s/)[0], location.href).host : ''; } catch (e) { to = ''; }
      if (to === host) bad.push(`${el.tagName} ${attr}=${v}`);
    }
  }
  for (const e of performance.getEntriesByType('resource')) if (new URL(e.name).host === host) bad.push(`fetched ${e.name}`);
  return bad;
}"""


def _imported_beacons(server, page, tmp_path):
    """Issue 23 item 4: two debates whose topic, speeches, observation, verdict, judge notes, names,
    stances and models hold Markdown images, links, autolinks, bare URLs and HTML, all pointing at a
    local HTTP listener, imported through the Archive page (a folder on this machine).  Their Outcome
    and Live pages, and an Outcome page whose ``?id=`` is an image, hold no link or image to the
    listener, and the listener receives no request; the names in the plotly charts and in the Archive's
    Vega-Lite wins charts (and their tooltips) show as text."""
    import threading
    import urllib.request
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from debate_core.archive import open_archive
    from debate_core.io.exporters import to_json_text
    from tests import test_safe_render as cases

    hits: list[str] = []

    class Listener(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the http.server interface
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.end_headers()

        do_POST = do_HEAD = do_GET  # noqa: N815

        def log_message(self, *args):
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Listener)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    target = f"127.0.0.1:{srv.server_address[1]}"
    host = f"http://{target}"
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if r.url.startswith(host) else None)
    try:
        urllib.request.urlopen(host + "/control", timeout=5).close()  # the listener hears a request
        assert hits == ["/control"]
        hits.clear()

        master, topic = cases.hostile_debates(open_archive(tmp_path / "scratch.duckdb"), host)
        folder = tmp_path / "beacons"
        folder.mkdir()
        for d in (master, topic):
            (folder / f"{d.id}.json").write_text(to_json_text(d), encoding="utf-8")

        url = server["url"]
        page.goto(url + "/Archive?lang=en")
        page.get_by_role("button", name="Import folder").wait_for(timeout=4 * TIMEOUT_MS)  # below every chart
        settle(page)
        box = page.get_by_role("textbox", name="Folder on this machine")
        box.fill(str(folder))
        box.press("Enter")
        settle(page)
        page.get_by_role("button", name="Import folder").click()
        page.get_by_text("2 imported").wait_for()
        settle(page)
        assert page.evaluate(NO_LINK_TO, target) == []
        shot(page, "beacon-archive-import")
        # the Archive's wins charts (Vega-Lite) name the winning model and stance: drawn as text, and a
        # tooltip over the bar shows the name as text too
        archive_tab(page, "Charts")
        page.locator("[data-testid=stButtonGroup] button").filter(has_text="Winners (judged)").click()
        settle(page)
        charts = page.locator("[data-testid=stVegaLiteChart]")
        tips: list[tuple[str, str]] = []
        # the wins-by-model chart (the second) replaces the Activity charts once the rerun is drawn; the server's
        # archive holds other tests' debates too, so sweep along the bars' feet (every bar starts at 0) until a
        # tooltip names the hostile winning model
        for _attempt in range(3):
            charts.locator("canvas, svg.marks").first.wait_for()
            page.wait_for_timeout(500)
            chart = charts.nth(charts.count() - 1)
            chart.scroll_into_view_if_needed()
            box = chart.bounding_box()
            for fy in (0.45, 0.4, 0.5, 0.35, 0.55):
                for k in range(4, 97, 2):
                    page.mouse.move(box["x"] + k / 100 * box["width"], box["y"] + fy * box["height"])
                    page.wait_for_timeout(60)
                    tip = page.locator("#vg-tooltip-element.visible")
                    if tip.count():
                        tips.append((tip.inner_text(), tip.inner_html()))
                        if f'<a href="{host}/t-model' in tips[-1][0]:
                            break
                if any(f'<a href="{host}/t-model' in text for text, _html in tips):
                    break
            if any(f'<a href="{host}/t-model' in text for text, _html in tips):
                break
        shot(page, "beacon-archive-charts")
        assert page.evaluate(NO_LINK_TO, target) == []
        assert any(f'<a href="{host}/t-model' in text for text, _html in tips), tips  # the name, as text
        assert not [html for _text, html in tips if re.search(r"<a\b|<img\b", html)], tips

        for path, shown, name in ((f"/Outcome?id={master.id}", "m-reader-img.png", "beacon-outcome-master"),
                                  (f"/Live?id={master.id}", "m-speech-img.png", "beacon-live-master"),
                                  (f"/Outcome?id={topic.id}", "t-summary-img.png", "beacon-outcome-topic"),
                                  (f"/Live?id={topic.id}", "t-speech1-img.png", "beacon-live-topic"),
                                  (f"/Outcome?id=![x]({host}/id.png)", "id.png", "beacon-outcome-id")):
            page.goto(url + path + ("&" if "?" in path else "?") + "lang=en")
            page.get_by_text(shown, exact=False).first.wait_for()  # the beacon is on the page, as text
            settle(page)
            for chart in page.locator(".js-plotly-plot").all():
                chart.scroll_into_view_if_needed()
            page.wait_for_timeout(1000)
            assert page.evaluate(NO_LINK_TO, target) == [], path
            if name == "beacon-outcome-topic":  # the scores chart and the argument map name the debaters
                legends = page.evaluate("[...document.querySelectorAll('.legendtext, .xtick text, .ytick text')]"
                                        ".map(e => e.textContent)")
                assert any(f'<a href="{host}/t-name' in t for t in legends), legends
            shot(page, name)
        page.wait_for_timeout(500)
        assert hits == [] and asked == [], (hits, asked)
        assert page.dialogs == []
    finally:
        srv.shutdown()
        srv.server_close()


# ------------------------------------------------------------------ presentation mode


def test_present_steps_through_a_debate_with_next(server, page):
    """Issue 25 item 3: /Present?id=… shows a master debate round by round, in large type and without
    metadata: R1 alone, then Next (the button, or → on the keyboard) reveals R2, R3, R4, and the
    neutral observation is the last step; the Outcome page's Present link opens the same view."""
    from debate_core.archive import open_archive
    from tests.app_support import offline_debate

    arc = open_archive(server["archive"])
    d = offline_debate(arc).model_copy(deep=True)
    d.id = "present00001"
    arc.save(d)
    roles = {"立论": "Opening", "反驳": "Rebuttal", "回应": "Response", "综合": "Synthesis"}  # the reader's language
    titles = [f"R{s.round}｜{s.speaker_name} {roles[s.role]}" for s in d.rounds]
    url = server["url"]

    page.goto(url + f"/Outcome?id={d.id}&lang=en")
    page.locator('[data-testid="stMain"]').get_by_role("link", name="Present").click()
    page.wait_for_url(f"**/Present?id={d.id}*")
    page.get_by_role("heading", name=titles[0]).wait_for()
    page.get_by_text("Step 1 of 5").wait_for()
    settle(page)
    for later in titles[1:]:
        assert page.get_by_role("heading", name=later).count() == 0  # R1 only
    assert page.get_by_text(d.id).count() == 0 and page.get_by_text("offline").count() == 0  # no metadata
    size = page.evaluate("() => parseFloat(getComputedStyle(document.querySelector("
                         "'[data-testid=\"stMarkdownContainer\"] h4')).fontSize)")
    assert size >= 20, size  # large type: the paragraphs are bigger than body text (16 px)
    assert page.get_by_role("button", name="← Previous").is_disabled()
    shot(page, "present-step-1")

    page.get_by_role("button", name="Next →").click()
    page.get_by_text("Step 2 of 5").wait_for()
    page.get_by_role("heading", name=titles[1]).wait_for()
    settle(page)
    assert page.get_by_role("heading", name=titles[0]).count() == 0
    assert "step=2" in page.url
    shot(page, "present-step-2")

    page.keyboard.press("ArrowRight")  # → is Next's shortcut
    page.get_by_text("Step 3 of 5").wait_for()
    page.get_by_role("heading", name=titles[2]).wait_for()
    settle(page)
    page.get_by_role("button", name="Next →").click()
    page.get_by_text("Step 4 of 5").wait_for()
    settle(page)
    page.get_by_role("button", name="Next →").click()
    page.get_by_text("Step 5 of 5").wait_for()
    page.get_by_role("heading", name="Open questions — a neutral observation").wait_for()
    page.get_by_text("Where they differ").first.wait_for()
    settle(page)
    assert page.get_by_role("button", name="Next →").is_disabled()
    shot(page, "present-last-step")

    page.get_by_role("button", name="← Previous").click()
    page.get_by_text("Step 4 of 5").wait_for()
    page.get_by_role("heading", name=titles[3]).wait_for()
    assert page.dialogs == []


# ------------------------------------------------------------------ audience vote


def test_audience_vote_from_two_phones_before_and_after_then_the_shift_on_present(server, browser, page):
    """Issue 25 item 3's audience vote: the presenter opens the vote before the debate on Present (its
    short link and QR code show); two phones (two browser contexts) vote through the link; a second vote
    from the same phone replaces its first; opening the vote after closes the one before, whose link then
    refuses with one line; both phones vote after, and Present's last step charts the opinion shift."""
    from debate_core.archive import open_archive

    arc = open_archive(server["archive"])
    d = judged_debate(arc, "trial", debate_id="vote00000001")
    pro, con = "PRO (For the motion)", "CON (Against the motion)"  # a trial's sides, in the reader's words (en-US)
    url = server["url"]

    page.goto(url + f"/Present?id={d.id}&lang=en")
    page.get_by_text("Step 1 of 3").wait_for()
    settle(page)
    assert page.locator('[data-testid="stCode"]').count() == 0  # the switch is off: the debate alone
    page.get_by_text("Audience vote", exact=True).click()
    page.locator(".st-key-present-vote-before button").click()
    page.get_by_text("Open: 0 votes so far.").wait_for()
    settle(page)
    link = page.locator('[data-testid="stCode"]').first.inner_text().strip()
    assert link == f"{url}/Vote?id={d.id}&phase=before", link
    qr = page.locator('[data-testid="stImage"] img').first
    qr.wait_for()
    assert qr.bounding_box()["width"] >= 200  # a QR code the room can scan from the screen
    shot(page, "vote-present-before-open")

    phones = [browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US") for _ in range(2)]
    try:
        tabs = [ctx.new_page() for ctx in phones]

        def vote(pg, side: str, said: str) -> None:
            pg.get_by_text(side, exact=True).click()
            pg.get_by_role("button", name="Vote", exact=True).click()
            pg.get_by_text(said).wait_for()
            settle(pg)

        for pg, side in zip(tabs, (pro, con)):
            pg.set_default_timeout(TIMEOUT_MS)
            pg.goto(link)
            pg.get_by_role("heading", name=d.topic).wait_for()
            pg.get_by_text("Vote before the debate").wait_for()
            settle(pg)
            assert "device=" in pg.url  # this phone's token, in its URL
            assert pg.get_by_text("openai").count() == 0  # the topic and the sides only
            vote(pg, side, "Your vote is counted")
        shot(tabs[0], "vote-phone-before")
        vote(tabs[1], pro, f"Your vote is changed to {pro}.")  # the second phone changes its mind
        vote(tabs[1], con, f"Your vote is changed to {con}.")  # and back: still one vote
        state = arc.vote_state(d.id)["before"]
        assert state.counts == {"pro": 1, "con": 1, "undecided": 0}, state

        page.locator(".st-key-present-vote-after button").click()  # the vote after: the one before closes
        page.get_by_text("Closed: 2 votes.").wait_for()
        settle(page)
        after = page.locator('[data-testid="stCode"]').first.inner_text().strip()
        assert after == f"{url}/Vote?id={d.id}&phase=after", after

        tabs[0].reload()  # the link before, now closed: one line, no form
        tabs[0].get_by_text("This vote is closed: no new votes.").wait_for()
        settle(tabs[0])
        assert tabs[0].get_by_role("button", name="Vote", exact=True).count() == 0
        shot(tabs[0], "vote-phone-closed")

        for pg in tabs:
            pg.goto(after)
            pg.get_by_text("Vote after the debate").wait_for()
            settle(pg)
            vote(pg, pro, "Your vote is counted")
        shot(tabs[1], "vote-phone-after")
    finally:
        for ctx in phones:
            ctx.close()

    page.locator(".st-key-present-vote-after button").click()  # close the vote after
    page.get_by_text("Closed: 2 votes.").nth(1).wait_for()
    settle(page)
    page.get_by_role("button", name="Next →").click()
    page.get_by_text("Step 2 of 3").wait_for()
    settle(page)
    page.get_by_role("button", name="Next →").click()
    page.get_by_text("Step 3 of 3").wait_for()
    page.get_by_role("heading", name="Opinion shift").wait_for()
    page.get_by_text(f"{pro}: 50% → 100% (+50 points)").wait_for()
    page.get_by_text(f"{con}: 50% → 0% (-50 points)").wait_for()
    chart = page.locator(".js-plotly-plot").first
    chart.wait_for()
    chart.scroll_into_view_if_needed()
    legend = page.evaluate("[...document.querySelectorAll('.legendtext')].map(e => e.textContent)")
    assert legend == ["Before (2 votes)", "After (2 votes)"], legend
    settle(page)
    shot(page, "vote-present-shift")
    data = arc.vote_results(d.id)
    assert data["shift"] == {"pro": 50.0, "con": -50.0, "undecided": 0.0}
    assert page.dialogs == []


# ------------------------------------------------------------ the Archive in tabs (issue 25 item 8)
# The Archive is in tabs (Browse, Charts, Ratings and judges, SQL, Import): only the open tab is on screen.


def archive_tab(pg, name: str) -> None:
    """Open the Archive's tab ``name`` (its label in the page's language)."""
    pg.get_by_role("tab", name=name, exact=True).click()
    settle(pg)


def archive_filtered(pg, url: str) -> None:
    """The Archive page (its Browse tab) with its text filter on 选行: the four debates of _row_pick_debates."""
    pg.goto(url + "/Archive?lang=en")
    pg.get_by_role("tab", name="Browse", exact=True).wait_for()
    settle(pg)
    box = pg.get_by_label("Text in the topic or the speeches")
    box.fill("选行")
    box.press("Enter")
    pg.get_by_text("4 debates, newest first").wait_for()
    settle(pg)



class _OpensArchiveTab:
    """``page`` whose goto to the Archive opens one of its tabs (for a test written before the tabs)."""

    def __init__(self, pg, tab: str):
        self._pg, self._tab = pg, tab

    def __getattr__(self, name):
        return getattr(self._pg, name)

    def goto(self, url: str, **kwargs):
        response = self._pg.goto(url, **kwargs)
        if "/Archive" in url:
            archive_tab(self._pg, self._tab)
        return response


def test_imported_beacons_reach_no_listener(server, page, tmp_path):
    """As above (issue 23 item 4), importing through the Archive's Import tab."""
    _imported_beacons(server, _OpensArchiveTab(page, "Import"), tmp_path)


def test_archive_sql_refusal_and_coverage_in_the_browser(server, page):
    url = server["url"]
    page.goto(url + "/Archive?lang=en")
    archive_tab(page, "Charts")
    page.get_by_role("heading", name="Charts").wait_for()
    page.locator(VEGA_DRAWN).first.wait_for()
    settle(page)
    shot(page, "archive")
    archive_tab(page, "SQL")
    box = page.get_by_label("SQL (read-only)")
    box.fill("COPY debates TO '/tmp/stolen.csv'")
    box.press("Control+Enter")
    settle(page)
    page.get_by_role("button", name="Run query").click()
    page.get_by_text("refused: COPY reads or writes files").wait_for()
    assert not Path("/tmp/stolen.csv").exists()
    settle(page)
    shot(page, "archive-sql")

    page.goto(url + "/Coverage")
    page.get_by_text("Complete pairs (both ways)").wait_for()
    page.locator(".js-plotly-plot").first.wait_for()
    assert page.get_by_text("Canonical pairs", exact=True).is_visible()
    settle(page)
    shot(page, "coverage")

    from tests.conftest import skill_pack_folders

    # a Master-skill pack by folder: the upstream one where present (8 complete pairs, 10 one-way entries), then
    # the fixture in every checkout (8 and 6); in this order, since "pack master-skill" is inside the fixture's name
    counts = {"reference": ["8", "10"], "fixture": ["8", "6"]}
    page.get_by_text("a folder", exact=True).click()  # (the pack caption says "a folder" too)
    for which, path in skill_pack_folders().items():
        folder = page.get_by_label("Pack folder", exact=True).and_(page.get_by_role("textbox"))
        folder.fill(str(path))
        folder.press("Enter")
        page.get_by_text(f"pack {path.parent.name if path.name == 'prebuilt' else path.name}").wait_for()
        settle(page)
        metrics = page.locator('[data-testid="stMetricValue"]').all_inner_texts()
        assert metrics[2:4] == counts[which], (which, metrics)
        shot(page, f"coverage-{which}")


def test_language_selector_links_and_browser_locale(server, browser):
    """The sidebar selector switches the language; links and page switches keep it; with no
    ?lang= a Chinese browser gets Chinese and any other browser English."""
    ctx = browser.new_context(viewport=VIEWPORT, locale="zh-CN")
    pg = ctx.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    try:
        pg.goto(server["url"] + "/")
        pg.get_by_role("heading", name="辩论工作台").wait_for()  # st.context.locale is zh-CN
        pg.wait_for_url("**/?lang=zh")
        settle(pg)
        pg.get_by_test_id("stSidebar").get_by_text("English", exact=True).click()
        pg.get_by_role("heading", name="Debate Workbench").wait_for()
        pg.wait_for_url("**/?lang=en")
        settle(pg)
        pg.get_by_test_id("stSidebar").get_by_text("中文", exact=True).click()
        pg.get_by_role("heading", name="辩论工作台").wait_for()
        settle(pg)
        pg.get_by_test_id("stMain").get_by_role("link", name="档案").click()  # a page link carries ?lang=
        pg.wait_for_url("**/Archive?lang=zh")
        pg.get_by_role("tab", name="图表", exact=True).wait_for()
        settle(pg)
        pg.get_by_test_id("stSidebarNav").get_by_text("覆盖", exact=True).click()  # the session keeps it
        pg.get_by_role("heading", name="经典配对").wait_for()
        pg.wait_for_url("**/Coverage?lang=zh")
        shot(pg, "i18n-zh-selector")
    finally:
        ctx.close()
    ctx = browser.new_context(viewport=VIEWPORT, locale="en-US")
    pg = ctx.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    try:
        pg.goto(server["url"] + "/Setup")
        pg.get_by_text("Start debate", exact=True).wait_for()
        pg.wait_for_url("**/Setup?lang=en")
    finally:
        ctx.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_archive_tabs_in_the_browser(server, page, lang):
    """Issue 25 item 8: the Archive opens on Browse (the table with its winner column); each tab in
    turn: Charts (a chart drawn), Ratings and judges, SQL (an example query run, then a bad query:
    one line), Import.  Screenshots: test-artifacts/archive-tab-<lang>-<tab>.png."""
    zh = lang == "zh"
    names = ["浏览", "图表", "评级与裁判", "SQL", "导入"] if zh else ["Browse", "Charts", "Ratings and judges", "SQL",
                                                                 "Import"]
    page.goto(server["url"] + f"/Archive?lang={lang}")
    for name in names:
        page.get_by_role("tab", name=name, exact=True).wait_for()
    page.locator('[data-testid="stDataFrame"]').first.wait_for()
    settle(page)
    assert page.get_by_role("tab", name=names[0], exact=True).get_attribute("aria-selected") == "true"
    # the grid draws on a canvas; its accessible table carries the column headers
    header = page.locator('[data-testid="stDataFrame"] [role="columnheader"]').filter(has_text="胜方" if zh else "winner")
    header.first.wait_for(state="attached")  # the grid builds its accessible table after it draws
    shot(page, f"archive-tab-{lang}-browse")

    archive_tab(page, names[1])
    page.locator(VEGA_DRAWN).first.wait_for()
    said = page.get_by_text("整个档案" if zh else "Over the whole archive", exact=False)  # other tabs hold it too
    assert any(said.nth(i).is_visible() for i in range(said.count()))
    settle(page)
    shot(page, f"archive-tab-{lang}-charts")

    archive_tab(page, names[2])
    page.get_by_role("heading", name="裁判与对阵" if zh else "Judges and matchups").wait_for()
    shot(page, f"archive-tab-{lang}-ratings")

    archive_tab(page, names[3])
    page.get_by_text("数据表及其列" if zh else "Tables and their columns").wait_for()
    page.get_by_role("button", name="已评判辩论的胜方" if zh else "Winners of judged debates").click()
    settle(page)
    box = page.get_by_label("SQL（只读）" if zh else "SQL (read-only)")
    expect(box).to_have_value(re.compile("^SELECT d.created_at"))
    page.get_by_role("button", name="运行查询" if zh else "Run query").click()
    page.get_by_text(re.compile("^[0-9]+ (行|rows?)$")).wait_for()
    settle(page)
    shot(page, f"archive-tab-{lang}-sql")
    box.fill("SELECT nope FROM debates")
    box.press("Control+Enter")
    settle(page)
    page.get_by_role("button", name="运行查询" if zh else "Run query").click()
    alert = page.locator('[data-testid="stAlert"]').filter(has_text="Binder Error")
    alert.wait_for()
    lines = [x for x in alert.inner_text().splitlines() if x.strip() and x.strip() != "⚠️"]  # the alert's icon apart
    assert len(lines) == 1 and not lines[0].startswith("SQL"), lines
    settle(page)
    shot(page, f"archive-tab-{lang}-sql-error")

    archive_tab(page, names[4])
    page.get_by_role("button", name="导入文件夹" if zh else "Import folder").wait_for()
    shot(page, f"archive-tab-{lang}-import")
    assert page.dialogs == []


# ------------------------------------------------------------ navigation, copy link, compare


def test_deep_link_as_a_first_visit_shows_the_full_sidebar(browser, tmp_path):
    """Issue 25 item 9: the very first visit to a fresh server through a shared deep link
    (/Outcome?id=…) shows our sidebar — Home (not the file name "app"), every page, the language
    selector — not Streamlit's raw pages/ folder list; the same in Chinese."""
    from debate_core.archive import open_archive
    from tests.app_support import offline_debate

    archive_path = tmp_path / "archive.duckdb"
    d = offline_debate(open_archive(archive_path))
    env = {k: v for k, v in os.environ.items() if k not in ("DEBATE_MODEL", "DEBATE_API_BASE")}
    env.update(DEBATE_ARCHIVE=str(archive_path), PYTHONUNBUFFERED="1")
    log = open(tmp_path / "streamlit.log", "w")
    proc, url = start_streamlit(REPO / "app.py", env, REPO, log)
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        pg = ctx.new_page()
        pg.set_default_timeout(TIMEOUT_MS)
        pg.goto(url + f"/Outcome?id={d.id}")  # nobody has opened Home on this server
        sidebar = pg.locator('[data-testid="stSidebar"]')
        sidebar.get_by_text("Language · 语言").wait_for()
        pg.get_by_role("heading", name=re.compile(r"R1｜慧能大师 (立论|Opening)")).wait_for()  # the role in the UI's language
        settle(pg)
        nav = sidebar.locator('[data-testid="stSidebarNav"]')
        names = [t.strip() for t in nav.locator("a").all_inner_texts()]
        assert "Home" in " ".join(names) and not any(n == "app" or n.endswith("\napp") for n in names), names
        for name in ("Setup", "Outcome", "Archive", "Compare"):
            assert name in " ".join(names), names
        pg.screenshot(path=str(ARTIFACTS / "deep-link-first-visit.png"))

        zh = ctx.new_page()
        zh.goto(url + f"/Outcome?id={d.id}&lang=zh")
        zh.locator('[data-testid="stSidebar"]').get_by_text("Language · 语言").wait_for()
        zh.locator('[data-testid="stSidebarNav"]').get_by_text("首页").wait_for()
        settle(zh)
        zh.screenshot(path=str(ARTIFACTS / "deep-link-first-visit-zh.png"))
    finally:
        ctx.close()
        stop_streamlit(proc)
        log.close()


def test_compare_shows_both_debates_round_one_side_by_side(server, page):
    """Issue 25 item 5: /Compare?a=…&b=… puts a master debate and a judged topic debate side by side, each
    one's R1 in the Round 1 row (A left, B right, level); Swap sides exchanges them; Outcome's
    "Compare with…" opens the page with the debate as A and a picker for B; Outcome's Copy link shows
    the page's own address."""
    from debate_core.archive import open_archive
    from tests.app_support import offline_debate

    arc = open_archive(server["archive"])
    d = offline_debate(arc).model_copy(deep=True)
    d.id = "compare00001"
    arc.save(d)
    url = server["url"]
    master_r1 = f"R1｜{d.rounds[0].speaker_name} Opening"  # the role in the reader's language

    page.goto(url + f"/Compare?a={d.id}&b=judged000001&lang=en")
    page.get_by_role("heading", name="Round 1").wait_for()
    left = page.get_by_role("heading", name=master_r1)
    right = page.get_by_role("heading", name="R1｜Debater A · Opening")
    left.wait_for()
    right.wait_for()
    settle(page)
    lb, rb = left.bounding_box(), right.bounding_box()
    assert lb["x"] + lb["width"] <= rb["x"] + 1, (lb, rb)  # side by side: A left of B
    assert abs(lb["y"] - rb["y"]) < 40, (lb, rb)  # on the same row
    r2 = page.get_by_role("heading", name="Round 2").bounding_box()
    assert lb["y"] < r2["y"] and rb["y"] < r2["y"]  # both in the Round 1 row
    shot(page, "compare")

    page.get_by_role("button", name="⇄ Swap sides").click()
    page.wait_for_url(f"**/Compare?a=judged000001&b={d.id}*")
    page.locator(".st-key-content-topic-a").get_by_text("远程办公是否提高效率？").wait_for()  # A's topic now
    settle(page)
    left, right = page.get_by_role("heading", name=master_r1), page.get_by_role("heading", name="R1｜Debater A · Opening")
    left.wait_for()
    right.wait_for()
    lb, rb = left.bounding_box(), right.bounding_box()
    assert rb["x"] + rb["width"] <= lb["x"] + 1, (lb, rb)  # swapped: the topic debate left
    shot(page, "compare-swapped")

    page.goto(url + f"/Outcome?id={d.id}&lang=zh")
    page.get_by_role("button", name="🔗 复制链接").click()
    page.get_by_text(f"/Outcome?id={d.id}&lang=zh").wait_for()
    assert page.get_by_text(url + f"/Outcome?id={d.id}&lang=zh").count() >= 1  # the full address
    page.keyboard.press("Escape")
    page.locator('[data-testid="stMain"]').get_by_role("link", name="与……对比").click()
    page.wait_for_url(f"**/Compare?a={d.id}*")
    page.get_by_text("辩论 B").first.wait_for()
    settle(page)
    shot(page, "compare-pick-zh")
    assert page.dialogs == []
