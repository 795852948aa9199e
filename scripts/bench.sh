#!/usr/bin/env bash
# Run the fencing-jdbc benchmarks (JMH, module benchmarks/) and keep every result.
#
#   scripts/bench.sh [--short] [--no-build] [GROUP...]
#
#   --short     one fork, 2 warmup + 3 measurement iterations of 1 s, fewer parameter values:
#               a few minutes on 2 cores. Without it: each benchmark's own settings
#               (2 forks, 5 + 5 iterations; about an hour on 2 cores).
#   --no-build  use benchmarks/target/benchmarks.jar as it is.
#   GROUP       any of: wrapper analysis pg locks handoff memory (default: all of them)
#
#   wrapper   per-statement cost over a no-I/O stub driver: fencing vs raw, p6spy,
#             datasource-proxy, with JMH's gc profiler (gc.alloc.rate.norm = bytes/op)
#   analysis  first-time analysis vs JSqlParser; pre-filter; cache hit
#   pg        PostgreSQL end to end through HikariCP, fenced vs hand-written SQL, 1 and 4 threads
#             (JMH, then the same pair interleaved in ABBA blocks: PostgresAB)
#   locks     acquire+release at 1, 4 and 16 threads, own resource per thread and one hot lock:
#             RedisFencedLocks, Redisson RFencedLock, JdbcFencedLocks on PostgreSQL; then the
#             hot lock of RedisFencedLocks and Redisson alternating in ABBA blocks (HotLockAB)
#   handoff   time from a release to the waiting acquirer holding the lock
#   memory    the plan cache stays within its bound under many distinct statements
#
# Results: benchmarks/results/<UTC time>-<full|short>/ (or $BENCH_OUT): the machine, every
# command, JMH's text output and JSON per run, the load average around each run, and
# summary.txt (scores and the ratios BENCHMARKS.md quotes; needs python3).
# PostgreSQL: $FENCING_PG_URL (default jdbc:postgresql://127.0.0.1:5432/test?user=postgres).
# Redis: $FENCING_REDIS_URI (default redis://127.0.0.1:6379). The services are started with
# scripts/ensure-services.sh when a group needs them. Extra JMH options: $JMH_OPTS.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

MODE=full
BUILD=1
SELECTED=()
for arg in "$@"; do
  case "$arg" in
    --short) MODE=short ;;
    --no-build) BUILD=0 ;;
    wrapper|analysis|pg|locks|handoff|memory) SELECTED+=("$arg") ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "bench.sh: unknown argument: $arg (see --help)" >&2; exit 2 ;;
  esac
