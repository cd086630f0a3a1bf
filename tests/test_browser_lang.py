"""The debate speaks its own language, the app's chrome the reader's: in a real browser (``streamlit run
app.py`` on a free 127.0.0.1 port, Debian's Chromium through Playwright), over an archive holding an offline
master debate (Chinese), an imported topic debate (Chinese) and a benchmark side-swap pair (English).

* English UI, a Chinese master debate's Outcome and Live: no Chinese character outside the debate's own
  regions (its topic, speeches, citations, ammo, observation: the page's ``content-…`` containers) and
  the names of its masters.
* Chinese UI: none of the app's known English leaks (stop reasons like "10 turns", "(for the motion)",
  role slugs, rule and mark words, the panel's note).
* A benchmark debate's long judge notes show their first words and expand to the whole; Side A / Side B
  in the notes get a one-line legend; the side-swapped twin is one click away.

Screenshots go to test-artifacts/lang-*.png (gitignored).
"""

from __future__ import annotations

import os
import re

import pytest

from tests.app_support import (CHROMIUM, CHROMIUM_ARGS, REPO, browser_skip_reason, offline_debate, start_streamlit,
                                stop_streamlit)

pytestmark = pytest.mark.browser

ARTIFACTS = REPO / "test-artifacts"
TIMEOUT_MS = 60_000
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
LONG_NOTE = ("Side A opened with a clear framing of the motion and kept returning to it, while Side B spent "
             "its first two turns on definitions that never paid off. In the rebuttals Side A answered the "
             "pressure questions directly, conceding the narrow point about costs but showing why it did not "
             "decide the motion; Side B repeated its opening instead of engaging. The closing of Side A tied "
             "every thread together and named the one claim left unanswered, so the decision goes to Side A "
             "although the margin is modest and a different emphasis could have changed it. Endword.")



if browser_skip_reason():
    pytest.skip(browser_skip_reason(), allow_module_level=True)

from playwright.sync_api import sync_playwright  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from debate_core.archive import open_archive
    from debate_core.io.importers import import_paths
    from tests.archive_helpers import SAMPLE
    from tests.benchmark_synth import write_benchmark

    tmp = tmp_path_factory.mktemp("browser-lang")
    archive_path = tmp / "archive.duckdb"
    arc = open_archive(archive_path)
    master = offline_debate(arc)
    write_benchmark(tmp / "synth", models=2, groups=1, paragraphs=2, words=12)
    bench = [r.id for r in import_paths(arc, [str(tmp / "synth")]) if r.kind == "benchmark"]
    assert len(bench) == 2  # the side-swap pair: s0 and its twin s1
    first = arc.get_debate(bench[0])
    first.judgments[0].notes = LONG_NOTE  # one judge wrote at length, naming the sides by letter
    arc.save(first)
    topic = None
    if SAMPLE.exists():
        topic = next((r.id for r in import_paths(arc, [str(SAMPLE)]) if r.kind == "topic-debate"), None)
    env = {k: v for k, v in os.environ.items() if k not in ("DEBATE_MODEL", "DEBATE_API_BASE")}
    env.update(DEBATE_ARCHIVE=str(archive_path), PYTHONUNBUFFERED="1")
    log = open(tmp / "streamlit.log", "w")
    try:
        proc, url = start_streamlit(REPO / "app.py", env, REPO, log)
    except RuntimeError as exc:
        raise RuntimeError(f"{exc}:\n" + (tmp / "streamlit.log").read_text()[-3000:]) from None
    yield {"url": url, "master": master, "bench": bench[0], "twin": bench[1], "topic": topic,
           "judge": first.judgments[0].judge, "debates": {i: arc.get_debate(i) for i in bench}}
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
    ctx = browser.new_context(viewport={"width": 1400, "height": 2200})
    pg = ctx.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    yield pg
    ctx.close()


def settle(pg) -> None:
    """Until Streamlit has finished the script run (no 'Running…' status), twice over a pause."""
    for _ in range(2):
        pg.wait_for_timeout(400)
        pg.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')",
                             timeout=TIMEOUT_MS)
    pg.wait_for_timeout(300)


def open_page(pg, url: str, ready: str) -> None:
    pg.goto(url)
    pg.get_by_text(ready).first.wait_for()
    settle(pg)


def open_expanders(pg) -> None:
    closed = pg.locator("[data-testid=stMain] [data-testid=stExpander] details:not([open]) > summary")
    for _ in range(60):
        if not closed.count():
            break
        closed.first.click()
        pg.wait_for_timeout(100)
    pg.wait_for_timeout(300)


def chrome_text(pg) -> str:
    """The main area's visible text without the debate's own regions (the ``content-…`` containers)."""
    return pg.evaluate("""() => {
        const main = document.querySelector('[data-testid="stMain"]').cloneNode(true);
        main.querySelectorAll('[class*="st-key-content-"]').forEach(e => e.remove());
        document.body.appendChild(main);
        const text = main.innerText;
        main.remove();
        return text;
    }""")


def leaks_cjk(text: str, names: list[str]) -> list[str]:
    """Lines with a Chinese character once the debate's names are taken out."""
    out = []
    for line in text.splitlines():
        for n in sorted(names, key=len, reverse=True):
            line = line.replace(n, "")
        if CJK.search(line):
            out.append(line)
    return out


