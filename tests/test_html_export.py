"""The HTML export (issue 25, item 4) and the plain Markdown transcript (issue 24, item 5).

``export --format html`` writes one self-contained page: inline CSS, no script, no image, no
font, no link to anywhere, a ``default-src 'none'`` policy; the debate's text escaped, so HTML
or a Markdown image in a speech shows as text and never causes a request.  It is written in the
debate's language, speeches first (paragraphs, numbered citation notes with title and mark, one
check badge per speech), then the observation or verdict, then a compact analysis.  The browser
half (file://, a local listener as the beacon target) is in tests/test_browser.py.

``export --format md --plain`` is the master-debate seed's transcript exactly: no check
blockquotes, citation-check lines or footer.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from debate_core.archive import open_archive
from debate_core.io.exporters import FORMATS, export_debate
from debate_core.models import (
    CitationMark,
    Finding,
    Judgment,
    Observation,
    RoundComment,
    ToolCallRecord,
    Verdict,
    VerdictRow,
)
from debate_core.render.html import render_html
from debate_core.render.master import DISCLAIMER, OBSERVATION_HEADING, render_master, speech_verdict
from tests.app_support import judged_debate, offline_debate
from tests.archive_helpers import cli

BEACON = "http://127.0.0.1:9/beacon"  # port 9 (discard): nothing listens; the browser test uses a real listener

# every tag the page may hold; anything else (script, img, iframe, object, svg, video, form, input …) is a failure
ALLOWED_TAGS = {"html", "head", "meta", "link", "title", "style", "body", "header", "main", "section", "article",
                "footer", "h1", "h2", "h3", "p", "span", "strong", "br", "a", "sup", "ol", "ul", "li", "details",
                "summary", "dl", "dt", "dd", "div", "b", "table", "thead", "tbody", "tr", "th", "td", "pre"}
URL_ATTRS = {"src", "href", "srcset", "poster", "data", "action", "formaction", "background", "xlink:href", "ping",
             "cite", "longdesc", "manifest", "codebase", "archive", "lowsrc", "dynsrc", "icon"}


def hostile(url: str = BEACON) -> list[str]:
    """Text that would make a request, run a script or inject markup if it were rendered as HTML or Markdown."""
    return [f"<script>alert(1)</script><script src=\"{url}/s.js\"></script>",
            f"<img src={url}/img.png onerror=alert(1)>",
            f"![x]({url}/md.png)",
            f"[a link]({url}/link) and <{url}/autolink>",
            f"<link rel=stylesheet href=\"{url}/css.css\"><style>@import url({url}/imp.css);</style>",
            f"<iframe src=\"{url}/frame\"></iframe><object data=\"{url}/obj\"></object>",
            f"<svg onload=alert(1)><image href=\"{url}/svg.png\"/></svg><video poster=\"{url}/p.png\"></video>",
            f"<div style=\"background:url({url}/bg.png)\">styled</div><a href=\"{url}/a\">anchor</a>",
            f"<meta http-equiv=refresh content=\"0;url={url}/refresh\"><base href=\"{url}/\">",
            "&lt;b&gt; already escaped &amp; **bold** [P1.1] [Z9.9]"]


class Page(HTMLParser):
    """The page's tags, attributes, style text and visible text."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.style = ""
        self.text: list[str] = []
        self._in_style = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_style = tag == "style"

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag == "style":
            self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.style += data
        else:
            self.text.append(data)

    @property
    def visible(self) -> str:
        return "".join(self.text)

    def count(self, tag: str, cls: str = "") -> int:
        return sum(1 for t, a in self.tags if t == tag and cls in (a.get("class") or "").split() + [""])


