"""The argument layer's models and the speech plan (part of the one schema; ``models`` re-uses them).

A pack's optional argument layer (docs/arguments.md): themes, each master's positions on them,
objections aimed at named claims of another master, and the replies to them.  A pack without it
gets a derived layer from its teachings and cross_critique (``ArgumentBank.derived``).  A speech
plan is built over the bank before any text is written; both the offline engine and the model
prompts render it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Theme(BaseModel):
    id: str
    title: str
    question: str = ""
    keywords: list[str] = Field(default_factory=list)
    general: bool = False  # a catch-all question (the path itself): it yields to any specific theme a topic matches


class Reason(BaseModel):
    """One point of a position: a teaching in the master's voice, with the text it comes from."""

    text: str
    gist: str = ""  # the point in a few words: what a summary carries
    source: str = ""  # a source id of the master's own; "" when the unit has none of its own
    locus: str = ""  # the chapter or section of that text
    quote: str = ""  # a short phrase of that text, verbatim, checked against the canon when present


class Position(BaseModel):
    master: str
    theme: str
    claim: str
    short: str = ""
    reasons: list[Reason] = Field(default_factory=list)
    concedes: list[str] = Field(default_factory=list)
    derived: bool = False

    @property
    def id(self) -> str:
        return f"{self.master}:{self.theme}"

    def point_id(self, n: int) -> str:
        """``master:theme#n``: #0 is the claim, #1..#3 its reasons."""
        return f"{self.id}#{n}"


class Objection(BaseModel):
    id: str
    by: str
    target: str  # the point it answers: master:theme#n
    text: str
    gist: str = ""
    source: str = ""
    quote: str = ""

    @property
    def target_master(self) -> str:
        return self.target.split(":", 1)[0]

    @property
    def target_theme(self) -> str:
        return self.target.split(":", 1)[1].split("#", 1)[0] if ":" in self.target else ""


class Reply(BaseModel):
    to: str  # an objection id
    by: str
    stance: Literal["accept", "partly", "hold"] = "hold"
    text: str
    gist: str = ""
    source: str = ""
    quote: str = ""


class Common(BaseModel):
    """What both masters of a pair would sign on a theme (``text``), or what still divides them
    (``level``: 行门 / 见地 / 判教 / 根机)."""

    theme: str
    text: str
    level: str = ""


class PairBank(BaseModel):
    pair: list[str]
    themes: list[str] = Field(default_factory=list)
    objections: list[Objection] = Field(default_factory=list)
    replies: list[Reply] = Field(default_factory=list)
    common_ground: list[Common] = Field(default_factory=list)
    differences: list[Common] = Field(default_factory=list)
    to_reader: list[Common] = Field(default_factory=list)


class CaseGround(BaseModel):
    """A further ground of one master's answer to this very question (why he answers so, or the part of the
    question his answer's first paragraph leaves), with his own source."""

    text: str
    gist: str = ""
    source: str = ""
    quote: str = ""


class CaseAnswer(BaseModel):
    """One master's answer to a case: ``text`` answers the question itself (his first speech), ``then``
    says what he would have the asker do about it (his second speech); ``more`` holds his further grounds on
    this question, which his speeches take before any general reason of his on the theme."""

    by: str
    text: str
    gist: str = ""
    source: str = ""
    quote: str = ""
    then: str = ""
    then_source: str = ""
    more: list[CaseGround] = Field(default_factory=list)


class CaseReply(BaseModel):
    """The answer's author replying to an objection at his answer: accept, partly accept or hold, and why."""

    stance: Literal["accept", "partly", "hold"]
    text: str
    gist: str = ""
    source: str = ""
    quote: str = ""


class CaseObjection(BaseModel):
    """One master's objection at another's answer to a case (``at`` answered it too), and ``at``'s reply;
    ``press`` is the objector's further word once he has heard that reply (his 回应 after an opening that
    raised the objection in advance), with his own source."""

    by: str
    at: str
    text: str
    gist: str = ""
    source: str = ""
    quote: str = ""
    reply: CaseReply | None = None
    press: CaseGround | None = None


# Longer words inside which a shorter match word means something else: 朋友 in 男朋友 is no friend, 小白 (a
# beginner) in 小白鼠 is a lab mouse, 朋友 in 朋友圈 is a feed, 菩萨 / 声闻 in 菩萨戒 / 声闻戒 is a body of precepts
# (a question on 持犯 reached the case of arahant and bodhisattva). A match word found only inside one of these
# is not in the topic.
SHADOWS = ("男朋友", "女朋友", "小白鼠", "白鼠", "朋友圈", "菩萨戒", "声闻戒")


