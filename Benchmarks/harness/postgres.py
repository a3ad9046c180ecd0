"""A throwaway PostgreSQL cluster for Benchmarks/postgres, plus what runs on it directly:
Stratus instances on one database, nginx in front of two of them, statement counting
(pg_stat_statements) and pgbench.

The cluster keeps PostgreSQL's default durability (fsync and synchronous_commit on, full page
writes on); only max_connections is raised and pg_stat_statements preloaded. It listens on
127.0.0.1 only.
"""
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import time

from .servers import Server, StratusServer, free_port, wait_until

PG_USER = "postgres"


def pg_bin():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: [int(x) for x in re.findall(r"\d+", p)])
    if not found or not os.path.exists(os.path.join(found[-1], "initdb")):
        raise RuntimeError("PostgreSQL's server programs are not installed: apt-get install postgresql")
    return found[-1]


def tree_cpu_seconds(pid):
    """CPU seconds of a process, its reaped children and its live descendants (postmaster with its
    backends, gunicorn with its workers, nginx with its workers)."""
    tick = os.sysconf("SC_CLK_TCK")
    children = {}
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(stat) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append((int(stat.split("/")[2]), fields))
    total = 0.0

    def own(p):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        # utime stime cutime cstime: the process itself and the children it has waited for
        return sum(int(x) for x in fields[11:15]) / tick

    stack = [pid]
    while stack:
        p = stack.pop()
        total += own(p)
        stack.extend(c for c, _ in children.get(p, []))
    return total


class PostgresCluster:
    """initdb + pg_ctl in `folder`, run as the postgres user when this runs as root."""

    def __init__(self, folder, max_connections=200, log=print, network=None):
        """`network`: a `netns.RemoteNetwork` to run the server in (listening on its address);
        None: loopback."""
        self.folder = folder
        self.network = network
        self.host = network.address if network else "127.0.0.1"
        # Where clients connect: the server itself, or a delaying relay in front of it (see netns.py).
        self.client_host, self.client_port = self.host, None
        self.data = os.path.join(folder, "data")
        self.log_path = os.path.join(folder, "server.log")
        self.max_connections = max_connections
        self.bin = pg_bin()
        self.port = None
        self.started = False
        self.log = log
        self.as_owner = ["runuser", "-u", PG_USER, "--"] if os.getuid() == 0 else []

    def _run(self, args, **kw):
        return subprocess.run(self.as_owner + args, capture_output=True, text=True, timeout=kw.pop("timeout", 120), **kw)

    def start(self):
        os.makedirs(self.folder, exist_ok=True)
        if self.as_owner:
            # the postgres user must reach the folder: open the path down to it for traversal
            path = self.folder
            while path not in ("/", ""):
                mode = os.stat(path).st_mode
                os.chmod(path, mode | 0o011)
                path = os.path.dirname(path)
            shutil.chown(self.folder, PG_USER)
        out = self._run([os.path.join(self.bin, "initdb"), "-D", self.data, "-U", PG_USER, "--auth=trust",
                         "--encoding=UTF8", "--locale=C.UTF-8"])
        if out.returncode != 0:
            raise RuntimeError(f"initdb failed: {out.stdout} {out.stderr}")
        if self.network:
            with open(os.path.join(self.data, "pg_hba.conf"), "a") as f:
                f.write(f"host all all {self.network.address.rsplit('.', 1)[0]}.0/24 trust\n")
        self.port = free_port()
        options = (f"-h {self.host} -p {self.port} -k {self.folder} -c max_connections={self.max_connections} "
                   "-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=top "
                   "-c pg_stat_statements.track_utility=on")
        inside = self.network.exec_prefix() if self.network else []
        out = subprocess.run(inside + self.as_owner + [os.path.join(self.bin, "pg_ctl"), "-D", self.data, "-l",
                                                       self.log_path, "-w", "-t", "60", "start", "-o", options],
                             capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed: {out.stdout} {out.stderr}; see {self.log_path}")
        self.started = True
        self.client_host, self.client_port = self.network.client_endpoint(self.port) if self.network else (self.host, self.port)

    @property
    def postmaster_pid(self):
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            return int(f.readline())

    def version(self):
        return self.psql("postgres", "SHOW server_version").strip()

    def settings(self):
        rows = self.psql("postgres", "SELECT name || '=' || setting FROM pg_settings WHERE name IN "
                                     "('fsync','synchronous_commit','full_page_writes','wal_level','shared_buffers',"
                                     "'max_connections','checkpoint_timeout','max_wal_size') ORDER BY name")
        return ", ".join(rows.split())

    def stop(self):
        if not self.started:
            return
        self._run([os.path.join(self.bin, "pg_ctl"), "-D", self.data, "-m", "fast", "-w", "-t", "60", "stop"])
        self.started = False

    def url(self, database):
        return f"postgres://{PG_USER}@{self.client_host}:{self.client_port}/{database}?sslmode=disable"

    def sqlalchemy_url(self, database):
        return f"postgresql://{PG_USER}@{self.client_host}:{self.client_port}/{database}"

    def psql(self, database, sql, check=True):
        out = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", self.client_host,
                              "-p", str(self.client_port), "-U", PG_USER, "-d", database],
                             input=sql, capture_output=True, text=True, timeout=600)
        if check and out.returncode != 0:
            raise RuntimeError(f"psql on {database} failed: {out.stderr.strip()} (SQL: {sql[:200]})")
        return out.stdout

    def create_database(self, name):
        self.psql("postgres", f'CREATE DATABASE "{name}"')

    def statement_snapshot(self, database):
        """Per-statement execution counts (pg_stat_statements) and committed/rolled back
        transactions (pg_stat_database) of one database."""
        rows = self.psql(database,
                         "SELECT json_build_object('statements', (SELECT coalesce(json_object_agg(queryid::text, "
                         "json_build_array(calls, left(regexp_replace(query, '\\s+', ' ', 'g'), 110))), '{}') "
                         "FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid "
                         "WHERE d.datname = current_database() AND s.toplevel), "
                         "'commits', (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()), "
                         "'rollbacks', (SELECT xact_rollback FROM pg_stat_database WHERE datname = current_database()))")
        return json.loads(rows)


