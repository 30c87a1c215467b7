#!/usr/bin/env bash
# The whole test suite: vet, then every Go test with -race, with a real
# Pulsar broker for the cluster-mode tests. Starts the broker (fetched from
# Maven Central on first use) unless one is already healthy, and stops it
# again if it started it.
set -euo pipefail
cd "$(dirname "$0")/.."

pulsar=scripts/pulsar/pulsar.sh
started=0
if ! "$pulsar" status >/dev/null 2>&1; then
	"$pulsar" up
	started=1
fi
cleanup() { if [ "$started" = 1 ]; then "$pulsar" down || true; fi; }
trap cleanup EXIT

export FWTEST_PULSAR_URL="pulsar://127.0.0.1:${PULSAR_BROKER_PORT:-6650}"
export FWTEST_PULSAR_ADMIN_URL="http://127.0.0.1:${PULSAR_WEB_PORT:-8080}"
export FWTEST_REQUIRE_PULSAR=1
go test -race -count=1 -timeout 40m "${@:-./...}"
