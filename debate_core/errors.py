"""The library's errors: one base class, and one class per kind of failure a caller handles.

Every message is one line that says what is wrong (the file, field or value) and, where it
helps, what to do.  Nothing here imports anything else from the library.
"""

from __future__ import annotations


class DebateError(Exception):
    """Base of every error the library raises on purpose."""


class InputError(DebateError, ValueError):
    """Bad user input: a topic, a config field, a spec entry, an uploaded file."""


class ConfigError(InputError):
    """The model configuration cannot work (missing key, unreachable api_base)."""


class PackError(DebateError):
    """The pack cannot be used at all (missing folder, no masters)."""


class PairError(InputError):
    """No pair of masters can be chosen for a topic."""


class ArchiveError(DebateError):
    """The archive cannot do what was asked."""


class SqlRefused(ArchiveError):
    """A query was refused (or failed) by the read-only SQL guard."""


class JobError(DebateError):
    """A job request that cannot be honoured (start, stop, resume, retry)."""


def one_line(exc: BaseException) -> str:
    """The first line of an exception's message, or its class name when it has none."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
