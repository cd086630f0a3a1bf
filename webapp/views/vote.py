"""The audience vote (issue 25), as in Oxford-style debates: the Present page opens a vote before the
debate and another after it; the room votes on the Vote page (``/Vote?id=…&phase=before|after``), reached
through a short link and its QR code; the opinion shift (each side's share before and after) is a chart
on Present's last step and goes with the debate into the JSON export.

The votes live in the archive (:mod:`debate_core.archive.votes`: one vote per device per phase, a
second vote replaces the first; a closed phase refuses votes).  A device is a random token the Vote
page keeps in its URL (``&device=…``): no cookie, and a reload keeps it.  Nothing here imports
streamlit; plotly and qrcode are imported inside the functions that need them."""

from __future__ import annotations

import os
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from debate_core.archive.votes import DEVICE, PHASES, UNDECIDED, PhaseState, VoteRefused
from debate_core.models import Debate
from webapp.i18n import N_, _

PUBLIC_URL_ENV = "DEBATE_PUBLIC_URL"  # the app's address as the room's phones reach it (else the browser's)
FALLBACK_URL = "http://localhost:8501"
PHASE_TITLES = {"before": N_("Vote before the debate"), "after": N_("Vote after the debate")}
PHASE_SHORT = {"before": N_("Before"), "after": N_("After")}


@dataclass
class VotePage:
    """What the Vote page shows: the topic, the sides, the phase and whether it takes votes."""
    debate: Debate
    phase: str
    state: PhaseState
    sides: list[tuple[str, str]]  # (key, name) in the order offered
    mine: str | None  # the side this device voted for in this phase

    @property
    def title(self) -> str:
        return _(PHASE_TITLES[self.phase])

    def name(self, key: str | None) -> str:
        return dict(self.sides).get(key or "", key or "")


def side_name(debate: Debate, label: str) -> str:
    """A side as the room reads it: the participant's name, and its stance when it has one."""
    if label == UNDECIDED:
        return _("Undecided")
    p = debate.participant(label)
    if p is None:
        return label
    from webapp.views.chrome import name_text, with_stance

    # a trial's 正方 / 支持该命题 in the reader's words; a topic debater's stance quoted as the debate says it
    return with_stance(name_text(p.label, p.name), p.stance)


def side_options(debate: Debate) -> list[tuple[str, str]]:
    """The sides a vote offers: each participant, then Undecided."""
    keys = [p.label for p in debate.participants if p.label] + [UNDECIDED]
    return [(k, side_name(debate, k)) for k in dict.fromkeys(keys)]


def names(debate: Debate, state: dict[str, PhaseState]) -> dict[str, str]:
    keys = [k for s in state.values() for k in s.sides] + [k for k, _n in side_options(debate)]
    return {k: side_name(debate, k) for k in dict.fromkeys(keys)}


def new_device() -> str:
    return secrets.token_hex(8)


def valid_device(value: Any) -> str | None:
    return value if isinstance(value, str) and DEVICE.fullmatch(value) else None


def vote_page(archive: Any, debate_id: str, phase: str | None, device: str) -> VotePage:
    """The Vote page of a debate: ``phase`` from the link, else the phase open now, else ``before``.
    ``KeyError`` for an unknown debate; ``ValueError`` for a phase other than before / after."""
    debate = archive.get_debate(debate_id)
    state = archive.vote_state(debate.id)
    if not phase:
        phase = next((p for p in PHASES if state[p].is_open), "before")
    if phase not in PHASES:
        raise ValueError(f"unknown vote phase {phase[:40]!r}: the link should end in phase=before or phase=after")
    now = state[phase]
    offered = now.sides or [k for k, _n in side_options(debate)]
    sides = [(k, side_name(debate, k)) for k in offered]
    return VotePage(debate, phase, now, sides, archive.device_vote(debate.id, phase, device))


def cast(archive: Any, page: VotePage, device: str, side: str) -> tuple[bool, str]:
    """The device's vote: (taken, the one line the voter reads): counted, replaced (a second vote from
    this device in this phase replaces its first), or refused (the vote closed meanwhile)."""
    try:
        result = archive.cast_vote(page.debate.id, page.phase, device, side)
    except VoteRefused as exc:
        return False, refusal_text(exc.reason)
    if result == "replaced":
        return True, _("Your vote is changed to {side}.").format(side=page.name(side))
    return True, _("Your vote is counted: {side}.").format(side=page.name(side))


def refusal_text(reason: str) -> str:
    if reason == "not_open":  # "side" / "device": a tampered form, read as closed to the voter
        return _("This vote has not opened yet: wait for the presenter.")
    return _("This vote is closed: no new votes.")


