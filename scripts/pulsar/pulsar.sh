#!/usr/bin/env bash
#
# pulsar.sh - run a real Apache Pulsar standalone broker locally, without docker.
#
# The broker jars come from Maven Central (see pom.xml next to this script) and are
# started directly with `java -cp 'lib/*' org.apache.pulsar.PulsarStandaloneStarter`.
# Metadata lives in RocksDB and one in-process bookie stores the data; there is no
# ZooKeeper, no functions worker (-nfw) and no stream storage (-nss).
#
# Usage: scripts/pulsar/pulsar.sh {fetch|up|down|status|logs [-f]}
#
#   fetch   copy the broker jars into $FWORKER_PULSAR_HOME/lib (skipped when up to date)
#   up      fetch if needed, write the config, start the broker in the background and
#           wait until the admin API answers, public/default exists and public/functions
#           has been created. Does nothing if the broker is already healthy.
#   down    stop the broker: SIGTERM, wait up to PULSAR_STOP_TIMEOUT s, then SIGKILL
#   status  print the state; exit 0 only if the broker is healthy
#   logs    print the end of the broker log (-f: follow it)
#
# Environment (all optional):
#   FWORKER_PULSAR_HOME    home for jars, config, data, logs (default ~/.cache/fworker/pulsar)
#   PULSAR_BROKER_PORT     binary protocol port                (default 6650)
#   PULSAR_WEB_PORT        HTTP admin/REST port                (default 8080)
#   PULSAR_BOOKIE_PORT     port of the in-process bookie       (default 3181)
#   PULSAR_START_TIMEOUT   seconds `up` waits for health       (default 180)
#   PULSAR_STOP_TIMEOUT    seconds `down` waits before SIGKILL (default 30)
#   PULSAR_MEM             JVM memory flags (default "-Xms256m -Xmx1g -XX:MaxDirectMemorySize=512m")
#   PULSAR_EXTRA_OPTS      extra JVM flags
#   PULSAR_CONF_OVERRIDES  extra "key=value" lines appended to standalone.conf (last one wins)
#   PULSAR_LOG_LEVEL       root log level (default info)
#   PULSAR_WIPE_DATA=1     `up` deletes the data directory before starting
#   PULSAR_FETCH_FORCE=1   `fetch` re-copies the jars even if they look up to date
#   JAVA_HOME              Java 17+ to use (default: java on PATH)
#
# Works non-interactively (CI=true, no stdin) and as root.

set -euo pipefail

# ----------------------------------------------------------------------------
# Settings
# ----------------------------------------------------------------------------
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
POM="$SCRIPT_DIR/pom.xml"

PULSAR_HOME_DIR=${FWORKER_PULSAR_HOME:-$HOME/.cache/fworker/pulsar}
LIB_DIR="$PULSAR_HOME_DIR/lib"
CONF_DIR="$PULSAR_HOME_DIR/conf"
DATA_DIR="$PULSAR_HOME_DIR/data"
LOG_DIR="$PULSAR_HOME_DIR/logs"
TMP_DIR="$PULSAR_HOME_DIR/tmp"           # java.io.tmpdir: native libs (RocksDB, netty) unpack here
CONF_FILE="$CONF_DIR/standalone.conf"
LOG4J_FILE="$CONF_DIR/log4j2.xml"
LOG_FILE="$LOG_DIR/pulsar-standalone.log"
PID_FILE="$PULSAR_HOME_DIR/pulsar.pid"
STAMP_FILE="$LIB_DIR/.pom.sha256"        # checksum of the pom the jars were fetched with

BROKER_PORT=${PULSAR_BROKER_PORT:-6650}
WEB_PORT=${PULSAR_WEB_PORT:-8080}
BOOKIE_PORT=${PULSAR_BOOKIE_PORT:-3181}
START_TIMEOUT=${PULSAR_START_TIMEOUT:-180}
STOP_TIMEOUT=${PULSAR_STOP_TIMEOUT:-30}
MEM_OPTS=${PULSAR_MEM:--Xms256m -Xmx1g -XX:MaxDirectMemorySize=512m}
LOG_LEVEL=${PULSAR_LOG_LEVEL:-info}

ADMIN_URL="http://127.0.0.1:$WEB_PORT/admin/v2"
MAIN_CLASS=org.apache.pulsar.PulsarStandaloneStarter

