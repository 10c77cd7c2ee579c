# e2e-conform — see README.md. Every target works on a clean clone.
SHELL     := /bin/bash
GO        ?= go
BIN       := bin
# Fuzz budgets are counts of executions, not durations: with a duration,
# Go's fuzz coordinator (go1.26 and earlier, golang/go#75804) can report a
# spurious "context deadline exceeded" failure at the deadline with no
# crasher written, which failed CI once on FuzzResolveExpression. A count
# has no deadline to race.
FUZZTIME  ?= 100000x
LONGFUZZ  ?= 5000000x
PKGS      := ./...

# name:package pairs of the fuzz targets; `make test` runs each for $(FUZZTIME)
# executions, `make fuzz` for $(LONGFUZZ).
FUZZ_TARGETS := \
	FuzzReadFrames:./protocol/rpc \
	FuzzValidateManifest:./protocol/schema \
	FuzzDecodeSnapshot:./protocol/schema \
	FuzzUnmarshalUnions:./protocol/wire \
	FuzzParseKey:./protocol/wire \
	FuzzCompile:./protocol/esregexp \
	FuzzResolveExpression:./protocol/locate \
	FuzzDecodeMembers:./conformance/traffic

.PHONY: all build test unit fuzz-smoke fuzz bench bench-node conform vet fmt clean kill-matrix parallel-verdicts soak mutants browser python xmllint dist chaos

# Debian packages the reference web engine needs: Chromium, its headless
# shell (what a headless engine launches when it is there) and
# ffmpeg (VP8 WebM video). Installed with apt when missing (as root, or
# through sudo).
APT_PKGS := chromium chromium-headless-shell ffmpeg
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

all: build

build:
	$(GO) build -buildvcs=auto -o $(BIN)/ ./cmd/... ./fixtures/...

# browser: install Chromium and ffmpeg when they are missing, and
# Chromium's headless shell when the system's packages offer it (without it
# the web engine launches /usr/bin/chromium).
browser:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v ffmpeg >/dev/null 2>&1 || missing="$$missing ffmpeg"; \
	if [ -n "$$missing" ]; then \
		echo "installing$$missing with apt"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends$$missing >/dev/null; \
	fi
	@command -v chromium-headless-shell >/dev/null 2>&1 || { \
		echo "installing chromium-headless-shell with apt"; \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends chromium-headless-shell >/dev/null 2>&1 || \
		{ $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends chromium-headless-shell >/dev/null 2>&1; } || \
		echo "chromium-headless-shell is not available: the web engine launches /usr/bin/chromium"; }
	@chromium --version; chromium-headless-shell --version 2>/dev/null || true; ffmpeg -version | head -1

# python: python3, which runs the independent kiosk engine of
# ../shared/engines/py-kiosk in `make test` (TestIndependentKioskEngine);
# installed with apt when missing.
python:
	@command -v python3 >/dev/null 2>&1 || { echo "installing python3 with apt"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends python3 >/dev/null; }
	@python3 --version

# xmllint: Debian's libxml2-utils, whose xmllint validates the JUnit report
# against Jenkins' junit-10.xsd in `make test`
# (TestJUnitValidatesAgainstJenkinsSchema); installed with apt when missing.
xmllint:
	@command -v xmllint >/dev/null 2>&1 || { echo "installing libxml2-utils with apt"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends libxml2-utils >/dev/null; }
	@xmllint --version 2>&1 | head -1

vet:
	$(GO) vet $(PKGS)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

# unit: four packages at a time (-p 4, go test's default is the 2 cores):
# the heavy packages (conformance, reference-engine, cmd/e2e-conform,
# conformance/mutate) mostly wait on engines and browsers.
unit: browser python xmllint
	$(GO) test -race -count=1 -p 4 -timeout 20m $(PKGS)

