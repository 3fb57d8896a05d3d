# Thin wrapper over CMake + Ninja. Daily commands: make, make test, make demo.
BUILD_DIR ?= build
STORE ?= $(BUILD_DIR)/demo-store
PYTHON ?= python3
QUESTION ?= what is attention?
PREFIX ?= /usr/local
# MMKG_WERROR=ON (set by .ci/run): the build fails on any compiler warning.
CMAKE_FLAGS = $(if $(MMKG_WERROR),-DMMKG_WERROR=$(MMKG_WERROR))

.PHONY: all setup setup-demo configure build build-demo ui install uninstall package test unit e2e browser tsan demo bench eval train clean

all: build

setup:
	bash scripts/setup.sh

# What the demo needs only (the build's packages and the embedding model), so a newcomer's
# `make demo` does not wait for the test tools, the local LLM server or Neo4j.
setup-demo:
	bash scripts/setup.sh demo

configure:
	@if [ ! -f $(BUILD_DIR)/build.ninja ]; then cmake -S . -B $(BUILD_DIR) -G Ninja $(CMAKE_FLAGS); fi

build: configure ui
	cmake --build $(BUILD_DIR)

# The demo builds the mmkg binary and the web UI only (no unit tests, no benchmarks).
build-demo: configure ui
	cmake --build $(BUILD_DIR) --target mmkg

# The web UI (ui/: TypeScript, Vite) built into $(BUILD_DIR)/ui, which `mmkg serve` serves.
ui:
	bash scripts/build_ui.sh $(BUILD_DIR)/ui

# The binary (stripped), the web UI, the embedding model and the docs under $(PREFIX) (DESTDIR
# honoured), built first; docs/INSTALL.md says where each goes. The list of installed files is
# kept in $(BUILD_DIR)/installed-files.txt for `make uninstall` (cmake's install_manifest.txt
# leaves DESTDIR out and is rewritten by every cmake --install and cpack run).
install: build-demo
	DESTDIR=$(DESTDIR) cmake --install $(BUILD_DIR) --prefix $(PREFIX) --strip
	sed 's|^|$(DESTDIR)|' $(BUILD_DIR)/install_manifest.txt > $(BUILD_DIR)/installed-files.txt

# Removes what the last `make install` put there, and the mmkg folders it leaves empty.
uninstall:
	@test -f $(BUILD_DIR)/installed-files.txt || { echo "uninstall: $(BUILD_DIR)/installed-files.txt is missing: nothing to remove (it lists what make install from this build dir installed; a .deb: apt remove mmkg)"; exit 1; }
	xargs -d '\n' rm -f < $(BUILD_DIR)/installed-files.txt
	for d in $$(sed -n 's|^\(.*/mmkg\)/.*|\1|p' $(BUILD_DIR)/installed-files.txt | sort -u); do \
	  if [ -d "$$d" ]; then find "$$d" -depth -type d -empty -delete; fi; done
	rm -f $(BUILD_DIR)/installed-files.txt

# The same as a Debian package: $(BUILD_DIR)/mmkg_<version>_<arch>.deb (cpack -G DEB, under /usr).
package: build-demo
	cd $(BUILD_DIR) && cpack -G DEB

# Tests run on every core (TEST_JOBS): ctest's processes side by side (the Neo4j tests one at a
# time, they share one database); pytest through pytest-xdist when it is installed (make setup),
# a test file per worker, so a module's servers and stores stay in one process.
TEST_JOBS ?= $(shell nproc)
XDIST = $(shell $(PYTHON) -c 'import xdist' >/dev/null 2>&1 && echo "-n $(TEST_JOBS) --dist loadfile")

unit: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(TEST_JOBS)

e2e: build
	MMKG_BIN=$(abspath $(BUILD_DIR))/mmkg $(PYTHON) -m pytest -q --durations=20 $(XDIST) tests/e2e

# The web UI in a real browser (Debian's chromium, driven by playwright-core); screenshots in
# $(BUILD_DIR)/test-artifacts/browser.
browser: build
	MMKG_BIN=$(abspath $(BUILD_DIR))/mmkg node tests/browser/ui_test.mjs $(BUILD_DIR)/test-artifacts/browser

# The three dev sets of ../shared/eval (fetched, ingested once per build, scored together):
# $(BUILD_DIR)/eval/eval-all.json and a table; see scripts/eval_all.sh for its variables.
eval: build
	BUILD_DIR=$(BUILD_DIR) bash scripts/eval_all.sh

# Refits models/ranker.json and models/answerable.json on the three dev sets
# (scripts/train_models.sh), then rebuilds (the ranker is built into the binary).
train: build
	BUILD_DIR=$(BUILD_DIR) bash scripts/train_models.sh
	$(MAKE) build

# The threaded unit suites under ThreadSanitizer, in build-tsan (not part of `make test`).
tsan: setup
	bash scripts/tsan.sh build-tsan

# scripts/run_tests.sh times each step: make setup; configure again (a build dir first configured
# by `make demo`, without GoogleTest, finds it now) and make build; then every suite, even when
# one fails. It names all failures at the end and exits non-zero when any suite failed.
test:
	BUILD_DIR=$(BUILD_DIR) PYTHON=$(PYTHON) CMAKE_FLAGS="$(CMAKE_FLAGS)" bash scripts/run_tests.sh setup build unit e2e browser

demo: setup-demo build-demo
	rm -rf $(STORE)
	$(BUILD_DIR)/mmkg ingest examples/corpus --store $(STORE)
	$(BUILD_DIR)/mmkg ask "$(QUESTION)" --store $(STORE) -v
	@echo
	@echo "Next: serve this store over HTTP (JSON API, OpenAI/Ollama chat, web UI):"
	@echo "  $(BUILD_DIR)/mmkg serve --store $(STORE)"
	@echo "then open http://127.0.0.1:8080/ in a browser (uploads and deletes need MMKG_API_KEY set)."

bench: setup build
	cmake --build $(BUILD_DIR) --target benches
	bash bench/run.sh

clean:
	rm -rf $(BUILD_DIR)
