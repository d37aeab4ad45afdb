"""The scaling benchmark of issue 29 in a run of benchmarks/run.sh: how distlock's cost grows with the locks held.

Inputs in the run directory: scaling.jsonl (one line per backend and N from HeldLeases), jmh-eightThreadsRandomKeys.json
(KeySpreadBenchmark, with the CpuPerOp and gc secondary results) and latency/keys<K>__<subject>.json.
load(run) reads them; section(scaling, props) writes the RESULTS.md section (between the markers BEGIN and END, so a
run of the scaling benchmark alone can replace it in an existing RESULTS.md: splice(text, section)).
"""
import json
import os
import statistics

BEGIN = "<!-- scaling: written by report.py from the scaling benchmark -->"
END = "<!-- /scaling -->"
SUBJECTS = ["distlock-local-template", "distlock-redis-template", "distlock-jdbc-postgres", "distlock-zookeeper"]
BACKENDS = {
    "distlock-local-template": "local",
    "distlock-redis-template": "Redis",
    "distlock-jdbc-postgres": "JDBC (PostgreSQL)",
    "distlock-zookeeper": "ZooKeeper",
}
# the peers run beside distlock in the key spread only, under the backend they compare with
SPREAD_PEERS = {
    "distlock-zookeeper": ("curator-mutex", "Curator `InterProcessMutex` (peer)"),
    "distlock-jdbc-postgres": ("si-jdbc-postgres", "Spring Integration `JdbcLockRegistry` (peer)"),
}
KEY_COUNTS = [8, 1000, 100000]
TARGET_N = 100000


def number(v):
    try:
        v = float(v)
    except (TypeError, ValueError):
        return None
    return None if v != v or v in (float("inf"), float("-inf")) else v


def load(run, noisy_threshold):
    """{'held': [rows of HeldLeases], 'spread': [{subject, keys, ops_per_s, ...}]}, or None if the run has neither."""
    held, spread = [], []
    path = os.path.join(run, "scaling.jsonl")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    row = json.loads(line)
                    other = number(row.get("other_load"))
                    row["noisy"] = None if other is None else other > noisy_threshold
                    held.append(row)
    path = os.path.join(run, "jmh-eightThreadsRandomKeys.json")
    text = open(path).read().strip() if os.path.exists(path) else ""
    for entry in json.loads(text) if text else []:
        subject, keys = entry["params"]["name"], int(entry["params"]["keyCount"])
        metric = entry["primaryMetric"]
        iterations = [v for fork in metric.get("rawData", []) for v in fork]

        def secondary(name):
            for key, m in (entry.get("secondaryMetrics") or {}).items():
                if key.lstrip("·") == name:
                    values = [number(v) for fork in m.get("rawData", []) for v in fork]
                    return [v for v in values if v is not None]
            return []

        others = secondary("load.others")
        other = statistics.mean(others) if others else None
        row = {
            "subject": subject, "keys": keys,
            "ops_per_s": round(statistics.median(iterations) if iterations else metric["score"], 1),
            "cpu_us_per_op": median(secondary("cpu.us.per.op")),
            "alloc_bytes_per_op": median(secondary("gc.alloc.rate.norm")),
            "other_load": other, "noisy": None if other is None else other > noisy_threshold,
        }
        lat = os.path.join(run, "latency", f"keys{keys}__{subject}.json")
        if os.path.exists(lat):
            with open(lat) as f:
                data = json.load(f)
            row["p50_us"], row["p99_us"] = data.get("p50_us"), data.get("p99_us")
        spread.append(row)
    if not held and not spread:
        return None
    return {"held": held, "spread": spread}


def median(values):
    return round(statistics.median(values), 3) if values else None


def fmt(v, digits=1, suffix=""):
    if v is None:
        return "—"
    return f"{v:,.{digits}f}{suffix}"


def verdict(ok, noisy=False):
    if ok is None:
        return "—"
    return ("**pass**" if ok else "**MISS**") + (" (noisy)" if noisy else "")


