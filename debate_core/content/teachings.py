"""The pack reader: what a master taught, told apart from everything else in his files.

A master's ``sources/*.md`` files (Master-skill layout) hold more than teaching:
headings, tables, citation formats and source lines, editorial rules for whoever
quotes the file (引用时应注明…, 不得作为直接引语…), reading lists and translations to
consult, URLs and markdown links, runs of English or Pali, list items cut in the
middle of a bracket, lead-in lines that end in a colon, the 主旨/出处 notes of the
pack's editors, and words spoken by someone else (the Buddha in a sutra, a student's
question).  Only the first kind may reach a speech.

The reader goes line by line and decides by structure (heading, table row, block
quote, bullet, label) and by properties of the sentence (a URL, Latin letters left
after the glosses are removed, unbalanced brackets, an editorial cue, an attribution
to another speaker, its length), never by a list of known sentences, so it works
on any pack in the layout.  Every line it does not take is kept as a
:class:`~debate_core.models.SetAside` with a reason, so ``pack check`` can show a
pack author what was left out and why.

Each teaching carries the source id it belongs to: an explicit ``来源：``/``出处：``
line of its section (an id, or a title that names one of the master's sources),
else an id or title in the section heading, else the enclosing section's or the
file preamble's, else the first of the master's source ids the file names.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from debate_core.content.aliases import default_aliases
from debate_core.content.text import balanced, cjk_len, normalize_quote, split_sentences
from debate_core.content.titles import title_matches
from debate_core.models import Master, SetAside, Teaching

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

MIN_CJK = 9      # a teaching unit is a sentence, not a word
MAX_CJK = 110    # longer units are split at ；

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-zÀ-ɏḀ-ỿ]")
_URL = re.compile(r"https?://|www\.|\b[\w-]+\.(?:org|com|net|io|app|edu|cn|tw)\b", re.I)
_MD_LINK = re.compile(r"\[[^\]]*\]\([^)]*\)")
_HEADING = re.compile(r"^#{1,6}\s*(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(?:[-*+•]\s+|\d{1,2}[.、)）]\s*|[①-⑳]\s*)")
_LABEL = re.compile(r"^\*\*([^*]{1,24}?)\*\*\s*[：:]?\s*|^([\u4e00-\u9fff]{1,8})[：:]\s*")
# Labels whose content is the pack editors' note, not the master's teaching.
_META_LABELS = ("主旨", "要旨", "出处", "来源", "來源", "引用", "说明", "說明", "注", "按", "备注", "校注", "提示",
                "原典", "原文", "版本", "译本", "汉译", "英译", "参考", "標識", "标识", "CBETA", "FoJin", "BDRC",
                "覆盖", "收录", "巴利经引", "印度论典所引")
_SOURCE_LABEL = re.compile(r"(?:来源|來源|出处|出處|source|引用格式|CBETA\s*ID)\s*[：:]", re.I)
# Editorial cues: what a pack says to whoever quotes it, not what the master taught.
_EDITORIAL = re.compile(
    r"引用(?:时|時|本文件|格式|规范|規範|警示)|(?:应|應|须|須|必须|必須)(?:注明|冠以|标明|標明)|不得作为|不得作為|不得(?:引|归|歸|虚|將|将)"
    r"|不可(?:将|將|代笔|代筆|虚构|虛構|归于|歸於|把)|深入研究|请(?:查阅|参阅|访问|參閱|訪問)|(?:原文|全文|完整经文|完整經文)请"
    r"|本文件|本目录|本目錄|本规则|本規則|本(?:角色|技能|选段|選段)|收录|收錄|欢迎|歡迎|\bPR\b|授权|授權|出版社|出版物"
    r"|节选自|節選自|仅(?:介绍|供|作)|僅(?:介紹|供|作)|不替代|不代表完整|HARD-GATE|SKILL\.md|⚠|注意[：:]|警示|免责|免責"
    r"|网络|網絡|本项目|本項目|逐字|转述|轉述|非.{0,6}(?:原话|原話|逐字)|以.{0,8}为准|為準|为准|检索|檢索|对照|對照|公开元数据|公開元數據")
_READING = re.compile(r"(?:中文|汉译|漢譯|英译|英譯)?参考|可参|可參|参看|參看|读物|讀物|推荐阅读|推薦閱讀|延伸阅读|书目"
                      r"|書目|译本|譯本")
# An attribution before a colon and a quote: who speaks.
_ATTRIB = re.compile(r"^(?P<who>[^，。：:「“\"]{0,16}?)(?:说|說|曰|云|答|问|問|告|言|道|开示|開示|苦恼|苦惱|"
                     r"偈)[^：:]{0,8}[：:]\s*[「“\"『]?")
_OTHER_SPEAKERS = re.compile(r"佛陀|佛告|佛说|佛說|世尊|如来|如來|学人|學人|弟子|问者|問者|比丘|居士|某|有人|或问|或問"
                             r"|僧问|僧問|舍利弗|须菩提|須菩提|阿难|阿難|文殊|维摩|維摩|龙树|龍樹|提婆|护法|護法|世亲|世親|寂天|月称|月稱")
_OWN_VERBS = r"(?:著|说|說|造|述|撰|口述|开示|開示|公开开示|公開開示|语录|語錄|文钞|文鈔|道歌|全集|论著|論著)"
_GLOSS = re.compile(r"[（(][^（）()]*?[A-Za-zÀ-ɏḀ-ỿ][^（）()]*?[）)]")
_ASIDE = re.compile(r"[（(][^（）()]*[\u4e00-\u9fff][^（）()]*[）)]")  # a Chinese aside in brackets
_QUOTE_MARKS = re.compile(r"[“”\"‘’「」『』]|(?<![A-Za-z])'|'(?![A-Za-z])")


def _norm(text: str) -> str:
    """Compared on letters only, traditional and variant characters as simplified: 法華 matches 法华."""
    return normalize_quote(text)


def _title_parts(title: str) -> list[str]:
    """A source title and its parts: 'Food for the Heart（《心灵的资粮》）' → both names."""
    parts = [title] + re.split(r"[（）()《》\[\]/·，,]+", title)
    out = []
    for p in parts:
        p = p.strip()
        if (cjk_len(p) >= 2 or len(p) >= 6) and p not in out:
            out.append(p)
    return out


class SourceMatcher:
    """Maps a line (出处, heading, preamble) to one of the master's source ids."""

    def __init__(self, master: Master):
        self.master = master
        self.ids = [s.id for s in master.sources if s.id]
        self.parts: list[tuple[str, str]] = []
        for s in master.sources:
            for p in _title_parts(s.title or ""):
                self.parts.append((_norm(p), s.id))
        self.parts.sort(key=lambda x: len(x[0]), reverse=True)

    def match(self, text: str) -> str:
        if not text:
            return ""
        flat = re.sub(r"[\s]", "", text)
        for sid in sorted(self.ids, key=len, reverse=True):  # an explicit id
            if sid and (sid in text or re.sub(r"\s", "", sid) in flat):
                return sid
        low = flat.lower()
        if re.search(r"\bSC\s*:|suttacentral", text, re.I):
            for s in self.master.sources:
                if s.id.lower() == "suttacentral" or s.type == "pali_canon":
                    return s.id
        n = _norm(text)
        for part, sid in self.parts:  # a title, longest first
            if part and len(part) >= 2 and part in n:
                return sid
        # a CBETA short id (T1716) against the master's long ids (T33n1716)
        for m in re.finditer(r"\b([TX])(\d{3,4})\b", text):
            for sid in self.ids:
                if re.fullmatch(rf"{m.group(1)}\d{{2}}n0*{m.group(2)}", sid):
                    return sid
        del low
        return ""


