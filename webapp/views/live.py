"""The Live page: a debate's speeches so far, who is speaking, progress, and what can be done
(stop, retry the failed round, resume).  Nothing here imports streamlit."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional

from debate_core.models import Debate
from debate_core.protocols import registry
from webapp.i18n import _
from webapp.views import chrome
from webapp.views.common import SpeechView, speech_views


@dataclass
class LiveView:
    debate: Debate
    speeches: list[SpeechView]
    running_here: bool  # a job of this process is running it
    stop_requested: bool
    live_text: str  # tokens of the round being written
    next_turn: str  # who speaks in the round being written
    rounds_done: int
    progress: float
    progress_text: str
    can_stop: bool
    can_retry: bool
    can_resume: bool
    failed_round: Optional[int]
    job_error: str
    message: str  # status line for people
    own_reason: str = ""  # the debate's own stop reason (not one the app wrote): shown as its words, apart

    @property
    def finished(self) -> bool:
        return self.debate.status in ("completed", "failed", "stopped", "interrupted") and not self.running_here


def rounds_done(debate: Debate) -> int:
    """Rounds fully played, by the protocol's own rule."""
    return registry.get(debate.protocol).rounds_done(debate)


def next_turn(debate: Debate) -> str:
    """Who is speaking in the round being written (after the last round: the closing section)."""
    spec = registry.get(debate.protocol)
    r = spec.rounds_done(debate) + 1
    if r > debate.planned_rounds:
        return _("the verdict") if spec.judged else _(chrome.OBSERVATION_HEADING)
    turn = spec.turn(debate, r)
    m = re.match(r"^(R\d+｜.+) (\S+)$", turn)  # the seed's heading R3｜慧能大师 回应: the role is the app's word
    if m and m.group(2) in chrome.ROLE_NAMES:
        return f"{m.group(1)} {chrome.role_text(m.group(2))}"
    return _turn_words(turn) or turn


def _turn_words(turn: str) -> str:
    """A judged protocol's turn line (Round 2: Debater A, Debater B (in parallel) / 第 2 轮：正方), which the library
    wrote in the debate's language, in the reader's (a side by its side); empty for any other."""
    from debate_core.engines.judged_prompts.layout import NOTES
    from debate_core.i18n import read_back, tr

    found = read_back(turn, [NOTES["turn_parallel"], NOTES["turn_side"]])
    if found is None:
        return ""
    msgid, values = found
    side = next((s for s in chrome.SIDES if chrome.name_text(s, values["who"]) != values["who"]), None)
    if side:  # a trial's side, as the library named it: PRO / 正方
        values["who"] = chrome.side_text(side)
    else:  # topic debaters, listed in the debate's language: each by its seat in the reader's (辩手甲: Debater A)
        from debate_core.engines.judged_prompts import for_lang

        seps = [for_lang(x).LIST_SEP for x in ("zh", "en")]
        names = [values["who"]]
        for sep in seps:
            names = [part for name in names for part in name.split(sep)]
        if all(chrome.name_text(n) != n for n in names):
            values["who"] = for_lang(chrome.lang()).LIST_SEP.join(chrome.name_text(n) for n in names)
    return tr(chrome.lang(), msgid, **values)


def live_view(archive: Any, manager: Any, debate_id: str) -> LiveView:
    debate = archive.get_debate(debate_id)
    job = manager.job(debate_id) if manager is not None else None
    here = job is not None and job.alive
    if not here and debate.status == "running":
        archive.mark_interrupted()  # a debate whose writer is gone
        debate = archive.get_debate(debate_id)
    done = rounds_done(debate)
    planned = max(1, debate.planned_rounds)
    failed = [s.round for s in debate.rounds if s.status == "failed"]
    status = debate.status
    stopping = bool(here and job.stop_requested)
    msg = _message(debate, here, stopping, done, job.error if job else "")
    own = "" if chrome.app_stop_reason(debate.stop_reason) is not None else (debate.stop_reason or "").strip()
    progress_text = _("{done} of {planned} rounds").format(done=done, planned=debate.planned_rounds)
    return LiveView(
        debate=debate, speeches=speech_views(debate, archive), running_here=here, stop_requested=stopping,
        live_text=job.live() if here else "", next_turn=next_turn(debate), rounds_done=done,
        progress=min(1.0, done / planned), progress_text=progress_text,
        can_stop=here and not job.stop_requested, can_retry=not here and status == "failed",
        can_resume=not here and status in ("interrupted", "stopped", "failed"),
        failed_round=min(failed) if failed else (done + 1 if status == "failed" else None),
        job_error=job.error if job else "", message=msg, own_reason=own)


def _message(debate: Debate, here: bool, stopping: bool, done: int, job_error: str) -> str:
    """The status line in the reader's language: a stop reason the app wrote translated; a debate's own is
    pointed to (the page shows its words below the line, as the debate's)."""
    status = debate.status
    reason = chrome.app_stop_reason(debate.stop_reason)
    if reason is None:
        reason = _("in the debate's own words below") if (debate.stop_reason or "").strip() else ""
    if stopping:
        return _("Stopping: a reply being streamed is abandoned (a topic round finishes first), "
                 "then the debate stops (what is done is kept).")
    if here or status == "running":
        return _("Running — {turn}").format(turn=next_turn(debate))
    if status == "completed":
        return _("Completed: {reason}.").format(reason=reason or _("all rounds done"))
    if status == "failed":
        return _("Failed: {reason}. Retry the round, or fix the model configuration first.").format(
            reason=reason or job_error or _("a round failed"))
    if status == "stopped":
        return _("Stopped: {reason}. Resume continues from round {n}.").format(reason=reason, n=done + 1)
    return _("Interrupted: {reason}. Resume continues from round {n}.").format(reason=reason, n=done + 1)
