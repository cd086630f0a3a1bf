"""``citation``: every cited id is the speaker's own, the title written with it names that source,
and a quote given with it is found in the pack's text for that source.

A *citation* is a source id (CBETA T48n2008, Toh:4465, SC:mn10, PTS:Vism, a pack's own ids such as
Lam-rim-chen-mo).  Its *title* is the 《…》 inside its bracket (【《金刚般若波罗蜜经》，T08n0235】), else
the nearest 《…》 before it in the same sentence.  Its *quote* is the 「…」/“…”/『…』 right before
its bracket, or right after it (【…】云：「…」).

Quote verification compares the quote with the text the pack holds for that source (the speaker's
``sources/*.md`` sections with that id, and teachings when present), ignoring punctuation, spaces,
traditional/variant characters, and allowing an ellipsis to skip text.  Each citation gets a mark:

* ``verified`` — the quote is in the pack's text for that source;
* ``id_only`` — no quote goes with the id;
* ``unverified`` — a quote that could not be found.  When the pack holds original wording for that
  source (block quotes or quoted lines in the file) and the quote is not in it, the quote is treated as
  fabricated and the rule fails; when the pack holds only notes or nothing for that source, the quote
  cannot be checked: the mark says so and the rule does not fail on it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from debate_core.checks.registry import said
from debate_core.content.text import QUOTES, mask, normalize_quote, sentences
from debate_core.content.titles import _norm_title, chinese_title, title_matches, title_variants  # noqa: F401 (re-exported)
from debate_core.models import CitationMark, Detail, Master

# Citation-shaped ids: CBETA (T48n2008, X62n1182, J19nB044), Tibetan Tohoku numbers,
# SuttaCentral uids (mn10, sn56.11, SC:dn22) and namespaced ids (PTS:Vism, BDRC:W22272).
CITATION_PATTERNS = [
    re.compile(r"(?<![A-Za-z0-9])[A-Z]{1,2}\d{2,3}n[A-Z]?\d{3,4}[a-z]?(?![A-Za-z0-9])"),
    re.compile(r"(?<![A-Za-z0-9])Toh[:\s.]?\s?\d{1,5}(?![0-9])"),
    re.compile(r"(?<![A-Za-z0-9])(?:SC:)?(?:dn|mn|sn|an|kp|dhp|ud|iti|snp|thag|thig)\s?\d+(?:\.\d+)*(?![0-9])"),
    re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Za-z]+:[A-Za-z0-9][A-Za-z0-9_\-.]*[A-Za-z0-9]"),
]
_POINTER_TITLES = {
    "本经",
    "此经",
    "该经",
    "是经",
    "本论",
    "此论",
    "该论",
    "同上",
    "前书",
    "该书",
    "此书",
    "本书",
    "前引",
}
_CHAPTER = re.compile(r"(?:品|章|篇|卷[一二三四五六七八九十\d]*)$")
_ELLIPSIS = re.compile(r"…+|\.{3,}|⋯+|——")


def norm_id(s: str) -> str:
    return re.sub(r"[\s:._]", "", s).lower()


def _id_spans(text: str, known_ids: Iterable[str] = ()) -> list[tuple[int, int, str]]:
    found: list[tuple[int, int, str]] = []
    for pat in CITATION_PATTERNS:
        for m in pat.finditer(text):
            found.append((m.start(), m.end(), m.group(0).strip()))
    for kid in known_ids:
        if kid and len(kid) >= 4 and kid in text:  # most of a pack's ids are not in a given speech
            for m in re.finditer(re.escape(kid), text):
                found.append((m.start(), m.end(), kid))
    # drop a match inside a longer one (Toh:4465 inside a namespaced id; SuttaCentral inside SC:…)
    found.sort(key=lambda x: (x[0], -(x[1] - x[0])))
    out: list[tuple[int, int, str]] = []
    for s, e, c in found:
        if any(s >= s2 and e <= e2 and (s, e) != (s2, e2) for s2, e2, _ in out):
            continue
        if any((s, e) == (s2, e2) for s2, e2, _ in out):
            continue
        out.append((s, e, c))
    return out


def find_citations(text: str, known_ids: Iterable[str] = ()) -> list[str]:
    """Every citation-shaped id in the text, in order, unique; plus any known pack id
    (such as ``Lam-rim-chen-mo`` or ``SuttaCentral``) that appears literally."""
    out: list[str] = []
    seen: set[str] = set()
    for _, _, c in _id_spans(text, known_ids):
        n = norm_id(c)
        if n not in seen:
            seen.add(n)
            out.append(c)
    return out


# ------------------------------------------------------------------ titles


# ------------------------------------------------------------------ units


@dataclass
class Cited:
    id: str
    start: int
    end: int
    title: str = ""
    quote: str = ""


def _enclosing(text: str, s: int, e: int) -> tuple[int, int]:
    """The bracket around text[s:e] (its start and end), or the id itself."""
    pairs = {"【": "】", "〔": "〕", "［": "］", "[": "]", "（": "）", "(": ")"}
    i = s - 1
    while i >= 0 and s - i <= 60:
        ch = text[i]
        if ch in pairs:
            close = text.find(pairs[ch], e)
            if close >= 0 and close - e <= 30:
                return i, close + 1
            break
        if ch in "】〕］]）)。！？\n":
            break
        i -= 1
    return s, e


def _quotes(text: str) -> list[tuple[int, int]]:
    out = []
    for o, c in QUOTES.items():
        i = 0
        while True:
            a = text.find(o, i)
            if a < 0:
                break
            b = text.find(c, a + 1)
            if b < 0:
                break
            out.append((a, b + 1))
            i = b + 1
    return sorted(out)


def cited_units(text: str, known_ids: Iterable[str]) -> list[Cited]:
    ids = _id_spans(text, known_ids)
    sents = sentences(text)
    quotes = _quotes(text)
    units: list[Cited] = []
    prev_end = 0
    for s, e, cid in ids:
        bs, be = _enclosing(text, s, e)
        sent_start = next((a for a, b in sents if a <= s < b), 0)
        inner = text[bs:be]
        tm = re.search(r"《([^》]+)》", inner)
        title = tm.group(1) if tm else ""
        lo = max(sent_start, prev_end)
        if not title:
            before = list(re.finditer(r"《([^》]+)》", text[lo:bs]))
            if before:
                title = before[-1].group(1)
        quote = ""
        qs = [q for q in quotes if lo <= q[0] and q[1] <= bs and len(text[q[1] : bs].strip("，,：: 　")) <= 6]
        if qs:
            a, b = qs[-1]
            quote = text[a + 1 : b - 1]
        else:
            qa = [q for q in quotes if q[0] >= be and len(text[be : q[0]].strip("，,：: 　")) <= 4]
            if qa:
                a, b = qa[0]
                quote = text[a + 1 : b - 1]
        units.append(Cited(id=cid, start=bs, end=be, title=title, quote=quote))
        prev_end = be
    return units


# ------------------------------------------------------------------ quote verification


def _source_texts(master: Master, source_id: str) -> tuple[str, bool]:
    """The pack's text for ``source_id`` (normalised) and whether it holds original wording."""
    nid = norm_id(source_id)
    parts: list[str] = []
    original = False
    for ex in master.excerpts:
        if norm_id(ex.source_id or "") != nid:
            continue
        parts.append(ex.text)
        parts += ex.points
        if re.search(r"(?m)^\s*>\s*\S", ex.text) or re.search(r"[「“\"][^」”\"\n]{6,}[」”\"]", ex.text):
            original = True
    for t in getattr(master, "teachings", []) or []:
        if norm_id(t.source_id or "") == nid:
            parts.append(t.text)
    return normalize_quote("\n".join(parts)), original


