"""Notifications that reach a person when no Parlor page is in front of them, in headless Chromium.

Usage: python push.py PARLOR_BINARY REPOSITORY ARTIFACTS_FOLDER

Ben's browser asks for permission only when he clicks the bell; it then subscribes with Parlor's key and tells
Parlor. A push service cannot be reached from here (Chromium's is Google's), so the browser's PushManager is
replaced by one that makes the keys a browser would and names a push service this script runs on 127.0.0.1:
Parlor encrypts and signs each push for it exactly as for a real one, and this script decrypts it with the
subscription's private key (RFC 8291) and checks its VAPID token (RFC 8292). What it decrypted is delivered to
Parlor's service worker with DevTools' ServiceWorker.deliverPushMessage, which shows the notification; a click
on it (dispatched in the worker) takes Ben's open Parlor tab to the room. Nothing is pushed while a page of
Ben's is visible. A browser that blocks notifications gets the bell's explanation. The app badge counts unread
messages. A screenshot of every step is saved in ARTIFACTS_FOLDER.
"""

import base64
import http.server
import json
import os
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import two_people_chat as common  # noqa: E402 (reads the same three arguments)
import websocket  # noqa: E402 (selenium's own dependency)
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec, utils  # noqa: E402
from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # noqa: E402
from cryptography.hazmat.primitives.kdf.hkdf import HKDF  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

step, wait_for, text_in = common.step, common.wait_for, common.text_in


def b64decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class PushService:
    """A push service on 127.0.0.1: keeps every push (path, headers, body) and answers 201."""

    def __init__(self):
        received = self.received = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                length = min(int(self.headers.get("Content-Length", "0")), 65536)
                received.append((self.path, {k.lower(): v for k, v in self.headers.items()}, self.rfile.read(length)))
                self.send_response(201)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, count, what):
        deadline = time.time() + 15
        while len(self.received) < count and time.time() < deadline:
            time.sleep(0.05)
        assert len(self.received) >= count, "%s: %d pushes arrived" % (what, len(self.received))
        return self.received[count - 1]

    def stop(self):
        self.server.shutdown()


def decrypt(body, private_d, auth):
    """RFC 8291: what the browser holding `private_d` (base64url) and `auth` reads from an aes128gcm body."""
    salt, record_size, id_length = body[:16], int.from_bytes(body[16:20], "big"), body[20]
    sender = body[21:21 + id_length]
    assert record_size == 4096 and id_length == 65, (record_size, id_length)
    key = ec.derive_private_key(int.from_bytes(b64decode(private_d), "big"), ec.SECP256R1())
    receiver = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    shared = key.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sender))
    ikm = HKDF(hashes.SHA256(), 32, b64decode(auth), b"WebPush: info\x00" + receiver + sender).derive(shared)
    content_key = HKDF(hashes.SHA256(), 16, salt, b"Content-Encoding: aes128gcm\x00").derive(ikm)
    nonce = HKDF(hashes.SHA256(), 12, salt, b"Content-Encoding: nonce\x00").derive(ikm)
    plain = AESGCM(content_key).decrypt(nonce, body[21 + id_length:], None).rstrip(b"\x00")
    assert plain.endswith(b"\x02"), "one record, the last"
    return json.loads(plain[:-1])


def check_vapid(header, server_key, audience):
    """RFC 8292: ES256 over the token by Parlor's key, for the push service's origin, expiring within a day."""
    assert header.startswith("vapid "), header
    fields = dict(part.split("=", 1) for part in header[len("vapid "):].split(", "))
    assert fields["k"] == server_key, "signed with the key the browser subscribed with"
    head, claims, signature = fields["t"].split(".")
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64decode(fields["k"]))
    raw = b64decode(signature)
    der = utils.encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, (head + "." + claims).encode(), ec.ECDSA(hashes.SHA256()))
    claims = json.loads(b64decode(claims))
    assert claims["aud"] == audience, claims
    assert time.time() < claims["exp"] <= time.time() + 24 * 3600 + 5, claims
    assert json.loads(b64decode(head))["alg"] == "ES256"


