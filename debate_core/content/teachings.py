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

This module reads files and lines (``read_file``, ``read_text``), a master's folder
(``read_master``: duplicates set aside) and reports what was set aside
(``teaching_report``).  The judgement of one sentence and the reasons are in
:mod:`debate_core.content.teaching_rules`, the matching of a line to a source in
:mod:`debate_core.content.teaching_sources`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from debate_core.content.aliases import default_aliases
from debate_core.content.teaching_rules import (
    EDITORIAL,
    LATIN,
    MAX_CJK,
    MD_LINK,
    MIN_CJK,
    OTHER_SPEAKERS,
    PREDICATE,
    REASONS,
    URL,
    clauses_of,
    section_reason,
    sentence_reason,
)
from debate_core.content.teaching_sources import SourceMatcher, cite_named_text, file_default
from debate_core.content.text import cjk_len, normalize_quote, split_sentences
from debate_core.models import Master, SetAside, Teaching

# (the sentence rules and the source matching live in their own modules; their names stay importable from here)
__all__ = [
    "REASONS",
    "MIN_CJK",
    "MAX_CJK",
    "SourceMatcher",
    "clauses_of",
    "examples",
    "read_file",
    "read_master",
    "read_text",
    "set_aside_counts",
    "teaching_report",
]

_HEADING = re.compile(r"^#{1,6}\s*(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(?:[-*+•]\s+|\d{1,2}[.、)）]\s*|[①-⑳]\s*)")
_LABEL = re.compile(r"^\*\*([^*]{1,24}?)\*\*\s*[：:]?\s*|^([\u4e00-\u9fff]{1,8})[：:]\s*")
# Labels whose content is the pack editors' note, not the master's teaching.
_META_LABELS = (
    "主旨",
    "要旨",
    "出处",
    "来源",
    "來源",
    "引用",
    "说明",
    "說明",
    "注",
    "按",
    "备注",
    "校注",
    "提示",
    "原典",
    "原文",
    "版本",
    "译本",
    "汉译",
    "英译",
    "参考",
    "標識",
    "标识",
    "CBETA",
    "FoJin",
    "BDRC",
    "覆盖",
    "收录",
    "巴利经引",
    "印度论典所引",
)
_SOURCE_LABEL = re.compile(r"(?:来源|來源|出处|出處|source|引用格式|CBETA\s*ID)\s*[：:]", re.I)
_READING = re.compile(
    r"(?:中文|汉译|漢譯|英译|英譯)?参考|可参|可參|参看|參看|读物|讀物|推荐阅读|推薦閱讀|延伸阅读|书目"
    r"|書目|译本|譯本"
)
# An attribution before a colon and a quote: who speaks.
_ATTRIB = re.compile(
    r"^(?P<who>[^，。：:「“\"]{0,16}?)(?:说|說|曰|云|答|问|問|告|言|道|开示|開示|苦恼|苦惱|"
    r"偈)[^：:]{0,8}[：:]\s*[「“\"『]?"
)
_OWN_VERBS = r"(?:著|说|說|造|述|撰|口述|开示|開示|公开开示|公開開示|语录|語錄|文钞|文鈔|道歌|全集|论著|論著)"
_GLOSS = re.compile(r"[（(][^（）()]*?[A-Za-zÀ-ɏḀ-ỿ][^（）()]*?[）)]")
_ASIDE = re.compile(r"[（(][^（）()]*[\u4e00-\u9fff][^（）()]*[）)]")  # a Chinese aside in brackets
_QUOTE_MARKS = re.compile(r"[“”\"‘’「」『』]|(?<![A-Za-z])'|'(?![A-Za-z])")


