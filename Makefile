# The two commands of the quick start: `make demo` and `make test`.
# Each one creates .venv on first use and installs what it needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The Pi's pinned set (Raspberry Pi OS Bookworm: Python 3.11, apt's numpy 1.24), which
# `make test` also tests, in a second venv.
PI_PYTHON ?= python3.11
PI_VENV := .venv-pi
PI_CONSTRAINTS := constraints/pi-bookworm.txt
# torch comes from PyTorch's CPU-only index: PyPI's Linux torch pulls in the CUDA build and
# its nvidia-* wheels (gigabytes) for one training test that runs on the CPU.
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
# The torch requirement of the `train` extra, as pyproject.toml gives it.
TORCH = $$($(BIN)/python -c 'import tomllib; print(next(r for r in tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["train"] if r.startswith("torch")))')

.PHONY: demo test test-pi

# -qq: errors only (setuptools notes that every editable install of a flat layout is one).
$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -qq --upgrade pip
	$(BIN)/pip install -qq -e .
	touch $@

# The tests also need the `train` extra (torch, CPU build; onnx) for the training smoke test:
# torch alone from the CPU index (--no-deps: its few pure-Python dependencies come from the
# usual index with the rest), then the extras, which the installed CPU torch satisfies.
# Where the CPU index cannot be reached, everything but the `train` extra is installed (the
# training test then skips, saying so) and the next `make test` tries torch again.
$(BIN)/.installed-test: $(BIN)/.installed
	if $(BIN)/pip install -qq --retries 1 --no-deps --index-url $(TORCH_INDEX) "$(TORCH)"; then \
	    $(BIN)/pip install -qq -e '.[test,browser,train]' && touch $@; \
	else \
	    echo "torch's CPU build is not reachable at $(TORCH_INDEX): the training test will skip" >&2; \
	    $(BIN)/pip install -qq -e '.[test,browser]'; \
	fi

# The Pi's set: the project and the test tools, every version from the constraints file.
$(PI_VENV)/bin/.installed: pyproject.toml $(PI_CONSTRAINTS)
	$(PI_PYTHON) -m venv $(PI_VENV)
	$(PI_VENV)/bin/pip install -qq -c $(PI_CONSTRAINTS) -e '.[test]'
	touch $@

demo: $(BIN)/.installed
	$(BIN)/dicetable demo

# The runtime tests (all but the browser tests; the training test skips without torch)
# against the Pi's pinned set. A machine without Python 3.11 skips them, saying so; CI fails.
test-pi:
	@if command -v $(PI_PYTHON) >/dev/null 2>&1; then \
	    $(MAKE) --no-print-directory $(PI_VENV)/bin/.installed && \
	    DICETABLE_PI_SET=$(PI_CONSTRAINTS) $(PI_VENV)/bin/pytest -q -m 'not browser'; \
	elif [ -n "$${CI:-}" ]; then \
	    echo "$(PI_PYTHON) is missing: CI must test the Pi's pinned set ($(PI_CONSTRAINTS))" >&2; exit 1; \
	else \
	    echo "$(PI_PYTHON) is missing: the Pi's pinned set ($(PI_CONSTRAINTS)) was not tested" >&2; \
	fi

test: $(BIN)/.installed-test
	./.ci/browser
	$(BIN)/pytest -q
	$(MAKE) --no-print-directory test-pi
