"""The Coverage page: which masters of a persona pack have critiques (their ammo) aimed at which, and which
pairs the archive ran with the coverage warning; masters by their names.  Nothing here imports streamlit."""

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


STATUS = {"complete": N_("covered both ways"), "one-way": N_("one way only"), "missing": N_("no critique either way")}


def coverage_view(pack: Pack, archive: Any = None) -> CoverageView:
    """The pack's coverage by the masters' names (no slug: huineng-vs-yinguang reads 慧能大师 / 印光大师)."""
    import pandas as pd

    from debate_core.content.coverage import coverage_gaps, coverage_matrix

    matrix = coverage_matrix(pack)
    gaps = coverage_gaps(pack)
    names = {s: m.name for s, m in pack.masters.items()}

    def way(a: str, b: str) -> str:
        return f"{names.get(a, a)} → {names.get(b, b)}"

    def direction(entry: str) -> str:  # "a->b", as the coverage report writes it
        a, _sep, b = entry.partition("->")
        return way(a, b)

    canonical = pd.DataFrame([{
        N_("masters"): f"{names.get(c['a'], c['a'])} / {names.get(c['b'], c['b'])}", N_("topic"): c["label"],
        N_("status"): _(STATUS.get(c["status"], c["status"])), "A → B": c["a_to_b"], "B → A": c["b_to_a"],
        N_("lacking"): ", ".join(direction(x) for x in c["lacking"]), N_("in the pack"): _("yes") if c["in_pack"]
        else _("no")} for c in gaps["canonical"]],
        columns=[N_("masters"), N_("topic"), N_("status"), "A → B", "B → A", N_("lacking"), N_("in the pack")])
    one_way = pd.DataFrame([{"from → to": way(o["from"], o["to"]), "critiques": o["critiques"],
                             "missing": way(o["to"], o["from"])} for o in gaps["one_way"]],
                           columns=[N_("from → to"), N_("critiques"), N_("missing")])
    both = pd.DataFrame(gaps["both_ways"], columns=["pair", "a", "b", "a_to_b", "b_to_a"])
    degraded = pd.DataFrame(columns=[N_("masters"), N_("debates"), N_("completed"), "last_at"])
    if archive is not None:
        found = archive.degraded_pairs()
        if len(found):
            degraded = pd.DataFrame({"masters": [f"{names.get(a, a)} / {names.get(b, b)}"
                                                 for a, b in zip(found["a"], found["b"])],
                                     "debates": found["debates"], "completed": found["completed"],
                                     "last_at": found["last_at"]})
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
    shown = [names.get(s, s) for s in slugs]  # the masters by name; a slug only to tell two of one name apart
    labels = [plot_text(n if shown.count(n) == 1 else f"{n} ({s})") for n, s in zip(shown, slugs)]
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
