#!/usr/bin/env bash
# Local single-node Kafka 3.9.1 (KRaft, broker+controller in one JVM) from Maven Central jars.
#   PLAINTEXT  127.0.0.1:$KAFKA_PORT             (clients)
#   CONTROLLER 127.0.0.1:$KAFKA_CONTROLLER_PORT  (KRaft quorum)
# Jars are cached in $ASSAY_CACHE_DIR/kafka/libs (shared between copies); state, config and
# pid file live in $ASSAY_DATA_DIR/kafka; logs in $ASSAY_DATA_DIR/logs/kafka.log.
# Usage: scripts/infra/kafka.sh start|stop|status
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
INFRA_COMPONENT=kafka

POM="$INFRA_DIR/kafka/pom.xml"
M2="$ASSAY_CACHE_DIR/m2"
LIBS="$ASSAY_CACHE_DIR/kafka/libs"
STAMP="$LIBS/.stamp" # copy of the pom the jars were resolved from; written last
KAFKA_DIR="$ASSAY_DATA_DIR/kafka"
KRAFT_DIR="$KAFKA_DIR/kraft"
FORMATTED="$KAFKA_DIR/.formatted" # cluster id we formatted KRAFT_DIR with
CONF="$KAFKA_DIR/server.properties"
LOG4J="$KAFKA_DIR/log4j.properties"
PIDFILE="$KAFKA_DIR/kafka.pid"
KAFKA_LOG="$LOG_DIR/kafka.log" # broker log (log4j)
KAFKA_OUT="$LOG_DIR/kafka.out" # raw JVM stdout/stderr (crashes, JVM warnings)
START_TIMEOUT=${KAFKA_START_TIMEOUT:-90}
STOP_TIMEOUT=${KAFKA_STOP_TIMEOUT:-30}
# Tag on the JVM command line: identifies *this* copy's broker (pid-reuse guard, ps/pgrep).
TAG="-Dassay.infra.dir=$ASSAY_DATA_DIR"
# Small heap, serial GC and C1-only JIT: less memory and CPU on a 2-core dev box, faster start.
read -r -a HEAP_OPTS <<<"${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}"
read -r -a JVM_OPTS <<<"${KAFKA_JVM_OPTS:--XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true}"

# ---------------------------------------------------------------------------------------------
# Jars: resolved once with Maven; afterwards the stamp short-circuits everything (no network).
ensure_jars() {
  mkdir -p "$ASSAY_CACHE_DIR/kafka"
  # Subshell + flock: two copies starting at once must not download into the same folder.
  # The subshell also keeps the lock fd away from the JVM we launch later.
  (
    flock 9
    if [ -f "$STAMP" ] && cmp -s "$POM" "$STAMP" && compgen -G "$LIBS/kafka_2.13-*.jar" >/dev/null; then
      log "jars cached in $LIBS (mvn skipped)"
      exit 0
    fi
    command -v mvn >/dev/null || die "mvn not found (apt-get install -y maven)"
    local tmp="$LIBS.tmp.$$" t0=$SECONDS
    rm -rf "$tmp"
    local mvn_args=(-q -B -ntp -f "$POM" "-Dmaven.repo.local=$M2"
      org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies
      -DincludeScope=runtime "-DoutputDirectory=$tmp")
    # Plugin pinned: without a version Maven 3.8.7 falls back to the ancient 2.8.
    # If the local repo already has everything, resolve offline first; fall back to Central.
    if [ -d "$M2" ] && mvn -o "${mvn_args[@]}" >/dev/null 2>&1; then
      log "jars copied from local Maven repo $M2 (offline)"
    else
      rm -rf "$tmp"
      log "downloading Kafka jars from Maven Central into $M2 (one-off, ~1 min)"
      # Debian's Maven 3.8.7 prints bare ANSI resets even with -B/-q; strip them.
      mvn "${mvn_args[@]}" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >&2 || die "mvn copy-dependencies failed"
    fi
    compgen -G "$tmp/kafka_2.13-*.jar" >/dev/null || die "mvn finished but $tmp has no kafka_2.13 jar"
    cp "$POM" "$tmp/.stamp"
    # Swap in atomically so a half-downloaded folder is never mistaken for a complete one.
    rm -rf "$LIBS"
    mv "$tmp" "$LIBS"
    log "jars ready in $LIBS ($(find "$LIBS" -name '*.jar' | wc -l) jars, $((SECONDS - t0))s)"
  ) 9>"$ASSAY_CACHE_DIR/kafka/.lock"
}

