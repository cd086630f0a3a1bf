"""The audience vote (issue 25 item 3): the archive's vote tables (migration v13) on a real DuckDB
file, one vote per device per phase (a second one replaces it), closed votes refused, the JSON
export; AppTest of the Vote page (/Vote?id=…&phase=…) and of Present's vote controls and shift chart."""

from __future__ import annotations

import json
import threading

import duckdb
import pytest

from debate_core.archive import MIGRATIONS, SCHEMA_VERSION, VoteRefused, open_archive
from debate_core.io.exporters import export_debate
from debate_core.io.importers.json_export import parse_json
from tests.app_support import REPO, judged_debate, offline_debate
from tests.test_app import archive, archive_path, clean  # noqa: F401 - fixtures

SIDES = ["pro", "con", "undecided"]


# ------------------------------------------------------------------ archive


def test_a_v12_archive_is_migrated_to_the_vote_tables_and_keeps_its_debates(tmp_path):
    path = tmp_path / "v12.duckdb"
    con = duckdb.connect(str(path))
    for number, _what, steps in MIGRATIONS:
        if number > 12:
            break
        for step in steps:
            step(con) if callable(step) else con.execute(step)
    con.execute("INSERT INTO meta VALUES ('schema_version', '12')")
    con.execute("INSERT INTO debates (id, protocol, topic, status, config, created_at, updated_at) VALUES "
                "('old12', 'trial', 'Old motion', 'completed', '{\"topic\": \"Old motion\"}', now(), now())")
    tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    assert "audience_votes" not in tables and "vote_phases" not in tables
    con.close()

    arc = open_archive(path)
    assert SCHEMA_VERSION == 13 and arc.schema_version() == 13
    tables = set(arc.query("SELECT table_name FROM information_schema.tables")["table_name"])
    assert {"audience_votes", "vote_phases", "batch_claims"} <= tables
    assert arc.get_debate("old12").topic == "Old motion"
    assert {p: s.status for p, s in arc.vote_state("old12").items()} == {"before": "none", "after": "none"}
    assert arc.vote_results("old12") is None
    arc.open_vote("old12", "before", SIDES)  # the migrated file takes votes
    assert arc.cast_vote("old12", "before", "device-0001", "pro") == "counted"
    assert arc.vote_state("old12")["before"].counts == {"pro": 1, "con": 0, "undecided": 0}
    stamp = arc.query("SELECT value FROM meta WHERE key = 'migrated_13_at'")
    assert len(stamp) == 1


def test_one_vote_per_device_per_phase_a_second_replaces_the_first(tmp_path):
    arc = open_archive(tmp_path / "a.duckdb")
    d = judged_debate(arc, "trial")
    state = arc.open_vote(d.id, "before", SIDES)
    assert state.is_open and state.sides == SIDES and state.total == 0
    assert arc.cast_vote(d.id, "before", "phone-aaaa", "pro") == "counted"
    assert arc.cast_vote(d.id, "before", "phone-bbbb", "con") == "counted"
    assert arc.cast_vote(d.id, "before", "phone-aaaa", "undecided") == "replaced"  # the same device again
    assert arc.device_vote(d.id, "before", "phone-aaaa") == "undecided"
    rows = arc.query("SELECT device, side FROM audience_votes WHERE debate_id = ? ORDER BY device", [d.id])
    assert rows.values.tolist() == [["phone-aaaa", "undecided"], ["phone-bbbb", "con"]]  # one row per device
    before = arc.vote_state(d.id)["before"]
    assert before.counts == {"pro": 0, "con": 1, "undecided": 1} and before.shares()["con"] == 50.0

    after = arc.open_vote(d.id, "after", SIDES)  # opening "after" closes "before"
    assert after.is_open and arc.vote_state(d.id)["before"].status == "closed"
    assert arc.cast_vote(d.id, "after", "phone-aaaa", "pro") == "counted"  # the same device, the other phase
    assert arc.cast_vote(d.id, "after", "phone-bbbb", "pro") == "counted"
    res = arc.vote_results(d.id)
    assert res["phases"]["before"]["votes"] == {"pro": 0, "con": 1, "undecided": 1}
    assert res["phases"]["after"]["shares"] == {"pro": 100.0, "con": 0.0, "undecided": 0.0}
    assert res["shift"] == {"pro": 100.0, "con": -50.0, "undecided": -50.0}
    assert "replaces" in res["rule"]


