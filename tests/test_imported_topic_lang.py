"""An imported topic debate read in either language (issue 25's last leaks), through the library's importer and
the real Streamlit pages (AppTest) on a DuckDB archive in tmp:

* the importer's own stop reason for a log without a stop line (tests/fixtures/topic-debate-nostop) is the
  library's note in the log's language, which the app says again in the reader's; one stored in English by an
  earlier import reads back too;
* ``no_new_points`` lines are envelope data, not speech text: the importer keeps them out of the text (both
  fixtures, both ways the seed writes the flag), the page says the flag in the reader's words, and a speech stored
  with the line (the app's own topic debates, earlier imports) shows without it;
* a topic debater's stance is the debate's words in a frame of the reader's language: the Vote options
  (``Debater A: “…”`` under the English UI for a Chinese debate, ``辩手甲：「…」`` under the Chinese UI for an
  English one), the per-debater table and the argument map's ledger (the debaters by their seats in the reader's
  language).
"""

from __future__ import annotations

import pytest

from debate_core.engines.judged_prompts import seat_label
from debate_core.i18n import read_back, tr
from debate_core.io.importers import import_paths
from tests.app_support import REPO, judged_debate
from tests.test_app import archive, archive_path  # noqa: F401 - the app tests' fixtures

AppTest = pytest.importorskip("streamlit.testing.v1").AppTest

from webapp import i18n  # noqa: E402

CITY = REPO / "tests" / "fixtures" / "topic-debate"
PHONES = REPO / "tests" / "fixtures" / "topic-debate-nostop"
PAGES = {"outcome": "pages/3_Outcome.py", "live": "pages/2_Live.py", "vote": "pages/8_Vote.py"}


def imported(arc, folder) -> str:
    return next(r.id for r in import_paths(arc, [str(folder)]) if r.kind == "topic-debate")


def page(name: str, lang: str, debate_id: str, **params: str):
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=90)
    at.switch_page(PAGES[name])
    at.query_params["lang"] = lang
    at.query_params["id"] = debate_id
    for k, v in params.items():
        at.query_params[k] = v
    i18n.MISSING.clear()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert not i18n.MISSING, sorted(i18n.MISSING)
    return at


def texts(at) -> list[str]:
    return [e.value for kind in ("markdown", "caption", "success", "info", "warning", "subheader")
            for e in at.get(kind) if isinstance(e.value, str)]


# ------------------------------------------------------------------------ the importer


def test_a_log_without_a_stop_line_stores_the_librarys_note_in_its_language(archive):
    d = archive.get_debate(imported(archive, PHONES))
    assert d.lang == "zh" and d.status == "completed"
    assert d.stop_reason == tr("zh", "reached {n} rounds", n=2) == "共进行 2 轮"
    assert read_back(d.stop_reason, ["reached {n} rounds"]) == ("reached {n} rounds", {"n": "2"})
    # a folder with a stop line keeps the debate's own words
    own = archive.get_debate(imported(archive, CITY))
    assert own.stop_reason == "第 2 轮双方均无新论点，收敛停机。进入裁判。"


@pytest.mark.parametrize("folder", [CITY, PHONES])
def test_the_no_new_points_flag_is_envelope_data_not_speech_text(archive, folder):
    d = archive.get_debate(imported(archive, folder))
    assert all("no_new_points" not in s.text for s in d.rounds), [s.text for s in d.rounds]
    flags = [s.envelope.get("no_new_points") for s in d.rounds]
    assert flags == ([None, False, True, True] if folder == CITY else [False, False, True, True])
    assert all(s.text.strip() for s in d.rounds)  # the speech itself is still there
    if folder == PHONES:  # the bare line and the bulleted code span both leave the text
        assert d.rounds[1].text.endswith("| 家长问卷 |") and d.rounds[2].text.endswith("不该拿来试错。")