def resource_problems(text: str) -> list[str]:
    """Everything in the page that could reach beyond it: tags outside the allowed set, event
    handlers, inline styles, URL attributes that are not in-page anchors (or the empty data: icon),
    and url()/@import in the stylesheet."""
    page = Page(text)
    out = []
    for tag, attrs in page.tags:
        if tag not in ALLOWED_TAGS:
            out.append(f"tag <{tag}>")
        for k, v in attrs.items():
            v = v or ""
            if k.startswith("on") or k == "style":
                out.append(f"<{tag} {k}={v!r}>")
            if k in URL_ATTRS and not (v.startswith("#") or (tag == "link" and k == "href" and v == "data:,")):
                out.append(f"<{tag} {k}={v!r}>")
            if "http:" in v or "https:" in v or "//" in v:
                out.append(f"<{tag} {k}={v!r}>")
        if tag == "link" and attrs.get("rel") != "icon":
            out.append(f"<link rel={attrs.get('rel')!r}>")
        if tag == "meta" and attrs.get("http-equiv", "").lower() == "refresh":
            out.append("<meta refresh>")
    if re.search(r"url\s*\(|@import|https?:|//", page.style):
        out.append("a URL in the stylesheet")
    return out


@pytest.fixture
def arc(tmp_path):
    return open_archive(tmp_path / "archive.duckdb")


@pytest.fixture(scope="module")
def master_debate(tmp_path_factory):
    a = open_archive(tmp_path_factory.mktemp("html") / "archive.duckdb")
    return offline_debate(a)


def _benchmark(arc):
    from debate_core.io.importers import import_paths

    fixture = Path(__file__).parent / "fixtures" / "benchmark"
    rs = [r for r in import_paths(arc, [str(fixture)]) if r.status != "skipped"]
    return arc.get_debate(rs[0].id)


def _ledger_of(debate):
    from debate_core.analysis.ledger import build_ledger

    return build_ledger(debate)


# ------------------------------------------------------------------ the page, per protocol


def test_master_debate_page_reads_speeches_first_with_notes_and_badges(arc, master_debate, tmp_path):
    arc.save(master_debate)
    path = export_debate(arc, master_debate.id, "html", tmp_path / "m.html", ledger_of=_ledger_of)
    assert path == tmp_path / "m.html"
    text = path.read_text(encoding="utf-8")
    page = Page(text)
    assert resource_problems(text) == []
    assert '<html lang="zh-CN">' in text and "default-src 'none'" in text
    assert page.count("article", "speech") == len(master_debate.rounds) == 4
    # speeches, then the observation, then the analysis
    order = [text.index(f'id="{k}"') for k in ("speeches", "closing", "analysis")]
    assert order == sorted(order)
    v = page.visible
    assert DISCLAIMER.lstrip("> ") in v and master_debate.topic in v
    for s in master_debate.rounds:
        assert f"R{s.round}｜{s.speaker_name} {s.role}" in v  # the seed's heading
    assert OBSERVATION_HEADING in v and all(k in v for k in ("分歧本质", "共识点", "留给读者"))
    o = master_debate.observation
    assert o.divergence in v and o.to_reader in v
    # citations: the brackets became numbered references to notes with the title and the mark
    first = master_debate.rounds[0]
    assert "【" not in text.split('id="r1"')[1].split("</article>")[0]
    marks = [f for f in first.findings if f.rule == "citation"][0].marks
    card = text.split('id="r1"')[1].split("</article>")[0]
    assert '<sup class="nref"><a href="#n1-1">1</a></sup>' in card
    assert f"《{marks[0].title}》" in card and marks[0].id in card
    assert re.search(r"仅经号|已核对原文|引文无原文可核", card)
    # one badge per speech, open on demand, listing every finding
    assert page.count("details", "checks") == 4
    badge = card.split('<details class="checks')[1]
    assert f"<summary>{speech_verdict(first.findings)}</summary>" in badge
    assert badge.count("<li>") >= len(first.findings)
    # a long speech is cut into paragraphs
    assert card.count("<p>") >= 2
    # the analysis: checks per speech and the ledger's counts and what evidence it used
    analysis = text.split('id="analysis"')[1]
    assert "各篇检查" in analysis and "论证账本" in analysis and "回应关系读自" in analysis