def test_a_closed_or_unopened_vote_refuses_votes(tmp_path):
    arc = open_archive(tmp_path / "a.duckdb")
    d = judged_debate(arc, "trial")
    with pytest.raises(VoteRefused, match="has not been opened") as exc:
        arc.cast_vote(d.id, "before", "phone-aaaa", "pro")
    assert exc.value.reason == "not_open"
    arc.open_vote(d.id, "before", SIDES)
    arc.cast_vote(d.id, "before", "phone-aaaa", "pro")
    assert arc.close_vote(d.id, "before") is True and arc.close_vote(d.id, "before") is False
    for device in ("phone-aaaa", "phone-cccc"):  # neither a new device nor a change of mind
        with pytest.raises(VoteRefused, match="is closed") as exc:
            arc.cast_vote(d.id, "before", device, "con")
        assert exc.value.reason == "closed" and "\n" not in str(exc.value)
    assert arc.vote_state(d.id)["before"].counts == {"pro": 1, "con": 0, "undecided": 0}
    for args, reason in ((("during", "phone-aaaa", "pro"), "phase"), (("before", "x", "pro"), "device"),
                         (("before", "../../etc", "pro"), "device")):
        with pytest.raises(VoteRefused) as exc:
            arc.cast_vote(d.id, *args)
        assert exc.value.reason == reason
    arc.open_vote(d.id, "before", ["other"])  # the presenter reopens it: the sides it had, and votes again
    assert arc.vote_state(d.id)["before"].sides == SIDES
    with pytest.raises(VoteRefused) as exc:
        arc.cast_vote(d.id, "before", "phone-aaaa", "other")
    assert exc.value.reason == "side"
    assert arc.cast_vote(d.id, "before", "phone-aaaa", "con") == "replaced"
    with pytest.raises(KeyError):
        arc.open_vote("no-such-debate", "before", SIDES)
    with pytest.raises(VoteRefused):
        arc.open_vote(d.id, "after", [])


def test_votes_from_many_devices_at_once_are_all_counted(tmp_path):
    arc = open_archive(tmp_path / "a.duckdb")
    d = judged_debate(arc, "trial")
    arc.open_vote(d.id, "before", SIDES)
    errors = []

    def vote(i: int) -> None:
        try:
            for k in range(5):
                arc.cast_vote(d.id, "before", f"phone-{i:04d}", SIDES[(i + k) % 3])
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=vote, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert arc.vote_state(d.id)["before"].total == 8  # 40 votes, 8 devices: one vote each


def test_votes_stay_when_the_debate_is_saved_again_go_with_it_and_reach_the_exports(tmp_path):
    arc = open_archive(tmp_path / "a.duckdb")
    d = judged_debate(arc, "trial")
    assert "audience_vote" not in json.loads(export_debate(arc, d.id, "json"))  # no vote: the export as before
    arc.open_vote(d.id, "before", SIDES)
    arc.cast_vote(d.id, "before", "phone-aaaa", "con")
    arc.open_vote(d.id, "after", SIDES)
    arc.cast_vote(d.id, "after", "phone-aaaa", "pro")
    arc.save(d)  # a whole debate written again keeps its vote
    assert arc.vote_state(d.id)["after"].counts["pro"] == 1

    data = json.loads(export_debate(arc, d.id, "json"))
    vote = data["audience_vote"]
    assert vote["phases"]["before"]["votes"]["con"] == 1 and vote["phases"]["after"]["status"] == "open"
    assert vote["shift"]["pro"] == 100.0
    src = tmp_path / "export.json"
    src.write_text(json.dumps(data, ensure_ascii=False))
    assert parse_json(src, src.read_text())[0].model_dump() == d.model_dump()  # an import ignores it

    folder = tmp_path / "pq"
    folder.mkdir()
    written = {p.name for p in arc.copy_to_parquet(folder, d.id)}
    assert {"vote_phases.parquet", "audience_votes.parquet"} <= written
    assert arc.delete(d.id)
    assert arc.query("SELECT count(*) AS n FROM audience_votes")["n"][0] == 0
    assert arc.query("SELECT count(*) AS n FROM vote_phases")["n"][0] == 0


