#!/usr/bin/env bash
# Local Redis for dev/test: 127.0.0.1:$REDIS_PORT, no persistence, daemonized.
# Usage: scripts/infra/redis.sh start|stop|status
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
INFRA_COMPONENT=redis

REDIS_DIR="$ASSAY_DATA_DIR/redis"
REDIS_PID="$REDIS_DIR/redis.pid"
REDIS_LOG="$LOG_DIR/redis.log"

ensure_installed() {
  command -v redis-server >/dev/null && command -v redis-cli >/dev/null && return 0
  is_root || die "redis-server is missing; install it with: sudo apt-get install -y redis-server"
  log "installing redis-server with apt"
  export DEBIAN_FRONTEND=noninteractive
  # Try with the existing package lists first: `apt-get update` is slow and usually unneeded.
  if ! apt-get install -y -qq redis-server >/dev/null 2>&1; then
    log "install failed; running apt-get update and retrying"
    apt-get update -qq >&2
    apt-get install -y -qq redis-server >&2
  fi
  # The Debian package may auto-start a system redis on 6379 (systemd hosts). That one is
  # not ours; we always run our own on REDIS_PORT.
  command -v redis-server >/dev/null || die "redis-server still missing after apt-get install"
}

our_pid() {
  local pid
  pid=$(read_pidfile "$REDIS_PID")
  pid_alive "$pid" redis-server && echo "$pid"
}

ping_ok() {
  [ "$(redis-cli -h "$INFRA_HOST" -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]
}

cmd_start() {
  ensure_installed
  if [ -n "$(our_pid || true)" ]; then
    wait_for 10 "redis PONG" ping_ok || die "redis process exists but does not answer PING"
    log "already running on $INFRA_HOST:$REDIS_PORT"
    return 0
  fi
  ensure_port_free "$REDIS_PORT" "REDIS_PORT"
  mkdir -p "$REDIS_DIR" "$LOG_DIR"
  rm -f "$REDIS_PID"
  log "starting on $INFRA_HOST:$REDIS_PORT (log: $REDIS_LOG)"
  # --save '' + --appendonly no: pure in-memory cache, nothing written on shutdown.
  # --daemonize: redis forks, detaches and closes stdio, so callers capturing our
  # output never hang on an inherited pipe.
  redis-server --port "$REDIS_PORT" --bind "$INFRA_HOST" --protected-mode yes \
    --save '' --appendonly no --daemonize yes \
    --dir "$REDIS_DIR" --pidfile "$REDIS_PID" --logfile "$REDIS_LOG" >/dev/null ||
    die "redis-server failed to launch"
  if ! wait_for 15 "redis PONG on port $REDIS_PORT" ping_ok; then
    log_tail "$REDIS_LOG"
    die "redis did not become ready"
  fi
  log "ready: redis://$INFRA_HOST:$REDIS_PORT"
}

cmd_stop() {
  local pid
  pid=$(our_pid || true)
  if [ -z "$pid" ]; then
    rm -f "$REDIS_PID"
    log "not running"
    return 0
  fi
  log "stopping (pid $pid)"
  # SIGTERM = clean shutdown; with --save '' nothing is written to disk.
  stop_pid "$pid" redis-server redis 20
  rm -f "$REDIS_PID"
  wait_for 10 "port $REDIS_PORT to be released" port_closed "$REDIS_PORT" ||
    die "port $REDIS_PORT still open after stop"
  log "stopped"
}

cmd_status() {
  local pid
  pid=$(our_pid || true)
  if [ -n "$pid" ] && ping_ok; then
    log "running on $INFRA_HOST:$REDIS_PORT (pid $pid)"
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
