"""Settings read from the environment, and the checks every entry point applies to a topic.

* ``$DEBATE_MODEL``: the model string (empty or ``offline``: the embedded offline engine);
* ``$DEBATE_API_BASE``: an OpenAI-compatible server for every model call;
* ``$DEBATE_BACKOFF``: the retry backoff base in seconds.

Explicit arguments always win over the environment.

The caps on what a user uploads or a model asks for are named settings too (:data:`CAPS`):
each has a default, an environment variable that overrides it (``DEBATE_`` + its name) and a
line saying what it bounds; :func:`cap` reads one, and :func:`cap_error` is the one-line
error that names it.  docs/security.md lists them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from debate_core.errors import InputError

MAX_TOPIC_CHARS = 500
MODEL_ENV = "DEBATE_MODEL"
API_BASE_ENV = "DEBATE_API_BASE"
BACKOFF_ENV = "DEBATE_BACKOFF"
OFFLINE = "offline"
SECRET_NAME = re.compile(r"^[A-Z][A-Z0-9_]*_(API_KEY|API_BASE|API_VERSION|KEY|TOKEN)$|^(DEBATE_MODEL|DEBATE_API_BASE)$")


def validate_topic(topic: str | None) -> str:
    """The topic stripped, or :class:`InputError` saying what is wrong with it."""
    if topic is None or not topic.strip():
        raise InputError("the topic is empty: give a question or claim to debate")
    topic = topic.strip()
    if len(topic) > MAX_TOPIC_CHARS:
        raise InputError(f"the topic is {len(topic)} characters; the limit is {MAX_TOPIC_CHARS}")
    if "\x00" in topic:
        raise InputError("the topic contains a NUL character")
    return topic


def resolve_model(model: str | None = None) -> str | None:
    """The configured model string, or None for the embedded offline engine."""
    m = (model or os.environ.get(MODEL_ENV) or "").strip()
    return None if not m or m == OFFLINE else m


def resolve_api_base(api_base: str | None = None) -> str | None:
    return (api_base or os.environ.get(API_BASE_ENV) or "").strip() or None


def env_backoff() -> float | None:
    """``$DEBATE_BACKOFF`` (seconds): the retry backoff base, or None when unset or not a number."""
    raw = os.environ.get(BACKOFF_ENV, "").strip()
    try:
        return max(0.0, float(raw)) if raw else None
    except ValueError:
        return None


def apply_secrets(secrets: Mapping[str, object]) -> list[str]:
    """Copy provider keys from a secrets mapping (Streamlit's ``st.secrets``) into the
    environment, where litellm reads them.  Only names shaped like keys are taken, a
    variable already set in the environment wins, and values never go anywhere else.
    Returns the names applied (never the values)."""
    applied = []
    for name, value in secrets.items():
        if isinstance(value, str) and value.strip() and SECRET_NAME.match(str(name)) and not os.environ.get(name):
            os.environ[name] = value.strip()
            applied.append(name)
    return applied


# ------------------------------------------------------------------------- caps

MiB = 1024 * 1024


@dataclass(frozen=True)
class Cap:
    """One named bound on hostile input: its default, and what it bounds (docs/security.md)."""

    name: str
    default: int | float
    unit: str
    what: str

    @property
    def env(self) -> str:
        return "DEBATE_" + self.name


CAPS: dict[str, Cap] = {
    c.name: c
    for c in (
        Cap("UPLOAD_MAX_ENTRY_BYTES", 64 * MiB, "bytes", "unpacked bytes of one entry of an uploaded .zip"),
        Cap(
            "UPLOAD_MAX_TOTAL_BYTES", 512 * MiB, "bytes", "unpacked bytes of one upload (all its files and zip entries)"
        ),
        Cap("UPLOAD_MAX_ENTRIES", 20_000, "entries", "files in one upload (zip entries counted one by one)"),
        Cap(
            "GREP_MAX_FILE_BYTES",
            2_000_000,
            "bytes",
            "size of a file the research tools read or search (larger: skipped, and said)",
        ),
        Cap("RESEARCH_MAX_PATTERN_CHARS", 200, "characters", "length of a research-tool glob or grep pattern"),
        Cap("RE2_MAX_MEM", 8 * MiB, "bytes", "memory of one compiled research-tool pattern (RE2 max_mem)"),
        Cap(
            "IMPORT_MAX_FILE_BYTES",
            64 * MiB,
            "bytes",
            "size of one file `import` reads (a JSON export, a Markdown "
            "transcript, a benchmark file); only regular files are read",
        ),
        Cap(
            "SQL_MEMORY_LIMIT",
            512 * MiB,
            "bytes",
            "memory of one SQL-box query (DuckDB memory_limit; its worker process's address space is bounded too)",
        ),
        Cap(
            "SQL_TEMP_DIR_BYTES",
            1024 * MiB,
            "bytes",
            "disk one SQL-box query may spill to (DuckDB max_temp_directory_size)",
        ),
        Cap("SQL_RESULT_BYTES", 64 * MiB, "bytes", "size of one SQL-box result, counted while it is fetched"),
        Cap("SQL_TIMEOUT_S", 10.0, "seconds", "time one SQL-box query may run"),
        Cap("SQL_CONCURRENT_QUERIES", 4, "queries", "SQL-box queries running at once in one process"),
    )
}


def cap(name: str) -> int | float:
    """The value of cap ``name``: ``$DEBATE_<name>`` when it is a positive number, else the default."""
    c = CAPS[name]
    raw = os.environ.get(c.env, "").strip()
    if raw:
        try:
            value = float(raw)
            if value > 0 and value == value and value != float("inf"):
                return max(1, int(value)) if isinstance(c.default, int) else value
        except ValueError:
            pass
    return c.default


def cap_error(name: str, detail: str = "") -> str:
    """The one line saying cap ``name`` was hit (``detail``: what hit it)."""
    c = CAPS[name]
    value = cap(name)
    shown = f"{value / MiB:g} MiB" if c.unit == "bytes" and value >= MiB else f"{value:g} {c.unit}"
    return f"{detail + ': ' if detail else ''}over the cap {c.name} ({shown}: {c.what}); set ${c.env} to change it"


# ------------------------------------------------------------ trial workspaces

WORKSPACE_ROOTS_ENV = "DEBATE_WORKSPACE_ROOTS"
DATA_DIR = Path(__file__).resolve().parents[1] / "data"


def workspace_roots() -> list[Path]:
    """The folders a trial workspace must be inside: ``$DEBATE_WORKSPACE_ROOTS`` (paths separated by
    ``os.pathsep``), else the project's data folder and the user's home.  ``/`` is never a root."""
    raw = os.environ.get(WORKSPACE_ROOTS_ENV, "").strip()
    items = [x for x in raw.split(os.pathsep) if x.strip()] if raw else [str(DATA_DIR), "~"]
    roots = []
    for item in items:
        try:
            real = Path(os.path.realpath(Path(item.strip()).expanduser()))
        except (OSError, RuntimeError):
            continue
        if real != Path(real.anchor):
            roots.append(real)
    return roots


def check_workspace(folder: str) -> str:
    """The real path of a trial workspace, or :class:`InputError` when it is not a folder inside a
    configured root (:func:`workspace_roots`), or is a root's filesystem root (``/``)."""
    if "\x00" in str(folder):
        raise InputError("workspace: the path contains a NUL character")
    p = Path(str(folder)).expanduser()
    if not p.is_dir():
        raise InputError(f"workspace {str(folder)!r} is not a folder")
    real = Path(os.path.realpath(p))
    roots = workspace_roots()
    if real == Path(real.anchor) or not any(real == r or r in real.parents for r in roots):
        shown = ", ".join(str(r) for r in roots) or "(none)"
        raise InputError(
            f"workspace {str(folder)!r} is not inside an allowed root ({shown}); "
            f"set ${WORKSPACE_ROOTS_ENV} to allow another folder"
        )
    return str(real)
