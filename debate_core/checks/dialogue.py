"""``no_dialogue``: no narrated meeting, exchange, question or answer between masters of the pack.

No two masters of a pack met (their dates rule most meetings out, and the packs record none), so any
narrated encounter between two of them is invented.  The rule looks, in the speaker's own words
(quotes blanked), for:

* one master acting on another: X 对/向/问/请教 Y + a speech verb; X 与 Y 论道/对坐/相见/交谈 …;
  X 曾亲至某地 与/见 Y; X 拜访/参访/谒见 Y;
* a narrated pair: 两人/二位/二师 相对而坐 / 论道 / 一问一答 / 书信往来 …, or the pair and then
  a reciprocal exchange (互相切磋, 彼此问难);
* a narrated reaction of a master: Y 听罢/闻言 … 默然/点头/答; Y 默然良久, 连连点头, 哑口无言 …;
  Y 面露难色 / 语塞 / 抚掌大笑 / 摇头 / 沉吟, in Y's clause or the subjectless clause after it
  (not a supposed, habitual or caused reaction: 恐怕也会摇头, 常叹, 令人动容);
* a narrated answer (X 答曰：「…」, X 回道, X 笑道) or question (当时 X 问：「…」), unless the words
  come from a text (六祖在《坛经》中说, 印光大师在《文钞》中答曰) or from this debate (印光大师上一轮问);
* a greeting, quarrel or parting (合十致意, 争执不下, 不欢而散), masters doing a thing together
  (一同讲经), letters (X 读了 Y 的来信), a first sight (X 一见 Y), one master won over by another
  (Y 听完 X 的开示，当下开悟), and the opponent as having spoken to the speaker (曾当面对我说).

Also: classical address (X 谓 / 语 / 告 / 问于 Y 曰), a subjectless clause going on to address or act on
a master named earlier in the sentence (…，对罗什说 / 向印光大师求教 / 嘱咐六祖), the speaker in a scene with
the opponent (我当面请教过, 他跟我说 in a past, 来信说, 写给我的信), a master's line introduced by a gesture
(六祖哈哈一笑：「…」), and the speaker's reply to a master's quoted line (…」我答：「…」).

It allows: quoting a master's text (六祖曰：「…」), a text's own record of an exchange with one master of the
pack in it (《坛经》记五祖问曰…惠能答曰, also when the record opens the line and the answer follows a question mark),
quoting the opponent's stated position to answer it (印光大师主张「…」，然而…), the Buddha speaking to a disciple
(佛告舍利弗), a master teaching his own disciples, and the speaker addressing the opponent now (请问印光大师：…？).

These are the phrase shapes; the structural reading of a scene (people, a time or place, the relation between
them) is checks/scene.py, and the rule reports what either finds.
"""

from __future__ import annotations

import re
from functools import lru_cache

from debate_core.checks import lexicons as _lx
from debate_core.checks._lexicon import SELF, matches_in, no_matches
from debate_core.content.text import mask, sentences

