# shellcheck shell=bash
# Shared helpers for the local infra scripts (postgres.sh, redis.sh, kafka.sh, infra.sh).
# Sourced, never executed. Everything is driven by environment variables so a test
# harness can run an isolated copy (own data dir, own ports) next to the default one.

# Repo root, derived from this file's location so the scripts work from any cwd.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck disable=SC2034 # used by the scripts that source this file
INFRA_DIR="$ROOT/scripts/infra"

# Absolute paths: relative ones would break once a daemon changes its cwd.
ASSAY_DATA_DIR=$(realpath -m "${ASSAY_DATA_DIR:-$ROOT/.data}")
ASSAY_CACHE_DIR=$(realpath -m "${ASSAY_CACHE_DIR:-$ROOT/.cache}")
LOG_DIR="$ASSAY_DATA_DIR/logs"
export ASSAY_DATA_DIR ASSAY_CACHE_DIR

PG_PORT=${PG_PORT:-55432}
REDIS_PORT=${REDIS_PORT:-6390}
KAFKA_PORT=${KAFKA_PORT:-19092}
KAFKA_CONTROLLER_PORT=${KAFKA_CONTROLLER_PORT:-19093}

# Loopback only (workplace network rule); 127.0.0.1 rather than localhost because
# Node may resolve localhost to ::1.
INFRA_HOST=127.0.0.1

# All diagnostics go to stderr: stdout is reserved for data (`infra.sh env`).
log() { printf '[infra:%s] %s\n' "${INFRA_COMPONENT:-infra}" "$*" >&2; }
die() {
  log "ERROR: $*"
  exit 1
}

is_root() { [ "$(id -u)" -eq 0 ]; }

# port_open PORT [HOST] -> 0 when something accepts TCP connections there.
port_open() {
  local port=$1 host=${2:-$INFRA_HOST}
  # shellcheck disable=SC2016 # $1/$2 expand in the child bash, on purpose
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$host" "$port" 2>/dev/null
}

# port_closed PORT -> negation of port_open, usable as a wait_for condition.
port_closed() { ! port_open "$1"; }

# port_listening PORT -> 0 when any socket listens on PORT (any address), per ss.
# Catches listeners on other addresses that port_open on 127.0.0.1 would miss.
port_listening() {
  ss -Hltn "sport = :$1" 2>/dev/null | grep -q .
}

# port_owner PORT -> human readable "pid/name" of the listener(s), for error messages.
port_owner() {
  ss -Hltnp "sport = :$1" 2>/dev/null | sed -n 's/.*users:(\(.*\))/\1/p' | head -n 3
}

# ensure_port_free PORT WHAT -> die with a clear message when something else holds the port.
ensure_port_free() {
  local port=$1 what=$2
  if port_listening "$port" || port_open "$port"; then
    die "port $port ($what) is already in use by another process: $(port_owner "$port"); pick another port via the env var"
  fi
}

# wait_for TIMEOUT_S DESCRIPTION CMD... -> polls CMD every 0.25 s until it succeeds.
# Returns 1 (does not exit) on timeout so callers can print their own diagnostics.
wait_for() {
  local timeout_s=$1 what=$2
  shift 2
  local deadline=$((SECONDS + timeout_s))
  until "$@"; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      log "timed out after ${timeout_s}s waiting for $what"
      return 1
    fi
    sleep 0.25
  done
}

# pid_alive PID [PATTERN] -> 0 when PID runs and (optionally) its cmdline matches PATTERN.
# The pattern guards against pid reuse after a reboot or a crash: never signal a stranger.
pid_alive() {
  local pid=$1 pattern=${2:-}
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  if [ -n "$pattern" ]; then
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$pattern" || return 1
  fi
}

# read_pidfile FILE -> prints the pid or nothing.
read_pidfile() {
  if [ -f "$1" ]; then head -n 1 "$1" | tr -dc '0-9'; fi
}

# pid_gone PID -> 0 when PID no longer exists (wait_for condition).
pid_gone() { ! kill -0 "$1" 2>/dev/null; }

# stop_pid PID PATTERN WHAT [TIMEOUT_S] -> TERM, wait, then KILL. Only our own pid.
stop_pid() {
  local pid=$1 pattern=$2 what=$3 timeout_s=${4:-30}
  pid_alive "$pid" "$pattern" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  if ! wait_for "$timeout_s" "$what (pid $pid) to exit after SIGTERM" pid_gone "$pid"; then
    log "sending SIGKILL to $what (pid $pid)"
    kill -KILL "$pid" 2>/dev/null || true
    wait_for 10 "$what (pid $pid) to die after SIGKILL" pid_gone "$pid" ||
      die "$what (pid $pid) survived SIGKILL"
  fi
}

# log_tail FILE [N] -> prints the last N lines of FILE to stderr (for failure reports).
log_tail() {
  local file=$1 n=${2:-40}
  if [ -f "$file" ]; then
    log "---- last $n lines of $file ----"
    tail -n "$n" "$file" >&2
    log "---- end of $file ----"
  fi
}

mkdir -p "$LOG_DIR"
