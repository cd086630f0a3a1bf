"""Values as the archive stores them: naive UTC timestamps, JSON text, one-line errors."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any, cast

import pandas as pd


def to_utc(dt: datetime | None) -> datetime | None:
    """Naive UTC for storage."""
    if dt is None:
        return None
    if dt.tzinfo is not None:
        dt = dt.astimezone(UTC).replace(tzinfo=None)
    return dt


def to_aware(dt: datetime | None) -> datetime | None:
    if dt is None:
        return None
    if isinstance(dt, pd.Timestamp):
        dt = dt.to_pydatetime()
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


def aggregate(row: tuple[Any, ...] | None) -> tuple[Any, ...]:
    """The row of an aggregate query (``count(*)``, ``max(…)`` with no GROUP BY), which always returns one."""
    return cast(tuple[Any, ...], row)


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=False)


def loads(value: str | None, default: Any = None) -> Any:
    if value is None:
        return default
    return json.loads(value)


def first_line(exc: BaseException) -> str:
    """A DuckDB error's first line, without its "See also" link."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return re.sub(r"\s+See also https?://\S+", "", text)
