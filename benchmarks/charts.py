"""SVG charts of a benchmark run, written by hand (no plotting library is needed or installed).

write_all(results, run, docs_dir) draws, from the rows of results.json:
- docs/benchmarks-ops.svg: acquire + release pairs per second per shape (1t, 8t8k, 8t1k), grouped bars, one panel per
  backend (Redis, ZooKeeper, PostgreSQL, etcd) with distlock and each peer, linear scale per panel;
- docs/benchmarks-handoff.svg: handoff latency between two JVMs, p50 and p99 per subject, log scale.
write_scaling(scaling, run, docs_dir) draws docs/benchmarks-scaling.svg from the scaling benchmark (issue 29): renewal
CPU (% of one core) and heap per held lease against the number of watchdog leases held, one line per backend, with
the targets at 100,000 held leases.
A figure marked noisy in results.json is drawn pale and its label carries a dagger.
"""
import math
import os
from xml.sax.saxutils import escape

FONT = "-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif"
SHAPES = ["1t", "8t8k", "8t1k"]
SHAPE_LABELS = {"1t": "1 thread", "8t8k": "8 threads × 8 keys", "8t1k": "8 threads × 1 key"}
PANELS = [
    ("Redis", ["ceiling-lettuce", "distlock-redis-template", "distlock-redis-annotation",
               "distlock-redis-async-release", "distlock-redisson", "redisson-rlock", "si-redis-spin",
               "si-redis-pubsub", "lock4j"]),
    ("ZooKeeper", ["distlock-zookeeper", "curator-mutex"]),
    ("PostgreSQL", ["distlock-jdbc-postgres", "si-jdbc-postgres"]),
    ("etcd", ["distlock-etcd", "jetcd-lock"]),
]
COLORS = {
    "ceiling-lettuce": "#4b5563",
    "distlock-redis-template": "#1d4ed8",
    "distlock-redis-annotation": "#3b82f6",
    "distlock-redis-async-release": "#93c5fd",
    "distlock-redisson": "#0891b2",
    "redisson-rlock": "#f59e0b",
    "si-redis-spin": "#15803d",
    "si-redis-pubsub": "#4ade80",
    "lock4j": "#dc2626",
    "distlock-zookeeper": "#1d4ed8",
    "curator-mutex": "#f59e0b",
    "distlock-jdbc-postgres": "#1d4ed8",
    "si-jdbc-postgres": "#15803d",
    "distlock-etcd": "#1d4ed8",
    "jetcd-lock": "#f59e0b",
}
NAMES = {
    "ceiling-lettuce": "raw Lettuce (two-round-trip ceiling)",
    "distlock-redis-template": "distlock LockTemplate",
    "distlock-redis-annotation": "distlock @DistributedLock",
    "distlock-redis-async-release": "distlock @DistributedLock, async release",
    "distlock-redisson": "distlock on Redisson",
    "redisson-rlock": "Redisson RLock",
    "si-redis-spin": "Spring Integration (spin)",
    "si-redis-pubsub": "Spring Integration (pub/sub)",
    "lock4j": "lock4j",
    "distlock-zookeeper": "distlock",
    "curator-mutex": "Curator InterProcessMutex",
    "distlock-jdbc-postgres": "distlock",
    "si-jdbc-postgres": "Spring Integration JdbcLockRegistry",
}
HANDOFF_ORDER = [
    "distlock-redis-template", "distlock-redis-annotation", "distlock-redis-async-release", "distlock-redisson",
    "redisson-rlock", "si-redis-pubsub", "si-redis-spin", "lock4j", "distlock-zookeeper", "curator-mutex",
    "distlock-jdbc-postgres", "si-jdbc-postgres", "distlock-etcd", "jetcd-lock",
]
HANDOFF_NAMES = {
    "distlock-redis-template": "distlock, Redis",
    "distlock-redis-annotation": "distlock @DistributedLock, Redis",
    "distlock-redis-async-release": "distlock, Redis, async release",
    "distlock-redisson": "distlock on Redisson",
    "redisson-rlock": "Redisson RLock",
    "si-redis-pubsub": "Spring Integration Redis (pub/sub)",
    "si-redis-spin": "Spring Integration Redis (spin)",
    "lock4j": "lock4j (Redis)",
    "distlock-zookeeper": "distlock, ZooKeeper",
    "curator-mutex": "Curator InterProcessMutex",
    "distlock-jdbc-postgres": "distlock, PostgreSQL",
    "si-jdbc-postgres": "Spring Integration JDBC",
    "distlock-etcd": "distlock, etcd",
    "jetcd-lock": "jetcd Lock",
}
NOISY = "†"


