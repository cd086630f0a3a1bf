"""The structural reading of ``no_dialogue``: a scene in which a master of the pack meets the speaker or another master.

No two masters of a pack met, so any scene that puts one of them (other than the speaker) face to face with the
speaker or with another master of the pack is invented.  The reading (``lexicons/scene.yaml``) finds, in each
sentence of the speaker's own words (quotes blanked, titles kept so that a text's frame can be read):

* the *people*: masters of the pack by their names (the speaker's own names are the speaker), the speaker as a
  person (本宗, 老衲, 我 — not 我执, not 本宗以为), and a pronoun or a bare title (他, 大师) for a master named in
  this sentence or the one before;
* whether it tells a *scene*: a time of a story (那年, 有一回, 民国初年, 临别时, 曾), a moment in the debate's room
  (说到这里, 席间, 辩毕), a place (在长安译场, 路过巴蓬寺) or a manner (低声, 含笑, 眉头微皱).

It is a meeting when

* one person acts on another named right after the act: bodily, scene or not (陪他, 握着我的手, 坐在本宗对面, 送他到
  山门口); addressing him or doing a thing with him in a scene or with a past aspect (问本宗, 本宗答他, 请教过慧能大师,
  本宗向慧能大师合十作别, 本宗与罗什法师对坐论空) — the actor being the last person before the act, not an owner
  (阿姜查尊者的弟子…), with no one else brought in between (一位居士拿着印光大师的信来问本宗) and no habit or
  affliction as the agent (旧习还会拉他回去: a scene needs persons);
* a master comes to the speaker to do a thing to him (来仰光看我, 来听我讲), or the speaker goes to a master's place
  (常去他的寮房请益);
* a person or a thing is sent between them (智者大师遣弟子给我捎来…, 六祖派人送来一封信, 写信给本宗);
* in a scene, two people are one subject of an exchange (我们…聊了很久) with a master named nearby, or the speaker, in
  a scene his own clause tells or in the debate's room, is there while a master speaks or moves (本宗当年在长安译经，
  玄奘法师也坐在译场里，…他起身接连问了三个问题);
* two people's turns are given as lines, the first a question (or both in a scene), the second an answer
  (印光问曰：…能答曰：…; 若慧能大师在座，想必会反问一句：…本宗便答他：…).

Not a meeting: a text's record or hearsay (《坛经》记…, 经中…, 据说), a round of this debate (上一轮问道), a
meeting denied (从未谋面, 相隔千年), a supposition without the speaker's answer told (若在此，或许会说…), views
compared (本宗与慧能大师原无分歧), a place named after a master (在曹溪), and people outside the pack (仲敦巴曾问我,
我的上师玛尔巴曾对我说).
"""

from __future__ import annotations

import re

from debate_core.checks import lexicons as _lx
from debate_core.content.text import mask, sentences

_SELF = _lx.regex("scene.self")
_US = _lx.regex("scene.us")
_PRONOUN = _lx.regex("scene.pronoun")
_PERSON = _lx.regex("scene.person")
_AGENT = _lx.regex("scene.agent")
_CLAUSE_CUT = re.compile(r"[，,；;：:]")
_TIME = _lx.regex("scene.time")
_PRESENT = _lx.regex("scene.present")
_PLACE = _lx.regex("scene.place")
_MANNER = _lx.regex("scene.manner")
_RELATION = _lx.regex("scene.relation")
_TOUCH = _lx.regex("scene.touch")
_TOGETHER = _lx.regex("scene.together")
_WITH = _lx.regex("scene.with")
_VIEWS = re.compile(r"[的之所]")  # 慧能大师的 / 所说, right after him: his views or words named, no act
_COME_TO = _lx.regex("scene.come_to")
_VISIT_PLACE = _lx.regex("scene.visit_place")
_GO = re.compile(r"(?:去|到|往|赴|来到|上|进|入|住进|走进|来)$")
# 见到他的一位弟子: the person owns the object (not 握着我的手: a hand is the person)
_OWNER = re.compile(r"的(?!手|肩|背|头|衣|袖|胳膊|脸|额|耳)")
_PROXY = re.compile(r"的(?:弟子|侍者|使者|门人|徒弟|学生)")  # 本宗的弟子曾去请教他: the speaker's proxy
_SEND = _lx.regex("scene.send")
_EXCHANGE = _lx.regex("scene.exchange")
_OPINION = re.compile("(?:" + _lx.pattern("scene.opinion") + ")")
_RECORD = _lx.regex("scene.record")
_ROUND = _lx.regex("scene.debate_round")
_DENIAL = _lx.regex("scene.denial")
_SUPPOSED = _lx.regex("scene.supposed")
_TURN = _lx.regex("scene.turn_line")
# the second of two turns must answer (答, 回道, 反问): 说 / 曰 / 又说 alone quote a position
_ASKING = re.compile(r"问")
_ANSWERING = re.compile(r"答|对曰|应道|回道|回答|反问")

