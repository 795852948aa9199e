#!/usr/bin/env bash
# Replays the primer's timeline with real parts: a paused lock holder's stale payment is
# rejected through FencingDataSource, then the same timeline through a plain DataSource pays the
# order twice. Default: H2 in memory and JdbcFencedLocks, no server needed.
#   ./scripts/demo.sh                                   # H2 in memory
#   ./scripts/demo.sh --jdbc 'jdbc:postgresql://127.0.0.1:5432/test?user=postgres'
#   ./scripts/demo.sh --redis redis://127.0.0.1:6379    # RedisFencedLocks issue the fences
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

jar=driver/target/fencing-driver-0.1.0-SNAPSHOT-cli.jar
if [ ! -f "$jar" ] || [ -n "$(find pom.xml driver/pom.xml driver/src/main -newer "$jar" -print -quit)" ]; then
  echo "building fencing-driver (once) ..." >&2
  mvn -B -q -ntp -DskipTests install -pl driver -am >&2
fi
exec java -jar "$jar" demo "$@"