# ------------------------------------------------------------------ AppTest

AppTest = pytest.importorskip("streamlit.testing.v1").AppTest

VOTE = "pages/8_Vote.py"
PRESENT = "pages/6_Present.py"


def open_page(page: str, *, errors: bool = False, **params: str):
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.switch_page(page)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    if not errors:
        clean(at)
    assert not at.exception, [e.value for e in at.exception]
    return at


def param(at, name: str) -> str:
    value = at.query_params[name]
    return value[0] if isinstance(value, list) else value


def test_the_vote_page_shows_the_topic_and_the_sides_and_takes_one_vote_per_device(archive_path, archive):
    d = judged_debate(archive, "trial")
    archive.open_vote(d.id, "before", SIDES)
    at = open_page(VOTE, id=d.id, phase="before", lang="en")
    assert [t.value for t in at.title] == [d.topic] and [s.value for s in at.subheader] == ["Vote before the debate"]
    assert at.main.radio[0].label == "Your view"
    # a trial's sides, which the library named in the debate's language (正方, 支持该命题), in the reader's words
    assert at.main.radio[0].options == ["PRO (For the motion)", "CON (Against the motion)", "Undecided"]
    device = param(at, "device")
    assert len(device) == 16  # this tab's token, kept in its URL (no cookie)
    shown = "\n".join(str(m.value) for m in at.markdown) + "\n".join(c.value for c in at.caption)
    assert "openai" not in shown and "judge" not in shown  # only the topic and the sides
    assert at.button(key="vote-cast").disabled  # nothing chosen yet

    at.main.radio[0].set_value("pro").run()
    at.button(key="vote-cast").click().run()
    assert [s.value for s in at.success] == ["Your vote is counted: PRO (For the motion)."]
    at.main.radio[0].set_value("con").run()
    assert "You voted: PRO (For the motion). Voting again replaces it." in [c.value for c in at.caption]
    at.button(key="vote-cast").click().run()
    assert [s.value for s in at.success] == ["Your vote is changed to CON (Against the motion)."]
    assert archive.vote_state(d.id)["before"].counts == {"pro": 0, "con": 1, "undecided": 0}
    assert archive.device_vote(d.id, "before", device) == "con"

    other = open_page(VOTE, id=d.id, phase="before")  # another phone: another token, another vote
    assert param(other, "device") != device
    other.main.radio[0].set_value("pro").run()
    other.button(key="vote-cast").click().run()
    assert archive.vote_state(d.id)["before"].total == 2

    other.main.radio[0].set_value("undecided").run()
    archive.close_vote(d.id, "before")  # the presenter closes the vote while this phone has it open
    other.button(key="vote-cast").click().run()
    assert [i.value for i in other.info] == ["This vote is closed: no new votes."] and not other.success
    assert archive.vote_state(d.id)["before"].counts == {"pro": 1, "con": 1, "undecided": 0}
    at.run()  # reloaded: one line, no form
    assert [i.value for i in at.info] == ["This vote is closed: no new votes."]
    assert not at.main.radio and not at.main.button


def test_the_vote_page_before_the_vote_opens_in_chinese_and_without_a_phase(archive_path, archive):
    d = judged_debate(archive, "topic")
    at = open_page(VOTE, id=d.id, phase="after", lang="zh")
    assert [i.value for i in at.info] == ["投票尚未开始：请等待主持人开启。"] and not at.main.radio
    archive.open_vote(d.id, "after", ["辩手甲", "辩手乙", "undecided"])
    at = open_page(VOTE, id=d.id, lang="zh")  # no phase in the link: the phase open now
    assert [s.value for s in at.subheader] == ["辩论后投票"] and at.main.radio[0].label == "你的立场"
    # the reader's frame around the debate's stance, quoted as it says it
    assert at.main.radio[0].options == ["辩手甲：「远程办公提高效率」", "辩手乙：「远程办公降低效率」", "尚未决定"]
    assert at.button(key="vote-cast").label == "投票"
    bad = open_page(VOTE, errors=True, id=d.id, phase="during", lang="en")
    assert len(bad.error) == 1 and "phase=before" in bad.error[0].value and not bad.main.radio


