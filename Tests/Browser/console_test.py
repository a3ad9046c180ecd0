#!/usr/bin/env python3
"""The web console in a real browser (headless Chromium via Selenium).

Starts `stratus serve` on a fresh data folder and follows the long flow: the one-time link the
first start prints → a record type created by saving from the API → seen on the schema screen →
an index added → an image asset previewed on the record page → filter and sort → an edit that
meets a newer version saved from the API meanwhile → a delete that warns about its DELETE_SELF
cascade → a role granted → deploy to production, and production refusing a query it has no index
for → a token made in the console, revoked there, and refused by the API → that traffic counted on
the telemetry screen and listed on the logs screen, whose live tail shows a request made while it
is open and whose export holds the same rows.

Then: records holding <script>, <img onerror> and javascript: URLs run nothing (a flag any of them
would set stays unset in the page); a cross-origin form post changes nothing; a session that
expired sends the browser back to sign-in. Saves a screenshot of every screen to a folder it
prints; with STRATUS_README_SCREENSHOTS=docs/images it also writes the screenshots README.md and docs/console.md show
there. Usage: console_test.py PATH_TO_STRATUS_BINARY
"""
import base64
import http.server
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import headless_chromium

from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import Select, WebDriverWait

CONTAINER = "iCloud.dev.stratus.default"
# A 1×1 PNG.
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
XSS_FLAG = "return [window.__xss, document.title.indexOf('pwned')]"
# The screens shown in README.md and docs/console.md (see STRATUS_README_SCREENSHOTS).
README_SHOTS = {"records", "record-with-image", "schema", "telemetry"}


def fail(message):
    print(f"console: FAILED: {message}")
    sys.exit(1)


def start_server(binary, data, *extra):
    log = open(data + ".log", "w+")
    server = subprocess.Popen([binary, "serve", "--port", "0", "--data", data, *extra],
                              stdout=subprocess.PIPE, stderr=log, text=True)
    lines = {}
    deadline = time.time() + 60
    prefixes = ("API token: ", "web auth token (user developer): ", "console (one-time sign-in link): ", "listening on ")
    while time.time() < deadline:
        line = server.stdout.readline()
        if not line:
            fail("stratus exited before listening; see " + log.name)
        for prefix in prefixes:
            if line.startswith(prefix):
                lines[prefix] = line[len(prefix):].strip()
        if "listening on " in lines:
            if len(lines) != len(prefixes):
                fail(f"the first start printed {sorted(lines)}, not the tokens and the console link")
            return server, lines["API token: "], lines["web auth token (user developer): "], \
                lines["console (one-time sign-in link): "], lines["listening on "]
    fail("stratus did not start listening within 60 s")


def browser():
    return headless_chromium.browser("--window-size=1280,900")



def gone(element):
    """Whether `element` belongs to a page the browser has left. Chromium reports an element of
    the old document either as stale or, while the next one is being built, with "does not belong
    to the document"; both mean the navigation happened."""
    try:
        element.is_enabled()
        return False
    except StaleElementReferenceException:
        return True
    except WebDriverException as error:
        if "does not belong to the document" in str(error):
            return True
        raise

class API:
    """CKWS calls as an app makes them."""

    def __init__(self, base, token, user):
        self.base, self.token, self.user = base, token, user

    def url(self, operation, environment="development", token=None):
        query = urllib.parse.urlencode({"ckAPIToken": token or self.token, "ckWebAuthToken": self.user})
        return f"{self.base}/database/1/{CONTAINER}/{environment}/public/{operation}?{query}"

    def call(self, operation, body, environment="development", token=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url(operation, environment, token), data=data, method="GET" if body is None else "POST")
        try:
            with urllib.request.urlopen(request) as answer:
                return answer.status, json.load(answer)
        except urllib.error.HTTPError as error:
            return error.code, json.load(error)

    def save(self, *records):
        status, answer = self.call("records/modify", {"operations": [{"operationType": "create", "record": r} for r in records]})
        if status != 200 or any("serverErrorCode" in r for r in answer["records"]):
            fail(f"saving records answered {status}: {answer}")
        return answer["records"]

    def upload(self, record, field, data, record_type="Photo"):
        status, answer = self.call("assets/upload", {"tokens": [{"recordName": record, "recordType": record_type, "fieldName": field}]})
        if status != 200:
            fail(f"assets/upload answered {status}: {answer}")
        request = urllib.request.Request(answer["tokens"][0]["url"], data=data, method="POST")
        with urllib.request.urlopen(request) as uploaded:
            return json.load(uploaded)["singleFile"]