done
if [ ${#SELECTED[@]} -eq 0 ]; then
  SELECTED=(wrapper analysis pg locks handoff memory)
fi
selected() {
  local g
  for g in "${SELECTED[@]}"; do [ "$g" = "$1" ] && return 0; done
  return 1
}

JAVA=${JAVA:-java}
JAR=benchmarks/target/benchmarks.jar
if [ "$BUILD" -eq 1 ] || [ ! -f "$JAR" ]; then
  echo "bench.sh: building $JAR (mvn -q -DskipTests -Pbenchmarks-jar package -pl benchmarks -am)"
  mvn -q -B -ntp -DskipTests -Pbenchmarks-jar package -pl benchmarks -am
fi

if selected pg || selected locks || selected handoff; then
  bash scripts/ensure-services.sh
fi

OUT=${BENCH_OUT:-benchmarks/results/$(date -u +%Y%m%dT%H%M%SZ)-$MODE}
mkdir -p "$OUT"
{
  echo "mode: $MODE"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "git: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (modified)')"
  echo "nproc: $(nproc)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
  echo "kernel: $(uname -sr)"
  echo "java: $("$JAVA" -version 2>&1 | sed -n 2p)"
  echo "postgres: $(psql -h 127.0.0.1 -U postgres -d test -Atc 'show server_version' 2>/dev/null || echo unknown)"
  echo "redis: $(redis-cli -h 127.0.0.1 info server 2>/dev/null | tr -d '\r' | grep '^redis_version' || echo unknown)"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"

if [ "$MODE" = short ]; then
  ITER=(-f 1 -wi 2 -w 1 -i 3 -r 1)
else
  ITER=()
fi
# shellcheck disable=SC2206
EXTRA=(${JMH_OPTS:-})

# jmh NAME ARGS...: one JMH run, its output in NAME.txt and NAME.json.
jmh() {
  local name=$1
  shift
  local cmd=("$JAVA" -jar "$JAR" "$@" "${EXTRA[@]}" -rf json -rff "$OUT/$name.json")
  echo "${cmd[*]}" >> "$OUT/commands.txt"
  echo "== $name: ${cmd[*]}"
  echo "$name start load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/load.txt"
  "${cmd[@]}" > "$OUT/$name.txt" 2>&1 || { tail -40 "$OUT/$name.txt"; echo "bench.sh: $name failed" >&2; return 1; }
  echo "$name end   load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/load.txt"
  sed -n '/^Benchmark /,$p' "$OUT/$name.txt"
}

# main NAME JAVA-ARGS...: a harness with its own main method.
main() {
  local name=$1
  shift
  local cmd=("$JAVA" "$@")
  echo "${cmd[*]}" >> "$OUT/commands.txt"
  echo "== $name: ${cmd[*]}"
  echo "$name start load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/load.txt"
  "${cmd[@]}" 2>&1 | tee "$OUT/$name.txt"
  echo "$name end   load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/load.txt"
}

if selected wrapper; then
  jmh wrapper 'dev.fencing.bench.jdbc.WrapperBenchmark' -prof gc "${ITER[@]}"
  jmh fence-scope 'dev.fencing.bench.jdbc.FenceScopeBenchmark' "${ITER[@]}"
fi

if selected analysis; then
  if [ "$MODE" = short ]; then
    jmh analysis 'dev.fencing.bench.analysis.AnalysisBenchmark' -p statement=UPDATE,UPSERT,UPDATE_FROM "${ITER[@]}"
  else
    jmh analysis 'dev.fencing.bench.analysis.AnalysisBenchmark'
  fi
  jmh prefilter 'dev.fencing.bench.analysis.CachedAnalysisBenchmark' "${ITER[@]}"
fi

if selected pg; then
  for t in 1 4; do
    if [ "$MODE" = short ]; then
      jmh "pg-t$t" 'dev.fencing.bench.pg.PostgresBenchmark' -t "$t" -p commit=async "${ITER[@]}"
    else
      jmh "pg-t$t" 'dev.fencing.bench.pg.PostgresBenchmark' -t "$t"
    fi
  done
  # The same comparison interleaved (ABBA blocks), robust against background load.
  if [ "$MODE" = short ]; then
    main pg-ab-async -cp "$JAR" dev.fencing.bench.pg.PostgresAB 10 500 async 1,4
  else
    main pg-ab-async -cp "$JAR" dev.fencing.bench.pg.PostgresAB 20 1000 async 1,4
    main pg-ab-durable -cp "$JAR" dev.fencing.bench.pg.PostgresAB 20 1000 durable 1,4
  fi
fi

if selected locks; then
  for t in 1 4 16; do
    jmh "locks-t$t" 'dev.fencing.bench.lock.*LockBenchmark' -t "$t" "${ITER[@]}"
  done
  # The hot lock beside Redisson in one JVM, ABBA blocks: robust against background load.
  hot_rounds=4
  [ "$MODE" = short ] && hot_rounds=2
  main hot-lock-ab -cp "$JAR" dev.fencing.bench.lock.HotLockAB 1,4,16 2 "$hot_rounds"
fi

if selected handoff; then
  rounds=200
  [ "$MODE" = short ] && rounds=60
  for impl in redis redisson jdbc; do
    main "handoff-$impl" -cp "$JAR" dev.fencing.bench.lock.LockHandoff "$impl" "$rounds"
  done
fi

if selected memory; then
  texts=100000
  [ "$MODE" = short ] && texts=20000
  main memory -Xmx256m -cp "$JAR" dev.fencing.bench.memory.PlanCacheBound "$texts"
fi

echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/machine.txt"

if command -v python3 >/dev/null 2>&1; then
  python3 - "$OUT" > "$OUT/summary.txt" <<'PY'
import glob, json, os, sys
from collections import defaultdict

out = sys.argv[1]
rows = []
for path in sorted(glob.glob(os.path.join(out, "*.json"))):
    try:
        runs = json.load(open(path))
    except ValueError:
        continue
    for r in runs:
        name = r["benchmark"].rsplit(".", 2)
        params = ",".join(f"{k}={v}" for k, v in sorted((r.get("params") or {}).items()))
        pm = r["primaryMetric"]
        alloc = (r.get("secondaryMetrics") or {}).get("gc.alloc.rate.norm")
        pct = pm.get("scorePercentiles") or {}
        rows.append(dict(file=os.path.basename(path)[:-5], cls=name[-2], method=name[-1], params=params,
                         threads=r["threads"], mode=r["mode"], score=pm["score"], error=pm["scoreError"],
                         unit=pm["scoreUnit"], alloc=alloc["score"] if alloc else None,
                         p50=pct.get("50.0"), p99=pct.get("99.0")))

def fmt(x):
    if x is None or x != x:
        return "-"
    return f"{x:,.3f}" if abs(x) < 10 else f"{x:,.1f}" if abs(x) < 1000 else f"{x:,.0f}"

print("p50/p99: latency percentiles in sample mode; in the other modes, of the iteration scores. B/op: gc.alloc.rate.norm")
print(f"{'run':<14} {'benchmark':<46} {'params':<30} {'thr':>3} {'mode':<6} {'score':>12} {'error':>10} {'unit':<8} {'p50':>9} {'p99':>9} {'B/op':>8}")
for r in rows:
    print(f"{r['file']:<14} {r['cls'] + '.' + r['method']:<46} {r['params']:<30} {r['threads']:>3} {r['mode']:<6} "
          f"{fmt(r['score']):>12} {fmt(r['error']):>10} {r['unit']:<8} {fmt(r['p50']):>9} {fmt(r['p99']):>9} "
          f"{fmt(r['alloc']):>8}")

def find(cls, method, **params):
    for r in rows:
        if r["cls"] == cls and r["method"] == method and all(
                f"{k}={v}" in r["params"].split(",") for k, v in params.items() if k != "threads") \
                and r["threads"] == params.get("threads", r["threads"]):
            yield r

print()
print("Ratios")
for method in ("execute", "prepareAndExecute", "executeUnfenced"):
    f = next(find("WrapperBenchmark", method, wrapper="FENCING"), None)
    if not f:
        continue
    raw = next(find("WrapperBenchmark", method, wrapper="RAW"), None)
    line = f"wrapper {method:<18} fencing {fmt(f['score'])} ns/op"
    if raw:
        line += f", over raw +{fmt(f['score'] - raw['score'])} ns"
    for other in ("P6SPY", "DATASOURCE_PROXY"):
        o = next(find("WrapperBenchmark", method, wrapper=other), None)
        if o:
            line += f"; {other.lower()} {fmt(o['score'])} ns/op = {o['score'] / f['score']:.2f}x fencing"
    print(line)
for r in rows:
    if r["cls"] == "AnalysisBenchmark" and r["method"] == "fencingFirstAnalysis":
        st = r["params"].split("=")[1]
        util = next(find("AnalysisBenchmark", "jsqlparserUtilParse", statement=st), None)
        direct = next(find("AnalysisBenchmark", "jsqlparserDirect", statement=st), None)
        line = f"analysis {st:<12} fencing first analysis {fmt(r['score'])} us"
        if util:
            line += f"; CCJSqlParserUtil.parse {fmt(util['score'])} us (fencing/parse = {r['score'] / util['score']:.2f})"
        if direct:
            line += f"; direct parser {fmt(direct['score'])} us (fencing/direct = {r['score'] / direct['score']:.2f})"
        print(line)
for r in rows:
    if r["cls"] == "PostgresBenchmark" and r["method"] in ("updateFenced", "mixFenced"):
        hand = r["method"].replace("Fenced", "HandWritten")
        params = dict(p.split("=") for p in r["params"].split(",") if p)
        h = next(find("PostgresBenchmark", hand, threads=r["threads"], **params), None)
        if h:
            print(f"pg {r['method']:<13} {r['params']:<14} t={r['threads']:<2} fenced {fmt(r['score'])} ops/s, "
                  f"hand-written {fmt(h['score'])} ops/s: ratio {r['score'] / h['score']:.3f}")
locks = defaultdict(dict)
for r in rows:
    if r["cls"].endswith("LockBenchmark"):
        locks[(r["method"], r["threads"], r["mode"])][r["cls"]] = r
for (method, threads, mode), impls in sorted(locks.items()):
    parts = []
    for cls, r in sorted(impls.items()):
        ops = ""
        if r["mode"] == "sample" and r["score"]:
            ops = f" ({threads * 1e6 / r['score'] if r['unit'] == 'us/op' else float('nan'):,.0f} ops/s)"
        parts.append(f"{cls.replace('LockBenchmark', '')} {fmt(r['score'])} {r['unit']}{ops}")
    print(f"locks {method:<12} t={threads:<2} " + "; ".join(parts))
PY
  echo
  sed -n '/^Ratios/,$p' "$OUT/summary.txt"
fi
echo "bench.sh: results in $OUT"
