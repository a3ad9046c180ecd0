"""Drives one workload against one server with wrk, and accounts CPU during the run."""
import json
import os
import resource
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "workload.lua")
TICK = os.sysconf("SC_CLK_TCK")
# Set by Benchmarks/run --awake-cpus: a callable returning the CPU seconds of the background busy
# loops (harness/awake.py), which are not competing load and are left out of "other".
background_cpu_seconds = None


def process_cpu_seconds(pid):
    """User+system CPU of a process (all its threads), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def children_cpu_seconds():
    """CPU of finished, waited-for child processes (here: the wrk runs)."""
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def system_cpu_seconds():
    """(busy, total) CPU seconds of the whole machine across all cores."""
    with open("/proc/stat") as f:
        parts = [int(x) for x in f.readline().split()[1:]]
    idle = parts[3] + parts[4]
    total = sum(parts[:8])
    return (total - idle) / TICK, total / TICK


def run_wrk(server, kind, workload, clients, duration, keys, genres, batch=200, timeout_s=30):
    """Runs wrk for `duration` seconds with `clients` connections (each connection is one
    closed-loop client: it sends its next request when the previous response arrives).
    Returns the parsed result with rps and CPU shares added."""
    threads = min(clients, 2)
    env = dict(os.environ,
               BENCH_SERVER=kind, BENCH_WORKLOAD=workload, BENCH_PREFIX=server.prefix,
               BENCH_TOKEN=getattr(server, "token", "") or "", BENCH_USER=getattr(server, "user_token", "") or "", BENCH_KEYS=str(max(keys, 1)),
               BENCH_GENRES=str(genres), BENCH_BATCH=str(batch))
    cmd = ["wrk", "-t", str(threads), "-c", str(clients), "-d", f"{duration}s",
           "--timeout", f"{timeout_s}s", "-s", SCRIPT, f"http://127.0.0.1:{server.port}"]
    wrk0 = children_cpu_seconds()
    srv0 = process_cpu_seconds(server.pid)
    busy0, total0 = system_cpu_seconds()
    bg0 = background_cpu_seconds() if background_cpu_seconds else 0.0
    t0 = time.time()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=duration + timeout_s + 60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise RuntimeError(f"wrk did not finish: {' '.join(cmd)}")
    wall = time.time() - t0
    busy1, total1 = system_cpu_seconds()
    bg1 = background_cpu_seconds() if background_cpu_seconds else 0.0
    srv1 = process_cpu_seconds(server.pid)
    wrk1 = children_cpu_seconds()
    line = next((l for l in out.splitlines() if l.startswith("BENCH_RESULT ")), None)
    if proc.returncode != 0 or line is None:
        raise RuntimeError(f"wrk failed ({proc.returncode}): {out[-2000:]} {err[-2000:]}")
    r = json.loads(line[len("BENCH_RESULT "):])
    seconds = r["duration_us"] / 1e6
    r["rps"] = r["requests"] / seconds if seconds else 0.0
    r["ops_per_request"] = batch if workload == "batch" else 1
    r["server_cpu"] = (srv1 - srv0) / wall  # in cores (2.0 = both cores)
    r["client_cpu"] = (wrk1 - wrk0) / wall
    r["machine_cpu"] = (busy1 - busy0 - (bg1 - bg0)) / wall  # busy cores, everything on the machine
    r["wall_s"] = wall
    return r
