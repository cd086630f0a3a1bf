"""The Coverage page: who in a pack has ammunition against whom, and which pairs the archive ran
with the coverage warning.  Nothing here imports streamlit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from debate_core.models import Pack

from webapp.i18n import N_, _
from webapp.views.common import plot_text


@dataclass
class CoverageView:
    pack: Pack
    matrix: Any
    gaps: dict
    canonical: Any  # DataFrame
    one_way: Any  # DataFrame
    both_ways: Any  # DataFrame
    no_critique: list[str]
    degraded: Any  # DataFrame
    names: dict[str, str]

    @property
    def complete_pairs(self) -> int:
        return len(self.gaps["both_ways"])

    @property
    def one_way_entries(self) -> int:
        return len(self.gaps["one_way"])

    def heatmap(self):
        return coverage_heatmap(self.matrix, self.gaps, self.names)


def coverage_view(pack: Pack, archive: Any = None) -> CoverageView:
    import pandas as pd

    from debate_core.content.coverage import coverage_gaps, coverage_matrix

    matrix = coverage_matrix(pack)
    gaps = coverage_gaps(pack)
    names = {s: m.name for s, m in pack.masters.items()}
    canonical = pd.DataFrame([{
        N_("pair"): c["pair"], N_("status"): c["status"], "a→b": c["a_to_b"], "b→a": c["b_to_a"],
        N_("lacking"): ", ".join(c["lacking"]), N_("label"): c["label"],
        N_("masters"): f"{names.get(c['a'], c['a'])} / {names.get(c['b'], c['b'])}", N_("in pack"): c["in_pack"]}
        for c in gaps["canonical"]])
    one_way = pd.DataFrame([{"entry": o["entry"], "critiques": o["critiques"], "missing": f"{o['to']}->{o['from']}",
                             "from → to": f"{names.get(o['from'], o['from'])} → {names.get(o['to'], o['to'])}"}
                            for o in gaps["one_way"]],
                           columns=[N_("entry"), N_("critiques"), N_("missing"), N_("from → to")])
    both = pd.DataFrame(gaps["both_ways"], columns=["pair", "a", "b", "a_to_b", "b_to_a"])
    degraded = pd.DataFrame(columns=["pair", "a", "b", N_("debates"), N_("completed"), N_("last_at")])
    if archive is not None:
        degraded = archive.degraded_pairs()
        if len(degraded):
            degraded = degraded.assign(a=[names.get(a, a) for a in degraded["a"]],
                                       b=[names.get(b, b) for b in degraded["b"]])
    return CoverageView(pack=pack, matrix=matrix, gaps=gaps, canonical=canonical, one_way=one_way,
                        both_ways=both, no_critique=[names.get(s, s) for s in gaps["no_critique"]],
                        degraded=degraded, names=names)


HEAT_CLASSES = ((N_("no critique either way"), "#eef1f5"), (N_("missing direction (the reverse exists)"), "#f28b82"),
                (N_("one-way (the reverse is missing)"), "#fbbc04"), (N_("covered both ways"), "#4285f4"))


def coverage_heatmap(matrix, gaps: dict, names: dict[str, str]):
    """Masters × masters: critiques from row A aimed at column B; one-way and missing marked.

    Colour is the cell's class (none / missing direction / one-way / both ways); the text is
    the number of critiques, ``n→`` for a one-way entry, ``✗`` for the missing direction of
    a one-way pair and ``✗✗`` for a canonical pair with no critique at all.
    """
    import plotly.graph_objects as go

    slugs = list(matrix.index)
    canon = {(c["a"], c["b"]) for c in gaps["canonical"]} | {(c["b"], c["a"]) for c in gaps["canonical"]}
    z, text, hover = [], [], []
    for a in slugs:
        zr, tr, hr = [], [], []
        for b in slugs:
            n, back = int(matrix.loc[a, b]), int(matrix.loc[b, a])
            na, nb = plot_text(names.get(a, a)), plot_text(names.get(b, b))  # a pack's names: escaped for plotly
            if a == b:
                zr.append(None)
                tr.append("")
                hr.append(na)
                continue
            if n and back:
                cls, mark = 3, str(n)
            elif n:
                cls, mark = 2, f"{n}→"
            elif back:
                cls, mark = 1, "✗"
            elif (a, b) in canon:
                cls, mark = 1, "✗✗"
            else:
                cls, mark = 0, ""
            what = _(HEAT_CLASSES[cls][0]) if mark != "✗✗" else _("canonical pair with no critique either way")
            zr.append(cls + 0.5)
            tr.append(mark)
            hr.append(f"{na} → {nb}: " + _("{n} critique(s)").format(n=n) + f" — {what}")
        z.append(zr)
        text.append(tr)
        hover.append(hr)
    scale = []
    for i, (_label, colour) in enumerate(HEAT_CLASSES):
        scale += [[i / 4, colour], [(i + 1) / 4, colour]]
    labels = [plot_text(f"{names.get(s, s)} ({s})") for s in slugs]
    fig = go.Figure(go.Heatmap(
        z=z, x=labels, y=labels, text=text, texttemplate="%{text}", hovertext=hover, hoverinfo="text",
        colorscale=scale, zmin=0, zmax=4, xgap=2, ygap=2,
        colorbar=dict(tickvals=[0.5, 1.5, 2.5, 3.5], ticktext=[_(c[0]) for c in HEAT_CLASSES], len=0.6)))
    fig.update_layout(title=_("Critiques from row A aimed at column B   (n→ one-way · ✗ missing direction · "
                              "✗✗ canonical pair with none)"),
                      height=680, margin=dict(l=10, r=10, t=50, b=10), plot_bgcolor="white",
                      xaxis=dict(title=_("target (B)"), tickangle=-45), yaxis=dict(title=_("critic (A)"),
                                                                                  autorange="reversed"))
    return fig
