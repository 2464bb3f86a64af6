# mcpeval: evaluation suite for LLM agents using MCP tool servers.
#
#   make eval        the main job: run every case, write records and the HTML report
#                    (make eval OPEN=1 opens the report; EVALFLAGS="-run Gene -force" passes suite flags)
#   make test        the project's tests (offline)
#   make ci          the suite under gotestsum: JUnit, JSON stream and report in one run
#                    (make ci BASELINE=latest also compares with the run before and fails on a significant regression)
#   make calibrate   how far verdicts can be trusted: the checks and the judge on
#                    labelled answers (calibration.json, shown by the report)
#   make bench       benchmarks with a table of measured values against targets
#   make clean-runs  delete all but the KEEP newest runs (default 10)
#
# Each run writes into $(OUT)/runs/<id>/; $(OUT)/latest names the newest finished run.

GO       ?= go
OUT      ?= $(or $(EVAL_OUT),evaltest/out)
GOTESTSUM = $(GO) tool gotestsum
EVALFLAGS ?=
KEEP     ?= 10
# One id per make invocation: the suite, the go test stream and the report
# of a run share its directory.
RUN_ID   := $(shell date -u +%Y%m%dT%H%M%SZ)-$(shell od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
RUN_DIR   = $(OUT)/runs/$(RUN_ID)
SUITE_ENV = EVAL_OUT=$(OUT) EVAL_RUN_ID=$(RUN_ID)

.PHONY: eval test ci bench generate vet clean-runs calibrate

eval:
	@mkdir -p $(RUN_DIR)
	$(SUITE_ENV) $(GOTESTSUM) --format testname --jsonfile $(RUN_DIR)/test.json \
		--post-run-command "$(GO) run ./cmd/evalreport -out $(OUT) -run $(RUN_DIR) $(if $(OPEN),-open)" \
		-- ./evaltest -count=1 -timeout 0 $(EVALFLAGS)

# The suite's own drift check (./evaltest, a reference run) writes to a
# temporary directory, so make test never touches evaltest/out or the cache.
test: vet
	@out=$$(mktemp -d) && trap 'rm -rf "$$out"' EXIT && \
	EVAL_REFERENCE=1 EVAL_DOTENV=off EVAL_OUT=$$out EVAL_CACHE=$$out/cache.json EVAL_RUN_ID= \
		$(GO) test -count=1 -timeout 15m ./...

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet ./...

ci:
	@mkdir -p $(RUN_DIR)
	$(SUITE_ENV) $(GOTESTSUM) --format testname --jsonfile $(RUN_DIR)/test.json \
		--post-run-command "$(GO) run ./cmd/evalreport -out $(OUT) -run $(RUN_DIR) -junit $(RUN_DIR)/junit.xml $(if $(BASELINE),-baseline $(BASELINE))" \
		-- ./evaltest -count=1 -timeout 0 $(EVALFLAGS)

clean-runs:
	$(GO) run ./cmd/evalreport -out $(OUT) -clean-runs $(KEEP)

calibrate:
	EVAL_OUT=$(OUT) $(GO) run ./cmd/evalcalibrate $(EVALFLAGS)

generate:
	$(GO) run ./cmd/evalgen -cases cases -o evaltest/categories_test.go

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 3x ./...
	$(GO) run ./cmd/evalbench