class _Section:
    def __init__(self, heading: str, level: int, parent: _Section | None):
        self.heading = heading
        self.level = level
        self.parent = parent
        self.explicit = ""   # from a 来源/出处 line
        self.in_heading = ""  # an id or title in the heading
        self.mentioned = ""  # an id named anywhere in the body
        self.units: list[Teaching] = []

    def source_id(self) -> str:
        s: _Section | None = self
        while s is not None:
            for sid in (s.explicit, s.in_heading):
                if sid:
                    return sid
            s = s.parent
        return self.mentioned


def _names(master: Master) -> list[str]:
    # the fallback list too: a pack without aliases is read before they are applied (罗什译经… is about him)
    names = {master.name, master.short_name, *master.aliases, *default_aliases().get(master.slug, [])}
    extra = getattr(master, "model_extra", None) or {}
    for a in extra.get("aliases", []) if isinstance(extra.get("aliases"), list) else []:
        if isinstance(a, str):
            names.add(a)
    return sorted((n for n in names if n and len(n) >= 2), key=len, reverse=True)


def _own_file(preamble: str, title_line: str, names: list[str]) -> bool:
    """A file of the master's own words (he wrote, spoke or taught it), as its preamble says."""
    text = title_line + "\n" + preamble
    return any(re.search(re.escape(n) + r"[^\n，。；]{0,3}" + _OWN_VERBS, text) for n in names)


