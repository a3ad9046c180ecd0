"""A network namespace for PostgreSQL, reached over a veth pair with added latency: the database on
another machine, as PostgreSQL in production usually is, while everything still runs on this one.

Host side 10.77.0.1 (veth `stratus-h`), namespace side 10.77.0.2 (veth `stratus-n`); `tc netem`
delays every packet leaving the host side by the given milliseconds, so each round trip to the
database costs that much more (replies are not delayed). A kernel without netem (the benchmark VM's
answers "Specified qdisc kind is unknown") gets the same delay from `delay_relay.py` instead: clients
connect to the relay on the host side, which holds each chunk for the delay and forwards it to
PostgreSQL across the veth pair. Needs root (`ip netns`, `tc`).
"""
import os
import subprocess
import sys
import time

from .servers import free_port

NAME = "stratus-bench-pg"
HOST_IF, NS_IF = "stratus-h", "stratus-n"
HOST_ADDRESS, NS_ADDRESS = "10.77.0.1", "10.77.0.2"


def _ip(*args, check=True):
    out = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    if check and out.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)} failed: {out.stderr.strip()}")
    return out


class RemoteNetwork:
    def __init__(self, latency_ms):
        self.latency_ms = latency_ms
        self.made = False
        self.netem = False
        self.relay = None

    @property
    def address(self):
        return NS_ADDRESS

    def exec_prefix(self):
        """Prefix for a command that must run inside the namespace (the PostgreSQL server)."""
        return ["ip", "netns", "exec", NAME]

    def start(self):
        self.stop()  # a namespace left over from an interrupted run
        _ip("netns", "add", NAME)
        self.made = True
        _ip("link", "add", HOST_IF, "type", "veth", "peer", "name", NS_IF)
        _ip("link", "set", NS_IF, "netns", NAME)
        _ip("addr", "add", f"{HOST_ADDRESS}/24", "dev", HOST_IF)
        _ip("link", "set", HOST_IF, "up")
        _ip("netns", "exec", NAME, "ip", "addr", "add", f"{NS_ADDRESS}/24", "dev", NS_IF)
        _ip("netns", "exec", NAME, "ip", "link", "set", NS_IF, "up")
        _ip("netns", "exec", NAME, "ip", "link", "set", "lo", "up")
        out = subprocess.run(["tc", "qdisc", "add", "dev", HOST_IF, "root", "netem", "delay", f"{self.latency_ms}ms"],
                             capture_output=True, text=True, timeout=30)
        self.netem = out.returncode == 0
        self.netem_error = out.stderr.strip()

    def describe(self):
        how = (f"tc netem delay {self.latency_ms} ms on the host side" if self.netem else
               f"no netem in this kernel ({self.netem_error}): a relay on the host side (harness/delay_relay.py) "
               f"holds client-to-database bytes {self.latency_ms} ms")
        return f"PostgreSQL in its own network namespace ({NS_ADDRESS}) over a veth pair; {how}"

    def client_endpoint(self, port):
        """Where clients reach the server listening on `port` in the namespace: directly with netem,
        else through a delaying relay started here."""
        if self.netem:
            return NS_ADDRESS, port
        relay_port = free_port()
        harness = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        self.relay = subprocess.Popen([sys.executable, "-m", "harness.delay_relay", HOST_ADDRESS, str(relay_port),
                                       NS_ADDRESS, str(port), str(self.latency_ms)], cwd=harness,
                                      stdout=subprocess.PIPE, text=True)
        if self.relay.stdout.readline().strip() != "relaying":
            raise RuntimeError("the delay relay did not start")
        time.sleep(0.1)
        return HOST_ADDRESS, relay_port

    def stop(self):
        if self.relay:
            self.relay.terminate()
            self.relay.wait(timeout=10)
            self.relay = None
        _ip("link", "del", HOST_IF, check=False)
        _ip("netns", "del", NAME, check=False)
        self.made = False
