#!/usr/bin/env python3
"""Parlor deployed as deploy/ says, tried as a new operator would: Debian's nginx with the site of
deploy/nginx/ (TLS with a certificate made for the run, HTTP/2), and `parlor serve` with the ExecStart
arguments of deploy/parlor.service, as a user of its own (nobody) who may write only an empty state
folder standing in for /var/lib/parlor and a private /tmp; its working folder is read-only to it. Two people chat live through the proxy in headless Chromium, send a photo larger than
nginx's default body limit, and a POST with a foreign Origin is refused. Every server listens on
127.0.0.1 only and is stopped by PID.

usage: behind_nginx.py PARLOR_BINARY REPOSITORY ARTIFACTS"""
import http.client
import os
import re
import shlex
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import two_people_chat as common  # noqa: E402 (reads the same three arguments)
from selenium.webdriver.common.by import By  # noqa: E402
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

from conversation_ux import FACE_JPEG  # noqa: E402
import base64  # noqa: E402


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def replace_once(text, old, new, what):
    """`old` must be there exactly once: the deploy files changed in a way this test must follow."""
    count = text.count(old)
    assert count == 1, "%s: expected %r once in the deploy file, found it %d times" % (what, old, count)
    return text.replace(old, new)


def unit_arguments(state, port, extra=(), unit_name="parlor.service", environment=None):
    """The ExecStart of deploy/parlor.service (or another unit of deploy/), with this run's binary, folders and
    port; `environment` fills the unit's ${NAME}s, as its EnvironmentFile= would."""
    with open(os.path.join(common.REPOSITORY, "deploy", unit_name)) as unit:
        text = unit.read().replace("%i", str(port))
    for name, value in (environment or {}).items():
        assert "${%s}" % name in text, "the unit lost ${%s}" % name
        text = text.replace("${%s}" % name, value)
    for needed in ("StateDirectory=parlor", "WorkingDirectory=/var/lib/parlor", "ProtectSystem=strict"):
        assert needed in text, "the unit lost " + needed
    line = re.search(r"^ExecStart=(.+)$", text, re.M).group(1)
    arguments = shlex.split(line)
    assert arguments[0] == "/opt/parlor/parlor"
    assert "--trusted-proxy" in arguments, "behind nginx, Parlor must believe its forwarded fields"
    stop = int(re.search(r"^TimeoutStopSec=(\d+)$", text, re.M).group(1))
    grace = float(arguments[arguments.index("--shutdown-grace") + 1])
    assert stop > grace, "systemd would kill Parlor before its shutdown grace ends"
    replaced = []
    for argument in arguments:
        argument = argument.replace("/opt/parlor/parlor", os.path.abspath(common.BINARY))
        argument = argument.replace("/opt/parlor/", os.path.abspath(common.REPOSITORY) + "/")
        argument = argument.replace("/var/lib/parlor", state)
        replaced.append(argument)
    replaced[replaced.index("--port") + 1] = str(port)
    return replaced + ["--bot-read-delay", "0.3", "--bot-reply-delay", "0.6", *extra]


def wait_until_listening(process, port, what):
    """Until `process` accepts connections on `port` (at most 20 s); fails if it exits first."""
    deadline = time.time() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert process.poll() is None, what + " exited at start"
            assert time.time() < deadline, what + " did not listen within 20 s"
            time.sleep(0.05)


def verify_unit(folder, unit_name="parlor.service", as_name=None):
    """systemd-analyze verify on the unit (with this run's binary, which must exist for it), saved as
    `as_name` (a template's instance, "parlor@8081.service"): any remark, an unknown key included, fails."""
    analyze = shutil.which("systemd-analyze")
    assert analyze, "systemd-analyze is missing: run bash .ci/install-packages --tests"
    with open(os.path.join(common.REPOSITORY, "deploy", unit_name)) as unit:
        text = unit.read().replace("ExecStart=/opt/parlor/parlor ", "ExecStart=%s " % os.path.abspath(common.BINARY))
    path = os.path.join(folder, as_name or unit_name)
    with open(path, "w") as unit:
        unit.write(text)
    checked = subprocess.run([analyze, "verify", path], capture_output=True, text=True)
    assert checked.returncode == 0 and not (checked.stdout + checked.stderr).strip(), "systemd-analyze verify: " + checked.stdout + checked.stderr