def _spans(topic: str, words: list[str]) -> list[tuple[int, int]]:
    """Where ``words`` occur in ``topic``, except inside a :data:`SHADOWS` word that is not itself one of them."""
    shadowed = [
        (i, i + len(sh)) for sh in SHADOWS if sh not in words for i in range(len(topic)) if topic.startswith(sh, i)
    ]
    out = []
    for w in words:
        if not w:
            continue
        i = topic.find(w)
        while i != -1:
            if not any(a <= i and i + len(w) <= b and (a, b) != (i, i + len(w)) for a, b in shadowed):
                out.append((i, i + len(w)))
            i = topic.find(w, i + 1)
    return out


class Case(BaseModel):
    """A concrete question under a theme (放生一定有功德吗 under 布施与供养), with the masters' own answers.

    ``match`` is a list of word groups: a topic is this case when it holds a word of every group."""

    id: str
    theme: str
    question: str
    match: list[list[str]] = Field(default_factory=list)
    answers: list[CaseAnswer] = Field(default_factory=list)
    objections: list[CaseObjection] = Field(default_factory=list)
    to_reader: str = ""

    def matches(self, topic: str) -> bool:
        """Every group of match words is in the topic; a word found only inside a longer word that means
        something else is not there (r22: 朋友 in 男朋友, 小白 in 小白鼠: :data:`SHADOWS`)."""
        return bool(self.match) and all(_spans(topic, group) for group in self.match)

    def hits(self, topic: str) -> list[str]:
        return [w for group in self.match for w in group if w and _spans(topic, [w])]

    def answer(self, slug: str) -> CaseAnswer | None:
        return next((a for a in self.answers if a.by == slug), None)

    def reply_to(self, objection_id: str) -> CaseReply | None:
        """The reply to one of this case's objections, by the id :meth:`objections_at` gave it."""
        raw = self.raw(objection_id)
        return raw.reply if raw is not None else None

    def raw(self, objection_id: str) -> CaseObjection | None:
        """One of this case's objections as written (with its reply and press), by its :meth:`objections_at` id."""
        for by, at in {(o.by, o.at) for o in self.objections}:
            raws = [x for x in self.objections if x.by == by and x.at == at]  # objections_at keeps their order
            for obj, raw in zip(self.objections_at(by, at), raws, strict=True):
                if obj.id == objection_id:
                    return raw
        return None

    def objections_at(self, by: str, at: str) -> list[Objection]:
        """``by``'s objections at ``at``'s answer, as objections at ``at``'s claim on the case's theme
        (id ``by>at/<theme>/case:<case id>``): a debate on the case fires them as ammo."""
        return [
            Objection(
                id=f"{o.by}>{o.at}/{self.theme}/case:{self.id}" + (f"#{i}" if i else ""),
                by=o.by,
                target=f"{o.at}:{self.theme}#0",
                text=o.text,
                gist=o.gist,
                source=o.source,
                quote=o.quote,
            )
            for i, o in enumerate(x for x in self.objections if x.by == by and x.at == at)
        ]


