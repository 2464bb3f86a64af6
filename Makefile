# mcpeval: evaluation suite for LLM agents using MCP tool servers.
#
#   make eval        the main job: run every case, write records and the HTML report
#                    (make eval OPEN=1 opens the report; EVALFLAGS="-run Gene -force" passes suite flags)
#   make test        the project's tests (offline)
#   make test-ollama the suite against a real Ollama on both of its engines (builds
#                    Ollama from testdata/ollama first: minutes the first time)
#   make test-otel   the suite's traces against a real OpenTelemetry Collector (builds
#                    it from testdata/otelcol first: minutes the first time)
#   make ci          the suite under gotestsum: JUnit, JSON stream and report in one run
#                    (make ci BASELINE=latest also compares with the run before and fails on a significant regression)
#   make calibrate   how far verdicts can be trusted: the checks and the judge on
#                    labelled answers (calibration.json, shown by the report)
#   make cross       go vet and the test binaries for Linux, macOS and Windows
#   make bench       benchmarks with a table of measured values against targets
#   make clean-runs  delete all but the KEEP newest runs (default 10)
#   make generate    a test function per category (evaltest/categories_test.go)
#
# Each target but test, test-ollama, test-otel and bench is a go tool mcpeval command (go
# tool mcpeval help lists them all). Each run writes into <out>/runs/<id>/ (EVAL_OUT,
# default evaltest/out); <out>/latest names the newest finished run. make eval
# and make ci read every setting (EVAL_*, the provider's variables, the .env
# file) as go test does: mcpeval resolves them with the suite's own code.

GO       ?= go
MCPEVAL   = $(GO) tool mcpeval
EVALFLAGS ?=
KEEP     ?= 10

.PHONY: eval test test-ollama test-otel ci bench generate vet cross clean-runs calibrate

eval:
	$(MCPEVAL) eval $(if $(OPEN),-open) -- $(EVALFLAGS)

# The suite's own drift check (./evaltest, a reference run) writes to a
# temporary directory, so make test never touches evaltest/out or the cache.
# go test runs one package more at once than there are cores (by default
# as many), starting them in the order given (a package named twice runs
# once): the longest-running packages come first, so that the others run
# beside them, not after them. The extra package fills the time the others
# spend waiting (timeouts, subprocesses, links of the small packages at the
# end): on 2 cores 2 min 42 s against 2 min 58 s, the same CPU time.
# The go commands the tests run share one directory of kept links: a test
# binary or command linked by one of them is linked once for them all
# (internal/keptlinks; go test links on every run, even when nothing
# changed). The go test of make test itself, whose links all differ, runs
# without the keeper (-toolexec=). The kept links and the go commands' work
# directories are on /dev/shm when it has room and lets programs run. GOGC=400
# (unless GOGC is set): the tests' many short-lived Go processes (the go
# command, the linker, the suite) spend a seventh less CPU time in all, for
# at most a few GiB of memory between them. An interrupt removes it all too.
SLOW_FIRST = ./internal/suite ./internal/docs ./examples ./internal/htmlreport ./internal/sampleserver
test: vet
	@set -e; work=; out=$$(mktemp -d); trap 'rm -rf "$$out" "$$work"' EXIT; trap 'exit 130' INT; trap 'exit 143' TERM HUP; \
	if [ "$$(df -Pk /dev/shm 2>/dev/null | awk 'NR==2 {print $$4}')" -gt 4194304 ] 2>/dev/null; then \
		work=$$(mktemp -d /dev/shm/mcpeval-test.XXXXXX 2>/dev/null) && printf '#!/bin/sh\n' > "$$work/runs" && \
		chmod +x "$$work/runs" && "$$work/runs" 2>/dev/null || { rm -rf "$$work"; work=; }; fi; \
	if [ -z "$$work" ]; then work=$$out/work; mkdir "$$work"; fi; \
	mkdir "$$work/links"; cp internal/keptlinks/link-keeper.sh "$$work/"; \
	cores=$$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2); \
	EVAL_REFERENCE=1 EVAL_DOTENV=off EVAL_PROGRESS=off EVAL_OUT=$$out EVAL_CACHE=$$out/cache.json EVAL_RUN_ID= \
	GOFLAGS="$$GOFLAGS -toolexec=$$work/link-keeper.sh" KEPT_LINKS=$$work/links GOTMPDIR=$$work GOGC=$${GOGC:-400} \
		$(GO) test -p $$((cores + 1)) -toolexec= -count=1 -timeout 15m $(SLOW_FIRST) ./...

# The test against a real inference server: Ollama, built from its own
# module in testdata/ollama into the user's cache (the Go build cache makes
# the next build quick), serving a tiny model the test writes. MCPEVAL_OLLAMA
# may name an Ollama binary of your own instead.
test-ollama:
	MCPEVAL_OLLAMA=$${MCPEVAL_OLLAMA:-build} $(GO) test -count=1 -timeout 30m -run '^TestOllama$$' -v ./internal/suite/

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet ./...

# Every package and every test binary builds for Linux, macOS and Windows.
cross:
	@for os in linux darwin windows; do \
		echo "GOOS=$$os: go vet, go test -c"; \
		GOOS=$$os $(GO) vet ./... || exit 1; \
		out=$$(mktemp -d) && GOOS=$$os $(GO) test -c -o $$out/ ./... >/dev/null; st=$$?; rm -rf $$out; [ $$st = 0 ] || exit 1; \
	done

# The test against a real OpenTelemetry Collector (the OTLP receiver and
# contrib's file exporter), built from its own module in testdata/otelcol
# into the user's cache. MCPEVAL_OTELCOL may name a collector of your own.
test-otel:
	MCPEVAL_OTELCOL=$${MCPEVAL_OTELCOL:-build} $(GO) test -count=1 -timeout 30m -run '^TestOTelCollector' -v ./internal/suite/

ci:
	$(MCPEVAL) ci $(if $(BASELINE),-baseline $(BASELINE)) -- $(EVALFLAGS)

clean-runs:
	$(MCPEVAL) runs prune -keep $(KEEP)

calibrate:
	$(MCPEVAL) calibrate $(EVALFLAGS)

generate:
	$(MCPEVAL) generate -cases cases -o evaltest/categories_test.go

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 3x ./...
	$(GO) run ./cmd/evalbench