class Svg:
    def __init__(self, width, height):
        self.width, self.height = width, height
        self.parts = []

    def add(self, text):
        self.parts.append(text)

    def text(self, x, y, s, size=12, anchor="start", weight="normal", fill="#111827", rotate=None, title=None):
        transform = f' transform="rotate({rotate} {x:.1f} {y:.1f})"' if rotate is not None else ""
        tip = f"<title>{escape(title)}</title>" if title else ""
        self.add(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
                 f'font-weight="{weight}" fill="{fill}"{transform}>{tip}{escape(s)}</text>')

    def rect(self, x, y, w, h, fill, opacity=1.0, title=None, stroke=None):
        tip = f"<title>{escape(title)}</title>" if title else ""
        extra = f' stroke="{stroke}" stroke-width="1"' if stroke else ""
        self.add(f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(w, 0):.1f}" height="{max(h, 0):.1f}" fill="{fill}" '
                 f'fill-opacity="{opacity}"{extra}>{tip}</rect>')

    def line(self, x1, y1, x2, y2, stroke="#d1d5db", width=1, dash=None):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.add(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{stroke}" '
                 f'stroke-width="{width}"{d}/>')

    def write(self, path):
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
                f'viewBox="0 0 {self.width} {self.height}" font-family="{FONT}">\n'
                f'<rect width="100%" height="100%" fill="#ffffff"/>\n')
        with open(path, "w") as f:
            f.write(head + "\n".join(self.parts) + "\n</svg>\n")


def nice_max(v):
    """The smallest of 1, 2, 2.5, 5 × 10^k at or above v."""
    if v <= 0:
        return 1
    exp = 10 ** math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        if m * exp >= v:
            return m * exp
    return 10 * exp


def short(v):
    if v >= 1e6:
        return f"{v / 1e6:.1f}M"
    if v >= 1e4:
        return f"{v / 1e3:.0f}k"
    if v >= 1e3:
        return f"{v / 1e3:.1f}k"
    return f"{v:.0f}"


def subtitle(run):
    parts = []
    if run.get("started"):
        parts.append(f"run {run['started'][:10]}")
    if run.get("mode"):
        parts.append(f"{run['mode']} run")
    if run.get("commit"):
        parts.append(f"commit {run['commit']}")
    parts.append("2-core machine, servers on loopback")
    return ", ".join(parts)


