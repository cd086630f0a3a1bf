"""Setup: choose the protocol, topic, masters or stances, rounds, models and pack; Start opens Live.

What the form asks comes from the protocol's spec: its asks (a pack and two masters,
stances, a research workspace) and its roles (a model field each; a field per seat for a
many-model role)."""

import os

import streamlit as st

from webapp import ui, views
from webapp.i18n import N_, _

DEFAULT_TOPIC = "念佛与参禅，哪个更适合现代人？"
API_BASE_LABEL = N_("API base (optional: an OpenAI-compatible server)")


def model_input(f: views.ModelField, api_base: str) -> str:
    """A model string, then what it means: the embedded default, or whether its provider key is there."""
    default = os.environ.get("DEBATE_MODEL", "") if f.preset else ""
    placeholder = (_("offline (embedded default)") if f.offline_ok else _("empty = off") if f.off_when_empty
                   else _("e.g. openai/gpt-4o-mini"))
    value = st.text_input(f.label, value=default, key=f.key, placeholder=placeholder, help=f.help or None).strip()
    if f.off_when_empty and value == "offline":
        noun = f.label.split(" (")[0].lower()
        st.error(_("The {noun} must be a model (the offline engine cannot audit): leave it empty for off.")
                 .format(noun=noun))
    else:
        model_status(value, api_base, offline_ok=f.offline_ok)
    return value


def model_status(value: str, api_base: str, *, offline_ok: bool) -> None:
    if not value or value == "offline":
        if offline_ok:
            st.caption(f"✅ {_(views.OFFLINE_LABEL)}")
        return
    with st.spinner(_("Checking the model's configuration (the first check loads litellm)…")):
        problem = views.model_problem(value, api_base)
    if problem:
        st.error(views.safe_markdown(problem), icon="🔑")
    else:
        st.caption("✅ " + views.safe_format(_("`{model}` is configured"), model=value)
                   + (" " + views.safe_format(_("(API base {url})"), url=api_base) if api_base else ""))


def masters_section(topic: str, pack) -> tuple[tuple[str, str], list[str]] | None:
    """The suggested pair, the two pickers and the ammo both ways: the pair, and the masters
    to name in the config (none when the suggestion stands); None when the pick cannot start."""
    choice = views.suggest_pair(topic or "", pack)
    why = views.pair_reason(choice, pack)
    a_name, b_name = pack.masters[choice.a].name, pack.masters[choice.b].name
    hits = "; ".join(f"{views.safe_inline(k)}: {views.safe_inline('、'.join(v))}" for k, v in why["hits"].items()) \
        or _("none")
    st.info(views.safe_format(_("**Suggested pair: {a} vs {b}**"), a=a_name, b=b_name) + "  \n"
            + views.safe_format(_("chosen by {rule_text}: {reason}"), rule_text=why["rule_text"],
                                reason=why["reason"])
            + "  \n" + _("keywords hit: {hits}").format(hits=hits), icon="🎯")

    options = views.master_options(pack)
    label = lambda s: views.master_label(pack.masters[s])  # noqa: E731
    k = f"{choice.a}-{choice.b}-{pack.name}"
    c1, c2 = st.columns(2)
    a = c1.selectbox(_("Master A (opens)"), options, index=options.index(choice.a), format_func=label, key=f"ma-{k}")
    b = c2.selectbox(_("Master B"), options, index=options.index(choice.b), format_func=label, key=f"mb-{k}")
    if a == b:
        st.error(_("Master A and master B are the same: pick two different masters."))
        return None
    override = (a, b) != (choice.a, choice.b)
    if override:
        st.caption(_("Your pick overrides the suggested pair."))

    ammo = views.ammo_view(pack, a, b)
    st.markdown(_("**Ammo both ways**"))
    st.caption(_(views.AMMO_HELP))
    c1, c2 = st.columns(2)
    for col, title, rows in ((c1, f"{ammo.a_name} → {ammo.b_name}", ammo.a_to_b),
                             (c2, f"{ammo.b_name} → {ammo.a_name}", ammo.b_to_a)):
        with col:
            st.markdown(f"*{views.safe_inline(title)}*")
            if rows:
                for r in rows:
                    src_title = f" 《{views.safe_inline(r['source'])}》" if r["source"] else ""
                    st.markdown(f"- {views.safe_inline(r['position'])} ({views.safe_code(r['citation'])}{src_title})")
            else:
                st.markdown("- *" + _("(empty)") + "*")
    if ammo.warning:
        st.warning(f"{views.safe_inline(views.warning_text(ammo.warning))}  \n"
                   + views.safe_format(_("Empty direction: {directions} — the debate runs, marked degraded."),
                                       directions=", ".join(ammo.empty)))
    return (a, b), [a, b] if override else []


