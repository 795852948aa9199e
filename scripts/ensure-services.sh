#!/usr/bin/env bash
# Make sure the three services the fencing-jdbc tests need are installed, running
# and reachable the way the tests expect (and that faketime is installed):
#
#   PostgreSQL  127.0.0.1:5432  trust auth over TCP for any user; role `root`
#                               (superuser) and databases `test` and `root`
#   MariaDB     127.0.0.1:3306  root with no password over TCP; database `test`
#   Redis       127.0.0.1:6379
#   etcd        the binaries only (Debian etcd-server and etcd-client 3.4): the etcd lock
#               tests start their own etcd processes on free loopback ports
#   pgbouncer   the binary only (Debian pgbouncer): the pooler tests start their own
#               pgbouncer processes on free loopback ports in front of PostgreSQL; the
#               system service the package sets up is never started here
#
# Idempotent and silent when everything is already fine; prints one line for
# each thing it had to install, start or fix. Missing packages are installed
# with apt-get (Debian), stopped services are started without systemd.
#
# Optional overrides (defaults shown):
#   FENCING_PG_HOST=127.0.0.1       FENCING_PG_PORT=5432
#   FENCING_MARIADB_HOST=127.0.0.1  FENCING_MARIADB_PORT=3306
#   FENCING_REDIS_HOST=127.0.0.1    FENCING_REDIS_PORT=6379
#   FENCING_SERVICES_WAIT=60        seconds to wait for a started service
# Services on a non-loopback host are only checked, never installed or started.
set -euo pipefail

PG_HOST=${FENCING_PG_HOST:-127.0.0.1}
PG_PORT=${FENCING_PG_PORT:-5432}
MARIADB_HOST=${FENCING_MARIADB_HOST:-127.0.0.1}
MARIADB_PORT=${FENCING_MARIADB_PORT:-3306}
REDIS_HOST=${FENCING_REDIS_HOST:-127.0.0.1}
REDIS_PORT=${FENCING_REDIS_PORT:-6379}
WAIT_SECONDS=${FENCING_SERVICES_WAIT:-60}

say() { echo "ensure-services: $*"; }
die() { echo "ensure-services: ERROR: $*" >&2; exit 1; }

is_local() {
  case "$1" in
    127.*|localhost|::1) return 0 ;;
    *) return 1 ;;
  esac
}

# Run a command as root (directly, or through passwordless sudo).
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo -n "$@"
  else
    die "need root (or passwordless sudo) to run: $*"
  fi
}

# Run a command as another OS user (e.g. postgres for peer auth on the socket).
as_user() {
  local user=$1; shift
  if [ "$(id -un)" = "$user" ]; then
    "$@"
  elif [ "$(id -u)" -eq 0 ]; then
    runuser -u "$user" -- "$@"
  else
    as_root runuser -u "$user" -- "$@"
  fi
}

# Poll "$@" once a second until it succeeds or WAIT_SECONDS have passed.
wait_for() {
  local what=$1; shift
  local deadline=$((SECONDS + WAIT_SECONDS))
  until "$@"; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      die "$what did not answer within ${WAIT_SECONDS}s"
    fi
    sleep 1
  done
}

APT_UPDATED=0
apt_install() {
  local log
  log=$(mktemp)
  export DEBIAN_FRONTEND=noninteractive
  if [ "$APT_UPDATED" -eq 0 ]; then
    if ! as_root apt-get -o DPkg::Lock::Timeout=300 update -q >"$log" 2>&1 9>&-; then
      cat "$log" >&2; rm -f "$log"; die "apt-get update failed"
    fi
    APT_UPDATED=1
  fi
  if ! as_root apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends "$@" >"$log" 2>&1 9>&-; then
    cat "$log" >&2; rm -f "$log"; die "apt-get install $* failed"
  fi
  rm -f "$log"
  say "installed $*"
}

# Serialise concurrent runs (two sessions starting the same service at once).
# The lock lives on fd 9; every command that may leave a daemon behind runs
# with `9>&-`, otherwise the daemon would inherit the fd and hold the lock forever.
if command -v flock >/dev/null 2>&1; then
  exec 9>"${TMPDIR:-/tmp}/fencing-ensure-services.lock"
  flock -w 120 9 || echo "ensure-services: warning: lock still held after 120s, going on without it" >&2
fi