def _strip_line(line: str) -> tuple[str, bool, bool]:
    """(content, was a block quote, was a bullet)."""
    quoted = False
    s = line.strip()
    while s.startswith(">"):
        quoted = True
        s = s[1:].strip()
    bullet = False
    m = _BULLET.match(s)
    if m and not s.startswith("**"):
        bullet = True
        s = s[m.end():].strip()
    elif s.startswith(("- ", "* ")):
        bullet = True
        s = s[2:].strip()
    return s, quoted, bullet


def _clean(text: str, names: list[str]) -> str:
    """Markup and glosses off; the master's own attribution (阿姜查反复强调：) off."""
    t = text.replace("**", "").replace("__", "").replace("`", "")
    t = re.sub(r"(?<![A-Za-z])\*(?!\s)|(?<!\s)\*(?![A-Za-z])", "", t)
    for _ in range(2):
        t = _GLOSS.sub("", t)  # 欲爱（taṇhā） → 欲爱
    t = re.sub(r"[（(][^（）()]*(?:所引|亦见|亦見|参见|參見|见下|见上|詳見|详见|下详|从略|從略)[^（）()]*[）)]", "", t)
    t = _QUOTE_MARKS.sub("", t)
    m = re.match(r"^([^：:，。]{1,16})[：:]\s*", t)
    if m and any(n in m.group(1) for n in names):
        t = t[m.end():]
    else:  # 写信给学人时，他提醒：… — the master (a pronoun or title) introducing his own words
        m = re.match(r"^([^：:。]{0,20}?(?:他|师父|老和尚|大师|禅师|尊者|法师)(?:常|曾|反复|一再|总是)?"
                     r"(?:说|提醒|强调|指出|开示|教导|告诫|叮嘱))[：:]\s*", t)
        if m and not _OTHER_SPEAKERS.search(re.split(r"[，,]", m.group(1))[-1]):
            t = t[m.end():]
    t = re.sub(r"\s+", "", t) if not _LATIN.search(t) else re.sub(r"\s+", " ", t).strip()
    t = re.sub(r"[—–-]{2,}\s*$", "", t).strip()
    # a list's position marker (其次，/ 第三，) comes off: the statement after it stands alone
    t = re.sub(r"^(?:其次|再次|再者|首先|最后|最後|第[一二三四五六七八九十]+|其[一二三四五六七八九十])[，,、]\s*", "",
               t)
    # a label after a dash (…即是空——三论宗核心偈颂 / …——中道圆融) comes off: an editor's gloss
    m2 = re.search(r"——(?P<tail>[^，。；,;—、]{2,10})(?P<end>[。！？]?)$", t)
    if m2 and not re.search(r"是|为|為|即|乃|有|无|無|不|非|能|可|须|須|要|应|應|当|當|则|則|便|就", m2.group("tail")):
        t = t[:m2.start()] + m2.group("end")
    return t


def _long_split(sentence: str) -> list[str]:
    if cjk_len(sentence) <= MAX_CJK:
        return [sentence]
    parts = [p for p in re.split(r"(?<=；)", sentence) if p]
    return parts if len(parts) > 1 else [sentence]


def _as_unit(s: str) -> str:
    s = s.strip().rstrip("；;，,、：: ")
    if s and s[-1] not in "。！？":
        s += "。"
    return s


_SECTION_KINDS = (
    ("editorial", re.compile(r"引用|警示|注意|说明|說明|规范|規範|免责|免責|授权|授權|版权|版權|校勘|凡例")),
    ("reading_list", re.compile(r"参考|參考|书目|書目|延伸|阅读|閱讀|资源|資源|链接|鏈接|著作|精通经典|所依经典|"
                                r"经典列表|索引|收录")),
    ("meta", re.compile(r"辩论立场|辯論立場|立场|立場|风格|風格|语气|語氣|口吻|人设|人設|生平|背景|简介|簡介|传承与|"
                        r"傳承與|年表|年谱|年譜|小传|小傳|人物|史略|影响|影響|评价|評價")),
)


def _section_reason(heading: str) -> str:
    for reason, pat in _SECTION_KINDS:
        if pat.search(heading):
            return reason
    return ""


# What makes a short unit a statement rather than a noun phrase: a copula, a modal, a negation, a verb of teaching.
_PREDICATE = re.compile(r"是|为|為|即|乃|有|无|無|不|非|莫|勿|能|可|须|須|要|应|應|当|當|则|則|便|就|才|方|皆|都|亦|也|"
                        r"令|使|让|讓|会|會|得|在|如|若|者|矣|也|故|因|所以|成|生|灭|滅|见|見|知|住|离|離|归|歸|依")
_OTHER_SAYS = re.compile(r"^(?P<who>[^，。：:；]{1,8}?)(?:云|曰|說|说|言|告)(?:[：:]|(?=[^，。]{4}))")