def test_present_opens_and_closes_the_votes_with_a_link_and_qr_then_charts_the_shift(archive_path, archive):
    d = offline_debate(archive)
    at = open_page(PRESENT, id=d.id, lang="en")
    assert at.toggle(key="present-vote").label == "Audience vote" and not at.toggle(key="present-vote").value
    assert {b.label for b in at.button} == {"← Previous", "Next →"}  # off: the projector shows the debate alone

    at.toggle(key="present-vote").set_value(True).run()
    assert [s.value for s in at.subheader] == ["Vote before the debate", "Vote after the debate"]
    assert [c.value for c in at.caption][:2] == ["Not opened yet.", "Not opened yet."]
    assert at.button(key="present-vote-before").label == "Open the vote"
    at.button(key="present-vote-before").click().run()
    assert archive.vote_state(d.id)["before"].is_open
    assert [c.value for c in at.code] == [f"http://localhost:8501/Vote?id={d.id}&phase=before"]
    assert len(at.get("image")) == 1  # the QR code of that link
    assert at.button(key="present-vote-before").label == "Close the vote"

    masters = [p.label for p in d.participants]
    archive.cast_vote(d.id, "before", "phone-aaaa", masters[0])
    archive.cast_vote(d.id, "before", "phone-bbbb", "undecided")
    at.button(key="present-vote-refresh").click().run()
    assert "Open: 2 votes so far." in [c.value for c in at.caption]

    at.button(key="present-vote-after").click().run()  # opening "after" closes "before"
    state = archive.vote_state(d.id)
    assert state["before"].status == "closed" and state["after"].is_open
    assert [c.value for c in at.code] == [f"http://localhost:8501/Vote?id={d.id}&phase=after"]
    assert at.button(key="present-vote-before").label == "Reopen the vote"
    archive.cast_vote(d.id, "after", "phone-aaaa", masters[1])
    archive.cast_vote(d.id, "after", "phone-bbbb", masters[1])
    at.button(key="present-vote-after").click().run()
    assert archive.vote_state(d.id)["after"].status == "closed"

    assert not at.get("plotly_chart")  # step 1: no chart yet
    at.query_params["step"] = "5"
    at.run()
    clean(at)
    # the observation's heading is the app's (the reader's language: English here); the Markdown keeps the seed's
    assert [h.value for h in at.header] == ["Open questions — a neutral observation"]
    assert "Opinion shift" in [s.value for s in at.subheader] and len(at.get("plotly_chart")) == 1
    names = {p.label: p.name for p in d.participants}
    body = [m.value for m in at.markdown]
    assert f"#### {names[masters[0]]}: 50% → 0% (-50 points)" in body
    assert f"#### {names[masters[1]]}: 0% → 100% (+100 points)" in body
    assert "#### Undecided: 50% → 0% (-50 points)" in body
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert [t["name"] for t in fig["data"]] == ["Before (2 votes)", "After (2 votes)"]


def test_present_vote_controls_in_chinese(archive_path, archive):
    d = judged_debate(archive, "trial")
    archive.open_vote(d.id, "before", SIDES)  # a vote open: the switch is on by itself
    at = open_page(PRESENT, id=d.id, lang="zh")
    assert at.toggle(key="present-vote").label == "观众投票" and at.toggle(key="present-vote").value
    assert [s.value for s in at.subheader] == ["辩论前投票", "辩论后投票"]
    assert at.button(key="present-vote-before").label == "关闭投票"
    assert at.button(key="present-vote-after").label == "开启投票"
    assert [c.value for c in at.caption][:2] == ["进行中：已有 0 票。", "尚未开启。"]