# ---------------------------------------------------------------- PostgreSQL

pg_answers() { pg_isready -q -h "$PG_HOST" -p "$PG_PORT" -t 2; }

# SQL over TCP as the postgres superuser, never prompting for a password.
pg_tcp() {
  PGCONNECT_TIMEOUT=5 psql -X -w -q -At -v ON_ERROR_STOP=1 \
    -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres "$@"
}

# SQL over the local socket as OS user postgres (peer auth on Debian).
pg_socket() {
  as_user postgres psql -X -w -q -At -v ON_ERROR_STOP=1 -p "$PG_PORT" -d postgres "$@"
}

pg_start_local() {
  local ver="" cluster="" status=""
  # Pick the cluster configured for PG_PORT.
  read -r ver cluster status < <(pg_lsclusters -h | awk -v p="$PG_PORT" '$3 == p { print $1, $2, $4; exit }') || true
  if [ -z "$ver" ]; then
    if [ -n "$(pg_lsclusters -h)" ]; then
      pg_lsclusters >&2
      die "no PostgreSQL cluster is configured for port $PG_PORT"
    fi
    ver=$(find /usr/lib/postgresql -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -V | tail -n 1)
    [ -n "$ver" ] || die "no PostgreSQL server version found under /usr/lib/postgresql"
    cluster=main
    as_root pg_createcluster "$ver" "$cluster" -p "$PG_PORT" >/dev/null 9>&-
    say "created PostgreSQL cluster $ver/$cluster on port $PG_PORT"
  fi
  if [ "$status" != "online" ]; then
    as_root pg_ctlcluster --skip-systemctl-redirect "$ver" "$cluster" start 9>&-
    say "started PostgreSQL $ver/$cluster"
  fi
}

pg_trust_loopback() {
  local hba
  hba=$(pg_socket -c 'SHOW hba_file') ||
    die "cannot reach PostgreSQL through its socket as OS user postgres to fix pg_hba.conf"
  # First matching line wins, so put the trust lines at the top.
  as_root sed -i '1i\
# fencing-jdbc scripts/ensure-services.sh: tests connect over loopback TCP without a password\
host    all             all             127.0.0.1/32            trust\
host    all             all             ::1/128                 trust' "$hba"
  pg_socket -c 'SELECT pg_reload_conf()' >/dev/null
  say "PostgreSQL: set trust auth for 127.0.0.1/32 and ::1/128 in $hba"
}

ensure_postgres() {
  local local_host=0
  is_local "$PG_HOST" && local_host=1

  if ! command -v psql >/dev/null 2>&1 || ! command -v pg_isready >/dev/null 2>&1; then
    if [ "$local_host" -eq 1 ]; then apt_install postgresql postgresql-client
    else apt_install postgresql-client; fi
  elif [ "$local_host" -eq 1 ] && ! compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null; then
    apt_install postgresql
  fi

  if ! pg_answers; then
    [ "$local_host" -eq 1 ] || die "PostgreSQL at $PG_HOST:$PG_PORT is not answering"
    pg_start_local
    wait_for "PostgreSQL at $PG_HOST:$PG_PORT" pg_answers
  fi

  if ! pg_tcp -c 'SELECT 1' >/dev/null 2>&1; then
    [ "$local_host" -eq 1 ] || die "cannot log in to PostgreSQL at $PG_HOST:$PG_PORT as postgres without a password"
    pg_trust_loopback
    local _
    for _ in 1 2 3 4 5; do
      pg_tcp -c 'SELECT 1' >/dev/null 2>&1 && break
      sleep 1
    done
    pg_tcp -c 'SELECT 1' >/dev/null || die "PostgreSQL still refuses passwordless TCP login"
  fi

  case "$(pg_tcp -c "SELECT rolsuper AND rolcanlogin FROM pg_roles WHERE rolname = 'root'")" in
    t) ;;
    f) pg_tcp -c 'ALTER ROLE root WITH SUPERUSER LOGIN'
       say "PostgreSQL: made role root a superuser" ;;
    *) pg_tcp -c 'CREATE ROLE root WITH SUPERUSER LOGIN'
       say "PostgreSQL: created role root" ;;
  esac

  local db
  for db in test root; do
    if [ -z "$(pg_tcp -c "SELECT 1 FROM pg_database WHERE datname = '$db'")" ]; then
      pg_tcp -c "CREATE DATABASE \"$db\" OWNER root"
      say "PostgreSQL: created database $db"
    fi
  done
}

