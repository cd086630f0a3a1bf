"""Setup: choose the protocol, topic, masters or stances, rounds, models and pack; Start opens Live."""

import os

import streamlit as st

from debate_core import ui, views

DEFAULT_TOPIC = "念佛与参禅，哪个更适合现代人？"


def model_input(label: str, key: str, *, offline_ok: bool, help: str = "", api_base: str = "") -> str:
    """A model string, then what it means: the embedded default, or whether its provider key is there."""
    default = os.environ.get("DEBATE_MODEL", "")
    placeholder = "offline (embedded default)" if offline_ok else "e.g. openai/gpt-4o-mini"
    value = st.text_input(label, value=default, key=key, placeholder=placeholder, help=help).strip()
    model_status(value, api_base, offline_ok=offline_ok)
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


def master_section(topic: str) -> dict:
    pack, pack_dir = ui.pack_picker("pack")
    st.caption(views.pack_summary(pack))

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
        return {"blocked": True}
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

    lo, hi, default = views.rounds_range(views.spec_for("master"), pack, (a, b))
    rounds = st.slider("Rounds", lo, hi, default, key=f"rounds-master-{a}-{b}",
                       help=f"The pack allows {lo}-{hi}; {default} for this pair.")
    with st.expander("Model", expanded=True):
        c1, c2 = st.columns(2)
        model = c1.text_input("Model for both masters and the moderator", key="model_master",
                              value=os.environ.get("DEBATE_MODEL", ""), placeholder="offline (embedded default)",
                              help="A litellm model string; empty or 'offline' is the embedded offline engine.").strip()
        api_base = c2.text_input("API base (optional: an OpenAI-compatible server)", key="api_base_master").strip()
        model_status(model, api_base, offline_ok=True)
        check_model = st.text_input(
            "Check model (optional)", key="check_model_master", placeholder="empty = off",
            help="A model that also audits every speech against the debate's rules and answers per rule; its "
                 "findings are shown beside the deterministic checks (模型审核). Empty: off, the deterministic "
                 "checks alone.").strip()
        if check_model == "offline":
            st.error("The check model must be a model (the offline engine cannot audit): leave it empty for off.")
        elif check_model:
            model_status(check_model, api_base, offline_ok=False)
    problem = views.model_problem(model, api_base) if model and model != "offline" else None
    check_problem = (check_model == "offline" or views.model_problem(check_model, api_base)) if check_model else None
    return {"config": dict(masters=[a, b] if override else [], rounds=rounds, model=model or None,
                           check_model=check_model or None, api_base=api_base, pack=pack_dir),
            "blocked": bool(problem or check_problem), "spinner": "Creating the debate…"}


def judged_section(spec: views.ProtocolSpec) -> dict:
    stances: list[str] = []
    if spec.uses_stances:
        raw = st.text_area("Stances (one per line, 2-4)", key="stances", height=100,
                           help="Leave empty to let the judge model split the topic into 2-4 stances.")
        stances = views.split_lines(raw)
        if stances and not 2 <= len(stances) <= 4:
            st.error(f"{len(stances)} stance(s): give 2 to 4, one per line, or leave the box empty.")
    lo, hi, default = views.rounds_range(spec)
    cap = " The topic-debate seed caps it at 3: the openings plus up to 2 rebuttal rounds." if spec.key == "topic" else ""
    rounds = st.slider("Rounds", lo, hi, default, key=f"rounds-{spec.key}", help=f"{spec.title}: {lo}-{hi}.{cap}")
    api_base = st.text_input("API base (optional: an OpenAI-compatible server)", key=f"api_base_{spec.key}").strip()
    models: list[str] = []
    if spec.key == "topic":
        labels = ["辩手甲", "辩手乙", "辩手丙", "辩手丁"][: max(2, len(stances))]
        st.markdown("**A model per debater** (reused in order when fewer are given: the debate is then degraded)")
        cols = st.columns(len(labels))
        by_label = views.stance_labels(stances)  # stance 1 → 辩手乙, stance 2 → 辩手甲, as the seed assigns them
        for i, label in enumerate(labels):
            with cols[i]:
                stance = f" — {by_label[label]}" if label in by_label else ""
                models.append(model_input(f"{label}{stance}", f"model-topic-{i}", offline_ok=False,
                                          api_base=api_base))
        judge = model_input("Judge model", "model-topic-judge", offline_ok=False, api_base=api_base,
                            help="Defaults to the first debater's model.")
        workspace = None
    else:
        c1, c2, c3 = st.columns(3)
        with c1:
            models.append(model_input("Pro model (正方)", "model-trial-pro", offline_ok=False, api_base=api_base))
        with c2:
            models.append(model_input("Con model (反方)", "model-trial-con", offline_ok=False, api_base=api_base,
                                      help="Defaults to the pro model."))
        with c3:
            judge = model_input("Judge model", "model-trial-judge", offline_ok=False, api_base=api_base,
                                help="Defaults to the pro model.")
        workspace = st.text_input("Research workspace (optional folder the debaters may read)",
                                  key="workspace").strip() or None
    given = [m for m in models if m] + ([judge] if judge else [])
    blocked = False
    if not [m for m in models if m] and not api_base:
        st.warning(views.needs_model_message(spec), icon="🔌")
        blocked = True
    elif not [m for m in models if m]:
        st.warning("Name the model the API base serves (e.g. openai/my-model) for at least the first debater.")
        blocked = True
    if any(views.model_problem(m, api_base) for m in given):
        blocked = True
    if spec.uses_stances and stances and not 2 <= len(stances) <= 4:
        blocked = True
    spinner = ("Creating the debate…" if stances or not spec.uses_stances
               else "Splitting the topic into stances with the judge model…")
    return {"config": dict(models=[m for m in models if m], judge_model=judge or None, rounds=rounds,
                           api_base=api_base, stances=stances, workspace=workspace),
            "blocked": blocked, "spinner": spinner}


@ui.page("Setup", "🛠️")
def setup() -> None:
    specs = views.protocol_specs()
    protocol = st.radio("Protocol", list(specs), horizontal=True, key="protocol",
                        format_func=lambda k: specs[k].title)
    spec = specs[protocol]
    st.caption(spec.blurb)
    topic = st.text_area("Topic", value=DEFAULT_TOPIC, key="topic", max_chars=500, height=80).strip()
    if not topic:
        st.warning("The topic is empty: write a question or claim to debate.")

    section = master_section(topic) if spec.uses_pack else judged_section(spec)
    st.divider()
    start = st.button("Start debate", type="primary", disabled=section.get("blocked", True) or not topic,
                      key="start")
    if start:
        with ui.guard("Start"):
            config = views.build_config(protocol, topic, **section["config"])
            with st.spinner(section.get("spinner", "Creating the debate…")):
                debate = ui.jobs().start(config)
            ui.goto("live", debate.id)


setup()