_AT = re.compile(
    r"(?:(?<![存实现内自正])在|(?<![收得看听想遇见做办达感受提直])到|(?<![前以])往|至|去|住在|回到|离开|路过|经过|绕道|取道|途经|道经)$"
)
Person = tuple[int, int, str]  # start, end, who: "self", "@slug" (a master), "pron" (a master named nearby)


def _is_other(who: str) -> bool:
    return who.startswith("@") or who == "pron"


def _two(a: str, b: str) -> bool:
    """Two different people, one of them a master other than the speaker (a pronoun pairs only with the speaker)."""
    if a == b or not (_is_other(a) or _is_other(b)):
        return False
    return "self" in (a, b) or (a.startswith("@") and b.startswith("@"))


def _people(sent: str, names: re.Pattern, key_of: dict[str, str], speaker: str, other_nearby: bool) -> list[Person]:
    out: list[Person] = []
    blank = list(sent)
    for m in names.finditer(sent):
        if _AT.search(sent, 0, m.start()):
            continue  # 在曹溪, 到灵峰, 绕道曹溪: a place named after a master, not the master
        key = key_of.get(m.group(0), m.group(0))
        out.append((m.start(), m.end(), "self" if key == speaker else "@" + key))
        blank[m.start() : m.end()] = "＿" * (m.end() - m.start())
    rest = "".join(blank)
    for m in _SELF.finditer(rest):
        out.append((m.start(), m.end(), "self"))
    if other_nearby or any(w.startswith("@") for _s, _e, w in out):
        for m in _PRONOUN.finditer(rest):
            # 一个学僧来问老衲…老衲答他: the pronoun stands for the person named before it, not for a master
            last = max((s for s, _e, w in out if w.startswith("@") and s < m.start()), default=0)
            if not _PERSON.search(rest, last, m.start()):
                out.append((m.start(), m.end(), "pron"))
    return sorted(out)


def scene_hits(text: str, names: re.Pattern | None, key_of: dict[str, str], speaker: str = "") -> list[str]:
    """The meetings told in ``text`` (``names``: every master's names; ``key_of``: name → master;
    ``speaker``: the speaker's key): one excerpt each."""
    if names is None:
        return []
    m_text = mask(text, '「『“‘"【')
    hits: list[str] = []
    nearby = False  # a master other than the speaker named in the sentence before
    turns: list[tuple[int, str, str]] = []  # (line start, who, turn) of the lines given in this line
    for s, e in sentences(text):
        sent = m_text[s:e]
        line = text.rfind("\n", 0, s) + 1
        people = _people(sent, names, key_of, speaker, nearby)
        here = any(w.startswith("@") for _s, _e, w in people)
        framed = _RECORD.search(m_text[line:e]) or _ROUND.search(sent) or _DENIAL.search(sent)
        if turns and turns[0][0] != line:
            turns = []
        after = 0
        for m in _TURN.finditer(sent):
            # the turn's speaker: the last person before it, after the turn before (「…」能答曰: none named)
            before = [p for p in people if after <= p[0] and p[1] <= m.start()]
            turns.append((line, before[-1][2] if before else "", m.group(0)))
            after = m.end()
        scene = any(p.search(sent) for p in (_TIME, _PRESENT, _PLACE, _MANNER, _TOGETHER))
        if not framed and _script(turns, scene):
            hits.append(text[s:e].strip()[:40])
            turns = []
        nearby_before, nearby = nearby, here
        if framed or not any(_is_other(w) for _s, _e, w in people):
            continue
        supposed = _supposed(sent, people)
        found = None
        if not supposed:
            found = _meeting(sent, people, scene, nearby_before or here, _PRESENT.search(sent) is not None)
        if found is not None:
            hits.append(text[s + found[0] : s + found[1]])
    return list(dict.fromkeys(hits))


def _supposed(sent: str, people: list[Person]) -> bool:
    """A supposition in the clause that names a master or the clause before it (慧能大师若在此; 若慧能大师此刻在座)."""
    cuts = [0] + [m.end() for m in re.finditer(r"[，,；;：:]", sent)] + [len(sent) + 1]
    spans = list(zip(cuts, cuts[1:], strict=False))
    for p in people:
        if not p[2].startswith("@"):
            continue
        i = next(k for k, (a, b) in enumerate(spans) if a <= p[0] < b)
        lo = spans[max(0, i - 1)][0]
        if _SUPPOSED.search(sent, lo, spans[i][1]):
            return True
    return False


def _script(turns: list[tuple[int, str, str]], scene: bool) -> bool:
    """Two turns given as lines, by two people, the first a question (or both in a scene), the second an
    answer: 印光问曰：「…」能答曰：「…」."""
    for i, (_l, who1, t1) in enumerate(turns):
        for _l2, who2, t2 in turns[i + 1 :]:
            if not _ANSWERING.search(t2):
                continue
            if (_two(who1, who2) or (who1.startswith("@") and not who2)) and (_ASKING.search(t1) or scene):
                return True
    return False


