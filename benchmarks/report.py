#!/usr/bin/env python3
"""Turns one run of benchmarks/run.sh into benchmarks/RESULTS.md and benchmarks/results.json.

usage: report.py <run output dir> <benchmarks dir>

Inputs in the run directory: jmh-<method>.json (JMH -rf json), latency/<method>__<subject>.json (per-operation
histograms written by the benchmark forks), handoff.jsonl (Handoff), run.properties (machine, versions, settings).
ops/s is the median of the measurement iterations; p50/p99 come from the histogram of every operation of those
iterations. benchmarks/ANALYSIS.md, if present, is appended as the closing note.
"""
import json
import os
import re
import statistics
import sys

SHAPES = {
    "oneThread": "1t",
    "eightThreadsEightKeys": "8t8k",
    "eightThreadsOneKey": "8t1k",
    "reentry": "reentry",
}
SHAPE_ORDER = ["1t", "8t8k", "8t1k", "reentry", "handoff"]
SUBJECTS = [
    "ceiling-lettuce", "distlock-redis-template", "distlock-redis-annotation", "distlock-redisson",
    "redisson-rlock", "si-redis-spin", "si-redis-pubsub", "lock4j", "distlock-zookeeper", "curator-mutex",
    "distlock-jdbc-postgres", "si-jdbc-postgres", "distlock-local-annotation", "distlock-local-template",
    "plain-call",
]
DIAG = ["diag-sdr-scripts", "diag-redis-provider"]
ALL = SUBJECTS + DIAG
REDIS = SUBJECTS[:8]
# distlock subject -> the peers it is compared with
PEERS = {
    "distlock-redis-template": ["ceiling-lettuce", "redisson-rlock", "si-redis-spin", "si-redis-pubsub", "lock4j"],
    "distlock-redis-annotation": ["ceiling-lettuce", "redisson-rlock", "si-redis-spin", "si-redis-pubsub", "lock4j"],
    "distlock-redisson": ["redisson-rlock", "ceiling-lettuce"],
    "distlock-zookeeper": ["curator-mutex"],
    "distlock-jdbc-postgres": ["si-jdbc-postgres"],
    "distlock-local-annotation": ["distlock-local-template", "plain-call"],
}


def load(run):
    rows = {}  # (subject, shape) -> dict
    for method, shape in SHAPES.items():
        path = os.path.join(run, f"jmh-{method}.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            text = f.read().strip()
        if not text:
            continue
        for entry in json.loads(text):
            subject = entry["params"]["name"]
            metric = entry["primaryMetric"]
            iterations = [v for fork in metric.get("rawData", []) for v in fork]
            rows[(subject, shape)] = {
                "ops_per_s": statistics.median(iterations) if iterations else metric["score"],
                "mean": metric["score"],
                "error": metric.get("scoreError"),
                "iterations": iterations,
                "threads": entry.get("threads"),
            }
        latency_dir = os.path.join(run, "latency")
        for subject in ALL:
            lat = os.path.join(latency_dir, f"{method}__{subject}.json")
            if os.path.exists(lat) and (subject, shape) in rows:
                with open(lat) as f:
                    rows[(subject, shape)]["latency"] = json.load(f)
    handoff = os.path.join(run, "handoff.jsonl")
    errors = {}
    if os.path.exists(handoff):
        with open(handoff) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                h = json.loads(line)
                if "error" in h:
                    errors[(h["subject"], "handoff")] = h["error"]
                    continue
                rows[(h["subject"], "handoff")] = {"ops_per_s": None, "handoff": h,
                                                   "latency": {"p50_us": h["p50_us"], "p99_us": h["p99_us"]}}
    props = {}
    path = os.path.join(run, "run.properties")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    props[k] = v
    return rows, errors, props


def ops(rows, subject, shape):
    row = rows.get((subject, shape))
    return row["ops_per_s"] if row else None


def fmt_ops(v):
    if v is None:
        return "—"
    if v >= 100000:
        return f"{v:,.0f}"
    if v >= 100:
        return f"{v:,.0f}"
    return f"{v:,.1f}"


def fmt_ratio(a, b):
    if a is None or b is None or b == 0:
        return "—"
    return f"{a / b:.2f}×"


def fmt_us(v):
    if v is None:
        return "—"
    if v >= 1000:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.3f}"