def test_topic_trial_and_benchmark_pages(arc, tmp_path):
    topic, trial = judged_debate(arc, "topic"), judged_debate(arc, "trial", debate_id="trial0000001")
    bench = _benchmark(arc)
    pages = {}
    for d in (topic, trial, bench):
        text = export_debate(arc, d.id, "html", None, ledger_of=_ledger_of)
        assert resource_problems(text) == [], d.protocol
        pages[d.protocol] = (text, Page(text))
        assert Page(text).count("article", "speech") == len(d.rounds)
    text, page = pages["topic"]
    v = page.visible
    assert '<html lang="zh-CN">' in text and "议题辩论" in v
    assert "胜方：辩手乙（远程办公降低效率）" in v and "论证更扎实的一方胜出" in v
    assert "辩手乙的数据更扎实" in v and "第二轮乙方反驳有力" in v and "读者可结合自身岗位判断" in v
    assert "理由：理由" in v and "证据：证据" in v  # the envelope's arguments, not its JSON
    assert "效率数据" in v and "6.5" in v  # the table per debater
    text, page = pages["trial"]
    assert "胜方：正方（支持该命题）" in page.visible
    text, page = pages["benchmark"]
    v = page.visible
    assert '<html lang="en">' in text and "Benchmark debate" in v
    assert "Turn 1: PRO Opening" in v and "PRO · Alpha 7B" in v
    assert "Judge panel" in v and "Judge Kappa" in v
    for j in bench.judgments:  # every judge's notes, whole
        assert j.notes in v
    assert 'id="claim-P1.1"' in text and 'href="#claim-C1.1"' in text  # claim tags and the references to them
    assert "Argument ledger" in v and "Attacks read from" in v
    # no table column that is empty in every row (a benchmark's verdict has no per-debater rows)
    assert "strongest point" not in v and "Per debater" not in v


def test_english_debate_page_is_english(arc):
    d = judged_debate(arc, "topic").model_copy(deep=True)
    d.id, d.lang = "english00001", "en"
    arc.save(d)
    text = export_debate(arc, d.id, "html", None)
    assert '<html lang="en">' in text
    for label in ("<h2>Speeches</h2>", "<h2>Verdict</h2>", "<h2>Analysis</h2>", "Reasoning: ", "Evidence: ",
                  "Winner: 辩手乙 (远程办公降低效率)", "<h3>Reasons</h3>", "<h3>Per debater</h3>",
                  "Round 1 · 辩手甲 · opening"):
        assert label in text, label
    for label in ("发言", "裁决", "分析", "胜方", "理由：", "证据：", "判词", "逐方点评", "给读者的话", "用量", "轮"):
        assert f">{label}" not in text, label  # the page's own words are English; the debate's stay Chinese


def test_unfinished_and_unparsed_debates_render(arc):
    from tests.app_support import failed_debate

    d = failed_debate(arc)
    text = render_html(d)
    assert resource_problems(text) == []
    v = Page(text).visible
    assert "本轮未完成" in v and "尚无结论" in v and "状态：失败" in v
    j = judged_debate(arc, "topic").model_copy(deep=True)
    j.verdict = Verdict(winner=None, parsed=False, raw="<b>not json</b> ![x](http://h/x.png)")
    v = Page(render_html(j)).visible
    assert "未能解析裁判的输出" in v and "<b>not json</b> ![x](http://h/x.png)" in v
    empty = j.model_copy(deep=True)
    empty.rounds, empty.verdict, empty.status = [], None, "running"
    assert resource_problems(render_html(empty)) == []


# ----------------------------------------------------------------------- escaping


