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

It allows: quoting a master's text (六祖曰：「…」), quoting the opponent's stated position to answer it
(印光大师主张「…」，然而…), the Buddha speaking to a disciple (佛告舍利弗), a master teaching his own
disciples, and the speaker addressing the opponent now (请问印光大师：…？).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional

from debate_core.checks._lexicon import SELF
from debate_core.content.text import mask, sentences

_PAST = r"(?:曾经|曾|当年|昔日|昔年|早年|那日|那年|一日|某日|有一次|当时|彼时|其时|后来|那天|那一次|那次|那回|有一回|记得)"
_SPEECH = (r"(?:说道|说|道|讲|言|曰|云|问|答|请教|请益|开示|表示|坦言|笑|叹|称|谈|论|发问|提问|追问|反问|质问|回答|"
           r"顶礼|礼拜|作礼|合掌|合十|致意|问讯|问候|作揖|施礼|还礼|鞠躬|行礼|拱手|求教|请法|问法|点头|颔首)")
_MEET = (r"(?:论道|论法|谈法|说法|对谈|交谈|相谈|畅谈|晤谈|面谈|共话|问答|辩论|论辩|辩难|问难|相见|会面|见面|相遇|相会|"
         r"对坐|同坐|相对而坐|相视|促膝|寒暄|握手|拱手|叙谈|谈论|切磋|对答|辩了|辩至|论了|谈了|一问一答|你来我往|"
         r"坐而论道|同参|同行|会晤|相逢|重逢|见过|讨论|探讨|商讨|研讨|交流|议论|论议|共修|共参|商量|对弈|共饮|品茶|同游|同住|共住|同登|相约|相伴|结伴|"
         r"(?:长|深|夜|畅|恳|密|笔|细|闲|促膝|彻夜|连日|当面)谈|谈禅|论禅|说禅|话禅|共论|论难|激辩|对辩|争辩|舌战|交锋|过招|"
         r"较量|斗法|往来|书信往来|通信|通书|互通|互致|酬唱|唱和|赠答|酬答|结交|相交|订交|相识|过从|盘桓|印可|请益|"
         r"争执|争论|争吵|不欢而散|分手|告别|作别|道别|辞别|握别|对话|同在一|同处|共处|同寺|挂单|"
         r"同台|同席|同座|同场|同一(?:法会|场合|寺|道场|讲堂)|"
         r"(?:一同|一起|共同|同台|同堂|一道|并肩)[^，。；]{0,3}?(?:讲经|说法|讲法|弘法|弘化|开示|论法|修行|念佛|参禅|打坐|用功|闭关|住|游|坐|行|听经|译经))")
_TRAVEL = r"(?:亲至|亲赴|亲往|专程|特地|特意|前往|来到|赶到|赴|到|至|往|造访|登门|入|上)"
_VISIT = r"(?:拜访|参访|拜谒|谒见|拜见|参见|会见|造访|探望|求见|面见|晋见|叩见|参谒|亲近|见了|见到|遇到|遇见|逢)"
_REACT_AFTER = (r"(?:听罢|听完|听了|闻言|闻罢|闻之|闻此|听后|见状|听到这里|听到此处|闻听|"
                r"(?:闻|听|听到|听闻|听说)[^，。；]{0,8}?(?:之言|此言|所言|之说|所说|此说|的话|之语|此语|一番话|这番话|这话|开示|说法))")
_REACT = (r"(?:默然良久|默然不语|默然无语|默然|连连点头|点头称是|点头称善|颔首称是|频频点头|点头|颔首|称是|称善|哑口无言|"
          r"无言以对|语塞|沉吟|拂袖而去|拂袖|抚掌|拍案|大笑|微笑|一笑|相视而笑|会心一笑|合掌|起身|作礼|叹息|长叹|"
          r"肃然|动容|释然|恍然|欣然|愕然|哑然|皱眉|蹙眉|皱起(?:了)?眉头?|眉头一皱|摇头|叹道|称赞|赞叹|大喜|不悦|变色)")
