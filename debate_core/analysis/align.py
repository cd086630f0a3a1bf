"""The offline aligner of the argument ledger: does a later paragraph of one side engage an earlier
claim of the other side, though it cites nothing?

Both texts are reduced to *content terms*:

* **Chinese**: character bigrams of each run of Chinese characters, minus stop-bigrams (function
  words and the debate's own scaffolding: 我们, 对方, 但是, 可以 … and any bigram holding a particle
  such as 的 or 了), after a small synonym fold (费用 / 开支 / 花钱 → 成本 …);
* **English**: lower-cased words minus stopwords (function words and debate scaffolding: claim,
  argue, opponent, motion …), each folded by a light stemmer written here (plurals, -ing, -ed,
  -ly, -ment …, then at most seven letters) and a small synonym table (phone / handset / device …).

A pair's score is the cosine of the two term vectors, each term weighted by its inverse document
frequency over the debate's own claims (the proposition counts as one more document), so the
topic's words, which every paragraph shares, weigh least.  A paragraph *engages* the candidate it
scores best against when

* that score reaches :data:`THRESHOLD`, with at least :data:`MIN_SHARED` shared terms, and
* it is at least :data:`MARGIN` times the paragraph's second-best score (a paragraph that shares
  the topic's words with every claim about equally engages none of them in particular).

So a paragraph yields at most one inferred attack.  The ledger asks only about paragraphs that cite
no claim (a paragraph that cites answers what it cites).  The numbers were chosen on the dev half
of the gold set (tests/fixtures/ledger_gold; ``bench/ledger_bench.py --tune`` prints the grid);
docs/research.md gives the measured precision and recall on its test half.
Standard library only; deterministic.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# chosen on the gold set's dev half (bench/ledger_bench.py --tune prints the grid)
THRESHOLD = 0.05
MARGIN = 1.5
MIN_SHARED = 1

_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_WORD = re.compile(r"[a-z][a-z0-9]*(?:[-'][a-z]+)*")
_IDS = re.compile(r"\[[A-Z]\d+(?:\.\d+)+\]|\b[QA]\d+\s*[:：]|\b[PC]\d+\.\d+\b|【[^】]*】")

# ----------------------------------------------------------------------------- English

_STOP_EN = frozenset(
    """
