# What a contributor runs. Every target is a plain go command (or .ci/run),
# so each also works by hand; `make help` lists them.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
GO ?= go

# bench: which benchmarks, in which packages, how many runs (benchstat wants 6+).
BENCH ?= .
PKG ?= .
COUNT ?= 6
# fuzz: how long each fuzz target runs.
FUZZTIME ?= 30s

# install: the commit named by mpdf --version even where VCS stamping is
# off (-buildvcs=false; a VCS stamp, when there is one, wins).
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS ?= -X github.com/mpdf/mpdf/internal/version.Commit=$(COMMIT)

.PHONY: help test check bench fuzz golden ci install

## help: list the targets.
help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

## install: go install ./cmd/mpdf, the commit stamped for mpdf --version
##   (LDFLAGS; COMMIT defaults to git rev-parse HEAD).
install:
	$(GO) install -ldflags "$(LDFLAGS)" ./cmd/mpdf

## test: the README's test command, every package.
test:
	$(GO) test ./...

## check: what .ci/run checks before the tests: gofmt, go.mod tidy, generated
##   files current, go vet and staticcheck (both kernel builds of nn). Works
##   on a tree with uncommitted changes: it compares files before and after
##   go generate rather than asking git for a clean tree.
check:
	@out=$$(gofmt -l $$(git ls-files -co --exclude-standard '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) mod tidy -diff
	@before=$$(git ls-files -co --exclude-standard | xargs sha256sum); \
	$(GO) generate ./...; \
	after=$$(git ls-files -co --exclude-standard | xargs sha256sum); \
	if [ "$$before" != "$$after" ]; then \
		echo "go generate changed files (commit what it wrote):"; \
		diff <(echo "$$before") <(echo "$$after") | sed -n 's/^> [0-9a-f]* *//p'; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags noasm ./nn/...
	cd nn/_generate && $(GO) vet ./...
	$(GO) tool staticcheck ./...
	$(GO) tool staticcheck -tags noasm ./nn/...

## bench: run benchmarks COUNT times and summarise them with benchstat
##   (pinned in go.mod). Default: the update-step benchmarks at the root;
##   e.g. make bench PKG=./serve BENCH=ServeSingle COUNT=3.
bench:
	@out=$$(mktemp); trap 'rm -f $$out' EXIT; \
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -count $(COUNT) $(PKG) | tee $$out; \
	$(GO) tool benchstat '$(PKG)'=$$out

## fuzz: run every fuzz target (each func Fuzz* in a _test.go) for FUZZTIME.
##   A failure leaves its input in the package's testdata/fuzz: commit it
##   with the fix, as a regression test.
fuzz:
	@for file in $$(grep -rl --include='*_test.go' '^func Fuzz' . | sort); do \
		dir=$$(dirname $$file); \
		for target in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$file); do \
			echo "== $$target $$dir"; \
			$(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) $$dir; \
		done; \
	done

## golden: rewrite the golden files from the code: python/tests/testdata's
##   feature files of each feature layout (serve), and docs/architecture.md's
##   layer block with doc.go's layer list (from the layer table in
##   imports_test.go). Review the diff. The
##   checkpoint format's files (checkpoints/testdata) are left alone: they
##   prove files of format v1 still load; rewrite them only with a format
##   change (go test ./checkpoints -run GoldenUpdate -update).
golden:
	$(GO) test ./serve -run '^TestFeatureGoldenCurrent$$' -update
	$(GO) test . -run '^TestArchitectureDocs$$' -update

## ci: everything CI runs (.ci/run): check, the tests in both kernel builds,
##   the HTML pages in headless Chromium (screenshots in .ci/artifacts), the
##   race detector, the Python package installed and tested against served
##   policies, benchmarks once. Installs the PyTorch oracle and Chromium with
##   apt-get when missing.
ci:
	./.ci/run