# ---------------------------------------------------------------- presenter


def base_url(browser_url: str | None, pages: Sequence[str] = ()) -> str:
    """The app's address for the room: ``$DEBATE_PUBLIC_URL``, else the presenter's browser's (without the
    page it is on, one of ``pages``, and its query; a prefix the app sits under stays), else localhost."""
    from urllib.parse import urlsplit, urlunsplit

    if os.environ.get(PUBLIC_URL_ENV):
        return os.environ[PUBLIC_URL_ENV].rstrip("/")
    if not browser_url:
        return FALLBACK_URL
    parts = urlsplit(browser_url)
    root = parts.path.rstrip("/")
    for known in pages:
        if root.endswith("/" + known):
            root = root[: -len(known) - 1]
            break
    return urlunsplit((parts.scheme, parts.netloc, root, "", "")).rstrip("/")


def vote_link(base: str, debate_id: str, phase: str) -> str:
    """The short link to a phase's Vote page."""
    return f"{base.rstrip('/')}/Vote?" + urlencode({"id": debate_id, "phase": phase})


def qr_svg(url: str) -> str:
    """The link as a QR code (SVG, black on white, quiet zone included)."""
    import qrcode
    from qrcode.image.svg import SvgPathFillImage

    code = qrcode.QRCode(border=4, box_size=10, error_correction=qrcode.constants.ERROR_CORRECT_M)
    code.add_data(url)
    code.make(fit=True)
    return code.make_image(image_factory=SvgPathFillImage).to_string(encoding="unicode")


def status_line(state: PhaseState) -> str:
    if state.status == "none":
        return _("Not opened yet.")
    n = state.total
    if state.is_open:
        return _("Open: {n} votes so far.").format(n=n)
    return _("Closed: {n} votes.").format(n=n)


def action(state: PhaseState) -> tuple[str, str]:
    """The presenter's button for a phase: (what it does, its label)."""
    if state.is_open:
        return "close", _("Close the vote")
    if state.status == "closed":
        return "open", _("Reopen the vote")
    return "open", _("Open the vote")


def has_votes(state: dict[str, PhaseState]) -> bool:
    return any(s.total for s in state.values())


def shift_lines(debate: Debate, state: dict[str, PhaseState]) -> list[str]:
    """One line per side: its share before → after and the change in points (plain text: names are the
    debate's, so the page passes them through safe_inline)."""
    shown = names(debate, state)
    before, after = state["before"].shares(), state["after"].shares()
    keys = list(dict.fromkeys(state["before"].sides + state["after"].sides))
    out = []
    for k in keys:
        b, a = before.get(k), after.get(k)
        if b is not None and a is not None:
            out.append(_("{side}: {before}% → {after}% ({change} points)").format(
                side=shown.get(k, k), before=f"{b:.0f}", after=f"{a:.0f}", change=f"{a - b:+.0f}"))
        elif b is not None or a is not None:
            out.append(f"{shown.get(k, k)}: {(b if b is not None else a):.0f}%")
    return out


def shift_figure(debate: Debate, state: dict[str, PhaseState]):
    """The opinion shift: each side's share of the votes before and after, side by side (plotly)."""
    import plotly.graph_objects as go

    from webapp.views.common import plot_text

    shown = names(debate, state)
    keys = list(dict.fromkeys(state["before"].sides + state["after"].sides))
    fig = go.Figure()
    for phase, color in zip(PHASES, ("#9aa5b1", "#1f77b4"), strict=True):
        s = state[phase]
        if not s.total:
            continue
        shares = s.shares()
        votes = _("{n} votes").format(n=s.total)
        fig.add_bar(name=f"{_(PHASE_SHORT[phase])} ({votes})",
                    x=[plot_text(shown.get(k, k)) for k in keys], y=[shares.get(k, 0.0) for k in keys],
                    text=[f"{shares.get(k, 0.0):.0f}%" for k in keys], textposition="outside", marker_color=color)
    fig.update_layout(barmode="group", height=420, margin=dict(l=40, r=20, t=40, b=40),
                      yaxis=dict(title=_("share of the votes (%)"), range=[0, 110]),
                      legend=dict(orientation="h", y=1.12), font=dict(size=18))
    return fig


__all__ = ["VotePage", "PHASES", "PHASE_TITLES", "PUBLIC_URL_ENV", "action", "base_url", "cast", "has_votes",
           "names", "new_device", "qr_svg", "refusal_text", "shift_figure", "shift_lines", "side_name",
           "side_options", "status_line", "valid_device", "vote_link", "vote_page"]
