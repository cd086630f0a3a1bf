"""The registry of hard rules: one place for each rule's name, its Chinese label, what it requires and
its check function.  A rule is registered with the ``@rule`` decorator next to its function (in
``debate_core.checks``); everything else reads the registry: the order the checks run in
(``checks.RULES``), the labels a debate shows (``RULE_LABELS_ZH``), the model audit's rule list and its
wording (``engines.check_model``), the app's check tables.  Adding a rule is one decorated function.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from debate_core.models import Finding

__all__ = ["Rule", "rule", "rules", "rule_names", "labels_zh", "EXTRA_LABELS_ZH"]


@dataclass(frozen=True)
class Rule:
    name: str
    label: str  # the rule's Chinese name, as a debate shows it and a retry prompt sends it
    requires: str  # what the rule requires, in one Chinese sentence (the model audit's wording)
    check: Callable[..., Finding]
    audited: bool = True  # the optional model audit grades this rule too


_REGISTRY: dict[str, Rule] = {}

# labels of findings that no deterministic rule produces (the optional model audit's own)
EXTRA_LABELS_ZH = {"model_audit": "模型审核"}


def rule(name: str, *, label: str, requires: str, audited: bool = True) -> Callable[[Callable[..., Finding]],
                                                                                   Callable[..., Finding]]:
    """Register the decorated ``(text, ctx) -> Finding`` function as rule ``name`` (in definition order)."""
    def register(fn: Callable[..., Finding]) -> Callable[..., Finding]:
        if name in _REGISTRY and _REGISTRY[name].check is not fn:
            raise ValueError(f"rule {name!r} is registered twice")
        _REGISTRY[name] = Rule(name=name, label=label, requires=requires, check=fn, audited=audited)
        return fn
    return register


def rules() -> list[Rule]:
    return list(_REGISTRY.values())


def rule_names() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def labels_zh() -> dict[str, str]:
    return {**{r.name: r.label for r in _REGISTRY.values()}, **EXTRA_LABELS_ZH}
