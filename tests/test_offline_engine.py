"""The offline engine argues from the argument bank and says only what its plan holds.

Property tests over every ordered pair of the default pack and over the development topics
(tests/fixtures/topics/dev.txt) on every pack: the default one, the upstream one when present and
tests/fixtures/master-skill-mini.  What is asserted of every debate:

- every sentence that describes the speech (理由有三, 讲了三点, 我接受, 两家都承认, 暂不辩驳 …)
  has its plan entries, and the old fixed frames that claimed engagement never appear;
- every citation follows a text of the plan point cited to that source, and that source is
  the speaker's own;
- no words of a critique aimed at a master who is not in the debate;
- every 反驳 answers each point it restates, or says it does not;
- every speech's content is on the debate's theme, or the debate says at its top that the
  topic matched no theme / a master has no position on it;
- where R1 quotes the topic, it quotes it whole.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from debate_core.analysis.plan_audit import NEVER, all_faults
from debate_core.content.arguments import bank_of
from debate_core.content.pairing import choose_pair, row_theme
from debate_core.content.plan import plan_speech
from debate_core.engines.offline import OfflineEngine
from debate_core.engines.offline.compose import bare
from debate_core.models import DebateConfig, SpeechRequest
from debate_core.protocols.master import MasterDebate

TOPICS = [t for t in (Path(__file__).parent / "fixtures/topics/dev.txt").read_text(encoding="utf-8").splitlines()
          if t.strip() and not t.startswith("#")]
def _run(pack, topic, masters=None, rounds=None):
    md = MasterDebate(pack, OfflineEngine(pack))
    return md.run(md.prepare(DebateConfig(topic=topic, masters=list(masters or []), rounds=rounds)))


# ------------------------------------------------------------------ the properties


def test_every_ordered_pair_of_the_default_pack(default_pack):
    pack = default_pack
    slugs = sorted(pack.masters)
    faults = []
    for i, a in enumerate(slugs):
        for j, b in enumerate(slugs):
            if a == b:
                continue
            topic = TOPICS[(i * len(slugs) + j) % len(TOPICS)]
            d = _run(pack, topic, (a, b))
            assert d.status == "completed", (a, b, d.stop_reason)
            faults += [f"{a}/{b} {topic}: {f}" for f in all_faults(d, pack)]
    assert not faults, "\n".join(faults[:30])


@pytest.mark.parametrize("topic", TOPICS)
def test_routed_debates_on_the_development_topics(any_pack, topic):
    d = _run(any_pack, topic)
    assert d.status == "completed"
    faults = all_faults(d, any_pack)
    assert not faults, "\n".join(faults)


def test_routing_only_produces_pairs_with_objections_both_ways(default_pack):
    bank = bank_of(default_pack)
    for topic in TOPICS:
        c = choose_pair(topic, default_pack)
        ab, ba = len(bank.objections(c.a, c.b)), len(bank.objections(c.b, c.a))
        assert ab >= 3 and ba >= 3, (topic, c.a, c.b, ab, ba, c.reason)


def test_the_default_bank_is_complete(default_pack):
    bank = bank_of(default_pack)
    assert not bank.derived and not bank.problems, bank.problems[:5]
    assert len(bank.themes) >= 30
    for slug in default_pack.masters:
        assert len(bank.positions.get(slug, [])) >= 8, slug
    assert len(bank.pairs) >= 15
    for key, pb in bank.pairs.items():
        a, b = pb.pair
        for by, at in ((a, b), (b, a)):
            objs = bank.objections(by, at)
            assert len(objs) >= 3, (key, by)
            answered = {r.to for r in pb.replies if r.by == at}
            assert len(answered & {o.id for o in objs}) >= 2, (key, at)


def test_a_rebuttal_answers_the_points_its_summary_carries(default_pack):
    """R2 restates exactly the gists the R1 summary carries and aims an objection at each one."""
    d = _run(default_pack, "开悟是一下子的事，还是要一步步修？", ("huineng", "zhiyi"))  # no case: the theme
    r1, r2 = d.rounds[0], d.rounds[1]
    summary = d.summaries[0].text
    gists = [x.gist for x in r1.plan.of("reason")]
    assert all(g in summary for g in gists) and len(summary) <= 80
    restated = r2.plan.of("restate")
    assert [x.target for x in restated] == [f"huineng:sudden-gradual#{i}" for i in (1, 2, 3)]
    for x in r2.plan.of("answer"):
        assert x.target in {y.target for y in restated} and bare(x.text) in r2.text
    assert r2.text.startswith("慧能上一轮所说，一是人有利钝，二是一念悟即佛，三是悟后念念自净。")


def test_a_response_meets_the_objections_the_rebuttal_raised(default_pack):
    d = _run(default_pack, "开悟是一下子的事，还是要一步步修？", ("huineng", "zhiyi"))  # no case: the theme
    r2, r3 = d.rounds[1], d.rounds[2]
    raised = {x.ref for x in r2.plan.of("answer")}
    met = {x.target for x in r3.plan.of("accept", "partly", "hold")}
    assert raised and met == raised


def test_thin_material_is_short_and_said_at_the_top(default_pack):
    """A master with no position on the theme speaks briefly, and the debate says so first."""
    bank = bank_of(default_pack)
    for a in sorted(default_pack.masters):
        for b in sorted(default_pack.masters):
            if a != b and bank.position(a, "killing-vegetarian") and not bank.position(b, "killing-vegetarian") \
                    and not row_theme(a, b):
                d = _run(default_pack, "吃素和护生怎么看？", (a, b))
                name = default_pack.masters[b].name
                assert any(name in w and "没有" in w for w in d.warnings)
                thin = [s for s in d.rounds if s.speaker == b]
                assert all(s.plan.material == "none" and len(s.text) < 200 for s in thin)
                assert not any(bad in s.text for s in thin for bad in NEVER)
                return
    pytest.skip("every master holds a position on killing-vegetarian")


def test_the_plan_is_built_without_earlier_speeches(default_pack):
    """The planner sees the summary, not the text: a changed summary changes what R2 restates."""
    bank = bank_of(default_pack)
    args = dict(topic="顿悟与渐修", role="反驳", round_no=2, speaker="zhiyi", opponent="huineng",
                row_theme=row_theme("zhiyi", "huineng"))
    full = plan_speech(bank, opponent_summary=_run(default_pack, "顿悟与渐修", ("huineng", "zhiyi")).summaries[0].text,
                       **args)
    none = plan_speech(bank, opponent_summary="", **args)
    assert len(full.of("restate")) == 3 and not none.of("answer")
    assert set(SpeechRequest.model_fields) >= {"opponent_summary", "plan"} and "rounds" not in SpeechRequest.model_fields


def test_the_plan_is_stored_and_exported(default_pack, tmp_path):
    from debate_core.archive import open_archive
    from debate_core.io.exporters import to_json_text

    arc = open_archive(tmp_path / "a.duckdb")
    md = MasterDebate(default_pack, OfflineEngine(default_pack), recorder=arc)
    d = md.run(md.prepare(DebateConfig(topic="生气的时候该怎么办？")))
    back = arc.get_debate(d.id)
    assert [s.plan for s in back.rounds] == [s.plan for s in d.rounds] and all(s.plan for s in back.rounds)
    assert '"plan"' in to_json_text(back)
