"""How the judged protocols' prompts are built, the same in every language.

* Each speaker's calls form one conversation that only grows: what a call sent is repeated byte
  for byte at the start of the same speaker's next call, and the round's request comes last.
  A provider's prompt cache then serves everything but what is new (docs/protocols.md,
  "Prompt layout and provider caching").
* :class:`Prompts` holds the builders (stance split, debater opening / rebuttal / envelope
  repair, judge and judge repair, trial speaker and judge): one code path for every language;
  the language modules (:mod:`.en`, :mod:`.zh`) supply only the prose, as templates.
* What a debate shows (warnings, stop reasons, side names, what a verdict lacks) is not prose:
  :data:`NOTES` and the other tables here hold msgids of the library's catalogs
  (:mod:`debate_core.i18n`), translated into the debate's language.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any

from debate_core.engines.prompts import quote
from debate_core.i18n import N_, tr, trp


def debater_conversation(
    opening: list[dict],
    rebuttal_user: Callable[[int, int, list], str],
    round_no: int,
    total_rounds: int,
    own_prev: str,
    others_prev: list[tuple[str, str, str]],
    earlier: Iterable[tuple[str, list[tuple[str, str, str]]]] = (),
) -> list[dict]:
    """A topic debater: the opening messages, then per earlier round its own envelope (as its reply)
    and the others' envelopes with the next round's request; ``earlier`` holds the rounds before
    the previous one, oldest first."""
    messages = list(opening)
    history = list(earlier) + [(own_prev, others_prev)]
    for k, (own, others) in enumerate(history, start=round_no - len(history) + 1):
        messages += [
            {"role": "assistant", "content": own},
            {"role": "user", "content": rebuttal_user(k, total_rounds, others)},
        ]
    return messages


def speaker_conversation(
    system: str,
    opening_text: str,
    side: str,
    speeches: Iterable[tuple[int, str, str]],
    round_no: int,
    turn: Callable[[int], str],
    data_block: Callable[[int, str, str], str],
) -> list[dict]:
    """A trial side: the system prompt and the motion; then, in speaking order, the other side's
    speeches as data and this side's earlier speeches as its replies, each round's request just
    before this side's speech; last, this round's request."""
    messages = [{"role": "system", "content": system}]
    pending = [opening_text]
    for r, sp, text in speeches:
        if sp == side:
            messages += [
                {"role": "user", "content": "\n\n".join(pending + [turn(r)])},
                {"role": "assistant", "content": text},
            ]
            pending = []
        else:
            pending.append(data_block(r, sp, text))
    return messages + [{"role": "user", "content": "\n\n".join(pending + [turn(round_no)])}]


# ------------------------------------------------------------ what debates show

# The words a judged debate shows (warnings, stop reasons, side names, what a verdict lacks): msgids
# of the library's catalogs (debate_core.i18n), by key; Prompts.NOTES gives them in a debate's language.
NOTES = {
    "turn_parallel": N_("Round {r}: {who} (in parallel)"),  # who speaks in a round, as the Live page names it
    "turn_side": N_("Round {r}: {who}"),
    "degraded": N_("Degraded: {distinct} model(s) shared in turn by {n} debaters; the debate is not heterogeneous"),
    "extra_models": N_("{k} model(s) left unused: there are only {n} stances"),
    "too_many_stances": N_("the stance split gave {n} stances; only the first {max} are debated"),
    "repaired": N_("the first reply was not a valid envelope ({first}); the resent reply was used"),
    "invalid_twice": N_("neither reply was a valid envelope ({first}; after the resend: {second}); recorded as empty"),
    "invalid_twice_same": N_("neither reply was a valid envelope ({first}); recorded as empty"),
    "opening_rebuttals_dropped": N_(
        "round 1 is a blind opening in which nobody sees the others: {n} rebuttal(s) dropped"
    ),
    "self_rebuttals_dropped": N_("{n} rebuttal(s) aimed at the debater's own points dropped ({targets})"),
    "call_failed": N_("the model call failed: {cause}"),
    "round_retry": N_("round {r}: no debater produced anything usable; the round is run once more"),
    "retried_speech": N_("this round was rerun after a round in which nobody produced anything usable"),
    "round_empty_again": N_(
        "round {r}: still nothing usable from any debater after the rerun; the judge rules on the rounds that exist"
    ),
    "stop_empty_twice": N_("round {r} was empty twice; ruling on what exists"),
    "no_reply": N_("round {r}: no reply from {labels} (the model call failed)"),
    "converged": N_("every debater reported no new points in round {r}: the debate converged"),
    "cap": N_("reached the {n}-round cap: stopped"),
    "stopped_before_round": N_("stopped by the user before round {r}"),
    "stopped_before_verdict": N_("stopped by the user before the verdict"),
    "one_round": N_("round {r} is done; resume to finish the debate"),
    "judge_failed": N_("the judge call failed: {cause}"),
    "unparsed": N_("the judge's output could not be parsed twice: stored as raw text, no winner (not a draw)"),
    # an imported topic-debate folder (debate_core.io.importers.topic_folder): a log without a stop line, no verdict
    "imported_rounds": N_("reached {n} rounds"),
    "imported_no_verdict": N_("no verdict.md"),
    # a topic debate with no usable round
    "no_debate_played": N_("in the {n} round(s) played, no debater made any argument or rebuttal"),
    "no_debate_none": N_("not a single round was played, and no debater made any argument or rebuttal"),
    "no_debate_cause": N_(" ({cause}{more})"),  # cause: each distinct cause once, with whose it was
    "no_debate_more": N_("; and {n} more like it"),
    "no_debate": N_(
        "No debate: {why}, so the judge was not asked. Check the model configuration and resume: the "
        "debate starts again from the openings"
    ),
    # trials
    "trial_extra_models": N_("{k} model(s) left unused: a trial has only two sides, pro and con"),
    "tools_off": N_("Research tools off ({model}): {why}; the side using it argues without research"),
    "no_tool_support": N_("the model's information says it does not support tool calls"),
    "tools_refused": N_("the server refused the tool definitions ({cause})"),
    "tool_budget_spent": N_("error: the {n} tool calls allowed for this speech are used up; write the speech now"),
    "tool_loop": N_("the speaker kept calling tools and never wrote a speech"),
    "truncated": N_("longer than {limit} words: cut"),
    "empty_speech": N_("the model returned an empty speech"),
    "speech_failed": N_("round {r}: the {side} speech failed: {why}; rerun the round"),
    "verdict_failed": N_("the verdict failed: {cause}; ask for the verdict again"),
    "all_rounds": N_("verdict after all {done} rounds"),
    "some_rounds": N_("verdict after {done} of the {planned} planned rounds"),
}
# what a verdict can lack (engines.judging.verdict_gaps), as the repair request and the rendering name it
MISSING = {
    "winner": N_("the winner"),
    "reasons": N_("the reasons"),
    "row": N_("{label}'s row"),
    "round": N_("the comment on round {n}"),
}
SIDE_NAMES = {"pro": N_("Pro"), "con": N_("Con")}
SIDE_STANCES = {"pro": N_("For the motion"), "con": N_("Against the motion")}


# -------------------------------------------------------------------- builders


def _data(text: str) -> str:
    """Text inside a ```data block (a fence inside it is defused)."""
    return "```data\n" + text.replace("```", "ʼʼʼ") + "\n```"


