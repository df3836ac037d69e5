# The entry points. `make run` is the demo, `make test` everything a fresh machine needs.
BUILD ?= build
PREFIX ?= /usr/local
PY := /usr/bin/python3
# What building and the demo need (make run installs only these), and what the tests add
# (make test): the fuzzers' clang, pytest, strace, the browser, the package's checkers, shells,
# git (seek's ignore rules are checked against it) and GNU time (peak memory).
BUILD_DEBS := cmake ninja-build g++ libgtest-dev libxxhash-dev libssl-dev libre2-dev \
        libsimdjson-dev libseccomp-dev python3 dpkg-dev
TEST_DEBS := clang python3-pytest python3-jsonschema strace jq hyperfine chromium \
        lintian groff man-db bash-completion zsh fish git time
# Hyperscan (seek's one scan for many patterns) exists for amd64 only; elsewhere seek searches
# pattern by pattern.
ifeq ($(shell dpkg --print-architecture 2>/dev/null),amd64)
BUILD_DEBS += libhyperscan-dev
endif
# What make bench compares against, and the tree it searches.
BENCH_DEBS := ripgrep ugrep fd-find fzf linux-source-6.1 coreutils findutils sed
# Installs the Debian packages of $(1) that are missing.
install_missing = missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing: $$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

.PHONY: build run test deps test-deps unit conformance mcp fuzz dist install deb bench schemas site clean

configure = test -f $(BUILD)/build.ninja || cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release

build:
	@$(configure)
	@cmake --build $(BUILD)

# Debian's packages, then Debian's source package of simdjson, the version of the installed
# libsimdjson-dev, which CMake compiles and links statically (gen/simdjson_source.py).
deps:
	@$(call install_missing,$(BUILD_DEBS))
	@$(PY) -B gen/simdjson_source.py --out $(BUILD)/deps/simdjson

test-deps: deps
	@$(call install_missing,$(TEST_DEBS))

# The demo needs only what is shipped (the target dist: the tools, tack-mcp, tack and what is
# generated from them), not the tests' binaries.
run: deps
	@$(configure)
	@cmake --build $(BUILD) --target dist
	@bash demo/run.sh $(BUILD)/bin

unit: build
	@$(BUILD)/bin/tack_unit --gtest_brief=1

conformance: build
	@TACK_BIN=$(abspath $(BUILD)/bin) $(PY) -m pytest -q -p no:cacheprovider tests/conformance

# tack-mcp through the official MCP TypeScript SDK client (pinned by tests/mcp/package-lock.json).
mcp: build
	@command -v node >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm)
	@cd tests/mcp && npm ci --no-audit --no-fund --silent
	@cd tests/mcp && TACK_BIN=$(abspath $(BUILD)/bin) timeout 600 node --test --test-concurrency=1 --test-reporter=dot

# tack-mcp's libFuzzer targets (its frames, its arguments-to-argv mapping), FUZZ_SECS seconds
# each from their corpus; `bash tests/fuzz/run.sh SECS` runs every target (the parsers' too).
FUZZ_SECS ?= 5
FUZZ_TARGETS ?= mcp_frames_fuzz mcp_argv_fuzz
fuzz: build
	@TACK_BUILD=$(abspath $(BUILD)) bash tests/fuzz/run.sh $(FUZZ_SECS) $(FUZZ_TARGETS)

# The package, checked by its consumers: lintian, dpkg-deb -x, man, groff, the shells.
dist: build
	@TACK_BUILD=$(abspath $(BUILD)) $(PY) -m pytest -q -p no:cacheprovider tests/dist

test: test-deps
	@$(MAKE) --no-print-directory build
	@$(MAKE) --no-print-directory unit
	@$(MAKE) --no-print-directory conformance
	@$(MAKE) --no-print-directory mcp
	@$(MAKE) --no-print-directory fuzz
	@$(MAKE) --no-print-directory dist

# The tools in PREFIX/lib/tack/bin, tack and tack-mcp in PREFIX/bin, man pages, completions,
# skills and tools.json under PREFIX/share (generated from the installed tools). DESTDIR stages.
install: deps
	@$(MAKE) --no-print-directory build
	@DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

# build/tack_VERSION_ARCH.deb (prefix /usr).
deb: deps
	@$(MAKE) --no-print-directory build
	@$(PY) -B gen/deb.py --build $(BUILD) --out $(BUILD)

schemas: build
	@TACK_BIN=$(abspath $(BUILD)/bin) $(PY) tests/conformance/schemas.py --write

# The reference pages: one static page per tool from its introspect, an index, one stylesheet.
site: build
	@$(PY) gen/site.py --bin $(BUILD)/bin --out $(BUILD)/site

# Every figure side by side with its incumbent; the report is $(BUILD)/bench/report.md.
bench: test-deps
	@$(call install_missing,$(BENCH_DEBS))
	@$(MAKE) --no-print-directory build
	@cmake --build $(BUILD) --target tree_floor
	@bash bench/run.sh $(BUILD)/bin

clean:
	rm -rf $(BUILD)
