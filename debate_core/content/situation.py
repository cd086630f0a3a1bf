"""Who a question is about, and whether someone in it has died: a case that contradicts the topic is not its case.

A case of the argument layer is chosen by its match words (``Case.matches``).  Words alone do not say whose
matter it is: 丈夫炒股亏了 matched a case asked by the one who lost the money, 我母亲去世了 a case about a
parent just diagnosed, a dog's death a case about a cat (blind reads r15–r18: the answer was right for a
different asker).  :func:`situation` reads the same few facts from any question, the topic and a case's own
question alike, and :func:`contradiction` names the first fact on which the two disagree:

* **death:** one of them says someone has died (去世, 走了 …) and the other has no word about death at all;
* **who died:** both say someone has died and name whom, by relation to the asker, and no one is in both
  (我爸走了 against 去世的外公: :func:`deceased`);
* **animal:** both name an animal, and none in common (狗 vs 猫; 宠物 goes with any); or both mourn a death, one
  an animal's and the other a person's; or the case is about a pet and the topic names no animal
  (a patient's euthanasia against an old dog's);
* **person:** the people the question is about, by kind (parent, child, spouse or partner, sibling, friend,
  colleague; a grandparent goes with a parent, a grandchild with a child): both name kinds and none is shared, or
  one names a family member and the other names nobody.  A word for the family or the dead as a whole (家人, 亲人,
  亡者) goes with any kind.  The asker's own role (做父母的, 作为母亲, 我是老师) is not whom the question is about;
* **does or undergoes:** an act such as 催 / 借钱 / 骗 that the asker does in one and undergoes in the other (被V, V我,
  找我V: :func:`undergoes`);
* **a child's age:** both are about a child and name his stage, and one is young (五岁, 幼儿园) and the other a
  teenager (十五岁, 初中, 青春期): :func:`stage`;
* **who does the act:** the first of the case's matched words that both hold is done by the asker in one and by a
  family member in the other (丈夫炒股亏了 against 炒股亏掉了积蓄; :func:`actor`); what befalls a couple together
  (流产, 怀孕, 不孕) is not told apart between the asker and the spouse.

These readings are deliberately coarse: they refuse a case only where its own question visibly disagrees
with the topic's, and a case always agrees with its own question.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from debate_core.plans import ArgumentBank, Case

_BEINGS = (
    "妈|爸|母亲|父亲|奶奶|爷爷|外婆|外公|姥姥|姥爷|老伴|丈夫|老公|妻子|老婆|孩子|儿子|女儿|宝宝|哥|姐|弟|妹|朋友|同学"
    "|老师|师父|亲人|家人|老人家|老人|长辈|室友|同事|邻居|狗|猫|鸟|鱼|兔|宠物|他|她|它"
)
# someone has died: a death word, or a being that 死了 / 走了 / 没了 (never 快走了, 早点走, 快要死了)
_DIED = re.compile(
    r"去世|过世|离世|病逝|逝世|已故|亡故|过身|害死|忌日|头七|周年祭|骨灰|遗体|遗物|遗像|守灵|丧事|丧礼|葬礼"
    rf"|(?:{_BEINGS})[^，。？！,?!]{{0,4}}?(?<!快)(?<!要)(?<!会)(?:死了|死去|没了)"
    r"|(?:刚|已经|突然)(?:死了|走了)|(?:最后|后来|终究|终于|还是)走了|自杀了|自杀身亡|(?<!差点)(?:身亡|遇难|丧生|猝死)"
    r"|(?:车祸|意外|事故)[^，。？！,?!]{0,2}没了|(?:病|癌|白血病|肿瘤)(?:走了|没了|死了)(?=[，。？！,?!]|$)"
    rf"|(?:{_BEINGS})[^，。？！,?!]{{0,6}}?(?<!快)(?<!要)(?<!早点)走(?:了|后|的)"
    rf"|(?:{_BEINGS})[^，。？！,?!]{{0,4}}?(?:不在了|不在人世|离开了我们|离开我们了|离我们而去)"
)
# any word about death (a question on dying, the dead or rites for them)
_DEATH = re.compile(_DIED.pattern + r"|死|亡|临终|往生|超度|助念|后事|丧|葬|扫墓|清明|牌位|灵位")

_ANIMALS = {
    "dog": ("狗",),
    "cat": ("猫",),
    "fish": ("鱼",),
    "bird": ("鸟", "鹦鹉"),
    "rabbit": ("兔",),
    "hamster": ("仓鼠",),
    "turtle": ("龟",),
    "snake": ("蛇",),
    "insect": ("蚊", "蟑螂", "蚂蚁", "虫"),
    "livestock": ("鸡", "猪", "牛", "羊", "鸭"),
    "shrimp": ("虾", "蟹"),
}

_PETS = frozenset({"dog", "cat", "bird", "rabbit", "hamster", "turtle"})  # animals kept as pets

_PEOPLE = {
    "parent": (
        "母亲",
        "父亲",
        "妈妈",
        "爸爸",
        "父母",
        "老妈",
        "老爸",
        "婆婆",
        "公公",
        "岳父",
        "岳母",
        "丈母娘",
        "家母",
        "家父",
        "双亲",
        "爸",
        "妈",
        # grandparents go with parents (an elder of the family), as grandchildren go with children
        "奶奶",
        "爷爷",
        "外婆",
        "外公",
        "姥姥",
        "姥爷",
        "祖母",
        "祖父",
        "老人",
    ),
    "child": ("儿子", "女儿", "孩子", "小孩", "闺女", "胎儿", "宝宝", "儿女", "子女", "孙子", "孙女", "外孙"),
    "spouse": (
        "丈夫",
        "老公",
        "妻子",
        "老婆",
        "爱人",
        "伴侣",
        "另一半",
        "夫妻",
        "男朋友",
        "女朋友",
        "男友",
        "女友",
        "对象",
        "前夫",
        "前妻",
        "老伴",
    ),
    "sibling": ("哥哥", "姐姐", "弟弟", "妹妹", "兄弟", "姐妹", "哥", "姐"),
    "friend": ("朋友", "闺蜜", "同学", "室友"),
    "colleague": ("同事", "领导", "老板", "上司", "下属", "员工"),
}
# the kinds whose absence on one side also disagrees (a family member's matter is not the asker's own); a friend
# or a colleague disagrees only with another kind named on the other side
_FAMILY = frozenset({"parent", "child", "spouse", "sibling"})
# the family or the dead as a whole: goes with any kind
_ANYONE = re.compile(r"家人|亲人|家里人|亲友|亲戚|长辈|晚辈|亡者|逝者|亡人|先人|祖先|亲属|别人|他人|身边的人|家属")


@dataclass(frozen=True)
class Situation:
    died: bool = False  # someone in it has died
    death: bool = False  # any word about death
    animals: frozenset[str] = field(default_factory=frozenset)
    pet: bool = False  # 宠物 and the like: an animal of any kind
    people: frozenset[str] = field(default_factory=frozenset)  # kinds of person the question is about
    anyone: bool = False  # a word for the family or the dead as a whole


def _without_own_role(text: str) -> str:
    """``text`` with the asker's own role words blanked (做父母的 / 作为母亲 / 我是老师): who asks, not whom about."""
    out = text
    for m in re.finditer(r"(?:做|当|作为|身为|我是|我作为)([^，。？！,?!]{1,4})", text):
        blank = m.group(1)
        # only the role word right after the verb: 做父母的 → 父母, 我是护士 → 护士 (not 我是说…)
        for words in _PEOPLE.values():
            for w in sorted(words, key=len, reverse=True):
                if blank.startswith(w) or blank.startswith("个" + w) or blank.startswith("一个" + w):
                    start = m.start(1) + blank.find(w)
                    out = out[:start] + "□" * len(w) + out[start + len(w) :]
                    break
    return out