def stances_section() -> tuple[list[str], bool]:
    raw = st.text_area(_("Stances (one per line, 2-4)"), key="stances", height=100,
                       help=_("Leave empty to let the judge model split the topic into 2-4 stances."))
    stances = views.split_lines(raw)
    if stances and not 2 <= len(stances) <= 4:
        st.error(_("{n} stance(s): give 2 to 4, one per line, or leave the box empty.").format(n=len(stances)))
        return stances, True
    return stances, False


def rounds_slider(spec, pack=None, pair: tuple[str, str] | None = None) -> int:
    if pack is not None:
        lo, hi, default = views.rounds_range(spec, pack, pair)
        return st.slider(_("Rounds"), lo, hi, default, key=f"rounds-{spec.name}-{'-'.join(pair or [])}",
                         help=_("The pack allows {lo}-{hi}; {n} for this pair. The last round is the synthesis, so a rebuttal needs at least 3 rounds.").format(lo=lo, hi=hi, n=default))
    lo, hi, default = views.rounds_range(spec)
    return st.slider(_("Rounds"), lo, hi, default, key=f"rounds-{spec.name}", help=views.rounds_help(spec, lo, hi))


def models_section(spec, stances: list[str], lang: str) -> tuple[dict, bool]:
    """The API base and a field per role (per seat): the config's model fields, and whether Start waits."""
    api_base = st.text_input(_(API_BASE_LABEL), key=f"api_base_{spec.name}").strip()
    config: dict = {"api_base": api_base}
    blocked, given, required = False, [], []
    for rf in views.model_fields(spec, stances, lang):
        if rf.heading:
            st.markdown(rf.heading)
        values = []
        for col, f in zip(st.columns(len(rf.fields)), rf.fields):
            with col:
                values.append(model_input(f, api_base))
        named = [v for v in values if v]
        config[rf.config_key] = named if rf.role.many else (values[0] or None)
        blocked |= any(f.off_when_empty and v == "offline" for f, v in zip(rf.fields, values))
        given += named
        if rf.role.required:
            required.append(named)
    if required and not any(required):
        if not api_base:
            st.warning(views.needs_model_message(spec), icon="🔌")
        else:
            st.warning(_("Name the model the API base serves (e.g. openai/my-model) for at least the first "
                         "debater."))
        blocked = True
    if any(views.model_problem(m, api_base) for m in given):
        blocked = True
    return config, blocked


@ui.page(N_("Setup"), "🛠️")
def setup() -> None:
    specs = views.protocol_specs()
    protocol = st.radio(_("Protocol"), list(specs), horizontal=True, key="protocol",
                        format_func=lambda k: _(specs[k].app_title))
    spec = specs[protocol]
    st.caption(_(spec.app_summary))
    topic = st.text_area(_("Topic"), value=DEFAULT_TOPIC, key="topic", max_chars=500, height=80).strip()
    if not topic:
        st.warning(_("The topic is empty: write a question or claim to debate."))
    choices = views.debate_languages(spec)
    lang = st.radio(_("Debate language"), choices, horizontal=True, key=f"debate_lang-{spec.name}",
                    format_func=views.debate_language_label,
                    help=_("The language the debaters speak and the transcript is written in; auto follows the "
                           "topic (Chinese characters: 中文, else English). Master debates speak only Chinese."))

    config: dict = {"lang": None if lang == "auto" else lang}
    refused = bool(topic) and views.language_refused(spec, topic, config["lang"])
    if refused:  # a master debate on an English topic: said here, before Start (the library refuses it too)
        st.warning(_("A master debate speaks only Chinese (its persona packs are Chinese): write the topic in "
                     "Chinese."), icon="🈶")
    blocked = False
    pack = None
    if spec.asks_for(views.ASK_PACK):
        pack, config["pack"] = ui.pack_picker("pack")
        st.caption(views.pack_summary(pack))
    pair = None
    if spec.asks_for(views.ASK_MASTERS):
        picked = masters_section(topic, pack)
        blocked = picked is None
        if picked:
            pair, config["masters"] = picked
    if not blocked:
        if spec.asks_for(views.ASK_STANCES):
            config["stances"], blocked = stances_section()
        config["rounds"] = rounds_slider(spec, pack, pair)
        models, models_blocked = models_section(spec, config.get("stances", []),
                                                config["lang"] or views.topic_lang(topic))
        config.update(models)
        blocked |= models_blocked
        if spec.asks_for(views.ASK_WORKSPACE):
            config["workspace"] = st.text_input(_("Research workspace (optional folder the debaters may read)"),
                                                key="workspace").strip() or None
    st.divider()
    start = st.button(_("Start debate"), type="primary", disabled=blocked or refused or not topic, key="start")
    if start:
        with ui.guard(_("Start")):
            debate_config = views.build_config(protocol, topic, **config)
            splits = spec.asks_for(views.ASK_STANCES) and not config.get("stances")
            with st.spinner(_("Splitting the topic into stances with the judge model…") if splits
                            else _("Creating the debate…")):
                debate = ui.jobs().start(debate_config)
            ui.goto("live", debate.id)


setup()