def canon_contains(source_id: str, quote: str) -> bool | None:
    """Whether the user's CBETA checkout ($DEBATE_CBETA, docs/cbeta.md) holds ``quote`` in the text
    ``source_id``; None when no checkout is configured or it lacks that text."""
    from debate_core.content.cbeta import canon_from_env

    try:
        canon = canon_from_env()
        return None if canon is None else canon.contains(source_id, quote)
    except ValueError:  # a misconfigured checkout or a refused file: the quote stays unchecked
        return None


def quote_found(quote: str, corpus: str) -> bool:
    if not corpus:
        return False
    pieces = [normalize_quote(p) for p in _ELLIPSIS.split(quote)]
    pieces = [p for p in pieces if len(p) >= 2]
    if not pieces:
        return False
    for p in pieces:
        if p in corpus:
            continue
        if len(p) < 6:
            return False
        misses = max(1, len(p) // 8)
        if not _has_run(p, corpus, -(-(len(p) - misses) // (misses + 1))):
            return False
        sm = difflib.SequenceMatcher(None, corpus, p, autojunk=False)
        blocks = sm.get_matching_blocks()
        # the piece, allowing one variant character in every eight, lies in one stretch of the corpus
        best = 0
        for blk in blocks:
            if blk.size == 0:
                continue
            window = corpus[max(0, blk.a - blk.b) : blk.a - blk.b + len(p)]
            same = sum(1 for x, y in zip(window, p, strict=False) if x == y)
            best = max(best, same)
        if best < len(p) - misses:
            return False
    return True


def _has_run(piece: str, corpus: str, run: int) -> bool:
    """Whether some ``run`` characters of ``piece`` in a row are in ``corpus``.  A stretch of the
    corpus that matches the piece but for ``misses`` characters holds, between those misses, a run
    of at least (len - misses) / (misses + 1) characters of the piece: a piece without one cannot
    pass the comparison below, which is left undone (it reads the whole corpus several times)."""
    return any(piece[i : i + run] in corpus for i in range(len(piece) - run + 1))


# ------------------------------------------------------------------ the rule


@dataclass
class CitationResult:
    passed: bool
    undecided: bool
    message: str
    marks: list[CitationMark]
    details: list[Detail] = field(default_factory=list)  # the message's statements as data (citation.*)


def check_citation_text(
    text: str,
    speaker: Master,
    known_ids: Iterable[str],
    owners: dict[str, str] | None = None,
    other_titles: dict[str, str] | None = None,
) -> CitationResult:
    """``owners``: normalised id → the name of the master whose source it is (for the message);
    ``other_titles``: normalised id → title, for every source of the pack (to say which text a
    mismatched title names)."""
    if not speaker.sources:
        return CitationResult(
            False,
            True,
            f"无法判定：{speaker.name} 在资料包中没有所列典籍，无从核对出处",
            [],
            [said("citation.no_sources", who=speaker.name)],
        )
    own = {norm_id(s.id): s for s in speaker.sources}
    units = cited_units(text, set(known_ids) | set(own_id.id for own_id in speaker.sources))
    if not units:
        return CitationResult(
            False,
            False,
            f"没有出处：至少引用一条 {speaker.name} 自己所列典籍的编号（如 {speaker.sources[0].id}）",
            [],
            [said("citation.none", who=speaker.name, example=speaker.sources[0].id)],
        )
    # each statement in the checker's Chinese words, with the same as data
    problems: list[tuple[str, Detail]] = []
    undecided: list[tuple[str, Detail]] = []
    notes: list[tuple[str, Detail]] = []
    marks: list[CitationMark] = []
    owners = owners or {}
    other_titles = other_titles or {}
    for u in units:
        nid = norm_id(u.id)
        src = own.get(nid)
        if src is None:
            who = owners.get(nid)
            problems.append(
                (
                    f"{u.id} 不是 {speaker.name} 所列典籍的编号"
                    + (f"（属于{who}）" if who else "（资料包中没有此编号）"),
                    said("citation.not_own", id=u.id, who=speaker.name, owner=who)
                    if who
                    else said("citation.not_in_pack", id=u.id, who=speaker.name),
                )
            )
            marks.append(
                CitationMark(id=u.id, title=u.title, quote=u.quote[:200], status="unverified" if u.quote else "id_only")
            )
            continue
        if u.title:
            t = _norm_title(u.title)
            if not src.title:
                undecided.append(
                    (
                        f"{u.id} 在资料包中没有书名，无法核对所写的《{u.title}》",
                        said("citation.untitled_source", id=u.id, title=u.title),
                    )
                )
            elif title_matches(u.title, src.title):
                pass
            elif (
                t in _POINTER_TITLES
                or _CHAPTER.search(t)
                and not any(title_matches(u.title, x.title) for x in speaker.sources)
            ):
                undecided.append(
                    (
                        f"《{u.title}》无法确定指哪部典籍（{u.id} 是《{_zh(src.title)}》）",
                        said("citation.title_unclear", title=u.title, id=u.id, source=_zh(src.title)),
                    )
                )
            else:
                named = next((x for x in speaker.sources if x is not src and title_matches(u.title, x.title)), None)
                if named is None:
                    for oid, ot in other_titles.items():
                        if oid != nid and title_matches(u.title, ot):
                            named = type(src)(id=oid, title=ot)
                            break
                also = f"，而《{u.title}》是 {named.id}" if named is not None else ""
                args = {"title": u.title, "id": u.id, "source": _zh(src.title)}
                problems.append(
                    (
                        f"【《{u.title}》，{u.id}】书名与编号不符：{u.id} 是《{_zh(src.title)}》{also}",
                        said("citation.title_mismatch", **args)
                        if named is None
                        else said("citation.title_other", **args, other=named.id),
                    )
                )
        framed = _framing_title(text, u)
        if framed and src.title and not title_matches(framed, src.title):
            problems.append(
                (
                    f"句中引的是《{framed}》的话，却标注为《{_zh(src.title)}》（{u.id}）",
                    said("citation.framed", framed=framed, source=_zh(src.title), id=u.id),
                )
            )
        status = "id_only"
        if u.quote:
            corpus, original = _source_texts(speaker, src.id)
            short = u.quote if len(u.quote) <= 20 else u.quote[:20] + "…"
            in_canon = None if original else canon_contains(src.id, u.quote)
            if quote_found(u.quote, corpus) or in_canon:
                status = "verified"
            elif original or in_canon is False:
                status = "unverified"
                where = "资料包中" if original else "所配置的 CBETA 藏经中"
                problems.append(
                    (
                        f"引文「{short}」不见于{where}《{_zh(src.title)}》（{src.id}）的原文，疑为杜撰",
                        said(
                            "citation.quote_not_in_pack" if original else "citation.quote_not_in_canon",
                            quote=short,
                            source=_zh(src.title),
                            id=src.id,
                        ),
                    )
                )
            else:  # nothing to check it against: said so, never a ✗
                status = "unchecked"
                if corpus:
                    notes.append(
                        (
                            f"引文「{short}」无法核对：资料包只有《{_zh(src.title)}》的要点，没有原文",
                            said("citation.quote_points_only", quote=short, source=_zh(src.title)),
                        )
                    )
                else:
                    notes.append(
                        (
                            f"引文「{short}」无法核对：资料包没有《{_zh(src.title)}》（{src.id}）的文本",
                            said("citation.quote_no_text", quote=short, source=_zh(src.title), id=src.id),
                        )
                    )
        marks.append(
            CitationMark(id=u.id, title=u.title or chinese_title(src.title), quote=u.quote[:200], status=status)
        )
    problems += _title_only_problems(text, units, speaker, owners, other_titles)
    summary = "；".join(f"{m.id}（{_STATUS_ZH[m.status]}）" for m in marks)
    if problems:
        return CitationResult(
            False,
            False,
            "；".join(zh for zh, _d in problems + undecided),
            marks,
            [d for _zh, d in problems + undecided],
        )
    if undecided:
        return CitationResult(
            False,
            True,
            "无法判定：" + "；".join(zh for zh, _d in undecided),
            marks,
            [said("undecided")] + [d for _zh, d in undecided],
        )
    msg = "出处均属本人：" + summary + ("；" + "；".join(zh for zh, _d in notes) if notes else "")
    return CitationResult(
        True,
        False,
        msg,
        marks,
        [said("citation.own")]
        + [said("citation.mark", id=m.id, status=m.status) for m in marks]
        + [d for _zh, d in notes],
    )


_FRAME_AFTER = re.compile(r"^(?:中|里|裡)?(?:云|曰|说|說|有云|有言|所说|所說|所言|言)\s*[：:，,]?")
_TURN = re.compile(r"然而|但是|但|却|卻|可是|不过|然|而")


def _framing_title(text: str, u: Cited) -> str:
    """The text a cited passage is framed as the words of (《X》云：「…」【…】), when the bracket names
    a title of its own and X is the nearest title before it in the sentence; "" otherwise."""
    if not u.title or text.rfind("《", 0, u.start) < 0:
        return ""
    head = text[: u.start]
    masked = mask(head, '「『“‘"')
    cut = max(masked.rfind(c) for c in "。！？\n")
    sent = head[cut + 1 :]
    titles = list(re.finditer(r"《([^》]+)》", sent))
    if not titles:
        return ""
    last = titles[-1]
    after = sent[last.end() :]
    if not _FRAME_AFTER.match(after):
        return ""
    words = mask(after) if "「" in after or "“" in after else after
    if _TURN.search(words):
        return ""  # 《文钞》说…，然而…【《坛经》…】: the cited words are the speaker's reply
    return last.group(1)


_TITLE_BRACKET = re.compile(r"【[^】]*?《([^》]+)》[^】]*】")


def _title_only_problems(
    text: str, units: list[Cited], speaker: Master, owners: dict[str, str], other_titles: dict[str, str]
) -> list[tuple[str, Detail]]:
    """A citation bracket that names a text but gives no id (【《阿弥陀经》】) still cites that text: it
    must be one of the speaker's own sources."""
    out = []
    for m in _TITLE_BRACKET.finditer(text):
        if any(u.start <= m.start() < u.end or m.start() <= u.start < m.end() for u in units):
            continue  # a bracket with an id is judged above
        title = m.group(1)
        if any(title_matches(title, src.title) for src in speaker.sources if src.title):
            continue
        matches = [oid for oid, ot in other_titles.items() if title_matches(title, ot)]
        exact = [oid for oid in matches if _norm_title(title) in title_variants(other_titles[oid])]
        named = exact[0] if exact else matches[0] if matches else None
        if named is not None:
            who = owners.get(norm_id(named))
            out.append(
                (
                    f"{m.group(0)}引的《{title}》不在 {speaker.name} 所列的典籍中（是 {named}"
                    + (f"，属于{who}）" if who else "）"),
                    said(
                        "citation.title_not_own",
                        bracket=m.group(0),
                        title=title,
                        who=speaker.name,
                        other=named,
                        owner=who,
                    )
                    if who
                    else said(
                        "citation.title_not_own_id", bracket=m.group(0), title=title, who=speaker.name, other=named
                    ),
                )
            )
        else:
            out.append(
                (
                    f"{m.group(0)}引的《{title}》不在 {speaker.name} 所列的典籍中，也没有编号",
                    said("citation.title_no_id", bracket=m.group(0), title=title, who=speaker.name),
                )
            )
    return out


def _zh(title: str) -> str:
    """A source's title as a Chinese debate writes it: its Chinese part when it has one."""
    return chinese_title(title) or title


_STATUS_ZH = {"verified": "引文已核对", "id_only": "仅编号", "unverified": "引文未核对", "unchecked": "引文无原文可核"}