@lru_cache(maxsize=4096)
def situation(text: str) -> Situation:
    """The facts :func:`contradiction` compares, read from one question."""
    about = _without_own_role(text)
    people = set()
    for kind, words in _PEOPLE.items():
        if any(w in about for w in words):
            people.add(kind)
    animals = {kind for kind, words in _ANIMALS.items() if any(w in text for w in words)}
    return Situation(
        died=bool(_DIED.search(text)),
        death=bool(_DEATH.search(text)),
        animals=frozenset(animals),
        pet=any(w in text for w in ("宠物", "毛孩子", "小动物")),
        people=frozenset(people),
        anyone=bool(_ANYONE.search(text)),
    )


_PERSON_WORDS = sorted({w for ws in _PEOPLE.values() for w in ws}, key=len, reverse=True)
_FILLER = "也都又总还就一直常经最近老是正在在刚"


# a clause that opens on whom the act is aimed at (跟 / 和 / 对 / 向 / 给 someone), with no doer before it, is the
# asker's own act; not 对方 / 对面 / 对象 / 和尚, which name a person
_TOWARD = re.compile(r"(?:跟|和(?!尚)|对(?!方|面|象)|向|给)")


def actor(text: str, word: str) -> str:
    """Who does what ``word`` names in ``text``: the subject of its clause.  A kind of person when the clause
    opens with one (丈夫炒股 → spouse, 我儿子偷偷拿钱打赏 → child) and has the asker do nothing (妈妈让我学佛 →
    self); "self" when the act opens its clause or the asker opens it (炒股亏了, 我又炒股); "" when that cannot
    be told or ``word`` is not in ``text``."""
    about = _without_own_role(text)
    at = about.find(word)
    if at < 0:
        return ""
    clause = re.split(r"[，。？！,?!；;、：:]", about[:at])[-1]
    if not clause.strip(_FILLER):
        return "self"
    if clause.rstrip(_FILLER).endswith(("我", "我们", "自己")):  # 妈妈让我学佛, 父母反对我吃素: the asker does it
        return "self"
    if _TOWARD.match(clause.lstrip(_FILLER)):  # 跟家里人说话总忍不住发火: whom it is aimed at, with no one before it
        return "self"
    own = re.sub(r"^(?:我的|我们家的?|我家的?|家里的?|我(?=" + "|".join(_PERSON_WORDS) + "))", "", clause)
    for kind, kind_words in _PEOPLE.items():
        if own.startswith(kind_words):
            return kind
    return "self" if clause.startswith("我") else ""


