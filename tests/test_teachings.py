"""The pack reader: a master's teachings, set apart from everything else in his files."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from debate_core.content.packs import load_pack
from debate_core.content.teachings import REASONS, read_text, teaching_report

FIXTURE = Path(__file__).parent / "fixtures" / "reader-pack"
LATIN_RUN = re.compile(r"[A-Za-z]{2,}(?:\s+[A-Za-z]{2,})+")
PAIRS = {"【": "】", "《": "》", "「": "」", "（": "）", "(": ")", "[": "]"}


def balanced(text: str) -> bool:
    stack = []
    for ch in text:
        if ch in PAIRS:
            stack.append(PAIRS[ch])
        elif ch in PAIRS.values():
            if not stack or stack.pop() != ch:
                return False
    return not stack


@pytest.fixture(scope="module")
def qingxi():
    return load_pack(FIXTURE).masters["qingxi"]


def _texts(master):
    return [t.text for t in master.teachings]


def test_fixture_teachings_are_the_masters_sentences(qingxi):
    texts = _texts(qingxi)
    assert "观心不是把念头按下去，而是看清念头从哪里起、往哪里去。" in texts
    assert "寂静的处所只是助缘，心静才是根本所在。" in texts
    # the master's own attribution is taken off, his words kept
    assert "放下不是丢掉东西，是不再攥着东西不放。" in texts
    assert "每天留一段时间安静坐着，比读十本书更要紧。" in texts
    # a block quote answering a student's question is the master's own answer
    assert any(t.startswith("山中城里都是这一颗心") for t in texts)
    # the teaching outline counts, its biography and debate-stance notes do not
    assert "念头来了不必赶，念头走了不必追，只是清清楚楚地知道。" in texts
    assert not any("世寿" in t or "面对重视次第" in t for t in texts)


def test_fixture_sets_aside_everything_else(qingxi):
    joined = "\n".join(_texts(qingxi))
    for bad in ("http", "example.org", "[", "应注明", "不得作为", "深入研究", "请查阅", "出版社", "|", "主旨", "出处",
                "来源", "学人问", "佛告", "汝等当知", "（三", "See the", "practice", "Mountain"):
        assert bad not in joined, bad
    by_line = {a.line: a.reason for a in qingxi.set_aside if a.file.endswith("yulu-excerpts.md")}
    assert by_line[4] == "editorial"          # 引用本文件时应注明出处，不得作为直接引语…
    assert by_line[5] == "reading_list"       # 中文参考：《山居杂记》（某某出版社）…
    assert by_line[10] == "meta"              # 来源：QX:Yulu
    assert by_line[14] == "fragment"          # 具体方法：（一）数息（二）随息（三
    assert by_line[20] == "quote"             # 学人问："…"
    assert by_line[24] == "meta"              # **主旨**：…
    assert by_line[26] == "meta"              # > 出处：【《山中书简》第一通】
    assert by_line[28] == "url"
    assert by_line[30] in ("url", "link")
    assert by_line[32] == "table"
    assert by_line[40] == "quote"             # 佛告比丘：… (a sutra's words, not the master's)
    assert by_line[51] == "foreign"           # an English sentence
    assert set(a.reason for a in qingxi.set_aside) <= set(REASONS)


def test_fixture_source_ids(qingxi):
    sid = {t.text[:6]: t.source_id for t in qingxi.teachings}
    assert sid["观心不是把念"] == "QX:Yulu"       # explicit 来源 line
    assert sid["放下不是丢掉"] == "QX:Letters"    # 出处 at the section's end, by title (山中书简)
    assert sid["寂静的处所只"] == "T99n9001"      # the id in the section heading
    assert sid["读书可以开眼"] == "QX:Letters"    # 出处 by a title part of 'Mountain Letters（《山中书简》）'
    assert sid["念头来了不必"] == ""              # the outline names no source: none is guessed
    assert all(t.line > 0 and t.file for t in qingxi.teachings)


def test_read_text_on_unseen_layout_never_raises(qingxi):
    weird = "\n".join(["# 标题", "```", "print('x')", "```", "> ", "- ", "## 空节", "|a|b|", "- （未闭合",
                       "---", "**标签**：", "一句没有句号的话但足够长可以算作教言吗", "\x00\ufffd"])
    teachings, aside = read_text(weird, qingxi, file="weird.md")
    assert [t.text for t in teachings] == ["一句没有句号的话但足够长可以算作教言吗。"]
    reasons = {a.reason for a in aside}
    assert {"code", "heading", "table", "fragment"} <= reasons


def _pack_invariants(pack):
    for m in pack.masters.values():
        assert m.teachings, m.slug
        ids = set(m.source_ids)
        for t in m.teachings:
            assert not re.search(r"https?://|www\.|\]\(", t.text), (m.slug, t.text)
            assert not LATIN_RUN.search(t.text), (m.slug, t.text)
            assert balanced(t.text), (m.slug, t.text)
            assert not re.search(r"引用时|应注明|不得作为|深入研究|请查阅|本文件|节选自|出版社", t.text), (m.slug, t.text)
            assert t.source_id in ids or (t.source_id == "" and "references/" in t.file), (m.slug, t)
            assert m.name not in t.text and m.short_name not in t.text, (m.slug, t.text)


def test_default_pack_teachings(default_pack):
    _pack_invariants(default_pack)
    rows = teaching_report(default_pack.masters.values())
    assert len(rows) == len(default_pack.masters)
    # our own pack is written as teaching: little is set aside beyond headings and source lines
    for row in rows:
        assert set(row["set_aside"]) <= {"heading", "meta", "fragment", "quote", "duplicate"}, row


def test_upstream_pack_teachings(reference_pack):
    _pack_invariants(reference_pack)
    rows = {r["slug"]: r for r in teaching_report(reference_pack.masters.values())}
    total = {}
    for r in rows.values():
        for k, v in r["set_aside"].items():
            total[k] = total.get(k, 0) + v
    # the upstream pack is rich in editorial material: the reader finds each kind
    for reason in ("editorial", "url", "foreign", "quote", "table", "meta", "fragment", "reading_list"):
        assert total.get(reason, 0) > 0, reason
    chah = reference_pack.masters["ajahn-chah"]
    assert any("不得作为直接引语" in a.text for a in chah.set_aside if a.reason == "editorial")
    assert all("SuttaCentral 全文" not in t.text for t in chah.teachings)
    assert {t.source_id for t in chah.teachings} >= {"AjahnChah:FoodForTheHeart", "AjahnChah:LivingDhamma"}


def test_fixture_pack_teachings(skill_fixture_pack):
    """The reader on the project's own Master-skill pack: the same invariants, and each kind of
    material that pack holds (editors' notes, a URL, a sutra's words, headings) is set aside."""
    pack = skill_fixture_pack
    _pack_invariants(pack)
    total = {}
    for r in teaching_report(pack.masters.values()):
        assert r["teachings"] >= 10, r
        for k, v in r["set_aside"].items():
            total[k] = total.get(k, 0) + v
    for reason in ("editorial", "url", "quote", "meta", "fragment", "heading"):
        assert total.get(reason, 0) > 0, reason
    huineng = pack.masters["huineng"]
    texts = _texts(huineng)
    # the 坛经 is his own words: its lines under 原典 are teachings; the 金刚经's are the sutra's, set aside
    assert "菩提本无树，明镜亦非台。" in texts
    assert any(a.reason == "quote" and "应无所住" in a.text for a in huineng.set_aside)
    assert {t.source_id for t in huineng.teachings} == {"T48n2008", "T08n0235", ""}  # "": the outline's
    chah = pack.masters["ajahn-chah"]
    assert {t.source_id for t in chah.teachings} >= {"AjahnChah:FoodForTheHeart", "AjahnChah:LivingDhamma",
                                                      "SuttaCentral"}
    assert all("本项目" not in t.text for m in pack.masters.values() for t in m.teachings)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "debate_core", *args], capture_output=True, text=True, timeout=120)


def test_pack_check_reports_teachings_and_set_aside():
    out = _cli("pack", "check", str(FIXTURE))
    assert "qingxi: 10 teaching units, 1 without a source; set aside" in out.stdout
    assert re.search(r"master-qingxi/sources/yulu-excerpts\.md:\d+ \[editorial\]", out.stdout)
    data = json.loads(_cli("pack", "check", str(FIXTURE), "--format", "json").stdout)
    row = data["teachings"][0]
    assert row["slug"] == "qingxi" and row["teachings"] == 10 and row["without_source"] == 1
    assert row["set_aside"]["url"] >= 1 and row["set_aside"]["editorial"] >= 1
    assert all({"file", "line", "reason", "text"} <= set(e) for e in row["examples"])


# --------------------------------------------------------------- structural rules (issue 12, round 2)
TEACHER_TEXT = """# 山居语录

