"""The debate speaks its own language, the app's chrome the reader's: in a real browser (started as
``make run`` starts it, on a free 127.0.0.1 port, Debian's Chromium through Playwright), over an archive holding an offline
master debate (Chinese), imported topic debates (Chinese: tests/fixtures/topic-debate, and the reference sample
when present), a topic debate and a trial in each language, and a benchmark side-swap pair (English).

* English UI, a Chinese master debate's Outcome and Live: no Chinese character outside the debate's own
  regions (its topic, speeches, citations, ammo, observation: the page's ``content-…`` containers) and
  the names of its masters.
* Chinese UI: none of the app's known English leaks (stop reasons like "10 turns", "(for the motion)",
  role slugs, rule and mark words, the panel's note).
* A benchmark debate's long judge notes show their first words and expand to the whole; Side A / Side B
  in the notes get a one-line legend; the side-swapped twin is one click away.
* A check finding speaks the reader's language, built from its details (the words it quotes from the speech
  as numbered notes in a ``content-…`` region); a finding stored without details shows its message under
  "In the checker's own words", in a content region.  A failed round's cause is the reader's too.
* An imported benchmark's summary and judges' notes (English) are content under the Chinese UI.
* Coverage, Present, Vote and Compare in both languages; at a phone's width (390 px) the argument map takes the
  width, its lanes named inside the plot.
* A judged debate (an imported Chinese topic debate, a trial) read in the other language: its winner line, its
  stances, its wrap-up, its stop reason and its side names are the reader's (the stances, the topic and the judge's
  words in content regions); under the English UI no Chinese character is left outside them, under the Chinese UI
  no English word (names, ids, model ids, file names and code aside).

Screenshots go to test-artifacts/lang-*.png (gitignored).
"""

from __future__ import annotations

import os
import re

import pytest