def as_service_user(*folders):
    """How the unit runs Parlor: as a user of its own (DynamicUser) who may write the state folder and its
    private /tmp, and nothing else (ProtectSystem=strict). Here `nobody`, when the test runs as root, and
    `folders` become that user's."""
    if os.geteuid() != 0:
        return {}
    for folder in folders:
        os.chown(folder, 65534, 65534)
    return {"user": 65534, "group": 65534}


def nginx_config(folder, parlor_ports, http_port, https_port, locations):
    """deploy/nginx/parlor.conf as an operator installs it, on this run's ports (a list: one upstream server
    each), certificate and folders, inside a main configuration of this run's own (pid, logs and temporary
    files in `folder`)."""
    with open(os.path.join(common.REPOSITORY, "deploy", "nginx", "parlor.conf")) as site_file:
        site = site_file.read()
    ports = parlor_ports if isinstance(parlor_ports, list) else [parlor_ports]
    site = replace_once(site, "server 127.0.0.1:8080;", " ".join("server 127.0.0.1:%d;" % port for port in ports), "upstream")
    site = replace_once(site, "    listen 80;\n", "    listen 127.0.0.1:%d;\n" % http_port, "http listen")
    site = replace_once(site, "    listen [::]:80;\n", "", "http listen, IPv6")
    site = replace_once(site, "    listen 443 ssl http2;\n", "    listen 127.0.0.1:%d ssl http2;\n" % https_port, "https listen")
    site = replace_once(site, "    listen [::]:443 ssl http2;\n", "", "https listen, IPv6")
    site = re.sub(r"ssl_certificate (\S+);", "ssl_certificate %s/cert.pem;" % folder, site)
    site = re.sub(r"ssl_certificate_key (\S+);", "ssl_certificate_key %s/key.pem;" % folder, site)
    site = replace_once(site, "set $parlor_public /opt/parlor/Public;", "set $parlor_public %s/Public;" % common.REPOSITORY, "public")
    site = replace_once(site, "include snippets/parlor-locations.conf;",
                        "include %s/deploy/nginx/%s;" % (common.REPOSITORY, locations), "locations")
    temporary = "\n".join("    %s_temp_path %s/%s;" % (kind, folder, kind) for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    return """
worker_processes 1;
pid %(folder)s/nginx.pid;
error_log %(folder)s/error.log;
worker_shutdown_timeout 30s;
events { worker_connections 512; }
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log %(folder)s/access.log;
%(temporary)s
%(site)s
}
""" % {"folder": folder, "temporary": temporary, "site": site}


def start_nginx(folder, parlor_port, locations="parlor-locations.conf"):
    http_port, https_port = free_port(), free_port()
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-keyout", folder + "/key.pem", "-out", folder + "/cert.pem"], check=True, capture_output=True)
    # nginx's workers run as www-data: they write request bodies (photos) to the temporary folders.
    os.chmod(folder, 0o755)
    for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        os.makedirs(os.path.join(folder, kind))
        os.chmod(os.path.join(folder, kind), 0o777)
    config = folder + "/nginx.conf"
    with open(config, "w") as file:
        file.write(nginx_config(folder, parlor_port, http_port, https_port, locations))
    checked = subprocess.run(["nginx", "-t", "-c", config, "-e", folder + "/error.log"], capture_output=True, text=True)
    assert checked.returncode == 0, "nginx -t refused the deploy site:\n" + checked.stderr
    process = subprocess.Popen(["nginx", "-c", config, "-e", folder + "/error.log", "-g", "daemon off;"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_listening(process, https_port, "nginx (see %s/error.log)" % folder)
    except AssertionError:
        process.kill()
        raise
    return process, http_port, https_port


def keep_failure_artifacts(drivers, folder, logs):
    """After a failed step: each browser's screen, and the named logs of Parlor and nginx, in the artifacts."""
    for index, driver in enumerate(drivers):
        driver.save_screenshot(os.path.join(common.ARTIFACTS, "failed-browser-%d.png" % (index + 1)))
    for name in logs:
        if os.path.exists(os.path.join(folder, name)):
            shutil.copy(os.path.join(folder, name), os.path.join(common.ARTIFACTS, name))
    print("kept the logs of Parlor and nginx in " + common.ARTIFACTS, file=sys.stderr)


def stop_everything(drivers, nginxes, parlors):
    """The browsers, then nginx (graceful quit, killed after 35 s), then Parlor (SIGTERM): what a run started."""
    for driver in drivers:
        driver.quit()
    for server in nginxes:
        if server and server.poll() is None:
            server.send_signal(signal.SIGQUIT)
            try:
                server.wait(timeout=35)
            except subprocess.TimeoutExpired:
                server.kill()
    for process in parlors:
        if process and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)


def request(port, method, path, headers=None, body=None, tls=True, source="127.0.0.1"):
    context = ssl._create_unverified_context()
    connection = (http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=15, source_address=(source, 0)) if tls
                  else http.client.HTTPConnection("127.0.0.1", port, timeout=15, source_address=(source, 0)))
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, data


def main():
    os.makedirs(common.ARTIFACTS, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="parlor-nginx-")
    state = os.path.join(folder, "state")        # /var/lib/parlor: empty, as StateDirectory= makes it
    working = os.path.join(folder, "working")    # the unit's working folder stands in here
    private_tmp = os.path.join(folder, "tmp")  # PrivateTmp=yes
    os.makedirs(state)
    os.makedirs(working)
    os.makedirs(private_tmp)
    os.chmod(folder, 0o755)
    service_user = as_service_user(state, private_tmp)
    environment = dict(os.environ, TMPDIR=private_tmp)
    verify_unit(folder)
    parlor_port = free_port()
    log = open(os.path.join(folder, "parlor.log"), "wb")
    # The unit's arguments, and /metrics for this machine (a monitoring host would be named the same way).
    parlor = subprocess.Popen(unit_arguments(state, parlor_port, ["--metrics-address", "127.0.0.1"]), cwd=working, stdout=log, stderr=log,
                              env=environment, **service_user)
    nginx = None
    prefixed = None
    prefixed_nginx = None
    drivers = []
    try:
        wait_until_listening(parlor, parlor_port, "parlor with the unit's arguments (see %s)" % log.name)
        assert os.path.exists(os.path.join(state, "parlor.sqlite")), "the database is made in the state folder"
        nginx, http_port, https_port = start_nginx(folder, parlor_port)
        base = "https://127.0.0.1:%d" % https_port

        # 1. Plain HTTP is sent to HTTPS.
        status, headers, _ = request(http_port, "GET", "/chats", tls=False)
        assert status == 301 and headers["location"] == "https://127.0.0.1/chats", (status, headers.get("location"))

        # 2. Two people sign up and chat live through the proxy, over HTTP/2; the session cookie is Secure.
        # The certificate is this run's own: the browsers are told to accept it, nothing else changes.
        ana, ben = common.browser(extra=("--ignore-certificate-errors",)), common.browser(extra=("--ignore-certificate-errors",))
        drivers += [ana, ben]
        # The unit takes people by invitation: Ana, the first, is the administrator; Ben joins through her link.
        common.sign_up(ana, base, "ana", "Ana Lima")
        common.sign_up(ben, base, "ben", "Ben Okafor", through=common.make_join_link(ana, base))
        protocol = ana.execute_script("return performance.getEntriesByType('navigation')[0].nextHopProtocol")
        assert protocol == "h2", "HTTP/2 through nginx: " + str(protocol)
        cookie = next(c for c in ana.get_cookies() if c["name"] == "parlor_session")
        assert cookie["secure"], "the session cookie is Secure behind the TLS proxy: %s" % cookie
        chat = common.start_chat_by_typing(ana, base, "be", "Ben Okafor")
        ben.get(chat)
        common.send(ana, "Hello through nginx")
        common.wait_for(ben, common.text_in(".messages", "Hello through nginx"), "the message reaches Ben over the proxied event stream")
        assert not ben.find_element(By.CSS_SELECTOR, ".conversation-empty").is_displayed(), "'No messages yet' goes with the first message"
        cell = common.own_cell(ana, "Hello through nginx")
        common.wait_for(ana, lambda d: "Read" in common.delivery(cell)(d), "Ana sees Read through the proxy")
        common.step("chat-through-nginx", ana, ben)

        # 3. A photo larger than nginx's default 1 MB body limit goes through, and Ben sees it.
        photo = os.path.join(folder, "big-photo.jpg")
        with open(photo, "wb") as file:
            file.write(base64.b64decode(FACE_JPEG) + bytes(3_000_000))  # after its end marker, as some cameras write
        ana.find_element(By.CSS_SELECTOR, "form.composer input[name=photo]").send_keys(photo)
        ana.find_element(By.CSS_SELECTOR, "form.composer textarea").send_keys("A big one")
        ana.find_element(By.CSS_SELECTOR, "form.composer button[type=submit]").click()
        common.wait_for(ben, lambda d: any(d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", p)
                                           for p in d.find_elements(By.CSS_SELECTOR, "a.photo-link img")), "Ben sees the 3 MB photo")
        common.step("photo-through-nginx", ana, ben)

        # 4. A POST through the proxy with a foreign Origin is refused, the same one with the site's is not.
        session = "; ".join("%s=%s" % (c["name"], c["value"]) for c in ana.get_cookies())
        ana.get(chat)
        csrf = ana.find_element(By.CSS_SELECTOR, "input[name=csrf]").get_attribute("value")
        body = "csrf=%s&body=forged&token=forged-1" % csrf
        form = {"Cookie": session, "Content-Type": "application/x-www-form-urlencoded", "X-Parlor-Script": "1"}
        path = chat.replace(base, "") + "/messages"
        status, _, _ = request(https_port, "POST", path, dict(form, Origin="https://evil.example"), body)
        assert status == 403, "a foreign Origin through the proxy: %d" % status
        status, _, _ = request(https_port, "POST", path, dict(form, Origin=base), body.replace("forged-1", "own-1"))
        assert status == 204, "the site's own Origin, port included, through the proxy: %d" % status
        common.wait_for(ben, common.text_in(".messages", "forged"), "the accepted one arrives")
        # Forwarded fields from anyone but the proxy change nothing: straight to Parlor from another address
        # (127.0.0.2, not the trusted 127.0.0.1), claiming HTTPS and the proxy's host.
        status, _, _ = request(parlor_port, "POST", path, dict(form, Origin=base, **{"X-Forwarded-Proto": "https",
                               "X-Forwarded-Host": base.replace("https://", "")}), body.replace("forged-1", "own-2"), tls=False,
                               source="127.0.0.2")
        assert status == 403, "X-Forwarded-* from an untrusted peer: %d" % status
        common.step("origin-checked-through-nginx", ana)

        # 5. Static files come from nginx with Parlor's cache policy and validators.
        status, headers, _ = request(https_port, "GET", "/public/css/parlor.css")
        assert status == 200 and headers.get("cache-control") == "no-cache" and "etag" in headers and "last-modified" in headers, headers
        assert headers.get("x-content-type-options") == "nosniff" and headers.get("content-type", "").startswith("text/css"), headers
        status, _, _ = request(https_port, "GET", "/public/css/parlor.css", {"If-None-Match": headers["etag"]})
        assert status == 304, "revalidated with one 304: %d" % status
        assert request(https_port, "GET", "/public/.hidden")[0] == 404
        status, headers, _ = request(https_port, "GET", "/public/js/parlor.js", {"Accept-Encoding": "gzip"})
        assert headers.get("content-encoding") == "gzip", "scripts are compressed: %s" % headers
        common.step("static-from-nginx", ana)

        # 6. A third person follows a deployment under a path: Parlor with --base-path /chat, nginx with
        # deploy/nginx/parlor-locations-chat.conf. Sign-up, Parlor Bot's welcome and its answer arrive live.
        second = os.path.join(folder, "second")
        os.makedirs(os.path.join(second, "state"))
        as_service_user(second, os.path.join(second, "state"))
        second_port = free_port()
        prefixed_log = open(os.path.join(folder, "parlor-chat.log"), "wb")
        prefixed = subprocess.Popen(unit_arguments(os.path.join(second, "state"), second_port, ["--base-path", "/chat"]),
                                    cwd=working, stdout=prefixed_log, stderr=prefixed_log, env=environment, **service_user)
        wait_until_listening(prefixed, second_port, "parlor --base-path /chat")
        prefixed_nginx, _, prefixed_https = start_nginx(second, second_port, "parlor-locations-chat.conf")
        chloe = common.browser(extra=("--ignore-certificate-errors",))
        drivers.append(chloe)
        chat_base = "https://127.0.0.1:%d/chat" % prefixed_https
        common.sign_up(chloe, chat_base, "chloe", "Chloé Martin")
        common.wait_for(chloe, common.text_in(".chat-list", "Parlor Bot"), "Parlor Bot's chat arrives under /chat")
        bot = chloe.find_element(By.XPATH, "//li[contains(@class,'chat-list-item')][.//span[text()='Parlor Bot']]/a")
        assert bot.get_attribute("href").startswith(chat_base + "/rooms/"), bot.get_attribute("href")
        chloe.get(bot.get_attribute("href"))
        common.send(chloe, "help")
        common.wait_for(chloe, lambda d: len(d.find_elements(By.CSS_SELECTOR, "li.message:not(.is-own)")) >= 2,
                        "Parlor Bot answers over the stream under /chat")
        assert request(prefixed_https, "GET", "/chat/public/css/parlor.css")[0] == 200
        assert request(prefixed_https, "GET", "/chats")[0] == 404, "nothing outside the path"
        for cookie in chloe.get_cookies():
            assert cookie["path"] == "/chat", cookie
        common.step("path-prefixed-deployment", chloe)

        # 7. /metrics, in Prometheus's text format, to the address named and nobody else, never through the site.
        def metrics():
            status, headers, body = request(parlor_port, "GET", "/metrics", tls=False)
            assert status == 200 and headers["content-type"].startswith("text/plain; version=0.0.4"), (status, headers)
            values = {}
            for family in text_string_to_metric_families(body.decode()):
                for sample in family.samples:
                    values[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
            return values
        before = metrics()
        sent = before[("parlor_messages_sent_total", ())]
        assert sent >= 2, "the messages sent so far are counted: %s" % sent
        assert before[("parlor_event_streams_open", ())] >= 1, "Ana's and Ben's pages are open"
        assert before[("parlor_process_resident_memory_bytes", ())] > 10e6 and before[("parlor_process_open_fds", ())] > 5
        posts = ("parlor_http_requests_total", (("method", "POST"), ("route", "/rooms/{id}/messages"), ("status", "204")))
        assert before.get(posts, 0) >= 1, [key for key in before if key[0] == "parlor_http_requests_total"]
        assert any(name == "parlor_http_request_duration_seconds_bucket" for name, _ in before)
        ana.get(chat)
        common.send(ana, "Counted")
        common.wait_for(ben, common.text_in(".messages", "Counted"), "one more message")
        after = metrics()
        assert after[("parlor_messages_sent_total", ())] == sent + 1, (sent, after[("parlor_messages_sent_total", ())])
        assert after[posts] == before[posts] + 1
        sends = ("parlor_store_operation_duration_seconds_count", (("operation", "send"),))
        assert after[sends] == before[sends] + 1, "the store's send was timed once more"
        assert after[("parlor_fanout_events_total", ())] > before[("parlor_fanout_events_total", ())], "and its fan-out"
        assert before[("parlor_store_operation_duration_seconds_count", (("operation", "page_read"),))] >= 1
        assert request(parlor_port, "GET", "/metrics", tls=False, source="127.0.0.2")[0] == 404, "another address learns nothing"
        assert request(https_port, "GET", "/metrics")[0] == 404, "not through the site"
        common.step("metrics", ana)

        # Nothing was written outside the state folders (and, run as root, Parlor could not have: its user
        # owns only those and its /tmp).
        assert os.listdir(working) == [], "the working folder stays as it was: %s" % os.listdir(working)
        print("all steps passed", file=sys.stderr, flush=True)
    except BaseException:
        keep_failure_artifacts(drivers, folder, ("parlor.log", "error.log"))
        raise
    finally:
        stop_everything(drivers, (nginx, prefixed_nginx), (parlor, prefixed))
        log.close()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
