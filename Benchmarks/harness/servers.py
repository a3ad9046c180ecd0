"""Start, prepare and stop the two servers under test, both on 127.0.0.1."""
import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.parse

from .http import Client

CONTAINER = "iCloud.bench.stratus"
PB_EMAIL = "bench@example.com"
PB_PASSWORD = "bench-password-123"
PB_USER_EMAIL = "bench-user@example.com"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate, timeout, what):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise RuntimeError(f"timed out after {timeout}s waiting for {what}")


class Server:
    """A server process; subclasses set name, port, pid."""
    name = "?"

    def __init__(self, data_dir, log_path):
        self.data_dir = data_dir
        self.log_path = log_path
        self.proc = None
        self.port = None

    @property
    def pid(self):
        return self.proc.pid

    def stop(self, timeout=60):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None


class StratusServer(Server):
    name = "Stratus"

    def __init__(self, binary, data_dir, log_path, env=None):
        super().__init__(data_dir, log_path)
        self.binary = binary
        self.env = env  # extra environment for the server process (Benchmarks/ab's switches)
        self.token = None
        self.user_token = None  # percent-encoded web auth token: public creates need a signed-in user
        self.container = CONTAINER

    def start(self, timeout=120):
        os.makedirs(self.data_dir, exist_ok=True)
        if self.token is None:
            self.token = self._create_container()
            self.user_token = self._create_user()
        log = open(self.log_path, "ab")
        # Rate limits off: the load generator is one client far above any app's budget.
        self.proc = subprocess.Popen(
            [self.binary, "serve", "--host", "127.0.0.1", "--port", "0", "--data", self.data_dir, "--rate-limit", "0"],
            stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL,
            # The access log stays off unless a switch turns it on (Benchmarks/README.md shows how
            # Benchmarks/ab measures its cost).
            env=dict(os.environ, **{"STRATUS_ACCESS_LOG": "off", **(self.env or {})}))
        found = {}

        def pump():  # copy stdout to the log, remembering the listening line
            for raw in self.proc.stdout:
                log.write(raw)
                log.flush()
                m = re.search(rb"listening on http://([0-9.]+):(\d+)", raw)
                if m:
                    found["port"] = int(m.group(2))

        threading.Thread(target=pump, daemon=True).start()
        wait_until(lambda: "port" in found or not self.alive(), timeout, "Stratus 'listening on' line")
        if not self.alive():
            raise RuntimeError(f"Stratus exited with {self.proc.returncode}; see {self.log_path}")
        self.port = found["port"]

    def _create_container(self):
        out = subprocess.run([self.binary, "container", "create", CONTAINER, "--data", self.data_dir],
                             capture_output=True, text=True, timeout=120)
        token = out.stdout.strip()
        if out.returncode != 0 or not re.fullmatch(r"[0-9a-f]{64}", token):
            raise RuntimeError(f"stratus container create failed ({out.returncode}): {out.stdout!r} {out.stderr!r}")
        return token

    def _create_user(self):
        out = subprocess.run([self.binary, "user", "create", "bench", "--container", CONTAINER, "--data", self.data_dir],
                             capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            raise RuntimeError(f"stratus user create failed ({out.returncode}): {out.stdout!r} {out.stderr!r}")
        return urllib.parse.quote(json.loads(out.stdout)["webAuthToken"], safe="")

    @property
    def prefix(self):
        return f"/database/1/{self.container}/development/public"

    def path(self, endpoint):
        return f"{self.prefix}/records/{endpoint}?ckAPIToken={self.token}&ckWebAuthToken={self.user_token}"


class PocketBaseServer(Server):
    name = "PocketBase"

    def __init__(self, binary, data_dir, log_path, index_mode="per-field", request_logs=True, signed_in=True):
        super().__init__(data_dir, log_path)
        self.binary = binary
        self.index_mode = index_mode
        self.request_logs = request_logs
        self.signed_in = signed_in
        self.auth = None  # the superuser's token: setup only (the collection, settings, the user)
        self.user_token = None  # a signed-in user's token, sent by the load generator (see prepare)
        self.prefix = "/api"

    def start(self, timeout=60):
        os.makedirs(self.data_dir, exist_ok=True)
        subprocess.run([self.binary, "superuser", "upsert", PB_EMAIL, PB_PASSWORD, "--dir", self.data_dir],
                       check=True, capture_output=True, timeout=60)
        self.port = free_port()
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [self.binary, "serve", "--http", f"127.0.0.1:{self.port}", "--dir", self.data_dir],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

        def healthy():
            try:
                return Client(self.port, timeout=2).request("GET", "/api/health")[0] == 200
            except OSError:
                return False

        wait_until(lambda: healthy() or not self.alive(), timeout, "PocketBase /api/health")
        if not self.alive():
            raise RuntimeError(f"PocketBase exited with {self.proc.returncode}; see {self.log_path}")
        status, body = Client(self.port).request(
            "POST", "/api/collections/_superusers/auth-with-password",
            {"identity": PB_EMAIL, "password": PB_PASSWORD})
        if status != 200:
            raise RuntimeError(f"PocketBase superuser auth failed: {status} {body}")
        self.auth = body["token"]

    def indexes(self):
        per_field = ["CREATE INDEX idx_items_genre ON items (genre)",
                     "CREATE INDEX idx_items_rating ON items (rating)"]
        composite = ["CREATE INDEX idx_items_genre_rating ON items (genre, rating)"]
        return {"per-field": per_field, "composite": composite, "both": per_field + composite}[self.index_mode]

    def prepare(self):
        """Creates the `items` collection and enables the batch API with room for 200-request
        batches.

        Signed in (the default), the load generator acts as a user, as it does against Stratus
        (every CKWS request it sends carries a web auth token, and CKWS public writes need one):
        each request carries the user's token, which PocketBase verifies, and the collection's
        write rules require a signed-in user. Reads stay open to anyone in both servers' public
        databases. Not signed in (`--pb-auth none`): every rule is open and no token is sent, so
        PocketBase skips the credential check that Stratus makes on each request."""
        c = Client(self.port)
        auth = {"Authorization": self.auth}
        write_rule = "@request.auth.id != ''" if self.signed_in else ""
        status, body = c.request("GET", "/api/collections/items", headers=auth)
        if status == 404:
            status, body = c.request("POST", "/api/collections", {
                "name": "items", "type": "base",
                "listRule": "", "viewRule": "", "createRule": write_rule, "updateRule": write_rule, "deleteRule": write_rule,
                "fields": [
                    {"name": "title", "type": "text"},
                    {"name": "genre", "type": "text"},
                    {"name": "rating", "type": "number", "onlyInt": True},
                    {"name": "created", "type": "autodate", "onCreate": True, "onUpdate": False},
                    {"name": "updated", "type": "autodate", "onCreate": True, "onUpdate": True},
                ],
                "indexes": self.indexes(),
            }, headers=auth)
            if status != 200:
                raise RuntimeError(f"PocketBase create collection failed: {status} {body}")
        settings = {"batch": {"enabled": True, "maxRequests": 200, "timeout": 60, "maxBodySize": 0}}
        if not self.request_logs:
            settings["logs"] = {"maxDays": 0}  # PocketBase's switch for its request log
        status, body = c.request("PATCH", "/api/settings", settings, headers=auth)
        if status != 200:
            raise RuntimeError(f"PocketBase settings failed: {status} {body}")
        if self.signed_in and self.user_token is None:
            self.user_token = self._sign_in_user(c, auth)
        c.close()

    def _sign_in_user(self, c, auth):
        """Creates a user in PocketBase's built-in `users` collection and returns its auth token."""
        credentials = {"email": PB_USER_EMAIL, "password": PB_PASSWORD}
        status, body = c.request("POST", "/api/collections/users/records",
                                 dict(credentials, passwordConfirm=PB_PASSWORD), headers=auth)
        if status != 200 and "validation_not_unique" not in str(body):
            raise RuntimeError(f"PocketBase user create failed: {status} {body}")
        status, body = c.request("POST", "/api/collections/users/auth-with-password",
                                 {"identity": PB_USER_EMAIL, "password": PB_PASSWORD})
        if status != 200:
            raise RuntimeError(f"PocketBase user sign-in failed: {status} {body}")
        return body["token"]
