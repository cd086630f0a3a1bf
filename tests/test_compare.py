"""Issue 25 item 5: the Compare page (/Compare?a=ID&b=ID) through AppTest, on a real archive with real
offline debates: both debates side by side aligned by round, a picker for a missing id (the debates on the
same topic first), Swap sides, the link from Outcome, master / topic / trial debates, both languages."""

from __future__ import annotations

import pytest

from tests.app_support import REPO, judged_debate, offline_debate
from tests.test_app import archive, archive_path  # noqa: F401 - the app tests' fixtures

AppTest = pytest.importorskip("streamlit.testing.v1").AppTest

from webapp import i18n  # noqa: E402

COMPARE = "pages/7_Compare.py"


def render(lang: str = "en", page: str = COMPARE, **params: str):
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.switch_page(page)
    at.query_params["lang"] = lang
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    return at


def clean(at) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def md(at) -> list[str]:
    return [m.value for m in at.markdown]


def param(at, name: str) -> str:
    value = at.query_params[name]
    return value[0] if isinstance(value, list) else value


def heads(at) -> list[tuple[str, str]]:
    """Each side's heading (A / B, the app's) and the topic under it (the debate's, in its content region)."""
    lines = md(at)
    return [(x[5:], lines[i + 1].removeprefix("#### ")) for i, x in enumerate(lines) if x in ("#### A", "#### B")]


def test_master_and_topic_debates_side_by_side_aligned_by_round(archive_path, archive):
    m = offline_debate(archive)
    t = judged_debate(archive, "topic")
    i18n.MISSING.clear()
    at = render(a=m.id, b=t.id)
    clean(at)
    assert {s for s in i18n.MISSING if s in _OURS} == set()
    assert heads(at) == [("A", m.topic), ("B", t.topic)]
    assert "**Result:** no winner: a neutral observation" in md(at)
    assert any(x.startswith("**Result:** Debater B") for x in md(at))  # 辩手乙's seat, in the reader's words
    assert [s.value for s in at.subheader] == ["Round 1", "Round 2", "Round 3", "Round 4", "Outcome"]
    cards = [x for x in md(at) if x.startswith("### R") or x.startswith("#### R")]
    # Round 1: the master's R1 (left), then both topic debaters' R1 (right); round 3 has the master alone
    assert cards[:3] == [f"### R1｜{m.rounds[0].speaker_name} Opening", "#### R1｜Debater A · Opening",
                         "#### R1｜Debater B · Opening"]  # the roles and the debaters' seats in the reader's language
    assert cards[3].startswith("### R2｜") and cards[6].startswith("### R3｜") and cards[7].startswith("### R4｜")
    assert [c.value for c in at.caption].count("no speech in this round") == 2  # B's rounds 3 and 4
    assert any(x.startswith("- Where they differ: ") for x in md(at))  # A's observation in the last row
    assert any("胜方" in s.value or "wins" in s.value for s in at.success)  # B's verdict
    assert [c.value for c in at.code] == [f"/Compare?a={m.id}&b={t.id}&lang=en"]  # the copy-link box


def test_swap_puts_b_left_and_keeps_the_rows(archive_path, archive):
    m = offline_debate(archive)
    t = judged_debate(archive, "trial", "trial0000001")
    at = render(a=m.id, b=t.id)
    clean(at)
    at.button(key="compare-swap").click().run()
    clean(at)
    assert (param(at, "a"), param(at, "b")) == (t.id, m.id)
    assert heads(at) == [("A", t.topic), ("B", m.topic)]
    cards = [x for x in md(at) if x.startswith("### R") or x.startswith("#### R")]
    assert cards[0].startswith("#### R1｜PRO") and cards[2].startswith("### R1｜")  # trial first now (its PRO side)


def test_pickers_offer_the_same_topic_first_then_compare(archive_path, archive):
    first = offline_debate(archive)
    judged_debate(archive, "topic")  # newer, on another topic
    again = offline_debate(archive, masters=[first.participants[1].label, first.participants[0].label])
    at = render()
    clean(at)
    assert len(at.selectbox) == 1 and at.selectbox[0].label == "Debate A"
    assert "Choose debate A first" in "\n".join(c.value for c in at.caption)
    at.selectbox(key="compare-pick-a").select(first.id).run()
    clean(at)
    assert param(at, "a") == first.id
    pick_b = at.selectbox(key="compare-pick-b")
    assert pick_b.options[0].startswith(again.id) and not any(o.startswith(first.id) for o in pick_b.options)
    pick_b.select(again.id).run()
    clean(at)
    assert param(at, "b") == again.id
    assert "Both debates are on the same topic." in [c.value for c in at.caption]
    assert [s.value for s in at.subheader][:4] == ["Round 1", "Round 2", "Round 3", "Round 4"]


def test_compare_in_chinese_and_an_unknown_id(archive_path, archive):
    t = judged_debate(archive, "topic")
    tr = judged_debate(archive, "trial", "trial0000001")
    i18n.MISSING.clear()
    at = render("zh", a=t.id, b=tr.id)
    clean(at)
    assert {s for s in i18n.MISSING if s in _OURS} == set()
    assert [s.value for s in at.subheader] == ["第 1 轮", "第 2 轮", "结果"]
    assert any(b.label == "⇄ 左右互换" for b in at.button)
    assert "两场辩论的议题相同。" in [c.value for c in at.caption]
    body = "\n".join(md(at))
    assert "**结果**：" in body and "Round 1" not in body and "Result" not in body  # (bold that renders: **结果**：)

    at = render("en", a=t.id, b="nope<script>")
    assert not at.exception
    assert at.error and "nope" in at.error[0].value and "<script>" not in at.error[0].value  # shown neutralised


def test_outcome_links_to_compare_and_copies_its_own_link(archive_path, archive):
    m = offline_debate(archive)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.switch_page("pages/3_Outcome.py")
    at.query_params["id"] = m.id
    at.query_params["lang"] = "en"
    at.context["url"] = "https://debates.example.org/workbench/Outcome"
    at.run()
    clean(at)
    links = {(p.proto.page, p.proto.label): p.proto.query_string for p in at.get("page_link")}
    compare = [q for (page, label), q in links.items() if label == "Compare with…"]
    assert compare and f"a={m.id}" in compare[0]
    assert [c.value for c in at.code] == [f"https://debates.example.org/workbench/Outcome?id={m.id}&lang=en"]


_OURS = {"Compare", "Compare with…", "Debate A", "Debate B", "**Result:** {result}", "no speech in this round",
         "Both debates are on the same topic.", "⇄ Swap sides", "Choose others", "🔗 Copy link",
         "no winner: a neutral observation", "Puts debate B on the left and debate A on the right.",
         "The address of this page, to share: the copy button at the right of the box copies it."}