_PAST = _lx.pattern("dialogue.past")
_SPEECH = _lx.pattern("dialogue.speech")
_MEET = _lx.pattern("dialogue.meet")
_TRAVEL = _lx.pattern("dialogue.travel")
_VISIT = _lx.pattern("dialogue.visit")
_REACT_AFTER = _lx.pattern("dialogue.react_after")
_REACT = _lx.pattern("dialogue.react")
_REACT_STRONG = _lx.pattern("dialogue.react_strong")
# being won over or awakened by another master's words: told only when that master is named too
_WON_OVER = _lx.pattern("dialogue.won_over")
_ANSWER = _lx.pattern("dialogue.answer")
_TEXT_FRAME = _lx.regex("dialogue.text_frame")
_DEBATE_FRAME = _lx.regex("dialogue.debate_frame")
_PAIR_WORDS = _lx.pattern("dialogue.pair_words")
_PAIR = _lx.regex("dialogue.pair")
# a pair, then (in this clause or the next) a reciprocal exchange: 二师书信往来，互相切磋
_PAIR_RECIPROCAL = _lx.regex("dialogue.pair_reciprocal")
# a reaction of a master, told as it happened: 印光面露难色, 六祖抚掌大笑, 慧能沉吟半晌
_REACT_TOLD = _lx.pattern("dialogue.react_told")
# a parting, a welcome or hospitality (告辞, 送至山门, 出迎, 款待, 留宿): a meeting told
_HOST = _lx.regex("dialogue.host")
# not the name's possessive (印光大师的…), even when the name's alias is a prefix of the full name
_HON = _lx.pattern("dialogue.hon")
_NOT_TOLD = _lx.regex("dialogue.not_told")
# classical address (X 谓 / 语 / 告 / 问于 Y 曰) and direct acts (X 叩问 / 召 / 接见 Y)
_CLASSICAL_TO = _lx.pattern("dialogue.classical_to")
_ACT_ON = _lx.pattern("dialogue.act_on")
# a letter between a master and the speaker, or from a master told as received
_LETTER_TO_SELF = _lx.pattern("dialogue.letter_to_self")
_LETTER_FROM = _lx.pattern("dialogue.letter_from")
# 他 / 彼 … 跟我说: a master named nearby, speaking to the speaker in a past scene
_PRONOUN = _lx.pattern("dialogue.pronoun")
_TO_SELF_VERB = _lx.pattern("dialogue.to_self_verb")
# X 提问，Y 作答
_ASK_TURN = _lx.pattern("dialogue.ask_turn")
_ANSWER_TURN = _lx.pattern("dialogue.answer_turn")
_SCENE_LEAD = _lx.pattern("dialogue.scene_lead")
_HAND_OVER = _lx.pattern("dialogue.hand_over")
_CONTINUE_TO = _lx.pattern("dialogue.continue_to")
_CLAUSE_START = _lx.pattern("dialogue.clause_start")
_CONTINUE_ACT = _lx.pattern("dialogue.continue_act")
_MANNER = _lx.pattern("dialogue.manner")
_LETTER_SCENE = _lx.regex("dialogue.letter_scene")
_SELF_ANSWER = _lx.regex("dialogue.self_answer")
_SCENE_MEET = _lx.pattern("dialogue.scene_meet")


def _self_pattern() -> str:
    return "|".join(SELF)