if [[ -n "${JAVA_HOME:-}" ]]; then JAVA="$JAVA_HOME/bin/java"; else JAVA=java; fi

# ----------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------
log() { echo "pulsar.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

# HTTP GET against the admin API; prints the body, fails on any non-2xx answer.
admin_get() { curl -fsS --max-time 5 "$ADMIN_URL$1"; }

# Pid recorded in the pid file, if that process is alive and really is our broker.
running_pid() {
  local pid
  [[ -f "$PID_FILE" ]] || return 1
  pid=$(<"$PID_FILE")
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  # Guard against a recycled pid: the command line must be our Pulsar main class.
  local cmdline
  cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  [[ "$cmdline" == *"$MAIN_CLASS"* ]] || return 1
  echo "$pid"
}

# Something is listening on 127.0.0.1:<port>?
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Healthy = admin API answers, the standalone cluster and namespace public/default exist.
# (Bodies are captured rather than piped into `grep -q`: with pipefail, grep exiting
# early can make the pipeline fail on SIGPIPE even though it matched.)
is_healthy() {
  local body
  body=$(admin_get /clusters 2>/dev/null) && [[ "$body" == *'"standalone"'* ]] || return 1
  body=$(admin_get /namespaces/public 2>/dev/null) && [[ "$body" == *'"public/default"'* ]] || return 1
}

show_log_tail() {
  if [[ -f "$LOG_FILE" ]]; then
    log "last 80 lines of $LOG_FILE:"
    tail -n 80 "$LOG_FILE" >&2
  else
    log "no log file at $LOG_FILE"
  fi
}

# While a broker runs, its ports are the ones in the config it was started with, not
# whatever PULSAR_*_PORT says now (e.g. `up` with custom ports, then plain `status`).
use_running_ports() {
  [[ -f "$CONF_FILE" ]] || return 0
  local web broker
  web=$(sed -n 's/^webServicePort=//p' "$CONF_FILE" | tail -n 1)
  broker=$(sed -n 's/^brokerServicePort=//p' "$CONF_FILE" | tail -n 1)
  [[ -n "$web" ]] && WEB_PORT=$web && ADMIN_URL="http://127.0.0.1:$WEB_PORT/admin/v2"
  [[ -n "$broker" ]] && BROKER_PORT=$broker
  return 0
}

check_java() {
  command -v "$JAVA" >/dev/null 2>&1 || die "java not found (set JAVA_HOME or install Java 17+)"
  local major
  major=$("$JAVA" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}')
  [[ "${major%%.*}" =~ ^[0-9]+$ && "${major%%.*}" -ge 17 ]] \
    || die "Pulsar 4.x needs Java 17 or newer, $JAVA is version '$major'"
}

# ----------------------------------------------------------------------------
# fetch: resolve the jars from Maven Central into $LIB_DIR
# ----------------------------------------------------------------------------
cmd_fetch() {
  local want
  want=$(sha256sum "$POM" | cut -d' ' -f1)
  if [[ "${PULSAR_FETCH_FORCE:-0}" != 1 && -f "$STAMP_FILE" && "$(<"$STAMP_FILE")" == "$want" ]]; then
    log "jars already fetched ($(find "$LIB_DIR" -name '*.jar' | wc -l) jars in $LIB_DIR)"
    return 0
  fi
  command -v mvn >/dev/null 2>&1 || die "mvn not found (install Maven 3.8+)"
  log "fetching Pulsar jars from Maven Central into $LIB_DIR ..."
  mkdir -p "$PULSAR_HOME_DIR"
  # Copy into a scratch directory and swap it in, so an interrupted fetch never leaves
  # a half-filled lib/ that looks complete.
  local staging="$PULSAR_HOME_DIR/lib.staging"
  rm -rf "$staging"
  # (sed drops the stray ANSI reset codes Debian's Maven 3.8 prints even with -B -q;
  # pipefail keeps mvn's exit status.)
  if ! mvn -B -q -Dstyle.color=never -f "$POM" dependency:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$staging" </dev/null 2>&1 \
      | sed -u -e 's/\x1b\[[0-9;]*m//g' -e '/^$/d' >&2; then
    rm -rf "$staging"
    die "mvn dependency:copy-dependencies failed (see output above)"
  fi
  echo "$want" >"$staging/.pom.sha256"
  rm -rf "$LIB_DIR"
  mv "$staging" "$LIB_DIR"
  log "fetched $(find "$LIB_DIR" -name '*.jar' | wc -l) jars ($(du -sh "$LIB_DIR" | cut -f1))"
}

# ----------------------------------------------------------------------------
# Config files (rewritten on every start so env changes take effect)
# ----------------------------------------------------------------------------
write_config() {
  mkdir -p "$CONF_DIR" "$DATA_DIR" "$LOG_DIR" "$TMP_DIR"

  # One file serves both the broker (ServiceConfiguration) and the in-process bookie
  # (BookKeeper ServerConfiguration); unknown keys are ignored by each side.
  cat >"$CONF_FILE" <<EOF
# Generated by scripts/pulsar/pulsar.sh - edits are overwritten on the next 'up'.

### Broker: loopback only, fixed ports
clusterName=standalone
bindAddress=127.0.0.1
advertisedAddress=127.0.0.1
brokerServicePort=$BROKER_PORT
webServicePort=$WEB_PORT
# Empty: standalone then keeps metadata in RocksDB under --metadata-dir (no ZooKeeper).
metadataStoreUrl=
configurationMetadataStoreUrl=

### Single bookie, single copy
managedLedgerDefaultEnsembleSize=1
managedLedgerDefaultWriteQuorum=1
managedLedgerDefaultAckQuorum=1

### Small footprint for a dev/CI box
managedLedgerCacheSizeMB=64
numOrderedExecutorThreads=2
numWorkerThreadsForNonPersistentTopic=2
managedLedgerNumSchedulerThreads=2
loadManagerClassName=org.apache.pulsar.broker.loadbalance.NoopLoadManager
loadBalancerEnabled=false
webSocketServiceEnabled=false
functionsWorkerEnabled=false
transactionCoordinatorEnabled=false

### Behaviour for tests: keep topics even when idle, create them on first use
allowAutoTopicCreation=true
allowAutoTopicCreationType=non-partitioned
brokerDeleteInactiveTopicsEnabled=false
authenticationEnabled=false
authorizationEnabled=false

### Bookie (read by BookKeeper's ServerConfiguration)
# Standalone uses this file as the bookie's base config, replacing its built-in test
# defaults, so loopback binding must be spelled out: without listeningInterface the
# bookie binds 0.0.0.0, and without allowEphemeralPorts=true it ignores
# --bookkeeper-port and picks a random free port. (After the first start the bookie
# keeps the address recorded in its cookie under data/bookkeeper.)
listeningInterface=lo
allowEphemeralPorts=true
ledgerStorageClass=org.apache.bookkeeper.bookie.storage.ldb.DbLedgerStorage
allowLoopback=true
httpServerEnabled=false
journalSyncData=false
journalMaxGroupWaitMSec=1
journalMaxSizeMB=64
journalPreAllocSizeMB=1
logSizeLimit=67108864
dbStorage_writeCacheMaxSizeMb=16
dbStorage_readAheadCacheMaxSizeMb=16
dbStorage_rocksDB_blockCacheSize=16777216
dbStorage_rocksDB_writeBufferSizeMB=4
dbStorage_rocksDB_sstSizeInMB=4
flushInterval=60000
gcWaitTime=300000
diskUsageThreshold=0.99
diskUsageWarnThreshold=0.99
EOF
  if [[ -n "${PULSAR_CONF_OVERRIDES:-}" ]]; then
    printf '\n### PULSAR_CONF_OVERRIDES\n%s\n' "$PULSAR_CONF_OVERRIDES" >>"$CONF_FILE"
  fi

  # Plain log4j2 config: everything to stdout, which `up` redirects to $LOG_FILE.
  # (Pulsar's own conf/log4j2.yaml is not in any jar.)
  cat >"$LOG4J_FILE" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="warn" shutdownHook="disable">
  <Appenders>
    <Console name="stdout" target="SYSTEM_OUT">
      <PatternLayout pattern="%d{ISO8601} [%t] %-5level %logger{36} - %msg%n"/>
    </Console>
  </Appenders>
  <Loggers>
    <Logger name="org.apache.bookkeeper" level="warn"/>
    <Logger name="org.apache.pulsar.metadata.bookkeeper" level="warn"/>
    <Logger name="org.eclipse.jetty" level="warn"/>
    <Root level="${sys:pulsar.log.level:-info}">
      <AppenderRef ref="stdout"/>
    </Root>
  </Loggers>
</Configuration>
EOF
}

# ----------------------------------------------------------------------------
# up
# ----------------------------------------------------------------------------

# Create namespace public/functions (used by fworker) unless it already exists.
ensure_functions_namespace() {
  local body code
  body=$(admin_get /namespaces/public 2>/dev/null) || body=
  if [[ "$body" == *'"public/functions"'* ]]; then
    return 0
  fi
  code=$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' \
    -X PUT "$ADMIN_URL/namespaces/public/functions")
  case "$code" in
    204|409) log "namespace public/functions ready" ;;   # 409: created concurrently
    *) die "creating namespace public/functions failed: HTTP $code" ;;
  esac
}

