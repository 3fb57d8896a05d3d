# Thin wrapper over CMake + Ninja. Daily commands: make, make test, make demo.
BUILD_DIR ?= build
STORE ?= $(BUILD_DIR)/demo-store
PYTHON ?= python3
QUESTION ?= what is attention?

.PHONY: all setup setup-demo configure build test unit e2e demo bench clean

all: build

setup:
	bash scripts/setup.sh

# What the demo needs only (the build's packages and the embedding model), so a newcomer's
# `make demo` does not wait for the test tools, the local LLM server or Neo4j.
setup-demo:
	bash scripts/setup.sh demo

configure:
	@if [ ! -f $(BUILD_DIR)/build.ninja ]; then cmake -S . -B $(BUILD_DIR) -G Ninja; fi

build: configure
	cmake --build $(BUILD_DIR)

unit: build
	cd $(BUILD_DIR) && ctest --output-on-failure

e2e: build
	MMKG_BIN=$(abspath $(BUILD_DIR))/mmkg $(PYTHON) -m pytest -q tests/e2e

# Re-configure: a build dir first configured by `make demo` (no GoogleTest then) finds it now.
test: setup
	cmake -S . -B $(BUILD_DIR) -G Ninja
	$(MAKE) build
	$(MAKE) unit
	$(MAKE) e2e

demo: setup-demo build
	rm -rf $(STORE)
	$(BUILD_DIR)/mmkg ingest examples/corpus --store $(STORE)
	$(BUILD_DIR)/mmkg ask "$(QUESTION)" --store $(STORE) -v

bench: setup build
	bash bench/run.sh

clean:
	rm -rf $(BUILD_DIR)
