"""The grid: a spec expanded into cells, each cell's config, and what a run does per cell.

Every cell has a deterministic *cell key* (a hash of what defines it).  A debate run for
a cell carries ``config.batch_id = "<batch id>#<cell key>"``, so a rerun of the same spec
finds the cells already archived: it skips the completed ones, resumes the failed,
stopped or interrupted ones (see :func:`plan_action`) and runs the rest.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any

from debate_core.batch.spec import BatchSpec, SpecError, TopicItem, digest
from debate_core.models import DebateConfig
from debate_core.protocols import registry
from debate_core.protocols.base import ASK_MASTERS, ASK_PACK, ASK_STANCES, ASK_WORKSPACE, ProtocolSpec
from debate_core.runs import RESUMABLE

CELL_SEP = "#"


@dataclass(frozen=True)
class Cell:
    """One grid cell: everything that defines one debate of the batch."""

    key: str
    protocol: str
    topic: str
    masters: tuple[str, ...] = ()
    stances: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    judge_model: str | None = None
    repeat: int = 0
    swap: int = 0
    rounds: int | None = None

    def describe(self) -> str:
        who = " vs ".join(self.masters) if self.masters else " / ".join(self.models)
        extra = f" r{self.repeat}" if self.repeat else ""
        extra += f" swap{self.swap}" if self.swap else ""
        return f"{self.topic[:24]} · {who}{extra}"

    def as_row(self) -> dict[str, Any]:
        return {
            "cell": self.key,
            "protocol": self.protocol,
            "topic": self.topic,
            "masters": list(self.masters),
            "stances": list(self.stances),
            "models": list(self.models),
            "judge_model": self.judge_model,
            "repeat": self.repeat,
            "swap": self.swap,
            "rounds": self.rounds,
        }


def cell_key(
    protocol: str,
    topic: str,
    *,
    masters=(),
    stances=(),
    models=(),
    judge=None,
    repeat=0,
    swap=0,
    rounds=None,
    pack=None,
    extra: dict | None = None,
) -> str:
    return digest(
        {
            "p": protocol,
            "t": topic,
            "m": list(masters),
            "s": list(stances),
            "models": list(models),
            "j": judge,
            "rep": repeat,
            "sw": swap,
            "r": rounds,
            "pack": pack,
            **(extra or {}),
        },
        12,
    )


def _many_models(proto: ProtocolSpec) -> bool:
    """Whether a debate of ``proto`` takes a list of models (one per debater) rather than one."""
    return any(r.field == "model" and r.many for r in proto.roles)


def _split_pair(item: str | list[str]) -> list[str]:
    if isinstance(item, str):
        parts = re.split(r"\s*(?:,|\bvs\b|\|)\s*", item.strip())
        return [p for p in parts if p]
    return [str(x).strip() for x in item if str(x).strip()]


def _topic_items(spec: BatchSpec) -> list[TopicItem]:
    out = []
    for t in spec.topics:
        item = TopicItem(topic=t) if isinstance(t, str) else t
        if not item.topic.strip():
            raise SpecError("batch spec: topics: an empty topic")
        out.append(item.model_copy(update={"topic": item.topic.strip()}))
    return out


def _lineups(spec: BatchSpec) -> list[tuple[str, ...]]:
    from debate_core.settings import resolve_model

    models = spec.models
    if not models:
        m = resolve_model(None)
        models = [m or "offline"]
    if spec.tournament:
        return [tuple(c) for c in itertools.combinations([str(m) for m in models], 2)]
    return [(m,) if isinstance(m, str) else tuple(m) for m in models]


def _rotations(lineup: tuple[str, ...]) -> list[tuple[str, ...]]:
    seen: list[tuple[str, ...]] = []
    for k in range(len(lineup)):
        r = lineup[k:] + lineup[:k]
        if r not in seen:
            seen.append(r)
    return seen


def _pairs(spec: BatchSpec, item: TopicItem, pack) -> list[tuple[str, str]]:
    """The pairs of masters for one topic: explicit, ``auto``, ``canonical`` or ``all``."""
    from debate_core.content.pairing import PairError, choose_pair

    pairs_spec = item.pairs if item.pairs is not None else spec.pairs
    if pairs_spec in (None, "auto", [], "") or pairs_spec == ["auto"]:
        requested: list[list[str] | None] = [None]
    elif pairs_spec == "canonical":
        from debate_core.content.coverage import canonical_pairs

        requested = [[c["a"], c["b"]] for c in canonical_pairs() if c["a"] in pack.masters and c["b"] in pack.masters]
    elif pairs_spec == "all":
        requested = [list(c) for c in itertools.combinations(sorted(pack.masters), 2)]
    elif isinstance(pairs_spec, str):
        requested = [_split_pair(pairs_spec)]
    else:
        requested = [_split_pair(p) for p in pairs_spec]
    pairs: list[tuple[str, str]] = []
    for req in requested:
        if req in (["auto"], []):
            req = None
        try:
            choice = choose_pair(item.topic, pack, req)
        except PairError as exc:
            raise SpecError(f"batch spec: pairs: {exc}") from None
        pair = (choice.a, choice.b)
        if pair not in pairs:
            pairs.append(pair)
    return pairs


def _master_cells(spec: BatchSpec, proto: ProtocolSpec, items: list[TopicItem]) -> list[Cell]:
    """Cells of a protocol whose debates are pairs of masters of a pack: topics × pairs × models × repeats."""
    from debate_core.content.packs import get_pack
    from debate_core.settings import resolve_model

    pack = get_pack(spec.pack)
    models = [m if isinstance(m, str) else None for m in (spec.models or [resolve_model(None) or "offline"])]
    if any(m is None for m in models):
        raise SpecError(f"batch spec: models: a {proto.name} debate uses one model per debate; list model strings")
    model_names = [m for m in models if m is not None]  # all of them: a None was refused above
    cells = []
    for item in items:
        for a, b in _pairs(spec, item, pack):
            orders = [(a, b), (b, a)] if spec.swap else [(a, b)]
            for model in model_names:
                for rep in range(spec.repeats):
                    for sw, order in enumerate(orders):
                        key = cell_key(
                            proto.name,
                            item.topic,
                            masters=order,
                            models=(model,),
                            repeat=rep,
                            swap=sw,
                            rounds=spec.rounds,
                            pack=spec.pack,
                        )
                        cells.append(
                            Cell(
                                key=key,
                                protocol=proto.name,
                                topic=item.topic,
                                masters=order,
                                models=(model,),
                                repeat=rep,
                                swap=sw,
                                rounds=spec.rounds,
                            )
                        )
    return cells


def _stance_sets(spec: BatchSpec, proto: ProtocolSpec, item: TopicItem) -> list[list[str]]:
    """The stance sets of one topic; ``[[]]`` lets the model split the topic (or the protocol has none)."""
    if not proto.asks_for(ASK_STANCES):
        return [[]]
    if item.stances:
        return [item.stances]
    if isinstance(spec.stances, dict):
        return [spec.stances[item.topic]] if item.topic in spec.stances else [[]]
    return [list(s) for s in spec.stances] if spec.stances else [[]]


def _lineup_cells(spec: BatchSpec, proto: ProtocolSpec, items: list[TopicItem]) -> list[Cell]:
    """Cells of a protocol debated by model lineups: topics × stances × lineups × repeats (× rotations)."""
    judge = spec.judge_models[0] if spec.judge_models else None
    extra: dict[str, Any] = {}
    if proto.asks_for(ASK_WORKSPACE):
        extra["ws"] = spec.workspace
    if proto.cuts_speeches:
        extra["len"] = spec.max_speech_length
    lineups = _lineups(spec)
    cells = []
    for item in items:
        for stances in _stance_sets(spec, proto, item):
            for lineup in lineups:
                variants = _rotations(lineup) if spec.swap else [lineup]
                for rep in range(spec.repeats):
                    for sw, models in enumerate(variants):
                        key = cell_key(
                            proto.name,
                            item.topic,
                            stances=stances,
                            models=models,
                            judge=judge,
                            repeat=rep,
                            swap=sw,
                            rounds=spec.rounds,
                            extra=extra or None,
                        )
                        cells.append(
                            Cell(
                                key=key,
                                protocol=proto.name,
                                topic=item.topic,
                                stances=tuple(stances),
                                models=models,
                                judge_model=judge,
                                repeat=rep,
                                swap=sw,
                                rounds=spec.rounds,
                            )
                        )
    return cells


def expand(spec: BatchSpec) -> list[Cell]:
    """Every cell of the grid, in a stable order, without duplicates."""
    proto = registry.get(spec.protocol)
    items = _topic_items(spec)
    if proto.asks_for(ASK_MASTERS):
        cells = _master_cells(spec, proto, items)
    else:
        cells = _lineup_cells(spec, proto, items)
    seen: set[str] = set()
    unique = []
    for c in cells:
        if c.key not in seen:
            seen.add(c.key)
            unique.append(c)
    return unique


def config_for(spec: BatchSpec, cell: Cell) -> DebateConfig:
    """The :class:`DebateConfig` of one cell, tagged ``<batch id>#<cell key>``."""
    proto = registry.get(cell.protocol)
    fields: dict[str, Any] = dict(
        protocol=cell.protocol,
        topic=cell.topic,
        rounds=cell.rounds,
        api_base=spec.api_base,
        temperature=spec.temperature,
        timeout=spec.timeout,
        max_retries=spec.max_retries,
        check_retries=spec.check_retries,
        batch_id=f"{spec.batch_id}{CELL_SEP}{cell.key}",
        masters=list(cell.masters),
        stances=list(cell.stances),
        judge_model=cell.judge_model,
        lang=spec.lang,
    )
    if _many_models(proto):
        fields["models"] = list(cell.models)
    else:
        model = cell.models[0] if cell.models else None
        fields["model"] = None if model == "offline" and proto.offline else model
    if proto.asks_for(ASK_PACK):
        fields["pack"] = spec.pack
    if proto.asks_for(ASK_WORKSPACE):
        fields["workspace"] = spec.workspace
    if proto.cuts_speeches:
        fields["max_speech_length"] = spec.max_speech_length
    return DebateConfig(**fields)