class Console:
    """The browser and where its screenshots go."""

    def __init__(self, driver, base, shots):
        self.driver, self.base, self.shots, self.count = driver, base, shots, 0

    def open(self, path):
        self.driver.get(self.base + path)
        return self

    def shot(self, name):
        self.count += 1
        self.driver.save_screenshot(os.path.join(self.shots, f"{self.count:02d}-{name}.png"))
        readme = os.environ.get("STRATUS_README_SCREENSHOTS")
        if readme and name in README_SHOTS:
            self.driver.save_screenshot(os.path.join(readme, f"console-{name}.png"))

    def text(self, element_id):
        return self.driver.find_element(By.ID, element_id).text

    def submit(self, button_id, confirm=False):
        self.press(self.driver.find_element(By.ID, button_id), confirm)

    def press(self, button, confirm=False):
        """Clicks a form's button and waits until the next page has loaded."""
        page = self.driver.find_element(By.TAG_NAME, "html")
        button.click()
        if confirm:
            WebDriverWait(self.driver, 10).until(expected_conditions.alert_is_present()).accept()
        WebDriverWait(self.driver, 20).until(lambda d: gone(page))
        WebDriverWait(self.driver, 20).until(lambda d: d.execute_script("return document.readyState") == "complete")

    def no_script_ran(self, where):
        flag, title = self.driver.execute_script(XSS_FLAG)
        if flag is not None or title != -1:
            fail(f"script from a record ran on {where} (window.__xss = {flag!r})")

    def cookie_header(self):
        return "; ".join(f"{c['name']}={c['value']}" for c in self.driver.get_cookies())