def statement_delta(before, after, requests, top=12):
    """Statements and transactions per completed request between two snapshots, and the most
    frequent statements. The snapshots' own queries (run on a separate connection) are left out."""
    calls = {}
    for qid, (n, text) in after["statements"].items():
        d = n - before["statements"].get(qid, [0])[0]
        if d > 0 and "pg_stat_statements" not in text and "pg_stat_database" not in text:
            calls[qid] = (d, text)
    total = sum(d for d, _ in calls.values())
    # Each snapshot is one transaction of its own in this database (psql's connection).
    commits = after["commits"] - before["commits"] - 1
    rollbacks = after["rollbacks"] - before["rollbacks"]
    per = (lambda x: x / requests) if requests else (lambda x: None)
    return {
        "statements_per_request": per(total),
        "commits_per_request": per(commits),
        "rollbacks_per_request": per(rollbacks),
        "top": [(per(d), text) for d, text in sorted(calls.values(), key=lambda x: -x[0])[:top]],
    }


class PostgresStratusServer(StratusServer):
    """`stratus serve --database URL` (and the container/user setup on that database). Several
    of these may share one URL; each has its own --data folder (asset files)."""
    name = "Stratus/PG"

    def __init__(self, binary, data_dir, log_path, database_url, name=None):
        super().__init__(binary, data_dir, log_path, env={"STRATUS_DATABASE_URL": database_url})
        self.database_url = database_url
        if name:
            self.name = name

    def _create_container(self):
        return self._with_database(super()._create_container)

    def _create_user(self):
        return self._with_database(super()._create_user)

    def _with_database(self, body):
        # The setup commands inherit the environment; point them at the database for the call.
        saved = os.environ.get("STRATUS_DATABASE_URL")
        os.environ["STRATUS_DATABASE_URL"] = self.database_url
        try:
            return body()
        finally:
            if saved is None:
                del os.environ["STRATUS_DATABASE_URL"]
            else:
                os.environ["STRATUS_DATABASE_URL"] = saved

    def share_credentials(self, other):
        """Use the container token and user of another instance on the same database."""
        self.token, self.user_token, self.container = other.token, other.user_token, other.container