fuzz-smoke:
	@set -e; for t in $(FUZZ_TARGETS); do \
		name=$${t%%:*}; pkg=$${t#*:}; \
		echo "fuzz $$name ($$pkg): $(FUZZTIME) executions"; \
		$(GO) test -run='^$$' -fuzz="^$$name$$" -fuzztime=$(FUZZTIME) $$pkg; \
	done

fuzz:
	$(MAKE) fuzz-smoke FUZZTIME=$(LONGFUZZ)

# test: every test — vet and gofmt, unit and end-to-end tests with the race
# detector, and each fuzz target briefly. The three run at once (each
# target's output printed whole when it ends): the end-to-end tests mostly
# wait on engines, and vet and the fuzz targets use that CPU (issue 30:
# make test under 10 minutes on 2 cores).
test: browser python xmllint
	@$(MAKE) --no-print-directory -j3 --output-sync=target vet unit fuzz-smoke

# chaos: every hostile-peer case of internal/chaos, the slow ones included
# (make test runs the fast subset).
chaos:
	$(GO) test -count=1 -timeout 30m ./internal/chaos/ -args -chaos-slow

# kill-matrix: rerun the kill matrix and rewrite docs/kill-matrix.md, with
# the selection-invariance column: each fault's full run, then --only each
# requirement it failed and its area, and each requirement the healthy
# saboteur passes alone (two runs at a time; the bulk of the time).
KILL_PARALLEL ?= 6
kill-matrix:
	$(GO) test -v -count=1 -timeout 180m -run TestKillMatrix ./conformance/ -args -update-kill-matrix -invariance-parallel=$(KILL_PARALLEL)

# parallel-verdicts: PARALLEL_VERDICT_RUNS runs (default 10) of the selection
# unsharded and as many with --parallel 3, alternately, against the saboteur's
# core profile, then the web engine's full profile; fails when any
# requirement's status differs between any two runs, and prints each kind's
# median wall time and their ratio (issue 30; docs/perf.md). Long: not part of
# `make test`.
PARALLEL_VERDICT_RUNS ?= 10
PARALLEL_VERDICT_ENGINES ?= saboteur web
parallel-verdicts: browser
	@set -e; for e in $(PARALLEL_VERDICT_ENGINES); do \
		$(GO) test -v -count=1 -timeout 120m -run '^TestParallelVerdictsHold$$' ./cmd/e2e-conform/ -args -parallel-verdicts=$(PARALLEL_VERDICT_RUNS) -parallel-verdicts-engine=$$e; \
	done

# soak: the core and full profiles SOAK_RUNS times each (default 20), two runs
# at a time, against the saboteur and the reference web engine (e2e-conform
# --repeat); fails when any verdict changed between runs, and prints the
# figures (runs, wall time, verdict changes). Long (hours with the web
# engine): not part of `make test`. SOAK_ENGINES=saboteur, SOAK_PROFILES=core,
# SOAK_RUNS=3 shorten it; the reports go to out/soak.
SOAK_RUNS     ?= 20
SOAK_PARALLEL ?= 2
SOAK_ENGINES  ?= saboteur web
SOAK_PROFILES ?= core full
soak: browser build
	SOAK_RUNS=$(SOAK_RUNS) SOAK_PARALLEL=$(SOAK_PARALLEL) SOAK_ENGINES="$(SOAK_ENGINES)" SOAK_PROFILES="$(SOAK_PROFILES)" BIN=$(BIN) scripts/soak.sh

# mutants: run every mutant of conformance/mutate the engines' traffic can
# fire through the e2e-mutate proxy and rewrite docs/mutants.md
# (MUTANTS_BUDGET=90m stops starting runs after 90 minutes; 0: no limit).
MUTANTS_BUDGET ?= 0
mutants:
	$(GO) test -v -count=1 -timeout 240m -run TestMutants ./conformance/mutate -args -mutants=all -update-mutants -mutants-budget=$(MUTANTS_BUDGET)

# bench: every protocol benchmark with -benchmem (raw output in
# out/bench-raw.txt), then one table of the round trips of issue 11: each
# figure, its floor measured in the same run, the ratio and the goal
# (also in out/bench.txt).
BENCHTIME ?= 1s
bench:
	@mkdir -p out
	$(GO) test -run='^$$' -bench=. -benchmem -benchtime=$(BENCHTIME) ./protocol/... > out/bench-raw.txt
	@awk -f scripts/benchtable.awk out/bench-raw.txt | tee out/bench.txt

# bench-node: the round trip of a no-op engine/observe from a Node
# vscode-jsonrpc client (npm, scripts/bench-node) against the Go example
# engine, the saboteur, a vscode-jsonrpc server and a raw frame echo, in
# alternating rounds; prints each median and the ratios (issue 11), once
# unpinned and once with client and servers pinned to separate cores.
bench-node: build
	cd scripts/bench-node && npm install --silent --no-audit --no-fund && \
		node bench.js go=../../$(BIN)/example-engine saboteur=../../$(BIN)/saboteur node="node server.js" raw="node echo.js" && \
		echo "pinned: client on CPU 0, servers on CPU 1 (as issue 11 measured)" && \
		taskset -c 0 node bench.js --pin 1 go=../../$(BIN)/example-engine saboteur=../../$(BIN)/saboteur node="node server.js" raw="node echo.js"

# conform: builds everything, installs Chromium and ffmpeg when missing, and
# runs the conformance suite's full profile against the reference web engine,
# writing out/report.json, out/junit.xml, out/report.html, out/badge.svg, out/trace.jsonl and
# out/summary.txt.
# CONFORM_PARALLEL: the shards run at once (e2e-conform --parallel; 1 runs
# the suite in one process). 3 shards took the full profile against the
# web engine from 62 s to 36 s on 2 cores (docs/perf.md), same verdicts.
CONFORM_PARALLEL ?= 3
conform: browser build
	@mkdir -p out
	$(BIN)/engine-smoke --spawn "$(BIN)/e2e-web-engine" > out/smoke.txt
	$(BIN)/e2e-conform --parallel $(CONFORM_PARALLEL) --profile full --spawn "$(BIN)/e2e-web-engine" --json out/report.json --junit out/junit.xml --html out/report.html --badge out/badge.svg --trace out/trace.jsonl | tee out/summary.txt; exit $${PIPESTATUS[0]}

# dist: the release binaries, static (CGO_ENABLED=0) and stripped of local
# paths, for every DIST_TARGETS os/arch, named NAME-OS-ARCH, with their
# SHA256SUMS. The version comes from the module and VCS stamping
# (-buildvcs=true: a tagged commit gives its tag, any other a pseudo-version
# with the revision; `NAME --version` prints it).
DIST         := dist
DIST_TARGETS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
DIST_CMDS    := e2e-conform e2e-mcp e2e-web-engine
dist:
	@rm -rf $(DIST) && mkdir -p $(DIST)
	@set -e; for t in $(DIST_TARGETS); do \
		os=$${t%/*}; arch=$${t#*/}; \
		for c in $(DIST_CMDS); do \
			echo "build $$c for $$os/$$arch"; \
			CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -buildvcs=true -trimpath -ldflags="-s -w" -o $(DIST)/$$c-$$os-$$arch ./cmd/$$c; \
		done; \
	done
	@cd $(DIST) && sha256sum $(foreach t,$(DIST_TARGETS),$(foreach c,$(DIST_CMDS),$(c)-$(subst /,-,$(t)))) > SHA256SUMS && cat SHA256SUMS

clean:
	rm -rf $(BIN) out $(DIST)
