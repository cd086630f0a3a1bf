.PHONY: run test bench

# The app on the embedded offline engine (no key, no network needed).
run:
	python -m pip install -q --disable-pip-version-check -r requirements.txt
	python -m streamlit run app.py --server.headless true

# Every test (installs what the tests need first).
test:
	bash scripts/test.sh

bench:
	for f in bench/*.py; do python $$f || exit 1; done
