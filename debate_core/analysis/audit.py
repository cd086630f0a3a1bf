"""Judge audit for the judged protocols: swapped re-judging and a panel of judges.

For each judged debate (topic debate or trial) every judge of a *panel* rules on
*variants* of the same record:

* ``original`` — the debate as it was judged (the stored verdict stands in for
  its own judge, so no call is repeated);
* ``relabel`` — topic debates: the labels are permuted (辩手甲 ↔ 辩手乙, …, also
  inside rebuttal targets) while the presentation order stays; a judge that
  follows the arguments picks the same debater under its new label;
* ``reorder`` — the presentation order is reversed (topic: the stance listing and
  the speeches of every round; trial: con speaks before pro in each round) while
  the labels stay.

The judge is called exactly as the protocols call it: ``TopicDebate.judge`` for
topic debates and :func:`~debate_core.protocols.trial.trial_verdict` for trials,
on a copy of the record (the debate itself is never changed).  Every judgment
is mapped back to the debater it names (its *original* label).  :func:`audit_archive`
stores the audit in the archive (``audits``, ``audit_judgments``, and every judge
call with its prompt and reply in ``audit_calls``).

:func:`summarize` turns judgments into the per-debate agreement and, over a set,
the position bias (wins of whoever is presented first, beyond 1/n), the label
bias (wins of the first label — 辩手甲, or pro in a trial — beyond 1/n), the swap
consistency and the panel's agreement rate (unanimity, mean pairwise agreement,
Fleiss' kappa).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import pandas as pd

from debate_core.archive.migrations import AUDIT_JUDGMENT_COLUMNS
from debate_core.models import Debate
from debate_core.protocols import registry

VARIANTS = ("original", "relabel", "reorder")
_LABEL_RE = re.compile(r"辩手[甲乙丙丁戊己]|\bDebater [A-F]\b")  # a topic debate's labels, zh or en

# a judgment's row: the debate's batch, protocol and topic beside the archive's own columns
JUDGMENT_COLUMNS = ["debate_id", "batch_id", "protocol", "topic", *AUDIT_JUDGMENT_COLUMNS[1:]]


# ------------------------------------------------------------------- variants


def _map_labels(value: Any, mapping: dict[str, str]) -> Any:
    """Replace every label inside strings (simultaneously), recursively."""
    if isinstance(value, str):
        return _LABEL_RE.sub(lambda m: mapping.get(m.group(0), m.group(0)), value)
    if isinstance(value, dict):
        return {k: _map_labels(v, mapping) for k, v in value.items()}
    if isinstance(value, list):
        return [_map_labels(v, mapping) for v in value]
    return value


def variant(debate: Debate, kind: str) -> tuple[Debate, dict[str, str]]:
    """(a copy of ``debate`` presented as ``kind``, map from shown label to original label)."""
    copy = debate.model_copy(deep=True)
    labels = [p.label for p in copy.participants]
    identity = {lab: lab for lab in labels}
    if kind == "original":
        return copy, identity
    spec = registry.get(copy.protocol)
    if kind == "relabel":
        if not spec.anonymous_labels:
            raise ValueError("relabel applies to topic debates (a trial's sides carry meaning)")
        new = dict(zip(labels, reversed(labels), strict=True))
        for p in copy.participants:
            p.label = new[p.label]
            if p.name in new:
                p.name = new[p.name]
        for s in copy.rounds:
            s.speaker = new.get(s.speaker, s.speaker)
            s.speaker_name = new.get(s.speaker_name, s.speaker_name)
            s.text = _map_labels(s.text, new)
            if s.envelope is not None:
                s.envelope = _map_labels(s.envelope, new)
        return copy, {v: k for k, v in new.items()}
    if kind == "reorder":
        if spec.judge_reads_participants:
            copy.participants = list(reversed(copy.participants))
        order = {lab: i for i, lab in enumerate(reversed(labels))}
        copy.rounds = sorted(copy.rounds, key=lambda s: (s.round, order.get(s.speaker, len(order))))
        return copy, identity
    raise ValueError(f"unknown variant {kind!r} (known: {', '.join(VARIANTS)})")


def presented_order(debate: Debate) -> list[str]:
    """Labels in the order the judge meets them."""
    if registry.get(debate.protocol).judge_reads_participants:
        return [p.label for p in debate.participants]
    seen: list[str] = []
    for s in sorted(debate.rounds, key=lambda s: s.round):  # stable: keeps the order within a round
        if s.speaker not in seen:
            seen.append(s.speaker)
    for p in debate.participants:
        if p.label not in seen:
            seen.append(p.label)
    return seen


# ---------------------------------------------------------------------- judging


def _judge_copy(copy: Debate, judge: str, gateway_options: dict[str, Any] | None, api_base: str | None) -> Debate:
    update: dict[str, Any] = {"judge_model": judge}
    if api_base:
        update["api_base"] = api_base
    copy.config = copy.config.model_copy(update=update)
    copy.verdict = None
    spec = registry.get(copy.protocol)
    if spec.rejudge is None:
        raise ValueError(f"debate {copy.id} is a {copy.protocol} debate: only judged protocols have a judge")
    return spec.rejudge(copy, gateway_options)


def judge_variant(
    debate: Debate, judge: str, kind: str, *, gateway_options: dict[str, Any] | None = None, api_base: str | None = None
) -> dict[str, Any]:
    """One judgment: ``judge`` rules on ``debate`` presented as ``kind``."""
    return _judge_variant(debate, judge, kind, gateway_options=gateway_options, api_base=api_base)[0]


def _judge_variant(
    debate: Debate, judge: str, kind: str, *, gateway_options: dict[str, Any] | None = None, api_base: str | None = None
) -> tuple[dict[str, Any], list]:
    """The judgment row and the model calls it took (each an ``LLMCall``: prompt, reply, tokens)."""
    copy, back = variant(debate, kind)
    order = presented_order(copy)
    row = _row(debate, judge, kind, first=back.get(order[0], order[0]) if order else None)
    calls_before = len(copy.llm_calls)
    try:
        out = _judge_copy(copy, judge, gateway_options, api_base)
    except Exception as exc:  # noqa: BLE001 - one failed judgment is data, not a crash
        row["error"] = (getattr(exc, "cause", None) or str(exc) or type(exc).__name__).splitlines()[0]
        return row, copy.llm_calls[calls_before:]
    new_calls = out.llm_calls[calls_before:]
    row["prompt_tokens"] = sum(c.prompt_tokens for c in new_calls)
    row["completion_tokens"] = sum(c.completion_tokens for c in new_calls)
    row["cost"] = sum(c.cost for c in new_calls)
    v = out.verdict
    if v is None:
        row["error"] = out.stop_reason or "no verdict"
        return row, new_calls
    _fill(row, v.winner if v.parsed else None, back, order)
    row["parsed"] = bool(v.parsed)
    return row, new_calls


def _row(debate: Debate, judge: str, kind: str, first: str | None) -> dict[str, Any]:
    return {
        "debate_id": debate.id,
        "batch_id": debate.batch_id,
        "protocol": debate.protocol,
        "topic": debate.topic,
        "judge": judge,
        "variant": kind,
        "winner": None,
        "shown": None,
        "position": None,
        "first": first,
        "n": len(debate.participants),
        "parsed": False,
        "stored": False,
        "error": "",
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "cost": 0.0,
    }


def _fill(row: dict[str, Any], shown: str | None, back: dict[str, str], order: list[str]) -> None:
    row["shown"] = shown
    if shown is None:
        return
    if shown == "draw":
        row["winner"] = "draw"
        return
    row["winner"] = back.get(shown, shown)
    row["position"] = order.index(shown) if shown in order else None


def stored_judgment(debate: Debate) -> dict[str, Any] | None:
    """The debate's own verdict as an ``original`` judgment (None when it has none)."""
    v = debate.verdict
    if v is None:
        return None
    judge = v.judge or debate.config.judge_model or (debate.participants[0].model if debate.participants else "")
    order = presented_order(debate)
    row = _row(debate, judge, "original", first=order[0] if order else None)
    row["stored"] = True
    row["parsed"] = bool(v.parsed)
    _fill(row, v.winner if v.parsed else None, {lab: lab for lab in order}, order)
    return row


