"""Setup: choose the protocol, topic, masters or stances, rounds, models and pack; Start opens Live.

What the form asks comes from the protocol's spec: its asks (a pack and two masters,
stances, a research workspace) and its roles (a model field each; a field per seat for a
many-model role)."""

import os

import streamlit as st

from webapp import ui, views

DEFAULT_TOPIC = "念佛与参禅，哪个更适合现代人？"
API_BASE_LABEL = "API base (optional: an OpenAI-compatible server)"


def model_input(f: views.ModelField, api_base: str) -> str:
    """A model string, then what it means: the embedded default, or whether its provider key is there."""
    default = os.environ.get("DEBATE_MODEL", "") if f.preset else ""
    placeholder = ("offline (embedded default)" if f.offline_ok else "empty = off" if f.off_when_empty
                   else "e.g. openai/gpt-4o-mini")
    value = st.text_input(f.label, value=default, key=f.key, placeholder=placeholder, help=f.help or None).strip()
    if f.off_when_empty and value == "offline":
        noun = f.label.split(" (")[0].lower()
        st.error(f"The {noun} must be a model (the offline engine cannot audit): leave it empty for off.")
    else:
        model_status(value, api_base, offline_ok=f.offline_ok)
    return value


def model_status(value: str, api_base: str, *, offline_ok: bool) -> None:
    if not value or value == "offline":
        if offline_ok:
            st.caption(f"✅ {views.OFFLINE_LABEL}")
        return
    with st.spinner("Checking the model's configuration (the first check loads litellm)…"):
        problem = views.model_problem(value, api_base)
    if problem:
        st.error(problem, icon="🔑")
    else:
        st.caption(f"✅ `{value}` is configured" + (f" (API base {api_base})" if api_base else ""))


def masters_section(topic: str, pack) -> tuple[tuple[str, str], list[str]] | None:
    """The suggested pair, the two pickers and the ammunition both ways: the pair, and the masters
    to name in the config (none when the suggestion stands); None when the pick cannot start."""
    choice = views.suggest_pair(topic or "", pack)
    why = views.pair_reason(choice, pack)
    a_name, b_name = pack.masters[choice.a].name, pack.masters[choice.b].name
    hits = "; ".join(f"{views.safe_markdown(k)}: {'、'.join(v)}" for k, v in why["hits"].items()) or "none"
    st.info(f"**Suggested pair: {a_name} vs {b_name}**  \nrule **{why['rule']}** ({why['rule_text']}) — "
            f"{views.safe_markdown(why['reason'])}  \nkeywords hit: {hits}", icon="🎯")

    options = views.master_options(pack)
    label = lambda s: views.master_label(pack.masters[s])  # noqa: E731
    k = f"{choice.a}-{choice.b}-{pack.name}"
    c1, c2 = st.columns(2)
    a = c1.selectbox("Master A (opens)", options, index=options.index(choice.a), format_func=label, key=f"ma-{k}")
    b = c2.selectbox("Master B", options, index=options.index(choice.b), format_func=label, key=f"mb-{k}")
    if a == b:
        st.error("Master A and master B are the same: pick two different masters.")
        return None
    override = (a, b) != (choice.a, choice.b)
    if override:
        st.caption("Your pick overrides the suggested pair.")

    ammo = views.ammo_view(pack, a, b)
    st.markdown("**Ammunition both ways** (cross_critique entries of each master aimed at the other)")
    c1, c2 = st.columns(2)
    for col, title, rows in ((c1, f"{ammo.a_name} → {ammo.b_name}", ammo.a_to_b),
                             (c2, f"{ammo.b_name} → {ammo.a_name}", ammo.b_to_a)):
        with col:
            st.markdown(f"*{title}*")
            if rows:
                for r in rows:
                    src_title = f" 《{r['source']}》" if r["source"] else ""
                    st.markdown(f"- {views.safe_markdown(r['position'])} (`{r['citation']}`{src_title})")
            else:
                st.markdown("- *(empty)*")
    if ammo.warning:
        st.warning(f"{ammo.warning}  \nEmpty direction: {', '.join(ammo.empty)} — the debate runs, marked degraded.")
    return (a, b), [a, b] if override else []


def stances_section() -> tuple[list[str], bool]:
    raw = st.text_area("Stances (one per line, 2-4)", key="stances", height=100,
                       help="Leave empty to let the judge model split the topic into 2-4 stances.")
    stances = views.split_lines(raw)
    if stances and not 2 <= len(stances) <= 4:
        st.error(f"{len(stances)} stance(s): give 2 to 4, one per line, or leave the box empty.")
        return stances, True
    return stances, False


def rounds_slider(spec, pack=None, pair: tuple[str, str] | None = None) -> int:
    if pack is not None:
        lo, hi, default = views.rounds_range(spec, pack, pair)
        return st.slider("Rounds", lo, hi, default, key=f"rounds-{spec.name}-{'-'.join(pair or [])}",
                         help=f"The pack allows {lo}-{hi}; {default} for this pair.")
    lo, hi, default = views.rounds_range(spec)
    return st.slider("Rounds", lo, hi, default, key=f"rounds-{spec.name}", help=views.rounds_help(spec, lo, hi))


def models_section(spec, stances: list[str]) -> tuple[dict, bool]:
    """The API base and a field per role (per seat): the config's model fields, and whether Start waits."""
    api_base = st.text_input(API_BASE_LABEL, key=f"api_base_{spec.name}").strip()
    config: dict = {"api_base": api_base}
    blocked, given, required = False, [], []
    for rf in views.model_fields(spec, stances):
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
            st.warning("Name the model the API base serves (e.g. openai/my-model) for at least the first debater.")
        blocked = True
    if any(views.model_problem(m, api_base) for m in given):
        blocked = True
    return config, blocked


@ui.page("Setup", "🛠️")
def setup() -> None:
    specs = views.protocol_specs()
    protocol = st.radio("Protocol", list(specs), horizontal=True, key="protocol",
                        format_func=lambda k: specs[k].app_title)
    spec = specs[protocol]
    st.caption(spec.app_summary)
    topic = st.text_area("Topic", value=DEFAULT_TOPIC, key="topic", max_chars=500, height=80).strip()
    if not topic:
        st.warning("The topic is empty: write a question or claim to debate.")

    config: dict = {}
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
        models, models_blocked = models_section(spec, config.get("stances", []))
        config.update(models)
        blocked |= models_blocked
        if spec.asks_for(views.ASK_WORKSPACE):
            config["workspace"] = st.text_input("Research workspace (optional folder the debaters may read)",
                                                key="workspace").strip() or None
    st.divider()
    start = st.button("Start debate", type="primary", disabled=blocked or not topic, key="start")
    if start:
        with ui.guard("Start"):
            debate_config = views.build_config(protocol, topic, **config)
            splits = spec.asks_for(views.ASK_STANCES) and not config.get("stances")
            with st.spinner("Splitting the topic into stances with the judge model…" if splits
                            else "Creating the debate…"):
                debate = ui.jobs().start(debate_config)
            ui.goto("live", debate.id)


setup()
