#!/usr/bin/env python3
"""The web-notes example (Examples/web-notes, on the JavaScript SDK) in a real browser.

Starts `stratus serve` on a free port with a fresh data folder and serves the repository as static
files on another port (another origin, allowed for the API token with `stratus token origins`).
Headless Chromium then signs up through the server's real sign-in window (the token arrives by
postMessage), opens a second window (signed in from the persisted session), and in the first
creates a note with an image, edits it and deletes it, while the second shows each change without
a reload (Server-Sent Events from the web courier). Also: an edit that meets a change from
elsewhere shows the latest version, notes page with "Show more", and signing out sticks.
Usage: web_notes_test.py PATH_TO_STRATUS_BINARY
"""
import functools
import http.server
import os
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

import headless_chromium

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

CONTAINER = "iCloud.dev.stratus.default"
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fail(message):
    print(f"web notes: FAILED: {message}")
    sys.exit(1)


def start_server(binary, data):
    log = open(os.path.join(data, "serve.log"), "w+")
    server = subprocess.Popen([binary, "serve", "--port", "0", "--data", os.path.join(data, "stratus"), "--shutdown-timeout", "1"],
                              stdout=subprocess.PIPE, stderr=log, text=True)
    lines = {}
    deadline = time.time() + 60
    while time.time() < deadline:
        line = server.stdout.readline()
        if not line:
            fail("stratus exited before listening; see " + log.name)
        for prefix in ("API token: ", "listening on "):
            if line.startswith(prefix):
                lines[prefix] = line[len(prefix):].strip()
        if "listening on " in lines:
            return server, lines["API token: "], lines["listening on "]
    fail("stratus did not start listening within 60 s")


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def static_server():
    handler = functools.partial(QuietHandler, directory=REPO)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