def audit_debates(
    debates: Iterable[Debate],
    judges: Sequence[str] | None = None,
    *,
    variants: Sequence[str] = VARIANTS,
    gateway_options: dict[str, Any] | None = None,
    api_base: str | None = None,
    concurrency: int = 4,
    use_stored: bool = True,
) -> AuditReport:
    """Re-judge ``debates`` with every judge of the panel on every variant; returns an :class:`AuditReport`.

    ``judges`` defaults to each debate's own judge.  ``relabel`` is skipped for trials.
    With ``use_stored`` the stored verdict is the ``original`` judgment of the judge who wrote it.
    """
    tasks: list[tuple[Debate, str, str]] = []
    rows: list[dict[str, Any]] = []
    for d in debates:
        spec = registry.get(d.protocol)
        if spec.rejudge is None or d.status != "completed":
            continue
        stored = stored_judgment(d) if use_stored else None
        panel = list(dict.fromkeys(judges or [stored["judge"] if stored else (d.config.judge_model or "")]))
        for judge in [j for j in panel if j]:
            for kind in variants:
                if kind == "relabel" and not spec.anonymous_labels:
                    continue
                if kind == "original" and stored is not None and stored["judge"] == judge:
                    rows.append(dict(stored))
                    continue
                tasks.append((d, judge, kind))
    calls: list[dict[str, Any]] = []
    if tasks:
        with ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="audit") as pool:
            done = list(
                pool.map(
                    lambda t: _judge_variant(t[0], t[1], t[2], gateway_options=gateway_options, api_base=api_base),
                    tasks,
                )
            )
        for (d, judge, kind), (row, made) in zip(tasks, done, strict=True):
            rows.append(row)
            calls += [{"debate_id": d.id, "judge": judge, "variant": kind, "call": c} for c in made]
    judgments = pd.DataFrame(rows, columns=JUDGMENT_COLUMNS)
    if len(judgments):
        judgments = judgments.sort_values(["debate_id", "judge", "variant"], kind="stable").reset_index(drop=True)
    per_debate, summary = summarize(judgments)
    return AuditReport(judgments=judgments, per_debate=per_debate, summary=summary, calls=calls)


