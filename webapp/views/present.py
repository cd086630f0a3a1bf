"""The Present page (a projector view): an archived debate revealed round by round, in large type and
without metadata; the observation or the verdict is the last step.  A debate still running shows the
rounds that exist so far: the archive is read again on every step.  Nothing here imports streamlit."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from debate_core.content.distress import NOTICE as DISTRESS_NOTICE
from debate_core.models import Debate

from webapp.i18n import _
from webapp.views.common import SpeechView
from webapp.views.outcome import OutcomeView, outcome_view, reading_paragraphs


@dataclass
class Slide:
    """One speech on a step: its heading and its paragraphs (safe Markdown, citations as note numbers)."""
    title: str
    paragraphs: list[str]
    failed: bool = False
    own_title: bool = False  # the title is an imported turn's own heading (the debate's words), not the app's


@dataclass
class Step:
    kind: str  # "round" / "outcome"
    title: str  # Round 1 / the closing section's heading / Verdict
    round: Optional[int] = None
    slides: list[Slide] = field(default_factory=list)


@dataclass
class PresentView:
    debate: Debate
    steps: list[Step]
    outcome: OutcomeView
    running: bool  # rounds may still arrive

    @property
    def notices(self) -> list[str]:
        """The debate's notices that stay on screen for the room: one on distress (its own language)."""
        return [w for w in self.debate.warnings if w == DISTRESS_NOTICE]

    @property
    def total(self) -> int:
        return len(self.steps)

    def clamp(self, step: Any) -> int:
        """A step number from the URL or a button (1-based), kept within the steps there are."""
        try:
            n = int(step)
        except (TypeError, ValueError):
            n = 1
        return max(1, min(n, self.total or 1))


def slide(sv: SpeechView) -> Slide:
    return Slide(title=sv.title, paragraphs=reading_paragraphs(sv), failed=sv.status == "failed",
                 own_title=bool(sv.heading))


def has_outcome(ov: OutcomeView) -> bool:
    return ov.kind in ("observation", "verdict") or (ov.panel is not None and len(ov.panel) > 0)


def present_view(archive: Any, debate_id: str) -> PresentView:
    """The steps of a debate as it is in the archive now: one per round (every speech of that round),
    then the observation or the verdict when there is one."""
    debate = archive.get_debate(debate_id)
    ov = outcome_view(debate, archive)
    steps: list[Step] = []
    for sv in ov.speeches:
        if not steps or steps[-1].round != sv.round:
            steps.append(Step(kind="round", title=_("Round {n}").format(n=sv.round), round=sv.round))
        steps[-1].slides.append(slide(sv))
    if has_outcome(ov):
        title = ov.heading if ov.kind == "observation" else _("Verdict")
        steps.append(Step(kind="outcome", title=title))
    return PresentView(debate=debate, steps=steps, outcome=ov, running=debate.status == "running")
