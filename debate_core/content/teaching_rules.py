"""What the pack reader sets aside, and why: the reasons, and the judgement of one sentence.

The reader (:mod:`debate_core.content.teachings`) splits a master's files into lines and sentences;
this module decides whether one sentence is the master's teaching or something else, by structure
and by properties of the sentence (a URL, Latin letters left after the glosses are removed,
unbalanced brackets, an editorial cue, an attribution to another speaker, a predicate, its length),
never by a list of known sentences.  ``sentence_reason`` returns the reason it is set aside (a key
of ``REASONS``), or None for a teaching; ``section_reason`` does the same for a whole section by its
heading.  The patterns both the reader and the judgement use are public here.
"""

from __future__ import annotations

import re

from debate_core.content.text import balanced, cjk_len

__all__ = ["REASONS", "MIN_CJK", "MAX_CJK", "clauses_of", "section_reason", "sentence_reason"]

# Reasons, in the order ``pack check`` lists them.
REASONS = {
    "heading": "标题或小标签",
    "table": "表格",
    "meta": "出处、来源、主旨等编者注记",
    "editorial": "编辑规则与引用说明",
    "reading_list": "书目与参考读物",
    "url": "网址",
    "link": "markdown 链接",
    "foreign": "外文段落",
    "quote": "他人话语（经文、问者）",
    "fragment": "残句、引导语或半截列表",
    "code": "代码块",
    "duplicate": "与另一条教言重复",
    "instruction": "电报式的操作步骤",
    "description": "对宗派、传承的第三人称介绍",
    "narrative": "生平事迹与叙事",
}

MIN_CJK = 9  # a teaching unit is a sentence, not a word
MAX_CJK = 110  # longer units are split at ；

LATIN = re.compile(r"[A-Za-zÀ-ɏḀ-ỿ]")
URL = re.compile(r"https?://|www\.|\b[\w-]+\.(?:org|com|net|io|app|edu|cn|tw)\b", re.I)
MD_LINK = re.compile(r"\[[^\]]*\]\([^)]*\)")
# Editorial cues: what a pack says to whoever quotes it, not what the master taught.
EDITORIAL = re.compile(
    r"引用(?:时|時|本文件|格式|规范|規範|警示)|(?:应|應|须|須|必须|必須)(?:注明|冠以|标明|標明)|不得作为|不得作為|不得(?:引|归|歸|虚|將|将)"
    r"|不可(?:将|將|代笔|代筆|虚构|虛構|归于|歸於|把)|深入研究|请(?:查阅|参阅|访问|參閱|訪問)|(?:原文|全文|完整经文|完整經文)请"
    r"|本文件|本目录|本目錄|本规则|本規則|本(?:角色|技能|选段|選段)|收录|收錄|欢迎|歡迎|\bPR\b|授权|授權|出版社|出版物"
    r"|节选自|節選自|仅(?:介绍|供|作)|僅(?:介紹|供|作)|不替代|不代表完整|HARD-GATE|SKILL\.md|⚠|注意[：:]|警示|免责|免責"
    r"|网络|網絡|本项目|本項目|逐字|转述|轉述|非.{0,6}(?:原话|原話|逐字)|以.{0,8}为准|為準|为准|检索|檢索|对照|對照|公开元数据|公開元數據"
)
OTHER_SPEAKERS = re.compile(
    r"佛陀|佛告|佛说|佛說|世尊|如来|如來|学人|學人|弟子|问者|問者|比丘|居士|某|有人|或问|或問"
    r"|僧问|僧問|舍利弗|须菩提|須菩提|阿难|阿難|文殊|维摩|維摩|龙树|龍樹|提婆|护法|護法|世亲|世親|寂天|月称|月稱"
)