# what befalls a couple together: a wife's miscarriage is her husband's matter too (r24: a husband asking for the
# child his wife lost got a debate on filial piety, the miscarriage case refused as her act, not his)
_COUPLES = re.compile(r"流产|小产|怀孕|怀上|胎|堕胎|打胎|人流|引产|不孕|备孕|试管|生孩子|坐月子|难产")


# acts one side can do or undergo: in a question that says 被V, V我 or 找我V (向我 / 跟我), the asker undergoes it
# (被催债 / 亲戚找我借钱); else he does it (我做催收 / 找亲戚借钱). r21: a debt collector got the case of a debtor
# hounded by collectors, a man who must borrow for a bride price the case of a lender asked for money
# (not 出轨 / 劈腿 / 欠: 男朋友劈腿了 and 老板拖欠工资 name the asker nowhere, yet he is the one wronged)
_ACTS = ("催", "借钱", "借款", "骗", "骂", "欺负", "冤枉", "辞退", "开除")
# a word where the act is a thing named, not done by or to the asker: 骗子 / 诈骗, 催婚 / 催生
_NAMED = re.compile(r"骗子|(?<!被)诈骗|催婚|催生")


def undergoes(text: str, act: str) -> bool | None:
    """Whether the asker undergoes ``act`` in ``text`` (True), does it (False), or ``act`` is not there (None)."""
    at = text.find(act)
    if at < 0 or any(m.start() <= at < m.end() for m in _NAMED.finditer(text)):
        return None
    before, after = text[max(0, at - 4) : at], text[at + len(act) : at + len(act) + 2]
    return bool(
        "被" in before
        or "挨" in before[-1:]
        or re.search(r"(?:找|向|跟|问|管|把|将)我给?$", before)
        or after.lstrip("了").startswith("我")
    )


_NUM = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_AGE = re.compile(r"([0-9]{1,2}|[一二两三四五六七八九十]{1,3})(?:周)?岁")
_YOUNG = re.compile(r"幼儿园|上小学|小学[一二三四五六]?年级|学龄前|婴儿|宝宝")
_TEEN = re.compile(r"初中|高中|中学生|青春期|叛逆期|十几岁|中考|高考")


def _years(word: str) -> int:
    if word.isdigit():
        return int(word)
    if word.startswith("十"):  # 十 / 十五
        return 10 + _NUM.get(word[1:2], 0)
    if "十" in word:  # 二十 / 二十八
        head, _, tail = word.partition("十")
        return _NUM.get(head, 0) * 10 + _NUM.get(tail[:1], 0)
    return _NUM.get(word, 0)