# ------------------------------------------------------------------- MariaDB

mariadb_admin_bin() {
  if command -v mariadb-admin >/dev/null 2>&1; then echo mariadb-admin; else echo mysqladmin; fi
}
mariadb_client_bin() {
  if command -v mariadb >/dev/null 2>&1; then echo mariadb; else echo mysql; fi
}

# `ping` succeeds whenever the server is up, even if the login itself is refused.
mariadb_answers() {
  "$(mariadb_admin_bin)" --no-defaults --protocol=TCP --connect-timeout=2 \
    -h "$MARIADB_HOST" -P "$MARIADB_PORT" -uroot ping >/dev/null 2>&1
}

# SQL over TCP as root with no password (exactly what the tests do).
mariadb_tcp() {
  "$(mariadb_client_bin)" --no-defaults --protocol=TCP --connect-timeout=5 \
    -h "$MARIADB_HOST" -P "$MARIADB_PORT" -uroot -N -B "$@"
}

# SQL over the local socket as OS root (unix_socket auth on a fresh Debian install).
mariadb_socket() {
  as_root "$(mariadb_client_bin)" --protocol=SOCKET -uroot -N -B "$@"
}

mariadb_start_local() {
  as_root install -d -o mysql -g mysql /run/mysqld
  [ -d /var/log/mysql ] || as_root install -d -o mysql -g adm /var/log/mysql
  # mariadbd refuses to run as root unless told which user to switch to.
  as_root start-stop-daemon --start --oknodo --quiet --background \
    --exec /usr/sbin/mariadbd -- --user=mysql --port="$MARIADB_PORT" 9>&-
  say "started MariaDB"
}

mariadb_fix_root_login() {
  mariadb_socket -e 'SELECT 1' >/dev/null 2>&1 ||
    die "cannot log in to MariaDB as root over TCP without a password, nor through the socket to fix it"
  # Depending on name resolution a loopback TCP client may match root@localhost
  # or root@127.0.0.1 / root@::1, so allow an empty password on all of them
  # (root@localhost keeps unix_socket auth as well).
  mariadb_socket <<'SQL'
CREATE USER IF NOT EXISTS 'root'@'127.0.0.1';
CREATE USER IF NOT EXISTS 'root'@'::1';
ALTER USER 'root'@'127.0.0.1' IDENTIFIED VIA mysql_native_password USING PASSWORD('');
ALTER USER 'root'@'::1' IDENTIFIED VIA mysql_native_password USING PASSWORD('');
ALTER USER 'root'@'localhost' IDENTIFIED VIA unix_socket OR mysql_native_password USING PASSWORD('');
GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;
GRANT ALL PRIVILEGES ON *.* TO 'root'@'::1' WITH GRANT OPTION;
FLUSH PRIVILEGES;
SQL
  say "MariaDB: allowed root to log in over TCP without a password"
}

ensure_mariadb() {
  local local_host=0
  is_local "$MARIADB_HOST" && local_host=1

  if ! command -v mariadb >/dev/null 2>&1 && ! command -v mysql >/dev/null 2>&1; then
    if [ "$local_host" -eq 1 ]; then apt_install mariadb-server mariadb-client
    else apt_install mariadb-client; fi
  elif [ "$local_host" -eq 1 ] && [ ! -x /usr/sbin/mariadbd ]; then
    apt_install mariadb-server
  fi

  if ! mariadb_answers; then
    [ "$local_host" -eq 1 ] || die "MariaDB at $MARIADB_HOST:$MARIADB_PORT is not answering"
    mariadb_start_local
    wait_for "MariaDB at $MARIADB_HOST:$MARIADB_PORT" mariadb_answers
  fi

  if ! mariadb_tcp -e 'SELECT 1' >/dev/null 2>&1; then
    [ "$local_host" -eq 1 ] || die "cannot log in to MariaDB at $MARIADB_HOST:$MARIADB_PORT as root without a password"
    mariadb_fix_root_login
    mariadb_tcp -e 'SELECT 1' >/dev/null || die "MariaDB still refuses passwordless root login over TCP"
  fi

  if [ -z "$(mariadb_tcp -e "SHOW DATABASES LIKE 'test'")" ]; then
    mariadb_tcp -e 'CREATE DATABASE IF NOT EXISTS test'
    say "MariaDB: created database test"
  fi
}