def audit_archive(
    archive,
    *,
    batch_id: str | None = None,
    debate_ids: Sequence[str] | None = None,
    judges: Sequence[str] | None = None,
    variants: Sequence[str] = VARIANTS,
    gateway_options: dict[str, Any] | None = None,
    api_base: str | None = None,
    concurrency: int = 4,
    save: bool = True,
) -> AuditReport:
    """Audit the completed judged debates of a batch (or the given ids) in ``archive``; with
    ``save`` the audit (judgments, summary, every judge call) is stored there too."""
    ids = list(debate_ids or [])
    if batch_id:
        ids += [i for i in archive.completed_ids(batch_id, registry.judged()) if i not in ids]
    debates = [archive.get_debate(i) for i in ids]
    report = audit_debates(
        debates, judges, variants=variants, gateway_options=gateway_options, api_base=api_base, concurrency=concurrency
    )
    if save:
        archive.save_audit(report, batch_id=batch_id)
    return report


def audit_batch(archive, batch_id: str, **kwargs) -> AuditReport:
    return audit_archive(archive, batch_id=batch_id, **kwargs)


# --------------------------------------------------------------------- summary


def fleiss_kappa(ratings: Sequence[Sequence[Any]]) -> float | None:
    """Fleiss' kappa for items each rated by the same number (≥ 2) of raters; None when undefined."""
    items = [list(r) for r in ratings if len(r) >= 2]
    if not items:
        return None
    m = len(items[0])
    items = [r for r in items if len(r) == m]
    cats = sorted({c for r in items for c in r}, key=str)
    if len(items) < 1 or len(cats) < 1:
        return None
    counts = [[r.count(c) for c in cats] for r in items]
    n_items = len(items)
    p_j = [sum(row[j] for row in counts) / (n_items * m) for j in range(len(cats))]
    p_i = [(sum(x * x for x in row) - m) / (m * (m - 1)) for row in counts]
    p_bar = sum(p_i) / n_items
    p_e = sum(p * p for p in p_j)
    if p_e >= 1.0:
        return None
    return (p_bar - p_e) / (1 - p_e)


