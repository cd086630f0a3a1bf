.PHONY: run test test-ray bench

# The app on the embedded offline engine (no key, no network needed).
run:
	python -m pip install -q --disable-pip-version-check -r requirements.txt
	python -m streamlit run app.py --server.headless true

# Every test (installs what the tests need first).
test:
	bash scripts/test.sh

# Only the Ray tier and the shared-rate-limit tests (installs requirements-ray.txt and redis-server first).
test-ray:
	DEBATE_SKIP_LOCAL=1 bash scripts/test.sh tests/test_ray.py tests/test_rate_limits.py

bench:
	for f in bench/*.py; do python $$f || exit 1; done
