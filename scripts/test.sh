#!/usr/bin/env bash
# Build fencing-jdbc and run every test of every module.
# Makes sure PostgreSQL, MariaDB and Redis are up first (scripts/ensure-services.sh).
# Extra arguments go to Maven, e.g.  ./scripts/test.sh -pl driver -Dtest=FenceTest
# Exits with Maven's exit code.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/ensure-services.sh
exec mvn -B -ntp install "$@"
