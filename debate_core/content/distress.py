"""A question that speaks of ending one's life, or of not being able to go on, gets a notice before any speech.

r20's readers found a student's 「我却觉得活着毫无意义」 answered by a debate on filial piety that closed on
「求生是归宿」, with nothing that acknowledged the distress or pointed to help: "nothing in the engine notices that
a question carries risk". The debate still runs (the asker may want the masters' views, and a bereaved parent's
「不知道该怎么活下去」 is grief, not only risk), but its top first says, in the debate's language, where help is.
"""

from __future__ import annotations

import re

# the asker (or someone near him) speaks of not wanting to live or of ending a life; 想死后… (after death) and
# 怕死 (fear of dying) are not among them
_DISTRESS = re.compile(
    r"不想活|活着(?:真|都|还)?(?:没意思|没有意思|没意义|没有意义|毫无意义|有什么意义|有什么意思)|活够了|活不下去|怎么活下去"
    r"|想死(?!后|亡|了以后)|想自杀|自杀|轻生|寻死|自尽|自残|割腕|跳楼|一死了之|死了算了|不如死了|了结自己|结束自己"
    r"|结束生命|撑不下去了|不想再活"
)

NOTICE = (
    "⚠️ 题中说到了活不下去或轻生的念头。如果你或身边的人此刻有伤害自己的想法，请马上告诉一位信任的人，"
    "或拨打当地的心理援助热线、急救电话。下面是两位古人的看法，不能代替此刻需要的帮助。"
)


def distress_notice(topic: str) -> str:
    """The notice a debate on ``topic`` carries first, or "" when the topic speaks of no such thing."""
    return NOTICE if _DISTRESS.search(topic or "") else ""
