#!/usr/bin/env python3
"""Turns one run of benchmarks/run.sh into benchmarks/RESULTS.md, benchmarks/results.json and the SVG charts.

usage: report.py <run output dir> <benchmarks dir> [<docs dir>]
       report.py --charts <results.json> <docs dir>      (charts only, from a results.json)

Inputs in the run directory: jmh-<method>.json (JMH -rf json, with the secondary results of `-prof gc` and
`-prof dev.distlock.bench.CpuPerOp`), latency/<method>__<subject>.json (per-operation histograms written by the
benchmark forks), handoff.jsonl (Handoff), run.properties (machine, versions, settings).
ops/s, CPU and bytes per operation are medians over the measurement iterations (the last one also carries the
subject's shutdown, the first one its start-up when there is no warm-up); p50/p99 come from the histogram of every
operation of those iterations. A figure is noisy when other processes kept more than BENCH_NOISY_LOAD cores (default
0.5) busy on average during its measurement. benchmarks/ANALYSIS.md, if present, is appended as the closing note.
A run of the scaling benchmark alone (BENCH_SUBJECTS=@scaling) replaces only the scaling section of RESULTS.md, the
"scaling" entry of results.json and docs/benchmarks-scaling.svg (see scaling.py), and brings the copy of ANALYSIS.md
after that section up to date.
"""
import json
import math
import os
import re
import statistics
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the committed sources
import charts  # noqa: E402  (benchmarks/charts.py, beside this file)
import scaling  # noqa: E402  (benchmarks/scaling.py: the scaling benchmark's section)

SHAPES = {
    "oneThread": "1t",
    "eightThreadsEightKeys": "8t8k",
    "eightThreadsOneKey": "8t1k",
    "reentry": "reentry",
}
SHAPE_ORDER = ["1t", "8t8k", "8t1k", "reentry", "handoff"]
SHAPE_TITLES = {
    "1t": "one thread, one key",
    "8t8k": "eight threads, each its own key",
    "8t1k": "eight threads, one key",
    "reentry": "re-entry into a held lock",
}
REDIS = [
    "ceiling-lettuce", "distlock-redis-template", "distlock-redis-annotation", "distlock-redis-async-release",
    "distlock-redisson", "redisson-rlock", "si-redis-spin", "si-redis-pubsub", "lock4j",
]
SUBJECTS = REDIS + [
    "distlock-zookeeper", "curator-mutex", "distlock-jdbc-postgres", "si-jdbc-postgres",
    "distlock-etcd", "jetcd-lock", "distlock-local-annotation", "distlock-local-template", "plain-call",
]
DIAG = ["diag-sdr-scripts", "diag-redis-provider", "diag-redis-template-plain-client"]
ALL = SUBJECTS + DIAG
REDIS_PEERS = ["ceiling-lettuce", "redisson-rlock", "si-redis-spin", "si-redis-pubsub", "lock4j"]
# distlock subject -> the peers it is compared with
PEERS = {
    "distlock-redis-template": REDIS_PEERS,
    "distlock-redis-annotation": REDIS_PEERS,
    "distlock-redis-async-release": REDIS_PEERS + ["distlock-redis-annotation"],
    "distlock-redisson": ["redisson-rlock", "ceiling-lettuce"],
    "distlock-zookeeper": ["curator-mutex"],
    "distlock-jdbc-postgres": ["si-jdbc-postgres"],
    "distlock-etcd": ["jetcd-lock"],
    "distlock-local-annotation": ["distlock-local-template", "plain-call"],
}
NOISY = "†"


def number(v):
    """A JMH or JSON value as a float, None if absent or not a number (JMH writes NaN as the string "NaN")."""
    try:
        v = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) or math.isinf(v) else v


def noisy_threshold():
    return float(os.environ.get("BENCH_NOISY_LOAD") or 0.5)


def secondary_by_fork(entry, name):
    """Per-fork lists of a secondary result's measurement iterations, numbers only (forks without any left out)."""
    for key, metric in (entry.get("secondaryMetrics") or {}).items():
        if key.lstrip("·") == name:
            forks = [[number(v) for v in fork] for fork in metric.get("rawData", [])]
            return [[v for v in fork if v is not None] for fork in forks if any(v is not None for v in fork)]
    return []


def secondary(entry, name):
    """Per-iteration values (measurement iterations, all forks) of a secondary result, or []."""
    return [v for fork in secondary_by_fork(entry, name) for v in fork]


def median(values):
    return statistics.median(values) if values else None


def jmh_files(run, method, ext):
    """jmh-<method>.<ext> and the files of the same method's separate JMH calls, jmh-<method>-<part>.<ext>
    (run.sh runs the Redis P1 subjects at 1t, and the two Redisson subjects at 1t and 8t8k, in calls of their own,
    with more forks)."""
    names = [f"jmh-{method}.{ext}"] + sorted(n for n in os.listdir(run)
                                             if n.startswith(f"jmh-{method}-") and n.endswith(f".{ext}"))
    return [os.path.join(run, n) for n in names if os.path.exists(os.path.join(run, n))]