def _pairwise(values: list[Any]) -> float | None:
    pairs = list(combinations(values, 2))
    if not pairs:
        return None
    return sum(a == b for a, b in pairs) / len(pairs)


def summarize(judgments: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, Any]]:
    """(per-debate agreement table, batch-level bias and agreement figures) from judgments."""
    cols = [
        "debate_id",
        "protocol",
        "n",
        "judges",
        "judgments",
        "decided",
        "modal_winner",
        "agreement",
        "panel_unanimous",
        "panel_pairwise",
        "swap_consistency",
        "errors",
    ]
    if judgments is None or len(judgments) == 0:
        return pd.DataFrame(columns=cols), {"debates": 0, "judgments": 0}
    j = judgments.copy()
    j["decided"] = j["winner"].notna()
    rows = []
    kappa_items: list[list[Any]] = []
    swap_hits = swap_total = 0
    for debate_id, g in j.groupby("debate_id", sort=False):
        dec = g[g["decided"]]
        winners = list(dec["winner"])
        modal, top = Counter(winners).most_common(1)[0] if winners else (None, 0)
        orig = dec[dec["variant"] == "original"].drop_duplicates("judge")
        panel = list(orig["winner"])
        unanimous = (len(set(panel)) == 1) if len(panel) >= 2 else None
        if len(panel) >= 2:
            kappa_items.append(panel)
        hits = total = 0
        for _judge, gj in dec.groupby("judge"):
            base = gj[gj["variant"] == "original"]["winner"]
            if base.empty:
                continue
            for w in gj[gj["variant"] != "original"]["winner"]:
                total += 1
                hits += int(w == base.iloc[0])
        swap_hits += hits
        swap_total += total
        rows.append(
            {
                "debate_id": debate_id,
                "protocol": g["protocol"].iloc[0],
                "n": int(g["n"].iloc[0]),
                "judges": g["judge"].nunique(),
                "judgments": len(g),
                "decided": len(dec),
                "modal_winner": modal,
                "agreement": top / len(dec) if len(dec) else None,
                "panel_unanimous": unanimous,
                "panel_pairwise": _pairwise(panel),
                "swap_consistency": hits / total if total else None,
                "errors": int((g["error"].fillna("") != "").sum()),
            }
        )
    per_debate = pd.DataFrame(rows, columns=cols)

    dec = j[j["decided"] & (j["winner"] != "draw")]
    pos = dec[dec["variant"].isin(["original", "reorder"]) & dec["position"].notna()]
    first_rate = float((pos["position"] == 0).mean()) if len(pos) else None
    expected_pos = float((1.0 / pos["n"]).mean()) if len(pos) else None
    lab = dec[dec["variant"].isin(["original", "relabel"])]
    is_first = lab.apply(lambda r: r["shown"] in registry.get(r["protocol"]).first_labels, axis=1) if len(lab) else None
    label_rate = float(is_first.mean()) if is_first is not None else None  # (None exactly when lab is empty)
    expected_lab = float((1.0 / lab["n"]).mean()) if len(lab) else None
    shares = lab["shown"].value_counts(normalize=True).round(4).to_dict() if len(lab) else {}
    unanimous = per_debate["panel_unanimous"].dropna()
    pairwise = per_debate["panel_pairwise"].dropna()
    summary = {
        "debates": int(j["debate_id"].nunique()),
        "judgments": int(len(j)),
        "decided": int(j["decided"].sum()),
        "errors": int((j["error"].fillna("") != "").sum()),
        "judges": sorted(j["judge"].dropna().unique().tolist()),
        "first_position_win_rate": _r(first_rate),
        "expected_first_position": _r(expected_pos),
        "position_bias": _r(first_rate - expected_pos) if first_rate is not None and expected_pos is not None else None,
        "first_label_win_rate": _r(label_rate),
        "expected_first_label": _r(expected_lab),
        "label_bias": _r(label_rate - expected_lab) if label_rate is not None and expected_lab is not None else None,
        "label_win_shares": shares,
        "swap_consistency": _r(swap_hits / swap_total) if swap_total else None,
        "panel_agreement_rate": _r(float(unanimous.mean())) if len(unanimous) else None,
        "panel_pairwise_agreement": _r(float(pairwise.mean())) if len(pairwise) else None,
        "fleiss_kappa": _r(fleiss_kappa(kappa_items)),
    }
    return per_debate, summary