def long_flow(console, api, link):
    driver = console.driver
    # First-run link → welcome page.
    driver.get(link)
    console.shot("one-time-link")
    console.submit("continue")
    if "/console" not in driver.current_url or "Welcome" not in driver.title:
        fail(f"the one-time link led to {driver.current_url} ({driver.title})")
    console.submit("make-tokens")
    curl = console.text("welcome-curl")
    if CONTAINER not in curl or "YOUR_API_TOKEN" in curl:
        fail("the welcome page's curl line does not have the container and a real token filled in")
    console.shot("welcome")
    # The welcome page's own curl line works.
    command = re.sub(r"^curl -s", "curl -s -f", curl)
    if subprocess.run(["bash", "-c", command], capture_output=True).returncode != 0:
        fail("the welcome page's curl line failed")

    # A record type created by saving from the API shows on the schema screen.
    api.save({"recordType": "Movie", "recordName": "folder", "fields": {"title": {"value": "Folder"}}})
    api.save(*[{"recordType": "Movie", "recordName": f"movie-{i}",
                "fields": {"title": {"value": f"Movie {i}"}, "rating": {"value": i % 3}, "plot": {"value": "no index"},
                           "folder": {"value": {"recordName": "folder", "action": "DELETE_SELF"}}}} for i in range(1, 8)])
    console.open(f"/console/schema?c={CONTAINER}")
    if "Movie" not in console.text("type-Movie"):
        fail("the schema screen does not list the type Movie")
    # Add an index.
    form = driver.find_element(By.XPATH, "//h2[@id='type-Movie']/following-sibling::form[1]")
    Select(form.find_element(By.NAME, "field")).select_by_visible_text("rating")
    Select(form.find_element(By.NAME, "index")).select_by_visible_text("SORTABLE")
    console.press(form.find_element(By.TAG_NAME, "button"))
    if "SORTABLE" not in driver.find_element(By.XPATH, "//h2[@id='type-Movie']/following-sibling::div[1]").text:
        fail("the added index is not shown")
    console.shot("schema")

    # An image asset, previewed on its record's page.
    photo = api.upload("photo-1", "image", PNG)
    api.save({"recordType": "Photo", "recordName": "photo-1", "fields": {"image": {"value": photo, "type": "ASSET"}}})
    console.open(f"/console/record?c={CONTAINER}&name=photo-1")
    WebDriverWait(driver, 10).until(lambda d: d.execute_script(
        "var i = document.querySelector('img.preview'); return i && i.complete && i.naturalWidth === 1"))
    console.shot("record-with-image")

    # Filter and sort.
    console.open(f"/console/records?c={CONTAINER}&type=Movie")
    console.shot("records")
    form = driver.find_element(By.ID, "query-form")
    Select(form.find_element(By.NAME, "ff")).select_by_visible_text("rating")
    Select(form.find_element(By.NAME, "fo")).select_by_visible_text("EQUALS")
    form.find_element(By.NAME, "fv").send_keys("1")
    Select(form.find_element(By.NAME, "sort")).select_by_visible_text("title")
    Select(form.find_element(By.NAME, "dir")).select_by_visible_text("descending")
    console.submit("run-query")
    names = [a.text for a in driver.find_elements(By.CSS_SELECTOR, "#records a.record-link")]
    if names != ["movie-7", "movie-4", "movie-1"]:
        fail(f"rating == 1 sorted by title descending listed {names}")
    driver.find_element(By.CSS_SELECTOR, "#api-preview summary").click()
    if "records/query" not in console.text("preview-curl") or "CKQuery" not in console.text("preview-swift"):
        fail("the API preview does not show the query")
    console.shot("records-filtered")

    # An edit that meets a newer version saved from the API meanwhile.
    console.open(f"/console/record?c={CONTAINER}&name=movie-4")
    status, current = api.call("records/lookup", {"records": [{"recordName": "movie-4"}]})
    tag = current["records"][0]["recordChangeTag"]
    status, _ = api.call("records/modify", {"operations": [{"operationType": "update", "record": {
        "recordName": "movie-4", "recordType": "Movie", "recordChangeTag": tag, "fields": {"title": {"value": "Theirs"}}}}]})
    box = driver.find_element(By.ID, "fields-json")
    box.clear()
    box.send_keys('{"title": {"value": "Mine"}}')
    console.submit("save-record")
    if "Theirs" not in console.text("server-version") or "Mine" not in console.text("my-version"):
        fail("the conflict page does not show both versions")
    console.shot("edit-conflict")
    console.submit("save-mine")
    if "Mine" not in console.text("fields"):
        fail("choosing my version did not save it")

    # Delete with the cascade warning.
    console.open(f"/console/record?c={CONTAINER}&name=folder")
    warning = console.text("cascade-warning")
    if "7 other records" not in warning:
        fail(f"the delete warning says {warning!r}")
    console.shot("record-delete-warning")
    console.submit("delete-record", confirm=True)
    status, gone = api.call("records/lookup", {"records": [{"recordName": "movie-1"}]})
    if gone["records"][0].get("serverErrorCode") != "NOT_FOUND":
        fail("the cascade did not delete movie-1")

    # Grant a role.
    console.open(f"/console/schema?c={CONTAINER}")
    grant = driver.find_element(By.XPATH, "//form[@action='/console/schema/grant']")
    Select(grant.find_element(By.NAME, "type")).select_by_visible_text("Photo")
    Select(grant.find_element(By.NAME, "role")).select_by_visible_text("_icloud")
    grant.find_element(By.CSS_SELECTOR, "input[value=write]").click()
    grant.find_element(By.CSS_SELECTOR, "input[value=read]").click()
    console.press(grant.find_element(By.TAG_NAME, "button"))
    if "Photo" not in console.text("grants") or "write" not in console.text("grants"):
        fail("the grant is not listed")

    # Deploy to production; production refuses a query it has no index for.
    if "Movie" not in console.text("deploy-diff"):
        fail("the deploy panel does not show what will be added")
    console.shot("schema-deploy")
    console.submit("deploy", confirm=True)
    console.shot("schema-production")
    query = {"query": {"recordType": "Movie", "filterBy": [
        {"fieldName": "plot", "comparator": "EQUALS", "fieldValue": {"value": "no index"}}]}}
    status, refused = api.call("records/query", query, environment="production")
    if status != 400 or "queryable" not in refused.get("reason", ""):
        fail(f"production answered {status} {refused} to a query without an index")

    # A token made in the console, revoked there, refused by the API.
    console.open(f"/console/tokens?c={CONTAINER}")
    console.submit("create-token")
    token = console.text("new-token")
    status, _ = api.call("records/query", {"query": {"recordType": "Movie"}}, token=token)
    if status != 200:
        fail(f"the new token was refused ({status})")
    console.open(f"/console/tokens?c={CONTAINER}")
    console.shot("tokens")
    token_id = __import__("hashlib").sha256(token.encode()).hexdigest()[:16]
    console.submit(f"revoke-{token_id}", confirm=True)
    deadline = time.time() + 10
    while True:
        status, answer = api.call("records/query", {"query": {"recordType": "Movie"}}, token=token)
        if status in (401, 403):
            break
        if time.time() > deadline:
            fail(f"the revoked token still works ({status})")
        time.sleep(1)

    telemetry_and_logs(console, api)

    for path, name in (("/console/zones", "zones"), ("/console/users", "users"), ("/console/audit", "audit")):
        console.open(f"{path}?c={CONTAINER}")
        console.shot(name)
    if "schema.deploy" not in console.text("audit") or "record.delete" not in console.text("audit"):
        fail("the audit log misses console changes")