def lost_leases(row):
    """Leases lost while acquiring or during the periods: any voids the row's figures."""
    return (row.get("lost") or 0) + (row.get("lost_while_acquiring") or 0)


def lost_cell(row):
    text = f"{row['lost']} ({row.get('lost_while_acquiring', 0)})"
    acquired = row.get("acquired")
    if acquired is not None and acquired < row["n"]:
        text += f"; stopped acquiring at {acquired:,}"
    return text


def setting(row):
    """'stress' (the scaling rows' short lease and interval) or 'default' (the watchdog's defaults)."""
    return row.get("setting", "stress")


def held_row(scaling, subject, n, which="stress"):
    for row in scaling["held"]:
        if row["subject"] == subject and row["n"] == n and setting(row) == which:
            return row
    return None


def spread_row(scaling, subject, keys):
    for row in scaling["spread"]:
        if row["subject"] == subject and row["keys"] == keys:
            return row
    return None


def targets(scaling):
    """Issue 29's targets at 100,000 held watchdog leases and over 100,000 keys: (statement, measured, verdict)."""
    out = []
    for subject in SUBJECTS:
        for which in ("default", "stress"):
            r = held_row(scaling, subject, TARGET_N, which)
            name = BACKENDS[subject]
            if r is None and which == "default":
                continue
            held = f"{name}, 100,000 held" + (", watchdog defaults" if which == "default" else "")
            if r is not None and which == "stress" and held_row(scaling, subject, TARGET_N, "default"):
                held += f", {r['lease_ms'] / 1000:g} s lease renewed every {r['interval_ms'] / 1000:g} s"
            if r is None or "error" in r:
                reason = "not measured" if r is None else f"failed: {r['error']}"
                out.append((f"{held}: watchdog leases", reason, verdict(None)))
                continue
            noisy = bool(r.get("noisy"))
            lost = lost_leases(r)
            lost_note = (f" ({lost} leases lost, {r.get('acquired', '?')} of {r['n']:,} acquired: the renewals did "
                         "not keep up)") if lost else ""
            out.append((f"{held}: ≤ 2 distlock threads", f"{r['distlock_threads']}{lost_note}",
                        verdict(r["distlock_threads"] <= 2 and not lost, noisy)))
            out.append((f"{held}: ≤ 1 KB heap per held lease", fmt(r["heap_bytes_per_lease"], 0, " B"),
                        verdict(r["heap_bytes_per_lease"] <= 1024 and not lost, noisy)))
            out.append((f"{held}: renewal CPU ≤ 10 % of one core", fmt(r["cpu_pct"], 1, " %"),
                        verdict(r["cpu_pct"] <= 10 and not lost, noisy)))
            if subject == "distlock-redis-template":
                out.append((f"{held}: round trips per period ≤ N / 100 (1,000)",
                            fmt(r["round_trips_per_period"], 1),
                            verdict(r["round_trips_per_period"] <= TARGET_N / 100 and not lost, noisy)))
    for subject in SUBJECTS:
        few, many = spread_row(scaling, subject, 8), spread_row(scaling, subject, 100000)
        statement = f"{BACKENDS[subject]}: 8 threads over 100,000 keys ≥ 0.9 × over 8 keys"
        if not few or not many or not few["ops_per_s"]:
            out.append((statement, "not measured", verdict(None)))
            continue
        ratio = many["ops_per_s"] / few["ops_per_s"]
        out.append((statement, f"{many['ops_per_s']:,.0f} vs {few['ops_per_s']:,.0f} ops/s = {ratio:.2f}×",
                    verdict(ratio >= 0.9, bool(few.get("noisy") or many.get("noisy")))))
    return out