_SECTION_KINDS = (
    ("editorial", re.compile(r"引用|警示|注意|说明|說明|规范|規範|免责|免責|授权|授權|版权|版權|校勘|凡例")),
    (
        "reading_list",
        re.compile(
            r"参考|參考|书目|書目|延伸|阅读|閱讀|资源|資源|链接|鏈接|著作|精通经典|所依经典|"
            r"经典列表|索引|收录"
        ),
    ),
    (
        "meta",
        re.compile(
            r"辩论立场|辯論立場|立场|立場|风格|風格|语气|語氣|口吻|人设|人設|生平|背景|简介|簡介|传承与|"
            r"傳承與|年表|年谱|年譜|小传|小傳|人物|史略|影响|影響|评价|評價"
        ),
    ),
)


def section_reason(heading: str) -> str:
    for reason, pat in _SECTION_KINDS:
        if pat.search(heading):
            return reason
    return ""


# What makes a short unit a statement rather than a noun phrase: a copula, a modal, a negation, a verb of teaching.
PREDICATE = re.compile(
    r"是|为|為|即|乃|有|无|無|不|非|莫|勿|能|可|须|須|要|应|應|当|當|则|則|便|就|才|方|皆|都|亦|也|"
    r"令|使|让|讓|会|會|得|在|如|若|者|矣|也|故|因|所以|成|生|灭|滅|见|見|知|住|离|離|归|歸|依"
)
_OTHER_SAYS = re.compile(r"^(?P<who>[^，。：:；]{1,8}?)(?:云|曰|說|说|言|告)(?:[：:]|(?=[^，。]{4}))")


def clauses_of(text: str) -> list[str]:
    return [c for c in re.split(r"[，；,;。！？]", text) if c]