def split_tag(tag: str | None) -> tuple[str | None, str | None]:
    """``"<batch>#<cell>"`` → (batch, cell); a plain batch id → (batch, None)."""
    if not tag:
        return None, None
    batch, sep, cell = tag.partition(CELL_SEP)
    return batch, (cell if sep else None)


# ------------------------------------------------------------- what is archived


@dataclass
class Existing:
    debate_id: str
    status: str
    created_at: Any = None


def existing_cells(archive, batch_id: str) -> dict[str, list[Existing]]:
    """Debates already archived for ``batch_id``, by cell key, newest first."""
    df = archive.batch_tags(batch_id, CELL_SEP)
    out: dict[str, list[Existing]] = {}
    for row in df.itertuples(index=False):
        b, cell = split_tag(row.tag)
        if b != batch_id or not cell:
            continue
        out.setdefault(cell, []).append(Existing(row.id, row.status, row.created_at))
    return out


def plan_action(prior: list[Existing], *, resume: bool = True) -> tuple[str, str | None]:
    """What a run does with a cell archived as ``prior`` (newest first): ``(action, debate id)``.

    ``skip`` a completed cell, leave a ``busy`` one (running elsewhere), ``resume`` one whose
    debate failed, stopped or was interrupted (when ``resume``), else ``run`` a new debate.
    """
    done = next((p for p in prior if p.status == "completed"), None)
    if done is not None:
        return "skip", done.debate_id
    running = next((p for p in prior if p.status == "running"), None)
    if running is not None:
        return "busy", running.debate_id
    again = next((p for p in prior if p.status in RESUMABLE), None)
    if again is not None and resume:
        return "resume", again.debate_id
    return "run", None


def batch_debates(archive, batch_id: str) -> Any:
    """The archived debates of one batch with their cell keys (a DataFrame)."""
    df = archive.batch_rows(batch_id)
    df["cell"] = [split_tag(t)[1] for t in df["tag"]]
    return df.drop(columns=["tag"])
