# The two commands of the quick start: `make demo` and `make test`.
# Each one creates .venv on first use and installs what it needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test

# -qq: errors only (setuptools notes that every editable install of a flat layout is one).
$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -qq --upgrade pip
	$(BIN)/pip install -qq -e .
	touch $@

# The tests also need the `train` extra (torch, CPU build; onnx) for the training smoke test.
$(BIN)/.installed-test: $(BIN)/.installed
	$(BIN)/pip install -qq -e '.[test,train]'
	touch $@

demo: $(BIN)/.installed
	$(BIN)/dicetable demo

test: $(BIN)/.installed-test
	./.ci/browser
	$(BIN)/pytest -q