# ---------------------------------------------------------------------------------------------
write_config() {
  mkdir -p "$KAFKA_DIR" "$LOG_DIR"
  # Rewritten on every start so port changes via env vars take effect.
  cat >"$CONF" <<EOF
# Written by scripts/infra/kafka.sh on every start; edits are overwritten.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
controller.listener.names=CONTROLLER
# Loopback only; advertise 127.0.0.1 (not localhost: Node may resolve that to ::1).
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$KRAFT_DIR
num.partitions=3
auto.create.topics.enable=true
# Single node: every replication factor / min ISR must be 1, or __consumer_offsets is never
# created and consumer groups loop on "coordinator not available".
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
# Fewer internal partitions and no rebalance delay: faster first group join in tests.
offsets.topic.num.partitions=4
transaction.state.log.num.partitions=4
group.initial.rebalance.delay.ms=0
# Small thread pools for a 2-core box.
num.network.threads=2
num.io.threads=2
background.threads=2
num.recovery.threads.per.data.dir=1
log.retention.hours=24
EOF
  cat >"$LOG4J" <<EOF
# reload4j (log4j 1.x syntax) for Kafka 3.9; written by scripts/infra/kafka.sh.
log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=$KAFKA_LOG
log4j.appender.file.Append=true
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
# Per-request and state-change chatter is useless locally.
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.kafka.authorizer.logger=WARN
EOF
}

# Format KRAFT_DIR unless it already carries the cluster id we formatted it with. Anything
# else found there (foreign or half-formatted data) is wiped: reformatting with a new
# cluster id over old data fails.
ensure_formatted() {
  if [ -f "$FORMATTED" ] && [ -f "$KRAFT_DIR/meta.properties" ] &&
    grep -qx "cluster.id=$(cat "$FORMATTED")" "$KRAFT_DIR/meta.properties"; then
    return 0
  fi
  if [ -d "$KRAFT_DIR" ] && [ -n "$(ls -A "$KRAFT_DIR")" ]; then
    log "wiping $KRAFT_DIR (not formatted by this script)"
  fi
  rm -rf "$KRAFT_DIR" "$FORMATTED"
  mkdir -p "$KRAFT_DIR"
  # Cluster id = 16 random bytes, base64url without padding (22 chars), as Kafka's
  # Uuid.randomUuid does. Like Kafka, avoid a leading '-' (argparse would take it for a flag).
  local id
  id=-
  while [ "${id:0:1}" = - ]; do
    id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')
  done
  log "formatting $KRAFT_DIR (cluster id $id)"
  if ! java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 "-Dlog4j.configuration=file:$LOG4J" \
    -cp "$LIBS/*" kafka.tools.StorageTool format -t "$id" -c "$CONF" --ignore-formatted \
    </dev/null >>"$KAFKA_OUT" 2>&1; then
    log_tail "$KAFKA_OUT"
    die "kafka storage format failed"
  fi
  echo "$id" >"$FORMATTED"
}

# ---------------------------------------------------------------------------------------------
our_pid() {
  local pid
  pid=$(read_pidfile "$PIDFILE")
  if pid_alive "$pid" "kafka.Kafka"; then
    echo "$pid"
    return 0
  fi
  # Safety net if the pid file was lost: find this copy's broker by its command-line tag.
  pid=$(pgrep -f -- "$TAG kafka.Kafka" | head -n 1 || true)
  [ -n "$pid" ] && echo "$pid"
}

# Ready = the client port accepts connections AND the broker logged its started message
# after our launch marker (so an old "started" line from a previous run does not count).
broker_ready() {
  port_open "$KAFKA_PORT" || return 1
  [ -f "$KAFKA_LOG" ] || return 1
  awk -v m="$1" 'found && /Kafka Server started/ {ok=1} index($0, m) {found=1} END {exit !ok}' "$KAFKA_LOG"
}

wait_ready() {
  local pid=$1 marker=$2 deadline=$((SECONDS + START_TIMEOUT))
  until broker_ready "$marker"; do
    if ! pid_alive "$pid"; then
      log_tail "$KAFKA_LOG" 60
      log_tail "$KAFKA_OUT" 20
      die "kafka JVM (pid $pid) exited during startup"
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      log_tail "$KAFKA_LOG" 60
      log_tail "$KAFKA_OUT" 20
      # Do not leave a half-started broker behind holding the ports.
      stop_pid "$pid" "kafka.Kafka" kafka 10
      rm -f "$PIDFILE"
      die "kafka not ready after ${START_TIMEOUT}s (KAFKA_START_TIMEOUT); JVM stopped; see $KAFKA_LOG"
    fi
    sleep 0.25
  done
}