# Seen by Ben's pages before their own script: permission requests are counted (never on page load); a tab can be
# hidden (headless tabs are always visible); the app badge is recorded; and PushManager makes a subscription as a
# browser would (its own P-256 key and secret) at this script's push service, keeping the private half for it.
HOOKS = """
window.__hidden = false;
Object.defineProperty(Document.prototype, "visibilityState", { configurable: true, get() { return window.__hidden ? "hidden" : "visible"; } });
window.__permissionRequests = 0;
if (window.Notification) {
  const ask = Notification.requestPermission.bind(Notification);
  Notification.requestPermission = (...rest) => { window.__permissionRequests += 1; return ask(...rest); };
}
window.__badge = null;
navigator.setAppBadge = (count) => { window.__badge = count; return Promise.resolve(); };
navigator.clearAppBadge = () => { window.__badge = 0; return Promise.resolve(); };
if (window.PushManager) {
  const b64 = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
  const unb64 = (text) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  function made() {
    const kept = JSON.parse(localStorage.getItem("test-push") || "null");
    if (!kept) return null;
    return {
      endpoint: kept.endpoint, options: { applicationServerKey: unb64(kept.serverKey).buffer },
      toJSON: () => ({ endpoint: kept.endpoint, expirationTime: null, keys: { p256dh: kept.p256dh, auth: kept.auth } }),
      unsubscribe: async () => { localStorage.removeItem("test-push"); return true; },
    };
  }
  PushManager.prototype.getSubscription = async function () { return made(); };
  PushManager.prototype.subscribe = async function (options) {
    const pair = await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"]);
    const jwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
    localStorage.setItem("test-push", JSON.stringify({
      endpoint: "http://127.0.0.1:PUSH_PORT/push/" + b64(crypto.getRandomValues(new Uint8Array(9))),
      p256dh: b64(await crypto.subtle.exportKey("raw", pair.publicKey)), auth: b64(crypto.getRandomValues(new Uint8Array(16))),
      d: jwk.d, serverKey: b64(options.applicationServerKey),
    }));
    return made();
  };
}
"""


class DevTools:
    """DevTools of one headless Chromium, spoken to directly (selenium's own command reaches the page only)."""

    def __init__(self, driver):
        self.address = driver.capabilities["goog:chromeOptions"]["debuggerAddress"]
        self.next_id = 0

    def targets(self):
        with urllib.request.urlopen("http://%s/json/list" % self.address, timeout=5) as answer:
            return json.loads(answer.read())

    def session(self, kind, url_part=""):
        target = next(t for t in self.targets() if t["type"] == kind and url_part in t.get("url", ""))
        return websocket.create_connection(target["webSocketDebuggerUrl"], timeout=10, suppress_origin=True)

    def call(self, socket, method, params=None, until=None):
        """Sends a command; answers its result, or with `until`, the first event of that name."""
        self.next_id += 1
        socket.send(json.dumps({"id": self.next_id, "method": method, "params": params or {}}))
        while True:
            message = json.loads(socket.recv())
            if until and message.get("method") == until:
                return message["params"]
            if not until and message.get("id") == self.next_id:
                assert "error" not in message, message
                return message.get("result")


