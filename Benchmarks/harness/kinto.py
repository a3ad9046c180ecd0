"""Kinto (https://kinto.readthedocs.io) on PostgreSQL: the peer of Stratus-on-PostgreSQL in
Benchmarks/postgres. pip install 'kinto[postgresql]' gunicorn.

Kinto keeps every record as a JSONB document in one `objects` table. Its storage, permission and
cache backends all use PostgreSQL here. Requests authenticate with HTTP basic auth (Kinto's
`basicauth` policy: any user:password pair is a user, identified by an HMAC of it), as one
signed-in user who owns the bucket.
"""
import base64
import os
import random
import secrets
import shutil
import subprocess
import sys
import time

from .http import Client
from .seed import BATCH, item, stratus_name
from .servers import Server, free_port, wait_until

BUCKET = "bench"
COLLECTION = "items"
USER = "bench:bench-password-123"


class KintoServer(Server):
    name = "Kinto"

    def __init__(self, data_dir, log_path, storage_url, wsgi="gunicorn", workers=2, threads=4, indexes=True):
        super().__init__(data_dir, log_path)
        self.storage_url = storage_url
        self.wsgi = wsgi
        self.workers = workers
        self.threads = threads
        self.indexes = indexes
        self.prefix = f"/v1/buckets/{BUCKET}/collections/{COLLECTION}"
        self.token = ""
        self.user_token = "Basic " + base64.b64encode(USER.encode()).decode()
        self.ini = os.path.join(data_dir, "kinto.ini")

    def describe(self):
        if self.wsgi == "gunicorn":
            return f"gunicorn {self.version('gunicorn')}, {self.workers} workers x {self.threads} threads (gthread)"
        return "waitress (kinto start), 4 threads"

    @staticmethod
    def version(package):
        try:
            from importlib.metadata import version
            return version(package)
        except Exception:  # noqa: BLE001
            return "?"

    def write_config(self):
        os.makedirs(self.data_dir, exist_ok=True)
        self.port = free_port()
        url = self.storage_url
        with open(self.ini, "w") as f:
            f.write(f"""# written by Benchmarks/postgres
[server:main]
use = egg:waitress#main
host = 127.0.0.1
port = {self.port}

[app:main]
use = egg:kinto
kinto.storage_backend = kinto.core.storage.postgresql
kinto.storage_url = {url}
kinto.cache_backend = kinto.core.cache.postgresql
kinto.cache_url = {url}
kinto.permission_backend = kinto.core.permission.postgresql
kinto.permission_url = {url}
kinto.userid_hmac_secret = {secrets.token_hex(32)}
multiauth.policies = basicauth
kinto.bucket_create_principals = system.Authenticated
kinto.batch_max_requests = {BATCH}
kinto.http_host = 127.0.0.1:{self.port}
kinto.http_scheme = http

[loggers]
keys = root, kinto

[handlers]
keys = console

[formatters]
keys = plain

[logger_root]
level = WARNING
handlers = console

[logger_kinto]
level = WARNING
handlers = console
qualname = kinto
propagate = 0

[handler_console]
class = StreamHandler
args = (sys.stderr,)
level = NOTSET
formatter = plain

[formatter_plain]
format = %(asctime)s %(levelname)s %(name)s %(message)s
""")

    def start(self, timeout=120):
        if not os.path.exists(self.ini):
            self.write_config()
            out = subprocess.run([self._tool("kinto"), "migrate", "--ini", self.ini], capture_output=True, text=True,
                                 timeout=300)
            if out.returncode != 0:
                raise RuntimeError(f"kinto migrate failed: {out.stdout[-1000:]} {out.stderr[-1000:]}")
        log = open(self.log_path, "ab")
        if self.wsgi == "gunicorn":
            cmd = [self._tool("gunicorn"), "--paste", self.ini, "--bind", f"127.0.0.1:{self.port}",
                   "--workers", str(self.workers), "--worker-class", "gthread", "--threads", str(self.threads),
                   "--keep-alive", "75", "--backlog", "2048", "--log-level", "warning"]
        else:
            cmd = [self._tool("kinto"), "start", "--ini", self.ini]
        self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     start_new_session=False)

        def healthy():
            try:
                return Client(self.port, timeout=2).request("GET", "/v1/__heartbeat__")[0] == 200
            except OSError:
                return False

        wait_until(lambda: healthy() or not self.alive(), timeout, "Kinto /v1/__heartbeat__")
        if not self.alive():
            raise RuntimeError(f"Kinto exited with {self.proc.returncode}; see {self.log_path}")

    @staticmethod
    def _tool(name):
        found = shutil.which(name) or os.path.join(os.path.dirname(sys.executable), name)
        if not os.path.exists(found):
            raise RuntimeError(f"{name} not found: pip install 'kinto[postgresql]' gunicorn")
        return found

    def headers(self):
        return {"Authorization": self.user_token}

    def prepare(self):
        """The bucket and collection, owned by the benchmark user."""
        c = Client(self.port)
        for path in (f"/v1/buckets/{BUCKET}", f"/v1/buckets/{BUCKET}/collections/{COLLECTION}"):
            status, body = c.request("PUT", path, {"data": {}}, headers=self.headers())
            if status not in (200, 201):
                raise RuntimeError(f"Kinto PUT {path}: {status} {str(body)[:300]}")
        c.close()

    def index_statements(self):
        """Indexes an operator would add for this query (Kinto ships none on record fields): a GIN
        index for the `data @> '{"genre": ...}'` filter Kinto generates and an expression index
        for `ORDER BY data->'rating'`."""
        if not self.indexes:
            return []
        return ["CREATE INDEX IF NOT EXISTS bench_objects_data_gin ON objects USING gin (data jsonb_path_ops)",
                "CREATE INDEX IF NOT EXISTS bench_objects_rating ON objects ((data->'rating'))"]