## 持戒与观心

持戒不是捆绑手脚，是让心安稳下来的地基。
持戒不是捆住你的一根绳子。
不追问（追问本身又是一个念头，放下再看）。
念头起来只是知道（不必给它起名字），知道了就回到呼吸。
白云派以每日清晨诵戒为修行根本，包括早课、过堂与出坡等规矩。
抬脚时脚底离地，标抬；落脚时脚底着地，标落。
与静坐轮替进行，标记左、右。
是扶住你不让你跌倒的那道栏杆。
途经雪岭三日无食，几近丧命，仍不退转。
心是一面镜子，念头只是镜面上来去的影子。
尊者以一首长歌作答，说世间荣华都像朝露。
山下后来又分出东岭、西岭两支白云派。
"""


def test_reader_sets_aside_asides_instructions_descriptions_narrative_and_halves(qingxi):
    units, aside = read_text(TEACHER_TEXT, qingxi, file="t.md", name="t.md")
    texts = [u.text for u in units]
    def reasons(head: str) -> str:
        return next(a.reason for a in aside if a.text.startswith(head))

    assert "心是一面镜子，念头只是镜面上来去的影子。" in texts
    # an aside in brackets is dropped; what remains is judged on its own
    assert "念头起来只是知道，知道了就回到呼吸。" in texts
    assert reasons("不追问。") == "fragment"       # without its aside, too little to be a teaching
    assert reasons("白云派以每日") == "description"
    assert reasons("抬脚时脚底") == "instruction"
    assert reasons("与静坐轮替") == "instruction"
    assert reasons("是扶住你不") == "fragment"
    assert reasons("途经雪岭三") == "narrative"
    assert reasons("尊者以一首") == "narrative"   # told about him in the third person
    assert reasons("山下后来又") == "description"  # the branches of a lineage
    assert not any("（" in t or "(" in t for t in texts)
    assert {"instruction", "description", "narrative"} <= set(REASONS)


TABLE_RESIDUE = """# 山居语录