class Prompts:
    """The judged protocols' prompts and words in one language: the prose of a language module
    (:mod:`.en`, :mod:`.zh`: its templates and constants are attributes here too), put together by
    the same builders for every language, and the words a debate shows (:data:`NOTES`, side names,
    separators) from the library's catalogs, read on first use."""

    def __init__(self, prose: ModuleType):
        self.prose = prose
        self.LANG: str = prose.LANG

    def __getattr__(self, name: str) -> Any:  # the prose module's constants (LABELS, REASON_KEYS, DATA_RULE, …)
        if name.isupper():
            return getattr(self.prose, name)
        raise AttributeError(name)

    def __repr__(self) -> str:
        return f"Prompts({self.LANG!r})"

    # ------------------------------------------------------------- the words
    @functools.cached_property
    def NOTES(self) -> dict[str, str]:
        return {key: tr(self.LANG, msgid) for key, msgid in NOTES.items()}

    @functools.cached_property
    def SIDE_NAMES(self) -> dict[str, str]:
        return {side: tr(self.LANG, msgid) for side, msgid in SIDE_NAMES.items()}

    @functools.cached_property
    def SIDE_STANCES(self) -> dict[str, str]:
        return {side: tr(self.LANG, msgid) for side, msgid in SIDE_STANCES.items()}

    @functools.cached_property
    def SEP(self) -> str:  # joins causes, warnings
        return tr(self.LANG, "; ")

    @functools.cached_property
    def LIST_SEP(self) -> str:  # joins labels
        return trp(self.LANG, "list", ", ")

    @functools.cached_property
    def COLON(self) -> str:  # a label and what was recorded for it
        return tr(self.LANG, ": ")

    @functools.cached_property
    def TOOLS_OFF(self) -> str:  # starts the "tools off" warning
        return tr(self.LANG, "Research tools off")

    def missing_text(self, missing: list[str]) -> str:
        """``["row:Debater B", "reasons"]`` -> Debater B's row, the reasons / 辩手乙的逐方点评、判词."""
        out = []
        for code in missing:
            kind, _, key = code.partition(":")
            out.append(tr(self.LANG, MISSING[kind], label=key, n=key) if kind in MISSING else code)
        return self.LIST_SEP.join(out)

    # ---------------------------------------------------------- stance split
    def stance_split_messages(self, topic: str) -> list[dict]:
        p = self.prose
        system = p.STANCE_SPLIT_SYSTEM + p.DATA_RULE + "\n" + p.STANCE_SPLIT_JSON
        return [{"role": "system", "content": system}, {"role": "user", "content": p.TOPIC.format(topic=quote(topic))}]

    # -------------------------------------------------------------- debaters
    def debater_system(self, label: str, stance: str) -> str:
        p = self.prose
        return p.DEBATER_SYSTEM.format(label=label, stance=quote(stance), data_rule=p.DATA_RULE) + p.ENVELOPE_SHAPE

    def opening_messages(self, label: str, stance: str, topic: str, total_rounds: int) -> list[dict]:
        user = self.prose.OPENING_USER.format(topic=quote(topic), stance=quote(stance), total_rounds=total_rounds)
        return [{"role": "system", "content": self.debater_system(label, stance)}, {"role": "user", "content": user}]

    def _rebuttal_user(self, round_no: int, total_rounds: int, others_prev: list[tuple[str, str, str]]) -> str:
        p = self.prose
        others = "\n\n".join(
            p.REBUTTAL_OTHER.format(label=lab, stance=quote(st), envelope=quote(env)) for lab, st, env in others_prev
        )
        return p.REBUTTAL_USER.format(
            others=others or p.REBUTTAL_NO_OTHERS,
            round_no=round_no,
            total_rounds=total_rounds,
            last=p.REBUTTAL_LAST if round_no >= total_rounds else "",
        )

    def rebuttal_messages(
        self,
        label: str,
        stance: str,
        topic: str,
        round_no: int,
        total_rounds: int,
        own_prev: str,
        others_prev: list[tuple[str, str, str]],
        earlier: Iterable[tuple[str, list[tuple[str, str, str]]]] = (),
    ) -> list[dict]:
        """One debater's conversation so far, then this round's request.

        ``own_prev`` is the debater's envelope of the previous round (json), ``others_prev`` the
        other debaters' [(label, stance, envelope json)] of that round; ``earlier`` the same pairs
        for the rounds before it, oldest first.  Each round's messages are written once and then
        repeated byte for byte, so every call begins with the whole previous call: a provider's
        prompt cache serves it."""
        return debater_conversation(
            self.opening_messages(label, stance, topic, total_rounds),
            self._rebuttal_user,
            round_no,
            total_rounds,
            own_prev,
            others_prev,
            earlier,
        )

    def repair_messages(self, messages: list[dict], bad_reply: str, error: str) -> list[dict]:
        """The same conversation plus the unusable reply and a request to resend a valid envelope."""
        return messages + [
            {"role": "assistant", "content": bad_reply or self.prose.EMPTY_REPLY},
            {"role": "user", "content": self.prose.REPAIR_USER.format(error=error)},
        ]

    # ----------------------------------------------------------------- judge
    def judge_messages(self, topic: str, stances: list[tuple[str, str]], log: str) -> list[dict]:
        p = self.prose
        system = p.JUDGE_SYSTEM.format(data_rule=p.DATA_RULE) + p.JUDGE_JSON
        # stances are user input or model output: they travel as data, like the topic
        listing = (
            "```data\n"
            + json.dumps([{"label": lab, "stance": st} for lab, st in stances], ensure_ascii=False, indent=1)
            + "\n```"
        )
        user = p.JUDGE_USER.format(topic=quote(topic), stances=listing, log=_data(log))
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def _ask(self, messages: list[dict], bad_reply: str, ask: str) -> list[dict]:
        return messages + [
            {"role": "assistant", "content": bad_reply or self.prose.EMPTY_REPLY},
            {"role": "user", "content": ask},
        ]

    def judge_repair_messages(
        self, messages: list[dict], bad_reply: str, labels: list[str], missing: list[str] | None = None
    ) -> list[dict]:
        """The judge's conversation plus its reply and one request: for the winner when none could be
        read, else for exactly what the verdict lacks (``missing``: codes of verdict_gaps)."""
        p, names = self.prose, self.LIST_SEP.join(labels)
        if not missing or "winner" in missing:
            return self._ask(messages, bad_reply, p.JUDGE_ASK_WINNER.format(labels=names))
        return self._ask(
            messages, bad_reply, p.JUDGE_ASK_MISSING.format(missing=self.missing_text(missing), labels=names)
        )

    # ----------------------------------------------------------------- trial
    def trial_transcript(self, speeches: list[tuple[int, str, str]]) -> str:
        """``speeches``: [(round, side, text)] in order -> a plain transcript (labels only)."""
        if not speeches:
            return self.prose.TRANSCRIPT_EMPTY
        return "\n\n".join(self._head(r, side) + "\n" + text for r, side, text in speeches)

    def _head(self, r: int, side: str) -> str:
        return self.prose.TRANSCRIPT_HEAD.format(r=r, side=self.SIDE_NAMES.get(side, side))

    def trial_speaker_messages(
        self,
        side: str,
        topic: str,
        round_no: int,
        total_rounds: int,
        speeches: list[tuple[int, str, str]],
        max_chars: int,
        tools: bool,
    ) -> list[dict]:
        """One side's conversation: the system prompt and the motion first; then, in speaking order,
        the other side's speeches as data in user messages and this side's earlier speeches as its
        own replies, each round's request just before this side's speech; last, this round's
        request.  ``speeches``: [(round, side, text)] so far.  Every call begins with all of the same
        side's previous call, so a provider's prompt cache serves it.  ``max_chars`` is the speech
        limit (characters in Chinese, words in English)."""
        p, name = self.prose, self.SIDE_NAMES[side]
        system = p.SPEAKER_SYSTEM.format(
            name=name,
            goal=p.SPEAKER_GOAL[side],
            max_chars=max_chars,
            research=p.SPEAKER_TOOLS if tools else p.SPEAKER_NO_TOOLS,
            data_rule=p.DATA_RULE,
        )

        def turn(k: int) -> str:
            return p.SPEAKER_TURN.format(
                k=k, total_rounds=total_rounds, name=name, last=p.SPEAKER_LAST if k >= total_rounds else ""
            )

        return speaker_conversation(
            system,
            p.SPEAKER_OPENING.format(topic=quote(topic)),
            side,
            speeches,
            round_no,
            turn,
            lambda r, sp, text: _data(self._head(r, sp) + "\n" + text),
        )

    def trial_judge_messages(self, topic: str, transcript: str, rounds: int) -> list[dict]:
        p = self.prose
        system = p.TRIAL_JUDGE_SYSTEM.format(rounds=rounds, data_rule=p.DATA_RULE) + p.TRIAL_JUDGE_JSON
        user = p.TRIAL_JUDGE_USER.format(topic=quote(topic), transcript=_data(transcript))
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def trial_judge_repair(self, messages: list[dict], bad_reply: str, missing: list[str] | None = None) -> list[dict]:
        """The trial judge's conversation plus its reply and one request: for the result when none could
        be read, else for exactly what the verdict lacks."""
        if not missing or "winner" in missing:
            return self._ask(messages, bad_reply, self.prose.TRIAL_ASK_WINNER)
        return self._ask(messages, bad_reply, self.prose.TRIAL_ASK_MISSING.format(missing=self.missing_text(missing)))
