"""A case whose own question contradicts the topic (who died, which animal, whose matter) is not its case.

The topics here are from burned blind-read sets (r15–r18), where readers scored such debates 1: the answer was
right for another asker.
"""

from __future__ import annotations

import re

import pytest

from debate_core.content.arguments import bank_of
from debate_core.content.situation import actor, contradiction, fitting_cases, situation, stage, undergoes


@pytest.mark.parametrize(
    ("text", "died"),
    [
        ("我母亲上个月因癌症去世，这份愧疚怎么放下？", True),
        ("母亲上个月走了，我总梦见她在哭", True),
        ("家里养了十二年的狗刚走了，给它念经回向有用吗？", True),
        ("老伴走后儿女都在外地，晚上一个人孤单", True),
        ("照顾他三年我已筋疲力尽，有时甚至盼他早点走", False),
        ("有时突然心跳很快，觉得自己快要死了", False),
        ("女儿养的兔子死了，她哭个不停", True),
        ("他快要死了，我该怎么陪他", False),
        ("女儿自杀了，我怎么活下去", True),
        ("我们同意停止治疗，妈妈没几天就走了", True),
        ("女儿车祸没了以后，妻子一直怪我", True),
        ("他差点猝死，现在还在医院", False),
        ("钱就没了，我很后悔", False),
        ("放生活动买来的鱼很多放下去就死了", False),
        ("大脑死了意识就没了，轮回转世跟现代科学矛盾吗？", False),
        ("我的室友去年得了肺癌走了，才三十岁", True),  # r21
        ("同事去年病没了，我到现在还会想起他", True),
        ("我这个病走了好多家医院都看不好", False),
    ],
)
def test_died_reads_a_death_not_a_wish_or_a_fear(text, died):
    assert situation(text).died is died


def test_the_askers_own_role_is_not_whom_the_question_is_about():
    assert situation("做父母的该怎么帮她？").people == frozenset()
    assert situation("我是医院的护士，天天看病人受苦").people == frozenset()
    assert situation("女儿三十多岁了，做父母的该怎么帮她？").people == {"child"}


@pytest.mark.parametrize(
    ("topic", "question", "why"),
    [
        # the same act, done by another: the words the case matched say which act (r18 A: a wronged wife
        # given the advice meant for the husband who lost the money)
        # someone died / the case is about the living
        (
            "我母亲上个月因癌症去世，我总觉得是我没早点带她去检查，这份愧疚怎么放下？",
            "刚查出得了重病，心里一下子崩溃了，该怎么面对？",
            "has died",
        ),
        # the case speaks of a death the topic has not had
        (
            "父亲肺癌晚期，医生问要不要插管抢救，做子女的放弃算不算不孝？",
            "我爸临终时医生说救不回来了，我签字放弃了插管抢救，现在总觉得是我害死了他，怎么办？",
            "has died",
        ),
        # another animal
        ("家里养了十二年的狗刚走了，给它念经回向有用吗？", "养的猫死了，它现在去了哪里？", "dog"),
        # one mourns an animal, the other a person
        (
            "女儿养的兔子死了，她哭个不停，我该怎么跟她讲？",
            "家里老人去世了，年幼的孩子一直问爷爷奶奶去了哪里",
            "animal",
        ),
        # a family member's matter against the asker's own
        (
            "我儿子十五岁，最近总说学佛是迷信还顶撞我，我该逼他跟我去寺里吗？",
            "佛教到底是宗教还是哲学？不信鬼神、不拜佛，也能学佛吗？",
            "child",
        ),
        # two different kinds of person
        (
            "医生说我母亲只剩三个月，她一直追问我病情，我该说实话还是善意隐瞒？",
            "为了不伤朋友的心，说善意的谎言可以吗？",
            "parent",
        ),
    ],
)
def test_a_contradicting_case_is_named_with_its_reason(topic, question, why):
    assert why in contradiction(topic, question)


@pytest.mark.parametrize(
    ("topic", "question", "words", "by"),
    [
        (
            "丈夫炒股亏了家里三十万，我一想到就恨得睡不着，怎么才能原谅他？",
            "炒股亏掉了大半积蓄，不敢告诉家人，天天睡不着",
            ["炒股", "睡不着"],
            "spouse",
        ),
        ("儿子偷偷拿家里的钱打赏主播，我该怎么办？", "我忍不住拿钱打赏主播，停不下来", ["打赏"], "child"),
    ],
)
def test_the_same_act_done_by_a_family_member_is_another_matter(topic, question, words, by):
    assert f"done by {by}" in contradiction(topic, question, words)
    assert contradiction(topic, topic, words) == ""