def _r(x: float | None) -> float | None:
    return None if x is None else round(float(x), 4)


@dataclass
class AuditReport:
    judgments: pd.DataFrame
    per_debate: pd.DataFrame
    summary: dict[str, Any] = field(default_factory=dict)
    calls: list[dict[str, Any]] = field(default_factory=list)  # {debate_id, judge, variant, call: LLMCall}
    audit_id: str = ""  # set once stored (Archive.save_audit)

    def to_markdown(self) -> str:
        s = self.summary
        if not s.get("judgments"):
            return "## judge audit\n\nno completed judged debate to audit\n"

        def pct(x: float | None) -> str:
            return "—" if x is None or x != x else f"{x * 100:.1f}%"

        def signed(x: float | None) -> str:
            return "—" if x is None or x != x else f"{x * 100:+.1f} pts"

        kappa = "—" if s["fleiss_kappa"] is None else f"{s['fleiss_kappa']:.3f}"

        lines = [
            "## judge audit",
            "",
            f"- {s['debates']} debates, {s['judgments']} judgments ({s['decided']} with a winner, "
            f"{s['errors']} errors) by {', '.join(s['judges'])}",
            f"- position bias: the first-presented debater wins {pct(s['first_position_win_rate'])} "
            f"(expected {pct(s['expected_first_position'])}): {signed(s['position_bias'])}",
            f"- label bias: the first label (辩手甲 / Debater A / pro) wins {pct(s['first_label_win_rate'])} "
            f"(expected {pct(s['expected_first_label'])}): {signed(s['label_bias'])}",
            f"- swap consistency (same debater after a swap, same judge): {pct(s['swap_consistency'])}",
            f"- panel: unanimous on {pct(s['panel_agreement_rate'])} of debates; mean pairwise agreement "
            f"{pct(s['panel_pairwise_agreement'])}; Fleiss' kappa {kappa}",
            "",
            "| debate | judgments | modal winner | agreement | panel unanimous | swap consistency |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for r in self.per_debate.itertuples(index=False):
            una = (
                "—"
                if r.panel_unanimous is None or r.panel_unanimous != r.panel_unanimous
                else ("yes" if r.panel_unanimous else "no")
            )
            lines.append(
                f"| {r.debate_id} | {r.judgments} | {r.modal_winner or '—'} | {pct(r.agreement)} | {una} | "
                f"{pct(r.swap_consistency)} |"
            )
        if self.audit_id:
            lines += [
                "",
                f"Stored in the archive as audit `{self.audit_id}` (tables audits, audit_judgments, audit_calls).",
            ]
        return "\n".join(lines) + "\n"


__all__ = [
    "AuditReport",
    "VARIANTS",
    "audit_archive",
    "audit_batch",
    "audit_debates",
    "fleiss_kappa",
    "judge_variant",
    "presented_order",
    "stored_judgment",
    "summarize",
    "variant",
]
