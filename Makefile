# Thin wrapper over CMake + Ninja. Daily commands: make, make test, make demo.
BUILD_DIR ?= build
STORE ?= $(BUILD_DIR)/demo-store
PYTHON ?= python3
QUESTION ?= what is attention?

.PHONY: all setup configure build test unit e2e demo bench clean

all: build

setup:
	bash scripts/setup.sh

configure:
	@if [ ! -f $(BUILD_DIR)/build.ninja ]; then cmake -S . -B $(BUILD_DIR) -G Ninja; fi

build: configure
	cmake --build $(BUILD_DIR)

unit: build
	cd $(BUILD_DIR) && ctest --output-on-failure

e2e: build
	MMKG_BIN=$(abspath $(BUILD_DIR))/mmkg $(PYTHON) -m pytest -q tests/e2e

test: setup build
	$(MAKE) unit
	$(MAKE) e2e

demo: setup build
	rm -rf $(STORE)
	$(BUILD_DIR)/mmkg ingest examples/corpus --store $(STORE)
	$(BUILD_DIR)/mmkg ask "$(QUESTION)" --store $(STORE) -v

bench: setup build
	bash bench/run.sh

clean:
	rm -rf $(BUILD_DIR)