def test_one_act_named_by_two_words_of_a_match_group_is_compared_by_its_doer(default_pack):
    """r28: a father's temper (脾气越来越暴躁) got the case of the asker's own (跟家里人说话总忍不住发火): the topic and
    the question name the act by different words of one match group.  A group that holds an act and its object
    (催婚 / 相亲) does not refuse a case another group agrees on: 我妈逼我相亲 is still the parents' urging."""
    bank = bank_of(default_pack)
    generic = set(bank.generic)

    def why(topic: str, question_start: str) -> str:
        case = next(c for c in bank.cases if c.question.startswith(question_start))
        words = [w for w in case.hits(topic) if w not in generic]
        assert case.matches(topic), "the case no longer matches: pick another example"
        return contradiction(topic, case.question, words, None, case.match)

    father = "我爸七十多岁了脾气越来越暴躁，动不动就骂我妈，做儿女的是该劝他还是该顺着他？"
    assert why(father, "跟家里人说话总忍不住发火") == (
        "in the topic 脾气 is done by parent, in the case's question 发火 by self"
    )
    assert all(not c.question.startswith("跟家里人说话总忍不住发火") for c in fitting_cases(bank, father))
    assert why("我跟我妈说话总是忍不住发火，事后又后悔", "跟家里人说话总忍不住发火") == ""
    assert why("我妈总逼我相亲，学佛的人该怎么面对？", "父母天天催婚催生") == ""


@pytest.mark.parametrize(
    ("topic", "question"),
    [
        # the same kind of person, another word for it
        ("我父亲中风瘫痪在床，照顾他三年我已筋疲力尽", "照顾瘫痪的妈妈好几年了，累到有时心里盼着这一切早点结束"),
        # both about a death, by different words
        ("母亲上个月走了，我总梦见她在哭，是不是她还没去好地方？", "梦见去世的亲人或佛菩萨，是有什么预兆吗？"),
        ("老伴走后儿女都在外地，晚上一个人孤单得常掉眼泪。", "老伴走了以后，一个人过日子，怎么熬过去？"),
        # 宠物 goes with any animal
        (
            "家里的猫老了病得很痛苦，兽医建议安乐死，这样做算杀生吗？",
            "家里养的宠物老了、病得很重，医生建议安乐死，这算杀生吗？",
        ),
        # a word for the family as a whole goes with any kind of person
        ("医生说我母亲只剩三个月，她一直追问我病情", "家里人得了癌症，要不要把病情告诉他本人？"),
        # a colleague named on one side only is not a contradiction (公司让我… / 领导让我…)
        ("公司让我在报表上做假账，不做可能被裁员", "领导让我改数据、做假报告，不照做怕丢工作"),
        ("做销售每周都要应酬，客户劝酒不喝就丢单，受了五戒该怎么办？", "生意应酬时不喝酒说不过去，受了五戒怎么办？"),
    ],
)
def test_a_case_that_fits_is_kept(topic, question):
    assert contradiction(topic, question) == ""


@pytest.mark.parametrize(
    ("text", "word", "by"),
    [
        ("丈夫炒股亏了家里三十万", "炒股", "spouse"),
        ("炒股、炒币亏掉了大半积蓄", "炒股", "self"),
        ("妈妈让我学佛，我又总学不进去", "学佛", "self"),
        ("我又忍不住炒股了", "炒股", "self"),
        ("母亲上个月刚去世", "去世", "parent"),
        ("给去世的亲人回向", "回向", "self"),  # it opens on whom the act is for: the asker does it
        ("跟家里人说话总忍不住发火", "发火", "self"),
        ("对方总是发火", "发火", ""),  # 对方 names a person: not the asker's act
        ("和尚说话很冲", "很冲", ""),
        ("在单位里总是受气", "受气", ""),  # a clause that opens with neither: cannot be told
        ("我想学佛", "念佛", ""),  # the word is not there
    ],
)
def test_actor_reads_who_stands_right_before_the_act(text, word, by):
    assert actor(text, word) == by