def clauses_of(text: str) -> list[str]:
    return [c for c in re.split(r"[，；,;。！？]", text) if c]


def _sentence_reason(s: str, names: list[str]) -> str | None:
    if _URL.search(s):
        return "url"
    if _MD_LINK.search(s):
        return "link"
    if _EDITORIAL.search(s):
        return "editorial"
    if _LATIN.search(s):
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
    if q and (_OTHER_SPEAKERS.search(q.group("who")) or re.search(r"古德|古人云|祖师|六祖|经云|經云|偈|佛$|论云|論云",
                                                               q.group(0))):
        return "quote"
    if re.match(r"^(?:偈曰|偈云|颂曰|頌曰|常勉|告诫|告誡)", s):
        return "quote"
    if re.match(r"^(?:诸比丘|諸比丘|比丘们|比丘們|舍利弗|须菩提|須菩提|善男子|善女人|阿难|阿難|大慧|文殊师利)[，,！!]",
                s):
        return "quote"  # the Buddha addressing his hearers: a sutra's words
    body = s.rstrip("。！？")
    if not re.search(r"[，；：,;:]", body) and cjk_len(body) < 16 and not _PREDICATE.search(body):
        return "fragment"  # a noun phrase or a list item (业处分类与选择标准), not a sentence
    items = [x for x in re.split(r"[、，]", body) if x]
    if body.count("、") >= 3 and not re.search(r"[，；：,;:]", body) and cjk_len(items[0]) <= 6 and \
            sum(cjk_len(x) for x in items) / max(1, len(items)) <= 6:
        return "fragment"  # an enumeration (空无边处、识无边处、无所有处…)
    if body.count("、") >= 2 and not re.search(r"[，；：,;:]", body) and all(cjk_len(x) <= 6 for x in items):
        return "fragment"  # a short list (乐受、苦受、不苦不乐受): names, not a statement
    if re.match(r"^(?:此|这|该|上述|以上|前述)(?:一)?(?:典故|偈|喻|譬喻|六义|句|段|则|条|篇|经|论|故事|公案|传说|傳說|"
                r"说|說|即|乃|为|举|事)", body):
        return "fragment"  # leans on a passage that is not there (此典故说明…, 此偈非否定身心…)
    if re.match(r"^(?:此|这|這|该|該)[义義理点點处處语語言文品喻句段节節条條章图圖表例]", body) or \
            re.search(r"(?:为|為|是)此(?:之|的)", body) or \
            re.match(r"^即[^，。]{0,8}(?:所说|所說|所谓|所謂|之说|之說)", body):
        return "fragment"  # 此义为天台独有之说 / 为此之入门简本 / 即中论所说… — lean on a passage that is not there
    if re.match(r"^(?:如|比如|例如)(?!《|来|來|是|实|實|法|理|今|此)[^，。；]{1,12}[，,]", body) and \
            not re.search(r"是|即|乃", body[:12]):
        return "fragment"  # 如般若，音译令人生敬重心… — an example taken out of its list
    if re.match(r"^(?:即在|即是|即为|即為|即以|即于|即於)", body) or re.match(r"^(?:源自|源于|源於|出自|语出|語出|典出|"
                                                                              r"见于|見於|载于|載於)", body):
        return "fragment"  # 即在世间… / 源自那若巴祖师所集之六法 — a predicate or a provenance, its subject elsewhere
    if re.match(r"^(?:为|為|乃|系|係)[^，；,;]{2,}$", body):
        return "fragment"  # 为天台教观的理论基石 — a predicate whose subject was a table's first column
    if re.search(r"(?:之|的)(?:核心|纲要|綱要|基石|理论基石|理論基石|入门|入門|简本|簡本|总纲|總綱|代表作|主要著作|"
                 r"核心内容|核心內容)$",
                 body) and "，" not in body:
        return "description"  # 此十境十乘观法为《摩诃止观》之核心 — describes a work, teaches nothing
    if re.search(r"(?:的|之)?(?:系统|系統)?(?:教材|教本|读本|讀本|入门书|入門書)$", body):
        return "description"  # 六论…构成…最早的系统道次第教材 — describes texts, teaches nothing
    if re.match(r"^[^。：:]{2,40}(?:的|之)(?:超越|意义|意義|要点|要點|核心|特点|特點|关键|關鍵|区别|區別|总结|總結|含义"
                r"|含義|回应|回應)[：:]",
                body):
        return "fragment"  # 对…偈的超越：… — an editor's label before a gloss
    if not re.search(r"[，；：,;:]", body) and \
            re.search(r"[一二三四五六七八九十百千两兩几幾]+(?:种|種|类|類|门|門|重|项|項|支|境|乘)[\u4e00-\u9fff]{0,6}$",
                      body) and \
            not re.search(r"是|为|為|乃|有|须|須|应|應|当|當|能|可", body) and \
            not re.search(r"(?:派|传承|傳承)$", body):
        return "fragment"  # 正修止观前的二十五种方便 — a count of items, a list's label
    if re.match(r"^(?:以此|借此|藉此|由此可见|说明|說明|体现|體現)", body) or \
            re.match(r"^此[\u4e00-\u9fff]{1,4}(?:体现|體現|说明|說明|表明|显示|顯示|可见|可見)", body) or \
            re.match(r"^[^，。：:]{0,3}(?:为|為|曰|云)[：:]", body):
        return "fragment"  # 以此勉励学人…, 此志愿体现了…, 合为：… — lean on a passage or a lead-in that is not there
    if re.match(r"^(?:是|而是|不会|不會|也不会|但是?|却|卻|故曰|(?:听|聽|闻|聞)此)", body):
        return "fragment"  # 是托住你的栏杆 / 不会因为… — the second half of a sentence whose first half is elsewhere
    if sum(1 for c in clauses_of(body) if cjk_len(c) <= 3 and c.endswith("了")) >= 2:
        return "narrative"  # 手累了，水洒了 — a scene told, not a teaching
    if re.match(r"^(?:尊者|老和尚|大师|大師|智者大师|智者大師|和尚|上人|五祖|六祖|其师|其師"
                r"|其(?:翻译|翻譯|译文|譯文|著作))"
                r"(?!云|曰|说|說|言|告)", body) or \
            re.match(r"^(?:先后|先後|后来|後來|后读|後讀|晚年|早年|初至|初到|著《|撰《|常以(?:此)?(?:自身|亲身|"
                     r"親身)经历)", body) or \
            re.match(r"^(?:期间|期間|如此反复|如此反覆|最终|最終|并嘱咐|並囑咐|嘱咐|囑咐|教导弟子|教導弟子)", body) or \
            re.search(r"尊者|(?:对|對|劝|勸)其", body) or re.match(r"^(?:问及|問及|事后|事後)", body) or \
            re.search(r"(?:生命历程|生命歷程|行脚不停|由此而立|(?:成为|成為|为|為)[^。，]{0,6}(?:千古名句|文学经典|"
                      r"文學經典))", body):
        return "narrative"  # 尊者以一首长歌回答… / 老和尚一百二十年的生命历程中… — told about him, not taught by him
    if re.match(r"^此[\u4e00-\u9fff]{0,2}(?:后被|後被)|^此[\u4e00-\u9fff]{0,4}(?:成为|成為)", body) or \
            re.search(r"(?:之人|的人)$", body) and not re.search(r"是|为|為|乃|须|須|应|應|当|當|能|可", body):
        return "fragment"  # 此见后被…扩展 / 发菩提心…之人 — a list item defining a kind of person
    if re.match(r"^(?:适合|適合|适用|適用|适于|適於)", body):
        return "fragment"  # 适合在家居士… — says what a method suits; the method is not named
    clauses = [c for c in re.split(r"[，；,;]", body) if c]
    if re.search(r"[\u4e00-\u9fff]{2}、[\u4e00-\u9fff](?:$|[，；。])", body) or \
            sum(1 for c in clauses[1:] if cjk_len(c) <= 2 and not re.search(r"[者也矣]$", c)) >= 2:
        return "instruction"  # 标记步、步 / 标升；…标降 — a meditation manual's telegraphic steps
    if re.search(r"(?:派|传承|傳承)$", body) and not re.search(r"是|为|為|乃", body):
        return "description"  # 冈波巴下又分出…噶举派 — the branches of a lineage
    if re.match(r"^[\u4e00-\u9fff]{1,10}(?:派|传承|傳承|一系|道场|道場)(?:以[^。]{1,40}?(?:为|為)[^。]{0,12}?(?:基础|"
                r"基礎|根本|正式|日常|特色|核心)"
                r"|[^。]{0,30}?包括)", body):
        return "description"  # 森林禅林派以…为日常生活基础，包括… — describes a school, teaches nothing
    if re.match(r"^(?:途经|途經|行至|抵达|抵達|到达|到達|曾于|曾於|后至|後至|于[^，。]{1,10}(?:法会|法會|会上|會上))",
                body) or \
            re.search(r"(?:之号|之號|几近丧命|幾近喪命)", body):
        return "narrative"  # 途经莫贺延碛… / 于戒日王法会上…获…之号 — the story of a life, not a teaching
    if re.search(r"[0-9０-９]", s) or re.search(r"(?<!—)—(?!—)|–", s):
        return "fragment"  # list residue: 每日15–30分钟, 度疑清净—见名色之缘起
    if re.search(r"[→+＋=＝≠|｜<>/／]", s):
        return "fragment"
    if cjk_len(s) / max(1, len(re.sub(r"\s", "", s))) < 0.6:
        return "fragment"
    return None


