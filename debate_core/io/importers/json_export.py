"""This workbench's own JSON export: one debate object, a list of them, or ``{"debates": [...]}``."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import ValidationError

from debate_core.errors import one_line
from debate_core.io.importers.common import MAX_ID_CHARS, ImportFormatError, id_problem, shown, value_problem
from debate_core.io.importers.common import where as field_path
from debate_core.models import Debate

KIND = "json"


def _json_line(text: str, loc: tuple) -> int | None:
    keys = [k for k in loc if isinstance(k, str)]
    if not keys:
        return None
    needle = json.dumps(keys[-1], ensure_ascii=False)
    idx = text.find(needle + ":")
    if idx < 0:
        idx = text.find(needle)
    return text[:idx].count("\n") + 1 if idx >= 0 else None


def parse_json(path: Path, text: str) -> list[Debate]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportFormatError(path, exc.lineno, f"bad JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise ImportFormatError(path, None, "bad JSON: nested too deeply") from None
    except ValueError as exc:  # a whole number past Python's digit limit (4300 digits)
        m = re.search(r"\d{4301,}", text)
        line = text[: m.start()].count("\n") + 1 if m else None
        digits = len(m.group(0)) if m else 0
        what = f"a whole number of {digits:,} digits" if m else one_line(exc)
        raise ImportFormatError(
            path, line, f"bad JSON: {what} (numbers are range-checked before they are stored)"
        ) from None
    if isinstance(data, dict) and isinstance(data.get("debates"), list):
        items = data["debates"]
    elif isinstance(data, list):
        items = data
    elif isinstance(data, dict):
        items = [data]
    else:
        raise ImportFormatError(path, 1, 'expected a debate object, a list of them or {"debates": [...]}')
    out = []
    for n, item in enumerate(items):
        if not isinstance(item, dict):
            raise ImportFormatError(path, None, f"item {n} is not a debate object")
        try:
            out.append(Debate.model_validate(item))
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = tuple(err.get("loc", ()))
            where = ".".join(str(x) for x in loc)
            prefix = f"item {n}: " if len(items) > 1 else ""
            raise ImportFormatError(
                path, _json_line(text, loc), f"{prefix}{where}: {err.get('msg', 'invalid')}"
            ) from None
        debate = out[-1]
        prefix = f"item {n}: " if len(items) > 1 else ""
        problem = id_problem(debate.id)
        if problem:
            raise ImportFormatError(
                path,
                _json_line(text, ("id",)) if len(items) == 1 else None,
                f"{prefix}debate id {shown(debate.id)} {problem}; an id is 1-{MAX_ID_CHARS} "
                "characters with no control characters, path separators or '..'",
            )
        bad = value_problem(debate)
        if bad:  # checked here, before DuckDB sees it, so the error names the file, the field and the value
            raise ImportFormatError(path, _json_line(text, bad[0]), f"{prefix}{field_path(bad[0])}: {bad[1]}")
    return out