a about above across after afterwards again against all almost alone along already also although always am
among an and another any anyone anything anyway anywhere are aren't around as at away back be became because
become becomes been before being below beside besides between beyond both but by can cannot can't could
couldn't did didn't do does doesn't doing done don't down during each either else enough even ever every
everyone everything everywhere few first for from further get gets getting give given gives go goes going gone
got had hadn't has hasn't have haven't having he her here hers herself him himself his how however i if in
indeed into is isn't it its it's itself just keep kept last least less let lets like made make makes making
many may me might mine more moreover most mostly much must my myself neither never nevertheless next no nobody
none nor not nothing now nowhere of off often on once one only onto or other others otherwise our ours
ourselves out over own per perhaps put rather really same say says said see seem seemed seems several shall
she should shouldn't since so some somehow someone something sometimes somewhere still such take taken than
that that's the their theirs them themselves then there thereby therefore these they thing things this those
though through throughout thus to together too toward towards under until up upon us very via was wasn't we
well were weren't what whatever when whenever where whereas wherever whether which while who whoever whole
whom whose why will with within without won't would wouldn't yet you your yours yourself yourselves yes i'm
we're they're you're it'll we'll pro con claim claims argue argues argued argument arguments opponent
opponents opponent's side case motion debate point points position says saying said simply actually exactly
quite instead already own answer answers asks ask asked question questions reply replies response responds
respond clearly clear true fact indeed mean means whole exactly entire entirely real really way ways kind sort
far lot lots
""".split()
)

# irregular forms and a small synonym / stem fold of our own: every word of a group becomes its
# first word (applied to the word and to its stem)
_SYNONYMS_EN = """
phone phones smartphone smartphones handset handsets device devices mobile mobiles
car cars vehicle vehicles automobile motorist motorists
cost costs costly expense expenses expensive price prices cheap cheaper
cost money budget funding fund funds afford affordable spend spending
tax taxes levy levies duty
ban bans banned banning prohibit prohibited prohibition forbid forbidden outlaw
evidence study studies research data proof trial trials survey surveys
harm harms harmful damage damaged hurt injury
increase increases increased rise rises rose risen grow grows grew growth raise raised
decrease decreases decreased fall falls fell drop drops dropped decline reduce reduced reduces reduction lower cut cuts
large big huge bigger larger
small little modest tiny smaller
fast faster quick quicker quickly rapid speed speedy
safe safety secure security protect protects protection protected
worker workers employee employees staff workforce
firm firms company companies business businesses employer employers
poor poorest poverty low-income
rule rules regulation regulations requirement requirements require required requires mandate law laws
allow allows allowed permit permits permitted
child children kid kids
student students pupil pupils
shop shops store stores retailer retailers
city cities town towns urban
enforce enforced enforcement enforcing police policing
evening night nightly overnight
choose choice choices chose chosen option options
""".strip().splitlines()
_IRREGULAR_EN = {
    "children": "child",
    "people": "person",
    "men": "man",
    "women": "woman",
    "better": "good",
    "best": "good",
    "worse": "bad",
    "worst": "bad",
    "paid": "pay",
    "bought": "buy",
    "taught": "teach",
    "thought": "think",
    "brought": "bring",
    "sold": "sell",
    "left": "leave",
    "met": "meet",
}


def _stem(w: str) -> str:
    """A light English stemmer of our own: inflections and common derivational endings off, then
    at most seven letters (so ``enforcement`` and ``enforce`` meet)."""
    if w in _IRREGULAR_EN:
        return _IRREGULAR_EN[w]
    if w.endswith("'s"):
        w = w[:-2]
    for suf, rep in (
        ("ies", "y"),
        ("ied", "y"),
        ("sses", "ss"),
        ("ness", ""),
        ("ments", ""),
        ("ment", ""),
        ("ations", "ate"),
        ("ation", "ate"),
        ("ingly", ""),
        ("edly", ""),
        ("ing", ""),
        ("ed", ""),
        ("ers", ""),
        ("er", ""),
        ("ly", ""),
        ("es", ""),
        ("s", ""),
    ):
        if w.endswith(suf) and len(w) - len(suf) >= 3 and not (suf == "s" and w.endswith(("ss", "us", "is"))):
            w = w[: len(w) - len(suf)] + rep
            break
    if len(w) > 4 and w[-1] == w[-2] and w[-1] not in "lsz":  # running -> runn -> run
        w = w[:-1]
    if len(w) > 4 and w.endswith("e"):
        w = w[:-1]
    return w[:7]


def _fold_table(groups: Iterable[str], stem) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in groups:
        words = line.split()
        if not words:
            continue
        head = stem(words[0])
        for w in words:
            out.setdefault(w, head)
            out.setdefault(stem(w), head)
    return out


_FOLD_EN = _fold_table(_SYNONYMS_EN, _stem)


def english_terms(text: str) -> list[str]:
    out = []
    for w in _WORD.findall(text.lower()):
        w = w.strip("-'")
        if len(w) < 3 or w in _STOP_EN or w.isdigit():
            continue
        t = _FOLD_EN.get(w) or _stem(w)
        t = _FOLD_EN.get(t, t)
        if t in _STOP_EN or len(t) < 3:
            continue
        out.append(t)
    return out


# ----------------------------------------------------------------------------- Chinese

# a bigram holding one of these characters is a stop-bigram (particles, pronouns, copulas)
_STOP_CHARS_ZH = frozenset(
    "的了是在和也都就而与及之其这那我你他她它们着吗呢吧啊把被让给对从向于为以很更最还又再并个些有么啥哪"
)
_STOP_BIGRAMS_ZH = frozenset(
    """