def read_file(path: Path, master: Master, rel: str = "") -> tuple[list[Teaching], list[SetAside]]:
    """Teachings and set-aside material of one ``sources/*.md`` file.  Never raises on content."""
    rel = rel or path.name
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return [], []
    return read_text(text, master, file=rel, name=path.name)


def read_text(text: str, master: Master, file: str = "", name: str = "") -> tuple[list[Teaching], list[SetAside]]:
    names = _names(master)
    matcher = SourceMatcher(master)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    first_heading = next((i for i, ln in enumerate(lines) if re.match(r"^#{2,6}\s", ln.strip())), len(lines))
    title_line = next((ln for ln in lines[:first_heading] if ln.strip().startswith("# ")), "")
    preamble = "\n".join(ln for ln in lines[:first_heading] if not ln.strip().startswith("#"))
    own = _own_file(preamble, title_line, names)
    aside: list[SetAside] = []

    def drop(lineno: int, content: str, reason: str) -> None:
        aside.append(SetAside(file=name or file, line=lineno, text=content.strip()[:200], reason=reason))

    root = _Section(title_line.lstrip("# ").strip(), 1, None)
    root.in_heading = matcher.match(title_line)
    pre_sid = matcher.match(preamble)
    if pre_sid and not root.in_heading:
        root.explicit = pre_sid
    sections = [root]
    current = root
    in_code = False
    lead_other = False  # the previous line introduced another speaker's words (佛说：, 学人问：, 原典：)
    skip_reason = ""
    for idx, raw in enumerate(lines):
        lineno = idx + 1
        line = raw.strip()
        if line.startswith("```") or line.startswith("~~~"):
            in_code = not in_code
            drop(lineno, line, "code")
            continue
        if in_code:
            drop(lineno, line, "code")
            continue
        if not line or re.fullmatch(r"[-*_=]{3,}|>\s*", line):
            if not line:
                lead_other = lead_other and False or lead_other  # a blank keeps the lead-in for the quote
            continue
        h = _HEADING.match(line) if line.startswith("#") else None
        if h:
            level = len(line) - len(line.lstrip("#"))
            head = h.group(1).replace("**", "").strip()
            parent: _Section | None = current
            while parent is not None and parent.level >= level:
                parent = parent.parent
            current = _Section(head, level, parent or root)
            current.in_heading = matcher.match(head)
            sections.append(current)
            lead_other = False
            drop(lineno, line, "heading")
            skip_reason = _section_reason(head)
            continue
        if skip_reason:  # a section about the pack, the master's life or what to read: not teaching
            drop(lineno, line, skip_reason)
            continue
        if line.startswith("|") or re.match(r"^\|?\s*:?-{3,}", line):
            drop(lineno, line, "table")
            continue
        content, quoted, bullet = _strip_line(line)
        if not content:
            continue
        found = matcher.match(content) if re.search(r"[A-Z]{1,2}\d|[A-Za-z]+:|《|SC", content) else ""
        if found and not current.mentioned:
            current.mentioned = found
        # 来源 / 出处 / 引用格式 / CBETA ID lines: meta, and they name the section's source
        if _SOURCE_LABEL.search(content[:40]) or re.match(r"^\*\*?(?:出处|来源|出處|來源)", content):
            sid = matcher.match(content)
            if sid:
                if idx < first_heading:
                    root.explicit = root.explicit or sid
                else:
                    current.explicit = current.explicit or sid
            drop(lineno, content, "meta")
            continue
        label = _LABEL.match(content)
        if label:
            lab = (label.group(1) or label.group(2) or "").strip().rstrip("：:")
            rest = content[label.end():].strip()
            if any(lab.startswith(x) or x in lab for x in _META_LABELS):
                drop(lineno, content, "reading_list" if re.search(r"参考|參考|书目|書目|译本|譯本|阅读|閱讀", lab)
                     else "meta")
                lead_other = lab.startswith(("原典", "原文")) and not own
                if lab.startswith("主旨") and not rest:
                    lead_other = True  # a 主旨 block quote below is still the editors' note
                continue
            if not rest or len(rest) <= 2:
                drop(lineno, content, "heading")
                continue
            if label.group(1):  # **核心**：text → the text, judged on its own
                content = rest
        if _URL.search(content):
            drop(lineno, content, "url")
            continue
        if _MD_LINK.search(content):
            drop(lineno, content, "link")
            continue
        if _EDITORIAL.search(content):
            drop(lineno, content, "editorial")
            continue
        if idx < first_heading:  # a file preamble is the editors' description of the file
            drop(lineno, content, "reading_list" if _READING.search(content) else "meta")
            continue
        if _READING.search(content) and (content.count("《") >= 1 or _LATIN.search(content)):
            drop(lineno, content, "reading_list")
            continue
        # a quote block after a lead-in naming someone else, or 原典 of a text the master did not write
        if quoted and lead_other:
            drop(lineno, content, "quote")
            continue
        att = _ATTRIB.match(_QUOTE_MARKS.sub(lambda m: m.group(0), content))
        if att and re.search(r"[：:]\s*[「“\"『]?", content):
            who = att.group("who")
            is_own = any(n in who for n in names) or (who == "" and own) or re.search(r"^(?:师|師|答)", who or "")
            body = content[att.end():].strip()
            if not body:  # a lead-in line: the quote follows on the next lines
                lead_other = not is_own or bool(_OTHER_SPEAKERS.search(who))
                drop(lineno, content, "fragment" if not lead_other else "quote")
                continue
            if _OTHER_SPEAKERS.search(who) or re.search(r"佛$", who) or not is_own and who:
                drop(lineno, content, "quote")
                continue
        if re.search(r"[：:—]\s*$", content) or content.rstrip().endswith("——"):
            lead_other = bool(_OTHER_SPEAKERS.search(content)) or (
                not own and bool(re.search(r"原典|原文|偈|经云|經云", content)))
            drop(lineno, content, "fragment")
            continue
        if not quoted:
            lead_other = False
        cleaned = _clean(content, names)
        pieces = [p for s in split_sentences(cleaned) for p in _long_split(s)]
        if not pieces:
            drop(lineno, content, "fragment")
            continue
        for piece in pieces:
            piece = _ASIDE.sub("", piece)  # 不评判（我又散乱了…，再标） → judged as 不评判: too little, set aside
            unit = _as_unit(piece)
            why = _sentence_reason(unit, names)
            lab = re.match(r"^[^，。：:]{1,10}[：:]", piece)
            if why is None and bullet and lab:
                rest = piece[lab.end():]
                if cjk_len(rest) < 9 or not _PREDICATE.search(rest) or \
                        (rest.count("、") >= 2 and not re.search(r"[，；]", rest)):
                    why = "fragment"  # 身体动作："升、降" — a labelled list item, not a statement
            if why:
                drop(lineno, piece, why)
            else:
                current.units.append(Teaching(text=unit, file=name or file, heading=current.heading, line=lineno))
    out: list[Teaching] = []
    fallback = next((s.mentioned for s in sections if s.mentioned), "")
    for sec in sections:
        own_id = sec.source_id()
        sid = own_id or fallback
        for u in sec.units:
            u.source_id = sid
            u.own_source = bool(own_id)
            out.append(u)
    return out, aside