def main():
    os.makedirs(common.ARTIFACTS, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="parlor-push-")
    service = PushService()
    parlor = common.Parlor(os.path.join(folder, "parlor.sqlite"), extra=("--push-allow-loopback", "--push-port", str(service.port)))
    base = "http://127.0.0.1:%d" % parlor.port
    ana = common.browser(1366, 850)
    ben = common.browser(1366, 850, hooks=HOOKS.replace("PUSH_PORT", str(service.port)))
    chloe = common.browser(1366, 850)
    drivers = [ana, ben, chloe]
    try:
        common.sign_up(ana, base, "ana", "Ana Lima")
        common.sign_up(ben, base, "ben", "Ben Okafor")
        chat = common.start_chat_by_typing(ana, base, "be", "Ben Okafor")
        chat_path = chat[len(base):]

        # 1. The bell asks for permission only when clicked; then this browser is subscribed and listed in Settings.
        ben.get(base + "/chats")
        bell = wait_for(ben, lambda d: d.find_element(By.CSS_SELECTOR, ".push-bell") if d.find_element(By.CSS_SELECTOR, ".push-bell").is_displayed() else None,
                        "the bell, where the browser can be notified")
        assert ben.execute_script("return window.__permissionRequests") == 0, "nothing asked on page load"
        assert bell.get_attribute("aria-label") == "Notifications" and bell.get_attribute("aria-pressed") == "false"
        ben.execute_cdp_cmd("Browser.grantPermissions", {"origin": base, "permissions": ["notifications"]})
        bell.click()
        wait_for(ben, text_in("#bell-note", "Notifications are on in this browser."), "the bell says notifications are on")
        assert ben.execute_script("return window.__permissionRequests") == 1, "asked once, on the click"
        wait_for(ben, lambda d: d.find_element(By.CSS_SELECTOR, ".push-bell").get_attribute("aria-pressed") == "true", "the bell shows it")
        step("bell-subscribed", ben)
        ben.get(base + "/settings#notifications")
        wait_for(ben, text_in(".push-browsers", "Chrome on Linux · added"), "Settings lists this browser")
        server_key = ben.find_element(By.CSS_SELECTOR, ".server-key").text
        kept = json.loads(ben.execute_script("return localStorage.getItem('test-push')"))
        assert kept["serverKey"] == server_key, "subscribed with the key Settings shows"
        wait_for(ben, lambda d: d.find_element(By.CSS_SELECTOR, ".push-toggle").text == "Turn off notifications in this browser", "the switch is on")
        step("settings-lists-browser", ben)

        # 2. While a page of Ben's is visible, nothing is pushed; hidden, a message is pushed, encrypted and signed.
        ben.get(base + "/chats")
        wait_for(ben, lambda d: d.find_elements(By.CSS_SELECTOR, ".chat-list"), "Ben's chats")
        time.sleep(0.5)
        ana.get(chat)
        common.send(ana, "Seen on the page")
        wait_for(ben, text_in(".chat-list", "Seen on the page"), "Ben's page shows it")
        time.sleep(1)
        assert len(service.received) == 0, "not pushed while Ben's page is visible"
        ben.execute_script("window.__hidden = true; document.dispatchEvent(new Event('visibilitychange'))")
        time.sleep(0.5)
        common.send(ana, "Lunch at *noon*? <b>now</b>")
        path, headers, body = service.wait(1, "a push while Ben's page is hidden")
        assert kept["endpoint"].endswith(path), (path, kept["endpoint"])
        assert headers["content-encoding"] == "aes128gcm" and headers["urgency"] == "high" and int(headers["ttl"]) > 0, headers
        check_vapid(headers["authorization"], server_key, "http://127.0.0.1:%d" % service.port)
        payload = decrypt(body, kept["d"], kept["auth"])
        assert payload["title"] == "Ana Lima" and payload["body"] == "Lunch at noon? <b>now</b>", payload
        assert payload["url"].startswith(chat_path + "?around="), payload
        # Ana's two and Parlor Bot's welcome.
        wait_for(ben, lambda d: d.title.startswith("(3) "), "the title counts Ben's unread messages")
        wait_for(ben, lambda d: d.execute_script("return window.__badge") == 3, "so does the app badge")
        step("pushed-while-hidden", ben)

        # 3. The service worker shows what was pushed; a click takes Ben's open Parlor tab to the room.
        tools = DevTools(ben)
        page = tools.session("page", "/chats")
        registration = tools.call(page, "ServiceWorker.enable", until="ServiceWorker.workerRegistrationUpdated")
        registration_id = next(r["registrationId"] for r in registration["registrations"] if r["scopeURL"] == base + "/")
        wait_for(ben, lambda d: d.execute_script("return !!navigator.serviceWorker.controller"), "the service worker runs this page")

        def notifications(driver):
            return driver.execute_async_script("""
                const done = arguments[arguments.length - 1];
                navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((all) => done(all.map((n) => ({ title: n.title, body: n.body, tag: n.tag }))));
            """) or None

        # Delivered again if a worker just started missed it (the tag keeps one notification either way).
        for _ in range(3):
            tools.call(page, "ServiceWorker.deliverPushMessage", {"origin": base, "registrationId": registration_id, "data": json.dumps(payload)})
            deadline = time.time() + 5
            while not notifications(ben) and time.time() < deadline:
                time.sleep(0.1)
            if notifications(ben):
                break
        shown = wait_for(ben, notifications, "the notification is shown")
        assert shown == [{"title": "Ana Lima", "body": "Lunch at noon? <b>now</b>", "tag": payload["tag"]}], shown
        step("notification-shown", ben)
        worker = tools.session("service_worker", "/sw.js")
        tools.call(worker, "Runtime.evaluate", {"expression": """
            self.registration.getNotifications().then((all) => self.dispatchEvent(new NotificationEvent("notificationclick", { notification: all[0] })))
        """, "awaitPromise": True})
        wait_for(ben, lambda d: d.current_url.startswith(base + payload["url"].split("#")[0]), "the click opens the room at the message")
        wait_for(ben, text_in(".messages", "Lunch at noon?"), "the room is shown")
        page.close()
        worker.close()
        step("notification-opens-room", ben)

        # 4. A test notification from Settings reaches this browser.
        ben.get(base + "/settings#notifications")
        ben.find_element(By.XPATH, "//button[normalize-space()='Send a test notification']").click()
        wait_for(ben, text_in("#notifications .form-saved", "A test notification is on its way to 1 browser."), "the test is sent")
        _, _, body = service.wait(2, "the test notification")
        assert decrypt(body, kept["d"], kept["auth"])["tag"] == "parlor-test"
        step("test-notification", ben)

        # 5. A browser that blocks notifications: the bell says how to allow them again, and asks nothing.
        common.sign_up(chloe, base, "chloe", "Chloé Martin")
        chloe.execute_cdp_cmd("Browser.setPermission", {"origin": base, "permission": {"name": "notifications"}, "setting": "denied"})
        chloe.get(base + "/chats")
        chloe_bell = wait_for(chloe, lambda d: d.find_element(By.CSS_SELECTOR, ".push-bell") if d.find_element(By.CSS_SELECTOR, ".push-bell").is_displayed() else None, "Chloé's bell")
        chloe_bell.click()
        wait_for(chloe, text_in("#bell-note", "Notifications are blocked for Parlor."), "the bell explains how to allow them")
        assert "Site settings" in chloe.find_element(By.ID, "bell-note").text
        step("bell-explains-blocked", chloe)
        print("all steps passed", file=sys.stderr, flush=True)
    finally:
        service.stop()
        common.shut_down(drivers, parlor, folder)


if __name__ == "__main__":
    main()
