#!/usr/bin/env bash
# ruff (format check and lint) and mypy on debate_core, with the settings in pyproject.toml.  Run by `make test`.
set -euo pipefail
cd "${BASH_SOURCE%/*}/.."
PY=${PY:-.venv/bin/python}
echo "== ruff format --check debate_core"
"$PY" -m ruff format --check debate_core
echo "== ruff check debate_core"
"$PY" -m ruff check debate_core
echo "== mypy debate_core"
"$PY" -m mypy