def _file_default(md: Path, master: Master) -> str:
    """The source an excerpt file belongs to when no line says: its name or title, else the first."""
    matcher = SourceMatcher(master)
    try:
        head = md.read_text(encoding="utf-8", errors="replace")[:400]
    except OSError:
        head = ""
    return matcher.match(head) or (master.sources[0].id if master.sources else "")


def _near_duplicate(a: str, b: str, ga: set[str], gb: set[str], ca: Counter | None = None,
                    cb: Counter | None = None) -> bool:
    """Two units of one master that say the same thing: the same opening (戒律不是束缚… twice: a
    shared prefix of 5+ characters that is 40% of the shorter), or most of the shorter one's
    character pairs inside the other (不抓取——出现禅悦… / 出现禅悦…，不抓取…)."""
    if not ga or not gb:
        return False
    if len(a) == len(b) and len({(x, y) for x, y in zip(a, b, strict=True) if x != y}) == 1:
        return False  # a parallel (入息长… / 入息短…): one word swapped throughout, a second teaching
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    if n >= 5 and n >= 0.4 * min(len(a), len(b)):
        return True
    if len(ga & gb) / min(len(ga), len(gb)) >= 0.6:
        return True
    if min(len(a), len(b)) < 8 or min(len(a), len(b)) < 0.6 * max(len(a), len(b)):
        return False
    ca, cb = ca or Counter(a), cb or Counter(b)
    shared = sum((ca & cb).values())
    return shared / min(len(a), len(b)) >= 0.75  # 渴爱是苦的根源… / 佛说渴爱乃苦之根本…: the same words reordered