def hostile_master(debate, url: str = BEACON):
    """A master debate with hostile text in every field the page shows."""
    h = hostile(url)
    d = debate.model_copy(deep=True)
    d.id = "hostile00001"
    d.topic = "议题 " + h[0] + h[2]
    d.participants[0].name = "慧能" + h[1]
    d.participants[1].school = h[4]
    d.warnings = ["⚠️ " + h[7], h[8]]
    s = d.rounds[0]
    s.speaker_name = "慧能" + h[1]
    s.text = "\n\n".join(h) + f"\n\n引文【《坛经{h[1]}》，T48n2008】之后。\n- {h[2]}\n- {h[3]}"
    s.retries, s.warnings = 1, [h[5]]
    cit = next(f for f in s.findings if f.rule == "citation")
    cit.marks = [CitationMark(id="T48n2008", title="坛经" + h[1], quote=h[2], status="verified")]
    s.findings.append(Finding(rule="hygiene", passed=False, message=h[6]))
    s.tool_calls = [ToolCallRecord(name="read", arguments={"path": h[3]}, error=h[1])]
    d.rounds[1].envelope = {"heading": h[0], "model": h[1]}
    d.observation = Observation(divergence=h[0], consensus=h[2], to_reader=h[9])
    return d


def hostile_judged(debate, url: str = BEACON):
    h = hostile(url)
    d = debate.model_copy(deep=True)
    d.id = "hostile00002"
    d.topic = h[2]
    d.participants[0].stance = h[1]
    d.rounds[0].envelope = {"stance": h[1], "arguments": [{"id": h[0], "point": h[2], "reasoning": h[3],
                                                          "evidence": h[4]}],
                            "rebuttals": [{"target": h[5], "type": h[6], "content": h[7]}]}
    d.verdict = Verdict(winner=d.participants[1].label, summary=h[2], reasons={h[0]: h[1], "ok": h[8], "more": h[9]},
                        rows=[VerdictRow(label=d.participants[0].label, stance=h[3], strongest=h[4], weakness=h[5],
                                         score=5)],
                        per_round=[RoundComment(round=1, comment=h[6])], note=h[7], judge=h[0])
    d.judgments = [Judgment(judge=h[1], winner="pro", winner_name=h[2], margin=1.0, notes=h[3], decisive=h[4])]
    return d


@pytest.mark.parametrize("which", ["master", "judged"])
def test_hostile_text_shows_as_text_and_requests_nothing(arc, master_debate, which):
    d = hostile_master(master_debate) if which == "master" else hostile_judged(judged_debate(arc, "topic"))
    text = render_html(d)
    assert resource_problems(text) == []
    page = Page(text)
    assert page.count("script") == page.count("img") == page.count("iframe") == 0
    # the attacks are on the page as the characters they are
    v = page.visible
    for line in hostile():
        for piece in re.split(r"\n", line):
            assert piece in v or piece.replace("**bold**", "bold") in v, piece
    assert "<script>alert(1)</script>" in v and f"![x]({BEACON}/md.png)" in v
    assert f"<img src={BEACON}/img.png onerror=alert(1)>" in v
    # and in the file only as escaped text
    assert "<script" not in text.lower().replace("&lt;script", "")
    assert not re.search(r"<(img|iframe|object|svg|video|base|image)\b", text, re.I)
    assert "&amp;lt;b&amp;gt; already escaped &amp;amp;" in text  # escaped once more, never unescaped
    assert "<strong>bold</strong>" in text  # **bold** is the one Markdown given form
    if which == "master":  # the bracket with a hostile title is still a note reference, its title escaped
        assert '<sup class="nref"><a href="#n1-1">1</a></sup>' in text


def test_every_http_in_the_file_is_plain_text(arc, master_debate):
    text = render_html(hostile_master(master_debate))
    for m in re.finditer(r"https?:", text):
        before = text[:m.start()]
        assert before.rfind("<") < before.rfind(">"), text[m.start() - 80:m.end() + 20]  # never inside a tag


# ---------------------------------------------------------------------- exporter / CLI / app


def test_html_is_an_export_format_with_a_file_name(arc, master_debate, tmp_path):
    assert "html" in FORMATS
    arc.save(master_debate)
    out = export_debate(arc, master_debate.id, "html", tmp_path)  # a folder: <id>.html inside
    assert out == tmp_path / f"{master_debate.id}.html"
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    with pytest.raises(ValueError, match="--plain applies to --format md only"):
        export_debate(arc, master_debate.id, "html", None, plain=True)


