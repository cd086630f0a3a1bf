"""A specific question of doctrine that the bank has no answer written for is argued on its theme, and the
debate says so at its top and in its opening (issue 22; r21: 应成派和自续派到底在争什么 and 临济的棒喝和曹洞的
默照 were argued as 空与有 / 修行的根本 with no word at the top, and the opening said 这一问落在「…」上).
Real offline debates on the project's default pack."""

from __future__ import annotations

import pytest

from debate_core.content.text import specific_question
from debate_core.models import DebateConfig
from debate_core.protocols.master import MasterDebate

BANNER = "所据资料里没有就本题写好的专门回答"


@pytest.fixture(scope="module")
def md(default_pack):
    from debate_core.engines.offline import OfflineEngine

    return MasterDebate(default_pack, OfflineEngine(default_pack))


@pytest.mark.parametrize(
    "topic",
    [
        "《金刚经》讲应无所住而生其心，这和天台说的一心三观是不是一回事？",
        "阿毗达摩的刹那灭和唯识的种子说，在解释相续上有什么不同？",
        "菩萨戒和声闻戒在持犯的判断上有什么根本不同？",
    ],
)
def test_a_specific_doctrinal_question_without_an_answer_says_so(md, topic):
    d = md.run(md.prepare(DebateConfig(topic=topic)))
    plan = d.rounds[0].plan
    assert specific_question(topic)
    assert not plan.case  # the bank holds no answer written for it: the debate argues a theme
    notes = [w for w in d.warnings if BANNER in w]
    assert len(notes) == 1 and f"「{plan.theme_title}」" in notes[0]
    opening = d.rounds[0].text
    assert opening.startswith(f"说到{plan.theme_title}，我的看法是：")  # his view on the theme, no claim to answer
    assert "这一问落在" not in opening  # no claim that the question is the theme's


@pytest.mark.parametrize("topic", ["布施到底有什么功德？", "持戒太严会不会反成执著？", "参禅和念佛该怎么选？"])
def test_a_question_of_the_theme_itself_carries_no_such_note(md, topic):
    d = md.run(md.prepare(DebateConfig(topic=topic)))
    assert not specific_question(topic)
    assert not any(BANNER in w for w in d.warnings)
    assert "题中具体所问" not in d.rounds[0].text


def test_a_personal_question_keeps_its_own_note():
    # the asker's own situation has its note (题中所问的具体情形…); this one is for questions of doctrine
    assert not specific_question("我每天打坐半小时，腿痛得受不了，心也静不下来，是不是方法不对？")


@pytest.mark.parametrize(
    "topic",
    ["四无量心里的舍，是不是就是对什么人什么事都不在乎？", "八正道里的正精进，具体是要在哪些事情上精进？"],  # r22
)
def test_a_topic_that_shares_only_particles_with_a_theme_is_not_called_near_it(default_pack, md, topic):
    # r22: 的舍 / 不在 / 都不 / 要在 took these to 布施与供养 and 持戒, and the top called them the literally nearest
    from debate_core.content.arguments import bank_of
    from debate_core.content.theme_choice import nearest_theme

    assert nearest_theme(bank_of(default_pack), topic) is None
    d = md.run(md.prepare(DebateConfig(topic=topic)))
    assert not any("字面最接近" in w for w in d.warnings)
    assert any("没有对上所据资料里的任何议题" in w for w in d.warnings), d.warnings


def test_a_word_inside_a_longer_word_that_means_something_else_matches_no_case(default_pack):
    # r22: 朋友 in 男朋友 took a question on a cheating boyfriend to the case on losing old friends,
    # 小白 in 小白鼠 a lab worker's question to the beginner's case
    from debate_core.content.arguments import bank_of

    bank = bank_of(default_pack)
    friends = next(c for c in bank.cases if "朋友越来越少" in c.question)
    assert friends.matches("学佛以后朋友越来越少，不想来往了")
    assert not friends.matches("我男朋友劈腿了，我想永远不来往")
    assert "朋友" not in friends.hits("我男朋友劈腿了，我想永远不来往")
