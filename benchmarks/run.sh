#!/usr/bin/env bash
# Runs every benchmark of distlock and its peers in one go and writes benchmarks/RESULTS.md and
# benchmarks/results.json.
#
#   benchmarks/run.sh           full run (~25 min on 2 cores): JMH 3 x 3 s warm-up, 3 x 3 s measurement per
#                               subject and shape; handoff: up to 300 handoffs (30 s) per subject
#   benchmarks/run.sh --quick   smoke run (~7 min, mostly JVM and application start-up): no warm-up, one 1 s
#                               measurement; 20 handoffs (5 s) per subject
#
# Needs Redis on 127.0.0.1:6379 and PostgreSQL on 127.0.0.1:5432 (database test, user postgres, no password);
# ZooKeeper runs in-process (Curator TestingServer). Override with -Dbench.* in BENCH_JAVA_OPTS
# (see BenchConfig). Restrict subjects with BENCH_SUBJECTS="a b c".
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
MODE=full
[ "${1:-}" = "--quick" ] && MODE=quick

log() { printf '[bench] %s\n' "$*" >&2; }

log "building (mode: $MODE)"
if ! ./mvnw -B -q -o -pl benchmarks -am package -DskipTests; then
  ./mvnw -B -q -pl benchmarks -am package -DskipTests
fi

CP="$ROOT/benchmarks/target/classes:$(cat "$ROOT/benchmarks/target/classpath.txt")"
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT="$ROOT/benchmarks/target/results/$STAMP-$MODE"
mkdir -p "$OUT"
JAVA_OPTS=(-Dbench.out="$OUT" ${BENCH_JAVA_OPTS:-})

if [ "$MODE" = quick ]; then
  JMH_TIMES=(-f 1 -wi 0 -i 1 -r 1s)
  HANDOFF=(20 5 5 5)      # handoffs, warm-up handoffs, hold margin ms, max seconds
else
  JMH_TIMES=(-f 1 -wi 3 -w 3s -i 3 -r 3s)
  HANDOFF=(300 30 5 30)
fi

if [ -n "${BENCH_SUBJECTS:-}" ]; then
  read -r -a AVAILABLE <<<"$BENCH_SUBJECTS"
else
  mapfile -t AVAILABLE < <(java -cp "$CP" dev.distlock.bench.Subjects)
fi
log "subjects: ${AVAILABLE[*]}"

has() { local s; for s in "${AVAILABLE[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
pick() { local out=() s; for s in "$@"; do has "$s" && out+=("$s"); done; (IFS=,; echo "${out[*]}"); }

REDIS=(ceiling-lettuce distlock-redis-template distlock-redis-annotation distlock-redisson redisson-rlock
  si-redis-spin si-redis-pubsub lock4j)
OTHERS=(distlock-zookeeper curator-mutex distlock-jdbc-postgres si-jdbc-postgres)
LOCAL=(distlock-local-annotation distlock-local-template plain-call)
NOT_REENTRANT=(ceiling-lettuce lock4j)

# diagnostics: raw Lettuce -> Spring Data Redis -> distlock's provider -> LockTemplate -> @DistributedLock
DIAG=(diag-sdr-scripts diag-redis-provider)

ONE_THREAD=$(pick "${REDIS[@]}" "${OTHERS[@]}" "${LOCAL[@]}" "${DIAG[@]}")
EIGHT_KEYS=$(pick "${REDIS[@]}" "${OTHERS[@]}" "${DIAG[@]}")
EIGHT=$(pick "${REDIS[@]}" "${OTHERS[@]}")
REENTRANT=()
for s in "${REDIS[@]}" "${OTHERS[@]}" distlock-local-template distlock-local-annotation; do
  [[ " ${NOT_REENTRANT[*]} " == *" $s "* ]] || REENTRANT+=("$s")
done
REENTRY=$(pick "${REENTRANT[@]}")
HANDOFF_SUBJECTS=()
for s in distlock-redis-template distlock-redisson redisson-rlock si-redis-pubsub si-redis-spin lock4j \
    distlock-zookeeper curator-mutex distlock-jdbc-postgres si-jdbc-postgres; do
  has "$s" && HANDOFF_SUBJECTS+=("$s")
done

{
  echo "mode=$MODE"
  echo "started=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -n1)"
  echo "cores=$(nproc)"
  echo "memory=$(free -g 2>/dev/null | awk '/^Mem:/{print $2 " GiB"}')"
  echo "kernel=$(uname -sr)"
  echo "java=$(java -version 2>&1 | head -n1)"
  echo "redis=$(redis-cli -h 127.0.0.1 -p 6379 info server 2>/dev/null | sed -n 's/^redis_version:\(.*\)\r$/\1/p')"
  echo "postgresql=$(psql -h 127.0.0.1 -U postgres -d test -tAc 'show server_version' 2>/dev/null || true)"
  echo "commit=$(git rev-parse --short HEAD 2>/dev/null || true)$(git diff --quiet HEAD 2>/dev/null || echo '+dirty')"
  echo "jmh_times=${JMH_TIMES[*]}"
  echo "handoff=${HANDOFF[*]}"
  echo "classpath=$(tr ':' '\n' <"$ROOT/benchmarks/target/classpath.txt" | sed 's#.*/##' | tr '\n' ' ')"
} >"$OUT/run.properties"

jmh() { # method, subjects (comma-separated)
  local method=$1 subjects=$2
  if [ -z "$subjects" ]; then log "skipping $method: no subject"; return; fi
  log "JMH $method: $subjects"
  java "${JAVA_OPTS[@]}" -cp "$CP" org.openjdk.jmh.Main "LockBenchmark\.$method\$" -p name="$subjects" \
    "${JMH_TIMES[@]}" -rf json -rff "$OUT/jmh-$method.json" >"$OUT/jmh-$method.log" 2>&1 \
    || log "JMH $method exited with $? (see $OUT/jmh-$method.log)"
  grep -E '^LockBenchmark' "$OUT/jmh-$method.log" >&2 || true
}

jmh oneThread "$ONE_THREAD"
jmh eightThreadsEightKeys "$EIGHT_KEYS"
jmh eightThreadsOneKey "$EIGHT"
jmh reentry "$REENTRY"

if [ "${#HANDOFF_SUBJECTS[@]}" -gt 0 ]; then
  log "handoff: ${HANDOFF_SUBJECTS[*]}"
  java "${JAVA_OPTS[@]}" -cp "$CP" dev.distlock.bench.Handoff "$OUT/handoff.jsonl" "${HANDOFF[@]}" \
    "${HANDOFF_SUBJECTS[@]}" >"$OUT/handoff.log" 2>&1 || log "handoff exited with $? (see $OUT/handoff.log)"
  grep -E '^\{' "$OUT/handoff.log" >&2 || true
fi

echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/run.properties"
echo "finished=$(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$OUT/run.properties"

python3 "$ROOT/benchmarks/report.py" "$OUT" "$ROOT/benchmarks"
log "wrote benchmarks/RESULTS.md and benchmarks/results.json (raw output in ${OUT#"$ROOT"/})"
