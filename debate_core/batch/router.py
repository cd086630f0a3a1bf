"""A batch's shared model routing: one ``litellm.Router`` over the spec's deployments
(rpm / tpm per deployment, fallbacks, routing strategy), and quieting litellm's
event-loop noise when debates call models from many threads at once."""

from __future__ import annotations

import logging
import os
from typing import Any

from debate_core.batch.spec import BatchSpec, SpecError


def router_models(spec: BatchSpec) -> set[str]:
    """Every model name the batch calls (debaters and judges), offline excluded."""
    names: set[str] = set()
    for m in spec.models:
        names.update([m] if isinstance(m, str) else m)
    names.update(spec.judge_models)
    names.discard("offline")
    return names


def build_router(spec: BatchSpec):
    """A ``litellm.Router`` over the spec's deployments, or None when it lists none.

    Models the batch uses that no deployment names are added as plain pass-through
    deployments (with the spec's ``api_base``), so every call shares one router.
    """
    if not spec.deployments:
        return None
    from debate_core.engines.gateway import litellm, provider_of

    litellm()  # offline-safe import settings first
    from litellm import Router

    model_list = [d.model_dump(mode="json") for d in spec.deployments]
    groups = {d.model_name for d in spec.deployments}
    for name in sorted(router_models(spec) - groups):
        params: dict[str, Any] = {"model": name}
        if spec.api_base:
            params["api_base"] = spec.api_base
            if provider_of(name) in ("openai", "hosted_vllm", "") and not os.environ.get("OPENAI_API_KEY"):
                params["api_key"] = "not-needed"
        model_list.append({"model_name": name, "litellm_params": params})
    for d in model_list:
        lp = d["litellm_params"]
        if lp.get("api_base") and provider_of(lp["model"]) in ("openai", "hosted_vllm") and "api_key" not in lp \
                and not os.environ.get("OPENAI_API_KEY"):
            lp["api_key"] = "not-needed"
    limited = any(d["litellm_params"].get("rpm") or d["litellm_params"].get("tpm") or d.get("rpm") or d.get("tpm")
                  for d in model_list)
    kwargs: dict[str, Any] = {"num_retries": 0}
    if limited:
        kwargs.update(routing_strategy="usage-based-routing-v2", enable_pre_call_checks=True)
    if spec.fallbacks:
        kwargs["fallbacks"] = spec.fallbacks
    kwargs.update(spec.router)

    async def make():
        # Built inside a short-lived event loop: a usage-based strategy schedules a background
        # (redis) sync task on the current loop, and asyncio.run cancels it cleanly at the end
        # instead of leaving a never-awaited coroutine behind.
        return Router(model_list=model_list, **kwargs)

    import asyncio
    from concurrent.futures import ThreadPoolExecutor as _Pool

    try:
        with _Pool(max_workers=1) as pool:
            return pool.submit(asyncio.run, make()).result()
    except Exception as exc:  # noqa: BLE001 - a bad router config is a spec error, said in one line
        raise SpecError(f"batch spec: deployments/router: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}") \
            from None


class _LoopNoise(logging.Filter):
    """Drops litellm's logging-worker complaints (``asyncio`` and ``LiteLLM`` loggers).

    litellm keeps one global logging worker bound to one event loop; debates running
    concurrently (each thread with its own loop) make it log errors about queues "bound
    to a different event loop".  They concern litellm's own (unused) success callbacks,
    not the debate, so a batch filters exactly those records.
    """

    NEEDLES = ("LoggingWorker", "bound to a different event loop", "cannot reuse already awaited coroutine",
               "periodic_sync_in_memory_spend")

    def filter(self, record: logging.LogRecord) -> bool:
        blob = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            blob += repr(exc) + repr(exc.__context__)
        return not any(n in blob for n in self.NEEDLES)


def quiet_litellm_loop_noise() -> None:
    """Filter litellm's event-loop complaints out of the ``asyncio`` and ``LiteLLM`` logs."""
    import warnings

    for name in ("asyncio", "LiteLLM"):
        log = logging.getLogger(name)
        if not any(isinstance(f, _LoopNoise) for f in log.filters):
            log.addFilter(_LoopNoise())
    # the usage-based router leaves a background sync task in whichever loop first used it
    warnings.filterwarnings("ignore", message=r"coroutine 'BaseRoutingStrategy\.periodic_sync", category=RuntimeWarning)