def stage(text: str) -> str:
    """A child's stage the question names: "young" (up to ten: 五岁, 幼儿园, 小学), "teen" (11 to 19: 十五岁, 初中,
    青春期), or "" (none named, or an adult)."""
    for m in _AGE.finditer(text):
        n = _years(m.group(1))
        if 0 < n <= 10:
            return "young"
        if 10 < n < 20:
            return "teen"
    return "young" if _YOUNG.search(text) else "teen" if _TEEN.search(text) else ""


# who has died, by relation to the asker: 我爸走了 (father) is not 去世的外公 (grandfather). r23's reader found
# 「父亲刚走」 said to someone whose grandfather had died: the case of a widowed mother, on 妈妈 … 去世 … 接她
_RELATIONS = {
    "father": ("爸爸", "父亲", "老爸", "家父", "先父", "亡父", "爸"),
    "mother": ("妈妈", "母亲", "老妈", "家母", "先母", "亡母", "妈"),
    "grandfather": ("爷爷", "外公", "姥爷", "祖父"),
    "grandmother": ("奶奶", "外婆", "姥姥", "祖母"),
    "spouse": ("丈夫", "老公", "妻子", "老婆", "老伴", "爱人"),
    "child": ("儿子", "女儿", "孩子", "宝宝", "胎儿"),
    "sibling": ("哥哥", "姐姐", "弟弟", "妹妹"),
    "friend": ("朋友", "闺蜜", "同学", "室友"),
}
_RELATION_OF = {w: r for r, ws in _RELATIONS.items() for w in ws}
_KIN = "|".join(sorted(_RELATION_OF, key=len, reverse=True))
_DIED_WORD = r"去世|过世|离世|病逝|逝世|走了|刚走|走的时候|走后|走之前|死了|没了|不在了|往生了|病走了|癌走了"
_TELLING = "说|梦|想|问|听|看|讲|觉得|以为"
_DEAD_PERSON = re.compile(
    # 我爸走了, 外公去世 (the gap holds no other relative and no telling or dreaming: 妈妈说梦见去世的外公)
    rf"(?P<before>{_KIN})(?:(?!{_KIN}|{_TELLING})[^，。？！,?!的]){{0,6}}?(?<!快)(?<!要)(?:{_DIED_WORD})"
    rf"|(?:{_DIED_WORD.replace('走了|', '')})的(?P<after>{_KIN})"  # 去世的外公
    r"|(?P<late>先父|先母|亡父|亡母)"
)


def deceased(text: str) -> frozenset[str]:
    """The relations (father, grandmother, spouse …) of the people ``text`` says have died; empty when it names
    no one (亲人走了) or no death."""
    out = set()
    for m in _DEAD_PERSON.finditer(text):
        word = m.group("before") or m.group("after") or m.group("late")
        if m.group("before") and text[max(0, m.start() - 1) : m.start()] in ("老", "岳", "公", "婆"):
            continue  # 老爸 is read whole; 岳父 / 公公 are other relations, not named here
        out.add(_RELATION_OF[word])
    return frozenset(out)


def _spoken_of(case: Case) -> str:
    """Everything a case's masters say on it: what a debate on it can put in front of the asker."""
    parts = [a.text + a.then + "".join(g.text for g in a.more) for a in case.answers]
    for o in case.objections:
        parts += [o.text, o.reply.text if o.reply else "", o.press.text if o.press else ""]
    return "".join(parts)


def _acts_named(
    topic: str, question: str, words: Iterable[str], groups: Iterable[Iterable[str]]
) -> list[tuple[str, str]]:
    """The acts the topic and the case's question both name, as (the topic's word, the question's word): the
    first match word found in both; else, through each of the case's match ``groups``, the topic's word and the
    question's word of that group (r28: 我爸脾气越来越暴躁 says 脾气 where the case asks 跟家里人说话总忍不住发火: one
    act, two words).  A person word names no act."""
    words = [w for w in words if not any(p in w for p in _PERSON_WORDS)]
    act = next((w for w in words if w in question), "")
    if act:
        return [(act, act)]
    out = []
    for group in groups:
        in_q = [w for w in group if w in question and not any(p in w for p in _PERSON_WORDS)]
        in_t = [w for w in words if w in group]
        if in_q and in_t:
            out.append((in_t[0], in_q[0]))
    return out


