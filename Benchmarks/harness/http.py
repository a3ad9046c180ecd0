"""Minimal keep-alive JSON client for 127.0.0.1 (setup, seeding and checks; not the load generator)."""
import http.client
import json


class Client:
    def __init__(self, port, timeout=120):
        self.port = port
        self.timeout = timeout
        self.conn = None

    def _connection(self):
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        return self.conn

    def request(self, method, path, body=None, headers=None):
        """Returns (status, parsed JSON or raw text). Retries once on a dropped keep-alive connection."""
        data = None if body is None else (body if isinstance(body, (bytes, str)) else json.dumps(body))
        hdrs = {"Content-Type": "application/json"}
        hdrs.update(headers or {})
        for attempt in range(2):
            conn = self._connection()
            try:
                conn.request(method, path, data, hdrs)
                resp = conn.getresponse()
                raw = resp.read()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.close()
                if attempt == 1:
                    raise
        text = raw.decode("utf-8", "replace")
        try:
            return resp.status, json.loads(text)
        except ValueError:
            return resp.status, text

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None
