"""How the judged protocols' conversations are laid out, the same in every language.

Each speaker's calls form one conversation that only grows: what a call sent is repeated byte
for byte at the start of the same speaker's next call, and the round's request comes last.
A provider's prompt cache then serves everything but what is new (docs/protocols.md,
"Prompt layout and provider caching").  The language modules supply the texts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable


def debater_conversation(opening: list[dict], rebuttal_user: Callable[[int, int, list], str], round_no: int,
                         total_rounds: int, own_prev: str, others_prev: list[tuple[str, str, str]],
                         earlier: Iterable[tuple[str, list[tuple[str, str, str]]]] = ()) -> list[dict]:
    """A topic debater: the opening messages, then per earlier round its own envelope (as its reply)
    and the others' envelopes with the next round's request; ``earlier`` holds the rounds before
    the previous one, oldest first."""
    messages = list(opening)
    history = list(earlier) + [(own_prev, others_prev)]
    for k, (own, others) in enumerate(history, start=round_no - len(history) + 1):
        messages += [{"role": "assistant", "content": own},
                     {"role": "user", "content": rebuttal_user(k, total_rounds, others)}]
    return messages


def speaker_conversation(system: str, opening_text: str, side: str, speeches: Iterable[tuple[int, str, str]],
                         round_no: int, turn: Callable[[int], str],
                         data_block: Callable[[int, str, str], str]) -> list[dict]:
    """A trial side: the system prompt and the motion; then, in speaking order, the other side's
    speeches as data and this side's earlier speeches as its replies, each round's request just
    before this side's speech; last, this round's request."""
    messages = [{"role": "system", "content": system}]
    pending = [opening_text]
    for r, sp, text in speeches:
        if sp == side:
            messages += [{"role": "user", "content": "\n\n".join(pending + [turn(r)])},
                         {"role": "assistant", "content": text}]
            pending = []
        else:
            pending.append(data_block(r, sp, text))
    return messages + [{"role": "user", "content": "\n\n".join(pending + [turn(round_no)])}]
