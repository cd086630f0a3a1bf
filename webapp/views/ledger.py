"""The Outcome page's argument map: a debate's claims by round and speaker, the attacks between
them and the claims left unanswered, read from :func:`debate_core.analysis.ledger.build_ledger`.
Every name, id and text reaches plotly HTML-escaped (plotly renders a subset of HTML in legends, ticks,
marker labels and hovers).  Nothing here imports streamlit; plotly is imported inside :func:`argument_map`."""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from typing import Any, Optional

from debate_core.analysis.ledger import build_ledger, evidence_counts
from debate_core.models import Debate, Ledger

from webapp.i18n import N_, _
from webapp.views.chrome import name_text, role_text
from webapp.views.common import plot_text

# what an attack is, by the ledger's kind (msgids; a debate shown in Chinese uses KIND_ZH)
KIND_NAMES = {"cites": N_("cites"), "answer": N_("answers a question"), "rebuttal": N_("rebuttal"),
              "challenge": N_("challenge"), "concession": N_("concession"), "restatement": N_("restatement"),
              "objection": N_("objection"), "partly": N_("partly accepts"), "hold": N_("holds against"),
              "engages": N_("engages")}
KIND_ZH = {"cites": "引用", "answer": "回答提问", "rebuttal": "反驳", "challenge": "质疑", "concession": "让步",
           "restatement": "复述回应", "objection": "质难", "partly": "部分接受", "hold": "坚持己见",
           "engages": "回应（未引用）"}
KIND_COLOURS = {"cites": "#7f7f7f", "answer": "#2ca02c", "rebuttal": "#9467bd", "challenge": "#8c564b",
                "concession": "#17becf", "restatement": "#bcbd22", "objection": "#e377c2", "partly": "#17becf",
                "hold": "#8c564b", "engages": "#aec7e8"}
LANE_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2")
DROPPED_COLOUR = "#d62728"
BASIS_NAMES = {"claim ids": N_("the claim ids the speakers cite"),
               "envelopes": N_("the debaters' structured arguments and rebuttals"),
               "restatements": N_("each round's restatement of the opponent"),
               "speech plans": N_("the targets of each round's speech plan"),
               "passages": N_("the passages of each speech"),
               "speech plans and passages": N_("the speech plans, and the passages of model-written speeches")}
BASIS_ZH = {"restatements": "每轮开头对对方上一轮的复述", "claim ids": "发言中引用的论点编号",
            "envelopes": "辩手的结构化论点与反驳", "speech plans": "每轮发言计划所针对的论点",
            "passages": "每轮发言的段落", "speech plans and passages": "发言计划，以及模型所写发言的段落"}
# the evidence an attack rests on (debate_core.analysis.ledger): msgids, and a Chinese debate's words
EVIDENCE_NAMES = {"explicit": N_("explicit references"), "inferred": N_("inferred by the aligner"),
                  "model": N_("model labels")}
EVIDENCE_ZH = {"explicit": "明示引用", "inferred": "对齐推断", "model": "模型标注"}
TABLE_COLUMNS = (N_("claim"), N_("speaker"), N_("round"), N_("answered by"), N_("dropped"), N_("text"))
TABLE_COLUMNS_ZH = ("论点", "发言者", "轮次", "被回应于", "未回应", "内容")
HOVER_CHARS = 300
MAX_ROWS = 12  # claims of one turn stacked in a column before a second column starts