def test_cli_export_html_and_plain_md(master_debate, tmp_path):
    path = tmp_path / "archive.duckdb"
    a = open_archive(path)
    a.save(master_debate)
    judged = judged_debate(a, "topic")
    env = {"DEBATE_ARCHIVE": str(path)}
    r = cli("export", master_debate.id, "--format", "html", "--out", str(tmp_path / "page.html"), env=env)
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert resource_problems(page) == [] and "论证账本" in page  # the CLI adds the argument ledger
    r = cli("export", master_debate.id, "--format", "html", "--out", str(tmp_path / "page.html"), env=env)
    assert r.returncode == 2 and "already exists" in r.stderr  # never overwritten without --force
    r = cli("export", master_debate.id, "--format", "md", "--plain", env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout == render_master(master_debate, plain=True)
    r = cli("export", master_debate.id, "--format", "json", "--plain", env=env)
    assert r.returncode == 2 and "--plain applies to --format md only" in r.stderr
    r = cli("export", judged.id, "--format", "md", "--plain", env=env)
    assert r.returncode == 2 and "export it without --plain" in r.stderr
    r = cli("export", "--help")
    assert "--plain" in r.stdout and "html" in r.stdout


def test_outcome_offers_the_html_download_for_every_protocol(arc, master_debate):
    from webapp import views

    arc.save(master_debate)
    debates = [master_debate, judged_debate(arc, "topic"), judged_debate(arc, "trial", debate_id="trial0000001"),
               _benchmark(arc)]
    for d in debates:
        offered = {x.fmt: x for x in views.downloads(d)}
        assert offered["html"].file_name == f"debate-{d.id}.html" and offered["html"].mime == "text/html"
        data = views.export_bytes(arc, d.id, "html").decode("utf-8")
        assert resource_problems(data) == [] and Page(data).count("article", "speech") == len(d.rounds)
        assert ("论证账本" in data or "Argument ledger" in data), d.protocol  # the page's ledger


# ------------------------------------------------------------------------- plain md


def test_plain_transcript_is_the_seeds_exactly(master_debate):
    d = master_debate
    full, plain = render_master(d), render_master(d, plain=True)
    assert "检查通过" in full and "引证核对" in full and "> 引擎" in full
    lines = plain.splitlines()
    # the debate's material warnings (⚠️) stay under the disclaimer (test_plain_keeps_the_coverage_warning…)
    warned = [f"> {w}" for w in d.warnings if w.startswith("⚠️")]
    assert lines[0] == DISCLAIMER and [ln for ln in lines if ln.startswith("## ")] == [f"## 议题：{d.topic}"]
    headings = [ln for ln in lines if ln.startswith("### ")]
    assert headings == [f"### R{s.round}｜{s.speaker_name} {s.role}" for s in d.rounds] + [f"### {OBSERVATION_HEADING}"]
    for s in d.rounds:
        assert s.text.strip() in plain
    o = d.observation
    assert lines[-3:] == [f"- 分歧本质：{o.divergence}", f"- 共识点：{o.consensus}", f"- 留给读者：{o.to_reader}"]
    assert [ln for ln in lines if ln.startswith(">")] == [DISCLAIMER, *warned]  # no check, citation or engine line
    assert not re.search(r"检查通过|检查未通过|检查未能判定|引证核对|引擎|辩论 " + d.id, plain)
    # every line of it is a line of the full form, in the same order: the full form only adds
    rest = iter(full.splitlines())
    assert all(any(ln == other for other in rest) for ln in lines if ln)


def test_plain_keeps_the_coverage_warning_and_leaves_out_a_failed_round(arc):
    from tests.app_support import failed_debate

    d = failed_debate(arc).model_copy(deep=True)
    d.warnings = ["⚠️ 印光大师对慧能大师没有批评条目", "降级：别的"]
    plain = render_master(d, plain=True)
    assert "> ⚠️ 印光大师对慧能大师没有批评条目" in plain and "降级" not in plain
    assert "本轮未完成" not in plain and "状态" not in plain
    assert "### R3" not in plain and "### R2" in plain
