"""heed serve in a real browser (Debian's chromium, headless, driven by selenium): the built-in page
at / translates as a person would use it, and a page from another origin can call the LibreTranslate
routes (CORS, as LibreTranslate allows) but not /v1 (no CORS unless asked). The translations the
browser shows are compared with what /translate answers the requests client."""
import http.server
import os
import shutil
import threading

import pytest
import requests
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

TEXT = "Hello world. The world is big!"


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver:
        pytest.fail("chromium and chromedriver are missing: scripts/install-deps.sh installs Debian's chromium "
                    "and chromium-driver")
    options = Options()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--user-data-dir=" + str(tmp_path_factory.mktemp("chromium"))):
        options.add_argument(flag)
    b = webdriver.Chrome(service=Service(driver), options=options)
    b.set_script_timeout(60)
    b.set_window_size(1000, 520)
    yield b
    b.quit()


@pytest.fixture(scope="module")
def page_server(start, models):
    return start(["-m", models["argos"], "-m", models["bert"]])


def reference(server, text):
    body = {"q": text, "source": "en", "target": "de"}
    r = requests.post(server.url + "/translate", json=body, timeout=60)
    assert r.status_code == 200, r.text
    return r.json()["translatedText"]


def test_the_built_in_page_translates(browser, page_server, tmp_path):
    want = reference(page_server, TEXT)
    r = requests.get(page_server.url + "/", timeout=10)
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/html")
    assert "connect-src 'self'" in r.headers["Content-Security-Policy"]
    browser.get(page_server.url + "/")
    wait = WebDriverWait(browser, 60)
    wait.until(lambda b: b.find_element(By.ID, "status").text == "Ready.")
    assert Select(browser.find_element(By.ID, "source")).first_selected_option.get_attribute("value") == "en"
    assert Select(browser.find_element(By.ID, "target")).first_selected_option.get_attribute("value") == "de"
    browser.find_element(By.ID, "live").click()  # off: the button translates
    browser.find_element(By.ID, "text").send_keys(TEXT)
    browser.find_element(By.ID, "translate").click()
    wait.until(lambda b: b.find_element(By.ID, "status").text == "Done.")
    assert browser.find_element(By.ID, "result").text == want.strip()
    browser.find_element(By.ID, "live").click()  # on: typing translates by itself
    browser.find_element(By.ID, "text").send_keys(" Hello.")
    wait.until(lambda b: b.find_element(By.ID, "result").text == reference(page_server, TEXT + " Hello.").strip())
    browser.save_screenshot(str(tmp_path / "page.png"))
    if os.environ.get("HEED_SCREENSHOT"):  # docs/serve.md's picture: HEED_SCREENSHOT=path
        shutil.copy(tmp_path / "page.png", os.environ["HEED_SCREENSHOT"])


def test_no_web_page_leaves_the_apis(start, models):
    server = start(["-m", models["argos"], "--no-web-page"])
    assert requests.get(server.url + "/", timeout=10).status_code == 404
    assert requests.get(server.url + "/languages", timeout=10).status_code == 200


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def other_origin(tmp_path_factory):
    """A page served from another origin (another port): a site the user visits."""
    root = tmp_path_factory.mktemp("site")
    (root / "index.html").write_text("<!DOCTYPE html><title>another site</title>")
    handler = lambda *a, **k: _Quiet(*a, directory=str(root), **k)  # noqa: E731
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield "http://127.0.0.1:%d/" % httpd.server_address[1]
    httpd.shutdown()


FETCH = """
const [url, body, done] = arguments;
fetch(url, {method: "POST", headers: {"Content-Type": "application/json"}, body: body})
  .then(r => r.json().then(j => done({status: r.status, body: j})))
  .catch(e => done({error: String(e)}));
"""


def test_cross_origin_pages_reach_libretranslate_routes_only(browser, page_server, other_origin):
    browser.get(other_origin)
    body = '{"q": "%s", "source": "en", "target": "de"}' % TEXT
    answer = browser.execute_async_script(FETCH, page_server.url + "/translate", body)
    assert answer.get("status") == 200, answer
    assert answer["body"]["translatedText"] == reference(page_server, TEXT)
    answer = browser.execute_async_script(FETCH, page_server.url + "/v1/embeddings",
                                          '{"model": "bert", "input": "hello"}')
    assert "error" in answer and "Failed to fetch" in answer["error"], answer  # blocked by the browser
