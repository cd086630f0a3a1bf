"""The structural readings of no_verdict and no_dialogue on honest speech (issue 24).

The offline engine's own speeches once failed these readings (docs/checks.md, "The offline engine's speeches"):
a reliance read as a ranking, a stage of one path read as a rank or a verdict, an order of steps read as a ranking
declared settled, a state of mind's appraisal read as a side's, a habit read as a person in a scene.  Each principle
is asserted here in our own words: honest sentences that must pass, and near twins that must still fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from debate_core.checks import check_no_dialogue, check_no_verdict
from debate_core.engines.offline import OfflineEngine
from debate_core.models import DebateConfig
from debate_core.protocols.master import MasterDebate
from tests.check_corpus_support import opening_context as _ctx


# (speaker, opponent, honest sentence that passes, its near twin that fails)
VERDICT = {
    # reliance is not a comparison: what one leans on (仗佛力, 靠自力) names no side; two schools named still rank
    "reliance": (
        "yinguang",
        "huineng",
        "本宗常说：单靠自力出离，如同一人挑担走远路；仰仗佛力往生，如同把担子放上车。",
        "本宗常说：禅门单靠自力出离，如同一人挑担走远路；净土仰仗佛力往生，如同把担子放上车。",
    ),
    # a stage inside one path is not a rank of sides: the path's own first stage; two paths ranked still fail
    "stage of a path": (
        "mahasi-sayadaw",
        "ajahn-chah",
        "依《清净道论》，七清净的第一是戒清净，其次才是心清净。",
        "论到修行的门径，七清净第一，三士道第二。",
    ),
    "stage counted": (
        "mahasi-sayadaw",
        "ajahn-chah",
        "修七清净，第一站是把戒守好。",
        "诸家修法排下来，七清净当属第一。",
    ),
    # a stage reached (直到 / 等到 … 才算真正 …) is not a side made the true one
    "stage reached": (
        "tsongkhapa",
        "atisha",
        "道次第讲出离心：先断对今生的贪恋，再断对来世安乐的贪恋，等到对轮回的一切繁华都不再动心，"
        "才算真正发起了出离心。",
        "说到底，道次第才算真正的成佛之路。",
    ),
    # an order of steps declared clear is not a ranking settled: a measure needs two sides named; a contest none
    "order of steps": (
        "yinguang",
        "huineng",
        "先把每天念佛的功课定下来，再去安排家里的事，这个先后本末分明。",
        "禅净两家的本末，至此已经分明。",
    ),
    "contest settled": (
        "yinguang",
        "huineng",
        "先把每天念佛的功课定下来，再去安排家里的事，这个先后本末分明。",
        "胜负已经不言而喻。",
    ),
    # an appraisal said of a state of mind (昏沉很快又来, 看清昏沉沉重、模糊) is not said of the side named before it
    "state of mind": (
        "mahasi-sayadaw",
        "xuyun",
        "初参话头的人，口里只是念一句话，昏沉很快又来；用标记法时，就看清昏沉沉重、模糊的样子。",
        "参话头的路很直截；标记法的路却很迂回。",
    ),
    # letting go of nothing in particular (放下，专念…) drops no side; letting go of a side's emblem does
    "nothing dropped": (
        "yinguang",
        "huineng",
        "病重的时候，放下专念一句佛号就好。",
        "病重的时候，放下话头专念一句佛号就好。",
    ),
    "a wish to leave noted": (
        "mahasi-sayadaw",
        "ajahn-chah",
        "起了厌烦就标记厌烦，想离开就标记想离开。",
        "想离开森林就改修标记法。",
    ),
    # advising not to split two things joins them; advising to stop one drops it
    "joined, not split": ("zhiyi", "fazang", "诸位不必把止观与念佛分开来看。", "诸位不必再去修止观了。"),
}

DIALOGUE = {
    # a habit or an affliction as the agent is no person in a scene; the speaker as the agent in a scene is
    "habit as agent": (
        "huineng",
        "atisha",
        "阿底峡尊者讲四力忏悔，我部分接受：人转了一念，旧习还会拉他回去。",
        "阿底峡尊者讲四力忏悔，我部分接受：那年他转身要走，我又拉他回去。",
    ),
    # a pronoun after someone outside the pack (朋友, 习气重的人) stands for him, not for the master named before
    "a friend, not the master": (
        "mahasi-sayadaw",
        "ajahn-chah",
        "阿姜查尊者这一点我同意：朋友难过时，我先陪着他。",
        "阿姜查尊者那年来仰光，临走时我陪着他走到寺门。",
    ),
    "someone with deep habits": (
        "huineng",
        "yinguang",
        "印光大师讲念佛，我也认同：习气重的人一回头，我便扶他一把。",
        "印光大师那年来曹溪，下山时我便扶他一把。",
    ),
}


@pytest.mark.parametrize("key", list(VERDICT))
def test_no_verdict_passes_the_honest_sentence_and_fails_its_twin(key, default_pack):
    speaker, opponent, honest, twin = VERDICT[key]
    ctx = _ctx(default_pack, speaker, opponent)
    f = check_no_verdict(honest, ctx)
    assert f.passed, (key, honest, f.message)
    assert not check_no_verdict(twin, ctx).passed, (key, twin)


@pytest.mark.parametrize("key", list(DIALOGUE))
def test_no_dialogue_passes_the_honest_sentence_and_fails_its_twin(key, default_pack):
    speaker, opponent, honest, twin = DIALOGUE[key]
    ctx = _ctx(default_pack, speaker, opponent)
    f = check_no_dialogue(honest, ctx)
    assert f.passed, (key, honest, f.message)
    assert not check_no_dialogue(twin, ctx).passed, (key, twin)


# the cases whose offline debates the readings once failed (docs/checks.md lists the sentences)
ENGINE_CASES = [
    "dying/talk-funeral-with-parents",
    "precepts/drinking-a-little",
    "renunciation/heartbreak-ordination",
    "repentance-karma/wronged-someone",
    "self-other-power/weak-capacity",
    "self-other-power/leave-it-to-buddha",
]


def test_the_offline_engines_debates_on_the_cases_once_flagged_pass_both_rules(default_pack):
    """End to end: the offline engine debates each question (the protocol choosing the masters, as the app
    does) and every speech kept passes no_verdict and no_dialogue (bench/engine_checks.py runs every case)."""
    questions = {}
    for f in sorted((Path(default_pack.path) / "master-debate" / "cases").glob("*.yaml")):
        for case in yaml.safe_load(f.read_text(encoding="utf-8")).get("cases") or []:
            questions[case["id"]] = case["question"]
    md = MasterDebate(default_pack, OfflineEngine(default_pack))
    for cid in ENGINE_CASES:
        assert cid in questions, f"case {cid} is gone from the pack: pick another the readings once failed"
        d = md.run(md.prepare(DebateConfig(topic=questions[cid])))
        assert d.rounds
        for sp in d.rounds:
            bad = [f.message for f in sp.findings if f.rule in ("no_verdict", "no_dialogue") and not f.passed]
            assert not bad, (cid, sp.round, sp.speaker, bad)
