"""A gateway failure cause as a debate says it, and back.

The gateway's causes are English (``timed out …``, ``server error (503): … after 2 attempts``).  Each kind
has a code (:func:`cause_detail`): an English debate shows the cause whole, a debate in another language
the kind's words from the content catalogs with the HTTP status and attempt count (:func:`cause_in`), and
an app reads stored words back into the code (:func:`read_cause`) to say them in its reader's language.
"""

from __future__ import annotations

import re
from typing import Any

from debate_core.i18n import N_, tr

# A failure cause as a debate shows it.  The gateway's causes are English, and an English debate shows
# them whole; a debate in another language shows the kind of failure (a msgid of the content catalogs,
# found by the cause's start), its HTTP status and the attempt count.  The provider's raw message stays in
# the recorded call (``LLMCall.error``).  Each kind has a code (``cause_detail``), which an app says in its
# reader's language, and which :func:`read_cause` recovers from the words a debate stored.
CAUSES: tuple[tuple[str, str, str], ...] = (  # (code, the English cause's start, its words: a msgid)
    ("timeout", "timed out", N_("timed out waiting for the model")),
    ("stream_cut", "the stream was cut", N_("the model's reply stream was cut off")),
    ("connection", "connection failed", N_("could not connect to the model service")),
    ("rate_limited", "rate limited", N_("rate limited by the model service (429)")),
    ("auth", "authentication failed", N_("authentication failed: check the API key in the environment")),
    ("not_found", "model or endpoint not found", N_("model or endpoint not found")),
    ("server_error", "server error", N_("the model service had an error")),
    ("rejected", "request rejected", N_("the model service rejected the request")),
    ("empty", "the model returned an empty", N_("the model returned an empty reply")),
    ("stopped", "stopped by the user", N_("stopped by the user partway")),
    (
        "no_observation",
        "no usable neutral observation",
        N_("the model gave no usable neutral observation (fields missing or a winner declared)"),
    ),
)
CAUSE_OTHER = ("failed", N_("the model call failed"))  # any other cause


def cause_detail(cause: str) -> dict[str, Any]:
    """A gateway failure cause as data: ``kind`` (a code of :data:`CAUSES`, else ``failed``), and
    ``http`` (the status, when the kind's words do not give it) and ``attempts`` when the cause has them."""
    attempts = re.search(r"after (\d+) attempts", cause)
    status = re.match(r"[^(:]*\((\d{3})\)", cause)
    code, words = next(((c, w) for c, en, w in CAUSES if cause.startswith(en)), CAUSE_OTHER)
    out: dict[str, Any] = {"kind": code}
    if status and status.group(1) not in words:
        out["http"] = int(status.group(1))
    if attempts:
        out["attempts"] = int(attempts.group(1))
    return out


def cause_in(lang: str, cause: str) -> str:
    """A gateway failure cause as a debate of ``lang`` says it (a master debate's: ``cause_in("zh", …)``)."""
    return cause if lang == "en" else cause_words(lang, cause_detail(cause))


def cause_words(lang: str, detail: dict[str, Any]) -> str:
    """The words of a cause's :func:`cause_detail` in ``lang``."""
    text = tr(lang, next((w for c, _en, w in CAUSES if c == detail.get("kind")), CAUSE_OTHER[1]))
    if detail.get("http"):
        text += tr(lang, " (HTTP {status})", status=detail["http"])
    return text + (tr(lang, " ({n} attempts in all)", n=detail["attempts"]) if detail.get("attempts") else "")


def read_cause(shown: str) -> dict[str, Any] | None:
    """The :func:`cause_detail` of a cause as a debate stored it (its words from :func:`cause_in`, in
    Chinese or English); None for words that are no cause of the gateway's."""
    shown = (shown or "").strip()
    out: dict[str, Any]
    for lang in ("zh", "en"):
        for code, _en, words in (*CAUSES, (CAUSE_OTHER[0], "", CAUSE_OTHER[1])):
            head = tr(lang, words)
            if not shown.startswith(head):
                continue
            rest, out = shown[len(head) :], {"kind": code}
            parts = (("http", " (HTTP {status})", "status"), ("attempts", " ({n} attempts in all)", "n"))
            for key, msgid, arg in parts:
                pattern = re.escape(tr(lang, msgid, **{arg: "9999"})).replace("9999", r"(\d+)")
                m = re.match(pattern, rest)
                if m:
                    out[key], rest = int(m.group(1)), rest[m.end() :]
            if not rest:
                return out
    if any(shown.startswith(en) for _c, en, _w in CAUSES):
        return cause_detail(shown)
    return None
