"""The registry of hard rules: one place for each rule's id, its labels in Chinese and English, what it
requires, its scope and its check function.

A rule is registered with the ``@rule`` decorator next to its function (in ``debate_core.checks``);
everything else reads the registry: the order the checks run in (``checks.RULES``), the labels a debate
shows (``RULE_LABELS_ZH`` / :func:`label`), the model audit's rule list and its wording
(``engines.check_model``), the app's check tables (``webapp.views.outcome.CHECK_RULES``).  Adding a rule
is one decorated function.

Scope: a rule names the roles it applies to (``roles``; ``None`` = every role) and the protocols
(``protocols``).  A speech out of a rule's scope gets ``Finding(applies=False)`` — shown as 不适用 /
"not applicable", never counted as a pass nor as a failure — and the check function is not called.
(``passed`` stays True on such a finding only so that nothing retries a speech for it; every reader
of findings filters on ``applies`` first.)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from debate_core.models import Detail, Finding

__all__ = [
    "Rule",
    "rule",
    "rules",
    "rule_names",
    "labels_zh",
    "labels_en",
    "label",
    "get",
    "in_scope",
    "not_applicable",
    "EXTRA_LABELS_ZH",
    "EXTRA_LABELS_EN",
    "MASTER_ROLES",
    "said",
    "LEADS",
]

# The roles of a master debate (the seed's sequence).
MASTER_ROLES = ("立论", "反驳", "回应", "综合")


@dataclass(frozen=True)
class Rule:
    name: str
    label: str  # the rule's Chinese name, as a debate shows it and a retry prompt sends it
    requires: str  # what the rule requires, in one Chinese sentence (the model audit's wording)
    check: Callable[..., Finding]
    audited: bool = True  # the optional model audit grades this rule too
    label_en: str = ""  # the rule's English name (defaults to its id)
    roles: frozenset[str] | None = None  # the roles it applies to; None: every role
    protocols: tuple[str, ...] = ("master",)  # the protocols whose speeches it checks

    @property
    def labels(self) -> dict[str, str]:
        return {"zh": self.label, "en": self.label_en or self.name}

    def applies_to(self, role: str, protocol: str = "master") -> bool:
        return protocol in self.protocols and (self.roles is None or role in self.roles)

    def scope_text(self, lang: str = "zh") -> str:
        roles = "、".join(r for r in MASTER_ROLES if self.roles is None or r in self.roles)
        if lang == "zh":
            return "所有轮次" if self.roles is None else roles + "轮"
        return "every role" if self.roles is None else " / ".join(r for r in MASTER_ROLES if r in self.roles)


_REGISTRY: dict[str, Rule] = {}

# labels of findings that no deterministic rule produces (the optional model audit's own)
EXTRA_LABELS_ZH = {"model_audit": "模型审核"}
EXTRA_LABELS_EN = {"model_audit": "model audit"}


# Details whose words lead into the ones after them (无法判定：… / 出处均属本人：… / 含裁决：…).
LEADS = frozenset({"undecided", "citation.own", "hygiene.not_speech", "no_verdict.found", "no_dialogue.found"})


def said(code: str, **args) -> Detail:
    """One statement of a finding as data (:class:`~debate_core.models.Detail`)."""
    return Detail(code=code, args=args)


def not_applicable(r: Rule, role: str, protocol: str = "master") -> Finding:
    where = f"{role}轮" if protocol in r.protocols else f"{protocol} 协议"
    detail = (
        said("not_applicable.role", role=role)
        if protocol in r.protocols
        else said("not_applicable.protocol", protocol=protocol)
    )
    return Finding(
        rule=r.name,
        passed=True,
        applies=False,
        message=f"{where}不适用（本条只适用于{r.scope_text()}）",
        details=[detail],
    )


def _role_of(ctx) -> tuple[str, str]:
    return getattr(ctx, "role", ""), getattr(ctx, "protocol", "master") or "master"


def rule(
    name: str,
    *,
    label: str,
    requires: str,
    audited: bool = True,
    label_en: str = "",
    roles: Iterable[str] | None = None,
    protocols: Iterable[str] = ("master",),
) -> Callable[[Callable[..., Finding]], Callable[..., Finding]]:
    """Register the decorated ``(text, ctx) -> Finding`` function as rule ``name`` (in definition order).

    The function returned checks the scope first: out of scope it returns the rule's not-applicable
    finding without running the check."""
    role_set = frozenset(roles) if roles is not None else None
    protocol_tuple = tuple(protocols)

    def register(fn: Callable[..., Finding]) -> Callable[..., Finding]:
        @functools.wraps(fn)
        def scoped(text: str, ctx) -> Finding:
            r = _REGISTRY.get(name)
            role, protocol = _role_of(ctx)
            if r is not None and not r.applies_to(role, protocol):
                return not_applicable(r, role, protocol)
            return fn(text, ctx)

        if name in _REGISTRY and getattr(_REGISTRY[name].check, "__wrapped__", None) is not fn:
            raise ValueError(f"rule {name!r} is registered twice")
        _REGISTRY[name] = Rule(
            name=name,
            label=label,
            requires=requires,
            check=scoped,
            audited=audited,
            label_en=label_en or name,
            roles=role_set,
            protocols=protocol_tuple,
        )
        return scoped

    return register


def rules() -> list[Rule]:
    return list(_REGISTRY.values())


def get(name: str) -> Rule | None:
    return _REGISTRY.get(name)


def rule_names() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def in_scope(role: str, protocol: str = "master") -> tuple[str, ...]:
    """The rules that apply to a speech of ``role`` in ``protocol``."""
    return tuple(r.name for r in _REGISTRY.values() if r.applies_to(role, protocol))


def labels_zh() -> dict[str, str]:
    return {**{r.name: r.label for r in _REGISTRY.values()}, **EXTRA_LABELS_ZH}


def labels_en() -> dict[str, str]:
    return {**{r.name: r.label_en or r.name for r in _REGISTRY.values()}, **EXTRA_LABELS_EN}


def label(name: str, lang: str = "zh") -> str:
    """A rule's label in ``lang`` ("zh" or "en"); an unknown rule is its id."""
    table = labels_en() if lang.startswith("en") else labels_zh()
    return table.get(name, name)