def png(path):
    """A 4x4 red PNG."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    rows = b"".join(b"\x00" + b"\xff\x00\x00" * 4 for _ in range(4))
    with open(path, "wb") as handle:
        handle.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def wait(driver, what, condition, seconds=20):
    try:
        # A notification re-renders the list at any moment, so an element found a moment ago may be gone.
        return WebDriverWait(driver, seconds, ignored_exceptions=[StaleElementReferenceException]).until(lambda d: condition(d))
    except Exception:
        status, notes = driver.execute_script("var s = document.getElementById('status'), n = document.getElementById('notes');"
                                              "return [s && s.textContent, n && n.innerText]")
        fail(f"{what} (waited {seconds} s; the page's status says {status!r}; its notes: {notes!r})")


def titles(driver):
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#notes li .note-title')).map(function (e) { return e.textContent; })")


def note(driver, title):
    for item in driver.find_elements(By.CSS_SELECTOR, "#notes li"):
        found = item.find_elements(By.CSS_SELECTOR, ".note-title")
        if found and found[0].text == title:
            return item
    return None


def act(driver, title, selector, keys=None):
    """Clicks (or types into) `selector` inside the note titled `title`, again if the list re-rendered under it."""
    for _ in range(10):
        try:
            item = note(driver, title)
            if item is None:
                fail(f"no note titled {title!r}; the notes are {titles(driver)}")
            element = item.find_element(By.CSS_SELECTOR, selector)
            if keys is None:
                element.click()
            else:
                element.clear()
                element.send_keys(keys)
            return
        except StaleElementReferenceException:
            time.sleep(0.2)
    fail(f"the note titled {title!r} kept changing under the test")


def editor(driver, selector, keys=None):
    """The one note in edit mode: types into its field or clicks its button."""
    element = driver.find_element(By.CSS_SELECTOR, f"#notes li[data-editing] {selector}")
    if keys is None:
        element.click()
    else:
        element.clear()
        element.send_keys(keys)


def image_loaded(driver, title):
    return driver.execute_script(
        "var items = document.querySelectorAll('#notes li');"
        "for (var i = 0; i < items.length; i++) {"
        "  var t = items[i].querySelector('.note-title'), img = items[i].querySelector('img.note-image');"
        "  if (t && t.textContent === arguments[0]) return Boolean(img && img.complete && img.naturalWidth === 4); }"
        "return false;", title)


def ready(driver):
    return driver.execute_script("return document.body.dataset.ready") == "true"


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as data:
        server, token, base = start_server(binary, data)
        httpd, origin = static_server()
        driver = None
        try:
            subprocess.run([binary, "token", "origins", token, "--container", CONTAINER, "--origin", origin,
                            "--data", os.path.join(data, "stratus")], check=True, capture_output=True)
            time.sleep(6)  # the running server caches token settings for 5 s
            image = os.path.join(data, "red.png")
            png(image)
            page = f"{origin}/Examples/web-notes/index.html?server={base}&apiToken={token}"
            driver = headless_chromium.browser("--window-size=1100,900")
            driver.get(page)
            first = driver.current_window_handle

            # Sign up through the server's sign-in window; the token comes back by postMessage.
            wait(driver, "the sign-in button did not appear", lambda d: d.find_elements(By.CSS_SELECTOR, "#sign-in-button button"))
            driver.find_element(By.CSS_SELECTOR, "#sign-in-button button").click()
            wait(driver, "no sign-in window opened", lambda d: len(d.window_handles) == 2)
            popup = [handle for handle in driver.window_handles if handle != first][0]
            driver.switch_to.window(popup)
            wait(driver, "the sign-in form did not load", lambda d: d.find_elements(By.ID, "email"))
            driver.find_element(By.ID, "email").send_keys("notes@example.com")
            driver.find_element(By.ID, "password").send_keys("typed in a browser")
            driver.find_element(By.ID, "name").send_keys("Nora Notes")
            driver.find_element(By.CSS_SELECTOR, "button[value=signup]").click()
            wait(driver, "the sign-in window did not close", lambda d: popup not in d.window_handles)
            driver.switch_to.window(first)
            wait(driver, "the app did not sign in", ready)
            if "Nora" not in driver.find_element(By.ID, "user").text:
                fail(f"the signed-in user shows as {driver.find_element(By.ID, 'user').text!r}")
            if not driver.find_elements(By.CSS_SELECTOR, "#sign-out-button button"):
                fail("no sign-out button after signing in")

            # A second window: signed in from the persisted session, listening for changes.
            driver.switch_to.new_window("window")
            second = driver.current_window_handle
            driver.get(page)
            wait(driver, "the second window did not sign in from the persisted session", ready)

            # Create a note with an image in the first window.
            driver.switch_to.window(first)
            driver.find_element(By.ID, "new-title").send_keys("Groceries")
            driver.find_element(By.ID, "new-body").send_keys("milk, bread")
            driver.find_element(By.ID, "new-image").send_keys(image)
            driver.find_element(By.ID, "add-note").click()
            wait(driver, "the new note's image did not load", lambda d: image_loaded(d, "Groceries"))
            driver.switch_to.window(second)
            wait(driver, "the second window did not show the new note without a reload", lambda d: image_loaded(d, "Groceries"))

            # Edit it in the first window; the second sees the new title.
            driver.switch_to.window(first)
            act(driver, "Groceries", ".edit")
            editor(driver, ".edit-title", "Groceries for Sunday")
            editor(driver, ".save")
            wait(driver, "the edit did not save", lambda d: note(d, "Groceries for Sunday"))
            driver.switch_to.window(second)
            wait(driver, "the second window did not show the edit", lambda d: note(d, "Groceries for Sunday"))

            # A conflict: the second window starts editing, the first saves a change, the second's save
            # then shows the latest version instead of overwriting it.
            act(driver, "Groceries for Sunday", ".edit")
            driver.switch_to.window(first)
            act(driver, "Groceries for Sunday", ".edit")
            editor(driver, ".edit-title", "Groceries, final")
            editor(driver, ".save")
            wait(driver, "the first window's edit did not save", lambda d: note(d, "Groceries, final"))
            driver.switch_to.window(second)
            editor(driver, ".edit-title", "an edit of an old version")
            editor(driver, ".save")
            wait(driver, "the conflict did not show the latest version",
                 lambda d: note(d, "Groceries, final") and "changed elsewhere" in note(d, "Groceries, final").text)

            # Delete it in the first window; it disappears from the second.
            driver.switch_to.window(first)
            act(driver, "Groceries, final", ".delete")
            wait(driver, "the note was not deleted", lambda d: note(d, "Groceries, final") is None)
            driver.switch_to.window(second)
            wait(driver, "the second window still shows the deleted note", lambda d: note(d, "Groceries, final") is None)

            # After a reload the second window registers again, and changes still arrive.
            driver.refresh()
            wait(driver, "the second window did not sign in again after a reload", ready)
            driver.switch_to.window(first)
            driver.find_element(By.ID, "new-title").send_keys("after a reload")
            driver.find_element(By.ID, "add-note").click()
            wait(driver, "the note did not appear", lambda d: note(d, "after a reload"))
            driver.switch_to.window(second)
            wait(driver, "the reloaded second window did not see the new note", lambda d: note(d, "after a reload"))
            driver.switch_to.window(first)
            act(driver, "after a reload", ".delete")
            wait(driver, "the note was not deleted", lambda d: note(d, "after a reload") is None)

            # Paging: seven notes show five, and "Show more" the other two.
            driver.switch_to.window(first)
            for number in range(7):
                driver.find_element(By.ID, "new-title").send_keys(f"note {number}")
                driver.find_element(By.ID, "add-note").click()
                wait(driver, f"note {number} did not appear", lambda d, n=number: note(d, f"note {n}"))
            wait(driver, "the first page does not hold five notes", lambda d: len(titles(d)) == 5)
            more = driver.find_element(By.ID, "more")
            if not more.is_displayed():
                fail("no Show more button with seven notes")
            more.click()
            wait(driver, "Show more did not load the rest", lambda d: sorted(titles(d)) == [f"note {n}" for n in range(7)])

            # Signing out ends the session: the notes go, the sign-in button comes back, and a reload
            # stays signed out.
            driver.find_element(By.CSS_SELECTOR, "#sign-out-button button").click()
            wait(driver, "signing out did not bring the sign-in button back",
                 lambda d: d.find_elements(By.CSS_SELECTOR, "#sign-in-button button") and not titles(d))
            driver.get(page)
            wait(driver, "after a reload the signed-out page shows no sign-in button",
                 lambda d: d.find_elements(By.CSS_SELECTOR, "#sign-in-button button"))
            if ready(driver):
                fail("the page is signed in again after signing out")
        finally:
            if driver is not None:
                driver.quit()
            httpd.shutdown()
            server.terminate()
            server.wait(timeout=30)
    print("web notes: OK")


if __name__ == "__main__":
    main()