def contradiction(
    topic: str, question: str, words: Iterable[str] = (), said: str | None = None, groups: Iterable[Iterable[str]] = ()
) -> str:
    """Why ``question`` (a case's own) is not about the matter ``topic`` asks, or "" when nothing disagrees.
    ``words``: the case's match words found in the topic; the one who does what they name must agree too
    (``groups``: the case's match groups, which pair a topic's word with the question's own word for one act).
    ``said``: what the case's masters say on it, when known: a death of another relative disagrees only when
    they name that relative (a case on a father's death that speaks only of 亲人 fits a mother's)."""
    t, q = situation(topic), situation(question)
    # the act both name: one does it himself, the other a family member.  Named through match groups, every
    # group that pairs a word of each must say so: a group can hold an act and its object (催婚 / 相亲: 我妈逼我
    # 相亲 is the parents' urging, the asker's blind date), and one group that agrees on the doer is enough
    found: list[str] = []
    for act_t, act_q in _acts_named(topic, question, words, groups):
        by_t, by_q = actor(topic, act_t), actor(question, act_q)
        if by_t and by_t == by_q:
            found = []
            break
        couple = {by_t, by_q} == {"self", "spouse"} and bool(_COUPLES.search(act_t + act_q))
        if {by_t, by_q} & {"self"} and {by_t, by_q} & _FAMILY and not couple:
            found.append(
                f"in the topic {act_t} is done by {by_t}, in the case's question by {by_q}"
                if act_t == act_q
                else f"in the topic {act_t} is done by {by_t}, in the case's question {act_q} by {by_q}"
            )
    if found:
        return found[0]
    for a in _ACTS:  # the asker does in one what he undergoes in the other
        u_t, u_q = undergoes(topic, a), undergoes(question, a)
        if u_t is not None and u_q is not None and u_t != u_q:
            return f"in the topic the asker {'undergoes' if u_t else 'does'} {a}; in the case's question the other way"
    st, sq = stage(topic), stage(question)
    if st and sq and st != sq and "child" in t.people and "child" in q.people:
        # r23: a parent of a five-year-old got the case of a teenager who has stopped talking
        return f"the topic's child is {st}, the case's {sq}"
    if t.died and not q.death:
        return "the topic says someone has died; the case's question is about the living"
    if q.died and not t.died:
        # r27: a teacher asked how to answer a pupil's 人死后去哪里 got the case of a bereaved relative (亲人走了以后
        # 去了哪里), whose answers console someone who has lost a relative: a death word is not a death
        return "the case's question says someone has died; the topic does not"
    dead_t, dead_q = (deceased(topic), deceased(question)) if t.died and q.died else (frozenset(), frozenset())
    named = said is None or any(w in said for r in dead_q for w in _RELATIONS[r] if len(w) > 1)
    if dead_t and dead_q and not (dead_t & dead_q) and named:
        return f"the topic's dead is the asker's {'/'.join(sorted(dead_t))}, the case's {'/'.join(sorted(dead_q))}"
    if t.died and q.died and bool(t.animals or t.pet) != bool(q.animals or q.pet):
        return "one of them mourns an animal, the other a person"
    if (q.pet or q.animals & _PETS) and not (t.animals or t.pet):
        # r24: a doctor asked about a patient's euthanasia got the case of an old, sick pet
        return "the case's question is about a pet; the topic names no animal"
    if t.animals and q.animals and not (t.animals & q.animals):
        return f"the topic is about {'/'.join(sorted(t.animals))}, the case about {'/'.join(sorted(q.animals))}"
    if not (t.anyone or q.anyone):
        if t.people and q.people and not (t.people & q.people):
            return f"the topic is about a {'/'.join(sorted(t.people))}, the case about a {'/'.join(sorted(q.people))}"
        if t.people & _FAMILY and not q.people:
            return f"the topic is about a {'/'.join(sorted(t.people))}; the case's question is about the asker alone"
        if q.people & _FAMILY and not t.people:
            return f"the case's question is about a {'/'.join(sorted(q.people))}; the topic is about the asker alone"
    return ""


def fitting_cases(bank: ArgumentBank, topic: str) -> list[Case]:
    """:meth:`ArgumentBank.cases_for`, without the cases whose own question contradicts the topic."""
    generic = set(bank.generic)
    return [
        c
        for c in (bank.cases_for(topic) if bank.cases else [])
        if not contradiction(topic, c.question, [w for w in c.hits(topic) if w not in generic], _spoken_of(c), c.match)
    ]
