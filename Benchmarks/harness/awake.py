"""Keeps the machine's idle CPUs from halting during a run (`Benchmarks/run --awake-cpus`).

On a virtual machine, a vCPU with nothing to run halts, and waking it for the next request costs
a hypervisor exit. With one closed-loop client that wake-up happens twice per request and can
cost more than the request itself: here a minimal NIO server answered 4,200 requests/s from one
client when its vCPU went idle between requests, and 23,000–37,000/s when the machine was busy.
A server whose threads spin while briefly idle (Go's scheduler: PocketBase used 1.5 cores for a
one-client health-check load) does not pay it. Benchmarks usually remove this effect by
disabling deep idle states (`idle=poll`, `cpupower idle-set`); without access to the kernel,
one SCHED_IDLE busy loop per CPU does the same: it runs only when nothing else wants that CPU,
so it never takes time from the servers or wrk, but the vCPU never halts. Both servers are
measured under the same condition. Its CPU is subtracted from the "other" column.
"""
import os
import shutil
import subprocess

from .load import process_cpu_seconds


class AwakeCPUs:
    def __init__(self):
        self.procs = []

    def start(self):
        if shutil.which("chrt") is None:
            raise RuntimeError("--awake-cpus needs chrt (util-linux)")
        for _ in range(os.cpu_count() or 1):
            self.procs.append(subprocess.Popen(
                ["chrt", "--idle", "0", "python3", "-c", "while True: pass"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    def cpu_seconds(self):
        total = 0.0
        for p in self.procs:
            try:
                total += process_cpu_seconds(p.pid)
            except OSError:
                pass
        return total

    def stop(self):
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()
        self.procs = []