# ------------------------------------------------------------------------ the pages


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_importers_stop_reason_reads_in_the_readers_language(archive, lang):
    new = imported(archive, PHONES)
    old = archive.get_debate(new).model_copy(update={"id": "oldimport001", "stop_reason": "reached 2 rounds"})
    archive.save(old)  # as an earlier import stored it: in English, whatever the log's language
    said = "reached 2 rounds" if lang == "en" else "共进行 2 轮"
    for debate_id in (new, old.id):
        shown = texts(page("outcome", lang, debate_id))
        assert any(said in t for t in shown), (debate_id, shown)
        other = "共进行" if lang == "en" else "reached"
        assert not any(other in t for t in shown), (debate_id, [t for t in shown if other in t])
        live = texts(page("live", lang, debate_id))
        assert any(said in t for t in live), (debate_id, live)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_speech_shows_no_raw_flag_and_the_page_says_it(archive, lang):
    zh_id = imported(archive, CITY)
    run = judged_debate(archive, "topic", debate_id="topicen00001", lang="en")
    stored = run.model_copy(deep=True)  # the app's own topic debates store render_envelope's text, flag line and all
    for s in stored.rounds:
        s.text += f"\n\n`no_new_points: {'true' if s.envelope['no_new_points'] else 'false'}`"
    archive.save(stored)
    said = ("No new points: the debater had nothing new to add this round." if lang == "en"
            else "无新论点：该辩手本轮没有新的内容。")
    for debate_id in (zh_id, stored.id):
        for name in ("outcome", "live"):
            shown = texts(page(name, lang, debate_id))
            assert not [t for t in shown if "no_new_points" in t], (name, debate_id)
            assert sum(said == t for t in shown) == 2, (name, debate_id)  # the two round-2 speeches


def test_vote_options_frame_the_debates_stance_in_the_readers_language(archive):
    zh = archive.get_debate(imported(archive, CITY))
    en = judged_debate(archive, "topic", debate_id="topicen00001", lang="en")
    for d in (zh, en):
        archive.open_vote(d.id, "before", [p.label for p in d.participants] + ["undecided"])
    # a Chinese debate under the English UI: English frame and seat names, the stances verbatim and quoted
    options = page("vote", "en", zh.id, phase="before").radio[0].options
    assert options == [f"Debater A: “{zh.participants[0].stance}”", f"Debater B: “{zh.participants[1].stance}”",
                       "Undecided"], options
    # an English debate under the Chinese UI: the Chinese frame around its English stances
    options = page("vote", "zh", en.id, phase="before").radio[0].options
    assert options == [f"辩手甲：「{en.participants[0].stance}」", f"辩手乙：「{en.participants[1].stance}」",
                       "尚未决定"], options
    # and in the debate's own language, the frame is that language's
    assert page("vote", "zh", zh.id, phase="before").radio[0].options[0] == f"辩手甲：「{zh.participants[0].stance}」"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_per_debater_table_names_the_seats_in_the_readers_language(archive, lang):
    zh = archive.get_debate(imported(archive, CITY))
    en = judged_debate(archive, "topic", debate_id="topicen00001", lang="en")
    for d in (zh, en):
        at = page("outcome", lang, d.id)
        header = ["debater", "stance"] if lang == "en" else ["辩手", "立场"]
        table = next(f.value for f in at.dataframe if list(f.value.columns)[:2] == header)
        assert list(table.iloc[:, 0]) == [seat_label(r.label, lang) for r in d.verdict.rows]
        assert list(table.iloc[:, 1]) == [r.stance for r in d.verdict.rows]  # the debate's words, verbatim
        winner = ("Winner: {w} wins" if lang == "en" else "胜方：{w} 胜").format(w=seat_label(d.verdict.winner, lang))
        assert any(winner in t for t in texts(at)), winner
        # the argument map's ledger: speakers and the seat a claim id starts with, in the reader's language
        header = ["claim", "speaker"] if lang == "en" else ["论点", "发言者"]
        ledger = next(f.value for f in at.dataframe if list(f.value.columns)[:2] == header)
        seats = [seat_label(p.label, lang) for p in d.participants]
        assert set(ledger.iloc[:, 1]) == set(seats)
        assert all(any(c.startswith(s + " ") for s in seats) for c in ledger.iloc[:, 0]), list(ledger.iloc[:, 0])


@pytest.mark.parametrize("lang,said", [("en", "Round 2: Debater A, Debater B (in parallel)"),
                                       ("zh", "第 2 轮：辩手甲、辩手乙（同时发言）")])
def test_lives_turn_line_names_the_seats_in_the_readers_language(lang, said):
    """Live's "who is speaking" line, which the library wrote in the debate's language, in either direction."""
    from debate_core.engines.judged_prompts import for_lang
    from debate_core.models import Debate, DebateConfig, Participant, Speech
    from debate_core.protocols import registry
    from webapp.views.live import next_turn

    for debate_lang in ("zh", "en"):
        labels = for_lang(debate_lang).LABELS[:2]
        d = Debate(id="t", protocol="topic", topic="t", planned_rounds=3,
                   config=DebateConfig(protocol="topic", topic="t", lang=debate_lang),
                   participants=[Participant(label=lab, name=lab) for lab in labels],
                   rounds=[Speech(round=1, speaker=lab, speaker_name=lab, role="opening", text="x") for lab in labels])
        assert registry.get("topic").turn(d, 2) != said or debate_lang == lang  # the library's words, its language
        with i18n.use(lang):
            assert next_turn(d) == said
