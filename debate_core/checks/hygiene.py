"""``hygiene``: a speech is speech — nothing from a file, a prompt or a markup language.

Forbidden: a URL or web address; a Markdown link or Markdown markup (headings, bold, block quotes,
bullets, tables, code fences); an editorial or meta note of the kind packs carry for their
editors (引用时应注明…, 不可代笔虚构…, 深入研究请查阅…, 节选自…, 仅供参考); a prompt fragment
(a 【…】 header that is not a citation, 硬性规则, 本轮你的任务, 弹药库, 你扮演…, 300-500 字 …)
or talk about the writing itself (作为 AI…, 以下是我的发言, 字数：…, 以上为立论部分, a placeholder
such as （待补）); a bracket or quote left open or closed without its opener; a run of English
words outside a citation.

Allowed: citation brackets with ids and titles (【《坛经·般若品》，T48n2008】, even with English
titles inside), a foreign term glossed in parentheses after its Chinese name (毗婆舍那（vipassanā）),
source ids, and single Latin letters (A 与 B).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from debate_core.checks import lexicons as _lx
from debate_core.content.text import PAIRS

_URL = _lx.regex("hygiene.url")
_FILE_NAME = _lx.regex("hygiene.file_name")
_MD_LINK = _lx.regex("hygiene.md_link")
_MD_MARKUP = _lx.regex("hygiene.md_markup")
# Notes a pack's files carry for their editors and readers, not for a debate.
_EDITORIAL = _lx.regex("hygiene.editorial")
_PROMPT = _lx.regex("hygiene.prompt")
_LATIN_WORD = _lx.pattern("hygiene.latin_word")
_LATIN_RUN = re.compile(rf"{_LATIN_WORD}(?:[ \t]+{_LATIN_WORD})+")
_META_WORDS = frozenset(_lx.words("hygiene.meta_words"))
_STOPWORDS = frozenset(_lx.words("hygiene.stopwords"))


def unbalanced(text: str) -> list[str]:
    """Brackets and quotes left open or closed without an opener."""
    closers = {v: k for k, v in PAIRS.items()}
    stack: list[tuple[str, int]] = []
    out: list[str] = []
    for i, ch in enumerate(text):
        if ch in PAIRS:
            stack.append((ch, i))
        elif ch in closers:
            want = closers[ch]
            if stack and stack[-1][0] == want:
                stack.pop()
            elif any(o == want for o, _ in stack):
                while stack and stack[-1][0] != want:
                    o, j = stack.pop()
                    out.append(f"未闭合的「{o}」：…{text[j : j + 12]}")
                stack.pop()
            else:
                out.append(f"多余的「{ch}」：…{text[max(0, i - 10) : i + 1]}")
    for o, j in stack:
        out.append(f"未闭合的「{o}」：…{text[j : j + 12]}")
    if text.count('"') % 2:
        out.append("英文双引号不成对")
    return out


def _citation_bracket_ranges(text: str, ids: Iterable[str]) -> list[tuple[int, int]]:
    """Ranges of brackets that hold a citation (an id or a 《title》), and of ids standing alone."""
    ids = [i for i in ids if i]
    out = []
    for m in re.finditer(r"【[^】]*】|〔[^〕]*〕|［[^］]*］|\[[^\]]*\]|（[^）]*）|\([^)]*\)", text):
        inner = m.group(0)
        if "《" in inner or any(i in inner for i in ids):
            out.append((m.start(), m.end()))
    for i in ids:
        if i in text:  # most of a pack's ids are not in a given speech
            for m in re.finditer(re.escape(i), text):
                out.append((m.start(), m.end()))
    return out


@lru_cache(maxsize=256)
def _title_words(titles: tuple[str, ...]) -> frozenset[str]:
    """The English words of the pack's source titles (the same for every speech of a debate)."""
    return frozenset(w.lower() for t in titles for w in re.findall(_LATIN_WORD, t))


def _gloss(text: str, start: int, end: int) -> bool:
    """A foreign term in parentheses right after Chinese: 毗婆舍那（vipassanā）."""
    before = text[:start].rstrip()
    after = text[end:].lstrip()
    if not before or not after:
        return False
    return before[-1] in "（(" and after[0] in "）)"


def hygiene_problems(text: str, *, ids: Iterable[str] = (), titles: Iterable[str] = ()) -> list[str]:
    problems: list[str] = []
    for m in _URL.finditer(text):
        problems.append(f"网址：{m.group(0)[:24]}")
    for m in _FILE_NAME.finditer(text):
        problems.append(f"文件名：{m.group(0)[:24]}")
    for m in _MD_LINK.finditer(text):
        problems.append(f"Markdown 链接：{m.group(0)[:16]}")
    for m in _MD_MARKUP.finditer(text):
        if _MD_LINK.search(text[m.start() : m.end() + 40]):
            continue
        problems.append(f"Markdown 标记：{m.group(0).strip()[:20]}")
    for m in _EDITORIAL.finditer(text):
        problems.append(f"资料包的编辑说明：{_around(text, m)}")
    for m in _PROMPT.finditer(text):
        problems.append(f"提示词或写作说明的残片：{_around(text, m)}")
    for m in re.finditer(r"【([^】]*)】", text):
        inner = m.group(1)
        if "《" in inner or any(i and i in inner for i in ids) or re.search(r"[A-Za-z]+\s?:?\s?\d", inner):
            continue
        problems.append(f"非引文的【】标题：{m.group(0)[:20]}")
    problems += [f"括号或引号不成对：{u}" for u in unbalanced(text)]
    # English outside citations
    skip = _citation_bracket_ranges(text, list(ids))
    title_words = _title_words(tuple(titles))
    for m in _LATIN_RUN.finditer(text):
        if any(a <= m.start() and m.end() <= b for a, b in skip):
            continue
        words = [w.lower() for w in re.findall(_LATIN_WORD, m.group(0))]
        real = [w for w in words if len(w) >= 2]
        if len(real) < 2:
            continue
        if all(w in title_words for w in real):
            continue
        if _gloss(text, m.start(), m.end()) and len(words) <= 4 and not (set(words) & _STOPWORDS):
            continue
        problems.append(f"中文发言中夹有英文（{len(words)} 个词，自「{words[0][:12]}」起）")
    for m in re.finditer(_LATIN_WORD, text):
        w = m.group(0).lower()
        if w in _META_WORDS and not any(a <= m.start() < b for a, b in skip):
            if not any(f"「{w}" in p.lower() for p in problems):
                problems.append(f"中文发言中夹有英文（「{m.group(0)[:12]}」）")
    return list(dict.fromkeys(problems))


def _around(text: str, m: re.Match) -> str:
    return text[max(0, m.start() - 4) : m.end() + 6].replace("\n", " ")
