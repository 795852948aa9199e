#!/usr/bin/env bash
# Builds the example (and what it needs) and starts it: two ShedLock jobs writing fenced tables on
# the PostgreSQL at FENCING_PG_URL (default jdbc:postgresql://127.0.0.1:5432/test?user=postgres).
# Start it in two terminals to see each job run on one instance at a time. Ctrl-C stops it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
mvn -q -B -ntp -pl examples/scheduled-jobs -am package -DskipTests
exec java -jar examples/scheduled-jobs/target/fencing-example-scheduled-jobs-*.jar "$@"