def ops_chart(results, run, path):
    by = {(r["subject"], r["shape"]): r for r in results}
    panels = []
    for title, subjects in PANELS:
        shown = [s for s in subjects if any(by.get((s, sh), {}).get("ops_per_s") for sh in SHAPES)]
        if shown:
            panels.append((title, shown))
    width, left, legend_w, top = 980, 64, 290, 64
    plot_w = width - left - legend_w - 20
    panel_h, plot_h = 270, 200
    noisy_note = any(r.get("noisy") for r in results if r["shape"] in SHAPES)
    svg = Svg(width, top + panel_h * max(1, len(panels)) - 16 + (20 if noisy_note else 0))
    svg.text(16, 26, "Acquire + release pairs per second (higher is better)", size=17, weight="bold")
    svg.text(16, 46, f"{subtitle(run)}; scale per panel. benchmarks/RESULTS.md has every figure.", size=12,
             fill="#4b5563")
    any_noisy = False
    for i, (title, subjects) in enumerate(panels):
        y0 = top + i * panel_h + 20
        base = y0 + plot_h
        vmax = nice_max(max(by[(s, sh)]["ops_per_s"] for s in subjects for sh in SHAPES
                            if by.get((s, sh), {}).get("ops_per_s")))
        svg.text(left, y0 - 6, title, size=14, weight="bold")
        for k in range(6):
            v = vmax * k / 5
            y = base - plot_h * k / 5
            svg.line(left, y, left + plot_w, y, stroke="#e5e7eb" if k else "#9ca3af")
            tick = f"{v / 1e6:g}M" if v >= 1e6 else f"{v / 1e3:g}k" if v >= 1e3 else f"{v:g}"
            svg.text(left - 6, y + 4, tick, size=11, anchor="end", fill="#4b5563")
        group_w = plot_w / len(SHAPES)
        bar_w = min(30, (group_w - 28) / len(subjects))
        for g, shape in enumerate(SHAPES):
            gx = left + g * group_w + (group_w - bar_w * len(subjects)) / 2
            svg.text(left + g * group_w + group_w / 2, base + 18, SHAPE_LABELS[shape], size=12, anchor="middle")
            for b, s in enumerate(subjects):
                row = by.get((s, shape)) or {}
                v = row.get("ops_per_s")
                if not v:
                    continue
                noisy = bool(row.get("noisy"))
                any_noisy |= noisy
                h = plot_h * v / vmax
                x = gx + b * bar_w
                label = short(v) + (NOISY if noisy else "")
                svg.rect(x + 1, base - h, bar_w - 2, h, COLORS.get(s, "#6b7280"), 0.45 if noisy else 1.0,
                         title=f"{s} {shape}: {v:,.0f} ops/s" + (" (noisy)" if noisy else ""))
                svg.text(x + bar_w / 2 + 3, base - h - 4, label, size=9, rotate=-90, fill="#374151")
        ly = y0 + 8
        lx = left + plot_w + 24
        for s in subjects:
            svg.rect(lx, ly - 10, 12, 12, COLORS.get(s, "#6b7280"))
            svg.text(lx + 18, ly, NAMES.get(s, s), size=12, weight="bold" if s.startswith("distlock") else "normal",
                     title=s)
            ly += 19
    if any_noisy:
        svg.text(16, svg.height - 8, f"{NOISY} pale bars: taken while other processes kept the machine busy (noisy)",
                 size=11, fill="#4b5563")
    svg.write(path)


