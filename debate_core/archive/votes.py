"""The audience vote of a presented debate (issue 25), as in Oxford-style debates: the presenter opens
a vote *before* the debate and another *after* it, the room votes from their phones, and the opinion
shift is the change of each side's share between the two.

Two tables (migration v13):

* ``vote_phases``: one row per debate and phase (``before`` / ``after``): ``status`` (``open`` /
  ``closed``), the ``sides`` it offers (side keys the app chose, e.g. the participants' labels and
  ``undecided``), when it opened and closed.  Opening a phase closes the debate's other open phase;
  opening a closed phase again reopens it with the sides it had.
* ``audience_votes``: one row per device and phase: the side it chose.  A device is an opaque token
  (the vote page keeps one per browser tab, in its URL).  **One vote per device per phase: a second
  vote from the same device in the same phase replaces the first** (while the phase is open).

A phase that is closed, or was never opened, refuses a vote with :class:`VoteRefused` (one line).
Every check and write happens inside the archive's one write transaction, so two devices voting at
once never lose a vote and one device never holds two.  The votes stay when the debate is written
again (a re-save, an import) and go when it is deleted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from debate_core.archive.parts import ArchiveParts
from debate_core.archive.values import now
from debate_core.errors import ArchiveError

PHASES = ("before", "after")
UNDECIDED = "undecided"
DEVICE = re.compile(r"[A-Za-z0-9_-]{8,64}")
MAX_SIDES = 12
MAX_SIDE_CHARS = 200


class VoteRefused(ArchiveError):
    """A vote (or a vote's opening) the archive refuses; ``reason`` is one of ``closed``, ``not_open``,
    ``phase``, ``side``, ``device``, ``sides``."""

    def __init__(self, message: str, reason: str):
        super().__init__(message)
        self.reason = reason


@dataclass
class PhaseState:
    """One phase of a debate's vote as stored now."""

    phase: str
    status: str = "none"  # none (never opened) / open / closed
    sides: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # every offered side, in order (0 included)
    opened_at: datetime | None = None
    closed_at: datetime | None = None

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def is_open(self) -> bool:
        return self.status == "open"

    def shares(self) -> dict[str, float]:
        """Each side's share of this phase's votes, in percent (empty when nobody voted)."""
        total = self.total
        return {s: 100.0 * n / total for s, n in self.counts.items()} if total else {}


def check_phase(phase: str) -> str:
    if phase not in PHASES:
        raise VoteRefused(f"unknown vote phase {str(phase)[:40]!r}: use before or after", "phase")
    return phase


def check_device(device: str) -> str:
    if not isinstance(device, str) or not DEVICE.fullmatch(device):
        raise VoteRefused("a vote needs a device token of 8-64 letters, digits, '-' or '_'", "device")
    return device


def _check_sides(sides: Sequence[str]) -> list[str]:
    out = list(dict.fromkeys(str(s) for s in sides))
    if not out or len(out) > MAX_SIDES or any(not s.strip() or len(s) > MAX_SIDE_CHARS for s in out):
        raise VoteRefused(f"a vote offers 1-{MAX_SIDES} sides, each 1-{MAX_SIDE_CHARS} characters", "sides")
    return out


class AudienceVotes(ArchiveParts):
    """The vote methods of :class:`~debate_core.archive.Archive` (``_session`` comes from its connection)."""

    def open_vote(self, debate_id: str, phase: str, sides: Sequence[str]) -> PhaseState:
        """Open ``phase`` of the debate's vote offering ``sides`` (closing its other open phase).  A phase
        opened before is reopened with the sides it had.  ``KeyError`` for a debate the archive lacks."""
        check_phase(phase)
        offered = _check_sides(sides)
        at = now()
        with self._session(write=True) as con:
            if con.execute("SELECT 1 FROM debates WHERE id = ?", [debate_id]).fetchone() is None:
                raise KeyError(f"no debate {debate_id!r} in archive {self.path}")
            con.execute(
                "UPDATE vote_phases SET status = 'closed', closed_at = ? "
                "WHERE debate_id = ? AND phase <> ? AND status = 'open'",
                [at, debate_id, phase],
            )
            row = con.execute(
                "SELECT sides FROM vote_phases WHERE debate_id = ? AND phase = ?", [debate_id, phase]
            ).fetchone()
            if row is None:
                con.execute(
                    "INSERT INTO vote_phases (debate_id, phase, status, sides, opened_at, closed_at) "
                    "VALUES (?, ?, 'open', ?, ?, NULL)",
                    [debate_id, phase, offered, at],
                )
            else:
                con.execute(
                    "UPDATE vote_phases SET status = 'open', closed_at = NULL WHERE debate_id = ? AND phase = ?",
                    [debate_id, phase],
                )
        return self.vote_state(debate_id)[phase]

    def close_vote(self, debate_id: str, phase: str) -> bool:
        """Close ``phase``: it refuses new votes and keeps its count.  False when it was not open."""
        check_phase(phase)
        with self._session(write=True) as con:
            row = con.execute(
                "SELECT status FROM vote_phases WHERE debate_id = ? AND phase = ?", [debate_id, phase]
            ).fetchone()
            if row is None or row[0] != "open":
                return False
            con.execute(
                "UPDATE vote_phases SET status = 'closed', closed_at = ? WHERE debate_id = ? AND phase = ?",
                [now(), debate_id, phase],
            )
        return True

    def cast_vote(self, debate_id: str, phase: str, device: str, side: str) -> str:
        """Record ``device``'s vote for ``side`` in ``phase``: ``"counted"`` (its first vote in this phase)
        or ``"replaced"`` (it had voted: the new vote replaces the old one).  :class:`VoteRefused` when
        the phase is closed or was never opened, or the side is not one it offers."""
        check_phase(phase)
        check_device(device)
        with self._session(write=True) as con:
            row = con.execute(
                "SELECT status, sides FROM vote_phases WHERE debate_id = ? AND phase = ?", [debate_id, phase]
            ).fetchone()
            if row is None:
                raise VoteRefused(f"the vote {phase} the debate has not been opened", "not_open")
            if row[0] != "open":
                raise VoteRefused(f"the vote {phase} the debate is closed: no new votes", "closed")
            if side not in (row[1] or []):
                raise VoteRefused(f"{str(side)[:40]!r} is not a side of this vote", "side")
            had = con.execute(
                "SELECT 1 FROM audience_votes WHERE debate_id = ? AND phase = ? AND device = ?",
                [debate_id, phase, device],
            ).fetchone()
            if had is not None:
                con.execute(
                    "UPDATE audience_votes SET side = ?, voted_at = ? WHERE debate_id = ? AND phase = ? AND device = ?",
                    [side, now(), debate_id, phase, device],
                )
                return "replaced"
            con.execute(
                "INSERT INTO audience_votes (debate_id, phase, device, side, voted_at) VALUES (?, ?, ?, ?, ?)",
                [debate_id, phase, device, side, now()],
            )
            return "counted"

    def device_vote(self, debate_id: str, phase: str, device: str) -> str | None:
        """The side ``device`` voted for in ``phase``, or None."""
        with self._session() as con:
            row = con.execute(
                "SELECT side FROM audience_votes WHERE debate_id = ? AND phase = ? AND device = ?",
                [debate_id, phase, device],
            ).fetchone()
        return row[0] if row else None

    def vote_state(self, debate_id: str) -> dict[str, PhaseState]:
        """Both phases of the debate's vote (``status`` ``none`` for a phase never opened) with their counts."""
        with self._session() as con:
            phases = con.execute(
                "SELECT phase, status, sides, opened_at, closed_at FROM vote_phases WHERE debate_id = ?", [debate_id]
            ).fetchall()
            counts = con.execute(
                "SELECT phase, side, count(*) FROM audience_votes WHERE debate_id = ? GROUP BY phase, side", [debate_id]
            ).fetchall()
        out = {p: PhaseState(p) for p in PHASES}
        for phase, status, sides, opened, closed in phases:
            if phase in out:
                out[phase] = PhaseState(phase, status, list(sides or []), {s: 0 for s in sides or []}, opened, closed)
        for phase, side, n in counts:
            if phase in out:
                out[phase].counts[side] = out[phase].counts.get(side, 0) + int(n)
        return out

    def vote_results(self, debate_id: str) -> dict[str, Any] | None:
        """The debate's vote as plain data (the JSON export's ``audience_vote``), or None when no phase was
        ever opened: per phase its status, sides, votes per side, total and shares (percent, one decimal);
        ``shift`` (after minus before, in percentage points) when both phases have votes."""
        state = self.vote_state(debate_id)
        if all(s.status == "none" for s in state.values()):
            return None
        phases = {}
        for p, s in state.items():
            phases[p] = {
                "status": s.status,
                "sides": s.sides,
                "votes": dict(s.counts),
                "total": s.total,
                "shares": {k: round(v, 1) for k, v in s.shares().items()},
                "opened_at": s.opened_at.isoformat() if s.opened_at else None,
                "closed_at": s.closed_at.isoformat() if s.closed_at else None,
            }
        out: dict[str, Any] = {
            "rule": "one vote per device per phase; a second vote replaces the first",
            "phases": phases,
        }
        before, after = state["before"].shares(), state["after"].shares()
        if before and after:
            sides = list(dict.fromkeys(state["before"].sides + state["after"].sides))
            out["shift"] = {s: round(after.get(s, 0.0) - before.get(s, 0.0), 1) for s in sides}
        return out


__all__ = ["AudienceVotes", "PhaseState", "VoteRefused", "PHASES", "UNDECIDED", "check_device", "check_phase"]
