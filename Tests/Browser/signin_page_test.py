#!/usr/bin/env python3
"""The sign-in page in a real browser (headless Chromium via Selenium).

Starts `stratus serve` on a free port with a fresh data folder, points an API token's callback URL
at the server itself, then: every visible field has a label; signing up through the form lands on
the callback URL with ckWebAuthToken=; that token signs the user in (users/caller); a wrong password
shows an alert on the page. Usage: signin_page_test.py PATH_TO_STRATUS_BINARY
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import headless_chromium

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

CONTAINER = "iCloud.dev.stratus.default"


def fail(message):
    print(f"signin page: FAILED: {message}")
    sys.exit(1)


def start_server(binary, data):
    log = open(os.path.join(data, "serve.log"), "w+")
    server = subprocess.Popen([binary, "serve", "--port", "0", "--data", os.path.join(data, "stratus")],
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


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as data:
        server, token, base = start_server(binary, data)
        try:
            callback = base + "/signed-in"
            subprocess.run([binary, "token", "origins", token, "--container", CONTAINER, "--origin", base,
                            "--callback-url", callback, "--data", os.path.join(data, "stratus")], check=True)
            time.sleep(6)  # the running server caches token settings for 5 s
            handle = hashlib.sha256(token.encode()).hexdigest()[:16]
            driver = headless_chromium.browser()
            try:
                driver.get(f"{base}/signin?container={CONTAINER}&token={handle}")
                # Every visible field has a label naming it.
                for field in driver.find_elements(By.CSS_SELECTOR, "input:not([type=hidden])"):
                    field_id = field.get_attribute("id")
                    wrapped = field.find_elements(By.XPATH, "ancestor::label")
                    labelled = field_id and driver.find_elements(By.CSS_SELECTOR, f"label[for='{field_id}']")
                    if not (wrapped or labelled):
                        fail(f"field {field.get_attribute('name')} has no label")
                if driver.find_element(By.TAG_NAME, "html").get_attribute("lang") != "en":
                    fail("the page does not declare its language")
                # Sign up through the form.
                driver.find_element(By.ID, "email").send_keys("browser@example.com")
                driver.find_element(By.ID, "password").send_keys("typed in a browser")
                driver.find_element(By.ID, "name").send_keys("Brow Ser")
                driver.find_element(By.CSS_SELECTOR, "button[value=signup]").click()
                WebDriverWait(driver, 20).until(expected_conditions.url_contains("ckWebAuthToken="))
                landed = urllib.parse.urlparse(driver.current_url)
                if not driver.current_url.startswith(callback):
                    fail(f"landed on {driver.current_url}, not the callback URL")
                web_token = urllib.parse.parse_qs(landed.query)["ckWebAuthToken"][0]
                query = urllib.parse.urlencode({"ckAPIToken": token, "ckWebAuthToken": web_token})
                with urllib.request.urlopen(f"{base}/database/1/{CONTAINER}/development/public/users/caller?{query}") as answer:
                    caller = json.load(answer)
                if caller.get("emailAddress") != "browser@example.com":
                    fail(f"users/caller answered {caller}")
                # A wrong password shows an alert on the form.
                driver.get(f"{base}/signin?container={CONTAINER}&token={handle}")
                driver.find_element(By.ID, "email").send_keys("browser@example.com")
                driver.find_element(By.ID, "password").send_keys("not the password")
                driver.find_element(By.CSS_SELECTOR, "button[value=signin]").click()
                alert = WebDriverWait(driver, 20).until(
                    expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "[role=alert]")))
                if "wrong" not in alert.text:
                    fail(f"the alert says {alert.text!r}")
            finally:
                driver.quit()
        finally:
            server.terminate()
            server.wait(timeout=30)
    print("signin page: OK")


if __name__ == "__main__":
    main()