_REACT_STRONG = (r"(?:默然良久|默然不语|默然无语|连连点头|点头称是|点头称善|颔首称是|频频点头|哑口无言|无言以对|语塞|"
                 r"拂袖而去|抚掌大笑|相视而笑|会心一笑|合掌称善|起身作礼|作礼而退|听罢默然|闻言默然|微微一笑|淡淡一笑|"
                 r"哈哈大笑|笑而不答|笑而不语|默然不答|不置可否|没有作答|未作答|沉默不语|良久不语|一言不发|若有所思|"
                 r"(?:终于|当场|当下|最终)?被[^，。；]{0,6}?(?:说服|折服|驳倒|问住|难住|点醒|打动|驳得)|心悦诚服)")
# being won over or awakened by another master's words: told only when that master is named too
_WON_OVER = r"(?:当下|当即|顿时|立即|随即|便|就|遂|终于)?(?:开悟|大悟|省悟|领悟|信服|折服|叹服|心服|拜服|赞叹不已|称赞|满意|释然)"
_ANSWER = (r"(?:答曰|答道|回答道|回答说|回道|答云|对曰|应道|应声道|应声说|笑道|笑答|笑曰|叹道|反问道|沉吟道|接口道|"
           r"回应道|答：|答:|问道：|问道:|问曰|问：|问:)")
_TEXT_FRAME = re.compile(r"(?:在|于)《[^》]*》|《[^》]*》(?:中|里|云|曰|有言|所|卷)|书中|信中|文中|文钞|开示录|语录|"
                         r"(?:答|复|与)[^，。：]{0,6}(?:书|信)")
_DEBATE_FRAME = re.compile(r"方才|刚才|适才|上一轮|上轮|前一轮|本轮|此前|先前|前面|在辩论中|本场|这场辩论|此番辩论|辩论中|"
                           r"开篇|立论中|发言中")
_PAIR_WORDS = (r"(?:两位大师|两位祖师|二位大师|二位祖师|双方祖师|双方大师|两位高僧|二位高僧|两位老人家|他们二人|他们两人|"
               r"两人|二人|两位|二位|二师|两师|二老|宾主|二祖|二公|两公|他俩)")
_PAIR = re.compile(_PAIR_WORDS + r"(?P<gap>[^，。；：]{0,8}?)" + _MEET)
# a pair, then (in this clause or the next) a reciprocal exchange: 二师书信往来，互相切磋
_PAIR_RECIPROCAL = re.compile(_PAIR_WORDS + r"(?P<gap>[^。；：]{0,14}?)(?:互相|相互|彼此|往复|往返|来回)"
                              r"(?:切磋|请益|问难|辩难|论难|勉励|致意|酬答|唱和|问答|对答|辩论|论辩|争辩|交流|讨论|商讨|"
                              r"探讨|拜访|请教|印可|赞叹|致信|通信|问讯|问候|答问|质问|驳难)")
# a reaction of a master, told as it happened: 印光面露难色, 六祖抚掌大笑, 慧能沉吟半晌
_REACT_TOLD = (r"(?:面露[^，。；]{1,3}|面有(?:难色|愧色|喜色|惭色|窘色|不悦之色|得色)|面红耳赤|脸色(?:一变|大变|发白|铁青)|"
               r"神色(?:一变|黯然|凝重|一凛)|(?:一时)?语塞|张口结舌|瞠目结舌|目瞪口呆|哑口无言|无言以对|无言可对|"
               r"说不出话|默不作声|拍案(?:而起|叫绝|称奇|称善)?|抚掌|大笑|摇头|颔首|叹息|长叹|沉吟|拂袖|皱眉|蹙眉|莞尔|"
               r"失笑|一愣|一怔|愣住|怔住|默然|变色|动容|不悦|大怒|勃然|赧然|愕然|哑然|点头|微笑|合掌微笑|合十微笑)")
# a parting, a welcome or hospitality (告辞, 送至山门, 出迎, 款待, 留宿): a meeting told
_HOST = re.compile(r"告辞|辞行|拜别|辞别|送(?:至|到|出|别|行)(?!给)|相送|出迎|迎(?:至|入|出)|款待|招待|留宿|挽留|设斋|奉茶|让座|"
                   r"读后回了|回赠|回了一(?:首|偈|封|信)|和了一(?:首|偈)")
