#!/usr/bin/env bash
# Local infrastructure for Assay: PostgreSQL, Redis, Kafka on loopback, non-default ports.
# Usage: scripts/infra/infra.sh up|down|status|env
#
#   up      start everything not provided externally; write $ASSAY_DATA_DIR/infra.env
#           (progress on stderr only, nothing on stdout)
#   down    stop what we run, verify nothing is left, remove infra.env
#   status  per-component state (exit 3 if one of ours is not running)
#   env     print infra.env (for `set -a; . <(scripts/infra/infra.sh env); set +a`)
#
# Env: ASSAY_DATA_DIR (.data) ASSAY_CACHE_DIR (.cache) PG_PORT (55432) REDIS_PORT (6390)
#      KAFKA_PORT (19092) KAFKA_CONTROLLER_PORT (19093).
# DATABASE_URL / REDIS_URL / KAFKA_BROKERS, when set to something other than our own URL,
# mark that component as external: we neither start nor stop it and pass the value through.
# (Our own URL counts as "ours", so sourcing infra.env and then calling down still stops it.)
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
INFRA_COMPONENT=infra

ENV_FILE="$ASSAY_DATA_DIR/infra.env"
COMPONENTS=(postgres redis kafka)

own_url() {
  case $1 in
  postgres) echo "postgres://assay:assay@$INFRA_HOST:$PG_PORT/assay" ;;
  redis) echo "redis://$INFRA_HOST:$REDIS_PORT" ;;
  kafka) echo "$INFRA_HOST:$KAFKA_PORT" ;;
  esac
}

env_name() {
  case $1 in
  postgres) echo DATABASE_URL ;;
  redis) echo REDIS_URL ;;
  kafka) echo KAFKA_BROKERS ;;
  esac
}

# external COMPONENT -> 0 when the user points us at a service we must not manage.
external() {
  local name value
  name=$(env_name "$1")
  value=${!name:-}
  [ -n "$value" ] && [ "$value" != "$(own_url "$1")" ]
}

ports_of() {
  case $1 in
  postgres) echo "$PG_PORT" ;;
  redis) echo "$REDIS_PORT" ;;
  kafka) echo "$KAFKA_PORT $KAFKA_CONTROLLER_PORT" ;;
  esac
}

cmd_up() {
  local c name lines=() t0=$SECONDS
  mkdir -p "$ASSAY_DATA_DIR"
  # Preflight: fail before starting anything when a port we need is taken by a stranger.
  local p
  for c in "${COMPONENTS[@]}"; do
    external "$c" && continue
    "$INFRA_DIR/$c.sh" status >/dev/null 2>&1 && continue
    for p in $(ports_of "$c"); do
      ensure_port_free "$p" "$c"
    done
  done
  for c in "${COMPONENTS[@]}"; do
    name=$(env_name "$c")
    if external "$c"; then
      log "$c: external ($name=${!name}), not starting it"
      lines+=("$name=${!name}")
    else
      # Component scripts log to stderr; force their stdout there too so `up` keeps stdout clean.
      "$INFRA_DIR/$c.sh" start >&2 || die "$c failed to start (already started components keep running; use '$0 down')"
      lines+=("$name=$(own_url "$c")")
    fi
  done
  # Write atomically: a reader never sees a half-written file.
  printf '%s\n' "${lines[@]}" >"$ENV_FILE.tmp"
  mv -f "$ENV_FILE.tmp" "$ENV_FILE"
  log "all up in $((SECONDS - t0))s; wrote $ENV_FILE"
}

cmd_down() {
  local c i leftovers=0
  # Reverse of the start order: Kafka and Redis first, the database last.
  for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do
    c=${COMPONENTS[i]}
    if external "$c"; then
      log "$c: external, not stopping it"
      continue
    fi
    "$INFRA_DIR/$c.sh" stop >&2
  done
  # Verify that nothing of ours survived. Our daemons are recognisable by their working
  # directory (postgres: its data dir, incl. every backend; redis: --dir; kafka: KAFKA_DIR)
  # and by command line (postmaster -D, the Kafka JVM's tag). Ports alone would blame
  # another copy that happens to use the same port.
  local proc cwd comm
  for proc in /proc/[0-9]*; do
    comm=$(cat "$proc/comm" 2>/dev/null) || continue
    case $comm in postgres | redis-server | java) ;; *) continue ;; esac
    cwd=$(readlink "$proc/cwd" 2>/dev/null) || continue
    if [[ "$cwd/" == "$ASSAY_DATA_DIR/"* ]]; then
      log "LEFTOVER: pid ${proc#/proc/} ($comm) runs in $cwd"
      leftovers=1
    fi
  done
  local pat
  for pat in "bin/postgres -D $ASSAY_DATA_DIR/postgres" "-Dassay.infra.dir=$ASSAY_DATA_DIR kafka.Kafka"; do
    if pgrep -af -- "$pat" >&2; then
      log "LEFTOVER: process above matches '$pat'"
      leftovers=1
    fi
  done
  [ "$leftovers" -eq 0 ] || die "down left processes behind"
  rm -f "$ENV_FILE"
  log "all down"
}

cmd_status() {
  local c name rc=0
  for c in "${COMPONENTS[@]}"; do
    if external "$c"; then
      name=$(env_name "$c")
      log "$c: external ($name=${!name})"
    else
      "$INFRA_DIR/$c.sh" status >&2 || rc=3
    fi
  done
  return "$rc"
}

cmd_env() {
  [ -f "$ENV_FILE" ] || die "$ENV_FILE not found; run '$0 up' first"
  cat "$ENV_FILE"
}

case "${1:-}" in
up) cmd_up ;;
down) cmd_down ;;
status) cmd_status ;;
env) cmd_env ;;
*)
  echo "usage: $0 up|down|status|env" >&2
  exit 2
  ;;
esac