@lru_cache(maxsize=32)
def _patterns(N: str) -> dict[str, re.Pattern]:
    selfp = _self_pattern()
    pat1 = re.compile(
        rf"(?P<x>{N}|{selfp})(?:[^，。；：]{{0,8}}?)(?:(?:对|向|跟|告诉|回应|回复|应答|回敬|"
        rf"{_CLASSICAL_TO})(?P<y>{N})"
        rf"(?!{_HON}(?:的|之|所))(?:[^，。；：「“]{{0,4}}?){_SPEECH}"
        rf"|(?:{_ACT_ON}|问|质问|请教|回答|答复|反问|追问|写信给|致信|致书|修书给|寄信给|回信给|去信给|寄给|寄与|寄赠|赠给|赠与|"
        rf"送给|送与|呈给|呈与|递给|交给|带给|劝过|劝说|劝告|开导|点拨|呵斥|喝斥|斥责|棒喝|邀请|邀约|款待|接待|"
        rf"迎接|送别|相送|挽留|搀扶|扶起|拍了拍|握住|拉住)(?:过|了)?(?P<y2>{N}))"
    )
    # X looks at, or gives or sends through someone to, Y: 智者大师看了六祖一眼, 印光托人给六祖捎去
    pat_to = re.compile(
        rf"(?P<x>{N}|{selfp})[^，。；：]{{0,8}}?(?:(?:看了|望了|瞥了|瞪了|注视着|打量着?|看着|望着|"
        rf"盯着)(?P<y>{N})(?!{_HON}[的之所《])"
        rf"|为(?P<y3>{N})(?!{_HON}[的之所《])[^，。；：]{{0,4}}?(?:唱|讲|说|开示|传|灌顶|授|演|献|诵|奉|倒|斟|端)"
        rf"|(?:给|替|帮)(?P<y2>{N})(?!{_HON}[的之所])[^，。；：]{{0,4}}?(?:捎|寄|送|写|带|递|回|讲|说|开示|解释|讲解|倒|斟|端))"
    )
    pat2 = re.compile(
        rf"(?P<x>{N}|{selfp})(?:[^，。；：]{{0,8}}?)(?:与|和|同|跟)(?P<y>{N})"
        rf"(?:[^，。；：「“]{{0,8}}?){_MEET}"
    )
    pat3 = re.compile(
        rf"(?P<x>{N}|{selfp})[^，。；]{{0,4}}?{_TRAVEL}[^，。；]{{0,10}}?(?:与|和|同|见|访|谒|拜见|参见)"
        rf"(?P<y>{N})"
    )
    pat4 = re.compile(rf"(?P<x>{N}|{selfp})[^，。；]{{0,10}}?{_VISIT}(?:过|了)?(?P<y>{N})(?!{_HON}(?:的|之|所))")
    to_self = re.compile(
        rf"(?P<x>{N})[^，。；：]{{0,6}}?(?:(?:对|向|跟|告诉|{_CLASSICAL_TO})(?:{selfp})(?:"
        rf"[^，。；：「“]{{0,4}}?){_SPEECH}"
        rf"|(?:{_TO_SELF_VERB})(?:过|了)?(?:{selfp})(?![的之所])"
        rf"|(?P<letter>{_LETTER_TO_SELF})(?:过|了)?(?:{selfp}))"
    )
    # 那年在普陀，他跟我说: a pronoun for a master named nearby, speaking to the speaker
    pron_to_self = re.compile(
        rf"(?:{_PRONOUN})[^，。；：]{{0,4}}?(?:(?:对|向|跟|告诉)(?:{selfp})(?:"
        rf"[^，。；：「“]{{0,4}}?){_SPEECH}"
        rf"|(?:{_TO_SELF_VERB})(?:过|了)?(?:{selfp})(?![的之所]))"
    )
    return {
        "to_self": to_self,
        "pron_to_self": pron_to_self,
        "letter_from": re.compile(rf"(?P<y>{N}){_HON}{_LETTER_FROM}"),
        "scene_line": re.compile(
            rf"(?P<y>{N})[^，。；：「“]{{0,6}}?(?:{_SCENE_LEAD})[^。；「“]{{0,6}}?[：:](?="
            rf"[「“『])"
        ),
        "cont_self": re.compile(
            rf"{_CLAUSE_START}[^，。；：]{{0,4}}?(?:{_TO_SELF_VERB})(?:过|了)?(?:"
            rf"{selfp})(?![的之所们])"
        ),
        "hand_over": re.compile(rf"(?P<x>{N})[^，。；：]{{0,4}}?{_HAND_OVER}(?P<y>{N})"),
        "continue_to": re.compile(
            rf"{_CONTINUE_TO}(?P<y>{N})(?!{_HON}(?:的|之|所))[^，。；：「“]{{0,4}}?{_SPEECH}"
            rf"|{_CONTINUE_ACT}(?:过|了)?(?P<y2>{N})(?!{_HON}(?:的|之|所))"
        ),
        "ask_turn": re.compile(
            rf"(?P<x>{N})[^，。；：]{{0,6}}?{_ASK_TURN}(?P<y>{N})[^，。；：]{{0,6}}?"
            rf"{_ANSWER_TURN}"
        ),
        "pat_to": pat_to,
        "pat1": pat1,
        "pat2": pat2,
        "pat3": pat3,
        "pat4": pat4,
        "answer": re.compile(rf"(?P<y>{N})(?P<mid>[^，。；「“]{{0,8}}?){_ANSWER}"),
        "react1": re.compile(rf"(?P<y>{N})[^。；]{{0,12}}?{_REACT_AFTER}[^。；]{{0,8}}?{_REACT}"),
        "won_over": re.compile(
            rf"(?P<y>{N})[^。；]{{0,12}}?(?:{_REACT_AFTER}|对)"
            rf"(?P<z>[^。；]{{0,14}}?){_WON_OVER}"
        ),
        "letter": re.compile(
            rf"(?P<x>{N}|{selfp})[^，。；]{{0,6}}?(?:读|收到|接到|看了|读罢|拆阅|捧读|回复了?|"
            rf"回了)(?:了|过|完|到)?"
            rf"(?P<y>{N})(?:的|之)?(?:来信|书信|信函|来函|手书|书札|信|文钞|著作|文章|书|语录|开示录|偈子|诗偈|遗著)"
        ),
        "seen": re.compile(
            rf"(?:{selfp})[^，。；]{{0,4}}?(?:看见|看到|见到|瞧见|望见|遇见)(?:"
            rf"了)?(?P<y>{N})(?!{_HON}[的之所《])"
        ),
        "touch": re.compile(
            rf"(?P<x>{N})[^，。；]{{0,4}}?(?:抚|拉|握|拍|牵|扶|搀|执|携)(?:着|了|住|"
            rf"起)?(?P<y>{N})[的之]?"
            rf"(?:手|肩|肩膀|背|头|衣袖|袖子|胳膊)"
        ),
        "first_sight": re.compile(
            rf"(?P<x>{N})[^，。；]{{0,4}}?(?:一见|初见|乍见|见到|"
            rf"见了)(?P<y>{N})(?![的之所说论等诸])"
        ),
        "react2": re.compile(rf"(?P<y>{N})[^，。；]{{0,6}}?{_REACT_STRONG}"),
        "react3": re.compile(rf"(?P<y>{N})(?P<mid>[^，。；：「“]{{0,4}}?){_REACT_TOLD}"),
        "react4": re.compile(
            rf"(?P<y>{N})(?P<mid>[^，。；：「“]{{0,8}}?)[，,]"
            rf"(?:一时|顿时|当即|随即|不禁|竟|竟然|便|遂|只得|只好|半晌|良久|登时|立时|旋即)?"
            rf"{_REACT_TOLD}"
        ),
    }