def targets(rows):
    """P1–P6 of issue 9: (id, statement, measured, verdict)."""
    out = []

    def verdict(ok):
        return "—" if ok is None else ("**pass**" if ok else "**MISS**")

    ceiling = ops(rows, "ceiling-lettuce", "1t")
    ann1 = ops(rows, "distlock-redis-annotation", "1t")
    ok = None if ceiling is None or ann1 is None else ann1 >= 0.9 * ceiling
    out.append(("P1", "1 thread, `@DistributedLock` on Redis ≥ 0.9 × two-round-trip ceiling",
                f"{fmt_ops(ann1)} vs ceiling {fmt_ops(ceiling)} ops/s = {fmt_ratio(ann1, ceiling)}", verdict(ok)))

    for subject in ("distlock-redis-annotation", "distlock-redis-template"):
        d = ops(rows, subject, "8t8k")
        r = ops(rows, "redisson-rlock", "8t8k")
        ok = None if d is None or r is None else d >= 2.5 * r
        out.append(("P2", f"8 threads × 8 keys ≥ 2.5 × Redisson RLock (`{subject}`)",
                    f"{fmt_ops(d)} vs {fmt_ops(r)} ops/s = {fmt_ratio(d, r)}", verdict(ok)))

    for subject in ("distlock-redis-annotation", "distlock-redis-template"):
        d = ops(rows, subject, "8t1k")
        r = ops(rows, "redisson-rlock", "8t1k")
        ok = None if d is None or r is None or ann1 is None else (d >= 0.8 * ann1 and d >= 1.5 * r)
        out.append(("P3", f"8 threads × 1 key ≥ 0.8 × P1 and ≥ 1.5 × Redisson RLock (`{subject}`)",
                    f"{fmt_ops(d)} ops/s = {fmt_ratio(d, ann1)} of P1, {fmt_ratio(d, r)} of Redisson "
                    f"({fmt_ops(r)})", verdict(ok)))

    h = rows.get(("distlock-redis-template", "handoff"))
    if h:
        p50, p99 = h["handoff"]["p50_us"], h["handoff"]["p99_us"]
        ok = p50 <= 1000 and p99 <= 5000
        out.append(("P4", "handoff on Redis: p50 ≤ 1 ms, p99 ≤ 5 ms",
                    f"p50 {p50 / 1000:.2f} ms, p99 {p99 / 1000:.2f} ms", verdict(ok)))
    else:
        out.append(("P4", "handoff on Redis: p50 ≤ 1 ms, p99 ≤ 5 ms", "not measured", verdict(None)))

    a = ops(rows, "distlock-local-annotation", "1t")
    t = ops(rows, "distlock-local-template", "1t")
    p = ops(rows, "plain-call", "1t")
    if a and t:
        over = 1e6 / a - 1e6 / t
        extra = f"; annotated vs plain call {1e6 / a - 1e6 / p:.2f} µs" if p else ""
        out.append(("P5", "aspect overhead ≤ 2 µs per call (annotated − `LockTemplate`, `local`)",
                    f"{over:.2f} µs{extra}", verdict(over <= 2.0)))
    else:
        out.append(("P5", "aspect overhead ≤ 2 µs per call", "not measured", verdict(None)))

    for subject, peer, name in (("distlock-zookeeper", "curator-mutex", "ZooKeeper ≥ 1.0 × Curator InterProcessMutex"),
                                ("distlock-jdbc-postgres", "si-jdbc-postgres",
                                 "JDBC (PostgreSQL) ≥ 1.0 × Spring Integration JdbcLockRegistry")):
        parts, oks = [], []
        for shape in ("1t", "8t8k", "8t1k"):
            d, r = ops(rows, subject, shape), ops(rows, peer, shape)
            parts.append(f"{shape} {fmt_ratio(d, r)}")
            if d is not None and r is not None:
                oks.append(d >= r)
        ok = None if not oks else all(oks) and len(oks) == 3
        out.append(("P6", name + " (1t, 8t8k, 8t1k)", ", ".join(parts), verdict(ok)))
    return out


