"""Reading an opponent's summary (content/summaries.py): which of the bank's gists it carries."""

from __future__ import annotations

from debate_core.content.summaries import raised_objections, restated_points
from debate_core.plans import Objection, Position, Reason


def _obj(n: int, gist: str) -> Objection:
    return Objection(id=f"o{n}", by="nagarjuna", target=f"buddhaghosa:t#{n}", text=gist, gist=gist)


def test_a_near_gist_is_not_read_into_a_summary_that_carries_its_neighbour_verbatim():
    # r13: a 回应 restated 慧地亦无自性 from a summary that said 刹那亦无自性 (three of five word pairs shared)
    objs = [_obj(1, "刹那亦无自性"), _obj(2, "慧地亦无自性")]
    assert [o.gist for o in raised_objections(objs, "龙树驳：刹那亦无自性；无生成全因果。")] == ["刹那亦无自性"]
    # a near match still counts where no verbatim gist explains it (a model's summary, in its own words)
    assert [o.gist for o in raised_objections(objs, "龙树驳：慧地也无自性。")] == ["慧地亦无自性"]


def test_a_reason_is_read_the_same_way():
    pos = Position(
        master="nagarjuna",
        theme="t",
        claim="诸法无自性",
        reasons=[Reason(text="甲", gist="刹那亦无自性"), Reason(text="乙", gist="慧地亦无自性")],
    )
    assert restated_points(pos, "龙树立：刹那亦无自性。") == [1]
    assert restated_points(pos, "龙树立：刹那亦无自性；慧地亦无自性。") == [1, 2]