# --------------------------------------------------------------------- Redis

redis_answers() {
  [ "$(timeout 5 redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping 2>/dev/null)" = "PONG" ]
}

redis_start_local() {
  [ -d /var/lib/redis ] || as_root install -d /var/lib/redis
  [ -d /var/log/redis ] || as_root install -d /var/log/redis
  as_root redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$REDIS_PORT" \
    --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log 9>&-
  say "started Redis"
}

ensure_redis() {
  local local_host=0
  is_local "$REDIS_HOST" && local_host=1

  if ! command -v redis-cli >/dev/null 2>&1; then
    if [ "$local_host" -eq 1 ]; then apt_install redis-server redis-tools
    else apt_install redis-tools; fi
  elif [ "$local_host" -eq 1 ] && ! command -v redis-server >/dev/null 2>&1; then
    apt_install redis-server
  fi

  if ! redis_answers; then
    [ "$local_host" -eq 1 ] || die "Redis at $REDIS_HOST:$REDIS_PORT is not answering"
    redis_start_local
    wait_for "Redis at $REDIS_HOST:$REDIS_PORT" redis_answers
  fi
}

# ---------------------------------------------------------------------- etcd

# Only the binary: tests start and stop their own members (FENCING_ETCD_BINARY overrides it).
ensure_etcd() {
  if [ -n "${FENCING_ETCD_BINARY:-}" ]; then
    [ -x "$FENCING_ETCD_BINARY" ] || die "FENCING_ETCD_BINARY=$FENCING_ETCD_BINARY is not executable"
    return
  fi
  if ! command -v etcd >/dev/null 2>&1; then
    apt_install etcd-server
  fi
  # etcdctl enables authentication on a private member (EtcdAuthenticationTest); Debian ships it apart
  if ! command -v etcdctl >/dev/null 2>&1; then
    apt_install etcd-client
  fi
}

# ----------------------------------------------------------------- pgbouncer

# Only the binary: PgBouncer (test-fixtures) starts its own processes with a generated ini
# (FENCING_PGBOUNCER_BINARY overrides it). Debian's package starts and enables a system
# pgbouncer on 127.0.0.1:6432 where services may start (systemd, or sysvinit without a
# policy-rc.d that forbids it, as Docker images have); the tests never use it, so a service
# this script's install started is stopped and disabled again.
pgbouncer_service_off() {
  if [ -d /run/systemd/system ]; then
    as_root systemctl disable --now --quiet pgbouncer.service pgbouncer.socket >/dev/null 2>&1 9>&- || true
  elif [ -x /etc/init.d/pgbouncer ]; then
    as_root /etc/init.d/pgbouncer stop >/dev/null 2>&1 9>&- || true
    as_root update-rc.d pgbouncer disable >/dev/null 2>&1 9>&- || true
  fi
}

ensure_pgbouncer() {
  if [ -n "${FENCING_PGBOUNCER_BINARY:-}" ]; then
    [ -x "$FENCING_PGBOUNCER_BINARY" ] || die "FENCING_PGBOUNCER_BINARY=$FENCING_PGBOUNCER_BINARY is not executable"
    return
  fi
  # /usr/sbin is not on every user's PATH
  if ! command -v pgbouncer >/dev/null 2>&1 && [ ! -x /usr/sbin/pgbouncer ]; then
    apt_install pgbouncer
    pgbouncer_service_off
  fi
}

# Tools the lock tests run themselves: libfaketime (a Redis server whose clock is set back,
# for the fence-floor test) with tcmalloc preloaded beside it (libfaketime deadlocks in
# Debian's jemalloc-linked redis-server at start-up otherwise), and the PostgreSQL server
# binaries (initdb/pg_ctl, for a private instance the JDBC lock test restarts; installed
# with the postgresql package above).
ensure_test_tools() {
  if ! command -v faketime >/dev/null 2>&1; then
    apt_install faketime
  fi
  if ! ls /usr/lib/*/libtcmalloc_minimal.so.4 >/dev/null 2>&1; then
    apt_install libtcmalloc-minimal4
  fi
}

ensure_postgres
ensure_mariadb
ensure_redis
ensure_etcd
ensure_pgbouncer
ensure_test_tools