@dataclass
class LedgerView:
    """What the argument map section shows for one debate."""

    debate: Debate
    ledger: Ledger
    chinese: bool
    table: Any  # DataFrame: claim, speaker, round, answered by, dropped (a bool; 是 / 否 in Chinese), text

    @property
    def claims(self) -> int:
        return len(self.ledger.claims)

    @property
    def attacks(self) -> int:
        return len(self.ledger.attacks)

    @property
    def dropped(self) -> int:
        return len(self.ledger.dropped)

    @property
    def basis(self) -> str:
        """Where the attacks were read from and the evidence they rest on, in the page's language."""
        if self.chinese:
            return f"{BASIS_ZH.get(self.ledger.basis, self.ledger.basis)}（证据：{self.evidence}）"
        base = _(BASIS_NAMES[self.ledger.basis]) if self.ledger.basis in BASIS_NAMES else self.ledger.basis
        evidence = _("evidence: {kinds}").format(kinds=self.evidence)
        return f"{base} ({evidence})"

    @property
    def evidence(self) -> str:
        """The evidence kinds the ledger used, each with its count of attacks (``explicit references 7,
        inferred by the aligner 11``)."""
        counts = evidence_counts(self.ledger)
        if self.chinese:
            return "，".join(f"{EVIDENCE_ZH.get(k, k)} {n}" for k, n in counts.items())
        return ", ".join(f"{_(EVIDENCE_NAMES[k]) if k in EVIDENCE_NAMES else k} {n}" for k, n in counts.items())

    def figure(self):
        return argument_map(self.debate, self.ledger, chinese=self.chinese)


def ledger_view(debate: Debate) -> Optional[LedgerView]:
    """The argument map of a debate whose ledger has claims and a structure to read attacks from
    (None for a debate without claims, or a trial, whose ledger is one claim per speech)."""
    import pandas as pd

    ledger = build_ledger(debate)
    if ledger.basis == "none" or not ledger.claims:
        return None
    zh = False  # the map is the app's chrome: its words follow the reader's language (the catalog), never the debate's
    answered: dict[str, list[str]] = {}
    for a in ledger.attacks:
        answered.setdefault(a.target, []).append(a.source)
    dropped = {c.id for c in ledger.dropped}
    cols = TABLE_COLUMNS_ZH if zh else TABLE_COLUMNS
    gone = (lambda c: "是" if c.id in dropped else "否") if zh else (lambda c: c.id in dropped)
    rows = [dict(zip(cols, (claim_text(c.id), name_text(c.speaker, c.name), c.round,
                            ", ".join(dict.fromkeys(claim_text(x) for x in answered.get(c.id, []))),
                            gone(c), " ".join(c.text.split()))))
            for c in ledger.claims]
    return LedgerView(debate=debate, ledger=ledger, chinese=zh, table=pd.DataFrame(rows, columns=list(cols)))


# -------------------------------------------------------------------- figure


def _lanes(debate: Debate, ledger: Ledger) -> list[str]:
    """Speaker labels top to bottom: the participants in their order (pro above con), then any
    other speaker of a claim."""
    lanes = [p.label for p in debate.participants]
    for c in ledger.claims:
        if c.speaker not in lanes:
            lanes.append(c.speaker)
    return lanes


def _speaking_order(debate: Debate) -> dict[tuple[int, str], tuple[int, int]]:
    """(round, speaker) -> (position in that round's speaking order, speakers in that round)."""
    per_round: dict[int, list[str]] = {}
    for s in debate.rounds:
        seq = per_round.setdefault(s.round, [])
        if s.speaker not in seq:
            seq.append(s.speaker)
    return {(r, sp): (i, len(seq)) for r, seq in per_round.items() for i, sp in enumerate(seq)}


def claim_text(claim_id: str) -> str:
    """A topic debate's claim id as the page names it: its speaker's seat in the reader's language (辩手甲 A1 is
    Debater A A1 in English), the debate's own id after it as it is."""
    from debate_core.engines.judged_prompts import for_lang

    for label in (*for_lang("zh").LABELS, *for_lang("en").LABELS):
        if (claim_id or "").startswith(label + " "):
            return name_text(label) + claim_id[len(label):]
    return claim_id


def _short_id(claim_id: str, speaker: str) -> str:
    """A topic debate's claim ids start with the speaker's label (``辩手甲 A1``): the lane says it."""
    return claim_id[len(speaker) + 1:] if claim_id.startswith(speaker + " ") else claim_id


def _escape(text: str) -> str:
    """Text for plotly (legend names, ticks, hovers, marker labels): HTML-escaped (:func:`plot_text`)."""
    return plot_text(text)