def operation_counts(driver):
    """The telemetry screen's requests per operation."""
    return {row.find_elements(By.TAG_NAME, "td")[0].text: row.find_elements(By.TAG_NAME, "td")[1].text
            for row in driver.find_elements(By.CSS_SELECTOR, "#latency tbody tr")}


def telemetry_and_logs(console, api):
    driver = console.driver
    # Four zone lists: no other step of the flow calls zones/…, so the screens must count exactly four.
    for _ in range(4):
        status, _ = api.call("zones/list", None)
        if status != 200:
            fail(f"zones/list answered {status}")
    # The journal is written once a second: reload until the last request is in (and so all before it).
    deadline = time.time() + 15
    while True:
        console.open(f"/console/telemetry?c={CONTAINER}")
        latency = operation_counts(driver)
        if latency.get("zones") == "4" or time.time() > deadline:
            break
        time.sleep(0.5)
    if latency.get("zones") != "4" or "query" not in latency or "modify" not in latency:
        fail(f"the telemetry screen counts {latency} requests per operation, not 4 zone lists beside the queries and saves")
    errors = {row.find_elements(By.TAG_NAME, "td")[0].text for row in driver.find_elements(By.CSS_SELECTOR, "#errors tbody tr")}
    if "AUTHENTICATION_FAILED" not in errors:
        fail(f"the revoked token's refusals are missing from the errors by code ({errors})")
    if not driver.find_elements(By.CSS_SELECTOR, "svg.chart rect.bar"):
        fail("the telemetry screen drew no chart")
    total = int(re.search(r"(\d+) requests", driver.find_element(By.CSS_SELECTOR, "main p.muted").text).group(1))
    console.shot("telemetry")

    console.open(f"/console/logs?c={CONTAINER}&op=zones")
    rows = driver.find_elements(By.CSS_SELECTOR, "#log-rows tr")
    if len(rows) != 4 or any("zones/list" not in row.text or "200" not in row.text for row in rows):
        fail(f"the logs screen filtered to zones lists {len(rows)} rows, not the 4 zone lists")
    # The live tail shows a request made while the page is open.
    api.call("zones/list", None)
    WebDriverWait(driver, 15).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#log-rows tr")) == 5)
    console.open(f"/console/logs?c={CONTAINER}")
    console.shot("logs")
    # The export holds every logged request, as many as telemetry counted (plus the fifth list).
    export = driver.find_element(By.ID, "export").get_attribute("href")
    with urllib.request.urlopen(urllib.request.Request(export, headers={"Cookie": console.cookie_header()})) as answer:
        lines = [json.loads(line) for line in answer.read().decode().splitlines()]
    if len(lines) != total + 1 or sum(1 for line in lines if line["operation"] == "zones") != 5:
        fail(f"the export holds {len(lines)} requests; telemetry counted {total} before one more zone list")