def sentence_reason(s: str, names: list[str]) -> str | None:
    if URL.search(s):
        return "url"
    if MD_LINK.search(s):
        return "link"
    if EDITORIAL.search(s):
        return "editorial"
    if LATIN.search(s):
        return "foreign"
    if not balanced(s) or "…" in s or "..." in s or re.search(r"[【《「『（(\[]\s*$", s):
        return "fragment"
    if cjk_len(s) < MIN_CJK or s.rstrip("。").endswith(("：", ":", "——", "—", "→", "+", "、")):
        return "fragment"
    if re.match(r"^(?:佛陀|佛|世尊|如来|如來)(?:说|說|告|言|曰|云)(?:[^，。]{0,12}[：:]|[^，。]{4})", s):
        return "quote"
    if re.match(r"^[—–\-：:，,、）)】」』”]", s) or re.match(r"^[（(][^）)]*[）)]。?$", s):
        return "fragment"
    if any(n in s for n in names):
        return "meta"  # the editors speaking about the master in the third person
    q = _OTHER_SAYS.match(s)
    if q and (
        OTHER_SPEAKERS.search(q.group("who"))
        or re.search(r"古德|古人云|祖师|六祖|经云|經云|偈|佛$|论云|論云", q.group(0))
    ):
        return "quote"
    if re.match(r"^(?:偈曰|偈云|颂曰|頌曰|常勉|告诫|告誡)", s):
        return "quote"
    if re.match(
        r"^(?:诸比丘|諸比丘|比丘们|比丘們|舍利弗|须菩提|須菩提|善男子|善女人|阿难|阿難|大慧|文殊师利)[，,！!]", s
    ):
        return "quote"  # the Buddha addressing his hearers: a sutra's words
    body = s.rstrip("。！？")
    if not re.search(r"[，；：,;:]", body) and cjk_len(body) < 16 and not PREDICATE.search(body):
        return "fragment"  # a noun phrase or a list item (业处分类与选择标准), not a sentence
    items = [x for x in re.split(r"[、，]", body) if x]
    if (
        body.count("、") >= 3
        and not re.search(r"[，；：,;:]", body)
        and cjk_len(items[0]) <= 6
        and sum(cjk_len(x) for x in items) / max(1, len(items)) <= 6
    ):
        return "fragment"  # an enumeration (空无边处、识无边处、无所有处…)
    if body.count("、") >= 2 and not re.search(r"[，；：,;:]", body) and all(cjk_len(x) <= 6 for x in items):
        return "fragment"  # a short list (乐受、苦受、不苦不乐受): names, not a statement
    if re.match(
        r"^(?:此|这|该|上述|以上|前述)(?:一)?(?:典故|偈|喻|譬喻|六义|句|段|则|条|篇|经|论|故事|公案|传说|傳說|"
        r"说|說|即|乃|为|举|事)",
        body,
    ):
        return "fragment"  # leans on a passage that is not there (此典故说明…, 此偈非否定身心…)
    if (
        re.match(r"^(?:此|这|這|该|該)[义義理点點处處语語言文品喻句段节節条條章图圖表例]", body)
        or re.search(r"(?:为|為|是)此(?:之|的)", body)
        or re.match(r"^即[^，。]{0,8}(?:所说|所說|所谓|所謂|之说|之說)", body)
    ):
        return "fragment"  # 此义为天台独有之说 / 为此之入门简本 / 即中论所说… — lean on a passage that is not there
    if re.match(r"^(?:如|比如|例如)(?!《|来|來|是|实|實|法|理|今|此)[^，。；]{1,12}[，,]", body) and not re.search(
        r"是|即|乃", body[:12]
    ):
        return "fragment"  # 如般若，音译令人生敬重心… — an example taken out of its list
    if re.match(r"^(?:即在|即是|即为|即為|即以|即于|即於)", body) or re.match(
        r"^(?:源自|源于|源於|出自|语出|語出|典出|"
        r"见于|見於|载于|載於)",
        body,
    ):
        return "fragment"  # 即在世间… / 源自那若巴祖师所集之六法 — a predicate or a provenance, its subject elsewhere
    if re.match(r"^(?:为|為|乃|系|係)[^，；,;]{2,}$", body):
        return "fragment"  # 为天台教观的理论基石 — a predicate whose subject was a table's first column
    if (
        re.search(
            r"(?:之|的)(?:核心|纲要|綱要|基石|理论基石|理論基石|入门|入門|简本|簡本|总纲|總綱|代表作|主要著作|"
            r"核心内容|核心內容)$",
            body,
        )
        and "，" not in body
    ):
        return "description"  # 此十境十乘观法为《摩诃止观》之核心 — describes a work, teaches nothing
    if re.search(r"(?:的|之)?(?:系统|系統)?(?:教材|教本|读本|讀本|入门书|入門書)$", body):
        return "description"  # 六论…构成…最早的系统道次第教材 — describes texts, teaches nothing
    if re.match(
        r"^[^。：:]{2,40}(?:的|之)(?:超越|意义|意義|要点|要點|核心|特点|特點|关键|關鍵|区别|區別|总结|總結|含义"
        r"|含義|回应|回應)[：:]",
        body,
    ):
        return "fragment"  # 对…偈的超越：… — an editor's label before a gloss
    if (
        not re.search(r"[，；：,;:]", body)
        and re.search(
            r"[一二三四五六七八九十百千两兩几幾]+(?:种|種|类|類|门|門|重|项|項|支|境|乘)[\u4e00-\u9fff]{0,6}$", body
        )
        and not re.search(r"是|为|為|乃|有|须|須|应|應|当|當|能|可", body)
        and not re.search(r"(?:派|传承|傳承)$", body)
    ):
        return "fragment"  # 正修止观前的二十五种方便 — a count of items, a list's label
    if (
        re.match(r"^(?:以此|借此|藉此|由此可见|说明|說明|体现|體現)", body)
        or re.match(r"^此[\u4e00-\u9fff]{1,4}(?:体现|體現|说明|說明|表明|显示|顯示|可见|可見)", body)
        or re.match(r"^[^，。：:]{0,3}(?:为|為|曰|云)[：:]", body)
    ):
        return "fragment"  # 以此勉励学人…, 此志愿体现了…, 合为：… — lean on a passage or a lead-in that is not there
    if re.match(r"^(?:是|而是|不会|不會|也不会|但是?|却|卻|故曰|(?:听|聽|闻|聞)此)", body):
        return "fragment"  # 是托住你的栏杆 / 不会因为… — the second half of a sentence whose first half is elsewhere
    if sum(1 for c in clauses_of(body) if cjk_len(c) <= 3 and c.endswith("了")) >= 2:
        return "narrative"  # 手累了，水洒了 — a scene told, not a teaching
    if (
        re.match(
            r"^(?:尊者|老和尚|大师|大師|智者大师|智者大師|和尚|上人|五祖|六祖|其师|其師"
            r"|其(?:翻译|翻譯|译文|譯文|著作))"
            r"(?!云|曰|说|說|言|告)",
            body,
        )
        or re.match(
            r"^(?:先后|先後|后来|後來|后读|後讀|晚年|早年|初至|初到|著《|撰《|常以(?:此)?(?:自身|亲身|"
            r"親身)经历)",
            body,
        )
        or re.match(r"^(?:期间|期間|如此反复|如此反覆|最终|最終|并嘱咐|並囑咐|嘱咐|囑咐|教导弟子|教導弟子)", body)
        or re.search(r"尊者|(?:对|對|劝|勸)其", body)
        or re.match(r"^(?:问及|問及|事后|事後)", body)
        or re.search(
            r"(?:生命历程|生命歷程|行脚不停|由此而立|(?:成为|成為|为|為)[^。，]{0,6}(?:千古名句|文学经典|"
            r"文學經典))",
            body,
        )
    ):
        return "narrative"  # 尊者以一首长歌回答… / 老和尚一百二十年的生命历程中… — told about him, not taught by him
    if (
        re.match(r"^此[\u4e00-\u9fff]{0,2}(?:后被|後被)|^此[\u4e00-\u9fff]{0,4}(?:成为|成為)", body)
        or re.search(r"(?:之人|的人)$", body)
        and not re.search(r"是|为|為|乃|须|須|应|應|当|當|能|可", body)
    ):
        return "fragment"  # 此见后被…扩展 / 发菩提心…之人 — a list item defining a kind of person
    if re.match(r"^(?:适合|適合|适用|適用|适于|適於)", body):
        return "fragment"  # 适合在家居士… — says what a method suits; the method is not named
    clauses = [c for c in re.split(r"[，；,;]", body) if c]
    if (
        re.search(r"[\u4e00-\u9fff]{2}、[\u4e00-\u9fff](?:$|[，；。])", body)
        or sum(1 for c in clauses[1:] if cjk_len(c) <= 2 and not re.search(r"[者也矣]$", c)) >= 2
    ):
        return "instruction"  # 标记步、步 / 标升；…标降 — a meditation manual's telegraphic steps
    if re.search(r"(?:派|传承|傳承)$", body) and not re.search(r"是|为|為|乃", body):
        return "description"  # 冈波巴下又分出…噶举派 — the branches of a lineage
    if re.match(
        r"^[\u4e00-\u9fff]{1,10}(?:派|传承|傳承|一系|道场|道場)(?:以[^。]{1,40}?(?:为|為)[^。]{0,12}?(?:基础|"
        r"基礎|根本|正式|日常|特色|核心)"
        r"|[^。]{0,30}?包括)",
        body,
    ):
        return "description"  # 森林禅林派以…为日常生活基础，包括… — describes a school, teaches nothing
    if re.match(
        r"^(?:途经|途經|行至|抵达|抵達|到达|到達|曾于|曾於|后至|後至|于[^，。]{1,10}(?:法会|法會|会上|會上))", body
    ) or re.search(r"(?:之号|之號|几近丧命|幾近喪命)", body):
        return "narrative"  # 途经莫贺延碛… / 于戒日王法会上…获…之号 — the story of a life, not a teaching
    if re.search(r"[0-9０-９]", s) or re.search(r"(?<!—)—(?!—)|–", s):
        return "fragment"  # list residue: 每日15–30分钟, 度疑清净—见名色之缘起
    if re.search(r"[→+＋=＝≠|｜<>/／]", s):
        return "fragment"
    if cjk_len(s) / max(1, len(re.sub(r"\s", "", s))) < 0.6:
        return "fragment"
    return None