class NginxBalancer(Server):
    """nginx on 127.0.0.1 spreading requests round-robin over Stratus instances (keep-alive
    connections to the upstreams). Presents the instances' CKWS prefix and credentials."""
    name = "nginx"

    def __init__(self, folder, backends, name="Stratus/PG x2"):
        super().__init__(folder, os.path.join(folder, "error.log"))
        self.backends = backends
        self.name = name

    @property
    def prefix(self):
        return self.backends[0].prefix

    @property
    def token(self):
        return self.backends[0].token

    @property
    def user_token(self):
        return self.backends[0].user_token

    def path(self, endpoint):
        return self.backends[0].path(endpoint)

    def start(self, timeout=30):
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        if not os.path.exists(nginx):
            raise RuntimeError("nginx not found: apt-get install -y nginx")
        os.makedirs(self.data_dir, exist_ok=True)
        self.port = free_port()
        upstreams = "\n".join(f"        server 127.0.0.1:{b.port};" for b in self.backends)
        conf = f"""# written by Benchmarks/postgres
worker_processes 2;
daemon off;
master_process on;
pid {self.data_dir}/nginx.pid;
error_log {self.data_dir}/error.log warn;
{"user root;" if os.getuid() == 0 else ""}
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {self.data_dir}/client_body;
    proxy_temp_path {self.data_dir}/proxy;
    fastcgi_temp_path {self.data_dir}/fastcgi;
    uwsgi_temp_path {self.data_dir}/uwsgi;
    scgi_temp_path {self.data_dir}/scgi;
    client_max_body_size 16m;
    client_body_buffer_size 1m;
    keepalive_requests 1000000;
    upstream stratus {{
{upstreams}
        keepalive 64;
        keepalive_requests 1000000;
    }}
    server {{
        listen 127.0.0.1:{self.port};
        location / {{
            proxy_pass http://stratus;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_buffering off;
            proxy_read_timeout 120s;
        }}
    }}
}}
"""
        path = os.path.join(self.data_dir, "nginx.conf")
        with open(path, "w") as f:
            f.write(conf)
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen([nginx, "-c", path, "-p", self.data_dir], stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)

        def up():
            import socket
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return True
            except OSError:
                return False

        wait_until(lambda: up() or not self.alive(), timeout, "nginx listening")
        if not self.alive():
            raise RuntimeError(f"nginx exited with {self.proc.returncode}; see {self.log_path}")

    def stop(self, timeout=30):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGQUIT)  # graceful: finish requests, then exit
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


# pgbench: the database's own ceiling for the two single-row operations behind create and lookup.

PGBENCH_SETUP = """
CREATE TABLE bench_records (
    record_name text PRIMARY KEY,
    record_type text NOT NULL,
    modified bigint NOT NULL,
    change_tag text NOT NULL,
    doc text NOT NULL
);
INSERT INTO bench_records
SELECT 'item-' || lpad(i::text, 7, '0'), 'Item', i, md5(i::text),
       '{"title":{"value":"seed item ' || i || '"},"genre":{"value":"g' || (i % 100) || '"},"rating":{"value":'
       || (i * 7 % 1000) || '},"creator":"_0123456789abcdef0123456789abcdef","zone":"_defaultZone","created":1764150000000}'
FROM generate_series(0, {n} - 1) AS i;
VACUUM ANALYZE bench_records;
"""

PGBENCH_INSERT = """\\set g random(0, 99)
\\set r random(0, 999)
INSERT INTO bench_records (record_name, record_type, modified, change_tag, doc)
VALUES (gen_random_uuid()::text, 'Item', :r, md5(random()::text),
        '{"title":{"value":"bench item ' || :r || '"},"genre":{"value":"g' || :g || '"},"rating":{"value":' || :r || '},"creator":"_0123456789abcdef0123456789abcdef","zone":"_defaultZone","created":1764150000000}');
"""

PGBENCH_SELECT = """\\set i random(0, {last})
SELECT record_name, record_type, modified, change_tag, doc FROM bench_records WHERE record_name = 'item-' || lpad(:i::text, 7, '0');
"""


def pgbench_prepare(cluster, database, records):
    cluster.create_database(database)
    cluster.psql(database, PGBENCH_SETUP.replace("{n}", str(records)))