对方 我方 一个 一种 一样 没有 不是 就是 因为 所以 但是 如果 可以 已经 还是 自己 什么 怎么 这样 那样
只是 也是 都是 并不 而是 这种 这一 之后 之前 问题 认为 说明 其实 真正 本来 而且 或者 以及 需要 应当
应该 是否 能够 不能 不会 不必 只有 只能 可能 一定 确实 承认 同意 反对 主张 观点 论点 理由 提出 指出
说法 看法 意见 方面 时候 地方 事情 情况 一些 一下 一起 不过 然而 虽然 即使 至少 甚至 恰恰 正是 也就
大家 别人 人们 任何 所有 每个 各种 其他 另外 同时 出来 起来 下去 过来 根本 完全 非常 特别 十分 真的
这么 那么 多少 几个 一点 有人 谁来 谁都 要求 本题 题目 辩论 对手 首先 其次 最后 第一 第二 第三 总之
因此 于是 为了 关于 通过 根据 按照 作为 成为 变成 得到 进行 开始 已经 就会 就能 不能 不要 不得 不再
并非 而非 并无 无法 只会 只要 必须 能不 不到
""".split()
)

_SYNONYMS_ZH = """
成本 费用 开支 经费 花费 花钱 开销 钱
禁止 禁令 取缔 不准 不许
证据 数据
孩子 儿童 小孩
老人 老年人
汽车 私家车 车辆 轿车
学生 学子
考试 考核 测验
""".strip().splitlines()
_FOLD_ZH = sorted(((w, line.split()[0]) for line in _SYNONYMS_ZH for w in line.split()[1:]), key=lambda x: -len(x[0]))


def chinese_terms(text: str) -> list[str]:
    for w, head in _FOLD_ZH:
        if w in text:
            text = text.replace(w, head)
    out = []
    for run in _CJK_RUN.findall(text):
        for i in range(len(run) - 1):
            b = run[i : i + 2]
            if b in _STOP_BIGRAMS_ZH or b[0] in _STOP_CHARS_ZH or b[1] in _STOP_CHARS_ZH:
                continue
            out.append(b)
    return out


def terms(text: str) -> list[str]:
    """The content terms of a text, Chinese and English alike (claim ids, Q1:/A1: markers and 【source】
    citations out)."""
    text = _IDS.sub(" ", text or "")
    return chinese_terms(text) + english_terms(text)


# ----------------------------------------------------------------------------- scoring


@dataclass(frozen=True)
class Params:
    threshold: float = THRESHOLD
    margin: float = MARGIN
    min_shared: int = MIN_SHARED


class Aligner:
    """Scores paragraphs against claims of one debate; ``documents`` are every claim's text (and the
    proposition), which set the inverse document frequencies."""

    def __init__(self, documents: Sequence[str], params: Params | None = None):
        self.params = params or Params()
        self._terms: dict[str, Counter] = {}
        df: Counter = Counter()
        for d in documents:
            df.update(set(self._bag(d)))
        n = max(1, len(documents))
        self.idf = {t: math.log((n + 1) / (c + 0.5)) for t, c in df.items()}
        self._default_idf = math.log((n + 1) / 0.5)
        self._vec: dict[str, tuple[dict[str, float], float]] = {}

    def _bag(self, text: str) -> Counter:
        bag = self._terms.get(text)
        if bag is None:
            bag = self._terms[text] = Counter(terms(text))
        return bag

    def _vector(self, text: str) -> tuple[dict[str, float], float]:
        hit = self._vec.get(text)
        if hit is None:
            bag = self._bag(text)
            v = {t: (1 + math.log(c)) * self.idf.get(t, self._default_idf) for t, c in bag.items()}
            hit = self._vec[text] = (v, math.sqrt(sum(x * x for x in v.values())) or 1.0)
        return hit

    def score(self, source: str, target: str) -> tuple[float, int]:
        """(cosine of the weighted term vectors, number of shared terms)."""
        (a, na), (b, nb) = self._vector(source), self._vector(target)
        if len(a) > len(b):
            a, b = b, a
        shared = [t for t in a if t in b]
        return sum(a[t] * b[t] for t in shared) / (na * nb), len(shared)

    def shared(self, source: str, target: str) -> list[str]:
        a, b = self._bag(source), self._bag(target)
        return sorted(set(a) & set(b), key=lambda t: -self.idf.get(t, 0.0))

    def ranked(self, source: str, targets: Sequence[tuple[str, str]]) -> list[tuple[str, float, int]]:
        """Every target (id, text) scored against ``source``: [(id, score, shared terms)], best first."""
        out = [(tid, *self.score(source, text)) for tid, text in targets]
        return sorted(out, key=lambda x: -x[1])

    def engaged(self, source: str, targets: Sequence[tuple[str, str]]) -> list[tuple[str, float]]:
        """The target (id, text) the paragraph ``source`` engages, as [(id, score)], or []."""
        p = self.params
        ranked = [r for r in self.ranked(source, targets) if r[2] >= p.min_shared]
        if not ranked:
            return []
        tid, best, _n = ranked[0]
        second = ranked[1][1] if len(ranked) > 1 else 0.0
        if best >= p.threshold and best >= p.margin * second:
            return [(tid, round(best, 4))]
        return []
