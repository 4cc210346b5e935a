# Two commands on a fresh machine:  `make demo`  and  `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: setup demo test notebooks bench-locomo bench-experience clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# torch first, pinned: pip then takes the CPU build from local disk instead of a multi-GB CUDA one.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e ".[test]"
	touch $@

setup: $(VENV)/.installed

demo: setup
	$(BIN)/hindsight demo

test: setup
	$(BIN)/python -m pytest -q

# Execute the notebooks and save them with their (small, path-free) outputs.
notebooks: setup
	$(BIN)/python notebooks/_render.py

bench-locomo: setup
	$(BIN)/python -m benchmarks.locomo --conversations 0-9 --out benchmarks/results/locomo.json

clean:
	rm -rf $(VENV) .hindsight .hindsight-demo .pytest_cache
