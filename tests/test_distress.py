"""A question that speaks of ending one's life, or of not being able to go on, carries a notice first (r20)."""

from __future__ import annotations

import pytest

from debate_core.content.distress import NOTICE, distress_notice
from debate_core.engines.offline import OfflineEngine
from debate_core.models import DebateConfig
from debate_core.protocols.master import MasterDebate
from debate_core.render.master import render_master


@pytest.mark.parametrize(
    ("topic", "notice"),
    [
        ("我考研失败两次，觉得活着毫无意义，该怎么办？", True),
        ("最近总想一死了之，念佛能帮我吗？", True),
        ("女儿自杀了，我不知道该怎么活下去", True),
        ("我很怕死，学佛能让人不再怕死吗？", False),
        ("想死后去哪里，这个问题佛教怎么看？", False),
        ("念佛时杂念很多，怎么办？", False),
    ],
)
def test_the_notice_reads_distress_not_death_in_general(topic, notice):
    assert bool(distress_notice(topic)) is notice


def test_a_debate_on_such_a_question_opens_with_the_notice(default_pack):
    md = MasterDebate(default_pack, OfflineEngine(default_pack))
    d = md.run(md.prepare(DebateConfig(topic="我考研失败两次，觉得活着毫无意义，该怎么办？")))
    assert d.warnings[0] == NOTICE
    text = render_master(d, plain=True)
    assert text.index(NOTICE) < text.index("### R1")  # before any speech
    plain = md.run(md.prepare(DebateConfig(topic="念佛时杂念很多，怎么办？")))
    assert NOTICE not in plain.warnings
