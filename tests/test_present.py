"""Presentation mode (issue 25): /Present?id=… shows an archived debate round by round in large type,
with Previous / Next and a step counter, no metadata, and the observation or the verdict as the last
step; a debate still running shows the rounds that exist so far, read again on every step.

AppTest on a real DuckDB archive in tmp, with real offline debates (tests/app_support.py)."""

from __future__ import annotations

import pytest

from tests.app_support import judged_debate, offline_debate
from tests.test_app import archive, archive_path, benchmark_debate, clean, qid  # noqa: F401 - fixtures

AppTest = pytest.importorskip("streamlit.testing.v1").AppTest

from tests.app_support import REPO  # noqa: E402

PRESENT = "pages/6_Present.py"


def present(debate_id: str | None, lang: str | None = None, **params: str):
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.switch_page(PRESENT)
    if lang:
        at.query_params["lang"] = lang
    if debate_id:
        at.query_params["id"] = debate_id
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    clean(at)
    return at


def headers(at) -> list[str]:
    return [h.value for h in at.header]


def counter(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("### ")).removeprefix("### ")


def step_param(at) -> str:
    value = at.query_params["step"]
    return value[0] if isinstance(value, list) else value


def body(at) -> str:
    return "\n".join(str(m.value) for m in at.markdown)


def nxt(at):
    at.button(key="present-next").click().run()
    clean(at)
    return at


def prev(at):
    at.button(key="present-prev").click().run()
    clean(at)
    return at


def test_present_steps_through_a_master_debate_round_by_round(archive_path, archive):
    d = offline_debate(archive)
    roles = {"立论": "Opening", "反驳": "Rebuttal", "回应": "Response", "综合": "Synthesis"}  # the reader's language
    titles = [f"R{s.round}｜{s.speaker_name} {roles[s.role]}" for s in d.rounds]
    at = present(d.id)
    assert [t.value for t in at.title] == [d.topic]  # the topic, no page title and no metadata
    assert headers(at) == [titles[0]]  # the first step: R1 only
    assert counter(at) == "Step 1 of 5" and step_param(at) == "1"
    assert at.button(key="present-prev").disabled and not at.button(key="present-next").disabled
    first, second = d.rounds[0].text[:24], d.rounds[1].text[:24]
    assert first in body(at) and second not in body(at)  # R1's text, not R2's
    assert all(m.value.startswith(("#### ", "### ")) for m in at.markdown)  # large type throughout
    shown = body(at) + "\n".join(c.value for c in at.caption)
    assert d.id not in shown and "offline" not in shown and "huineng" not in shown  # no metadata
    assert not at.dataframe and not at.expander

    nxt(at)
    assert headers(at) == [titles[1]] and counter(at) == "Step 2 of 5" and step_param(at) == "2"
    assert "慧能上一轮所说" in body(at)
    nxt(at)
    nxt(at)
    assert headers(at) == [titles[3]]
    nxt(at)  # the last step: the neutral observation
    assert headers(at) == ["Open questions — a neutral observation"] and counter(at) == "Step 5 of 5"
    text = body(at)  # the keys in the reader's language, the observation in the debate's
    # each key its own line (the app's words), the observation's text below it (the debate's, in a content region)
    assert f"#### **Where they differ**\n#### {d.observation.divergence[:20]}" in text
    assert "#### **Common ground**\n" in text and "#### **For the reader**\n" in text
    assert at.button(key="present-next").disabled
    prev(at)
    assert headers(at) == [titles[3]] and step_param(at) == "4"


@pytest.mark.parametrize("protocol", ["topic", "trial"])
def test_present_a_judged_debate_shows_both_sides_per_round_and_the_verdict_last(archive_path, archive, protocol):
    d = judged_debate(archive, protocol)
    at = present(d.id)
    role = {"opening": "Opening", "rebuttal": "Rebuttal", "pro": "PRO", "con": "CON"}
    # a trial's sides, which the library named 正方 / 反方, and a topic debater's seat (辩手甲): the reader's words
    name = {"pro": "PRO", "con": "CON", "辩手甲": "Debater A", "辩手乙": "Debater B"}
    r1 = [f"R1｜{name.get(s.speaker, s.speaker_name)} · {role[s.role]}" for s in d.rounds if s.round == 1]
    assert headers(at) == r1 and counter(at) == "Step 1 of 3"
    nxt(at)
    assert headers(at) == [
        f"R2｜{name.get(s.speaker, s.speaker_name)} · {role[s.role]}" for s in d.rounds if s.round == 2
    ]
    nxt(at)
    assert headers(at) == ["Verdict"]
    winner = "Debater B wins" if protocol == "topic" else "PRO wins"  # a topic debater's stance is its own words:
    assert f"## Winner: {winner}" in body(at) and "论点强度" in body(at)
    assert ("**远程办公降低效率**" in body(at)) == (protocol == "topic")  # shown apart, in the debate's language