class _Section:
    def __init__(self, heading: str, level: int, parent: _Section | None):
        self.heading = heading
        self.level = level
        self.parent = parent
        self.explicit = ""  # from a 来源/出处 line
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
        s = s[m.end() :].strip()
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
        t = t[m.end() :]
    else:  # 写信给学人时，他提醒：… — the master (a pronoun or title) introducing his own words
        m = re.match(
            r"^([^：:。]{0,20}?(?:他|师父|老和尚|大师|禅师|尊者|法师)(?:常|曾|反复|一再|总是)?"
            r"(?:说|提醒|强调|指出|开示|教导|告诫|叮嘱))[：:]\s*",
            t,
        )
        if m and not OTHER_SPEAKERS.search(re.split(r"[，,]", m.group(1))[-1]):
            t = t[m.end() :]
    t = re.sub(r"\s+", "", t) if not LATIN.search(t) else re.sub(r"\s+", " ", t).strip()
    t = re.sub(r"[—–-]{2,}\s*$", "", t).strip()
    # a list's position marker (其次，/ 第三，) comes off: the statement after it stands alone
    t = re.sub(
        r"^(?:其次|再次|再者|首先|最后|最後|第[一二三四五六七八九十]+|其[一二三四五六七八九十])[，,、]\s*", "", t
    )
    # a label after a dash (…即是空——三论宗核心偈颂 / …——中道圆融) comes off: an editor's gloss
    m2 = re.search(r"——(?P<tail>[^，。；,;—、]{2,10})(?P<end>[。！？]?)$", t)
    if m2 and not re.search(r"是|为|為|即|乃|有|无|無|不|非|能|可|须|須|要|应|應|当|當|则|則|便|就", m2.group("tail")):
        t = t[: m2.start()] + m2.group("end")
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
            skip_reason = section_reason(head)
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
            rest = content[label.end() :].strip()
            if any(lab.startswith(x) or x in lab for x in _META_LABELS):
                drop(
                    lineno,
                    content,
                    "reading_list" if re.search(r"参考|參考|书目|書目|译本|譯本|阅读|閱讀", lab) else "meta",
                )
                lead_other = lab.startswith(("原典", "原文")) and not own
                if lab.startswith("主旨") and not rest:
                    lead_other = True  # a 主旨 block quote below is still the editors' note
                continue
            if not rest or len(rest) <= 2:
                drop(lineno, content, "heading")
                continue
            if label.group(1):  # **核心**：text → the text, judged on its own
                content = rest
        if URL.search(content):
            drop(lineno, content, "url")
            continue
        if MD_LINK.search(content):
            drop(lineno, content, "link")
            continue
        if EDITORIAL.search(content):
            drop(lineno, content, "editorial")
            continue
        if idx < first_heading:  # a file preamble is the editors' description of the file
            drop(lineno, content, "reading_list" if _READING.search(content) else "meta")
            continue
        if _READING.search(content) and (content.count("《") >= 1 or LATIN.search(content)):
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
            body = content[att.end() :].strip()
            if not body:  # a lead-in line: the quote follows on the next lines
                lead_other = not is_own or bool(OTHER_SPEAKERS.search(who))
                drop(lineno, content, "fragment" if not lead_other else "quote")
                continue
            if OTHER_SPEAKERS.search(who) or re.search(r"佛$", who) or not is_own and who:
                drop(lineno, content, "quote")
                continue
        if re.search(r"[：:—]\s*$", content) or content.rstrip().endswith("——"):
            lead_other = bool(OTHER_SPEAKERS.search(content)) or (
                not own and bool(re.search(r"原典|原文|偈|经云|經云", content))
            )
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
            why = sentence_reason(unit, names)
            lab = re.match(r"^[^，。：:]{1,10}[：:]", piece)
            if why is None and bullet and lab:
                rest = piece[lab.end() :]
                if (
                    cjk_len(rest) < 9
                    or not PREDICATE.search(rest)
                    or (rest.count("、") >= 2 and not re.search(r"[，；]", rest))
                ):
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


def _near_duplicate(
    a: str, b: str, ga: set[str], gb: set[str], ca: Counter | None = None, cb: Counter | None = None
) -> bool:
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
                x.source_id = x.source_id or file_default(md, master)
        for y in set_aside:
            y.file = rel
        for x in found:
            x.file = rel
        teachings += found
        aside += set_aside
    seen: set[str] = set()
    unique: list[Teaching] = []
    for t in teachings:
        key = normalize_quote(t.text)
        if key in seen:
            continue
        seen.add(key)
        unique.append(t)
    keys = [normalize_quote(t.text) for t in unique]
    grams = [{k[i : i + 2] for i in range(len(k) - 1)} for k in keys]
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
    cite_named_text(master, kept)
    master.teachings = kept
    master.set_aside = aside


def set_aside_counts(master: Master) -> dict[str, int]:
    return dict(Counter(a.reason for a in master.set_aside).most_common())


def examples(master: Master, per_reason: int = 2) -> list[SetAside]:
    out: list[SetAside] = []
    seen: Counter = Counter()
    interesting = [a for a in master.set_aside if a.reason not in ("heading",)] + [
        a for a in master.set_aside if a.reason == "heading"
    ]
    for a in interesting:
        if seen[a.reason] < per_reason:
            seen[a.reason] += 1
            out.append(a)
    return out


def teaching_report(masters: Iterable[Master]) -> list[dict]:
    """Per master: teaching units, set-aside counts per reason and a few examples (file:line)."""
    rows = []
    for m in masters:
        rows.append(
            {
                "slug": m.slug,
                "name": m.name,
                "teachings": len(m.teachings),
                "without_source": sum(1 for t in m.teachings if not t.source_id),
                "set_aside": set_aside_counts(m),
                "examples": [
                    {"file": a.file, "line": a.line, "reason": a.reason, "text": a.text[:60]} for a in examples(m)
                ],
            }
        )
    return rows