def _hover_text(text: str) -> str:
    t = " ".join((text or "").split())
    if len(t) > HOVER_CHARS:
        t = t[:HOVER_CHARS].rstrip() + "…"
    return "<br>".join(_escape(line) for line in textwrap.wrap(t, 70)) or "—"


def positions(debate: Debate, ledger: Ledger) -> tuple[dict[str, tuple[float, float]], list[str], int]:
    """Where each claim sits: x = its round, shifted by the speaker's place in that round's speaking
    order (and by column when a turn has more than :data:`MAX_ROWS` claims); y = its speaker's lane
    (0 at the top, -1 below …), the turn's claims stacked inside the lane in the order made.
    Returns (claim id -> (x, y), the lanes top to bottom, the rows of the fullest column)."""
    lanes = _lanes(debate, ledger)
    lane_y = {sp: -float(i) for i, sp in enumerate(lanes)}
    order = _speaking_order(debate)
    turns: dict[tuple[int, str], list[str]] = {}
    for c in ledger.claims:
        turns.setdefault((c.round, c.speaker), []).append(c.id)
    rows = max(1, min(MAX_ROWS, max(len(v) for v in turns.values())))
    out: dict[str, tuple[float, float]] = {}
    for (rnd, sp), ids in turns.items():
        pos, n = order.get((rnd, sp), (0, 1))
        step = min(0.36, 0.72 / (n - 1)) if n > 1 else 0.0
        x0 = rnd + (pos - (n - 1) / 2) * step
        ncol = math.ceil(len(ids) / MAX_ROWS)
        per_col = math.ceil(len(ids) / ncol)
        for k, cid in enumerate(ids):
            col, row = divmod(k, per_col)
            x = x0 + (col - (ncol - 1) / 2) * 0.12
            y = lane_y[sp] + (0.0 if rows == 1 else 0.28 - row * 0.68 / (rows - 1))  # room for the lane name above
            out.setdefault(cid, (x, y))
    return out, lanes, rows