# not the name's possessive (印光大师的…), even when the name's alias is a prefix of the full name
_HON = r"(?:老和尚|大和尚|老法师|大师|法师|禅师|尊者|和尚|祖师|菩萨|三藏|长老|论师)?"
_NOT_TOLD = re.compile(r"若|如果|倘|假如|假使|会|恐怕|想必|或许|也许|必定|定然|一定|必然|势必|只怕|怕是|大概|"
                       r"常|每|屡|往往|一生|平生|多次|一向|向来|素来|总是")


def _self_pattern() -> str:
    return "|".join(SELF)


@lru_cache(maxsize=32)
def _patterns(N: str) -> dict[str, re.Pattern]:
    selfp = _self_pattern()
    pat1 = re.compile(rf"(?P<x>{N}|{selfp})(?:[^，。；：]{{0,6}}?)(?:(?:对|向|跟|告诉|回应|回复|应答|回敬)(?P<y>{N})"
                      rf"(?!{_HON}(?:的|之|所))(?:[^，。；：「“]{{0,4}}?){_SPEECH}"
                      rf"|(?:问|质问|请教|回答|答复|反问|追问|写信给|致信|致书|修书给|寄信给|回信给|去信给|寄给|寄与|寄赠|赠给|赠与|"
                      rf"送给|送与|呈给|呈与|递给|交给|带给|劝过|劝说|劝告|开导|点拨|呵斥|喝斥|斥责|棒喝|邀请|邀约|款待|接待|"
                      rf"迎接|送别|相送|挽留|搀扶|扶起|拍了拍|握住|拉住)(?:过|了)?(?P<y2>{N}))")
    # X looks at, or gives or sends through someone to, Y: 智者大师看了六祖一眼, 印光托人给六祖捎去
    pat_to = re.compile(rf"(?P<x>{N})[^，。；：]{{0,8}}?(?:(?:看了|望了|瞥了|瞪了|注视着|打量着?|看着|望着|盯着)(?P<y>{N})(?!{_HON}[的之所《])"
                        rf"|为(?P<y3>{N})(?!{_HON}[的之所《])[^，。；：]{{0,4}}?(?:唱|讲|说|开示|传|灌顶|授|演|献|诵|奉|倒|斟|端)"
                        rf"|(?:给|替|帮)(?P<y2>{N})(?!{_HON}[的之所])[^，。；：]{{0,4}}?(?:捎|寄|送|写|带|递|回|讲|说|开示|解释|讲解|倒|斟|端))")
    pat2 = re.compile(rf"(?P<x>{N}|{selfp})(?:[^，。；：]{{0,8}}?)(?:与|和|同|跟)(?P<y>{N})"
                      rf"(?:[^，。；：「“]{{0,8}}?){_MEET}")
    pat3 = re.compile(rf"(?P<x>{N}|{selfp})[^，。；]{{0,4}}?{_TRAVEL}[^，。；]{{0,10}}?(?:与|和|同|见|访|谒|拜见|参见)"
                      rf"(?P<y>{N})")
    pat4 = re.compile(rf"(?P<x>{N}|{selfp})[^，。；]{{0,10}}?{_VISIT}(?:过|了)?(?P<y>{N})")
    to_self = re.compile(rf"(?P<x>{N})[^，。；：]{{0,6}}?(?:(?:对|向|跟|告诉)(?:{selfp})(?:[^，。；：「“]{{0,4}}?){_SPEECH}"
                         rf"|(?:问|质问|反问|追问|劝|请教|拜访|看望)(?:过|了)?(?:{selfp})(?![的之所]))")
    return {"to_self": to_self, "pat_to": pat_to, "pat1": pat1, "pat2": pat2, "pat3": pat3, "pat4": pat4,
            "answer": re.compile(rf"(?P<y>{N})(?P<mid>[^，。；「“]{{0,8}}?){_ANSWER}"),
            "react1": re.compile(rf"(?P<y>{N})[^。；]{{0,12}}?{_REACT_AFTER}[^。；]{{0,8}}?{_REACT}"),
            "won_over": re.compile(rf"(?P<y>{N})[^。；]{{0,12}}?(?:{_REACT_AFTER}|对)(?P<z>[^。；]{{0,14}}?){_WON_OVER}"),
            "letter": re.compile(rf"(?P<x>{N}|{selfp})[^，。；]{{0,6}}?(?:读|收到|接到|看了|读罢|拆阅|捧读|回复了?|回了)(?:了|过|完|到)?"
                                 rf"(?P<y>{N})(?:的|之)?(?:来信|书信|信函|来函|手书|书札|信|文钞|著作|文章|书|语录|开示录|偈子|诗偈|遗著)"),
            "seen": re.compile(rf"(?:{selfp})[^，。；]{{0,4}}?(?:看见|看到|见到|瞧见|望见|遇见)(?:了)?(?P<y>{N})(?!{_HON}[的之所《])"),
            "touch": re.compile(rf"(?P<x>{N})[^，。；]{{0,4}}?(?:抚|拉|握|拍|牵|扶|搀)(?:着|了|住|起)?(?P<y>{N})的?"
                                rf"(?:手|肩|肩膀|背|头|衣袖|袖子|胳膊)"),
            "first_sight": re.compile(rf"(?P<x>{N})[^，。；]{{0,4}}?(?:一见|初见|乍见|见到|见了)(?P<y>{N})(?![的之所说论等诸])"),
            "react2": re.compile(rf"(?P<y>{N})[^，。；]{{0,6}}?{_REACT_STRONG}"),
            "react3": re.compile(rf"(?P<y>{N})(?P<mid>[^，。；：「“]{{0,4}}?){_REACT_TOLD}"),
            "react4": re.compile(rf"(?P<y>{N})(?P<mid>[^，。；：「“]{{0,8}}?)[，,](?:一时|顿时|当即|随即|不禁|竟|竟然|便|遂|"
                                 rf"只得|只好|半晌|良久|登时|立时|旋即)?{_REACT_TOLD}")}