def kinto_batch(start, count, genres):
    rng = random.Random(start)
    reqs = []
    for i in range(start, start + count):
        title, genre, rating = item(i, rng, genres)
        reqs.append({"body": {"data": {"id": stratus_name(i), "title": title, "genre": genre, "rating": rating}}})
    return {"defaults": {"method": "POST", "path": f"/buckets/{BUCKET}/collections/{COLLECTION}/records"},
            "requests": reqs}


def send_kinto(client, server, start, count, genres, attempts=20):
    """One seed batch. Kinto answers concurrent writes to one collection with 409 (its
    timestamps must be unique per collection; errno 122, Retry-After) and aborts the whole batch
    then, so the batch is sent again; a record that did get stored answers 200 the second time."""
    for attempt in range(attempts):
        status, body = client.request("POST", "/v1/batch", kinto_batch(start, count, genres), headers=server.headers())
        if status != 200 or not isinstance(body, dict) or len(body.get("responses", [])) != count:
            raise RuntimeError(f"Kinto seed batch at {start}: HTTP {status} {str(body)[:300]}")
        bad = [r for r in body["responses"] if r.get("status") not in (200, 201)]
        if not bad:
            return
        if any(r.get("status") != 409 for r in bad) or attempt == attempts - 1:
            raise RuntimeError(f"Kinto seed batch at {start}: {len(bad)} failed, first {str(bad[0])[:300]}")
        server.seed_retries = getattr(server, "seed_retries", 0) + 1
        time.sleep(0.05 * (attempt + 1))


def check_kinto(server, keys, genre):
    c = Client(server.port)
    name = stratus_name(keys - 1)
    status, body = c.request("GET", f"{server.prefix}/records/{name}", headers=server.headers())
    if status != 200 or body.get("data", {}).get("id") != name:
        raise RuntimeError(f"Kinto lookup check failed: {status} {str(body)[:500]}")
    status, body = c.request("GET", f"{server.prefix}/records?genre={genre}&_sort=-rating&_limit=50",
                             headers=server.headers())
    recs = body.get("data", []) if isinstance(body, dict) else []
    if status != 200 or any(r["genre"] != genre for r in recs):
        raise RuntimeError(f"Kinto query check failed: {status} {str(body)[:500]}")
    c.close()
    return [r["rating"] for r in recs]
