"""Seeding both servers with the same records through their own batch APIs.

Record i has a known name (Stratus `item-%07d`, PocketBase id `i%014d`: PocketBase ids are
15 characters of [a-z0-9]) so lookups can pick seeded records at random. Genre and rating
come from a generator seeded by the batch number, so both servers hold the same data.
"""
import random
import sys
import threading
import time

from .http import Client

BATCH = 200


def stratus_name(i):
    return "item-%07d" % i


def pocketbase_id(i):
    return "i%014d" % i


def item(i, rng, genres):
    return ("seed item %d" % i, "g%d" % rng.randrange(genres), rng.randrange(1000))


def stratus_batch(start, count, genres):
    rng = random.Random(start)
    ops = []
    for i in range(start, start + count):
        title, genre, rating = item(i, rng, genres)
        ops.append({"operationType": "create", "record": {
            "recordName": stratus_name(i), "recordType": "Item",
            "fields": {"title": {"value": title}, "genre": {"value": genre}, "rating": {"value": rating}}}})
    return {"operations": ops}


def pocketbase_batch(start, count, genres):
    rng = random.Random(start)
    reqs = []
    for i in range(start, start + count):
        title, genre, rating = item(i, rng, genres)
        reqs.append({"method": "POST", "url": "/api/collections/items/records",
                     "body": {"id": pocketbase_id(i), "title": title, "genre": genre, "rating": rating}})
    return {"requests": reqs}


def send_stratus(client, server, start, count, genres):
    status, body = client.request("POST", server.path("modify"), stratus_batch(start, count, genres))
    if status != 200 or not isinstance(body, dict):
        raise RuntimeError(f"Stratus seed batch at {start}: HTTP {status} {str(body)[:300]}")
    bad = [r for r in body.get("records", []) if "serverErrorCode" in r]
    if bad or len(body.get("records", [])) != count:
        raise RuntimeError(f"Stratus seed batch at {start}: {len(bad)} errors, first {bad[:1]}")


def send_pocketbase(client, server, start, count, genres):
    # As the signed-in user the load generator acts as, when there is one (--pb-auth user).
    headers = {"Authorization": server.user_token} if server.user_token else None
    status, body = client.request("POST", "/api/batch", pocketbase_batch(start, count, genres), headers=headers)
    if status != 200 or not isinstance(body, list) or len(body) != count:
        raise RuntimeError(f"PocketBase seed batch at {start}: HTTP {status} {str(body)[:300]}")


def seed(server, kind, start, end, genres, deadline, connections=2, log=print, send=None):
    """Creates records start..end-1 in 200-record batches over `connections` keep-alive connections.
    `send` sends one batch (default: Stratus's or PocketBase's, by `kind`)."""
    if end <= start:
        return
    send = send or (send_stratus if kind == "stratus" else send_pocketbase)
    batches = [(b, min(BATCH, end - b)) for b in range(start, end, BATCH)]
    lock = threading.Lock()
    state = {"next": 0, "done": 0, "error": None}
    began = time.time()
    last_print = [began]

    def worker():
        client = Client(server.port)
        try:
            while True:
                with lock:
                    if state["error"] or state["next"] >= len(batches):
                        return
                    b, n = batches[state["next"]]
                    state["next"] += 1
                if time.time() > deadline:
                    raise RuntimeError("seeding exceeded the time limit")
                send(client, server, b, n, genres)
                with lock:
                    state["done"] += n
                    now = time.time()
                    if now - last_print[0] >= 10 or state["done"] == end - start:
                        last_print[0] = now
                        rate = state["done"] / max(now - began, 1e-9)
                        log(f"  seeding {server.name}: {start + state['done']:,}/{end:,} records "
                            f"({rate:,.0f} records/s, {now - began:.0f}s)")
        except Exception as e:  # noqa: BLE001 - reported to the caller below
            with lock:
                state["error"] = e
        finally:
            client.close()

    threads = [threading.Thread(target=worker) for _ in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if state["error"]:
        raise state["error"]
    elapsed = time.time() - began
    log(f"  seeded {server.name}: {end - start:,} records in {elapsed:.1f}s "
        f"({(end - start) / max(elapsed, 1e-9):,.0f} records/s)")
    sys.stdout.flush()
    return elapsed