def pg_server(props):
    """Where the JDBC subjects' PostgreSQL ran: run.sh's own server (initdb's defaults) or the shared one."""
    server = props.get("postgresql_server")
    if not server:
        return "127.0.0.1:5432"
    kind, _, rest = server.partition(" ")
    if kind == "own":
        return f"started by run.sh with initdb's defaults, {rest}"
    return f"the machine's shared server, {rest}"


def extra_forks(props, key):
    """The forks run.sh gave a group of subjects (p1_forks, redisson_forks, pair_forks, spread_forks) when more than
    one, else None."""
    forks = props.get(key)
    return forks if forks and forks != "1" else None


def fork_counts(props):
    """' (...)' naming the subjects run with more than one fork, for the JMH line, else ''."""
    parts = []
    if extra_forks(props, "p1_forks"):
        rounds = (f", in {extra_forks(props, 'p1_forks')} rounds of one fork of each, the order turned by one each "
                  f"round" if props.get("p1_order") == "rounds" else "")
        parts.append(f"the Redis P1 subjects at 1t, `ceiling-lettuce`, `distlock-redis-template` and "
                     f"`distlock-redis-annotation`: {extra_forks(props, 'p1_forks')} forks each{rounds}")
    redisson = []
    if extra_forks(props, "redisson_forks"):
        redisson.append(f"{extra_forks(props, 'redisson_forks')} forks each")
    if props.get("redisson_warmup"):
        redisson.append(f"{props['redisson_warmup']} warm-up iterations")
    if redisson:
        parts.append(f"`distlock-redisson` and `redisson-rlock` at 1t and 8t8k: {', '.join(redisson)}")
    if extra_forks(props, "pair_forks"):
        parts.append("`distlock-zookeeper`, `curator-mutex`, `distlock-jdbc-postgres` and `si-jdbc-postgres` at "
                     f"8t8k: {extra_forks(props, 'pair_forks')} forks each, in rounds of one fork of each, the order "
                     "turned by one each round")
    if extra_forks(props, "spread_forks"):
        parts.append(f"the key spread: {extra_forks(props, 'spread_forks')} forks of every subject and key count")
    return f" ({'; '.join(parts)})" if parts else ""


def forks_of(rows, subjects, shape="1t"):
    """' (forks: subject a / b / c ops/s, ...)' for subjects measured with more than one fork, else ''."""
    parts = []
    for subject in subjects:
        row = rows.get((subject, shape))
        if row and len(row.get("fork_medians") or []) > 1:
            parts.append(f"`{subject}` " + " / ".join(fmt_ops(v) for v in row["fork_medians"]))
    return f" (medians of the forks: {'; '.join(parts)})" if parts else ""


def join_forks(entry, more):
    """One JMH entry with the forks of both, for a subject measured in several JMH calls (run.sh's P1 rounds): the
    raw data of the primary and every secondary result in the order of the calls, the forks added up; the score is
    the mean of every iteration and the error, which JMH computes per call, is dropped."""
    joined = dict(entry)
    metric = dict(entry["primaryMetric"])
    metric["rawData"] = (metric.get("rawData") or []) + (more["primaryMetric"].get("rawData") or [])
    iterations = [v for fork in metric["rawData"] for v in fork]
    metric["score"] = statistics.mean(iterations) if iterations else metric["score"]
    metric["scoreError"] = None
    joined["primaryMetric"] = metric
    secondaries = {}
    others = more.get("secondaryMetrics") or {}
    for key, sec in (entry.get("secondaryMetrics") or {}).items():
        sec = dict(sec)
        sec["rawData"] = (sec.get("rawData") or []) + ((others.get(key) or {}).get("rawData") or [])
        secondaries[key] = sec
    joined["secondaryMetrics"] = secondaries
    joined["forks"] = (entry.get("forks") or 0) + (more.get("forks") or 0)
    return joined


