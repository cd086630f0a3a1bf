"""Batch runs: a grid of debates under a concurrency limit, into the archive, resumable.

A *spec* (YAML or JSON; see docs/batch.md) names a protocol and the axes of a grid:

* protocols debated by two masters of a pack (master debates): ``topics`` × ``pairs``
  (explicit, ``auto``, ``canonical`` or ``all``) × ``models`` × ``repeats`` (× 2 with
  ``swap``: who opens);
* protocols debated by model lineups (topic debates, trials): ``topics`` × ``stances``
  (when the protocol asks for them: given, or split by the model) × lineups × ``repeats``
  (× rotations with ``swap``).

The package, by concern:

* :mod:`~debate_core.batch.spec` — the spec: parsing, validation, :class:`SpecError`;
* :mod:`~debate_core.batch.grid` — cells and their keys, each cell's config, run / resume / skip;
* :mod:`~debate_core.batch.router` — one shared ``litellm.Router`` over the spec's deployments;
* :mod:`~debate_core.batch.runner` — running the cells in threads (:class:`BatchRunner`, :func:`run_batch`);
* :mod:`~debate_core.batch.workers` — a wide batch's worker processes, whose writes the runner's process commits;
* :mod:`~debate_core.batch.progress` — cell results, the progress bar and the summary report;
* :mod:`~debate_core.batch.simulated` — a simulated model for the judged protocols (demos, tests).

What a protocol takes (pairs or stances, a pack, a workspace, its round limits, whether it
runs offline or ends in a verdict) comes from its :class:`~debate_core.protocols.base.ProtocolSpec`.
litellm is imported only when a model is actually used.
"""

from debate_core.batch.grid import (
    Cell,
    batch_debates,
    cell_key,
    config_for,
    existing_cells,
    expand,
    plan_action,
    split_tag,
)
from debate_core.batch.progress import BatchResult, CellResult
from debate_core.batch.router import build_router
from debate_core.batch.runner import BatchRunner, run_batch
from debate_core.batch.simulated import simulated_model
from debate_core.batch.spec import BatchSpec, Deployment, SpecError, load_spec, parse_spec

__all__ = [
    "BatchSpec",
    "BatchRunner",
    "BatchResult",
    "Cell",
    "CellResult",
    "SpecError",
    "Deployment",
    "batch_debates",
    "build_router",
    "cell_key",
    "config_for",
    "existing_cells",
    "expand",
    "load_spec",
    "parse_spec",
    "plan_action",
    "run_batch",
    "simulated_model",
    "split_tag",
]