cmd_start() {
  local pid t0=$SECONDS
  pid=$(our_pid || true)
  if [ -n "$pid" ]; then
    # Possibly still starting (e.g. a concurrent start): give it the normal start timeout.
    wait_for "$START_TIMEOUT" "kafka (pid $pid) to open port $KAFKA_PORT" port_open "$KAFKA_PORT" ||
      die "kafka JVM (pid $pid) runs but port $KAFKA_PORT stays closed; run '$0 stop' and retry"
    log "already running on $INFRA_HOST:$KAFKA_PORT (pid $pid)"
    return 0
  fi
  rm -f "$PIDFILE"
  ensure_port_free "$KAFKA_PORT" "KAFKA_PORT"
  ensure_port_free "$KAFKA_CONTROLLER_PORT" "KAFKA_CONTROLLER_PORT"
  command -v java >/dev/null || die "java not found (Java 17 required)"
  ensure_jars
  write_config
  ensure_formatted

  # Keep the log from growing forever across restarts.
  if [ -f "$KAFKA_LOG" ] && [ "$(stat -c %s "$KAFKA_LOG")" -gt $((50 * 1024 * 1024)) ]; then
    mv -f "$KAFKA_LOG" "$KAFKA_LOG.old"
  fi
  local marker
  marker="assay-infra kafka launch $(date +%s%N)"
  echo "$marker" >>"$KAFKA_LOG"

  log "starting on $INFRA_HOST:$KAFKA_PORT (controller $KAFKA_CONTROLLER_PORT, log: $KAFKA_LOG)"
  # setsid: own session, so Ctrl-C / SIGHUP aimed at the caller does not hit the broker.
  # The inner bash writes its pid and then execs java, so the pid file holds the JVM's pid.
  # cwd = KAFKA_DIR: hs_err files land there, and `infra.sh down` finds leftovers by cwd.
  # stdio goes to files: a caller capturing our output must not wait on the JVM's pipes.
  # shellcheck disable=SC2016 # $$/$1/$2 expand in the child bash, on purpose
  setsid bash -c 'cd "$1" && echo $$ >"$2" && shift 2 && exec "$@"' _ "$KAFKA_DIR" "$PIDFILE" \
    java "${HEAP_OPTS[@]}" "${JVM_OPTS[@]}" "-Dlog4j.configuration=file:$LOG4J" \
    "-Dkafka.logs.dir=$LOG_DIR" -cp "$LIBS/*" "$TAG" kafka.Kafka "$CONF" \
    </dev/null >>"$KAFKA_OUT" 2>&1 &
  wait_for 10 "kafka pid file" test -s "$PIDFILE" || die "kafka launcher did not write $PIDFILE"
  pid=$(read_pidfile "$PIDFILE")
  wait_ready "$pid" "$marker"
  log "ready: $INFRA_HOST:$KAFKA_PORT (pid $pid, started in $((SECONDS - t0))s)"
}

cmd_stop() {
  local pid
  pid=$(our_pid || true)
  if [ -z "$pid" ]; then
    rm -f "$PIDFILE"
    log "not running"
    return 0
  fi
  log "stopping (pid $pid)"
  # SIGTERM triggers Kafka's controlled shutdown; SIGKILL after STOP_TIMEOUT.
  stop_pid "$pid" "kafka.Kafka" kafka "$STOP_TIMEOUT"
  rm -f "$PIDFILE"
  local p
  for p in "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT"; do
    wait_for 15 "port $p to be released" port_closed "$p" ||
      die "port $p still open after stop"
  done
  log "stopped"
}

cmd_status() {
  local pid
  pid=$(our_pid || true)
  if [ -n "$pid" ] && port_open "$KAFKA_PORT"; then
    log "running on $INFRA_HOST:$KAFKA_PORT (pid $pid)"
  else
    log "stopped"
    return 3
  fi
}

case "${1:-}" in
start) cmd_start ;;
stop) cmd_stop ;;
status) cmd_status ;;
*)
  echo "usage: $0 start|stop|status" >&2
  exit 2
  ;;
esac
