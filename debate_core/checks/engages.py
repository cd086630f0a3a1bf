"""``engages`` (回应论点): in a 反驳 or 回应 the body after the restatement answers the restated point(s).

The restatement rule checks that the first sentence restates the opponent's summary faithfully; it says
nothing of what follows.  A speech that echoes the summary in one sentence and then talks about
something else passes the restatement rule and fails this one.

* The *points* are the clauses of the opponent's summary (its name, the verb that introduces it and its
  citation tail stripped: 慧能立法无顿渐：人有利钝；一念悟即佛 → 法无顿渐 / 人有利钝 / 一念悟即佛).  The
  *restated* points are those the restating sentence carries (all of them when it carries none: the
  body must then answer the summary itself).
* The *body* is the speech after the restating sentence (and after a turn inside it: 然而, 但是 …).
* A point is *engaged* when the body shares a content term with it: a two-character phrase of the
  point, synonyms mapped together (lexicons/synonyms.yaml), framing words (上一轮, 所说, 认为 …,
  lexicons/engages.yaml) left out.  The body must engage at least half of the restated points (a
  speech may pass over a minor one); below that it has turned to another subject and fails, naming
  the first point it left unanswered.
* For a speech written from a plan (the offline engine; ``CheckContext.plan``), a point is also engaged
  when the plan has an answer, reply, acceptance or hold aimed at it and that move's text is in the body.
* With no summary the rule cannot decide, and says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from debate_core.checks import lexicons
from debate_core.checks.lexicons import canon
from debate_core.checks.registry import said
from debate_core.checks.restatement import RESTATING_ROLES, _cut_reply, _strip, first_sentence
from debate_core.content.text import cjk_only, ngrams, sentences
from debate_core.models import Detail

# plan moves that answer a restated point (see plans.PlanPoint.kind)
ANSWER_KINDS = ("answer", "accept", "partly", "hold", "no_answer", "reply")
RESTATE_KINDS = ("restate", "restate_summary")


@dataclass
class Engagement:
    passed: bool
    undecided: bool
    message: str
    details: list[Detail] = field(default_factory=list)  # the message as data (engages.*)


def _frame() -> re.Pattern:
    return lexicons.regex("engages.frame")


def _split_points(summary: str, opp_names: Iterable[str]) -> list[str]:
    """The points of a summary: its clauses, without the citation tail, names and framing words."""
    s = re.sub(r"引《[^》]*》[^。；]*|《[^》]*》|【[^】]*】|[A-Z][A-Za-z0-9:._-]*\d", "", summary)
    s = _strip(s, list(opp_names))
    out = []
    for piece in re.split(r"[：:；;。！？!?，,、\n]|(?:[一二三四五]是|其[一二三四五]|第[一二三四五]点?)", s):
        core = _frame().sub("|", cjk_only(piece) or "")
        if len(core.replace("|", "")) >= 2:
            out.append(piece.strip())
    return out


def terms(text: str) -> set[str]:
    """Content terms: two-character phrases within the runs left after framing words are cut out,
    each synonym mapped to its group's first word."""
    out: set[str] = set()
    for run in _frame().split(cjk_only(text)):
        run = canon(run)
        out |= {run[i : i + 2] for i in range(len(run) - 1)}
    return out - set(lexicons.words("engages.stop_terms"))


def _body(text: str, summary: str, opp_names: list[str]) -> tuple[str, str]:
    """(the restating sentence, the body after it)."""
    t = text.strip()
    sent, idx = first_sentence(t, opp_names)
    sents = sentences(t)
    if not sents:
        return "", ""
    end = sents[idx][1] if idx < len(sents) else len(t)
    kept = _cut_reply(sent, summary, opp_names)
    return kept, sent[len(kept) :] + t[end:]


def _plan_engaged(plan, body: str) -> dict[str, str]:
    """Restated point ids of a plan → "" when the plan answers them in the body, else their text."""
    if plan is None:
        return {}
    restated = {p.target: (p.target_text or p.text) for p in plan.points if p.kind in RESTATE_KINDS and p.target}
    body_grams = ngrams(body, 4)
    out = {}
    for target, shown in restated.items():
        answered = [p for p in plan.points if p.kind in ANSWER_KINDS and p.target == target]
        out[target] = "" if any(len(ngrams(p.text, 4) & body_grams) >= 2 for p in answered) else shown
    return out


def check(
    text: str, role: str, summary: str, opp_names: list[str], speaker_names: list[str], opp_display: str, plan=None
) -> Engagement:
    if role not in RESTATING_ROLES:
        return Engagement(True, False, f"{role}轮不要求回应对方", [said("engages.not_required", role=role)])
    if not text.strip():
        return Engagement(False, False, "发言为空", [said("speech.empty")])
    if not summary.strip():
        return Engagement(
            False,
            True,
            "无法判定：没有对方上一轮的摘要，无从核对正文是否回应了对方的论点",
            [said("engages.no_summary")],
        )
    restating, body = _body(text, summary, opp_names)
    points = _split_points(summary, opp_names)
    if not points:
        return Engagement(False, True, "无法判定：对方摘要里没有可辨认的论点", [said("engages.no_points")])
    r_terms = terms(_strip(restating, opp_names + speaker_names))
    restated = [p for p in points if terms(p) & r_terms] or points
    b_terms = terms(_strip(body, opp_names + speaker_names))
    by_plan = _plan_engaged(plan, body)
    plan_ok = bool(by_plan) and not any(by_plan.values())
    missing = [p for p in restated if not (terms(p) & b_terms)]
    n, k = len(restated), len(restated) - len(missing)
    if 2 * k < n and not plan_ok:
        return Engagement(
            False,
            False,
            f"复述之后的正文没有回应对方的论点「{missing[0][:20]}」（{n} 个论点只回应了 "
            f"{k} 个）："
            f"反驳/回应须针对所复述的论点作答，不可转而另谈别题",
            [said("engages.missing", point=missing[0][:20], n=n, k=k)],
        )
    if plan_ok and 2 * k < n:
        return Engagement(True, False, f"正文依发言计划回应了复述的 {n} 个论点", [said("engages.by_plan", n=n)])
    return Engagement(True, False, f"正文回应了复述的 {n} 个论点中的 {k} 个", [said("engages.answered", n=n, k=k)])