def handoff_chart(results, run, path):
    rows = [r for r in results if r["shape"] == "handoff" and r.get("p50_us")]
    order = {s: i for i, s in enumerate(HANDOFF_ORDER)}
    rows.sort(key=lambda r: order.get(r["subject"], len(order)))
    width, left, right, top, row_h = 980, 250, 190, 78, 30
    plot_w = width - left - right
    svg = Svg(width, top + row_h * max(1, len(rows)) + 56)
    svg.text(16, 26, "Handoff between two JVMs: release → the waiting process holds the lock (lower is better)",
             size=17, weight="bold")
    svg.text(16, 46, f"{subtitle(run)}; dark bar p50, pale bar p99, log scale.", size=12, fill="#4b5563")
    if not rows:
        svg.text(16, top + 20, "no handoff measured", size=12)
        svg.write(path)
        return
    values = [r["p50_us"] for r in rows] + [r["p99_us"] or r["p50_us"] for r in rows]
    lo = 10 ** math.floor(math.log10(min(min(values), 1000) / 1.2))
    hi = nice_max(max(values) * 1.05)

    def x(v):
        return left + plot_w * (math.log10(max(v, lo)) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))

    bottom = top + row_h * len(rows)
    decade = lo
    while decade <= hi:
        for m in (1, 2, 5):
            v = decade * m
            if v > hi:
                break
            svg.line(x(v), top - 6, x(v), bottom, stroke="#d1d5db" if m == 1 else "#f3f4f6")
            if m == 1 or (v == hi and x(hi) - x(decade) > 60):
                label = f"{v / 1000:g} ms" if v >= 1000 else f"{v:g} µs"
                svg.text(x(v), bottom + 16, label, size=11, anchor="middle", fill="#4b5563")
        decade *= 10
    svg.line(x(1000), top - 14, x(1000), bottom, stroke="#1d4ed8", width=1.5, dash="5 3")
    svg.text(x(1000) + 4, top - 16, "target: distlock p50 ≤ 1 ms", size=11, fill="#1d4ed8")
    any_noisy = False
    for i, r in enumerate(rows):
        s = r["subject"]
        y = top + i * row_h
        if i and backend(s) != backend(rows[i - 1]["subject"]):
            svg.line(16, y, width - 16, y, stroke="#9ca3af")
        distlock = s.startswith("distlock")
        color = "#1d4ed8" if distlock else "#f59e0b"
        noisy = bool(r.get("noisy"))
        any_noisy |= noisy
        p50, p99 = r["p50_us"], r.get("p99_us")
        svg.text(left - 8, y + row_h / 2 + 4, HANDOFF_NAMES.get(s, s), size=12, anchor="end",
                 weight="bold" if distlock else "normal", title=s)
        if p99:
            svg.rect(x(lo), y + 5, x(p99) - x(lo), row_h - 10, color, 0.25,
                     title=f"{s}: p99 {p99 / 1000:.2f} ms")
        svg.rect(x(lo), y + 9, x(p50) - x(lo), row_h - 18, color, 0.45 if noisy else 1.0,
                 title=f"{s}: p50 {p50 / 1000:.2f} ms" + (" (noisy)" if noisy else ""))
        label = f"p50 {p50 / 1000:.2f} ms" + (f" · p99 {p99 / 1000:.1f} ms" if p99 else "") + (NOISY if noisy else "")
        svg.text(x(max(p99 or p50, p50)) + 6, y + row_h / 2 + 4, label, size=11, fill="#374151")
    note = ("Peers that poll (Spring Integration spin and JDBC, lock4j) wait out their retry interval (~100 ms). ")
    if any_noisy:
        note += f"{NOISY} taken while other processes kept the machine busy (noisy)."
    svg.text(16, svg.height - 12, note, size=11, fill="#4b5563")
    svg.write(path)


def backend(subject):
    if "zookeeper" in subject or "curator" in subject:
        return "zookeeper"
    if "etcd" in subject:
        return "etcd"
    return "jdbc" if "jdbc" in subject else "redis"


SCALING_LINES = [
    ("distlock-local-template", "local", "#6b7280"),
    ("distlock-redis-template", "Redis", "#dc2626"),
    ("distlock-jdbc-postgres", "JDBC (PostgreSQL)", "#15803d"),
    ("distlock-zookeeper", "ZooKeeper (in-process server)", "#1d4ed8"),
]