def main():
    run, bench_dir = sys.argv[1], sys.argv[2]
    rows, errors, props = load(run)

    results = []
    for subject in SUBJECTS:
        for shape in SHAPE_ORDER:
            row = rows.get((subject, shape))
            if not row:
                continue
            lat = row.get("latency") or {}
            results.append({
                "subject": subject,
                "shape": shape,
                "ops_per_s": None if row["ops_per_s"] is None else round(row["ops_per_s"], 1),
                "p50_us": None if lat.get("p50_us") is None else round(lat["p50_us"], 3),
                "p99_us": None if lat.get("p99_us") is None else round(lat["p99_us"], 3),
            })
    with open(os.path.join(bench_dir, "results.json"), "w") as f:
        json.dump({"results": results}, f, indent=2)
        f.write("\n")

    present = [s for s in SUBJECTS if any((s, sh) in rows for sh in SHAPE_ORDER)]
    missing = [s for s in SUBJECTS if s not in present]
    L = []
    L.append("# distlock benchmarks")
    L.append("")
    L.append(f"Generated by `benchmarks/run.sh{' --quick' if props.get('mode') == 'quick' else ''}` "
             f"({props.get('mode', '?')} run, {props.get('started', '?')} → {props.get('finished', '?')}, "
             f"commit `{props.get('commit', '?')}`). Every figure comes from this one run on one machine, so the "
             "ratios compare like with like. Raw JMH output: `benchmarks/target/results/`.")
    L.append("")
    L.append("## Machine and versions")
    L.append("")
    cp = props.get("classpath", "")

    def ver(prefix):
        m = re.search(r"(?:^| )" + re.escape(prefix) + r"-(\d[^ ]*?)\.jar", cp)
        return m.group(1) if m else "?"

    L.append(f"- {props.get('cpu', '?')}, {props.get('cores', '?')} cores, {props.get('memory', '?')}; "
             f"{props.get('kernel', '?')}; load average before {props.get('load_before', '?')}, "
             f"after {props.get('load_after', '?')}")
    L.append(f"- {props.get('java', '?')}; Redis {props.get('redis', '?')} (127.0.0.1:6379); "
             f"PostgreSQL {props.get('postgresql', '?')} (127.0.0.1:5432); ZooKeeper {ver('zookeeper')} "
             f"in-process (Curator `TestingServer`, inside the benchmark JVM)")
    L.append(f"- Spring Boot {ver('spring-boot')}, Spring Framework {ver('spring-core')}, Spring Data Redis "
             f"{ver('spring-data-redis')}, Lettuce {ver('lettuce-core')}, Redisson {ver('redisson')}, "
             f"Spring Integration {ver('spring-integration-redis')} (JDBC module {ver('spring-integration-jdbc')}: "
             f"7.1.0 is absent from the registry), lock4j {ver('lock4j-core')}, Curator {ver('curator-recipes')}, "
             f"HikariCP {ver('HikariCP')}, PostgreSQL JDBC {ver('postgresql')}, JMH {ver('jmh-core')}")
    L.append(f"- JMH: `{props.get('jmh_times', '?')}`, throughput mode, one fork per subject and shape; "
             f"handoff (handoffs, warm-up, margin ms, max s): `{props.get('handoff', '?')}`")
    L.append("")
    L.append("## What is measured")
    L.append("")
    L.append("- One operation = acquire + release of a lock with an empty critical section; lease 30 s, wait "
             "30 s (every subject blocks until it gets the lock). Each library with its defaults otherwise.")
    L.append("- Shapes: `1t` one thread locking one key over and over; `8t8k` eight threads, each its own key, "
             "sharing one client; `8t1k` eight threads on one key; `reentry` one thread acquiring and releasing "
             "a key it already holds (the cost of re-entry alone; the ceiling and lock4j are not re-entrant); "
             "`handoff` two JVMs passing one lock back and forth.")
    L.append("- `ceiling-lettuce`: raw Lettuce, `EVALSHA` acquire (SET NX PX + INCR fence) and `EVALSHA` "
             "release (compare, DEL, PUBLISH): two round trips and nothing else; local threads of one key queue "
             "on a fair in-JVM lock first. distlock runs in a Spring Boot application configured by properties "
             "only; `-template` calls `LockTemplate.execute`, `-annotation` a `@DistributedLock` method through "
             "its proxy.")
    L.append("- ops/s = median of the measurement iterations; p50/p99 = every operation of those iterations "
             "timed with `System.nanoTime()` into an HdrHistogram (two `nanoTime` calls, ~50 ns, inside the "
             "throughput run, rather than a second `Mode.SampleTime` run).")
    L.append("- Handoff: acquisition k belongs to process k mod 2; the holder waits until the other process has "
             "entered `lock()` plus a margin, writes `Instant.now()` into a shared memory-mapped file and "
             "releases; the other stamps `Instant.now()` when its `lock()` returns. Latency = difference (one "
             "system clock; `nanoTime` has no common origin across JVMs). Cross-check on each process's own "
             "clock: (release → own next acquire − other's hold) / 2 = mean of two handoffs (`pair` columns).")
    L.append("")

    L.append("## Throughput (ops/s, median)")
    L.append("")
    L.append("| subject | 1t | 8t8k | 8t1k | reentry | 1t × ceiling | 8t8k × ceiling | 8t1k × ceiling |")
    L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for s in present:
        cells = [fmt_ops(ops(rows, s, sh)) for sh in ("1t", "8t8k", "8t1k", "reentry")]
        if s in REDIS:
            ratios = [fmt_ratio(ops(rows, s, sh), ops(rows, "ceiling-lettuce", sh)) for sh in ("1t", "8t8k", "8t1k")]
        else:
            ratios = ["", "", ""]
        L.append(f"| `{s}` | " + " | ".join(cells + ratios) + " |")
    L.append("")

    L.append("## distlock against each peer (ratio of ops/s, same shape)")
    L.append("")
    L.append("| distlock subject | peer | 1t | 8t8k | 8t1k | reentry |")
    L.append("| --- | --- | ---: | ---: | ---: | ---: |")
    for s, peers in PEERS.items():
        if s not in present:
            continue
        for p in peers:
            if p not in present:
                continue
            cells = [fmt_ratio(ops(rows, s, sh), ops(rows, p, sh)) for sh in ("1t", "8t8k", "8t1k", "reentry")]
            L.append(f"| `{s}` | `{p}` | " + " | ".join(cells) + " |")
    L.append("")

    L.append("## Latency per operation (µs: p50 / p99)")
    L.append("")
    L.append("| subject | 1t | 8t8k | 8t1k | reentry |")
    L.append("| --- | ---: | ---: | ---: | ---: |")
    for s in present:
        cells = []
        for sh in ("1t", "8t8k", "8t1k", "reentry"):
            lat = (rows.get((s, sh)) or {}).get("latency")
            cells.append("—" if not lat else f"{fmt_us(lat['p50_us'])} / {fmt_us(lat['p99_us'])}")
        L.append(f"| `{s}` | " + " | ".join(cells) + " |")
    L.append("")

    L.append("## Where the time goes on Redis, one thread (diagnostics)")
    L.append("")
    L.append("Each step adds one layer: raw Lettuce (`ceiling-lettuce`), the same two scripts through Spring Data "
             "Redis's `StringRedisTemplate` (`diag-sdr-scripts`), distlock's `RedisLockProvider` called directly "
             "(`diag-redis-provider`: its scripts and keys, no core), `LockTemplate.execute` (local queue, re-entry "
             "map, lease bookkeeping) and the `@DistributedLock` proxy. µs per operation = 1 / median ops/s.")
    L.append("")
    L.append("| layer | 1t ops/s | µs/op | + µs vs previous | p50 µs | 8t8k ops/s |")
    L.append("| --- | ---: | ---: | ---: | ---: | ---: |")
    previous = None
    for s in ["ceiling-lettuce", "diag-sdr-scripts", "diag-redis-provider", "distlock-redis-template",
              "distlock-redis-annotation"]:
        o = ops(rows, s, "1t")
        if o is None:
            continue
        us = 1e6 / o
        lat = (rows.get((s, "1t")) or {}).get("latency") or {}
        delta = "" if previous is None else f"{us - previous:+.1f}"
        L.append(f"| `{s}` | {fmt_ops(o)} | {us:.1f} | {delta} | {fmt_us(lat.get('p50_us'))} | "
                 f"{fmt_ops(ops(rows, s, '8t8k'))} |")
        previous = us
    L.append("")

    L.append("## Handoff between two JVMs (µs)")
    L.append("")
    L.append("| subject | handoffs | p50 | p90 | p99 | max | mean | pair mean (own clocks) | pair p50 |")
    L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for s in SUBJECTS:
        row = rows.get((s, "handoff"))
        if row:
            h = row["handoff"]
            L.append(f"| `{s}` | {h['count']} | {fmt_us(h['p50_us'])} | {fmt_us(h['p90_us'])} | "
                     f"{fmt_us(h['p99_us'])} | {fmt_us(h['max_us'])} | {fmt_us(h['mean_us'])} | "
                     f"{fmt_us(h['pair_mean_us'])} | {fmt_us(h['pair_p50_us'])} |")
        elif (s, "handoff") in errors:
            L.append(f"| `{s}` | failed: {errors[(s, 'handoff')]} | | | | | | | |")
    L.append("")

    L.append("## Targets (issue 9)")
    L.append("")
    L.append("| target | statement | measured | verdict |")
    L.append("| --- | --- | --- | --- |")
    for t in targets(rows):
        L.append("| " + " | ".join(t) + " |")
    L.append("")

    failed = []
    for method, shape in SHAPES.items():
        log = os.path.join(run, f"jmh-{method}.log")
        if os.path.exists(log):
            with open(log, errors="replace") as f:
                text = f.read()
            for name in sorted(set(re.findall(r"# Parameters: \(name = ([^)]+)\)", text))):
                if (name, shape) not in rows:
                    failed.append(f"`{name}` {shape}")
    if missing or failed:
        L.append("## Not measured in this run")
        L.append("")
        if missing:
            L.append("- Subjects absent from this build or failed in every shape: "
                     + ", ".join(f"`{m}`" for m in missing))
        if failed:
            L.append("- Failed: " + ", ".join(failed) + " (see the JMH logs of the run)")
        L.append("")

    analysis = os.path.join(bench_dir, "ANALYSIS.md")
    if os.path.exists(analysis):
        with open(analysis) as f:
            L.append(f.read().rstrip() + "\n")

    with open(os.path.join(bench_dir, "RESULTS.md"), "w") as f:
        f.write("\n".join(L).rstrip() + "\n")


if __name__ == "__main__":
    main()
