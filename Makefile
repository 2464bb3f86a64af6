# mcpeval: evaluation suite for LLM agents using MCP tool servers.
#
#   make eval   the main job: run every case, write records and the HTML report
#               (make eval OPEN=1 opens the report; EVALFLAGS="-run Gene -force" passes suite flags)
#   make test   the project's tests (offline)
#   make ci     the suite under gotestsum: JUnit, JSON stream and report in one run
#   make calibrate  how far verdicts can be trusted: the checks and the judge on
#               labelled answers (calibration.json, shown by the report)
#   make bench  benchmarks with a table of measured values against targets

GO       ?= go
OUT      ?= evaltest/out
GOTESTSUM = $(GO) tool gotestsum
EVALFLAGS ?=

.PHONY: eval test ci bench generate vet calibrate

eval:
	@mkdir -p $(OUT)
	EVAL_OUT=$(OUT) $(GOTESTSUM) --format testname --jsonfile $(OUT)/test.json \
		--post-run-command "$(GO) run ./cmd/evalreport -out $(OUT) $(if $(OPEN),-open)" \
		-- ./evaltest -count=1 -timeout 0 $(EVALFLAGS)

# The suite's own drift check (./evaltest, a reference run) writes to a
# temporary directory, so make test never touches evaltest/out or the cache.
test: vet
	@out=$$(mktemp -d) && trap 'rm -rf "$$out"' EXIT && \
	EVAL_REFERENCE=1 EVAL_DOTENV=off EVAL_OUT=$$out EVAL_CACHE=$$out/cache.json \
		$(GO) test -count=1 -timeout 15m ./...

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet ./...

ci:
	@mkdir -p $(OUT)
	EVAL_OUT=$(OUT) $(GOTESTSUM) --format testname --junitfile $(OUT)/junit.xml --jsonfile $(OUT)/test.json \
		--post-run-command "$(GO) run ./cmd/evalreport -out $(OUT)" \
		-- ./evaltest -count=1 -timeout 0 $(EVALFLAGS)

calibrate:
	EVAL_OUT=$(OUT) $(GO) run ./cmd/evalcalibrate $(EVALFLAGS)

generate:
	$(GO) run ./cmd/evalgen -cases cases -o evaltest/categories_test.go

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 3x ./...
	$(GO) run ./cmd/evalbench