## 行门

此义为白云一系独有之说，不同于他家的讲法。
《山居小录》为此之入门简本。
为白云一系行门的理论基石。
即前论所说不可思议的一心三观。
此十二观法为《山居语录》之核心。
对溪边洗钵，钵本无尘一事的超越：不立能洗所洗。
正修观心前的十二种方便。
喜受、忧受、舍受。
三部小论合为一编，构成白云一系最早的系统入门教材。
心是一面镜子，念头只是镜面上来去的影子。
此心本来清净，只是被念头遮住。
如般若波罗蜜，自古音译，不作意译。
其次，知道散乱，便已不在散乱之中。
念头来去本来没有根，看清了便自己散去——白云宗旨。
即在日用中尽好本分。
源自白云初祖所集之四法。
"""


def test_reader_sets_aside_what_leans_on_a_table_or_a_missing_passage(qingxi):
    units, aside = read_text(TABLE_RESIDUE, qingxi, file="t.md", name="t.md")
    texts = [u.text for u in units]

    def reasons(head: str) -> str:
        return next(a.reason for a in aside if a.text.startswith(head))

    assert reasons("此义为白云") == "fragment"       # 此义 points at a passage that is not there
    assert reasons("《山居小录》为此") == "fragment"
    assert reasons("为白云一系") == "fragment"       # a predicate whose subject was a table's first column
    assert reasons("即前论所说") == "fragment"
    assert reasons("此十二观法") == "description"    # describes a work
    assert reasons("对溪边洗钵") == "fragment"       # an editor's label before a gloss
    assert reasons("正修观心前") == "fragment"       # a count of items
    assert reasons("喜受、忧受") == "fragment"       # a short list of names
    assert reasons("三部小论") == "description"      # describes texts
    assert reasons("如般若波罗蜜") == "fragment"    # an example taken out of its list
    assert reasons("即在日用中") == "fragment"       # a predicate whose subject is elsewhere
    assert reasons("源自白云初祖") == "fragment"     # a provenance
    # a list's position marker and an editor's label after a dash come off; the statement stays
    assert texts == ["心是一面镜子，念头只是镜面上来去的影子。", "此心本来清净，只是被念头遮住。",
                     "知道散乱，便已不在散乱之中。", "念头来去本来没有根，看清了便自己散去。"]


def test_an_objection_is_spoken_whole_or_not_at_all(default_pack):
    """The engine never cuts a clause out of an objection (a concession's 固是… without its 然…): any
    clause of an objection found in a speech comes with the whole objection, or, in the opening, with the whole
    of it from where it presses (content.text.ahead_of_answer: the grant of a view nobody has put is left out)."""
    from debate_core.content.text import ahead_of_answer

    from debate_core.content.arguments import bank_of
    from debate_core.engines.offline import OfflineEngine
    from debate_core.models import DebateConfig
    from debate_core.protocols.master import MasterDebate

    md = MasterDebate(default_pack, OfflineEngine(default_pack))
    d = md.run(md.prepare(DebateConfig(topic="顿悟与渐修", masters=["huineng", "zhiyi"])))
    objections = [(o.by, o.text) for pb in bank_of(default_pack).pairs.values() for o in pb.objections]
    spoken = 0
    for s in d.rounds:
        for by, o in objections:
            if by != s.speaker:  # another master's objection may quote this speaker's own words
                continue
            clauses = [c for c in re.split(r"[，。；：]", o) if len(c) >= 8]
            if any(c in s.text for c in clauses):
                whole = [o] + ([ahead_of_answer(o)] if s.role == "立论" else [])
                assert any(w.rstrip("。") in s.text for w in whole), (s.round, o)
                spoken += 1
    assert spoken >= 3


def test_reader_keeps_one_of_two_near_duplicates(qingxi, tmp_path):
    from debate_core.content.teachings import read_master

    folder = tmp_path / "master-qingxi"
    (folder / "sources").mkdir(parents=True)
    (folder / "sources" / "talks.md").write_text(
        "# 清溪语录\n\n来源：QX:Yulu\n\n## 开示\n\n"
        "持戒不是捆绑手脚，是让心安稳下来的地基。\n"
        "持戒不是捆住你的一根绳子。\n"                      # the same opening: a near-duplicate
        "渴求是苦的来处——求名、求利、求长久。\n"
        "师父说过求名求利求长久的渴求正是苦的来处。\n"        # the same words reordered
        "心是一面镜子，念头只是镜面上来去的影子。\n"
        "持名念佛要字字分明，一句接着一句。\n"
        "念头多时就知道念头多。\n"
        "念头少时就知道念头少。\n", encoding="utf-8")  # a parallel, not a duplicate
    m = qingxi.model_copy(deep=True)
    read_master(m, folder)
    texts = [t.text for t in m.teachings]
    assert texts == ["持戒不是捆绑手脚，是让心安稳下来的地基。", "渴求是苦的来处——求名、求利、求长久。",
                     "心是一面镜子，念头只是镜面上来去的影子。", "持名念佛要字字分明，一句接着一句。",
                     "念头多时就知道念头多。", "念头少时就知道念头少。"]
    assert sum(1 for a in m.set_aside if a.reason == "duplicate") == 2
