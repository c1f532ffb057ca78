# Word Vectors, Hands-On
#   make course   set everything up, run every notebook, write build/index.html (PROFILE=smoke for the fast one;
#                 EDITION=zh for the Chinese notebooks, into build/zh/; two notebooks at a time, JOBS=1 for one)
#   make test     set everything up and run all checks: ruff, pytest, nbval on the notebooks (smoke profile)
#   make setup    only the virtual environment (.venv/)
#   make lab      JupyterLab on the notebooks

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PROFILE ?= full
EDITION ?= en
JOBS ?= 2
# Notebook kernels must start from the same environment as the tools that run them.
export PATH := $(CURDIR)/$(BIN):$(PATH)

.PHONY: setup test course lab clean

setup: $(VENV)/.installed

$(VENV)/.installed: requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (found " + sys.version.split()[0] + "); set PYTHON=python3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@# --keep-id: the Chinese notebooks are kept in step with the English ones cell by cell, by id
	@if git rev-parse --git-dir >/dev/null 2>&1; then $(BIN)/nbstripout --install && \
		git config filter.nbstripout.clean '"$(CURDIR)/$(BIN)/python" -m nbstripout --keep-id'; fi
	@touch $@

test: setup
	$(BIN)/ruff check .
	COURSE_PROFILE=smoke $(BIN)/python -m pytest tests -n auto --dist loadfile --durations=15 --nbval-lax --nbval-current-env notebooks --ignore=notebooks/zh

course: setup
	$(BIN)/python -m course build --profile $(PROFILE) --edition $(EDITION) --jobs $(JOBS)

lab: setup
	$(BIN)/jupyter lab notebooks $(if $(filter 0,$(shell id -u)),--allow-root)

clean:
	rm -rf build
