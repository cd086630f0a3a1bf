"""The Setup page (and Home's engine line): protocols, engine and models, pack, pair and ammunition,
rounds, stances, and the config Start creates.

Everything a protocol asks for comes from its spec: its roles (one model field each, a
field per seat for a many-model role), its asks (pack, masters, stances, workspace), its
limits.  Nothing here imports streamlit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Optional

from debate_core.lang import detect
from debate_core.models import DebateConfig, Master, Pack
from debate_core.protocols import registry
from debate_core.protocols.base import ASK_PACK, ASK_STANCES, ProtocolSpec, Role

from webapp.i18n import N_, _, maybe

# ------------------------------------------------------------- engine / model

OFFLINE_LABEL = N_("the embedded default offline engine (no key, no network)")
# what the words mean, said where they first appear (Setup's pack and ammo, the Coverage page)
PACK_HELP = N_("A persona pack holds each master's profile, voice, source texts and objections to the other "
               "masters; the speeches draw on it. The default pack ships with the workbench; a folder in the "
               "Master-skill layout (a master-… folder per master) replaces it.")
AMMO_HELP = N_("Ammo: the objections a master's persona pack aims at the other master's positions, each with its "
               "source. A rebuttal must use at least one; a direction with none makes the debate weaker, and it is "
               "marked degraded.")
COVERAGE_HELP = N_("Coverage: which masters of the persona pack have critiques (ammo) aimed at which. A pair covered "
                   "both ways debates at full strength; where one direction has none, that master has no ammo "
                   "against the other and the debate is marked degraded.")


def configured_model() -> Optional[str]:
    from debate_core.settings import resolve_model

    return resolve_model(None)


def engine_summary() -> dict[str, str]:
    """What the workbench runs on by default (``DEBATE_MODEL`` / ``DEBATE_API_BASE``)."""
    from debate_core.settings import resolve_api_base

    model = configured_model()
    base = resolve_api_base(None) or ""
    if model is None:
        return {"model": "offline", "label": _(OFFLINE_LABEL), "api_base": base,
                "note": _("Master debates run offline; topic debates and trials need a model: set DEBATE_MODEL "
                          "(and its provider key) or DEBATE_API_BASE for an OpenAI-compatible server.")}
    return {"model": model, "label": _("{model} (from DEBATE_MODEL)").format(model=model), "api_base": base,
            "note": _("Master debates may still choose the offline engine in Setup.")}


def model_problem(model: Optional[str], api_base: Optional[str] = None) -> Optional[str]:
    """Why ``model`` cannot run here (e.g. the provider's key is missing), or None.

    Never contacts the network (no reachability probe); the offline engine needs nothing.
    """
    from debate_core.engines.gateway import ConfigError, check_model_config
    from debate_core.settings import resolve_api_base, resolve_model

    m = resolve_model(model) if model is not None else None
    if m is None:
        return None
    try:
        check_model_config(m, resolve_api_base(api_base), probe=False)
    except ConfigError as exc:
        return str(exc).replace("or pass --api-base for", "or give an API base for")
    return None


def needs_model_message(spec: ProtocolSpec) -> str:
    return _("A {protocol} needs a model: there is no offline engine for it. Enter a litellm model string such as "
             "openai/gpt-4o-mini (with OPENAI_API_KEY exported before starting the app), or an OpenAI-compatible "
             "server URL as API base (vLLM, Ollama, a litellm proxy), or start the app with DEBATE_MODEL set."
             ).format(protocol=_(spec.app_title).lower())


# -------------------------------------------------------------- model fields


@dataclass(frozen=True)
class ModelField:
    """One model field of the Setup form."""

    key: str  # the widget key
    label: str
    help: str
    offline_ok: bool  # empty or "offline" is the embedded offline engine
    off_when_empty: bool  # an optional audit: empty is off, never the offline engine
    preset: bool  # starts with DEBATE_MODEL


@dataclass(frozen=True)
class RoleFields:
    """A role of the protocol as Setup asks for it: one field, or a field per seat."""

    role: Role
    heading: str  # shown above the fields of a many-model role ("" for none)
    fields: list[ModelField] = field(default_factory=list)

    @property
    def config_key(self) -> str:
        """The :func:`build_config` argument the answers go into (a many-model role: ``models``)."""
        return "models" if self.role.many else self.role.field


def model_fields(spec: ProtocolSpec, stances: Optional[list[str]] = None, lang: str = "zh") -> list[RoleFields]:
    """The Setup form's model fields, from the protocol's roles.

    A many-model role has a field per seat: every seat, or as many as there are stances
    (at least two) when the protocol asks for stances; a seat's label names it as a debate in
    ``lang`` does (辩手甲 / Debater A) and names its stance.
    """
    out = []
    for role in spec.roles:
        offline_ok = spec.offline and role.field == "model"
        off = role.field == "check_model"
        label, help_text = spec.app_fields.get(role.key, (role.label, role.help))
        label, help_text = maybe(label), maybe(help_text) if help_text else help_text
        if not role.many:
            out.append(RoleFields(role, "", [ModelField(f"model-{spec.name}-{role.key}", label, help_text,
                                                        offline_ok, off, preset=not off)]))
            continue
        seats = list(spec.seats)
        names = list(spec.seat_names(lang)) if spec.seat_names else seats
        if spec.asks_for(ASK_STANCES):
            seats = seats[: max(2, len(stances or []))]
        by_seat = stance_seats(spec, stances or [], lang)
        fields = []
        for i, seat in enumerate(seats):
            name = names[i]
            stance = f" — {by_seat[name]}" if name in by_seat else ""
            seat_label, seat_help = spec.app_fields.get(seat, (f"{name}{stance}", ""))
            seat_label, seat_help = maybe(seat_label), maybe(seat_help) if seat_help else seat_help
            key = f"model-{spec.name}-{seat if seat.isascii() else i}"  # Chinese seats (辩手甲…) by position
            fields.append(ModelField(key, seat_label, seat_help, offline_ok, off, preset=True))
        out.append(RoleFields(role, label if spec.app_fields.get(role.key) else "", fields))
    return out


def stance_seats(spec: ProtocolSpec, stances: list[str], lang: str = "zh") -> dict[str, str]:
    """Seat name → stance as the protocol assigns them in ``lang`` (topic debates: stance 1 → 辩手乙 /
    Debater B, 2 → 辩手甲 / Debater A, …)."""
    if spec.stance_seats is None or not stances:
        return {}
    return spec.stance_seats(stances, lang)


# ------------------------------------------------------------------- pairs


def master_label(m: Master) -> str:
    """A master as the pickers show it: name, school, tradition and era."""
    parts = [m.name, m.school or "—", m.tradition or "—", m.era or "—"]
    return " · ".join(parts)


def master_options(pack: Pack) -> list[str]:
    return list(pack.masters)


def suggest_pair(topic: str, pack: Pack):
    """The pair the topic selects (a :class:`~debate_core.content.pairing.PairChoice`)."""
    from debate_core.content.pairing import choose_pair

    return choose_pair(topic.strip(), pack)


def pair_reason(choice, pack: Pack) -> dict[str, Any]:
    hits = {pack.masters[s].name if s in pack.masters else s: h for s, h in choice.hits.items()}
    rule_text = {"user": N_("named by the user"), "table": N_("the table of classic pairs by topic"),
                 "keywords": N_("keyword scoring over the masters' keywords"), "default": N_("the default pair")}
    from webapp.views.chrome import pair_reason_text

    return {"rule": choice.rule, "rule_text": maybe(rule_text.get(choice.rule, choice.rule)),
            "reason": pair_reason_text(choice.reason),
            "row": choice.row, "hits": hits}


@dataclass
class AmmoView:
    a: str
    b: str
    a_name: str
    b_name: str
    a_to_b: list[dict[str, str]]
    b_to_a: list[dict[str, str]]
    warning: Optional[str]  # the coverage warning when a direction is empty
    rounds: int  # the pack's rounds for this pair
    empty: list[str] = field(default_factory=list)


def ammo_view(pack: Pack, a: str, b: str) -> AmmoView:
    """Each master's ammo against the other (pack protocols): the objections his persona pack aims at the other
    master's positions, each with its source (:func:`debate_core.protocols.master.ammo_for`)."""
    from debate_core.protocols.master import COVERAGE_WARNING, ammo_for, plan_rounds

    ammo = ammo_for(pack, a, b)
    ma, mb = pack.masters[a], pack.masters[b]

    def rows(items, speaker: Master) -> list[dict[str, str]]:
        return [{"position": c.position, "citation": c.citation,
                 "source": speaker.source_title(c.citation) or ""} for c in items]

    empty = []
    if not ammo.a_vs_b:
        empty.append(f"{ma.name} → {mb.name}")
    if not ammo.b_vs_a:
        empty.append(f"{mb.name} → {ma.name}")
    rounds, _ = plan_rounds(pack, a, b, None)
    return AmmoView(a=a, b=b, a_name=ma.name, b_name=mb.name, a_to_b=rows(ammo.a_vs_b, ma),
                    b_to_a=rows(ammo.b_vs_a, mb), warning=COVERAGE_WARNING if empty else None,
                    rounds=rounds, empty=empty)


def rounds_range(spec: ProtocolSpec, pack: Optional[Pack] = None, pair: Optional[tuple[str, str]] = None
                 ) -> tuple[int, int, int]:
    """(min, max, default) rounds: the protocol's, or for a pack protocol the pack's (per pair)."""
    if spec.asks_for(ASK_PACK) and pack is not None:
        from debate_core.protocols.master import plan_rounds

        proto = pack.protocol
        default = plan_rounds(pack, pair[0], pair[1], None)[0] if pair else proto.default_rounds
        lo, hi = proto.min_rounds, max(proto.min_rounds, proto.max_rounds)
        return lo, hi, max(lo, min(default, hi))
    return spec.min_rounds, spec.max_rounds, spec.default_rounds


def rounds_help(spec: ProtocolSpec, lo: int, hi: int) -> str:
    """The rounds slider's help: the limits, and why the maximum is what it is."""
    cap = (" " + _("At most {hi} rounds: {note}.").format(hi=hi, note=_(spec.rounds_note)) if spec.rounds_note
           else "")
    return f"{_(spec.app_title)}: {lo}-{hi}.{cap}"


def split_lines(text: str, sep: str = "\n") -> list[str]:
    parts = re.split(r"[\n|]" if sep == "\n" else re.escape(sep), text or "")
    return [p.strip() for p in parts if p.strip()]


def protocol_specs() -> dict[str, ProtocolSpec]:
    """The protocols Setup offers, in the registry's order."""
    return {s.name: s for s in registry.specs()}


def build_config(protocol: str, topic: str, *, masters: Optional[list[str]] = None, rounds: Optional[int] = None,
                 model: Optional[str] = None, models: Optional[list[str]] = None,
                 judge_model: Optional[str] = None, check_model: Optional[str] = None,
                 api_base: Optional[str] = None, pack: Optional[str] = None,
                 stances: Optional[list[str]] = None, workspace: Optional[str] = None,
                 lang: Optional[str] = None) -> DebateConfig:
    """The :class:`DebateConfig` for what the Setup form holds (validated by the protocol on start).

    A model field no role of the protocol uses (e.g. ``check_model``, the optional model-graded
    audit, outside master debates) stays empty, and so does the pack of a protocol without one.
    """
    spec = registry.get(protocol)
    clean = lambda s: (s or "").strip() or None  # noqa: E731
    return DebateConfig(
        protocol=protocol, topic=topic, masters=[m for m in (masters or []) if m], rounds=rounds,
        model=clean(model), models=[m.strip() for m in (models or []) if m and m.strip()],
        judge_model=clean(judge_model),
        check_model=clean(check_model) if "check_model" in spec.fields() else None,
        api_base=clean(api_base), pack=clean(pack) if spec.asks_for(ASK_PACK) else None,
        stances=[s for s in (stances or []) if s], workspace=clean(workspace),
        lang=lang if lang in ("zh", "en") else None)


def topic_lang(topic: str) -> str:
    """The language a debate on ``topic`` speaks when none is chosen."""
    return detect(topic or "")


def language_refused(spec: ProtocolSpec, topic: str, lang: Optional[str]) -> bool:
    """Whether the protocol refuses a debate on ``topic`` in ``lang`` (the library's own check:
    a master debate on a topic that is not Chinese)."""
    from debate_core.errors import InputError
    from debate_core.protocols.base import check_lang

    try:
        check_lang(spec.name, spec.languages, DebateConfig(protocol=spec.name, topic=topic, lang=lang))
    except InputError:
        return True
    return False


def debate_languages(spec: ProtocolSpec) -> list[str]:
    """The Setup choices for the debate's language: "auto" (follow the topic) and the protocol's
    languages, or its only language (master debates: zh)."""
    langs = list(spec.languages)
    return langs if len(langs) == 1 else ["auto"] + langs


LANG_CHOICES = {"auto": N_("auto (follow the topic)"), "zh": "中文", "en": "English"}


def debate_language_label(choice: str) -> str:
    return _(LANG_CHOICES[choice]) if choice == "auto" else LANG_CHOICES.get(choice, choice)