def dialogue_hits(text: str, names: Optional[re.Pattern], key_of: dict[str, str],
                  speaker_key: str = "") -> list[str]:
    """Every narrated exchange in ``text``: the phrases found."""
    if names is None:
        return []
    m_text = mask(text, "「『“‘\"【")  # titles stay readable: they tell a text frame
    N = names.pattern
    hits: list[str] = []
    P = _patterns(N)
    pat1, pat2, pat3, pat4 = P["pat1"], P["pat2"], P["pat3"], P["pat4"]

    def key(name: str) -> str:
        return key_of.get(name, name)

    # a script: two masters each given a line (玄奘：「…」罗什：「…」)
    lines = [(mm.start(), key(mm.group("n"))) for mm in re.finditer(rf"(?P<n>{N})\s*[：:]\s*(?=[「“『])", text)]
    for (p1, k1), (p2, k2) in zip(lines, lines[1:]):
        if k1 != k2 and p2 - p1 <= 160:
            hits.append(text[p1:p2 + 8])
    for s, e in sentences(text):
        sent = m_text[s:e]
        past = re.search(_PAST, sent) is not None
        debate_frame = _DEBATE_FRAME.search(sent) is not None

        def add(m: re.Match) -> None:
            hits.append(text[s + m.start(): s + m.end()])

        # X 对/向/问/跟 Y + speech verb; X 与/和 Y + meeting verb
        for m in pat1.finditer(sent):
            x, y = m.group("x"), m.group("y") or m.group("y2")
            is_self = x in SELF
            if (is_self and not past) or (not is_self and key(x) == key(y)) or debate_frame:
                continue
            add(m)
        for m in P["pat_to"].finditer(sent):
            if key(m.group("x")) != key(m.group("y") or m.group("y2") or m.group("y3")) and not debate_frame:
                add(m)
        for m in P["to_self"].finditer(sent):
            if (past or "当面" in sent) and not debate_frame and key(m.group("x")) != speaker_key:
                add(m)
        for m in P["seen"].finditer(sent):
            if key(m.group("y")) != speaker_key and not debate_frame and not _TEXT_FRAME.search(sent) and \
                    (past or re.search(r"仿佛|彷彿|好像|似乎|恍惚|梦中|梦见|眼前|那时", sent)):
                add(m)  # 我仿佛看见印光大师合掌微笑: a scene of the opponent, told
        for key_ in ("letter", "first_sight", "touch"):
            for m in P[key_].finditer(sent):
                if key(m.group("x")) != key(m.group("y")) and not debate_frame:
                    add(m)
        for m in P["won_over"].finditer(sent):
            others = [n.group(0) for n in names.finditer(m.group("z"))]
            if any(key(o) != key(m.group("y")) for o in others) and not debate_frame \
                    and not _TEXT_FRAME.search(sent[m.start(): m.end()]):
                add(m)
        for m in pat2.finditer(sent):
            x, y = m.group("x"), m.group("y")
            if (x in SELF and not past) or (x not in SELF and key(x) == key(y)):
                continue
            gap = m.group(0)[m.end("y") - m.start():]
            if any(c in gap for c in "的之间") or sent[m.end(): m.end() + 1] in ("的", "之") or debate_frame:
                continue  # 慧能与印光的辩论 / 二者之间的讨论: the debate named, not a meeting told
            add(m)
        # X 曾亲至某地 与/见 Y …; X 拜访 Y
        for m in pat3.finditer(sent):
            x, y = m.group("x"), m.group("y")
            if (x in SELF and not past) or (x not in SELF and key(x) == key(y)):
                continue
            add(m)
        for m in pat4.finditer(sent):
            x, y = m.group("x"), m.group("y")
            if (x in SELF and not past) or (x not in SELF and key(x) == key(y)):
                continue
            add(m)
        # a parting or a welcome told of one master, with another master in the same sentence:
        # 印光大师起身告辞时，慧能送至山门
        for m in _HOST.finditer(sent):
            here = {key(n.group(0)) for n in names.finditer(sent)}
            if len(here - {""}) >= 2 and not debate_frame and not _TEXT_FRAME.search(sent) \
                    and not _NOT_TOLD.search(sent[max(0, m.start() - 6): m.start()]):
                add(m)
        for pat in (_PAIR, _PAIR_RECIPROCAL):
            for m in pat.finditer(sent):
                gap = m.group("gap")
                if gap[:1] in ("的", "之") or "之间的" in gap:
                    continue  # 两位大师的说法可以互相印证: their views named, not a meeting told
                add(m)
        # reactions
        for m in P["react1"].finditer(sent):
            if _NOT_TOLD.search(sent[max(0, m.start() - 6): m.start()]) or \
                    re.search(r"若|如果|倘|假如|恐怕|想必|或许|也许|必定|定然|一定|会", m.group(0)[len(m.group("y")):]):
                continue  # 若印光大师闻此说，想必也会点头: supposed, not told
            add(m)
        for m in P["react2"].finditer(sent):
            add(m)
        for key_ in ("react3", "react4"):
            for m in P[key_].finditer(sent):
                mid = m.group("mid")
                before = sent[max(0, m.start() - 8): m.start()]
                if any(c in mid for c in "的之所《令让使叫") or _NOT_TOLD.search(mid) or _NOT_TOLD.search(before) \
                        or _TEXT_FRAME.search(sent[max(0, m.start() - 12): m.end()]):
                    continue  # 印光大师的摇头 / 若在此必定摇头 / 常叹 / 在《文钞》中叹: not a reaction told
                add(m)
        for m in re.finditer(rf"{_REACT_AFTER}[^，。；]{{0,4}}?{_REACT_STRONG}", sent):
            if names.search(text[max(0, s - 60): e]):
                add(m)
        # narrated answers and questions
        for m in P["answer"].finditer(sent):
            mid = m.group("mid")
            window = sent[max(0, m.start() - 12): m.end()]
            if _TEXT_FRAME.search(window) or _DEBATE_FRAME.search(window) or any(c in mid for c in "《的之所"):
                continue
            verb = m.group(0)[len(m.group("y")) + len(mid):]
            if verb.startswith("问") and not past:
                continue  # a question alone is narration only in a story (当时 X 问)
            add(m)
    return list(dict.fromkeys(hits))
