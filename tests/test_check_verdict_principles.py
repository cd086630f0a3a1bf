"""What makes a sentence a verdict between sides (issue 24, the r5 tuning): one principle per entry, asserted in
sentences of our own — a sentence that rules on the debate, and an honest near twin that must pass.

The principles (docs/checks.md, no_verdict): two sides set in an order (one still behind, the other already ahead;
one gone where the other cannot see; one never leaving the other's hand; one placed below in an order), a side made
partial or provisional and the other complete (尚是… / 方是…; 只画了… / 补上…才算; a tool to be thrown aside once
outgrown), two sides each made an image after an image set up first, a side staked on, the reader sent to spend
himself on one side rather than another, and which side weighs more declared settled.  And honest shapes the r5
traps and the engine showed: marks that measure a noun (三分诚心得三分感应) are no score, a turn of path told as one's
past (后来才转学大乘) is no advice, a fault mended (劝…改过) leaves no side, and a pair of people outside the pack
(两位僧人) is no meeting of masters; a note of a speech's own length in brackets (共五百余字) is a hygiene fault.
"""

from __future__ import annotations

import pytest

from debate_core.checks import check_hygiene, check_no_dialogue, check_no_verdict
from tests.check_corpus_support import opening_context as _ctx


# principle -> (speaker, opponent, verdict that must fail, honest near twin that must pass)
VERDICTS = {
    "still behind, already ahead": (
        "zhiyi",
        "huineng",
        "修禅宗的人还在山脚下打听路，学天台的人早已过了半山。",
        "修禅宗的人还在山脚下打听路，这时候最要紧的是认准方向。",
    ),
    "provisional against final": (
        "nagarjuna",
        "xuanzang",
        "照本宗看，唯识尚是方便安立之说；中观方是究竟之说。",
        "照本宗看，名相尚是方便安立之说；离言之处，方见实相。",
    ),
    "partial, then completed": (
        "fazang",
        "xuanzang",
        "唯识只画了万法唯识的骨架；华严补上重重无尽的血肉，这幅画才算完整。",
        "初学的人只读了《法华》的前几品；读完全经，才知道开权显实的用意。",
    ),
    "gone where the other cannot see": (
        "huineng",
        "yinguang",
        "禅门这一路，早已走到了净土行人望不见的地方。",
        "禅门这一路，要走到连自己的影子也望不见的地方，才算放下。",
    ),
    "never leaving the other's hand": (
        "nagarjuna",
        "xuanzang",
        "唯识讲了千言万语，终究跳不出中观的手心。",
        "凡夫讲了千言万语，终究跳不出一个我执的圈子。",
    ),
    "placed below in an order": (
        "zhiyi",
        "huineng",
        "禅门说得再痛快，放进五时八教里，也只能排在圆教的门外。",
        "禅门说得再痛快，放进五时八教里，也要看它讲的是哪一时的教法。",
    ),
    "a side staked on": (
        "xuanzang",
        "kumarajiva",
        "真要下注的话，本宗会把一生都押在唯识这一边。",
        "真要下功夫的话，本宗会把一生都用在唯识的名相上。",
    ),
    "the reader spent on one side rather than another": (
        "huineng",
        "yinguang",
        "诸位若只有一个下午，宁可拿来参话头，也别拿去数念珠。",
        "诸位若只有一个下午，宁可拿来参话头，也别拿去闲谈。",
    ),
    "two images after an image set up": (
        "yinguang",
        "huineng",
        "譬如过河，参禅是蹚水，念佛是坐船，一样的河，坐船的人个个上了岸。",
        "譬如过河，先要看清河有多宽，再说怎么过。",
    ),
    "a tool outgrown": (
        "kumarajiva",
        "xuanzang",
        "唯识的名相好比学骑车时的辅助轮，等到骑稳了，这两个轮子也就该扔掉了。",
        "唯识的名相好比学骑车时的辅助轮，初学的人扶着它，慢慢就骑稳了。",
    ),
    "which side weighs more, settled": (
        "yinguang",
        "huineng",
        "禅净两家摆在一处，天平往哪边沉，本宗心里早已有数。",
        "禅净两家摆在一处，本宗心里只想着末法众生怎样出离。",
    ),
    "which is the better bargain, settled": (
        "yinguang",
        "huineng",
        "一生的光阴，拿去参话头还是拿去念佛号，哪一样划算，不问可知。",
        "一生的光阴，拿去念佛号，要念得字字分明，这一点不问可知。",
    ),
    "one side's people all succeed, the other's end with little": (
        "yinguang",
        "huineng",
        "参禅的人用功一生，多半只落得几句机锋；念佛的人念到老，个个都有着落。",
        "念佛的人念到老，个个都要信愿真切，一句佛号不离口。",
    ),
    "single characters in an analogy": (
        "yinguang",
        "huineng",
        "禅之于净，犹小舟之于巨舰，其不相及也明矣。",
        "禅者观心，净者念佛，各守其门。",
    ),
}

