"""Shared fixtures: packs, the reference material, a scripted model server."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
REFERENCE_PACK = SHARED / "reference" / "master-skill" / "prebuilt"
TOPIC_SAMPLE = SHARED / "reference" / "topic-debate-sample"
DEFAULT_PACK = REPO / "data" / "packs" / "default"

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# A debate test must never pick up a developer's model or archive by accident.
for var in ("DEBATE_MODEL", "DEBATE_API_BASE", "DEBATE_ARCHIVE"):
    os.environ.pop(var, None)

# Trial workspaces must sit under a configured root (docs/security.md): tests use temporary folders
# and the repository itself (tests/fixtures, the repo as a workspace).
import tempfile as _tempfile  # noqa: E402

os.environ.setdefault("DEBATE_WORKSPACE_ROOTS", os.pathsep.join([_tempfile.gettempdir(), str(REPO), str(REPO.parent)]))


def need_reference() -> Path:
    if not REFERENCE_PACK.is_dir():
        pytest.skip("reference pack ../shared/reference/master-skill/prebuilt is absent in this checkout")
    return REFERENCE_PACK


@pytest.fixture(scope="session")
def reference_pack():
    from debate_core.content.packs import load_pack

    return load_pack(need_reference())


@pytest.fixture(scope="session")
def default_pack():
    from debate_core.content.packs import load_pack

    return load_pack(DEFAULT_PACK)


@pytest.fixture(params=["default", "reference"])
def any_pack(request):
    if request.param == "default":
        return request.getfixturevalue("default_pack")
    need_reference()
    return request.getfixturevalue("reference_pack")


@pytest.fixture
def scripted():
    """Start a ScriptedServer; the test sets ``server.script``."""
    from debate_core.engines.scripted_server import ScriptedServer

    with ScriptedServer() as server:
        yield server


def run_cli(*args: str, env: dict | None = None, timeout: float = 120):
    import subprocess

    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "debate_core", *args], cwd=REPO, env=e, capture_output=True,
                          text=True, timeout=timeout)


CONFIG_VARS = ("DEBATE_MODEL", "DEBATE_API_BASE", "DEBATE_ARCHIVE")


@pytest.fixture(autouse=True)
def _no_leaked_configuration():
    """Each test starts and ends with no model, API base or archive configured, even when
    code under test (the app's secrets, a CLI) wrote os.environ directly."""
    for var in CONFIG_VARS:
        os.environ.pop(var, None)
    yield
    for var in CONFIG_VARS:
        os.environ.pop(var, None)