# Wait until healthy, the process dies, or START_TIMEOUT expires.
# $2=started: on time-out, stop the broker this invocation started, so a failed `up`
# (e.g. in CI) leaves no half-started JVM behind; one found already running is left alone.
wait_healthy() {
  local pid=$1 started=${2:-} start=$SECONDS
  while (( SECONDS - start < START_TIMEOUT )); do
    if ! kill -0 "$pid" 2>/dev/null; then
      show_log_tail
      rm -f "$PID_FILE"
      die "broker process $pid exited during start-up"
    fi
    if is_healthy; then
      log "broker healthy after $(( SECONDS - start ))s"
      return 0
    fi
    sleep 1
  done
  show_log_tail
  if [[ "$started" == started ]]; then
    log "broker not healthy after ${START_TIMEOUT}s; stopping it"
    cmd_down
    die "broker did not become healthy within ${START_TIMEOUT}s (raise PULSAR_START_TIMEOUT?)"
  fi
  die "broker not healthy after ${START_TIMEOUT}s (still running as pid $pid; stop it with '$0 down')"
}

cmd_up() {
  local pid
  if pid=$(running_pid); then
    use_running_ports
    if is_healthy; then
      ensure_functions_namespace
      log "already running (pid $pid) and healthy: pulsar://127.0.0.1:$BROKER_PORT http://127.0.0.1:$WEB_PORT"
      return 0
    fi
    log "already running (pid $pid) but not healthy yet; waiting"
    wait_healthy "$pid"
    ensure_functions_namespace
    return 0
  fi
  rm -f "$PID_FILE"   # stale pid file, if any

  # Refuse to start when a port is taken by something else: the broker would fail
  # later with a less obvious error (or we would talk to the wrong server).
  local port
  for port in "$WEB_PORT" "$BROKER_PORT" "$BOOKIE_PORT"; do
    if port_in_use "$port"; then
      die "port $port on 127.0.0.1 is already in use by another process (see: ss -ltnp | grep :$port)"
    fi
  done

  check_java
  cmd_fetch
  # Native libraries unpacked by the previous run (RocksDB ~12 MB each) are left behind
  # when the JVM is killed; nothing runs from here now, so start clean.
  rm -rf "$TMP_DIR"
  write_config
  if [[ "${PULSAR_WIPE_DATA:-0}" == 1 ]]; then
    log "wiping $DATA_DIR"
    rm -rf "$DATA_DIR"
    mkdir -p "$DATA_DIR"
  fi

  # JVM flags. The --add-opens are the ones Pulsar's own bin/pulsar passes on Java 17+:
  # BookKeeper (posix_fadvise, CRC32 digest), Netty direct buffers, DNS resolver, GC metrics.
  # Without them the broker still starts but logs reflective-access warnings and falls
  # back to slower code paths.
  local -a jvm_opts
  read -r -a jvm_opts <<<"$MEM_OPTS ${PULSAR_EXTRA_OPTS:-}"
  jvm_opts+=(
    -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError
    --add-opens java.base/java.io=ALL-UNNAMED
    --add-opens java.base/java.util.zip=ALL-UNNAMED
    --add-opens java.base/java.nio=ALL-UNNAMED
    --add-opens java.base/jdk.internal.misc=ALL-UNNAMED
    --add-opens java.base/sun.net=ALL-UNNAMED
    --add-opens java.management/sun.management=ALL-UNNAMED
    -Dio.netty.tryReflectionSetAccessible=true
    -Djava.net.preferIPv4Stack=true
    -Djute.maxbuffer=10485760
    -Djava.io.tmpdir="$TMP_DIR"
    -Dlog4j2.configurationFile="$LOG4J_FILE"
    -Dlog4j.shutdownHookEnabled=false          # standalone shuts log4j down itself
    -Dpulsar.log.level="$LOG_LEVEL"
    -Dbookkeeper.metadata.bookie.drivers=org.apache.pulsar.metadata.bookkeeper.PulsarMetadataBookieDriver
    -Dbookkeeper.metadata.client.drivers=org.apache.pulsar.metadata.bookkeeper.PulsarMetadataClientDriver
  )
  local -a args=(
    --config "$CONF_FILE"
    --no-functions-worker
    --no-stream-storage
    --advertised-address 127.0.0.1
    --bookkeeper-port "$BOOKIE_PORT"
    --metadata-dir "$DATA_DIR/metadata"
    --bookkeeper-dir "$DATA_DIR/bookkeeper"
    --zookeeper-dir "$DATA_DIR/zookeeper"     # never created: its absence selects RocksDB mode
  )

  # Keep the previous run's log for post-mortems.
  [[ -f "$LOG_FILE" ]] && mv -f "$LOG_FILE" "$LOG_FILE.1"

  log "starting Pulsar standalone (log: $LOG_FILE)"
  # setsid: own session, so the broker survives the caller's terminal/process group.
  # The inner shell writes its own pid and then execs java, so the pid file holds the
  # java pid. cwd is the home dir so any relative path the broker uses stays inside it.
  (
    cd "$PULSAR_HOME_DIR"
    # shellcheck disable=SC2016  # $$ and $1 are meant for the inner shell
    exec setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$PID_FILE" \
      "$JAVA" "${jvm_opts[@]}" -cp "$LIB_DIR/*" "$MAIN_CLASS" "${args[@]}" \
      </dev/null >>"$LOG_FILE" 2>&1
  ) &
  # Wait (briefly) for the pid file written by the child.
  local _
  for _ in {1..50}; do [[ -s "$PID_FILE" ]] && break; sleep 0.1; done
  [[ -s "$PID_FILE" ]] || { show_log_tail; die "broker did not start (no pid file)"; }
  pid=$(<"$PID_FILE")
  log "started pid $pid; waiting up to ${START_TIMEOUT}s for $ADMIN_URL"

  wait_healthy "$pid" started
  ensure_functions_namespace
  log "ready: pulsar://127.0.0.1:$BROKER_PORT http://127.0.0.1:$WEB_PORT"
}

# ----------------------------------------------------------------------------
# down
# ----------------------------------------------------------------------------
cmd_down() {
  local pid
  if ! pid=$(running_pid); then
    rm -f "$PID_FILE"
    log "not running"
    return 0
  fi
  log "stopping pid $pid (SIGTERM, up to ${STOP_TIMEOUT}s)"
  kill -TERM "$pid" 2>/dev/null || true
  local start=$SECONDS
  while kill -0 "$pid" 2>/dev/null && (( SECONDS - start < STOP_TIMEOUT )); do
    sleep 0.5
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "still alive after ${STOP_TIMEOUT}s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
  fi
  rm -f "$PID_FILE"
  log "stopped after $(( SECONDS - start ))s"
}

# ----------------------------------------------------------------------------
# status / logs
# ----------------------------------------------------------------------------
cmd_status() {
  local pid
  if pid=$(running_pid); then
    use_running_ports
    if is_healthy; then
      echo "running (pid $pid), healthy: pulsar://127.0.0.1:$BROKER_PORT http://127.0.0.1:$WEB_PORT"
      return 0
    fi
    echo "running (pid $pid), NOT healthy (starting or broken; see '$0 logs')"
    return 1
  fi
  if is_healthy; then
    echo "not managed by this script, but a Pulsar broker answers on $ADMIN_URL"
    return 0
  fi
  echo "not running"
  return 1
}

cmd_logs() {
  [[ -f "$LOG_FILE" ]] || die "no log file at $LOG_FILE"
  if [[ "${1:-}" == "-f" ]]; then
    exec tail -n 200 -F "$LOG_FILE"
  fi
  tail -n "${PULSAR_LOG_LINES:-200}" "$LOG_FILE"
}

usage() {
  sed -n '2,/^$/s/^# \{0,1\}//p' "$0" >&2
  exit 2
}

# ----------------------------------------------------------------------------
case "${1:-}" in
  fetch)  check_java; cmd_fetch ;;
  up)     cmd_up ;;
  down)   cmd_down ;;
  status) cmd_status ;;
  logs)   shift; cmd_logs "$@" ;;
  *)      usage ;;
esac