def hostile_records(console, api):
    driver = console.driver
    api.save(
        {"recordType": "Hostile", "recordName": "script", "fields": {
            "text": {"value": "<script>window.__xss = 1</script>"},
            "html": {"value": "<img src=x onerror=\"window.__xss = 2\"><svg onload=\"window.__xss = 3\">"},
            "url": {"value": "javascript:window.__xss = 4"},
            "ref": {"value": {"recordName": "javascript:window.__xss=5", "action": "NONE"}}}},
        {"recordType": "Hostile", "recordName": "\"><script>window.__xss=6</script>", "fields": {
            "text": {"value": "</textarea><script>window.__xss = 7</script>"}}},
    )
    console.open(f"/console/records?c={CONTAINER}&type=Hostile")
    time.sleep(0.5)
    console.no_script_ran("the records screen")
    if "<script>window.__xss = 1</script>" not in driver.find_element(By.ID, "records").text:
        fail("the hostile text is not shown as text")
    console.shot("xss-records")
    for link in driver.find_elements(By.CSS_SELECTOR, "#records a.record-link"):
        href = link.get_attribute("href")
        if not href.startswith(console.base + "/console/record?"):
            fail(f"a record link points at {href}")
    for name in ("script", "\"><script>window.__xss=6</script>"):
        console.open(f"/console/record?c={CONTAINER}&name={urllib.parse.quote(name, safe='')}")
        time.sleep(0.5)
        console.no_script_ran(f"the page of record {name!r}")
        if name == "script":
            console.shot("xss-record")
            ref = driver.find_element(By.CSS_SELECTOR, "a.reference").get_attribute("href")
            if not ref.startswith(console.base + "/console/record?"):
                fail(f"a reference link points at {ref}")
            console.press(driver.find_element(By.CSS_SELECTOR, "a.reference"))
            console.no_script_ran("a followed reference")
    # A non-image asset holding HTML is a download that cannot run script.
    html = api.upload("page", "file", b"<html><script>window.__xss = 8</script></html>", record_type="Doc")
    api.save({"recordType": "Doc", "recordName": "page", "fields": {"file": {"value": html, "type": "ASSET"}}})
    console.open(f"/console/record?c={CONTAINER}&name=page")
    asset = driver.find_element(By.CSS_SELECTOR, "a.asset").get_attribute("href")
    request = urllib.request.Request(asset, headers={"Cookie": console.cookie_header()})
    with urllib.request.urlopen(request) as answer:
        headers = answer.headers
    if not (headers["Content-Disposition"].startswith("attachment") and headers["X-Content-Type-Options"] == "nosniff"
            and headers["Content-Security-Policy"].startswith("sandbox") and headers["Content-Type"] == "application/octet-stream"):
        fail(f"an HTML asset is served with {dict(headers)}")


class CrossSite(http.server.BaseHTTPRequestHandler):
    """Another site's page that posts a form to the console as soon as it loads."""
    target = ""

    def do_GET(self):
        page = f"""<!doctype html><html><body>
        <form id="f" method="post" action="{CrossSite.target}/console/tokens/create">
        <input name="c" value="{CONTAINER}"><input name="origins" value="*"><input name="csrf" value="guessed">
        </form><script>document.getElementById('f').submit();</script></body></html>"""
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(page.encode())

    def log_message(self, *args):
        pass


def cross_site_post(console):
    driver = console.driver
    console.open(f"/console/tokens?c={CONTAINER}")
    before = len(driver.find_elements(By.CSS_SELECTOR, "#tokens tbody tr"))
    CrossSite.target = console.base
    site = http.server.HTTPServer(("127.0.0.1", 0), CrossSite)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    try:
        driver.get(f"http://localhost:{site.server_address[1]}/")
        WebDriverWait(driver, 20).until(lambda d: "/console/tokens/create" in d.current_url)
        console.shot("csrf-refused")
    finally:
        site.shutdown()
    console.open(f"/console/tokens?c={CONTAINER}")
    after = len(driver.find_elements(By.CSS_SELECTOR, "#tokens tbody tr"))
    if after != before:
        fail(f"a cross-site form post created a token ({before} → {after})")


def session_expiry(binary, data, shots):
    server, _, _, link, base = start_server(binary, data, "--console-session-minutes", "0.05")
    driver = browser()
    try:
        console = Console(driver, base, shots)
        console.count = 90
        driver.get(link)
        console.submit("continue")
        console.open(f"/console/records?c={CONTAINER}")
        if "/console/signin" in driver.current_url:
            fail("signed out right after signing in")
        time.sleep(4)
        console.open(f"/console/records?c={CONTAINER}")
        if "/console/signin" not in driver.current_url:
            fail(f"an expired session still shows {driver.current_url}")
        console.shot("session-expired")
    finally:
        driver.quit()
        server.terminate()
        server.wait(timeout=30)


def main():
    binary = sys.argv[1]
    shots = tempfile.mkdtemp(prefix="stratus-console-screens-")
    with tempfile.TemporaryDirectory() as data:
        server, token, user, link, base = start_server(binary, os.path.join(data, "stratus"))
        try:
            driver = browser()
            try:
                console = Console(driver, base, shots)
                api = API(base, token, user)
                long_flow(console, api, link)
                hostile_records(console, api)
                cross_site_post(console)
                driver.set_window_size(390, 844)
                console.open(f"/console/records?c={CONTAINER}&type=Photo")
                console.shot("phone-records")
            finally:
                driver.quit()
        finally:
            server.terminate()
            server.wait(timeout=30)
        session_expiry(binary, os.path.join(data, "expiry"), shots)
    print(f"console: screenshots in {shots}")
    print("console: OK")


if __name__ == "__main__":
    main()