def scaling_chart(scaling, run, path):
    held = [r for r in scaling.get("held", []) if "error" not in r and r.get("setting", "stress") == "stress"]
    panels = [("Renewal CPU, % of one core (process)", "cpu_pct", 10, "target ≤ 10 % at 100k", lambda v: f"{v:g} %"),
              ("Heap retained per held lease, bytes", "heap_bytes_per_lease", 1024, "target ≤ 1 KB at 100k",
               lambda v: f"{v:g}")]
    width, top, panel_w, plot_h, left = 980, 96, 400, 260, 70
    svg = Svg(width, top + plot_h + 110)
    svg.text(16, 26, "Cost of holding N watchdog leases at once (lower is better)", size=17, weight="bold")
    timing = sorted({f"{r['lease_ms'] / 1000:g} s / {r['interval_ms'] / 1000:g} s" for r in held})
    svg.text(16, 46, f"{subtitle(run)}; watchdog lease / interval {', '.join(timing) or '?'}; log scale of N.",
             size=12, fill="#4b5563")
    if run.get("mode") == "quick":
        svg.text(16, 66, "SMOKE RUN: tiny sizes beside other work; proves the benchmark runs, the figures are not "
                 "results", size=13, weight="bold", fill="#dc2626")
    ns = sorted({r["n"] for r in held}) or [1000, 10000, 100000]
    lo, hi = min(ns + [1000]), max(ns + [100000])
    for p, (title, field, target, target_label, tick_label) in enumerate(panels):
        x0 = left + p * (panel_w + 70)
        plot_w = panel_w - 20
        base = top + plot_h
        values = [r[field] for r in held if r.get(field) is not None]
        vmax = nice_max(max(values + [target * 1.25]))

        def x(n):
            return x0 + plot_w * (math.log10(n) - math.log10(lo)) / max(1e-9, math.log10(hi) - math.log10(lo))

        def y(v):
            return base - plot_h * max(0, v) / vmax

        svg.text(x0, top - 12, title, size=14, weight="bold")
        for k in range(6):
            v = vmax * k / 5
            svg.line(x0, y(v), x0 + plot_w, y(v), stroke="#e5e7eb" if k else "#9ca3af")
            svg.text(x0 - 6, y(v) + 4, tick_label(v), size=11, anchor="end", fill="#4b5563")
        n = lo
        while n <= hi:
            svg.line(x(n), top, x(n), base, stroke="#f3f4f6")
            svg.text(x(n), base + 16, f"N = {n:,}", size=11, anchor="middle", fill="#4b5563")
            n *= 10
        svg.line(x0, y(target), x0 + plot_w, y(target), stroke="#111827", width=1.2, dash="5 3")
        svg.text(x0 + plot_w, y(target) - 5, target_label, size=11, anchor="end", fill="#111827")
        for subject, name, color in SCALING_LINES:
            points = sorted((r["n"], r[field], (r.get("lost") or 0) + (r.get("lost_while_acquiring") or 0)) for r in held
                            if r["subject"] == subject and r.get(field) is not None)
            if not points:
                continue
            path_d = " ".join(f"{'M' if i == 0 else 'L'}{x(n):.1f},{y(v):.1f}" for i, (n, v, _) in enumerate(points))
            svg.add(f'<path d="{path_d}" fill="none" stroke="{color}" stroke-width="2"/>')
            for n, v, lost in points:
                fill = "#ffffff" if lost else color
                svg.add(f'<circle cx="{x(n):.1f}" cy="{y(v):.1f}" r="4" fill="{fill}" stroke="{color}" '
                        f'stroke-width="2"><title>{escape(name)}, N = {n:,}: {v:,.1f}'
                        f'{escape(f" ({lost} leases lost)") if lost else ""}</title></circle>')
    lx, ly = left, top + plot_h + 50
    for subject, name, color in SCALING_LINES:
        svg.rect(lx, ly - 10, 12, 12, color)
        svg.text(lx + 18, ly, name, size=12)
        lx += 220
    svg.text(16, svg.height - 12, "Hollow point: leases were lost while held (renewals did not keep up), the figure "
             "is void. ZooKeeper's CPU and heap include its in-process server.", size=11, fill="#4b5563")
    svg.write(path)


def write_scaling(scaling, run, docs_dir):
    os.makedirs(docs_dir, exist_ok=True)
    scaling_chart(scaling, run or {}, os.path.join(docs_dir, "benchmarks-scaling.svg"))


def write_all(results, run, docs_dir):
    os.makedirs(docs_dir, exist_ok=True)
    ops_chart(results, run or {}, os.path.join(docs_dir, "benchmarks-ops.svg"))
    handoff_chart(results, run or {}, os.path.join(docs_dir, "benchmarks-handoff.svg"))