def test_present_a_benchmark_debate(archive_path, archive, tmp_path):
    d = benchmark_debate(archive, tmp_path)
    at = present(d.id)
    rounds = sorted({s.round for s in d.rounds})
    total = len(rounds) + (1 if d.verdict or d.judgments else 0)
    assert counter(at) == f"Step 1 of {total}"
    assert len(headers(at)) == len([s for s in d.rounds if s.round == rounds[0]])
    for _ in range(total - 1):
        nxt(at)
    assert counter(at) == f"Step {total} of {total}"
    if d.verdict or d.judgments:
        assert headers(at) == ["Verdict"]


def test_present_in_chinese_and_a_step_from_the_url(archive_path, archive):
    d = offline_debate(archive)
    at = present(d.id, "zh", step="3")
    assert counter(at) == "第 3 步，共 5 步" and headers(at)[0].startswith("R3｜")
    assert {b.label for b in at.button} == {"← 上一步", "下一步 →"}
    at = present(d.id, "en", step="99")  # beyond the last step: the last step
    assert counter(at) == "Step 5 of 5" and step_param(at) == "5"


def test_present_a_running_debate_shows_the_rounds_so_far_and_reads_again(archive_path, archive):
    full = offline_debate(archive)
    d = full.model_copy(deep=True)
    d.id, d.status, d.observation, d.stop_reason = "running00001", "running", None, ""
    d.rounds = d.rounds[:2]
    d.summaries = [s for s in d.summaries if s.round <= 2]
    archive.save(d)
    at = present(d.id)
    assert counter(at) == "Step 1 of 2"
    nxt(at)
    assert counter(at) == "Step 2 of 2" and headers(at)[0].startswith("R2｜")
    assert not at.button(key="present-next").disabled  # it runs: Next reads the archive again
    assert "still running" in "\n".join(c.value for c in at.caption)
    nxt(at)  # no new round yet: stays on the last one
    assert counter(at) == "Step 2 of 2"

    d.rounds = full.rounds[:3]  # round 3 arrives
    archive.save(d)
    nxt(at)
    assert counter(at) == "Step 3 of 3" and headers(at)[0].startswith("R3｜")

    d.rounds, d.status, d.observation = full.rounds, "completed", full.observation  # the debate ends
    archive.save(d)
    nxt(at)
    nxt(at)
    assert counter(at) == "Step 5 of 5" and headers(at) == ["Open questions — a neutral observation"]
    assert at.button(key="present-next").disabled


def test_outcome_links_to_present_and_present_1_redirects(archive_path, archive):
    d = offline_debate(archive)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.switch_page("pages/3_Outcome.py")
    at.query_params["id"] = d.id
    at.run()
    clean(at)
    link = next(p for p in at.get("page_link") if p.proto.label == "Present")
    assert link.proto.page == "Present" and f"id={d.id}" in link.proto.query_string

    at.query_params["present"] = "1"
    at.run()
    clean(at)
    assert counter(at) == "Step 1 of 5" and qid(at) == d.id


def test_present_without_an_id_offers_a_choice(archive_path, archive):
    d = offline_debate(archive)
    at = present(None)
    pick = next(s for s in at.selectbox if s.label == "Debate")
    pick.set_value(d.id).run()
    clean(at)
    assert counter(at) == "Step 1 of 5"


def test_present_keeps_a_distress_notice_on_screen(archive_path, archive):
    # r20: a student's 活着毫无意义 — the room sees where help is, on every step, in the debate's language
    from debate_core.content.distress import NOTICE

    d = offline_debate(archive, topic="我考研失败两次，觉得活着毫无意义，该怎么办？")
    said = NOTICE.removeprefix("⚠️ ")  # (the page's warning box carries its own icon)
    at = present(d.id)
    assert [said in w.value for w in at.warning] == [True]
    nxt(at)
    assert [said in w.value for w in at.warning] == [True]
    plain = offline_debate(archive)
    assert not present(plain.id).warning