# honest shapes the r5 traps showed, each with a twin that still fails
HONEST = {
    "marks that measure a noun are no score": (
        "yinguang",
        "huineng",
        "三分诚心得三分感应，七分诚心得七分感应，这是本宗常说的话。",
        "要本宗打个分的话，念佛可得九分，参禅只得六分。",
    ),
    "a turn told as one's past is no advice": (
        "kumarajiva",
        "xuanzang",
        "本宗早年先学小乘经论，后来遇到大乘的师父，才转学大乘。",
        "学人当舍唯识，转学中观。",
    ),
    "a fault mended is no side left": (
        "yinguang",
        "huineng",
        "劝家里人改过向善、老实念佛，这一番心意本宗赞同。",
        "奉劝参禅的人及早改修念佛。",
    ),
}


@pytest.mark.parametrize("key", list(VERDICTS))
def test_a_verdict_fails_and_its_honest_twin_passes(key, default_pack):
    speaker, opponent, verdict, honest = VERDICTS[key]
    ctx = _ctx(default_pack, speaker, opponent)
    assert not check_no_verdict(verdict, ctx).passed, (key, verdict)
    f = check_no_verdict(honest, ctx)
    assert f.passed, (key, honest, f.message)


@pytest.mark.parametrize("key", list(HONEST))
def test_an_honest_shape_passes_and_its_verdict_twin_fails(key, default_pack):
    speaker, opponent, honest, verdict = HONEST[key]
    ctx = _ctx(default_pack, speaker, opponent)
    f = check_no_verdict(honest, ctx)
    assert f.passed, (key, honest, f.message)
    assert not check_no_verdict(verdict, ctx).passed, (key, verdict)


def test_a_pair_outside_the_pack_is_no_meeting_of_masters(default_pack):
    ctx = _ctx(default_pack, "huineng", "yinguang")
    honest = "当年两位僧人对着一面旗子争论不休，本宗只说是心在动。"
    f = check_no_dialogue(honest, ctx)
    assert f.passed, f.message
    assert not check_no_dialogue("那年本宗与印光大师在寺中，两位大师争论不休。", ctx).passed


def test_a_bracketed_note_of_the_speech_length_is_a_hygiene_fault(default_pack):
    ctx = _ctx(default_pack, "zhiyi", "huineng")
    assert not check_hygiene("止观二门，本宗讲到这里。（本轮立论到此，共五百余字）", ctx).passed
    assert check_hygiene("止观二门，本宗讲到这里。（《摩诃止观》卷一）", ctx).passed


def test_a_master_named_as_a_place_passed_through_is_no_person(default_pack):
    ctx = _ctx(default_pack, "zhiyi", "huineng")
    f = check_no_dialogue("那年本宗南下，绕道曹溪，只为看一看南华寺的山门。", ctx)
    assert f.passed, f.message
    assert not check_no_dialogue("那年本宗南下，绕道曹溪，与六祖同游南华。", ctx).passed


def test_classical_address_to_the_speaker_is_a_scene(default_pack):
    ctx = _ctx(default_pack, "xuanzang", "kumarajiva")
    assert not check_no_dialogue("昔罗什法师谓余曰：经论如舟，到岸当舍。", ctx).passed
    f = check_no_dialogue("罗什法师论中谓经论如舟，余以为未到岸者不可无舟。", ctx)
    assert f.passed, f.message


def test_a_verdict_phrase_is_named_once_not_with_the_pieces_inside_it(default_pack):
    # 唯一的出路 and 乃是唯一 inside 乃是唯一的出路 said nothing more, and pushed the next finding's note number on
    f = check_no_verdict("依我看，净土法门远胜禅宗，乃是唯一的出路。", _ctx(default_pack, "yinguang", "huineng"))
    phrases = [d.args["phrase"] for d in f.details if d.code == "no_verdict.hit"]
    assert not f.passed and phrases == ["远胜", "乃是唯一的出路"], phrases