def read_master(master: Master, folder: Path, root: Path | None = None) -> None:
    """Fill ``master.teachings`` and ``master.set_aside`` from the folder's sources/*.md."""
    teachings: list[Teaching] = []
    aside: list[SetAside] = []
    src_dir = folder / "sources"
    files = sorted(src_dir.glob("*.md")) if src_dir.is_dir() else []
    notes = folder / "references" / "teaching.md"
    if notes.is_file():
        files.append(notes)  # the pack's teaching outline: used, but never given a guessed source
    for md in files:
        if md.name.upper() == "INDEX.MD":
            continue
        try:
            rel = str(md.relative_to(root)) if root else md.name
        except ValueError:
            rel = md.name
        found, set_aside = read_file(md, master, rel)
        if md.parent.name == "sources":
            for x in found:  # an excerpt file is a source's file: its own first source when nothing says
                x.source_id = x.source_id or _file_default(md, master)
        for y in set_aside:
            y.file = rel
        for x in found:
            x.file = rel
        teachings += found
        aside += set_aside
    seen: set[str] = set()
    unique: list[Teaching] = []
    for t in teachings:
        key = _norm(t.text)
        if key in seen:
            continue
        seen.add(key)
        unique.append(t)
    keys = [_norm(t.text) for t in unique]
    grams = [{k[i:i + 2] for i in range(len(k) - 1)} for k in keys]
    counts = [Counter(k) for k in keys]
    kept: list[Teaching] = []
    kept_idx: list[int] = []
    joined = "|" + "|".join(keys) + "|"
    for i, t in enumerate(unique):  # a unit whose words another unit holds whole, or nearly, is a duplicate
        k = keys[i]
        inside = bool(k) and joined.count(k) > 1  # keys are unique: a second hit is inside a longer unit
        if inside or any(_near_duplicate(k, keys[j], grams[i], grams[j], counts[i], counts[j]) for j in kept_idx):
            aside.append(SetAside(file=t.file, line=t.line, text=t.text, reason="duplicate"))
            continue
        kept.append(t)
        kept_idx.append(i)
    _cite_named_text(master, kept)
    master.teachings = kept
    master.set_aside = aside