def run_pgbench(cluster, database, script_name, records, clients, duration, folder):
    """One pgbench run of a custom script (prepared statements, TCP to the cluster). Returns tps,
    p50/p99 from the per-transaction log, and errors."""
    os.makedirs(folder, exist_ok=True)
    text = PGBENCH_INSERT if script_name == "insert" else PGBENCH_SELECT.replace("{last}", str(records - 1))
    script = os.path.join(folder, f"{script_name}.sql")
    with open(script, "w") as f:
        f.write(text)
    prefix = os.path.join(folder, f"log-{script_name}-{clients}-{time.time_ns()}")
    cmd = ["pgbench", "-n", "-h", cluster.client_host, "-p", str(cluster.client_port), "-U", PG_USER, "-M", "prepared",
           "-c", str(clients), "-j", str(min(clients, 2)), "-T", str(duration), "-f", script,
           "-l", f"--log-prefix={prefix}", database]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=duration + 120)
    if out.returncode != 0:
        raise RuntimeError(f"pgbench failed ({out.returncode}): {out.stdout[-1500:]} {out.stderr[-1500:]}")
    m = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", out.stdout)
    done = re.search(r"number of transactions actually processed: (\d+)", out.stdout)
    failed = re.search(r"number of failed transactions: (\d+)", out.stdout)
    lat = []
    for path in glob.glob(prefix + ".*"):
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 3:
                    lat.append(int(parts[2]))
        os.remove(path)
    lat.sort()

    def pct(q):
        return lat[min(len(lat) - 1, int(q * len(lat)))] if lat else 0

    return {"rps": float(m.group(1)) if m else 0.0, "requests": int(done.group(1)) if done else len(lat),
            "p50_us": pct(0.50), "p99_us": pct(0.99), "errors": int(failed.group(1)) if failed else 0,
            "output_tail": out.stdout[-400:]}


def copy_seed_stratus(cluster, database, start, end, genres, log=print):
    """Writes records start..end-1 of the benchmark's Item set straight into a Stratus database with
    COPY, as the batch API would have: the same names, titles, genres and ratings (`seed.stratus_batch`),
    the stored field document, one change-log entry each, sequence numbers (and change tags, their
    base 36) from the public store's sequence. Copies store, zone and creator from a record the API
    wrote (seed at least one batch through the API first). For 1M-record tiers: the batch API on
    PostgreSQL seeds about a thousand records a second."""
    from .seed import BATCH, stratus_batch
    first = cluster.psql(database, "SELECT store_id, zone_name, created_by FROM records WHERE record_type = 'Item' "
                                   "ORDER BY id LIMIT 1").strip()
    if not first:
        raise RuntimeError("copy seeding needs one record written through the API first")
    store_id, zone, creator = first.split("|")
    began = time.time()
    now_ms = int(began * 1000)
    chunk = 100_000

    def base36(n):
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"
        out = ""
        while True:
            n, r = divmod(n, 36)
            out = digits[r] + out
            if n == 0:
                return out

    for lo in range(start, end, chunk):
        hi = min(end, lo + chunk)
        # Reserve the block of sequence numbers the rows take, as a writer would one by one.
        last = int(cluster.psql(database, f"SELECT setval('public_change_seq', nextval('public_change_seq') + {hi - lo - 1})").strip())
        seq = last - (hi - lo) + 1
        records, changes = [], []
        for b in range(lo, hi, BATCH):
            for op in stratus_batch(b, min(BATCH, hi - b), genres)["operations"]:
                r = op["record"]
                f = r["fields"]
                fields = json.dumps({"genre": {"type": "STRING", "value": f["genre"]["value"]},
                                     "rating": {"type": "INT64", "value": f["rating"]["value"]},
                                     "title": {"type": "STRING", "value": f["title"]["value"]}}, separators=(",", ":"))
                records.append("\t".join([store_id, zone, r["recordName"], "Item", base36(seq), str(seq), fields,
                                          str(now_ms), creator, str(now_ms), creator]))
                changes.append("\t".join([store_id, str(seq), zone, r["recordName"], "save", str(now_ms)]))
                seq += 1
        sql = ("COPY records (store_id, zone_name, record_name, record_type, change_tag, seq, fields, created_ms, "
               "created_by, modified_ms, modified_by) FROM STDIN;\n" + "\n".join(records) + "\n\\.\n"
               "COPY changes (store_id, seq, zone_name, record_name, op, at_ms) FROM STDIN;\n"
               + "\n".join(changes) + "\n\\.\n")
        cluster.psql(database, sql)
        log(f"  copied records {lo:,}..{hi - 1:,} ({(hi - start) / max(time.time() - began, 1e-9):,.0f} records/s)")
    return time.time() - began