def section(scaling, props, alone=False):
    """The RESULTS.md section, markers included; alone: a run of the scaling benchmark by itself."""
    mode = props.get("mode", "?")
    L = [BEGIN, "## Scaling: locks held at once and key spread (issue 29)", ""]
    what = "a run of the scaling benchmark alone (`BENCH_SUBJECTS=@scaling`; the sections above come from the run " \
        "they name)" if alone else f"the {mode} run"
    L.append(f"From {what} {props.get('started', '?')} → {props.get('finished', '?')}, commit "
             f"`{props.get('commit', '?')}`; N = {props.get('scaling_n', '?')}, "
             f"{props.get('scaling_periods', '?')} renewal periods per row, HeldLeases JVM options "
             f"`{props.get('scaling_opts', '?')}`. Chart: [CPU and heap per held lease](../docs/benchmarks-scaling.svg).")
    if mode == "quick":
        L.append("")
        L.append("**Smoke run: tiny sizes, no warm-up, beside other work. These figures prove the benchmark runs; "
                 "they are not results.**")
    L.append("")
    L.append("- Held leases (`HeldLeases`): one JVM per backend and N acquires N distinct keys with no lease "
             "(watchdog) on 8 threads, then holds them and measures whole renewal periods: process CPU "
             "(`OperatingSystemMXBean`) and that of the `distlock-*` threads (`ThreadMXBean`), in % of one core; "
             "backend round trips per period (Redis, JDBC: the renewer's batches, each one pipelined call or one "
             "statement on one connection; ZooKeeper: packets the server received, one transaction of existence "
             "checks per 500 leases and the session's pings; local: no backend); live `distlock-*` threads; heap "
             "used after a full GC with the N leases held minus before, ÷ N. The ZooKeeper server of these rows runs "
             "in a JVM of its own, so the CPU, threads and heap are the client's. A row with leases lost, during the "
             "periods or while acquiring, is void: the renewals did not keep up; acquiring stops at the first lost "
             "lease. The rows marked (defaults) hold the largest N once more with the watchdog's defaults, a 30 s "
             "lease renewed every 10 s: what a service that sets nothing pays; the other rows renew ten times as "
             "often.")
    L.append("- Key spread (`KeySpreadBenchmark`, JMH as the shapes above): 8 threads acquire + release a key drawn "
             "at random per operation from 8, 1,000 or 100,000 distinct keys (lease 30 s). Curator and Spring "
             "Integration's JDBC registry run beside ZooKeeper and JDBC: there a new key costs the server work "
             "(ZooKeeper: the key's container nodes; PostgreSQL: a new row), and the peer shows what the server "
             "alone makes of it. Keys carry the run's id, so each run starts with none of them.")
    L.append("")
    if scaling["held"]:
        L.append("### Held watchdog leases, per renewal period")
        L.append("")
        L.append("| backend | N | lease / interval | acquire s | CPU % of a core | distlock threads' CPU % | "
                 "round trips / period | renewal batches / period | distlock threads | heap B / held lease | "
                 "lost (while acquiring) | others |")
        L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        order = {s: i for i, s in enumerate(SUBJECTS)}
        for r in sorted(scaling["held"], key=lambda r: (order.get(r["subject"], 99), setting(r) == "default",
                                                         r["n"])):
            name = BACKENDS.get(r["subject"], r["subject"])
            timing = f"{r['lease_ms'] / 1000:g} s / {r['interval_ms'] / 1000:g} s"
            if setting(r) == "default":
                timing += " (defaults)"
            if "error" in r:
                L.append(f"| {name} | {r['n']:,} | {timing} | failed: {r['error']} | | | | | | | | |")
                continue
            dagger = "†" if r.get("noisy") else ""
            L.append(f"| {name} | {r['n']:,} | {timing} | {fmt(r.get('acquire_s'))} | {fmt(r['cpu_pct'])}{dagger} | "
                     f"{fmt(r['distlock_cpu_pct'])} | {fmt(r['round_trips_per_period'])} | "
                     f"{fmt(r['renewal_batches_per_period'])} | {r['distlock_threads']} | "
                     f"{fmt(r['heap_bytes_per_lease'], 0)} | {lost_cell(r)} | "
                     f"{fmt(r.get('other_load'), 2)}{dagger} |")
        L.append("")
        names = sorted({(BACKENDS.get(r["subject"], r["subject"]), r.get("distlock_thread_names", ""))
                        for r in scaling["held"] if r.get("distlock_thread_names")})
        if names:
            L.append("distlock's threads seen: " + "; ".join(f"{b}: `{t}`" for b, t in names) + ".")
            L.append("")
    sweeps = [r for r in scaling["held"] if r.get("sweep_held_ms") is not None]
    if sweeps:
        L.append("### JDBC: the sweep over the lock table")
        L.append("")
        L.append("One `JdbcLockProvider.sweep()` with the N leases held (the table holds their N rows: a scan without "
                 "an index on `lease_until` that finds none of them to delete), and one right after they were "
                 "released (deleting their rows in batches of `cleanup-batch-size`, 500). The background sweep does "
                 "the same every `cleanup-interval` (30 s), on an io thread.")
        L.append("")
        L.append("| N | lease / interval | sweep with N held, ms (rows deleted) | sweep after N released, ms "
                 "(rows deleted) |")
        L.append("| ---: | ---: | ---: | ---: |")
        for r in sorted(sweeps, key=lambda r: (setting(r) == "default", r["n"])):
            timing = f"{r['lease_ms'] / 1000:g} s / {r['interval_ms'] / 1000:g} s"
            released = (f"{fmt(r.get('sweep_released_ms'))} ({r.get('sweep_released_rows', 0):,})"
                        if r.get("sweep_released_ms") is not None else "—")
            L.append(f"| {r['n']:,} | {timing} | {fmt(r['sweep_held_ms'])} ({r.get('sweep_held_rows', 0):,}) | "
                     f"{released} |")
        L.append("")
    if scaling["spread"]:
        L.append("### 8 threads over many keys (ops/s, median)")
        L.append("")
        L.append("| backend | 8 keys | 1,000 keys | 100,000 keys | 100,000 ÷ 8 | CPU µs/op (8 → 100,000) | "
                 "B/op (8 → 100,000) | p50 µs (8 → 100,000) |")
        L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        lines = [(s, BACKENDS[s]) for s in SUBJECTS]
        for subject, (peer, label) in SPREAD_PEERS.items():
            at = next((i for i, (s, _) in enumerate(lines) if s == subject), len(lines) - 1)
            lines.insert(at + 1, (peer, label))
        for subject, label in lines:
            rows = {k: spread_row(scaling, subject, k) for k in KEY_COUNTS}
            if not any(rows.values()):
                continue

            def cell(k, field="ops_per_s", digits=0):
                r = rows[k]
                if not r:
                    return "—"
                return fmt(r.get(field), digits) + ("†" if r.get("noisy") and field == "ops_per_s" else "")

            few, many = rows[8], rows[100000]
            ratio = (f"{many['ops_per_s'] / few['ops_per_s']:.2f}×"
                     if few and many and few["ops_per_s"] else "—")
            L.append(f"| {label} | {cell(8)} | {cell(1000)} | {cell(100000)} | {ratio} | "
                     f"{cell(8, 'cpu_us_per_op', 1)} → {cell(100000, 'cpu_us_per_op', 1)} | "
                     f"{cell(8, 'alloc_bytes_per_op')} → {cell(100000, 'alloc_bytes_per_op')} | "
                     f"{cell(8, 'p50_us', 1)} → {cell(100000, 'p50_us', 1)} |")
        L.append("")
    L.append("### Targets (issue 29)")
    L.append("")
    L.append("| target | measured | verdict |")
    L.append("| --- | --- | --- |")
    for statement, measured, judged in targets(scaling):
        # a smoke run's figures decide nothing
        judged = "— (smoke run)" if mode == "quick" and judged != "—" else judged
        L.append(f"| {statement} | {measured} | {judged} |")
    L.append("")
    L.append(END)
    return L


def splice(text, lines):
    """text with its scaling section replaced by lines (or the section put before the closing note, or at the end)."""
    block = "\n".join(lines)
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        return head + block + rest.split(END, 1)[1]
    marker = "## Closing note"
    if marker in text:
        head, rest = text.split(marker, 1)
        return head + block + "\n\n" + marker + rest
    return text.rstrip() + "\n\n" + block + "\n"