def dialogue_hits(text: str, names: re.Pattern | None, key_of: dict[str, str], speaker_key: str = "") -> list[str]:
    """Every narrated exchange in ``text``: the phrases found."""
    if names is None:
        return []
    m_text = mask(text, '「『“‘"【')  # titles stay readable: they tell a text frame
    N = names.pattern
    hits: list[str] = []
    P = _patterns(N)
    pat1, pat2, pat3, pat4 = P["pat1"], P["pat2"], P["pat3"], P["pat4"]

    def key(name: str) -> str:
        return key_of.get(name, name)

    # a script: two masters each given a line (玄奘：「…」罗什：「…」)
    lines = [(mm.start(), key(mm.group("n"))) for mm in re.finditer(rf"(?P<n>{N})\s*[：:]\s*(?=[「“『])", text)]
    for (p1, k1), (p2, k2) in zip(lines, lines[1:], strict=False):
        if k1 != k2 and p2 - p1 <= 160:
            hits.append(text[p1 : p2 + 8])
    for s, e in sentences(text):
        sent = m_text[s:e]
        past = re.search(_PAST, sent) is not None
        debate_frame = _DEBATE_FRAME.search(sent) is not None

        def add(m: re.Match, s: int = s) -> None:
            hits.append(text[s + m.start() : s + m.end()])

        # the matches of a pattern that needs a master's name (a narrated exchange has one): none in a
        # sentence that names no master, which is then not scanned for them
        with_name = matches_in(sent) if names.search(sent) is not None else no_matches

        # X 对/向/问/跟 Y + speech verb; X 与/和 Y + meeting verb
        letter = _LETTER_SCENE.search(sent) is not None
        for m in with_name(pat1):
            x, y = m.group("x"), m.group("y") or m.group("y2")
            is_self = x in SELF
            if (is_self and not (past or letter)) or (not is_self and key(x) == key(y)) or debate_frame:
                continue
            add(m)
        for m in with_name(P["pat_to"]):
            if m.group("x") in SELF and not past:
                continue
            if key(m.group("x")) != key(m.group("y") or m.group("y2") or m.group("y3")) and not debate_frame:
                add(m)
        for m in with_name(P["to_self"]):
            # told as a scene: a past, a letter, or the words given as a line (印光大师劝我：「…」)
            scene = past or m.group("letter") is not None or sent[m.end() : m.end() + 1] in ("：", ":")
            if scene and not debate_frame and key(m.group("x")) != speaker_key:
                add(m)
        for m in with_name(P["scene_line"]):
            if (
                not debate_frame
                and not _TEXT_FRAME.search(sent[max(0, m.start() - 12) : m.end()])
                and not _NOT_TOLD.search(sent[max(0, m.start() - 6) : m.end()])
            ):
                add(m)  # 六祖哈哈一笑：「…」: a master's line told as a scene
        for m in with_name(P["hand_over"]):
            if key(m.group("x")) != key(m.group("y")) and not debate_frame:
                add(m)
        for m in with_name(P["continue_to"]):
            # the actor is a master named earlier in the sentence, or the speaker in a past scene
            earlier = {key(n.group(0)) for n in names.finditer(sent[: m.start()])} - {
                key(m.group("y") or m.group("y2")),
                "",
            }
            selfs = past and re.search(_self_pattern(), sent[: m.start()]) is not None
            if (earlier or selfs) and not debate_frame and not _TEXT_FRAME.search(sent[: m.end()]):
                add(m)
        for m in with_name(P["cont_self"]):
            # …讲完，还特地把我叫到一边: a master named earlier in the sentence acting on the speaker, in a past
            earlier = {key(n.group(0)) for n in names.finditer(sent[: m.start()])} - {speaker_key, ""}
            if past and earlier and not debate_frame:
                add(m)
        if _SELF_ANSWER.search(sent) and {key(n.group(0)) for n in names.finditer(text[max(0, s - 60) : e])} - {
            speaker_key,
            "",
        }:
            hits.append(text[s:e].strip()[:40])  # …」我答：「…」: the speaker's reply to a master's line, a script
        for m in P["pron_to_self"].finditer(sent):
            named = {key(n.group(0)) for n in names.finditer(text[max(0, s - 60) : e])} - {speaker_key, ""}
            if past and named and not debate_frame:
                add(m)
        for m in with_name(P["letter_from"]):
            if (
                key(m.group("y")) != speaker_key
                and not debate_frame
                and not _TEXT_FRAME.search(sent[max(0, m.start() - 8) : m.end()])
            ):
                add(m)
        for m in with_name(P["ask_turn"]):
            if key(m.group("x")) != key(m.group("y")) and not debate_frame and not _TEXT_FRAME.search(sent):
                add(m)
        for m in with_name(P["seen"]):
            if (
                key(m.group("y")) != speaker_key
                and not debate_frame
                and not _TEXT_FRAME.search(sent)
                and (past or re.search(r"仿佛|彷彿|好像|似乎|恍惚|梦中|梦见|眼前|那时", sent))
            ):
                add(m)  # 我仿佛看见印光大师合掌微笑: a scene of the opponent, told
        for key_ in ("letter", "first_sight", "touch"):
            for m in with_name(P[key_]):
                if key(m.group("x")) != key(m.group("y")) and not debate_frame:
                    add(m)
        for m in with_name(P["won_over"]):
            others = [n.group(0) for n in names.finditer(m.group("z"))]
            if (
                any(key(o) != key(m.group("y")) for o in others)
                and not debate_frame
                and not _TEXT_FRAME.search(sent[m.start() : m.end()])
            ):
                add(m)
        for m in with_name(pat2):
            x, y = m.group("x"), m.group("y")
            scene = re.search(_SCENE_MEET, m.group(0)) is not None  # 同在…寺, 对坐: a scene even without a past
            if (x in SELF and not (past or scene)) or (x not in SELF and key(x) == key(y)):
                continue
            gap = m.group(0)[m.end("y") - m.start() :]
            if any(c in gap for c in "的之间") or sent[m.end() : m.end() + 1] in ("的", "之") or debate_frame:
                continue  # 慧能与印光的辩论 / 二者之间的讨论: the debate named, not a meeting told
            add(m)
        # X 曾亲至某地 与/见 Y …; X 拜访 Y
        for m in with_name(pat3):
            x, y = m.group("x"), m.group("y")
            if (x in SELF and not past) or (x not in SELF and key(x) == key(y)):
                continue
            add(m)
        for m in with_name(pat4):
            x, y = m.group("x"), m.group("y")
            if (x in SELF and not past) or (x not in SELF and key(x) == key(y)):
                continue
            add(m)
        # a parting or a welcome told of one master, with another master in the same sentence:
        # 印光大师起身告辞时，慧能送至山门
        for m in with_name(_HOST):
            here = {key(n.group(0)) for n in names.finditer(sent)}
            if (
                len(here - {""}) >= 2
                and not debate_frame
                and not _TEXT_FRAME.search(sent)
                and not _NOT_TOLD.search(sent[max(0, m.start() - 6) : m.start()])
            ):
                add(m)
        for pat in (_PAIR, _PAIR_RECIPROCAL):
            for m in pat.finditer(sent):
                gap = m.group("gap")
                if gap[:1] in ("的", "之") or "之间的" in gap:
                    continue  # 两位大师的说法可以互相印证: their views named, not a meeting told
                add(m)
        # reactions
        for m in with_name(P["react1"]):
            if _NOT_TOLD.search(sent[max(0, m.start() - 6) : m.start()]) or re.search(
                r"若|如果|倘|假如|恐怕|想必|或许|也许|必定|定然|一定|会", m.group(0)[len(m.group("y")) :]
            ):
                continue  # 若印光大师闻此说，想必也会点头: supposed, not told
            add(m)
        for m in with_name(P["react2"]):
            add(m)
        for key_ in ("react3", "react4"):
            for m in with_name(P[key_]):
                mid = m.group("mid")
                before = sent[max(0, m.start() - 8) : m.start()]
                if (
                    any(c in mid for c in "的之所《令让使叫")
                    or _NOT_TOLD.search(mid)
                    or _NOT_TOLD.search(before)
                    or _TEXT_FRAME.search(sent[max(0, m.start() - 12) : m.end()])
                ):
                    continue  # 印光大师的摇头 / 若在此必定摇头 / 常叹 / 在《文钞》中叹: not a reaction told
                add(m)
        for m in re.finditer(rf"{_REACT_AFTER}[^，。；]{{0,4}}?{_REACT_STRONG}", sent):
            if names.search(text[max(0, s - 60) : e]):
                add(m)
        # narrated answers and questions
        for m in with_name(P["answer"]):
            mid = m.group("mid")
            window = sent[max(0, m.start() - 12) : m.end()]
            if _TEXT_FRAME.search(window) or _DEBATE_FRAME.search(window) or any(c in mid for c in "《的之所"):
                continue
            line = m_text[text.rfind("\n", 0, s) + 1 : s + m.start()]  # the record may open the line (…？惠能对曰)
            if _TEXT_FRAME.search(line) and len({key(n.group(0)) for n in names.finditer(line + sent)}) == 1:
                continue  # 《坛经》记五祖问曰…惠能答曰: a text's own record, one master of the pack in it
            verb = m.group(0)[len(m.group("y")) + len(mid) :]
            if verb.startswith("问") and not past and not re.search(_MANNER, mid):
                continue  # a question alone is narration only in a story (当时 X 问)
            add(m)
    return list(dict.fromkeys(hits))