def argument_map(debate: Debate, ledger: Ledger, *, chinese: bool = False):
    """The argument map: claims as nodes (x round, y speaker lane: pro above con), attacks as arrows
    from the answering claim to the answered one coloured by kind, dropped claims ringed in red.
    Hover: claim id, speaker, phase and the text (wrapped, at most 300 characters)."""
    import plotly.graph_objects as go

    pos, lanes, rows = positions(debate, ledger)
    names = {p.label: name_text(p.label, p.name) for p in debate.participants}  # 辩手甲: Debater A in English
    for c in ledger.claims:
        names.setdefault(c.speaker, name_text(c.speaker, c.name))
    dropped = {c.id for c in ledger.dropped}
    kind_name = (lambda k: KIND_ZH.get(k, k)) if chinese else (lambda k: _(KIND_NAMES[k]) if k in KIND_NAMES else k)
    dropped_word = "未被回应" if chinese else _("dropped")
    fig = go.Figure()

    # attacks: one trace per kind (lines, an arrowhead at the answered claim)
    by_kind: dict[str, list] = {}
    for a in ledger.attacks:
        if a.source in pos and a.target in pos:
            by_kind.setdefault(a.kind, []).append(a)
    for kind, attacks in by_kind.items():
        xs: list = []
        ys: list = []
        sizes: list = []
        hover: list = []
        shown: list = []
        for a in attacks:
            (x0, y0), (x1, y1) = pos[a.source], pos[a.target]
            length = math.hypot(x1 - x0, y1 - y0) or 1.0
            shorten = min(0.06, length / 3)  # stop short of the node so the arrowhead shows
            xe, ye = x1 - (x1 - x0) / length * shorten, y1 - (y1 - y0) / length * shorten
            xs += [x0, xe, None]
            ys += [y0, ye, None]
            sizes += [0, 11, 0]
            label = f"{_escape(claim_text(a.source))} → {_escape(claim_text(a.target))} · {_escape(kind_name(kind))}"
            hover += ["", label, ""]
            shown += ["skip", "text", "skip"]
        fig.add_trace(go.Scatter(
            x=xs, y=ys, mode="lines+markers", name=_escape(kind_name(kind)), legendgroup=f"kind-{kind}",
            line=dict(color=KIND_COLOURS.get(kind, "#555555"), width=1.3),
            marker=dict(symbol="arrow", size=sizes, angleref="previous", color=KIND_COLOURS.get(kind, "#555555")),
            text=hover, hoverinfo=shown, opacity=0.8))

    # claims: one trace per speaker
    for i, sp in enumerate(lanes):
        claims = [c for c in ledger.claims if c.speaker == sp and c.id in pos]
        if not claims:
            continue
        hover = []
        for c in claims:
            head = " · ".join(_escape(v) for v in (claim_text(c.id), names.get(sp, sp), role_text(c.phase)) if v)
            if c.id in dropped:
                head += f" · <b>{_escape(dropped_word)}</b>"
            hover.append(f"<b>{head}</b><br>{_hover_text(c.text)}")
        fig.add_trace(go.Scatter(
            x=[pos[c.id][0] for c in claims], y=[pos[c.id][1] for c in claims], mode="markers+text",
            name=_escape(names.get(sp, sp)), text=[_escape(_short_id(c.id, sp)) for c in claims],
            textposition="middle right",
            textfont=dict(size=9), hovertext=hover, hovertemplate="%{hovertext}<extra></extra>",
            marker=dict(size=11, color=LANE_COLOURS[i % len(LANE_COLOURS)], line=dict(width=1, color="white"))))

    # dropped claims: a red ring around the node
    gone = [c for c in ledger.claims if c.id in dropped and c.id in pos]
    if gone:
        fig.add_trace(go.Scatter(
            x=[pos[c.id][0] for c in gone], y=[pos[c.id][1] for c in gone], mode="markers",
            name=("未被回应的论点" if chinese else _("dropped (never answered)")), hoverinfo="skip",
            marker=dict(symbol="circle-open", size=19, color=DROPPED_COLOUR, line=dict(width=2))))

    rounds = sorted({c.round for c in ledger.claims})
    phases = {r: {c.phase for c in ledger.claims if c.round == r} for r in rounds}
    ticks = [(f"第{r}轮" if chinese else _("R{n}").format(n=r))
             + (f"<br>{_escape(role_text(next(iter(phases[r]))))}" if len(phases[r]) == 1 and next(iter(phases[r]))
                else "")
             for r in rounds]
    lane_px = max(170, rows * 30) if len(lanes) <= 2 else max(140, rows * 24)
    fig.update_layout(  # no title: the page's heading names it
        height=int(130 + lane_px * len(lanes)), margin=dict(l=10, r=10, t=10, b=10), hovermode="closest",
        plot_bgcolor="white", hoverlabel=dict(align="left"),
        legend=dict(orientation="h", yanchor="bottom", y=1.01, xanchor="left", x=0, title_text=""))
    fig.update_xaxes(tickvals=rounds, ticktext=ticks, range=[min(rounds) - 0.6, max(rounds) + 0.6],
                     title=("轮次" if chinese else _("round")), showgrid=True, gridcolor="#eeeeee", zeroline=False)
    # each lane is named inside the plot, at its top left, not by tick labels beside it: on a phone the
    # names (a model's, a master's) would take half the width and squeeze the map into the rest
    fig.update_yaxes(tickvals=[-float(i) for i in range(len(lanes))], showticklabels=False,
                     range=[-(len(lanes) - 1) - 0.55, 0.62], showgrid=False, zeroline=False, title=None)
    for i, sp in enumerate(lanes):
        fig.add_annotation(x=0, xref="paper", y=-i + 0.5, yref="y", xanchor="left", yanchor="top", showarrow=False,
                           text=f"<b>{_escape(names.get(sp, sp))}</b>", font=dict(size=12, color="#444444"),
                           bgcolor="rgba(255,255,255,0.8)")
    for i in range(len(lanes) - 1):  # a faint line between lanes
        fig.add_hline(y=-i - 0.5, line=dict(color="#dddddd", width=1, dash="dot"))
    return fig
