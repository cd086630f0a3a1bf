"""Shared fixtures: packs, the reference material, a scripted model server."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
# DEBATE_NO_REFERENCE=1 hides the upstream pack, as on a user's clone (docs/default-pack.md, "Tests without
# the upstream pack"): every test then sees a REFERENCE_PACK that does not exist.
REFERENCE_HIDDEN = os.environ.get("DEBATE_NO_REFERENCE", "").strip().lower() not in ("", "0", "false", "no")
REFERENCE_PACK = SHARED / "reference" / "master-skill" / ("prebuilt-hidden-by-DEBATE_NO_REFERENCE" if REFERENCE_HIDDEN
                                                          else "prebuilt")
TOPIC_SAMPLE = SHARED / "reference" / "topic-debate-sample"
# The project's own small pack in the Master-skill layout (the upstream pack's fifteen masters, a few short
# sections each, written in our own words): every test of the layout runs on it, with or without the upstream pack.
SKILL_FIXTURE = REPO / "tests" / "fixtures" / "master-skill-mini"
DEFAULT_PACK = REPO / "data" / "packs" / "default"

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# A debate test must never pick up a developer's model or archive by accident.
for var in ("DEBATE_MODEL", "DEBATE_API_BASE", "DEBATE_ARCHIVE"):
    os.environ.pop(var, None)

# Trial workspaces must sit under a configured root (docs/security.md): tests use temporary folders
# and the repository itself (tests/fixtures, the repo as a workspace).
import tempfile as _tempfile  # noqa: E402

os.environ.setdefault("DEBATE_WORKSPACE_ROOTS", os.pathsep.join([_tempfile.gettempdir(), str(REPO), str(REPO.parent)]))


def reference_present() -> bool:
    """The upstream Master-skill pack is here and not hidden by DEBATE_NO_REFERENCE."""
    return not REFERENCE_HIDDEN and REFERENCE_PACK.is_dir()


UPSTREAM_ONLY = ("asserts facts of the upstream pack's own content (counts, teachings); its fixture twin checks "
                 "the same property on tests/fixtures/master-skill-mini")


def need_reference(why: str = UPSTREAM_ONLY) -> Path:
    """The upstream pack's folder, or a skip naming why the test needs it."""
    if REFERENCE_HIDDEN:
        pytest.skip(f"upstream pack hidden by DEBATE_NO_REFERENCE: {why}")
    if not REFERENCE_PACK.is_dir():
        pytest.skip(f"upstream pack ../shared/reference/master-skill/prebuilt is absent: {why}")
    return REFERENCE_PACK


SAME_ON_FIXTURE = "this run is the upstream one; the same test runs on the fixture pack (the [fixture] case)"
# The Master-skill packs a layout test runs on: the fixture always, the upstream pack only where it is present
# (on a user's clone a [reference] case would be a skip that says nothing the fixture run does not).
SKILL_PACKS = (["reference"] if reference_present() else []) + ["fixture"]


def skill_pack_folders() -> dict[str, Path]:
    """The folders of the Master-skill packs present, by case id: ``reference`` where present, ``fixture`` always."""
    return {which: (REFERENCE_PACK if which == "reference" else SKILL_FIXTURE) for which in SKILL_PACKS}


FIDELITY = Path("master-debate") / "tests" / "fidelity.jsonl"


def fidelity_cases(pack_path: str | Path) -> list[dict]:
    """A Master-skill pack's own test cases (``master-debate/tests/fidelity.jsonl``): questions with the pair
    they must select (``must_select_pair``) and boundary cases with phrases no speech may hold
    (``must_not_contain``).  The upstream pack has its own; the fixture has cases written by the project."""
    import json

    path = Path(pack_path) / FIDELITY
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="session")
def reference_pack():
    from debate_core.content.packs import load_pack

    return load_pack(need_reference())


@pytest.fixture(scope="session")
def skill_fixture_pack():
    """tests/fixtures/master-skill-mini, loaded: present in every checkout."""
    from debate_core.content.packs import load_pack

    return load_pack(SKILL_FIXTURE)


@pytest.fixture(scope="session")
def default_pack():
    from debate_core.content.packs import load_pack

    return load_pack(DEFAULT_PACK)


@pytest.fixture(params=["default", *SKILL_PACKS])
def any_pack(request):
    if request.param == "default":
        return request.getfixturevalue("default_pack")
    if request.param == "fixture":
        return request.getfixturevalue("skill_fixture_pack")
    need_reference(SAME_ON_FIXTURE)
    return request.getfixturevalue("reference_pack")


@pytest.fixture(params=SKILL_PACKS)
def skill_pack(request):
    """A loaded pack in the Master-skill layout: the upstream one when present, and always the fixture."""
    if request.param == "fixture":
        return request.getfixturevalue("skill_fixture_pack")
    need_reference(SAME_ON_FIXTURE)
    return request.getfixturevalue("reference_pack")


@pytest.fixture(params=SKILL_PACKS)
def skill_pack_path(request) -> Path:
    """The folder of a pack in the Master-skill layout (for copies and the CLI), as :func:`skill_pack`."""
    if request.param == "fixture":
        return SKILL_FIXTURE
    return need_reference(SAME_ON_FIXTURE)


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