def test_every_case_fits_its_own_question(default_pack):
    bank = bank_of(default_pack)
    assert bank.cases
    for c in bank.cases:
        assert contradiction(c.question, c.question) == "", c.id
        assert c in fitting_cases(bank, c.question), c.id


def test_a_debate_does_not_answer_a_contradicting_case(default_pack):
    """End to end: the offline debate on a grief question is not argued as a fresh diagnosis (r18 A01)."""
    from debate_core.engines.offline import OfflineEngine
    from debate_core.models import DebateConfig
    from debate_core.protocols.master import MasterDebate

    topic = "我母亲上个月因癌症去世，我总觉得是我没早点带她去检查，这份愧疚怎么放下？"
    bank = bank_of(default_pack)
    refused = [c for c in bank.cases_for(topic) if contradiction(topic, c.question)]
    assert refused, "the bank no longer holds a contradicting case for this topic: pick another example"
    md = MasterDebate(default_pack, OfflineEngine(default_pack))
    debate = md.run(md.prepare(DebateConfig(topic=topic)))
    text = "\n".join(r.text for r in debate.rounds)
    for c in refused:
        assert c.question not in text
        assert all(a.text[:20] not in text for a in c.answers)


@pytest.mark.parametrize(
    ("text", "word", "by"),
    [
        ("我儿子十六岁沉迷游戏不肯上学", "游戏", "child"),
        ("父母坚决反对我吃素", "吃素", "self"),
    ],
)
def test_actor_reads_a_family_member_after_my_and_the_asker_as_object(text, word, by):
    assert actor(text, word) == by


def test_a_near_case_never_tells_the_asker_he_asked_its_question(default_pack):
    # r20: 「你问能不能修出定力」 to someone who asked about thoughts boiling over (the case's 你问… is its own asker)
    from debate_core.engines.offline import OfflineEngine
    from debate_core.models import DebateConfig
    from debate_core.protocols.master import MasterDebate

    md = MasterDebate(default_pack, OfflineEngine(default_pack))
    bank = bank_of(default_pack)
    said = kept = 0
    for c in bank.cases:
        if not any("你问" in a.text + a.then + "".join(m.text for m in a.more) for a in c.answers):
            continue
        d = md.run(md.prepare(DebateConfig(topic="请教一下：" + c.question)))  # the same words: a near case
        if {s.plan.case for s in d.rounds} != {c.id}:
            continue
        text = "".join(s.text for s in d.rounds)
        assert not re.search(r"(?:^|[。！？；，：])你问", text), c.id  # (肯听你问的人 claims nothing)
        said += ("若问" in text) or ("这一问问" in text)
        own = md.run(md.prepare(DebateConfig(topic=c.question)))  # on its own question: said as written
        kept += bool(re.search(r"(?:^|[。！？；，：])你问", "".join(s.text for s in own.rounds)))
    assert said >= 5 and kept >= 5


@pytest.mark.parametrize(
    ("text", "act", "under"),
    [
        ("我在一家公司做催收，每天给欠款人打电话", "催", False),
        ("信用卡逾期，每天被催款电话轰炸", "催", True),
        ("表哥找我借钱买车，借还是不借", "借钱", True),
        ("房子首付还差五万，想向同学借钱", "借钱", False),
        ("朋友骗了我三万块钱", "骗", True),
        ("我年轻时骗过好几个人的钱，现在想忏悔", "骗", False),
        ("我常常无缘无故挨骂", "骂", True),
        ("这个问题里没有这件事", "骗", None),
        ("公司上个月把我开除了", "开除", True),
        ("遇到电信诈骗，钱追不回来", "骗", None),  # a thing named: nobody's act in the question
        ("爸妈天天催婚", "催", None),
    ],
)
def test_undergoes_reads_whether_the_asker_does_the_act_or_has_it_done_to_him(text, act, under):
    assert undergoes(text, act) is under


@pytest.mark.parametrize(
    ("topic", "question"),
    [  # held out of the r21 read: the same reversal in other words
        (
            "我在贷款公司做催收员，天天打电话逼人还钱，心里很不是滋味，还要不要做下去？",
            "欠了网贷被催债，天天接到催款电话怎么办？",
        ),
        ("想结婚但首付差十万，该不该向亲戚借钱？", "亲戚找我借钱，借还是不借？"),
        ("我年轻时骗过朋友的钱，现在学佛了，该怎么忏悔？", "被人骗了一大笔钱，恨得睡不着怎么办？"),
    ],
)
def test_an_act_the_asker_does_is_not_one_he_undergoes(topic, question):
    assert "the asker" in contradiction(topic, question)


