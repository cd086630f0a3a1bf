"""The Compare page: two debates side by side, aligned by round (/Compare?a=ID&b=ID).

Each row is one round: its label, then side A's speeches of that round and side B's (a master
debate has one speech a round, a topic debate or a trial one per debater).  A round only one of
the debates has shows "no speech" on the other side.  The last row is each debate's outcome.
Any protocol pairs with any other; each debate keeps its own language.  Nothing here imports
streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from debate_core.models import Debate
from debate_core.protocols import registry

from webapp.i18n import _
from webapp.views.common import SpeechView, is_chinese, speech_views, status_text
from webapp.views.outcome import OutcomeView, outcome_view


@dataclass
class SideView:
    """One debate of the comparison: what its column heads with, and its speeches."""

    debate: Debate
    protocol: str  # the protocol's name in the app's language
    who: str  # the speakers, as the debate names them
    models: str
    status: str  # in the app's language
    result: str  # the winner, or that the protocol has no winner, or that there is no outcome yet
    outcome: OutcomeView
    speeches: list[SpeechView] = field(default_factory=list)

    @property
    def chinese(self) -> bool:
        return is_chinese(self.debate)

    def round(self, n: int) -> list[SpeechView]:
        return [s for s in self.speeches if s.round == n]


@dataclass
class CompareRow:
    round: int
    label: str  # Round 1 / 第 1 轮
    a: list[SpeechView]
    b: list[SpeechView]


@dataclass
class CompareView:
    a: SideView
    b: SideView
    rows: list[CompareRow]

    @property
    def same_topic(self) -> bool:
        return self.a.debate.topic.strip() == self.b.debate.topic.strip()


def protocol_name(name: str) -> str:
    """A protocol's name in the app's language (Master debate / 大师辩论), else its stored name."""
    title = registry.get(name).app_title if name in registry.stored_names() else ""
    return _(title) if title else str(name)


def result_line(debate: Debate, ov: OutcomeView) -> str:
    """The debate's result in one line of the app's language (the winner's name stays the debate's)."""
    if ov.kind == "verdict":
        return ov.winner_text if ov.parsed else _("the verdict could not be parsed")
    if ov.kind == "observation":
        return _("no winner: a neutral observation")
    if ov.panel is not None and len(ov.panel):
        return _("a judge panel without a majority verdict")
    return _("no outcome yet ({status})").format(status=status_text(debate.status))


def side_view(debate: Debate, archive: Any = None) -> SideView:
    ov = outcome_view(debate, archive)
    from webapp.views.chrome import who_text

    return SideView(debate=debate, protocol=protocol_name(debate.protocol), who=who_text(debate),
                    models=", ".join(debate.models) or "—", status=status_text(debate.status),
                    result=result_line(debate, ov), outcome=ov, speeches=speech_views(debate, archive))


def compare_view(archive: Any, a_id: str, b_id: str) -> CompareView:
    """Both debates read from the archive (a KeyError names an unknown id) and their rounds aligned."""
    a, b = side_view(archive.get_debate(a_id), archive), side_view(archive.get_debate(b_id), archive)
    rounds = sorted({s.round for s in a.speeches} | {s.round for s in b.speeches})
    rows = [CompareRow(round=n, label=_("Round {n}").format(n=n), a=a.round(n), b=b.round(n)) for n in rounds]
    return CompareView(a=a, b=b, rows=rows)


def compare_choices(archive: Any, other: Optional[str] = None, limit: int = 50) -> dict[str, str]:
    """{id: label} for a picker: the debates on ``other``'s topic first (the same question asked
    again, on another model or with the sides swapped), then the newest; ``other`` itself left out."""
    from webapp.views.common import debates_frame

    frames = []
    if other:
        try:
            topic = archive.get_debate(other).topic
        except KeyError:
            topic = None
        if topic:
            frames.append(debates_frame(archive.list_debates(topic=topic, limit=limit)))
    frames.append(debates_frame(archive.list_debates(limit=limit)))
    out: dict[str, str] = {}
    for df in frames:
        for row in df.itertuples(index=False):
            if row.id == other or row.id in out:
                continue
            out[row.id] = choice_label(row)
    return out


def choice_label(row: Any) -> str:
    """A debate in a picker (a row of :func:`webapp.views.common.debates_frame`): id, protocol, status, topic.
    A selectbox shows its options as plain text, so nothing here is Markdown."""
    return f"{row.id} · {protocol_name(row.protocol)} · {status_text(row.status)} · {str(row.topic)[:60]}"
