# Two commands for a brand-new machine (Python 3.11, registries reachable):
#   make demo   set up and augment the BANKING77 10-shot split, printing before/after
#   make test   set up and run the whole test suite (what CI runs)
#   make docs   serve the documentation site on http://127.0.0.1:8000
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
NLTK_DATA := $(CURDIR)/.cache/nltk_data
PACKAGES := -e . -e plugins/augkit-backtranslation -e plugins/augkit-faq -e plugins/augkit-paramac -e plugins/augkit-pointer -e plugins/augkit-contextual -e plugins/augkit-erap -e plugins/augkit-llm -e 'plugins/augkit-nlpaug[vectors]'
PROJECT_FILES := .ci/constraints.txt pyproject.toml \
	plugins/augkit-backtranslation/pyproject.toml plugins/augkit-faq/pyproject.toml plugins/augkit-paramac/pyproject.toml plugins/augkit-pointer/pyproject.toml plugins/augkit-contextual/pyproject.toml plugins/augkit-erap/pyproject.toml plugins/augkit-llm/pyproject.toml \
	plugins/augkit-nlpaug/pyproject.toml

.PHONY: wheels demo test docs screenshots bench fewshot setup setup-test wordnet-for-nltk chromium-for-tests clean

demo: $(VENV)/.runtime
	$(BIN)/python examples/banking77_demo.py

# The suite runs on every core (pytest-xdist, one worker per core); TEST_WORKERS=0 runs it
# in this one process (for --pdb, or to read a failure's output in order). PYTEST_ARGS picks
# tests and options, e.g. make test PYTEST_ARGS="tests/jobs -x".
#
# The suite starts about 280 Python processes (workers, command lines, Ray actors, servers),
# each importing torch, transformers or Ray. Where the environment sets
# PYTHONDONTWRITEBYTECODE (container images often do, this machine's among them), none of them
# saves the bytecode it compiles, so each compiles those libraries from source again: the Ray
# tests took 196 s instead of 85 s. The suite runs with the variable unset, so that the first
# process to import a module saves its bytecode in .venv and in this tree (__pycache__,
# ignored by git) for the others.
TEST_WORKERS ?= $(shell env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc 2>/dev/null || echo auto)
test: $(VENV)/.test wordnet-for-nltk chromium-for-tests
	env -u PYTHONDONTWRITEBYTECODE NLTK_DATA=$(NLTK_DATA) $(BIN)/python -m pytest -n $(TEST_WORKERS) $(PYTEST_ARGS)

# The documentation site (mkdocs.yml), rebuilt as pages and docstrings change; the test suite
# builds it with --strict (tests/docs). NO_MKDOCS_2_WARNING silences mkdocs-material's banner
# about mkdocs 2.
docs: $(VENV)/.docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000

# The web UI's screenshots in docs/web-ui/, retaken by its real-browser test.
screenshots: $(VENV)/.test chromium-for-tests
	AUGKIT_UPDATE_SCREENSHOTS=1 $(BIN)/python -m pytest tests/web/test_web_general_browser.py

bench: $(VENV)/.bench wordnet-for-nltk
	NLTK_DATA=$(NLTK_DATA) $(BIN)/python benchmarks/eda_throughput.py $(BENCH_ARGS)

# Few-shot benchmark (docs/benchmarks/fewshot.md); FEWSHOT_ARGS picks the run, e.g.
#   make fewshot FEWSHOT_ARGS="--data ../shared/data/clinc150/jianguoz --out /tmp/clinc"
SHARED_DATA ?= $(or $(AUGKIT_SHARED_DATA),../shared/data)
FEWSHOT_ARGS ?= --data $(SHARED_DATA)/banking77/jianguoz --shots 10 5 --seeds 5 --n 4 --C 1 4 16 64 --out docs/benchmarks/fewshot/banking77-logreg
fewshot: $(VENV)/.bench wordnet-for-nltk
	NLTK_DATA=$(NLTK_DATA) $(BIN)/python -m benchmarks.fewshot $(FEWSHOT_ARGS)

# The wheels of augkit (EDA and AEDA built in) and of each plugin distribution, into dist/;
# setuptools builds in each project's folder, and its build/ folders go afterwards.
DISTRIBUTIONS := . $(patsubst %/pyproject.toml,%,$(wildcard plugins/*/pyproject.toml))
wheels: $(VENV)/.created
	$(BIN)/python -m pip wheel --no-deps --wheel-dir dist $(DISTRIBUTIONS)
	rm -rf $(addsuffix /build,$(DISTRIBUTIONS))

setup: $(VENV)/.runtime
setup-test: $(VENV)/.test

$(VENV)/.created:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip "setuptools>=70.1"
	touch $@

# augkit-eda and augkit-aeda were distributions of their own before 0.1.0 built them into
# augkit: a venv made before then would register eda and aeda twice.
$(VENV)/.runtime: $(VENV)/.created $(PROJECT_FILES)
	$(BIN)/python -m pip uninstall --yes --quiet augkit-eda augkit-aeda 2>/dev/null || true
	$(BIN)/python scripts/pip_install.py -c .ci/constraints.txt $(PACKAGES)
	touch $@

$(VENV)/.test: $(VENV)/.runtime
	$(BIN)/python scripts/pip_install.py -c .ci/constraints.txt -e ".[test]"
	touch $@

# The site's tools only: mkdocstrings reads the packages' source without importing them.
$(VENV)/.docs: $(VENV)/.created pyproject.toml .ci/constraints.txt
	$(BIN)/python scripts/pip_install.py -c .ci/constraints.txt -e ".[docs]"
	touch $@

$(VENV)/.bench: $(VENV)/.runtime
	$(BIN)/python scripts/pip_install.py -c .ci/constraints.txt -e ".[bench]"
	touch $@

# WordNet as NLTK reads it: for the lexicon-equivalence tests, the nlpaug benchmark and the
# augkit-nlpaug plugin (nlpaug reads WordNet through NLTK).
wordnet-for-nltk:
	scripts/nltk_wordnet.sh $(NLTK_DATA)

# Debian's Chromium: only for the web UI's real-browser test (Playwright drives it).
chromium-for-tests:
	scripts/chromium_for_tests.sh

clean:
	rm -rf $(VENV) .cache .pytest_cache .hypothesis
