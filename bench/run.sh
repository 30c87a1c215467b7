#!/usr/bin/env bash
# Benchmarks behind docs/benchmarks.md. The scheduler ones need nothing; the
# Pulsar ones (assignment publish rate, Load of 100k assignments) need the
# broker, which this script starts (and stops again) when it is not up.
#   bench/run.sh            both
#   bench/run.sh scheduler  the scheduler only
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}

if [ "$what" = all ] || [ "$what" = scheduler ]; then
	go test -run '^$' -bench . -benchmem ./scheduler
fi
if [ "$what" = all ] || [ "$what" = pulsar ]; then
	started=0
	if ! scripts/pulsar/pulsar.sh status >/dev/null 2>&1; then
		scripts/pulsar/pulsar.sh up
		started=1
	fi
	trap '[ "$started" = 1 ] && scripts/pulsar/pulsar.sh down' EXIT
	FWTEST_PULSAR_URL=pulsar://127.0.0.1:6650 FWTEST_PULSAR_ADMIN_URL=http://127.0.0.1:8080 \
		go test -run '^$' -bench . -benchtime 5s ./cluster/pulsar
	FWTEST_PULSAR_URL=pulsar://127.0.0.1:6650 FWTEST_PULSAR_ADMIN_URL=http://127.0.0.1:8080 \
		go test -count=1 -v -run 'TestClusterDrainAndLeaderCrash|TestClusterDataPlaneDrain' ./e2e | grep -E 'leader failover|data plane'
fi