# a unit that speaks in a named text's words or on its ground: 《X》云…, 如《X》所说…, 依《X》…
_TEXT_FRAME = re.compile(r"(?:^|[，。；：])(?:(?:如|依|据|據|按|照|正如|诚如|誠如)《(?P<t>[^》]{1,30})》"
                         r"|《(?P<t2>[^》]{1,30})》(?:中|里|裡)?(?:云|曰|说|說|言|有云|有言|所说|所說|所言|开篇|開篇|以|指出|讲|講|的|之))")


def _cite_named_text(master: Master, units: list[Teaching]) -> None:
    """A unit that quotes or rests on a named text is that text's: its source is the master's source of
    that title, or none when he lists no such text (《摩诃般若波罗蜜大明咒经》云… is not his 金刚经)."""
    for t in units:
        m = _TEXT_FRAME.search(t.text)
        if not m:
            continue
        named = m.group("t") or m.group("t2")
        own = [s.id for s in master.sources if s.id and s.title and title_matches(named, s.title)]
        if own:
            t.source_id = own[0]
            t.own_source = True
        elif "references/" in (t.file or "").replace("\\", "/") or (t.file or "").endswith("teaching.md"):
            t.source_id = ""  # the outline quoting a text the master does not list: cited by none of his


def set_aside_counts(master: Master) -> dict[str, int]:
    return dict(Counter(a.reason for a in master.set_aside).most_common())


def examples(master: Master, per_reason: int = 2) -> list[SetAside]:
    out: list[SetAside] = []
    seen: Counter = Counter()
    interesting = [a for a in master.set_aside if a.reason not in ("heading",)] + \
        [a for a in master.set_aside if a.reason == "heading"]
    for a in interesting:
        if seen[a.reason] < per_reason:
            seen[a.reason] += 1
            out.append(a)
    return out


def teaching_report(masters: Iterable[Master]) -> list[dict]:
    """Per master: teaching units, set-aside counts per reason and a few examples (file:line)."""
    rows = []
    for m in masters:
        rows.append({
            "slug": m.slug, "name": m.name, "teachings": len(m.teachings),
            "without_source": sum(1 for t in m.teachings if not t.source_id),
            "set_aside": set_aside_counts(m),
            "examples": [{"file": a.file, "line": a.line, "reason": a.reason, "text": a.text[:60]}
                         for a in examples(m)],
        })
    return rows
