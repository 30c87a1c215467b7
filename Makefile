# fworker — build, test and local tooling. `make help` lists the targets.
GO ?= go
PKGS := ./...

.PHONY: help build run test test-unit lint vet fmt bench pulsar-up pulsar-down
help:
	@echo "make build       bin/fworker and bin/fwadmin"
	@echo "make run         build, then run a 3-worker standalone cluster on ports 6750-6752"
	@echo "make test        vet + every test with -race, with a real Pulsar broker (the CI command)"
	@echo "make test-unit   the same without the broker (cluster-mode tests skip)"
	@echo "make lint        gofmt + go vet"
	@echo "make bench       benchmarks; results are recorded in docs/benchmarks.md"
	@echo "make pulsar-up   fetch (Maven Central) and start a local Pulsar standalone broker"
	@echo "make pulsar-down stop it"

build:
	$(GO) build -o bin/fworker ./cmd/fworker
	$(GO) build -o bin/fwadmin ./cmd/fwadmin

run: build
	bin/fworker standalone

test: vet
	scripts/test.sh

test-unit: vet
	$(GO) test -race -count=1 $(PKGS)

lint: vet

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet $(PKGS)

bench:
	bench/run.sh

pulsar-up:
	scripts/pulsar/pulsar.sh up

pulsar-down:
	scripts/pulsar/pulsar.sh down
