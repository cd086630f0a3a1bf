"""Exporters: a debate record to JSON (and, later, other formats)."""

from __future__ import annotations

from typing import Any

from .models import Debate


def to_json_dict(debate: Debate) -> dict[str, Any]:
    """The workbench's JSON export: the Debate model, plus verdict scores by label."""
    data = debate.model_dump(mode="json")
    if debate.verdict is not None:
        data["verdict"]["scores"] = debate.verdict.scores
    return data