def test_a_wrong_that_names_no_victim_is_not_read_as_the_askers_act():
    # 男朋友劈腿了 and 被劈腿 are the same matter: the asker is the one wronged in both
    assert not contradiction("男朋友劈腿了，我要不要原谅他？", "被男朋友劈腿了，心里放不下，怎么办？")
    assert not contradiction("老板拖欠工资半年了，我恨得睡不着", "工钱一直被拖欠，越想越气，怎么办？")
    assert not contradiction(
        "遇到电信诈骗，八万块追不回来，怎么放下？", "被人骗走了一大笔钱，越想越恨，晚上都睡不着，怎么办？"
    )


def test_the_same_side_of_an_act_fits():
    assert not contradiction("网上投资被骗了五万，怎么放下？", "被人骗走了一大笔钱，越想越恨，晚上都睡不着，怎么办？")
    assert not contradiction("亲戚又来找我借钱，上次的还没还，怎么办？", "亲戚开口找我借钱，借还是不借？")


@pytest.mark.parametrize(
    ("text", "st"),
    [
        ("我女儿五岁，总问菩萨为什么不说话", "young"),
        ("两岁的宝宝半夜哭闹", "young"),
        ("孩子上幼儿园总被欺负", "young"),
        ("儿子今年十五岁，沉迷游戏", "teen"),
        ("孩子上了初中就不爱说话", "teen"),
        ("我儿子二十八岁辞职在家", ""),
        ("我今年六十八了，记性越来越差", ""),
    ],
)
def test_stage_reads_a_childs_age(text, st):
    assert stage(text) == st


def test_a_young_childs_question_is_not_a_teenagers_case():
    # r23: a parent of a five-year-old got the case of a teenager who stopped talking (with self-harm signs)
    assert "young" in contradiction(
        "我儿子四岁，每天问我人死了去哪里，我该怎么回答？", "孩子上了初中就不爱跟我说话了，怎么跟青春期的孩子相处？"
    )
    assert not contradiction(
        "女儿十四岁，进了青春期就不理我了，怎么办？", "孩子上了初中就不爱跟我说话了，怎么跟青春期的孩子相处？"
    )


@pytest.mark.parametrize(
    ("text", "dead"),
    [
        ("我爸走了以后，我妈一个人在老家住", {"father"}),
        ("梦见去世的外公来接她", {"grandfather"}),
        ("我妈说奶奶去世了，要不要回去奔丧", {"grandmother"}),  # the one who tells is not the one who died
        ("父亲刚走，家里乱成一团", {"father"}),
        ("老伴病走了半年，我还是睡不着", {"spouse"}),
        ("我母亲上个月癌症去世，临终时我没能赶回去", {"mother"}),
        ("我爸走的时候我在外地", {"father"}),
        ("我妈妈最近总说梦见去世的外公来接她", {"grandfather"}),  # she tells of it; he died
        ("亲人走了以后会去哪里", set()),  # nobody named
        ("外婆快走了，医生让准备后事", set()),  # not yet
        ("岳父去世了，我该不该请假", set()),  # an in-law: not read as the asker's father
    ],
)
def test_deceased_reads_who_died(text, dead):
    from debate_core.content.situation import deceased

    assert set(deceased(text)) == dead


def test_a_death_of_another_relative_is_another_matter():
    # the leak a reader found: 「父亲刚走」 said to someone whose grandfather had died (case: a widowed mother)
    widowed = "我爸走了以后，我妈一个人在老家住，要不要把她接来和我们一起住？"
    why = contradiction("我妈妈最近总说梦见去世的外公来接她，这是不是不好的兆头？", widowed)
    assert "grandfather" in why and "father" in why
    assert not contradiction("父亲去世三个月了，母亲一个人住，我想接她来同住，她不肯", widowed)
    # another relative's death disagrees only when the case's masters name its relative (what they say would
    # tell a mother's child of a father); a case whose texts speak only of 亲人 / 老人家 fits
    missed = "我爸走的时候我在外地，没赶回去见最后一面，一直很自责，怎么办？"
    topic = "我母亲上个月去世，我没能赶回去见最后一面，一直很自责"
    assert contradiction(topic, missed, said="你父亲若在，也不愿你这样自责。")
    assert not contradiction(topic, missed, said="老人家若在，也不愿你这样自责。")
    # a case that names nobody fits any death
    assert not contradiction("外婆走了以后我总梦见她，是她放不下我吗？", "亲人走了以后，现在去了哪里？在那边过得好不好？")