def load(run):
    rows = {}  # (subject, shape) -> dict
    threshold = noisy_threshold()
    for method, shape in SHAPES.items():
        by_subject = {}
        for path in jmh_files(run, method, "json"):
            with open(path) as f:
                text = f.read().strip()
            for entry in json.loads(text) if text else []:
                name = entry["params"]["name"]
                by_subject[name] = join_forks(by_subject[name], entry) if name in by_subject else entry
        for entry in by_subject.values():
            subject = entry["params"]["name"]
            metric = entry["primaryMetric"]
            iterations = [v for fork in metric.get("rawData", []) for v in fork]
            before, after, others = (secondary(entry, "load.before"), secondary(entry, "load.after"),
                                     secondary(entry, "load.others"))
            other_load = statistics.mean(others) if others else None
            rows[(subject, shape)] = {
                "ops_per_s": statistics.median(iterations) if iterations else metric["score"],
                "forks": entry.get("forks"),
                "fork_medians": [statistics.median(fork) for fork in metric.get("rawData", []) if fork],
                "mean": metric["score"],
                "error": metric.get("scoreError"),
                "iterations": iterations,
                "threads": entry.get("threads"),
                "cpu_us_per_op": median(secondary(entry, "cpu.us.per.op")),
                "fork_cpu_us_per_op": [median(v) for v in secondary_by_fork(entry, "cpu.us.per.op")],
                "server_us_per_op": median(secondary(entry, "server.us.per.op")),
                "steal_cores": median(secondary(entry, "load.steal")),
                "cs_voluntary_per_op": median(secondary(entry, "cs.voluntary.per.op")),
                "cs_involuntary_per_op": median(secondary(entry, "cs.involuntary.per.op")),
                "cpu_cores": median(secondary(entry, "cpu.cores")),
                "alloc_bytes_per_op": median(secondary(entry, "gc.alloc.rate.norm")),
                "load_before": before[0] if before else None,
                "load_after": after[-1] if after else None,
                "other_load": other_load,
                "noisy": None if other_load is None else other_load > threshold,
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
                other_load = number(h.get("other_load"))
                rows[(h["subject"], "handoff")] = {
                    "ops_per_s": None, "handoff": h,
                    "latency": {"p50_us": h["p50_us"], "p99_us": h["p99_us"]},
                    "load_before": number(h.get("load_before")), "load_after": number(h.get("load_after")),
                    "other_load": other_load, "noisy": None if other_load is None else other_load > threshold,
                }
    props = {}
    path = os.path.join(run, "run.properties")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    props[k] = v
    return rows, errors, props


def get(rows, subject, shape, field="ops_per_s"):
    row = rows.get((subject, shape))
    return None if not row else row.get(field)


def ops(rows, subject, shape):
    return get(rows, subject, shape)


def is_noisy(rows, *keys):
    return any(get(rows, s, sh, "noisy") for s, sh in keys)


def fmt_ops(v):
    if v is None:
        return "—"
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


def fmt_bytes(v):
    return "—" if v is None else f"{v:,.0f}"


def fmt_load(v):
    return "—" if v is None else f"{v:.2f}"


def mark(rows, subject, shape, text):
    return text + NOISY if get(rows, subject, shape, "noisy") else text


def verdict(ok, noisy=False):
    if ok is None:
        return "—"
    text = "**pass**" if ok else "**MISS**"
    return text + " (noisy)" if noisy else text


def targets(rows):
    """The targets of issues 13 (core), 14 (Redis), 29 and 50: (id, statement, measured, verdict)."""
    out = []

    # issue 13
    t_ops = ops(rows, "distlock-local-template", "1t")
    t_alloc = get(rows, "distlock-local-template", "1t", "alloc_bytes_per_op")
    t_cpu = get(rows, "distlock-local-template", "1t", "cpu_us_per_op")
    n = is_noisy(rows, ("distlock-local-template", "1t"))
    out.append(("13", "`distlock-local-template` 1t allocates ≤ 400 B/op",
                "not measured" if t_alloc is None else f"{t_alloc:,.0f} B/op",
                verdict(None if t_alloc is None else t_alloc <= 400, n)))
    if t_cpu is not None and t_ops:
        wall = 1e6 / t_ops
        out.append(("13", "`distlock-local-template` 1t: process CPU per op ≤ 1.2 × wall time per op",
                    f"CPU {t_cpu:.2f} µs, wall {wall:.2f} µs = {t_cpu / wall:.2f}×", verdict(t_cpu <= 1.2 * wall, n)))
    else:
        out.append(("13", "`distlock-local-template` 1t: process CPU per op ≤ 1.2 × wall time per op",
                    "not measured", verdict(None)))

    a = ops(rows, "distlock-local-annotation", "1t")
    p = ops(rows, "plain-call", "1t")
    if a and t_ops:
        over = 1e6 / a - 1e6 / t_ops
        a_cpu = get(rows, "distlock-local-annotation", "1t", "cpu_us_per_op")
        extra = f"; in CPU per op {a_cpu - t_cpu:+.2f} µs" if a_cpu is not None and t_cpu is not None else ""
        extra += f"; annotated vs plain call {1e6 / a - 1e6 / p:.2f} µs" if p else ""
        out.append(("13", "`@DistributedLock` over `LockTemplate` on `local` ≤ 0.3 µs per call (1t)",
                    f"{over:.2f} µs{extra}",
                    verdict(over <= 0.3, is_noisy(rows, ("distlock-local-annotation", "1t"),
                                                  ("distlock-local-template", "1t")))))
    else:
        out.append(("13", "`@DistributedLock` over `LockTemplate` on `local` ≤ 0.3 µs per call", "not measured",
                    verdict(None)))

    def cpu_vs(id_, subject, peer, margin, statement):
        d, c = get(rows, subject, "1t", "cpu_us_per_op"), get(rows, peer, "1t", "cpu_us_per_op")
        if d is None or c is None:
            out.append((id_, statement, "not measured", verdict(None)))
        else:
            out.append((id_, statement, f"{d:,.1f} vs {c:,.1f} µs/op ({d - c:+,.1f} µs)",
                        verdict(d <= c + margin, is_noisy(rows, (subject, "1t"), (peer, "1t")))))

    cpu_vs("13", "distlock-redis-template", "ceiling-lettuce", 15,
           "`distlock-redis-template` 1t CPU per op ≤ `ceiling-lettuce` + 15 µs")
    cpu_vs("13", "distlock-zookeeper", "curator-mutex", 0,
           "`distlock-zookeeper` 1t CPU per op ≤ Curator `InterProcessMutex`'s")

    def ratio_all(id_, subject, peer, factor, shapes, statement):
        parts, oks = [], []
        for shape in shapes:
            d, r = ops(rows, subject, shape), ops(rows, peer, shape)
            parts.append(f"{shape} {fmt_ratio(d, r)}{forks_of(rows, (subject, peer), shape)}")
            if d is not None and r is not None:
                oks.append(d >= factor * r)
        ok = None if len(oks) != len(shapes) else all(oks)
        keys = [(s, sh) for sh in shapes for s in (subject, peer)]
        out.append((id_, statement, ", ".join(parts), verdict(ok, is_noisy(rows, *keys))))

    ratio_all("13", "distlock-zookeeper", "curator-mutex", 1.0, ("1t", "8t8k", "8t1k"),
              "ZooKeeper ops/s ≥ 1.0 × Curator `InterProcessMutex` (1t, 8t8k, 8t1k)")
    ratio_all("13", "distlock-jdbc-postgres", "si-jdbc-postgres", 1.5, ("1t", "8t8k", "8t1k", "reentry"),
              "JDBC on PostgreSQL ≥ 1.5 × Spring Integration `JdbcLockRegistry` on every shape")

    # issue 29: ahead of every peer on every backend
    ratio_all("29", "distlock-zookeeper", "curator-mutex", 1.2, ("1t", "8t8k", "8t1k"),
              "ZooKeeper ops/s ≥ 1.2 × Curator `InterProcessMutex` (1t, 8t8k, 8t1k)")
    hz, hc = rows.get(("distlock-zookeeper", "handoff")), rows.get(("curator-mutex", "handoff"))
    if hz and hc:
        zp, cp = hz["handoff"]["p50_us"], hc["handoff"]["p50_us"]
        out.append(("29", "handoff `distlock-zookeeper` p50 ≤ Curator's", f"{zp / 1000:.2f} vs {cp / 1000:.2f} ms",
                    verdict(zp <= cp, is_noisy(rows, ("distlock-zookeeper", "handoff"), ("curator-mutex", "handoff")))))
    else:
        out.append(("29", "handoff `distlock-zookeeper` p50 ≤ Curator's", "not measured", verdict(None)))
    ratio_all("29", "distlock-jdbc-postgres", "si-jdbc-postgres", 1.5, ("1t", "8t8k", "8t1k"),
              "JDBC on PostgreSQL ≥ 1.5 × Spring Integration `JdbcLockRegistry` (1t, 8t8k, 8t1k)")
    ratio_all("29", "distlock-redisson", "redisson-rlock", 1.0, ("1t", "8t8k"),
              "`distlock-redisson` ≥ 1.0 × Redisson `RLock` (1t, 8t8k)")

    # issue 50: etcd at least as fast as etcd's own lock, the last Redis and local figures
    ratio_all("50", "distlock-etcd", "jetcd-lock", 1.2, ("1t", "8t8k"),
              "etcd ops/s ≥ 1.2 × jetcd `Lock` (1t, 8t8k)")
    cpu_vs("50", "distlock-etcd", "jetcd-lock", 0, "`distlock-etcd` 1t CPU per op ≤ jetcd `Lock`'s")
    e_b, j_b = (get(rows, "distlock-etcd", "1t", "alloc_bytes_per_op"),
                get(rows, "jetcd-lock", "1t", "alloc_bytes_per_op"))
    out.append(("50", "`distlock-etcd` 1t B/op ≤ jetcd `Lock`'s",
                "not measured" if e_b is None or j_b is None else f"{e_b:,.0f} vs {j_b:,.0f} B/op",
                verdict(None if e_b is None or j_b is None else e_b <= j_b,
                        is_noisy(rows, ("distlock-etcd", "1t"), ("jetcd-lock", "1t")))))
    hd, hr = rows.get(("distlock-redisson", "handoff")), rows.get(("redisson-rlock", "handoff"))
    if hd and hr:
        dp, rp = hd["handoff"]["p50_us"], hr["handoff"]["p50_us"]
        out.append(("50", "handoff `distlock-redisson` p50 ≤ Redisson `RLock`'s", f"{dp / 1000:.2f} vs {rp / 1000:.2f} ms",
                    verdict(dp <= rp, is_noisy(rows, ("distlock-redisson", "handoff"), ("redisson-rlock", "handoff")))))
    else:
        out.append(("50", "handoff `distlock-redisson` p50 ≤ Redisson `RLock`'s", "not measured", verdict(None)))

    # issue 14
    ceiling = ops(rows, "ceiling-lettuce", "1t")
    ann1 = ops(rows, "distlock-redis-annotation", "1t")
    out.append(("14 P1", "`distlock-redis-annotation` 1t ≥ 0.95 × `ceiling-lettuce` 1t",
                f"{fmt_ops(ann1)} vs {fmt_ops(ceiling)} ops/s = {fmt_ratio(ann1, ceiling)}"
                + forks_of(rows, ("distlock-redis-annotation", "ceiling-lettuce", "distlock-redis-template")),
                verdict(None if ceiling is None or ann1 is None else ann1 >= 0.95 * ceiling,
                        is_noisy(rows, ("distlock-redis-annotation", "1t"), ("ceiling-lettuce", "1t")))))
    for id_, shape in (("14 P2", "8t8k"), ("14 P3", "8t1k")):
        d = ops(rows, "distlock-redis-annotation", shape)
        peers = [(ops(rows, s, shape), s) for s in ("si-redis-spin", "si-redis-pubsub", "redisson-rlock")]
        peers = [(v, s) for v, s in peers if v is not None]
        statement = (f"`distlock-redis-annotation` {shape} ≥ 1.2 × the best of Spring Integration (spin, pub/sub) "
                     "and Redisson")
        if d is None or not peers:
            out.append((id_, statement, "not measured", verdict(None)))
            continue
        best, name = max(peers)
        keys = [("distlock-redis-annotation", shape)] + [(s, shape) for _, s in peers]
        out.append((id_, statement, f"{fmt_ops(d)} vs `{name}` {fmt_ops(best)} ops/s = {fmt_ratio(d, best)}",
                    verdict(d >= 1.2 * best, is_noisy(rows, *keys))))
    cpu_vs("14", "distlock-redis-annotation", "ceiling-lettuce", 10,
           "`distlock-redis-annotation` 1t CPU per op ≤ `ceiling-lettuce` + 10 µs")
    asy = ops(rows, "distlock-redis-async-release", "1t")
    out.append(("14", "`distlock-redis-async-release` 1t ≥ 1.6 × `ceiling-lettuce` 1t",
                f"{fmt_ops(asy)} vs {fmt_ops(ceiling)} ops/s = {fmt_ratio(asy, ceiling)}",
                verdict(None if asy is None or ceiling is None else asy >= 1.6 * ceiling,
                        is_noisy(rows, ("distlock-redis-async-release", "1t"), ("ceiling-lettuce", "1t")))))
    handoff_peers = ["redisson-rlock", "si-redis-pubsub", "si-redis-spin", "lock4j"]
    for subject in ("distlock-redis-template", "distlock-redis-async-release"):
        statement = f"handoff `{subject}`: p50 ≤ 1 ms and below every Redis peer's p50"
        h = rows.get((subject, "handoff"))
        if not h:
            if subject == "distlock-redis-template":
                out.append(("14", statement, "not measured", verdict(None)))
            continue
        p50 = h["handoff"]["p50_us"]
        measured = [(rows[(s, "handoff")]["handoff"]["p50_us"], s) for s in handoff_peers if (s, "handoff") in rows]
        best = min(measured) if measured else None
        peer_text = f", best peer `{best[1]}` {best[0] / 1000:.2f} ms" if best else ", no peer measured"
        ok = p50 <= 1000 and (best is None or p50 < best[0])
        keys = [(subject, "handoff")] + [(s, "handoff") for _, s in measured]
        out.append(("14", statement, f"p50 {p50 / 1000:.2f} ms{peer_text}", verdict(ok, is_noisy(rows, *keys))))
    return out


def results_list(rows):
    results = []

    def rnd(v, digits):
        return None if v is None else round(v, digits)

    for subject in SUBJECTS:
        for shape in SHAPE_ORDER:
            row = rows.get((subject, shape))
            if not row:
                continue
            lat = row.get("latency") or {}
            results.append({
                "subject": subject,
                "shape": shape,
                "ops_per_s": rnd(row["ops_per_s"], 1),
                "p50_us": rnd(lat.get("p50_us"), 3),
                "p99_us": rnd(lat.get("p99_us"), 3),
                "cpu_us_per_op": rnd(row.get("cpu_us_per_op"), 3),
                "alloc_bytes_per_op": rnd(row.get("alloc_bytes_per_op"), 1),
                "fork_ops_per_s": [rnd(v, 1) for v in row.get("fork_medians") or []],
                "fork_cpu_us_per_op": [rnd(v, 3) for v in row.get("fork_cpu_us_per_op") or []],
                "server_us_per_op": rnd(row.get("server_us_per_op"), 2),
                "steal_cores": rnd(row.get("steal_cores"), 3),
                "cs_voluntary_per_op": rnd(row.get("cs_voluntary_per_op"), 3),
                "cs_involuntary_per_op": rnd(row.get("cs_involuntary_per_op"), 3),
                "load_before": rnd(row.get("load_before"), 2),
                "load_after": rnd(row.get("load_after"), 2),
                "other_load": rnd(row.get("other_load"), 2),
                "noisy": row.get("noisy"),
            })
    return results


def run_of_results_md(results_json):
    """The run's mode, start and commit from the RESULTS.md beside a results.json written before it kept them."""
    path = os.path.join(os.path.dirname(os.path.abspath(results_json)), "RESULTS.md")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        m = re.search(r"\((\w+) run, (\S+) → (\S+), commit `([^`]*)`\)", f.read())
    return {"mode": m.group(1), "started": m.group(2), "finished": m.group(3), "commit": m.group(4)} if m else {}


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--charts":
        with open(sys.argv[2]) as f:
            data = json.load(f)
        charts.write_all(data.get("results", []), data.get("run") or run_of_results_md(sys.argv[2]), sys.argv[3])
        if data.get("scaling"):
            charts.write_scaling(data["scaling"], data["scaling"].get("run") or {}, sys.argv[3])
        return
    run, bench_dir = sys.argv[1], sys.argv[2]
    docs_dir = sys.argv[3] if len(sys.argv) > 3 else None
    rows, errors, props = load(run)
    threshold = noisy_threshold()
    scaled = scaling.load(run, threshold)
    if scaled:
        scaled["run"] = {k: props.get(k) for k in ("mode", "started", "finished", "commit", "jmh_times", "scaling_n",
                                                    "scaling_periods", "scaling_opts")}
        if docs_dir:
            charts.write_scaling(scaled, scaled["run"], docs_dir)
    if scaled and not rows and not errors:
        write_scaling_only(bench_dir, scaled, props)
        return

    results = results_list(rows)
    meta = {k: props.get(k) for k in ("mode", "started", "finished", "commit", "jmh_times", "handoff")}
    meta["noisy_load"] = threshold
    with open(os.path.join(bench_dir, "results.json"), "w") as f:
        json.dump({"run": meta, "results": results, **({"scaling": scaled} if scaled else {})}, f, indent=2)
        f.write("\n")
    if docs_dir:
        charts.write_all(results, meta, docs_dir)

    present = [s for s in SUBJECTS if any((s, sh) in rows for sh in SHAPE_ORDER)]
    missing = [s for s in SUBJECTS if s not in present]
    L = []
    L.append("# distlock benchmarks")
    L.append("")
    L.append(f"Generated by `benchmarks/run.sh{' --quick' if props.get('mode') == 'quick' else ''}` "
             f"({props.get('mode', '?')} run, {props.get('started', '?')} → {props.get('finished', '?')}, "
             f"commit `{props.get('commit', '?')}`). Every figure comes from this one run on one machine, so the "
             "ratios compare like with like. Raw JMH output: `benchmarks/target/results/`. Charts: "
             "[ops/s](../docs/benchmarks-ops.svg), [handoff](../docs/benchmarks-handoff.svg).")
    L.append("")
    noisy_rows = [(s, sh) for (s, sh), r in rows.items() if r.get("noisy")]
    if noisy_rows:
        L.append(f"**{len(noisy_rows)} figure(s) marked {NOISY} were taken while other processes kept more than "
                 f"{threshold:g} cores busy on average**; rerun them on a quiet machine before quoting them.")
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
             f"PostgreSQL {props.get('postgresql', '?')} ({pg_server(props)}); ZooKeeper {ver('zookeeper')} "
             f"in-process (Curator `TestingServer`, inside the benchmark JVM)")
    L.append(f"- Spring Boot {ver('spring-boot')}, Spring Framework {ver('spring-core')}, Spring Data Redis "
             f"{ver('spring-data-redis')}, Lettuce {ver('lettuce-core')}, Redisson {ver('redisson')}, "
             f"Spring Integration {ver('spring-integration-redis')} (JDBC module {ver('spring-integration-jdbc')}: "
             f"7.1.0 is absent from the registry), lock4j {ver('lock4j-core')}, Curator {ver('curator-recipes')}, "
             f"HikariCP {ver('HikariCP')}, PostgreSQL JDBC {ver('postgresql')}, JMH {ver('jmh-core')}")
    L.append(f"- JMH: `{props.get('jmh_times', '?')} {props.get('jmh_profilers', '')}`, throughput mode, one fork "
             f"per subject and shape{fork_counts(props)}; handoff (handoffs, warm-up, margin ms, max s): `{props.get('handoff', '?')}`")
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
             "its proxy; `-async-release` is `-annotation` with `distlock.redis.release-mode=async`.")
    more_forks = (", the two Redisson subjects at 1t and 8t8k, whose forks differ too"
                  if extra_forks(props, "redisson_forks") else "")
    if extra_forks(props, "pair_forks"):
        more_forks += ", the ZooKeeper and JDBC pairs at 8t8k"
    L.append("- ops/s = median of the measurement iterations (of all forks where a subject ran more than one: "
             "the three subjects of the Redis P1 target at 1t, whose forks differ by up to a quarter"
             f"{more_forks}); p50/p99 = every operation of those iterations "
             "timed with `System.nanoTime()` into an HdrHistogram (two `nanoTime` calls, ~50 ns, inside the "
             "throughput run, rather than a second `Mode.SampleTime` run).")
    L.append("- CPU µs/op = the benchmark JVM's process CPU time (every thread: callers, client I/O threads, "
             "timers, JIT, GC) over an iteration ÷ the operations of that iteration, median of the measurement "
             "iterations (`CpuPerOp` profiler). Redis's and PostgreSQL's own CPU is not in it; ZooKeeper's is "
             "(in-process server). B/op = JMH's `gc.alloc.rate.norm` (`-prof gc`): bytes allocated by every thread "
             "of the JVM, JMH's own included, ÷ operations, median of the measurement iterations.")
    L.append(f"- Load: the 1-minute load average at the start of the first and the end of the last measurement "
             f"iteration (it counts the benchmark's own threads: one busy caller alone drives it toward 1), and "
             f"`others` = cores kept busy by processes other than the benchmark JVMs and the Redis/PostgreSQL "
             f"servers, averaged over the measurement iterations. {NOISY} marks a figure whose `others` exceeded "
             f"{threshold:g} (`noisy: true` in results.json).")
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
        cells = [mark(rows, s, sh, fmt_ops(ops(rows, s, sh))) for sh in ("1t", "8t8k", "8t1k", "reentry")]
        if s in REDIS:
            ratios = [fmt_ratio(ops(rows, s, sh), ops(rows, "ceiling-lettuce", sh)) for sh in ("1t", "8t8k", "8t1k")]
        else:
            ratios = ["", "", ""]
        L.append(f"| `{s}` | " + " | ".join(cells + ratios) + " |")
    L.append("")

    L.append("## Each shape: throughput, latency, cost per operation, load")
    L.append("")
    L.append("CPU µs/op and B/op count every thread of the benchmark JVM; load before → after is the 1-minute load "
             "average; others = cores used by other processes meanwhile.")
    L.append("")
    for shape, title in SHAPE_TITLES.items():
        shown = [s for s in present if (s, shape) in rows]
        if not shown:
            continue
        L.append(f"### `{shape}`: {title}")
        L.append("")
        L.append("| subject | ops/s | × ceiling | p50 µs | p99 µs | CPU µs/op | B/op | load before → after | others |")
        L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for s in shown:
            row = rows[(s, shape)]
            lat = row.get("latency") or {}
            ratio = fmt_ratio(ops(rows, s, shape), ops(rows, "ceiling-lettuce", shape)) if s in REDIS else ""
            L.append(f"| `{s}` | {mark(rows, s, shape, fmt_ops(row['ops_per_s']))} | {ratio} | "
                     f"{fmt_us(lat.get('p50_us'))} | {fmt_us(lat.get('p99_us'))} | "
                     f"{fmt_us(row.get('cpu_us_per_op'))} | {fmt_bytes(row.get('alloc_bytes_per_op'))} | "
                     f"{fmt_load(row.get('load_before'))} → {fmt_load(row.get('load_after'))} | "
                     f"{mark(rows, s, shape, fmt_load(row.get('other_load')))} |")
        L.append("")

    pairs = [(s, p) for s, peers in PEERS.items() for p in peers if s in present and p in present]
    if pairs:
        L.append("## distlock against each peer (ratio of ops/s, same shape)")
        L.append("")
        L.append("| distlock subject | peer | 1t | 8t8k | 8t1k | reentry |")
        L.append("| --- | --- | ---: | ---: | ---: | ---: |")
        for s, p in pairs:
            cells = [fmt_ratio(ops(rows, s, sh), ops(rows, p, sh)) for sh in ("1t", "8t8k", "8t1k", "reentry")]
            L.append(f"| `{s}` | `{p}` | " + " | ".join(cells) + " |")
        L.append("")

    L.append("## Where the time goes on Redis, one thread (diagnostics)")
    L.append("")
    L.append("Each step adds one layer: raw Lettuce (`ceiling-lettuce`), the same two scripts through Spring Data "
             "Redis's `StringRedisTemplate` (`diag-sdr-scripts`), distlock's `RedisLockProvider` called directly "
             "(`diag-redis-provider`: its scripts and keys, no core), `LockTemplate.execute` (local queue, re-entry "
             "map, lease bookkeeping) in the Boot application over a plain `LettuceConnectionFactory` "
             "(`diag-redis-template-plain-client`) and over the one Boot builds (`distlock-redis-template`), and the "
             "`@DistributedLock` proxy. µs per operation = 1 / median ops/s; CPU "
             "µs/op is the process CPU, which a busy machine disturbs far less.")
    L.append("")
    L.append("| layer | 1t ops/s | µs/op | + µs vs previous | p50 µs | CPU µs/op | + CPU µs | B/op | 8t8k ops/s |")
    L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    previous = previous_cpu = None
    for s in ["ceiling-lettuce", "diag-sdr-scripts", "diag-redis-provider", "diag-redis-template-plain-client",
              "distlock-redis-template", "distlock-redis-annotation"]:
        o = ops(rows, s, "1t")
        if o is None:
            continue
        us = 1e6 / o
        cpu = get(rows, s, "1t", "cpu_us_per_op")
        lat = (rows.get((s, "1t")) or {}).get("latency") or {}
        delta = "" if previous is None else f"{us - previous:+.1f}"
        cpu_delta = "" if previous_cpu is None or cpu is None else f"{cpu - previous_cpu:+.1f}"
        L.append(f"| `{s}` | {mark(rows, s, '1t', fmt_ops(o))} | {us:.1f} | {delta} | {fmt_us(lat.get('p50_us'))} | "
                 f"{fmt_us(cpu)} | {cpu_delta} | {fmt_bytes(get(rows, s, '1t', 'alloc_bytes_per_op'))} | "
                 f"{fmt_ops(ops(rows, s, '8t8k'))} |")
        previous, previous_cpu = us, cpu
    L.append("")

    handoffs = [s for s in ALL if (s, "handoff") in rows or (s, "handoff") in errors]
    if handoffs:
        L.append("## Handoff between two JVMs (µs)")
        L.append("")
        L.append("| subject | handoffs | p50 | p90 | p99 | max | mean | pair mean (own clocks) | pair p50 | "
                 "load before → after | others |")
        L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for s in handoffs:
        row = rows.get((s, "handoff"))
        if row:
            h = row["handoff"]
            L.append(f"| `{s}` | {h['count']} | {mark(rows, s, 'handoff', fmt_us(h['p50_us']))} | "
                     f"{fmt_us(h['p90_us'])} | {fmt_us(h['p99_us'])} | {fmt_us(h['max_us'])} | "
                     f"{fmt_us(h['mean_us'])} | {fmt_us(h['pair_mean_us'])} | {fmt_us(h['pair_p50_us'])} | "
                     f"{fmt_load(row.get('load_before'))} → {fmt_load(row.get('load_after'))} | "
                     f"{mark(rows, s, 'handoff', fmt_load(row.get('other_load')))} |")
        elif (s, "handoff") in errors:
            L.append(f"| `{s}` | failed: {errors[(s, 'handoff')]} | | | | | | | | | |")
    if handoffs:
        L.append("")

    L.append("## Targets (issues 13, 14, 29 and 50)")
    L.append("")
    L.append("`distlock-redis-async-release` runs with `distlock.redis.release-mode=async`. A verdict marked (noisy) "
             "rests on a figure taken beside other work.")
    L.append("")
    L.append("| issue | target | measured | verdict |")
    L.append("| --- | --- | --- | --- |")
    for t in targets(rows):
        L.append("| " + " | ".join(t) + " |")
    L.append("")

    failed = []
    for method, shape in SHAPES.items():
        for log in jmh_files(run, method, "log"):
            with open(log, errors="replace") as f:
                text = f.read()
            for name in sorted(set(re.findall(r"# Parameters: \(name = ([^)]+)\)", text))):
                if (name, shape) not in rows:
                    failed.append(f"`{name}` {shape}")
    if missing or failed:
        L.append("## Not measured in this run")
        L.append("")
        if missing:
            L.append("- Subjects absent from this build, not selected, or failed in every shape: "
                     + ", ".join(f"`{m}`" for m in missing))
        if failed:
            L.append("- Failed: " + ", ".join(failed) + " (see the JMH logs of the run)")
        L.append("")

    if scaled:
        L.extend(scaling.section(scaled, props))
        L.append("")

    analysis = os.path.join(bench_dir, "ANALYSIS.md")
    if os.path.exists(analysis):
        with open(analysis) as f:
            L.append(f.read().rstrip() + "\n")

    with open(os.path.join(bench_dir, "RESULTS.md"), "w") as f:
        f.write("\n".join(L).rstrip() + "\n")


def write_scaling_only(bench_dir, scaled, props):
    """A run of the scaling benchmark alone: replace its section and its results.json entry, keep the rest."""
    path = os.path.join(bench_dir, "RESULTS.md")
    text = open(path).read() if os.path.exists(path) else "# distlock benchmarks\n"
    text = scaling.splice(text, scaling.section(scaled, props, alone=True))
    # the hand-written analysis follows the scaling section, as in a full run's RESULTS.md: bring it up to date
    analysis = os.path.join(bench_dir, "ANALYSIS.md")
    if os.path.exists(analysis) and scaling.END in text:
        with open(analysis) as f:
            text = text[:text.index(scaling.END) + len(scaling.END)] + "\n\n" + f.read().rstrip() + "\n"
    with open(path, "w") as f:
        f.write(text.rstrip() + "\n")
    path = os.path.join(bench_dir, "results.json")
    data = {}
    if os.path.exists(path):
        with open(path) as f:
            data = json.load(f)
    data["scaling"] = scaled
    with open(path, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
