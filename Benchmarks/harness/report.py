"""Summaries: medians over repetitions, Stratus/PocketBase ratios, the results table."""
import statistics

WORKLOAD_LABEL = {"create": "create (1 record)", "batch": "batch create (200)",
                  "lookup": "lookup (1 record)", "query": "query genre= sort rating",
                  "health": "health (HTTP floor)"}


def median_of(runs, key):
    values = [r[key] for r in runs]
    return statistics.median(values) if values else None


def summarize(results):
    """Groups raw runs by (size, workload, clients, server) and takes medians."""
    groups = {}
    for r in results:
        groups.setdefault((r["size"], r["workload"], r["clients"], r["server"]), []).append(r)
    summary = {}
    for key, runs in groups.items():
        summary[key] = {
            "runs": len(runs),
            "rps": median_of(runs, "rps"),
            "p50_ms": median_of(runs, "p50_us") / 1000,
            "p99_ms": median_of(runs, "p99_us") / 1000,
            "errors": sum(r["bad_responses"] + r["status_errors"] + r["timeouts"] + r["connect_errors"]
                          + r["read_errors"] + r["write_errors"] for r in runs),
            "requests": sum(r["requests"] for r in runs),
            "server_cpu": median_of(runs, "server_cpu"),
            "client_cpu": median_of(runs, "client_cpu"),
            "other_cpu": statistics.median(
                [max(0.0, r["machine_cpu"] - r["server_cpu"] - r["client_cpu"]) for r in runs]),
            "sample": next((r["sample"] for r in runs if r["sample"]), ""),
        }
    return summary


def fmt(v, spec):
    if v is None:
        width = int("".join(ch for ch in spec.split(".")[0] if ch.isdigit()) or 0)
        return "-".rjust(width)
    return format(v, spec)


def ratio(a, b):
    return a / b if a is not None and b else None


def table(summary, sizes, workloads, clients_list):
    lines = []
    head = (f"{'records':>9} {'workload':<25} {'cl':>3} | {'Stratus rps':>11} {'p50 ms':>7} {'p99 ms':>7} | "
            f"{'PB rps':>9} {'p50 ms':>7} {'p99 ms':>7} | {'rps S/PB':>8} {'p50 PB/S':>8}")
    lines.append(head)
    lines.append("-" * len(head))
    for size in sizes:
        for w in workloads:
            for c in clients_list:
                s = summary.get((size, w, c, "stratus"))
                p = summary.get((size, w, c, "pocketbase"))
                lines.append(
                    f"{size:>9,} {WORKLOAD_LABEL[w]:<25} {c:>3} | "
                    f"{fmt(s and s['rps'], '11,.0f')} {fmt(s and s['p50_ms'], '7.2f')} {fmt(s and s['p99_ms'], '7.2f')} | "
                    f"{fmt(p and p['rps'], '9,.0f')} {fmt(p and p['p50_ms'], '7.2f')} {fmt(p and p['p99_ms'], '7.2f')} | "
                    f"{fmt(ratio(s and s['rps'], p and p['rps']), '8.2f')} "
                    f"{fmt(ratio(p and p['p50_ms'], s and s['p50_ms']), '8.2f')}")
    return "\n".join(lines)


def cpu_table(summary, sizes, workloads, clients_list):
    lines = [f"{'records':>9} {'workload':<25} {'cl':>3} {'server':<10} {'runs':>4} {'requests':>9} "
             f"{'errors':>6} {'srv CPU':>7} {'wrk CPU':>7} {'other':>6}"]
    for size in sizes:
        for w in workloads:
            for c in clients_list:
                for name in ("stratus", "pocketbase"):
                    s = summary.get((size, w, c, name))
                    if not s:
                        continue
                    lines.append(f"{size:>9,} {WORKLOAD_LABEL[w]:<25} {c:>3} {name:<10} {s['runs']:>4} "
                                 f"{s['requests']:>9,} {s['errors']:>6} {s['server_cpu']:>7.2f} "
                                 f"{s['client_cpu']:>7.2f} {s['other_cpu']:>6.2f}")
    return "\n".join(lines)


def scaling(summary, small, large, clients_list):
    """Query p50 at the large size over p50 at the small size, per server and client count."""
    lines = []
    for name in ("stratus", "pocketbase"):
        for c in clients_list:
            a = summary.get((small, "query", c, name))
            b = summary.get((large, "query", c, name))
            if a and b:
                lines.append(f"  {name:<10} {c:>2} clients: p50 {b['p50_ms']:.2f} ms at {large:,} / "
                             f"{a['p50_ms']:.2f} ms at {small:,} = {b['p50_ms'] / a['p50_ms']:.2f}x")
    return "\n".join(lines)