from debate_core.engines.judged_prompts import seat_label
from tests.app_support import (CHROMIUM, CHROMIUM_ARGS, FLAGGED_TAIL, OLD_MESSAGE, REPO, browser_skip_reason,
                                failed_debate, flagged_debate, judged_debate, offline_debate, start_streamlit,
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
    flagged, failed = flagged_debate(arc), failed_debate(arc)
    arc.open_vote(master.id, "before", [p.label for p in master.participants] + ["undecided"])
    write_benchmark(tmp / "synth", models=2, groups=1, paragraphs=2, words=12)
    bench = [r.id for r in import_paths(arc, [str(tmp / "synth")]) if r.kind == "benchmark"]
    assert len(bench) == 2  # the side-swap pair: s0 and its twin s1
    first = arc.get_debate(bench[0])
    first.judgments[0].notes = LONG_NOTE  # one judge wrote at length, naming the sides by letter
    arc.save(first)
    imported = next(r.id for r in import_paths(arc, [str(REPO / "tests" / "fixtures" / "topic-debate")])
                    if r.kind == "topic-debate")
    judged = {"topic-zh": imported, "trial-zh": judged_debate(arc, "trial", debate_id="trialzh00001").id,
              "topic-en": judged_debate(arc, "topic", debate_id="topicen00001", lang="en").id,
              "trial-en": judged_debate(arc, "trial", debate_id="trialen00001", lang="en").id}
    for which in ("topic-zh", "topic-en"):  # the room votes on a topic debate's stances
        d = arc.get_debate(judged[which])
        arc.open_vote(d.id, "before", [p.label for p in d.participants] + ["undecided"])
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
    from debate_core.content.packs import get_pack

    yield {"url": url, "master": master, "bench": bench[0], "twin": bench[1], "topic": topic,
           "judge": first.judgments[0].judge, "debates": {i: arc.get_debate(i) for i in bench},
           "flagged": flagged, "failed": failed, "pack_names": [m.name for m in get_pack(None).masters.values()],
           "topic_debate": arc.get_debate(topic) if topic else None,
           "judged": {k: arc.get_debate(v) for k, v in judged.items()}}
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


def chrome_words(pg) -> str:
    """:func:`chrome_text` without what is no word of ours in any language: code spans (ids, model ids, commands,
    paths) and Streamlit's icon names (expand_more)."""
    return pg.evaluate("""() => {
        const main = document.querySelector('[data-testid="stMain"]').cloneNode(true);
        main.querySelectorAll('[class*="st-key-content-"], code, [data-testid="stIconMaterial"]')
            .forEach(e => e.remove());
        document.body.appendChild(main);
        const text = main.innerText;
        main.remove();
        return text;
    }""")


FILE_NAME = re.compile(r"[\w.-]+\.(?:md|json|html|ipynb|zip|duckdb)\b|\((?:\.\w+)\)|（\.\w+）")
LATIN_WORDS = ("Markdown", "JSON", "AI")  # format names and "AI", which the Chinese text writes so too


def leaks_latin(text: str, names: list[str]) -> list[str]:
    """Lines with an English word once the debate's names, file names and :data:`LATIN_WORDS` are taken out."""
    out = []
    for line in text.splitlines():
        for n in sorted(names, key=len, reverse=True):
            line = line.replace(n, "")
        line = FILE_NAME.sub("", line)
        for w in LATIN_WORDS:
            line = re.sub(rf"\b{w}\b", "", line)
        if re.search(r"[A-Za-z]{2,}", line):
            out.append(line)
    return out


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


# ------------------------------------------------------------ findings, failures, imported content


def test_findings_speak_the_readers_language_and_quote_the_debate_in_a_content_region(server, page):
    d = server["flagged"]
    names = [p.name for p in d.participants if p.name]
    for path in (f"/Outcome?id={d.id}&lang=en", f"/Live?id={d.id}&lang=en"):
        ready = "Transcript (4 speeches)" if "Outcome" in path else "Open the outcome"
        open_page(page, server["url"] + path, ready)
        open_expanders(page)
        text = chrome_text(page)
        page.screenshot(path=str(ARTIFACTS / f"lang-en-{path[1:].split('?')[0].lower()}-flagged.png"), full_page=True)
        assert leaks_cjk(text, names) == [], (path, leaks_cjk(text, names))
        # the checks' words in English, from the findings' details; the speech's words they quote as notes
        for said in ("contains a verdict: ¹ (ranks one above the other)", "(judges who is right)",
                     "invents a meeting or dialogue between the masters: ³",  # notes numbered per card
                     "not speech: a web address:", "The words the checks quote:", "In the checker's own words:"):
            assert said in text, (path, said)
        quoted = page.locator("[class*='st-key-content-quoted-'][class*='1-rules']").first.inner_text()
        notes = [line.strip() for line in quoted.splitlines() if line.strip()]  # a numbered list: ¹ is the first
        assert notes[:3] == ["「远胜」", "「乃是唯一的出路」", "「慧能大师当面答曰」"], notes  # one phrase once
        # a finding stored before details existed: its own words, in a content region
        old = page.locator("[class*='st-key-content-checker-'][class*='2-rules']").first.inner_text()
        assert OLD_MESSAGE in old
        assert FLAGGED_TAIL[:8] in page.locator("[data-testid=stMain]").inner_text()  # the speech itself, as it is

    open_page(page, f"{server['url']}/Outcome?id={d.id}&lang=zh", "下载")
    open_expanders(page)
    text = chrome_text(page)
    assert "含裁决：「远胜」（比较高下）" in text and "虚构了祖师之间的会面或对话：「慧能大师当面答曰」" in text
    assert "¹" not in text and "contains a verdict" not in text and "检查所引的原话" not in text


def test_a_failed_rounds_cause_speaks_the_readers_language(server, page):
    d = server["failed"]
    names = [p.name for p in d.participants if p.name]
    for path, ready in ((f"/Live?id={d.id}&lang=en", "Open the outcome"),
                        (f"/Outcome?id={d.id}&lang=en", "Downloads")):
        open_page(page, server["url"] + path, ready)
        text = chrome_text(page)
        assert leaks_cjk(text, names) == [], (path, leaks_cjk(text, names))
        assert "This round failed: timed out waiting for the model (4 attempts)" in text, path
        assert "round 3 failed: timed out waiting for the model (4 attempts)" in text, path
    open_page(page, f"{server['url']}/Live?id={d.id}&lang=zh", "查看结果")
    text = chrome_text(page)
    assert "本轮失败：等待模型超时（共尝试 4 次）" in text and "第 3 轮失败：等待模型超时（共尝试 4 次）" in text
    assert "timed out" not in text


def test_an_imported_benchmarks_own_words_are_content_under_the_chinese_ui(server, page):
    d = server["debates"][server["bench"]]
    open_page(page, f"{server['url']}/Outcome?id={d.id}&lang=zh", "下载")
    open_expanders(page)
    text, main = chrome_text(page), page.locator("[data-testid=stMain]").inner_text()
    own = [d.verdict.summary] + [j.notes[:40] for j in d.judgments if j.notes] + \
        [j.decisive[:40] for j in d.judgments if j.decisive]
    assert d.verdict.summary and len(own) > 3
    for words in own:  # on the page, in the debate's own regions only
        assert words.split()[0] in main and words not in text, words
    assert page.locator(".st-key-content-verdict-summary").inner_text().strip() == d.verdict.summary.strip()
    for label in ("胜方：", "最具决定性：", "裁判团"):  # the chrome around them is Chinese
        assert label in text, label
    assert [w for w in ("Most decisive", "Judge panel", "Winner") if w in text] == []


def test_an_imported_debates_own_stop_reason_and_notes_are_content(server, page):
    """The reference topic debate (Chinese) under the English UI: its own stop reason and its notes (warnings)
    are its words, in content regions; the status around them is the app's, in English."""
    d = server["topic_debate"]
    if d is None:
        pytest.skip("the reference topic-debate sample is absent (../shared/reference)")
    assert d.stop_reason and d.warnings
    for path, ready in ((f"/Outcome?id={d.id}&lang=en", "Downloads"), (f"/Live?id={d.id}&lang=en", "Open the outcome")):
        open_page(page, server["url"] + path, ready)
        text = chrome_text(page)
        assert d.stop_reason[:10] not in text, path
        assert page.locator(".st-key-content-stop-reason").first.inner_text().strip() == d.stop_reason.strip()
        assert ("status completed" if "Outcome" in path else "Completed: in the debate's own words below.") in text
    for w in d.warnings:
        assert w.strip()[:10] not in text
    assert d.warnings[0].strip()[:10] in page.locator(".st-key-content-warning-0").inner_text()


# ------------------------------------------------------- judged debates read in the other language

JUDGED_PAGES = [("/Outcome?id={id}", "Downloads", "下载"), ("/Live?id={id}", "Open the outcome", "查看结果"),
                ("/Present?id={id}&step=3", "Back to the outcome", "返回结果"),
                ("/Compare?a={id}&b={other}", "Round 1", "第 1 轮")]
OTHER = {"topic-zh": "trial-zh", "trial-zh": "topic-zh", "topic-en": "trial-en", "trial-en": "topic-en"}


def judged_names(*debates) -> list[str]:
    """The names a page shows as they are: a debater's label (辩手甲, Debater A); not a trial's sides, which the
    library named in the debate's language (正方 / Pro) and the page says in the reader's."""
    return [p.name for d in debates for p in d.participants if p.label not in ("pro", "con")]


def read_judged(server, page, which: str, lang: str):
    """Each page of a judged debate in ``lang``, expanders open: yields (path, main text, chrome words)."""
    d, other = server["judged"][which], server["judged"][OTHER[which]]
    for path, ready_en, ready_zh in JUDGED_PAGES:
        url = server["url"] + path.format(id=d.id, other=other.id) + f"&lang={lang}"
        open_page(page, url, ready_en if lang == "en" else ready_zh)
        open_expanders(page)
        name = path[1:].split("?")[0].lower()
        page.screenshot(path=str(ARTIFACTS / f"lang-{lang}-{name}-{which}.png"), full_page=True)
        yield path, page.locator("[data-testid=stMain]").inner_text(), chrome_words(page)


@pytest.mark.parametrize("which", ["topic-zh", "trial-zh"])
def test_a_chinese_judged_debate_under_the_english_ui_shows_no_chinese_chrome(server, page, which):
    """An imported Chinese topic debate (tests/fixtures/topic-debate) and a Chinese trial, in English: the winner
    line, the stances, the wrap-up, the side names and the stop reason are the reader's; the debate's own words
    (topic, stances, speeches, the judge's) are in content regions."""
    d = server["judged"][which]
    names = judged_names(d, server["judged"][OTHER[which]])
    for path, main, words in read_judged(server, page, which, "en"):
        assert leaks_cjk(words, names) == [], (path, leaks_cjk(words, names))
        if path.startswith("/Present"):
            assert "Winner: " in words
        elif path.startswith("/Compare"):
            assert "Result: " in words
        elif path.startswith("/Outcome"):
            outcome_in_english(page, d, main, words)


def outcome_in_english(page, d, main: str, words: str) -> None:
    winner = d.verdict.winner
    if d.protocol == "trial":  # a trial's sides are PRO / CON, its stances the app's words (For the motion)
        for said in ("Winner: PRO wins", "R1｜PRO · Opening", "R2｜CON · Rebuttal",
                     "PRO (For the motion) vs CON (Against the motion)"):
            assert said in words, said
        return
    stance = d.participant(winner).stance
    for said in (f"Winner: {seat_label(winner, 'en')} wins", "Wrap-up", "2 sides", "converged (nobody had new points in round 2)",
                 "normal (2 debaters, each on a different model, anonymous to each other)",
                 "This is a reference conclusion from an AI debate", "The judge, in the verdict's own words:"):
        assert said in words, said
    # the stances: the debate's words, in its regions (the header's, the winner's, the wrap-up's)
    assert page.locator(".st-key-content-verdict-stance").inner_text().strip() == stance
    assert all(p.stance in page.locator(".st-key-content-stances").inner_text() for p in d.participants)
    assert all(p.stance in page.locator(".st-key-content-wrap-up-1").inner_text() for p in d.participants)
    assert d.verdict.summary.split("——")[-1][:12] in page.locator(".st-key-content-wrap-up-4").inner_text()
    assert stance not in words and d.topic not in words and d.topic in main
    # the debaters' no_new_points flags are data, said by the app, not raw lines of their speeches
    assert "no_new_points" not in main and "No new points: the debater had nothing new to add this round." in words


@pytest.mark.parametrize("which", ["topic-en", "trial-en"])
def test_an_english_judged_debate_under_the_chinese_ui_shows_no_english_chrome(server, page, which):
    """The reverse: an English topic debate and an English trial in Chinese: no English word outside the debate's
    regions but its names (Debater A), ids, model ids, file names and code; the library's notes (the stop reason)
    are said again in Chinese."""
    d = server["judged"][which]
    names = judged_names(d, server["judged"][OTHER[which]])
    for path, main, words in read_judged(server, page, which, "zh"):
        assert leaks_latin(words, names) == [], (path, leaks_latin(words, names))
        if path.startswith("/Live"):  # the stop reason the library wrote in English, said again
            assert "完成：第 2 轮全员报告无新论点，自然收敛。" in words
        elif path.startswith("/Present"):
            assert "胜方：" in words
        elif path.startswith("/Outcome") and which == "topic-en":
            for said in ("胜方：辩手乙 胜", "收尾", "2 方", "自然收敛（第 2 轮全员无新论点）",
                         "第 2 轮全员报告无新论点，自然收敛", "这是 AI 辩论给出的参考结论"):
                assert said in words, said
            stance = d.participant("Debater B").stance
            assert page.locator(".st-key-content-verdict-stance").inner_text().strip() == stance
            assert stance not in words and d.topic in main
        elif path.startswith("/Outcome"):
            for said in ("胜方：正方 胜", "R1｜正方 · 立论", "正方 (支持该命题) 对 反方 (反对该命题)"):
                assert said in words, said


@pytest.mark.parametrize("which,lang", [("topic-zh", "en"), ("topic-en", "zh")])
def test_a_vote_on_a_topic_debate_frames_its_stances_in_the_readers_language(server, page, which, lang):
    """The Vote options of a topic debate read in the other language: the frame and the seats are the reader's
    (Debater A: “…” / 辩手甲：「…」), each stance is the debate's words, quoted verbatim, and nothing else of the
    debate's language is left."""
    d = server["judged"][which]
    ready = "Vote before the debate" if lang == "en" else "辩论前投票"
    open_page(page, f"{server['url']}/Vote?id={d.id}&phase=before&lang={lang}", ready)
    page.screenshot(path=str(ARTIFACTS / f"lang-{lang}-vote-{which}.png"), full_page=True)
    options = [t.strip() for t in page.locator("[data-testid=stMain] [role=radiogroup] label").all_inner_texts()]
    seats = ["Debater A", "Debater B"] if lang == "en" else ["辩手甲", "辩手乙"]
    frame = "{seat}: “{stance}”" if lang == "en" else "{seat}：「{stance}」"
    assert options == [frame.format(seat=s, stance=p.stance) for s, p in zip(seats, d.participants)] + \
        ["Undecided" if lang == "en" else "尚未决定"], options
    words = chrome_words(page)
    stances = [p.stance for p in d.participants]
    leaks = leaks_cjk(words, stances) if lang == "en" else leaks_latin(words, stances)
    assert leaks == [], leaks


# ------------------------------------------------------------------ the other pages

PAGE_LABELS = {  # path -> (text to wait for, labels in English, the same in Chinese)
    "Coverage": ("Pairs most debated", ["Masters", "Critiques", "Canonical pairs", "Masters with no critique at all"],
                 ["带降级警告辩论最多的配对", "大师", "批评条目", "经典配对", "没有任何批评条目的大师"]),
    "Present?id={master}&step=1": ("Back to the outcome", ["Step 1 of", "Next →", "Audience vote", "Back to the outcome"],
                                   ["返回结果", "第 1 步", "下一步", "观众投票"]),
    "Present?id={master}&step=5": ("Back to the outcome", ["Open questions — a neutral observation", "Where they differ"],
                                   ["返回结果", "教内余争 — 中立观察", "分歧本质"]),
    "Vote?id={master}&phase=before": ("Vote before the debate", ["Vote before the debate", "Your view", "Undecided"],
                                      ["辩论前投票", "你的立场", "尚未决定"]),
    "Compare?a={master}&b={failed}": ("Round 1", ["Swap sides", "Round 1", "Outcome", "This round failed: timed out"],
                                      ["左右互换", "第 1 轮", "结果", "本轮失败：等待模型超时"]),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_coverage_present_vote_and_compare_speak_the_readers_language(server, page, lang):
    d = server["master"]
    names = [p.name for p in d.participants if p.name] + server["pack_names"]
    for path, (ready_en, en, zh) in PAGE_LABELS.items():
        url = server["url"] + "/" + path.format(master=d.id, failed=server["failed"].id)
        open_page(page, url + ("&" if "?" in path else "?") + f"lang={lang}", ready_en if lang == "en" else zh[0])
        text = chrome_text(page)
        page.screenshot(path=str(ARTIFACTS / f"lang-{lang}-{path.split('?')[0].lower()}.png"), full_page=True)
        if lang == "en":
            assert leaks_cjk(text, names) == [], (path, leaks_cjk(text, names))
        else:
            assert [w for w in en if w in text] == [], path
        for label in (en if lang == "en" else zh):
            assert label in text, (path, label, text)
        if path.startswith(("Present", "Vote", "Compare")):  # the debate's topic is there, in its own region
            assert d.topic in page.locator("[data-testid=stMain]").inner_text()


# ---------------------------------------------------------------------- phone width


@pytest.mark.parametrize("which", ["master", "bench"])
def test_the_argument_map_takes_a_phones_width(server, browser, which):
    """At 390 px the map spans the column: its lanes are named inside the plot, not by tick labels that
    would take half of it."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    pg = ctx.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    d_id = server["master"].id if which == "master" else server["bench"]
    try:
        open_page(pg, f"{server['url']}/Outcome?id={d_id}&lang=en", "Argument map")
        chart = pg.locator("[data-testid=stPlotlyChart]").last
        chart.scroll_into_view_if_needed()
        pg.locator("[data-testid=stPlotlyChart] .nsewdrag").last.wait_for()
        box = pg.evaluate("""() => {
            const charts = [...document.querySelectorAll('[data-testid=stPlotlyChart]')];
            const c = charts[charts.length - 1];
            return {chart: c.getBoundingClientRect().width, plot: c.querySelector('.nsewdrag').getBoundingClientRect().width,
                    view: window.innerWidth};
        }""")
        chart.screenshot(path=str(ARTIFACTS / f"lang-phone-argument-map-{which}.png"))
        assert box["chart"] >= 0.85 * box["view"], box
        assert box["plot"] >= 0.85 * box["chart"], box  # not a third of it
        names = [p.name for p in (server["master"] if which == "master" else server["debates"][d_id]).participants]
        lanes = chart.inner_text()
        assert all(n in lanes for n in names), (names, lanes)  # each lane still says whose it is
    finally:
        ctx.close()