def _acts(sent: str, at: int, within: int) -> re.Match | None:
    """An exchange (问, 说, 坐, 点头 …) by the person ending at ``at``: not his views or words named (的 / 之 / 所)."""
    x = _EXCHANGE.search(sent, at, at + within)
    if x is None or _VIEWS.match(sent, at) or sent[x.end() : x.end() + 1] == "的":
        return None  # 慧能大师的… / 所说 / 阿底峡说的是…: his views or words named
    return x


def _told(sent: str, at: int) -> bool:
    """The clause at ``at`` tells a time or a place (本宗当年在长安逍遥园译经)."""
    a = max((m.end() for m in re.finditer(r"[，,；;：:]", sent[:at])), default=0)
    b = next((m.start() for m in re.finditer(r"[，,；;：:]", sent[at:])), len(sent) - at) + at
    return any(p.search(sent, a, b) for p in (_TIME, _PLACE))


def _meeting(
    sent: str, people: list[Person], scene: bool, master_nearby: bool, present: bool = False
) -> tuple[int, int] | None:
    def subject(p: Person) -> bool:  # 本宗以为 / 本宗的: the speaker giving a view, no one in a scene
        return p[2] != "self" or not _OPINION.match(sent, p[1]) or _PROXY.match(sent, p[1]) is not None

    # one person acting on another, named right after the act: bodily (陪他, 握着我的手) always; addressing him (问本宗)
    # or doing a thing with him (与 X 对坐论空, not 与 X 的分歧) in a scene or with a past aspect (请教过)
    acts = [*_TOUCH.finditer(sent)]
    acts += [r for r in _RELATION.finditer(sent) if scene or r.group(0)[-1] in "过了"]
    acts += list(_WITH.finditer(sent)) if scene or _TOGETHER.search(sent) else []

    def actor(at: int) -> Person | None:
        """Who does what starts at ``at``: the last person before it, if no one else (一位居士) comes between, the
        act's clause does not give it a subject that is no person (…，旧习还会拉他回去: a habit acts), and he is not
        named as an owner (阿姜查尊者的弟子)."""
        before = [p for p in people if p[1] <= at]
        if not before or (
            _VIEWS.match(sent, before[-1][1]) and not (before[-1][2] == "self" and _PROXY.match(sent, before[-1][1]))
        ):
            return None
        p = before[-1]
        # the act's clause names no person before it but a habit or an affliction: that is its subject
        cs = max((m.end() for m in _CLAUSE_CUT.finditer(sent, 0, at)), default=0)
        if _PERSON.search(sent, p[1], at) or (p[1] <= cs and _AGENT.search(sent, cs, at)):
            return None
        return p if subject(p) else None

    for r in acts:
        objs = [p for p in people if p[0] == r.end() and not _OWNER.match(sent, p[1])]
        if r.re is _WITH:
            objs = [o for o in objs if _acts(sent, o[1], 10)]
        for o in objs:
            if (p := actor(r.start())) is not None and _two(p[2], o[2]):
                return r.start(), o[1]
    # a master coming to the speaker to do a thing to him (来仰光看我, 来看我们打坐, 来听我讲)
    for c in _COME_TO.finditer(sent):
        objs = [p for p in people if p[0] == c.end() and p[2] == "self"]
        if not objs and sent.startswith("我们", c.end()):
            objs = [(c.end(), c.end() + 2, "self")]
        if objs and (p := actor(c.start())) is not None and _is_other(p[2]):
            return c.start(), objs[0][1]
    # going to another's place (本宗常去他的寮房请益)
    for v in _VISIT_PLACE.finditer(sent):
        hosts = [p for p in people if p[1] <= v.start() and v.start() - p[1] <= 2 and _GO.search(sent, 0, p[0])]
        for h in hosts:
            if any(_two(p[2], h[2]) and subject(p) for p in people if p[1] <= h[0]):
                return h[0], v.end()
    # someone or something sent between two people
    for m in _SEND.finditer(sent):
        senders = [p for p in people if p[1] <= m.start() and subject(p)]
        if senders and _VIEWS.match(sent, senders[-1][1]):
            continue  # 印光大师的信徒送来…: someone of his, not he, sent it
        if senders and any(_two(senders[-1][2], p[2]) for p in people if p is not senders[-1]):
            return senders[-1][0], m.end()
    if not scene:
        return None
    # two people as one subject of an exchange, with a master named nearby
    for u in _US.finditer(sent):
        if master_nearby and _EXCHANGE.search(sent, u.end(), u.end() + 12):
            return u.start(), min(len(sent), u.end() + 12)
    # the speaker in the scene (his clause tells it, or the debate's room does), and a master there who speaks or moves
    if any(p[2] == "self" and subject(p) and (present or _told(sent, p[0])) for p in people):
        for p in people:
            if _is_other(p[2]) and (x := _acts(sent, p[1], 12)):
                return p[0], x.end()
    return None