def test_english_outcome_and_live_of_a_chinese_master_debate_show_no_chinese_chrome(server, page):
    d = server["master"]
    names = [p.name for p in d.participants if p.name]
    open_page(page, f"{server['url']}/Outcome?id={d.id}&lang=en", "Transcript (4 speeches)")
    open_expanders(page)
    page.get_by_text("Rule checks").first.wait_for()
    text = chrome_text(page)
    page.screenshot(path=str(ARTIFACTS / "lang-en-outcome-master.png"), full_page=True)
    assert leaks_cjk(text, names) == [], leaks_cjk(text, names)
    # the chrome is there, in English: the rule names from the registry, the badge, marks, the sections
    main = page.locator("[data-testid=stMain]").inner_text()
    for label in ("R1｜慧能大师 Opening", "Checks: ✓ all checks passed", "no verdict", "not applicable",
                  "Open questions — a neutral observation", "Where they differ", "status completed",
                  "completed the 4 planned rounds", "Master debate", "This dialogue is generated", "id only"):
        assert label in main, label
    # and the debate itself is still in Chinese: its topic, its speeches, its observation
    assert d.topic in main and d.observation.divergence[:20] in main and d.rounds[0].text[:12] in main

    open_page(page, f"{server['url']}/Live?id={d.id}&lang=en", "Open the outcome")
    text = chrome_text(page)
    page.screenshot(path=str(ARTIFACTS / "lang-en-live-master.png"), full_page=True)
    assert leaks_cjk(text, names) == [], leaks_cjk(text, names)
    assert "Completed: completed the 4 planned rounds." in text and "4 of 4 rounds" in text


ZH_LEAKS = ["10 turns", "(for the motion)", "(against the motion)", "角色 rebuttal", "角色 opening",
            "角色 pressure_questions", "角色 closing", "角色 answers", "the majority of a panel", "· benchmark ·",
            "(pro)", "(con)", "R1opening", "第1轮opening", "第1轮argument"]
# a master debate's chrome in English (an imported turn's own heading, "Turn 1: PRO Opening", is the debate's)
ZH_LEAKS_MASTER = ["Opening", "Rebuttal", "Response", "Synthesis", "not applicable", "id only", "all checks passed",
                   "no verdict", "status ", "completed the", "Open questions"]


@pytest.mark.parametrize("which", ["master", "bench"])
def test_chinese_ui_shows_none_of_the_known_english_leaks(server, page, which):
    d_id = server[which].id if which == "master" else server[which]
    for path, ready in ((f"/Outcome?id={d_id}&lang=zh", "下载"), (f"/Live?id={d_id}&lang=zh", "查看结果")):
        open_page(page, server["url"] + path, ready)
        open_expanders(page)
        text = chrome_text(page)
        page.screenshot(path=str(ARTIFACTS / f"lang-zh-{path[1:].split('?')[0].lower()}-{which}.png"), full_page=True)
        found = [leak for leak in ZH_LEAKS + (ZH_LEAKS_MASTER if which == "master" else []) if leak in text]
        assert found == [], (path, found)
    if which == "bench":  # the sides are 正方 / 反方, the stop reason is Chinese
        assert "（正方）" in text or "(正方)" in text
        assert "共 10 个回合" in text
    else:
        assert "R1｜慧能大师 立论" in text and "检查结果 ✓ 检查通过" in text


def test_benchmark_judge_notes_expand_and_name_the_sides(server, page):
    open_page(page, f"{server['url']}/Outcome?id={server['bench']}&lang=en", "Judge panel")
    main = page.locator("[data-testid=stMain]")
    # the long notes: their first words, cut at a word, then the whole behind an expander
    assert "Endword." not in main.inner_text()
    preview = page.get_by_text(re.compile(r"Side A opened with a clear framing .* …$")).first
    preview.wait_for()
    shown = preview.inner_text()
    last = shown.rstrip(" …").split()[-1]
    assert last in LONG_NOTE.split() or last.rstrip(".,;") in [w.rstrip(".,;") for w in LONG_NOTE.split()]
    page.get_by_text("Side A = PRO, Side B = CON").first.wait_for()  # the legend, from the debate's data
    page.get_by_text(f"Read all of {server['judge']}'s notes").click()
    page.get_by_text("Endword.").first.wait_for()
    assert LONG_NOTE in main.inner_text().replace("\n", " ")
    text = main.inner_text()
    assert "(PRO)" in text or "(CON)" in text  # the sides by their names, PRO / CON
    assert "(pro)" not in text and "(con)" not in text
    page.screenshot(path=str(ARTIFACTS / "lang-en-outcome-benchmark.png"), full_page=True)


def test_the_twin_link_opens_the_side_swapped_twin(server, page):
    one, twin = server["debates"][server["bench"]], server["debates"][server["twin"]]
    assert one.topic == twin.topic and one.models == list(reversed(twin.models))  # sides swapped
    open_page(page, f"{server['url']}/Outcome?id={one.id}&lang=en", "Judge panel")
    link = page.locator(".st-key-twin-link button").first
    link.wait_for()
    link.click()
    page.wait_for_url(f"**/Outcome?id={twin.id}*")
    page.get_by_text(twin.id).first.wait_for()
    settle(page)
    # and back: the twin links to the first one
    page.locator(".st-key-twin-link button").first.click()
    page.wait_for_url(f"**/Outcome?id={one.id}*")
