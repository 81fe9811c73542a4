#!/usr/bin/env bash
# Local PostgreSQL 15 for dev/test: 127.0.0.1:$PG_PORT, data in $ASSAY_DATA_DIR/postgres.
# Usage: scripts/infra/postgres.sh start|stop|status
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
INFRA_COMPONENT=postgres

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PGDATA_DIR="$ASSAY_DATA_DIR/postgres"
PG_LOG="$LOG_DIR/postgres.log"
PG_DB=assay
PG_USER=assay
PG_PASSWORD=assay

[ -x "$PG_BIN/pg_ctl" ] || die "PostgreSQL binaries not found in $PG_BIN (set PG_BIN, or apt-get install postgresql-15)"

# The unix socket lives in the data dir (nothing touches /var/run). Linux caps socket
# paths at 107 bytes, so fail early with a clear message instead of a cryptic one.
socket_path="$PGDATA_DIR/.s.PGSQL.$PG_PORT"
[ "${#socket_path}" -le 100 ] || die "socket path too long (${#socket_path} > 100 bytes): $socket_path; use a shorter ASSAY_DATA_DIR"

# Postgres refuses to run as root: as root, run its tools as the `postgres` user.
# `cd /` avoids "could not change directory" noise when cwd is e.g. /root.
as_pg() {
  if is_root; then
    (cd / && runuser -u postgres -- "$@")
  else
    "$@"
  fi
}

pg_running() {
  [ -f "$PGDATA_DIR/PG_VERSION" ] && as_pg "$PG_BIN/pg_ctl" -D "$PGDATA_DIR" status >/dev/null 2>&1
}

# Superuser psql over the unix socket in the data dir (trust auth, dir is 0700).
psql_admin() {
  as_pg "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PGDATA_DIR" -p "$PG_PORT" -U postgres -d postgres "$@"
}

# As root the data dir must belong to postgres, and every parent must be traversable by it.
prepare_dirs() {
  mkdir -p "$PGDATA_DIR" "$LOG_DIR"
  touch "$PG_LOG"
  if is_root; then
    chown postgres:postgres "$PGDATA_DIR" "$PG_LOG"
    local d=$ASSAY_DATA_DIR
    while [ "$d" != / ]; do
      if ! runuser -u postgres -- test -x "$d"; then
        log "making $d traversable (o+x) for the postgres user"
        chmod o+x "$d"
      fi
      d=$(dirname "$d")
    done
  fi
  chmod 0700 "$PGDATA_DIR"
}

init_cluster() {
  log "initdb in $PGDATA_DIR"
  # Local socket: trust (only the postgres user can enter the 0700 data dir).
  # TCP: password (scram) for everyone, so apps authenticate like in production.
  # --no-sync: nothing to lose on a throwaway dev cluster, and initdb is much faster.
  as_pg "$PG_BIN/initdb" -D "$PGDATA_DIR" -U postgres -E UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 --no-sync >>"$PG_LOG" 2>&1 ||
    {
      log_tail "$PG_LOG"
      die "initdb failed"
    }
  # Our settings live in a file we rewrite on every start (ports may change between runs).
  echo "include_if_exists = 'assay.conf'" | as_pg tee -a "$PGDATA_DIR/postgresql.conf" >/dev/null
}

write_conf() {
  as_pg tee "$PGDATA_DIR/assay.conf" >/dev/null <<EOF
# Written by scripts/infra/postgres.sh on every start; edits are overwritten.
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$PGDATA_DIR'
max_connections = 200
shared_buffers = 128MB
# Dev/test only: trading crash safety for speed. A host crash can corrupt this cluster;
# acceptable for a throwaway local database, NEVER for production.
fsync = off
synchronous_commit = off
full_page_writes = off
# Quieter, dev-friendly logging.
log_min_messages = warning
log_line_prefix = '%m [%p] %q%u@%d '
EOF
}

bootstrap_db() {
  # Idempotent: role and database are created only when missing.
  psql_admin -f - <<EOF
DO \$\$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$PG_USER') THEN
    CREATE ROLE $PG_USER LOGIN PASSWORD '$PG_PASSWORD';
  END IF;
  -- Tests give a service under test its own database (a second copy of a consumer, say).
  ALTER ROLE $PG_USER CREATEDB;
END
\$\$;
SELECT 'CREATE DATABASE $PG_DB OWNER $PG_USER'
 WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '$PG_DB')\gexec
EOF
}

cmd_start() {
  if pg_running; then
    log "already running on $INFRA_HOST:$PG_PORT"
    bootstrap_db
    return 0
  fi
  ensure_port_free "$PG_PORT" "PG_PORT"
  prepare_dirs
  [ -f "$PGDATA_DIR/PG_VERSION" ] || init_cluster
  write_conf
  log "starting on $INFRA_HOST:$PG_PORT (log: $PG_LOG)"
  if ! as_pg "$PG_BIN/pg_ctl" -D "$PGDATA_DIR" -l "$PG_LOG" -w -t 60 start >/dev/null; then
    log_tail "$PG_LOG"
    die "postgres failed to start"
  fi
  bootstrap_db
  log "ready: postgres://$PG_USER:$PG_PASSWORD@$INFRA_HOST:$PG_PORT/$PG_DB"
}

cmd_stop() {
  if ! pg_running; then
    log "not running"
    return 0
  fi
  log "stopping"
  local pid
  pid=$(head -n 1 "$PGDATA_DIR/postmaster.pid" 2>/dev/null | tr -dc '0-9')
  # fast = roll back open transactions and disconnect clients, then shut down cleanly.
  as_pg "$PG_BIN/pg_ctl" -D "$PGDATA_DIR" -m fast -w -t 60 stop >/dev/null ||
    die "pg_ctl stop failed (see $PG_LOG)"
  # pg_ctl returns once the pid file is gone, a moment before the postmaster has exited and been collected.
  [ -z "$pid" ] || wait_for 15 "the postmaster (pid $pid) to exit" pid_gone "$pid" ||
    log "the postmaster (pid $pid) has exited but was not collected by its parent yet"
  wait_for 15 "port $PG_PORT to be released" port_closed "$PG_PORT" ||
    die "port $PG_PORT still open after stop"
  log "stopped"
}

cmd_status() {
  if pg_running; then
    log "running on $INFRA_HOST:$PG_PORT (data: $PGDATA_DIR)"
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