class ArgumentBank(BaseModel):
    themes: list[Theme] = Field(default_factory=list)
    cases: list[Case] = Field(default_factory=list)
    positions: dict[str, list[Position]] = Field(default_factory=dict)  # master slug -> positions
    pairs: dict[str, PairBank] = Field(default_factory=dict)  # pair key (sorted slugs joined by -vs-) -> bank
    derived: bool = False  # True: built from the pack's teachings and cross_critique, not written
    generic: list[str] = Field(default_factory=list)  # match words that never decide a case alone (担心, 万一 …)
    scene: list[str] = Field(default_factory=list)  # who is there, where, when (顾客, 历史上): never decide one either
    problems: list[str] = Field(default_factory=list)

    def theme(self, theme_id: str) -> Theme | None:
        return next((t for t in self.themes if t.id == theme_id), None)

    def position(self, master: str, theme: str) -> Position | None:
        return next((p for p in self.positions.get(master, []) if p.theme == theme), None)

    def pair(self, a: str, b: str) -> PairBank | None:
        return self.pairs.get("-vs-".join(sorted((a, b))))

    def objections(self, by: str, against: str, theme: str | None = None) -> list[Objection]:
        pb = self.pair(by, against)
        if pb is None:
            return []
        return [
            o
            for o in pb.objections
            if o.by == by and o.target_master == against and (theme is None or o.target_theme == theme)
        ]

    def cases_for(self, topic: str) -> list[Case]:
        """The cases ``topic`` is, the most specific first (more words matched, then more groups).  A case
        whose words in the topic are all :attr:`generic` (feelings and hedges) or :attr:`scene` (who is
        there, where, when) is not one of them: r25's waiter asked to net a live fish for a guest (服务员 +
        客人) is not the delivery rider scolded by customers."""
        generic = set(self.generic)
        undeciding = generic | set(self.scene)
        hit = [c for c in self.cases if c.matches(topic) and any(w not in undeciding for w in c.hits(topic))]

        def specific(c: Case) -> int:
            # the topic's characters its non-generic words cover, each counted once: a word listed in two
            # groups, or a feeling word, no longer outweighs the situation (r10: a health scare answered
            # as worry for one's family, on 往坏处想 counted twice)
            covered: set[int] = set()
            for w in set(c.hits(topic)) - generic:
                start = topic.find(w)
                while start != -1:
                    covered |= set(range(start, start + len(w)))
                    start = topic.find(w, start + 1)
            return len(covered)

        def pairs(text: str) -> set[str]:  # CJK character pairs (content.text.bigrams_of, one layer up)
            chars = "".join(ch for ch in text if "\u4e00" <= ch <= "\u9fff")
            return {chars[i : i + 2] for i in range(len(chars) - 1)}

        asked = pairs(topic)
        # on a tie, the longer situation words (feelings and hedges left out: before, a generic word's length
        # could break the tie), then the case whose own question shares most word pairs with the topic
        return sorted(
            hit,
            key=lambda c: (
                -len(c.match),
                -specific(c),
                -sum(len(w) for w in set(c.hits(topic)) - generic),
                -len(pairs(c.question) & asked),
            ),
        )

    def case(self, case_id: str) -> Case | None:
        return next((c for c in self.cases if c.id == case_id), None)

    def replies_to(self, objection_id: str, by: str) -> list[Reply]:
        for pb in self.pairs.values():
            hits = [r for r in pb.replies if r.to == objection_id and r.by == by]
            if hits:
                return hits
        return []


class PlanPoint(BaseModel):
    """One move of a speech plan.  ``kind``: stance, reason, contrast (an objection at the
    opponent's claim), restate, answer (an objection aimed at a restated point), no_answer, accept,
    partly, hold, common, difference, to_reader, thin; press (the speaker's further word on his case objection
    once the other side has replied to it); case (the speaker's answer to the concrete
    question the topic is), case_then (what he would have the asker do about it, never cited) and
    case_difference (a 综合's two answers to the case: his own gist in text, the other's in target_text)."""

    kind: str
    text: str = ""
    ref: str = ""  # the bank entry it renders: a point id, an objection id, a reply's objection id
    target: str = ""  # what it answers: a restated point id, or the objection a reply is to
    target_text: str = ""  # that point or objection as the summary carried it
    gist: str = ""  # this point in a few words: what the round summary carries
    source: str = ""
    quote: str = ""
    heard: bool = True  # contrast: the opponent has put the point in this debate (else: his school's known view)


class SpeechPlan(BaseModel):
    """What a speech will say, built over the argument bank before any text is written.

    Every sentence about the speech itself (an answer, an acceptance, shared ground, "each reason
    has its source") is rendered from a point of this plan and from nothing else."""

    role: str
    round: int = 0  # the debate's round it plans (0: not known, as in plans stored before it was kept)
    theme: str = ""
    theme_title: str = ""
    theme_terms: list[str] = Field(default_factory=list)  # the topic's words that matched the theme
    stance: str = ""
    short: str = ""
    points: list[PlanPoint] = Field(default_factory=list)
    cited: list[str] = Field(default_factory=list)
    material: Literal["full", "thin", "none"] = "full"
    case: str = ""  # the bank's case the topic is (its id), when there is one
    case_question: str = ""
    derived: bool = False

    def of(self, *kinds: str) -> list[PlanPoint]:
        return [p for p in self.points if p.kind in kinds]
