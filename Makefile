# Every target runs in the project's own virtual environment, .venv, made from `python3` (3.11 or newer);
# nothing is installed into the system interpreter. The installer is uv (from PyPI, into .venv), ~20x faster
# than pip here (docs/setup.md); pip is the fallback when uv cannot be installed.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
VPY := $(VENV)/bin/python

.PHONY: run test test-ray bench venv dev lint

# The app on the embedded offline engine (no key, no network needed).
run: venv
	$(VPY) -m webapp.serve --server.headless true

# Every test: the dev environment, then scripts/test.sh (system packages as root, optional tiers, lint, pytest).
test: dev
	$(SHELL) scripts/test.sh

# Only the Ray tier and the shared-rate-limit tests (installs requirements-ray.txt and redis-server first).
test-ray: dev
	DEBATE_SKIP_LOCAL=1 $(SHELL) scripts/test.sh tests/test_ray.py tests/test_rate_limits.py

# ruff (format check, lint) and mypy on debate_core; `make test` runs them too (before pytest).
lint: dev
	$(SHELL) scripts/lint.sh

bench: dev
	for f in bench/*.py; do $(VPY) $$f || exit 1; done

# The environment `make run` uses: .venv with requirements.txt and this project (editable).
venv: $(VENV)/.run-deps

# The environment `make test` uses: the above plus requirements-dev.txt.
dev: $(VENV)/.dev-deps

$(VENV)/.made:
	@$(SHELL) scripts/venv.sh make "$(PYTHON)" "$(VENV)"

$(VENV)/.run-deps: $(VENV)/.made requirements.txt pyproject.toml
	@$(SHELL) scripts/venv.sh install "$(PYTHON)" "$(VENV)" -r requirements.txt -e .
	@: > $@

$(VENV)/.dev-deps: $(VENV)/.run-deps requirements-dev.txt
	@$(SHELL) scripts/venv.sh install "$(PYTHON)" "$(VENV)" -r requirements-dev.txt
	@: > $@