def test_a_pets_case_is_not_a_question_that_names_no_animal():
    pet = "家里养的宠物老了、病得很重，医生建议安乐死，这算杀生吗？"
    assert "pet" in contradiction("病人自己要求安乐死，医生照做算不算杀生？", pet)
    assert "pet" in contradiction("安乐死在佛教里怎么看？", pet)
    assert not contradiction("我家的狗十五岁了，兽医说可以安乐死，我下不了决心", pet)


def test_karma_as_doctrine_is_not_the_case_of_heavy_karma(default_pack):
    """业力 (karma as a force) is no everyday word for 业障: a question of who transmigrates is argued on 无我."""
    from debate_core.content.arguments import bank_of
    from debate_core.content.theme_choice import debate_theme

    bank = bank_of(default_pack)
    topic = "既然佛教说无常无我，那死后继续受报的是哪一个？业力存在哪里？"
    assert all(c.id != "repentance-karma/heavy-karma" for c in fitting_cases(bank, topic))
    assert "repentance-karma/heavy-karma" in [c.id for c in fitting_cases(bank, "我总觉得自己业障深重，怎么忏悔才好？")]
    ch = debate_theme(bank, "没有一个常住的我，那轮回的究竟是谁？", "buddhaghosa", "nagarjuna", "")
    assert ch.theme == "no-self", ch


def test_what_befalls_a_couple_is_the_spouses_matter_too():
    # r24: a husband asking for the child his wife lost got a debate on filial piety (the case refused as her act)
    case = "怀孕几个月孩子没保住，流产了，心里特别难过，能为这个孩子做些什么？"
    assert not contradiction("妻子流产后一直自责睡不着，想给那个孩子做超度，有意义吗？", case, ["流产"])
    # an act that is one person's own stays told apart
    assert contradiction("丈夫炒股亏了家里三十万，怎么才能原谅他？", "炒股亏掉了大半积蓄，天天睡不着，怎么办？", ["炒股"])


def test_a_question_about_death_is_not_a_bereaved_relatives_case(default_pack):
    # r27: a teacher asked how to answer a pupil's 人死后去哪里 got the case 「亲人走了以后，现在去了哪里」, whose answers
    # console someone who has lost a relative; a death word is not a death, and a dying pet is not a dead one
    bereaved = "亲人走了以后，现在去了哪里？在那边过得好不好？"
    assert "has died" in contradiction("上课时孩子们问我，人死了以后会去哪里，我该怎么跟他们讲？", bereaved)
    assert "has died" in contradiction("没有一个不变的我，那死后投胎的是谁？", bereaved)
    assert not contradiction("我妈上个月走了，她现在在哪里，过得好不好？", bereaved)
    assert not contradiction("奶奶不在了，她现在在哪里？", bereaved)  # 不在了 is a death
    bank = bank_of(default_pack)
    dying_dog = "我家的狗十五岁了，快不行了，要不要让它安乐死？"
    found = [c.id for c in fitting_cases(bank, dying_dog)]
    assert "merit-dedication/pet-death" not in found and "killing-vegetarian/pet-euthanasia" in found


def test_urging_a_parent_is_the_no_faith_case_only_about_faith(default_pack):
    # r27: a mother's loach releases (劝她停下来) got the case of parents who do not believe (on 母亲 + 劝她); the
    # case now needs a word of belief or of urging to recite
    bank = bank_of(default_pack)
    ids = lambda t: [c.id for c in fitting_cases(bank, t)]  # noqa: E731
    assert "family/parents-no-faith" not in ids("我婆婆每个月都去买鸟放生，我想劝她别买了，又怕她生气。")
    assert "family/parents-no-faith" not in ids("我妈每年春节都去庙里抢头香，该不该劝她？")
    assert ids("我妈不信佛，怎么劝她念佛？")[:1] == ["family/parents-no-faith"]
    assert ids("家里老人对佛法没兴趣，我该不该劝？")[:1] == ["family/parents-no-faith"]
