// Parlor's one script: live updates, instant "Sending", connection state, inline reply, edit and delete,
// history in place, read receipts, notifications for hidden tabs, type-to-find.
// Every page works without it (forms POST, then 303); this only makes them live.
// No framework, no build step. The server renders every fragment; the script only places them.
"use strict";

(function () {
  const body = document.body;

  // ---------------------------------------------------------------- envelopes

  // An update is <parlor-stream action="..." target="..."><template>fragment</template></parlor-stream>.
  function applyEnvelopes(html) {
    const holder = document.createElement("template");
    holder.innerHTML = html;
    for (const envelope of holder.content.querySelectorAll("parlor-stream")) {
      const template = envelope.querySelector("template");
      apply(envelope.getAttribute("action"), envelope.getAttribute("target"), template ? template.content : null);
    }
  }

  // Elements of `fragment` that already exist on the page are replaced, never doubled:
  // an append of a cell that is already shown (a reconnect, a "Sending" cell) swaps it.
  function removeExisting(fragment, keep) {
    for (const element of fragment.querySelectorAll("[id]")) {
      const existing = document.getElementById(element.id);
      if (existing && existing !== keep && !existing.contains(keep)) existing.remove();
    }
  }

  // "Sending" and "Failed" cells the server has not acknowledged. The server knows nothing of them,
  // so a region it replaces (the whole conversation, after a reconnect) would drop them, and with
  // them the text and its Retry: they are put back at the end.
  function unsentCells(element) {
    return Array.from(element.querySelectorAll(".is-pending:not([data-acknowledged])"));
  }

  function restoreUnsent(cells) {
    for (const cell of cells) {
      if (document.getElementById(cell.id)) continue;
      const lists = document.querySelectorAll(".conversation .day-messages");
      if (lists.length) lists[lists.length - 1].append(cell);
    }
  }

  // The "New messages" line belongs to the opening of the page; the history the stream sends when it
  // (re)connects does not have it, so it stays above the message it was above.
  function keptUnreadLine(element, fragment) {
    const line = element.querySelector("#unread-marker");
    if (!line || fragment.querySelector("#unread-marker") || !line.nextElementSibling) return null;
    return { line: line, before: line.nextElementSibling.id };
  }

  function restoreUnreadLine(kept) {
    const cell = kept.before && document.getElementById(kept.before);
    if (cell && !document.getElementById("unread-marker")) cell.before(kept.line);
  }

  // A renamed contact: the page's title ("(2) Ben · Parlor") takes the new name, keeping its count and suffix.
  function retitle(headerID) {
    const heading = document.getElementById(headerID + "-title");
    const name = heading && heading.firstChild ? heading.firstChild.textContent.trim() : "";
    const parts = document.title.match(/^(\(\d+\+?\)\s*)?(.*?)(\s·\s[^·]+)$/);
    if (name && parts) document.title = (parts[1] || "") + name + parts[3];
  }

  // A renamed room or person: the composer's "Message …" says the new name (kept as it is while replying or
  // editing, and taken up again when that ends).
  function relabelComposer() {
    const form = document.querySelector("form.composer");
    if (!form || !form.hasAttribute("data-plain-label")) return;
    const label = "Message " + contactName(form);
    form.setAttribute("data-plain-label", label);
    const textarea = form.querySelector("textarea");
    if (!form.hasAttribute("data-editing") && !form.querySelector("input[name=replyTo]")) form.querySelector("label").textContent = label;
    if (textarea.placeholder) textarea.placeholder = label;
  }

  // A conversation opened at a message found, far from its newest: what it shows stays live, new messages are
  // counted below ("1 new message ↓" leads to the latest) instead of being appended after a gap.
  function showsWindow() {
    return /[?&]window=1(&|$)/.test(document.body.dataset.eventsUrl || "");
  }

  function latestURL() {
    const link = document.querySelector(".newest-messages a:last-child");
    return link ? link.href : null;
  }

  // Whether the conversation is scrolled to (nearly) its end: then new messages keep it there.
  function followsEnd() {
    const messages = document.querySelector(".conversation .messages");
    return !!messages && messages.scrollHeight - messages.scrollTop - messages.clientHeight < 120;
  }

  function apply(action, target, fragment) {
    let element = document.getElementById(target);
    // A message's first reaction: its cell has no list yet, so an empty one is put where the list goes.
    if (!element && action === "replace" && target.startsWith("reactions-")) element = placeReactions(target);
    const following = followsEnd();
    switch (action) {
      case "replace":
        if (!element || !fragment) return;
        const edited = element.matches("li.message:not(.is-own)") ? announcement(fragment) : null;
        const unsent = unsentCells(element);
        const unreadLine = keptUnreadLine(element, fragment);
        const focusedReaction = element.classList.contains("reactions") && element.contains(document.activeElement) ? document.activeElement.value : null;
        removeExisting(fragment, element);
        element.replaceWith(fragment);
        if (focusedReaction !== null) refocusReaction(target, focusedReaction);
        restoreUnsent(unsent);
        if (unreadLine) restoreUnreadLine(unreadLine);
        if (target.startsWith("conversation-header-")) {
          retitle(target);
          relabelComposer();
        }
        if (edited) announce("Edited. " + edited);
        if (following) scrollToEnd(null);
        break;
      case "append":
      case "prepend":
        if (!element || !fragment) return;
        if (showsWindow() && element.closest(".conversation .messages")) {
          const waiting = newCellCount(fragment);
          if (waiting) countNewBelow(waiting);
          break;
        }
        const announced = announcement(fragment);
        if (announced) notifyCell(fragment);
        const arriving = action === "append" ? newCellCount(fragment) : 0;
        removeExisting(fragment, element);
        if (action === "append") element.append(fragment); else element.prepend(fragment);
        if (announced) announce(announced);
        if (following) scrollToEnd(null); else if (arriving) countNewBelow(arriving);
        break;
      case "remove":
        if (element) element.remove();
        break;
      case "toast":
        notifyToast(fragment);
        showToast(fragment);
        break;
      case "badge":
        if (fragment) updateBadge(fragment.querySelector("parlor-badge"));
        break;
      case "presence":
        if (fragment) takePresence(fragment.querySelector("parlor-presence"));
        break;
      case "refresh":
        window.location.reload();
        return;
      case "leave":
        // The viewer is no longer in the room this page shows: back to the list (an address of this site only).
        window.location.assign(target.startsWith("/") && !target.startsWith("//") ? target : "/");
        return;
    }
    afterUpdate();
  }

  function updateBadge(badge) {
    if (!badge) return;
    const title = badge.getAttribute("data-title");
    if (title) {
      // Keep the page's own name after the count: "(3) Ben · Parlor".
      const own = document.title.replace(/^\(\d+\+?\)\s*/, "");
      const count = title.match(/^\(\d+\+?\)\s*/);
      document.title = (count ? count[0] : "") + own;
    }
    const favicon = document.getElementById("favicon");
    const url = badge.getAttribute("data-favicon");
    if (favicon && url) favicon.setAttribute("href", url);
    showBackCount();
    showAppBadge();
  }

  // On a phone inside a chat, the back link carries the unread count of the other chats ("‹ Chats 3"), the
  // count the page's title carries ("(3) Ben · Parlor").
  function showBackCount() {
    const count = (document.title.match(/^\((\d+\+?)\)/) || [])[1] || "";
    for (const link of document.querySelectorAll(".conversation-header .back")) {
      const badge = link.querySelector(".back-count");
      if (!badge) continue;
      badge.textContent = count;
      badge.setAttribute("aria-hidden", "true");
      if (count) link.setAttribute("aria-label", "Chats, " + count + " unread"); else link.removeAttribute("aria-label");
    }
  }

  // ---------------------------------------------------------------- new messages below

  // Messages that arrive while the person reads further up: "3 new messages ↓" over the end of the list; it
  // (or End) jumps to the newest, and reaching the end by scrolling clears it. The "New messages" line stays.
  let newBelow = 0;

  function newCellCount(fragment) {
    return Array.from(fragment.querySelectorAll ? fragment.querySelectorAll("li.message") : [])
      .filter((cell) => !cell.classList.contains("is-own") && !document.getElementById(cell.id)).length;
  }

  function newMessagesButton() {
    const messages = document.querySelector(".conversation .messages");
    if (!messages) return null;
    let holder = messages.nextElementSibling;
    if (!holder || !holder.classList.contains("new-messages")) {
      holder = document.createElement("div");
      holder.className = "new-messages";
      const button = document.createElement("button");
      button.type = "button";
      button.hidden = true;
      button.addEventListener("click", jumpToNewest);
      holder.append(button);
      messages.after(holder);
    }
    return holder.querySelector("button");
  }

  function countNewBelow(count) {
    newBelow += count;
    const button = newMessagesButton();
    if (!button) return;
    button.textContent = newBelow === 1 ? "1 new message ↓" : newBelow + " new messages ↓";
    button.hidden = false;
  }

  function clearNewBelow() {
    newBelow = 0;
    const holder = document.querySelector(".conversation .new-messages button");
    if (holder) holder.hidden = true;
  }

  function jumpToNewest() {
    if (showsWindow() && latestURL()) return window.location.assign(latestURL());
    const messages = document.querySelector(".conversation .messages");
    if (messages) messages.scrollTop = messages.scrollHeight;
    clearNewBelow();
  }

  document.addEventListener("scroll", (event) => {
    if (newBelow && event.target instanceof Element && event.target.matches(".conversation .messages") && followsEnd()) clearNewBelow();
  }, { capture: true, passive: true });

  // The day pinned at the top of the messages shows while they scroll; at rest it is for screen readers only,
  // so it covers no message (the style hides a day only while it is pinned, never where it starts its day).
  let scrollingTimer = null;
  document.addEventListener("scroll", (event) => {
    const messages = event.target;
    if (!(messages instanceof Element) || !messages.matches(".conversation .messages")) return;
    messages.classList.add("is-scrolling");
    clearTimeout(scrollingTimer);
    scrollingTimer = setTimeout(() => messages.classList.remove("is-scrolling"), 1200);
  }, { capture: true, passive: true });

  document.addEventListener("keydown", (event) => {
    // End jumps to the newest message, unless it moves a caret in a text field.
    if (event.key !== "End" || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    if (event.target.closest && event.target.closest("input, textarea, select, [contenteditable]")) return;
    if (!document.querySelector(".conversation .messages")) return;
    event.preventDefault();
    jumpToNewest();
    const cells = messageCells();
    if (event.target.matches && event.target.matches(".conversation .messages li.message") && cells.length) cells[cells.length - 1].focus();
  });

  // A toast stays 6 s, longer while it is pointed at or focused, and its button closes it at once.
  const TOAST_MILLISECONDS = 6000;

  function showToast(fragment) {
    const toasts = document.getElementById("toasts");
    if (!toasts || !fragment) return;
    const toast = fragment.firstElementChild;
    removeExisting(fragment, toasts);
    toasts.append(fragment);
    if (!toast) return;
    let timer = null;
    const later = () => { clearTimeout(timer); timer = setTimeout(() => toast.remove(), TOAST_MILLISECONDS); };
    const hold = () => clearTimeout(timer);
    toast.addEventListener("mouseenter", hold);
    toast.addEventListener("focusin", hold);
    toast.addEventListener("mouseleave", later);
    toast.addEventListener("focusout", later);
    const close = toast.querySelector(".toast-close");
    if (close) close.addEventListener("click", () => toast.remove());
    later();
  }

  // "Ana: Lunch at noon?" for a cell that arrives from someone else.
  function announcement(fragment) {
    const cell = fragment.querySelector("li.message:not(.is-own)");
    if (!cell) return null;
    const author = cell.querySelector(".message-author");
    const text = cell.querySelector(".message-body");
    return (author ? author.textContent + ": " : "") + (text ? text.textContent : "");
  }

  function announce(text) {
    const region = document.getElementById("live-announcer");
    if (region) region.textContent = text;
  }

  // ---------------------------------------------------------------- notifications

  // A system notification for a message that arrives while the tab is hidden, once the person turned
  // them on in Settings (a choice of this browser, kept in localStorage). Tabs ask each other first: if
  // one is showing that chat, the person is reading it and nothing pops up. The tag makes the browser
  // show one notification per message however many hidden tabs hear of it.
  const NOTIFY_KEY = "parlor-notifications";
  const channel = window.BroadcastChannel ? new BroadcastChannel("parlor") : null;
  let asked = 0;

  // Web Push (a service worker, subscribed with Parlor's key) tells of messages while no page is visible;
  // where the browser has none, hidden tabs show their own notifications as before.
  const PUSH_SYNC_KEY = "parlor-push-synced";
  const basePath = body.getAttribute("data-base-path") || "";

  function pushSupported() {
    return !!(window.Notification && navigator.serviceWorker && window.PushManager);
  }

  function notificationsOn() {
    return !!window.Notification && Notification.permission === "granted" && localStorage.getItem(NOTIFY_KEY) === "on" && !pushSupported();
  }

  let workerRegistration = null;
  async function serviceWorker() {
    if (!workerRegistration) workerRegistration = await navigator.serviceWorker.register(basePath + "/sw.js", { scope: basePath + "/" });
    await navigator.serviceWorker.ready;
    return workerRegistration;
  }

  function keyBytes(text) {
    const padded = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  }

  // Subscribes this browser with Parlor's key (again, when the key changed) and tells Parlor; throws with
  // Parlor's words when it refuses.
  async function pushSubscribe() {
    const answer = await fetch(basePath + "/push/key", { credentials: "same-origin" });
    if (!answer.ok) throw new Error("Parlor could not be reached.");
    const key = keyBytes((await answer.text()).trim());
    const registration = await serviceWorker();
    let subscription = await registration.pushManager.getSubscription();
    if (subscription) {
      const current = subscription.options && subscription.options.applicationServerKey;
      if (current && new Uint8Array(current).join() !== key.join()) {
        await subscription.unsubscribe();
        subscription = null;
      }
    }
    if (!subscription) subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
    const json = subscription.toJSON();
    const response = await fetch(basePath + "/push/subscriptions", {
      method: "POST", credentials: "same-origin",
      body: new URLSearchParams({ csrf: csrfToken(), endpoint: json.endpoint || "", p256dh: (json.keys || {}).p256dh || "", auth: (json.keys || {}).auth || "" }),
    });
    if (!response.ok) throw new Error((await response.text()) || "Parlor refused this browser's subscription.");
    localStorage.setItem(PUSH_SYNC_KEY, String(Date.now()));
  }

  async function pushUnsubscribe() {
    const registration = await serviceWorker();
    const subscription = await registration.pushManager.getSubscription();
    if (!subscription) return;
    await fetch(basePath + "/push/subscriptions/remove", {
      method: "POST", credentials: "same-origin", body: new URLSearchParams({ csrf: csrfToken(), endpoint: subscription.endpoint }),
    });
    await subscription.unsubscribe();
    localStorage.removeItem(PUSH_SYNC_KEY);
  }

  async function pushSubscribed() {
    if (!pushSupported() || Notification.permission !== "granted") return false;
    const registration = await navigator.serviceWorker.getRegistration(basePath + "/");
    return !!(registration && (await registration.pushManager.getSubscription()));
  }

  // Where to allow notifications again, in the browser in use.
  function deniedHelp() {
    const agent = navigator.userAgent;
    if (/Firefox\//.test(agent)) return "Notifications are blocked for Parlor. Click the icon left of the address, then clear “Blocked” next to “Send notifications”, and click the bell again.";
    if (/Safari\//.test(agent) && !/Chrome\//.test(agent)) return "Notifications are blocked for Parlor. In Safari’s Settings, open Websites, then Notifications, and allow this site; then click the bell again.";
    return "Notifications are blocked for Parlor. Click the icon left of the address, open Site settings, set Notifications to Allow, then reload and click the bell again.";
  }

  // The bell in the header: asks for permission only when clicked; explains how to allow notifications
  // again when the browser blocks them; leads to Settings once they are on.
  function enhanceBell(bell) {
    if (!pushSupported()) return;
    const note = document.createElement("p");
    note.className = "bell-note";
    note.id = "bell-note";
    note.setAttribute("role", "status");
    note.hidden = true;
    bell.after(note);
    bell.setAttribute("aria-describedby", "bell-note");
    async function show() {
      const on = await pushSubscribed();
      bell.setAttribute("aria-pressed", on ? "true" : "false");
      bell.title = on ? "Notifications are on" : Notification.permission === "denied" ? "Notifications are blocked" : "Turn on notifications";
    }
    function say(text) {
      note.textContent = text;
      note.hidden = !text;
    }
    bell.addEventListener("click", async () => {
      if (await pushSubscribed()) {
        window.location.href = basePath + "/settings#notifications";
        return;
      }
      if (Notification.permission === "denied") { say(deniedHelp()); return; }
      const permission = await Notification.requestPermission();
      if (permission !== "granted") { say(permission === "denied" ? deniedHelp() : ""); await show(); return; }
      try {
        await pushSubscribe();
        say("Notifications are on in this browser.");
      } catch (error) {
        say(error.message || "Notifications could not be turned on.");
      }
      await show();
    });
    // The note goes away with Escape or a click elsewhere.
    document.addEventListener("keydown", (event) => { if (event.key === "Escape") say(""); });
    document.addEventListener("click", (event) => { if (!bell.contains(event.target) && !note.contains(event.target)) say(""); });
    bell.hidden = false;
    show();
    // Told again once a day, so a subscription the browser renewed (or a key Parlor changed) is known.
    const synced = Number(localStorage.getItem(PUSH_SYNC_KEY) || 0);
    if (Notification.permission === "granted" && synced && Date.now() - synced > 24 * 60 * 60 * 1000) pushSubscribe().catch(() => {});
  }

  // The chat this page shows, from its conversation's id ("conversation-7").
  function openChat() {
    const conversation = document.querySelector(".conversation");
    return conversation ? conversation.id.replace("conversation-", "") : null;
  }

  function readingHere(chat) {
    return document.visibilityState === "visible" && openChat() === chat;
  }

  if (channel) {
    channel.onmessage = (event) => {
      const question = event.data || {};
      if (question.type === "reading?" && readingHere(question.chat)) channel.postMessage({ type: "reading", nonce: question.nonce });
    };
  }

  // Whether another tab is showing `chat`: it answers within a moment when it is.
  function readElsewhere(chat) {
    if (!channel) return Promise.resolve(false);
    const nonce = String(Date.now()) + "-" + (++asked);
    return new Promise((resolve) => {
      const listener = (event) => { if (event.data && event.data.type === "reading" && event.data.nonce === nonce) done(true); };
      const timer = setTimeout(() => done(false), 400);
      function done(answer) {
        clearTimeout(timer);
        channel.removeEventListener("message", listener);
        resolve(answer);
      }
      channel.addEventListener("message", listener);
      channel.postMessage({ type: "reading?", chat: chat, nonce: nonce });
    });
  }

  async function notify(id, chat, title, text, url) {
    if (!notificationsOn() || document.visibilityState !== "hidden" || !chat) return;
    if (await readElsewhere(chat)) return;
    const shown = new Notification(title, { body: text, tag: "parlor-message-" + id, icon: (document.getElementById("favicon") || {}).href });
    shown.onclick = () => { window.focus(); window.location.href = url; shown.close(); };
  }

  function notifyToast(fragment) {
    const toast = fragment && fragment.querySelector(".toast");
    const link = toast && toast.querySelector("a");
    if (!link) return;
    const title = toast.querySelector(".toast-text strong");
    const preview = toast.querySelector(".toast-text span");
    const chat = (link.getAttribute("href").match(/\/rooms\/(\d+)/) || [])[1];
    notify(toast.id.replace("toast-", ""), chat, title ? title.textContent : "Parlor", preview ? preview.textContent : "", link.href);
  }

  function notifyCell(fragment) {
    const cell = fragment.querySelector("li.message:not(.is-own)");
    if (!cell) return;
    const author = cell.querySelector(".message-author");
    const text = cell.querySelector(".message-body");
    notify(cell.id.replace("message-", ""), openChat(), author ? author.textContent : "Parlor", text ? text.textContent : "", window.location.href);
  }

  // Settings: the switch for this browser, shown only where the browser can notify.
  function enhanceNotificationSetting(section) {
    if (!window.Notification) return;
    const button = section.querySelector(".push-toggle");
    const state = section.querySelector(".notifications-state");
    if (!button || !state) return;
    async function show() {
      const on = pushSupported() ? await pushSubscribed() : notificationsOn();
      button.textContent = on ? "Turn off notifications in this browser" : "Turn on notifications in this browser";
      button.setAttribute("aria-pressed", on ? "true" : "false");
      if (Notification.permission === "denied") {
        state.textContent = pushSupported() ? deniedHelp() : "This browser blocks notifications from Parlor; allow them in its site settings.";
        button.disabled = true;
      } else if (!pushSupported()) {
        state.textContent = on
          ? "On: a message that arrives while Parlor is in a hidden tab shows a notification."
          : "Off: messages show only in Parlor's own tab.";
      }
    }
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        if (pushSupported()) {
          if (await pushSubscribed()) await pushUnsubscribe();
          else if ((await Notification.requestPermission()) === "granted") await pushSubscribe();
          window.location.reload();
          return;
        }
        if (notificationsOn()) localStorage.setItem(NOTIFY_KEY, "off");
        else if ((await Notification.requestPermission()) === "granted") localStorage.setItem(NOTIFY_KEY, "on");
      } catch (error) {
        state.textContent = error.message || "Notifications could not be changed.";
      }
      button.disabled = false;
      show();
    });
    button.hidden = false;
    show();
  }

  // ---------------------------------------------------------------- visibility and the app badge

  // Each page names itself to Parlor (with its stream) and says when it is in front or not: a person with a
  // page in front is not sent push notifications.
  const pageKey = (window.crypto && crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2)).replace(/[^A-Za-z0-9_-]/g, "");

  // `leaving`: the page is going away (its stream may look open to Parlor for a while yet); nothing it says
  // after that counts, until the browser shows it again from its back/forward cache.
  let pageLeft = false;
  window.addEventListener("pageshow", () => { pageLeft = false; });

  function reportVisibility(leaving) {
    if (!body.getAttribute("data-events-url") || pageLeft) return;
    if (leaving === true) pageLeft = true;
    const visible = !pageLeft && document.visibilityState === "visible";
    fetch(basePath + "/presence", {
      method: "POST", credentials: "same-origin", keepalive: true,
      body: new URLSearchParams({ csrf: csrfToken(), page: pageKey, visible: visible ? "1" : "0", idle: pageIdle ? "1" : "0", left: pageLeft ? "1" : "0" }),
    }).catch(() => {});
  }

  // The unread count on the installed app's icon, as the title counts it ("(3) Ben · Parlor").
  function showAppBadge() {
    if (!navigator.setAppBadge) return;
    const count = parseInt((document.title.match(/^\((\d+)\+?\)/) || [])[1] || "0", 10);
    (count > 0 ? navigator.setAppBadge(count) : navigator.clearAppBadge()).catch(() => {});
  }

  // ---------------------------------------------------------------- connection state

  // One calm line in a fixed place: "Reconnecting…", "Offline: …", then "Back online" for a moment.
  let wasDown = false;
  let statusTimer = null;

  function showStatus(text, kind) {
    const status = document.getElementById("connection-status");
    if (!status) return;
    status.textContent = text;
    status.setAttribute("data-state", kind);
  }

  function connectionDown() {
    wasDown = true;
    clearTimeout(statusTimer);
    body.setAttribute("data-offline", "");
    if (navigator.onLine === false) showStatus("Offline: messages will be sent when you are back", "offline");
    else showStatus("Reconnecting…", "reconnecting");
  }

  function connectionUp() {
    body.removeAttribute("data-offline");
    clearTimeout(statusTimer);
    if (!wasDown) return;
    wasDown = false;
    showStatus("Back online", "online");
    statusTimer = setTimeout(() => showStatus("", "online"), 3000);
    sendWaiting();
  }

  // ---------------------------------------------------------------- the stream

  // Open only while the page is shown: a page kept in the back/forward cache would otherwise hold one of
  // the browser's six connections to Parlor, and after a few chats the next page would wait for a free one.
  let source = null;

  function connect() {
    const url = body.getAttribute("data-events-url");
    if (source || !url || !window.EventSource) return;
    // EventSource reconnects by itself and sends Last-Event-ID; the server answers with the whole state.
    const watched = watchedPeople();
    const opened = new EventSource(url + (url.includes("?") ? "&" : "?") + "page=" + pageKey + "&visible=" + (document.visibilityState === "visible" ? "1" : "0")
      + (pageIdle ? "&idle=1" : "") + (watched.length ? "&watch=" + watched.join(",") : ""));
    source = opened;
    opened.onmessage = (event) => applyEnvelopes(event.data);
    opened.onopen = connectionUp;
    opened.onerror = () => {
      if (opened !== source) return;
      if (opened.readyState === EventSource.CLOSED) {
        // Refused (signed out, not a member): a fresh page shows why.
        setTimeout(() => window.location.reload(), 2000);
      } else {
        connectionDown();
      }
    };
  }

  function disconnect() {
    if (!source) return;
    source.close();
    source = null;
  }

  window.addEventListener("pagehide", disconnect);
  // Back from the back/forward cache: a new stream brings the whole state again.
  window.addEventListener("pageshow", (event) => { if (event.persisted) connect(); });
  window.addEventListener("offline", connectionDown);
  // Back on the network: reconnect now rather than at the browser's next retry.
  window.addEventListener("online", () => { if (source) { disconnect(); connect(); } });

  // ---------------------------------------------------------------- sending

  function csrfToken() {
    const field = document.querySelector("input[name=csrf]");
    return field ? field.value : "";
  }

  function newToken() {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function post(url, fields, signal) {
    return fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Parlor-Script": "1" },
      body: new URLSearchParams(fields),
      credentials: "same-origin",
      redirect: "manual",
      signal: signal,
    });
  }

  function accepted(response) {
    return response.ok || response.type === "opaqueredirect";
  }

  // Why the server refused, in its own short words.
  async function refusal(response, fallback) {
    const plain = (response.headers.get("Content-Type") || "").startsWith("text/plain");
    return (plain && (await response.text()).trim()) || fallback + " (" + response.status + ").";
  }

  // The last list of the conversation, where a new cell goes.
  function lastDayList(form) {
    const conversation = form.closest(".conversation");
    const lists = conversation ? conversation.querySelectorAll(".day-messages") : [];
    return lists.length ? lists[lists.length - 1] : null;
  }

  // A "Sending" cell at once, in the same markup the server sends (it replaces this one).
  function showPending(form, text, token, replyTo) {
    const list = lastDayList(form);
    if (!list) return null;
    const cell = document.createElement("li");
    const last = list.lastElementChild;
    // Under the person's own previous message it joins that group, as the server's cell will.
    const grouped = last && last.classList.contains("is-own") && Date.now() - Date.parse((last.querySelector("time") || {}).dateTime || 0) < 5 * 60 * 1000;
    cell.className = "message is-own is-pending" + (grouped ? " continues-group" : "");
    cell.id = "pending-" + token;
    if (replyTo) cell.setAttribute("data-reply-to", replyTo);
    const content = document.createElement("div");
    content.className = "message-content";
    const body = document.createElement("div");
    body.className = "message-body";
    body.dir = "auto";
    const paragraph = document.createElement("p");
    paragraph.textContent = text;
    body.append(paragraph);
    const delivery = document.createElement("p");
    delivery.className = "delivery delivery-sending";
    delivery.textContent = "Sending";
    content.append(body, delivery);
    cell.append(content);
    list.append(cell);
    scrollToEnd(form);
    return cell;
  }

  // The text of a cell as it was typed: formatted text shows without its markers, so the server's cell keeps
  // the typed text beside it when they differ.
  function typedText(cell) {
    const body = cell.querySelector(".message-body");
    if (!body) return "";
    return body.hasAttribute("data-text") ? body.getAttribute("data-text") : body.textContent;
  }

  function setDelivery(cell, state, text) {
    const delivery = cell && cell.querySelector(".delivery");
    if (!delivery) return null;
    delivery.className = "delivery " + state;
    delivery.textContent = text;
    return delivery;
  }

  function markFailed(cell, reason, retry) {
    const delivery = setDelivery(cell, "delivery-failed", "Failed: " + reason + " ");
    if (!delivery) return;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "retry";
    button.textContent = "Retry";
    button.addEventListener("click", retry);
    delivery.append(button);
  }

  function showComposerError(form, message) {
    let error = form.querySelector(".field-error");
    const textarea = form.querySelector("textarea");
    if (!message) {
      if (error) error.remove();
      if (textarea) textarea.removeAttribute("aria-invalid");
      return;
    }
    if (!error) {
      error = document.createElement("p");
      error.className = "field-error";
      error.id = form.id + "-error";
      error.setAttribute("role", "alert");
      textarea.after(error);
    }
    error.textContent = message;
    textarea.setAttribute("aria-invalid", "true");
    textarea.setAttribute("aria-describedby", error.id);
    textarea.focus();
  }

  // A send with no answer after 3 s says it is waiting; after 15 s it has failed, with Retry. A retry
  // carries the same token, so the server stores the message once however many attempts reach it.
  const WAITING_AFTER = 3000;
  const FAILED_AFTER = 15000;

  function send(form, text, token, replyTo) {
    const cell = document.getElementById("pending-" + token) || showPending(form, text, token, replyTo);
    const retry = () => {
      if (cell) cell.removeAttribute("data-waiting");
      setDelivery(cell, "delivery-sending", "Sending");
      send(form, text, token, replyTo);
    };
    if (navigator.onLine === false) {
      // Kept until the page is back online (connectionUp sends it).
      if (cell) cell.setAttribute("data-waiting", "");
      setDelivery(cell, "delivery-waiting", "Waiting: sent when you are back online");
      return;
    }
    const fields = { csrf: csrfToken(), body: text, token: token };
    if (replyTo) fields.replyTo = replyTo;
    const controller = new AbortController();
    const waiting = setTimeout(() => setDelivery(cell, "delivery-waiting", "Waiting for Parlor…"), WAITING_AFTER);
    const givingUp = setTimeout(() => controller.abort(), FAILED_AFTER);
    const settled = () => { clearTimeout(waiting); clearTimeout(givingUp); };
    post(messagesURL(form), fields, controller.signal).then(async (response) => {
      settled();
      if (accepted(response)) {
        // Stored: the server's own cell replaces this one, live or with the next whole state; sent from messages
        // found far back, the person goes where it is, the latest.
        if (cell) cell.setAttribute("data-acknowledged", "");
        setDelivery(cell, "delivery-sending", "Sent");
        if (showsWindow() && latestURL()) window.location.assign(latestURL());
        return;
      }
      const reason = await refusal(response, "Not sent");
      if (response.status === 422) {
        // The text was refused: give it back to fix, with the reason where it was typed.
        if (cell) cell.remove();
        const textarea = form.querySelector("textarea");
        if (textarea && !textarea.value) textarea.value = text;
        showComposerError(form, reason);
      } else {
        markFailed(cell, reason, retry);
      }
    }).catch(() => {
      settled();
      // No answer: sent again by itself once the page is back online, or at once with Retry.
      if (cell) cell.setAttribute("data-waiting", "");
      markFailed(cell, controller.signal.aborted ? "No answer from Parlor." : "No connection.", retry);
    });
  }

  // Sends every message that waits for the connection, each with its own token.
  function sendWaiting() {
    const form = document.querySelector("form.composer");
    if (!form) return;
    for (const cell of document.querySelectorAll(".is-pending[data-waiting]:not([data-acknowledged])")) {
      cell.removeAttribute("data-waiting");
      setDelivery(cell, "delivery-sending", "Sending");
      send(form, typedText(cell), cell.id.slice("pending-".length), cell.getAttribute("data-reply-to"));
    }
  }

  // ---------------------------------------------------------------- photos

  // The photo waits in the form's own file field (picked, pasted or dropped), shown small under the text.
  // Send uploads it with the text; the own cell shows it with the upload's progress until the server's
  // cells take over: "Processing photo…", then the photo, pushed when it is ready.
  function photoField(form) {
    return form.querySelector("input[name=photo]");
  }

  function chosenPhoto(form) {
    const field = photoField(form);
    return field && field.files && field.files.length ? field.files[0] : null;
  }

  function choosePhoto(form, file) {
    const field = photoField(form);
    if (!field || !file || !/^image\//.test(file.type)) return false;
    const transfer = new DataTransfer();
    transfer.items.add(file);
    field.files = transfer.files;
    showChosenPhoto(form);
    return true;
  }

  function clearPhoto(form) {
    const field = photoField(form);
    if (field) field.value = "";
    showChosenPhoto(form);
  }

  // The chosen photo drawn small on a canvas: no URL is made for it, so Parlor's Content-Security-Policy (images
  // from Parlor itself only) stays as it is, and a large photo costs a thumbnail's memory. `label`: what a screen
  // reader says of it (none: the file's name beside it says it).
  function drawnPhoto(file, maxSide, label) {
    const canvas = document.createElement("canvas");
    canvas.width = 1;
    canvas.height = 1;
    if (label) {
      canvas.setAttribute("role", "img");
      canvas.setAttribute("aria-label", label);
    } else {
      canvas.setAttribute("aria-hidden", "true");
    }
    if (window.createImageBitmap) {
      createImageBitmap(file).then((bitmap) => {
        const scale = Math.min(1, maxSide / Math.max(bitmap.width, bitmap.height));
        canvas.width = Math.max(1, Math.round(bitmap.width * scale));
        canvas.height = Math.max(1, Math.round(bitmap.height * scale));
        canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
        canvas.setAttribute("data-drawn", "");
        bitmap.close();
      }).catch(() => {});
    }
    return canvas;
  }

  function showChosenPhoto(form) {
    const old = form.querySelector(".composer-photo-preview");
    if (old) old.remove();
    const file = chosenPhoto(form);
    if (!file) return;
    const preview = document.createElement("div");
    preview.className = "composer-photo-preview";
    const picture = drawnPhoto(file, 160, null);
    const name = document.createElement("span");
    name.textContent = file.name;
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "Remove photo";
    remove.addEventListener("click", () => {
      clearPhoto(form);
      form.querySelector("textarea").focus();
    });
    preview.append(picture, name, remove);
    form.querySelector(".composer-actions").before(preview);
  }

  function enhancePhotoField(form) {
    const field = photoField(form);
    if (!field) return;
    field.addEventListener("change", () => showChosenPhoto(form));
    // A picture pasted into the text box, or dropped on the composer, becomes the photo to send.
    form.querySelector("textarea").addEventListener("paste", (event) => {
      const files = event.clipboardData ? Array.from(event.clipboardData.files) : [];
      const picture = files.find((file) => /^image\//.test(file.type));
      if (picture && choosePhoto(form, picture)) event.preventDefault();
    });
    form.addEventListener("dragover", (event) => {
      if (event.dataTransfer && Array.from(event.dataTransfer.types).includes("Files")) {
        event.preventDefault();
        form.setAttribute("data-dropping", "");
      }
    });
    form.addEventListener("dragleave", () => form.removeAttribute("data-dropping"));
    form.addEventListener("drop", (event) => {
      form.removeAttribute("data-dropping");
      const file = event.dataTransfer && event.dataTransfer.files[0];
      if (!file) return;
      event.preventDefault();
      if (!choosePhoto(form, file)) showComposerError(form, "That file is not a photo. Choose a JPEG, PNG, WebP or GIF image.");
    });
  }

  // Uploads with XMLHttpRequest, the one way to see an upload's progress. A refusal (not a photo, too
  // large) gives the text and the photo back to the composer with the reason; anything else is Failed,
  // with Retry (the same token: never two messages).
  function sendPhoto(form, text, token, replyTo, file) {
    const cell = document.getElementById("pending-" + token) || showPending(form, text, token, replyTo);
    const retry = () => {
      if (cell) cell.remove();
      sendPhoto(form, text, token, replyTo, file);
    };
    let progress = null;
    if (cell) {
      const figure = document.createElement("figure");
      figure.className = "message-photo";
      const picture = drawnPhoto(file, 640, "Your photo");
      progress = document.createElement("progress");
      progress.max = 100;
      progress.value = 0;
      progress.setAttribute("aria-label", "Uploading photo");
      figure.append(picture, progress);
      cell.querySelector(".message-body").before(figure);
      setDelivery(cell, "delivery-sending", "Uploading…");
    }
    const data = new FormData();
    data.append("csrf", csrfToken());
    data.append("body", text);
    data.append("token", token);
    if (replyTo) data.append("replyTo", replyTo);
    data.append("photo", file, file.name || "photo");
    const request = new XMLHttpRequest();
    request.open("POST", messagesURL(form));
    request.setRequestHeader("X-Parlor-Script", "1");
    // The server checks an upload's head before it stores a byte of the photo: the token must be there too.
    request.setRequestHeader("X-Parlor-CSRF", csrfToken());
    request.upload.addEventListener("progress", (event) => {
      if (!event.lengthComputable || !progress) return;
      const percent = Math.round((event.loaded * 100) / event.total);
      progress.value = percent;
      setDelivery(cell, "delivery-sending", "Uploading " + percent + "%");
    });
    request.addEventListener("load", () => {
      if (request.status >= 200 && request.status < 300) {
        if (progress) progress.remove();
        if (cell) cell.setAttribute("data-acknowledged", "");
        setDelivery(cell, "delivery-sending", "Sent");
        return;
      }
      const plain = (request.getResponseHeader("Content-Type") || "").startsWith("text/plain");
      const reason = (plain && request.responseText.trim()) || "Not sent (" + request.status + ").";
      if (request.status === 422 || request.status === 413) {
        if (cell) cell.remove();
        const textarea = form.querySelector("textarea");
        if (textarea && !textarea.value) textarea.value = text;
        choosePhoto(form, file);
        showComposerError(form, reason);
      } else {
        markFailed(cell, reason, retry);
      }
    });
    request.addEventListener("error", () => markFailed(cell, "No connection.", retry));
    request.send(data);
  }

  // ---------------------------------------------------------------- the image view

  // A photo opens in a dialog over the conversation (the same image view a page shows without the
  // script); Back, Escape or a click outside closes it, and the focus goes back to the photo. Left and Right
  // (or its Previous and Next) step through the chat's photos in the same dialog.
  async function imageDetail(url) {
    const response = await fetch(url, { credentials: "same-origin" });
    if (!response.ok) throw new Error("status " + response.status);
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const detail = page.querySelector(".image-detail");
    if (!detail) throw new Error("no image");
    return document.adoptNode(detail);
  }

  function showInDialog(dialog, detail) {
    const old = dialog.querySelector(".image-detail");
    if (old) old.replaceWith(detail); else dialog.append(detail);
    const title = detail.querySelector(".image-title");
    dialog.setAttribute("aria-label", title ? title.textContent : "Photo");
    const back = detail.querySelector("a.back");
    if (back) {
      back.textContent = "Close";
      back.addEventListener("click", (click) => { click.preventDefault(); dialog.close(); });
    }
    for (const step of detail.querySelectorAll(".image-steps a")) {
      step.addEventListener("click", (click) => {
        click.preventDefault();
        stepImage(dialog, step.href, step.classList.contains("image-previous") ? ".image-previous" : ".image-next");
      });
    }
  }

  async function stepImage(dialog, url, selector) {
    try {
      showInDialog(dialog, await imageDetail(url));
      // The focused link went with the old photo: the focus stays in the dialog, on the same step when there is one.
      const target = dialog.querySelector(selector) || dialog.querySelector("a.back");
      if (target && !dialog.contains(document.activeElement)) target.focus();
    } catch (error) {
      window.location.href = url;
    }
  }

  document.addEventListener("click", async (event) => {
    const link = event.target.closest("a.photo-link");
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    try {
      const detail = await imageDetail(link.href);
      const dialog = document.createElement("dialog");
      dialog.className = "image-dialog";
      showInDialog(dialog, detail);
      dialog.addEventListener("click", (click) => { if (click.target === dialog) dialog.close(); });
      dialog.addEventListener("close", () => { dialog.remove(); link.focus(); });
      (document.querySelector("main") || document.body).append(dialog);
      dialog.showModal();
    } catch (error) {
      window.location.href = link.href;
    }
  });

  // Left and Right step through the chat's photos: in the dialog (wherever the focus is while the next one
  // loads), or on the image page opened in a tab of its own.
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const selector = event.key === "ArrowLeft" ? ".image-previous" : event.key === "ArrowRight" ? ".image-next" : null;
    if (!selector) return;
    const dialog = document.querySelector("dialog.image-dialog[open]");
    if (dialog) {
      const step = dialog.querySelector(selector);
      if (!step) return;
      event.preventDefault();
      stepImage(dialog, step.href, selector);
    } else if (!document.querySelector("dialog[open]") && document.querySelector("main > .image-detail")) {
      const step = document.querySelector(selector);
      if (step) window.location.assign(step.href);
    }
  });

  // ---------------------------------------------------------------- the composer's modes

  // Where new messages are posted: the composer's own action, or in edit mode the conversation's, without
  // the query (it carries the session's token for browsers without this script, which sends the token in a
  // field or in X-Parlor-CSRF instead).
  function messagesURL(form) {
    return (form.getAttribute("data-messages-url") || form.action).split("?")[0];
  }

  // The composer as the page was given it, to come back to after a reply or an edit.
  function rememberPlainMode(form) {
    const label = form.querySelector("label");
    const button = form.querySelector("button[type=submit]");
    const editing = /\/messages\/\d+$/.test(form.getAttribute("action"));
    form.setAttribute("data-messages-url", form.getAttribute("action").replace(/\/messages\/\d+$/, "/messages"));
    form.setAttribute("data-plain-label", editing || form.querySelector("input[name=replyTo]")
      ? "Message " + contactName(form) : label.textContent);
    form.setAttribute("data-plain-submit", editing ? "Send" : button.textContent);
  }

  function contactName(form) {
    const conversation = form.closest(".conversation");
    const title = conversation && conversation.querySelector(".conversation-header h1, .conversation-header h2");
    if (!title) return "";
    const handle = title.querySelector(".handle");
    return title.textContent.replace(handle ? handle.textContent : "", "").trim();
  }

  // Leaves reply or edit mode: the plain composer, empty when it held the edited text.
  function plainMode(form) {
    const textarea = form.querySelector("textarea");
    if (form.hasAttribute("data-editing")) textarea.value = "";
    form.removeAttribute("data-editing");
    form.setAttribute("action", messagesURL(form));
    for (const part of form.querySelectorAll(".composer-reply, input[name=replyTo], .composer-cancel, .composer-actions > a")) {
      part.remove();
    }
    form.querySelector("label").textContent = form.getAttribute("data-plain-label");
    form.querySelector("button[type=submit]").textContent = form.getAttribute("data-plain-submit");
    showComposerError(form, null);
    // The address no longer names a reply or an edit.
    if (/[?&](reply|edit)=/.test(window.location.search)) {
      history.replaceState(null, "", window.location.pathname);
    }
  }

  function addCancel(form) {
    if (form.querySelector(".composer-cancel, .composer-actions > a")) return;
    const cancel = document.createElement("button");
    cancel.type = "button";
    cancel.className = "composer-cancel";
    cancel.textContent = "Cancel";
    cancel.addEventListener("click", () => { plainMode(form); form.querySelector("textarea").focus(); });
    form.querySelector(".composer-actions").prepend(cancel);
  }

  // The author and a short excerpt of a cell, as the reply line shows them.
  function quoteOf(cell) {
    const author = cell.querySelector(".message-author");
    const body = cell.querySelector(".message-body");
    const text = body ? body.textContent.replace(/\s+/g, " ").trim() : "";
    return {
      author: cell.classList.contains("is-own") ? "yourself" : (author ? author.textContent.split(" · ")[0] : ""),
      excerpt: text.length > 80 ? text.slice(0, 79) + "…" : text,
    };
  }

  function replyMode(form, cell) {
    plainMode(form);
    const quote = quoteOf(cell);
    const line = document.createElement("p");
    line.className = "composer-reply";
    const author = document.createElement("span");
    author.className = "reply-quote-author";
    author.textContent = quote.author;
    const excerpt = document.createElement("span");
    excerpt.className = "reply-quote-excerpt";
    excerpt.textContent = quote.excerpt;
    line.append("Replying to ", author, ": ", excerpt);
    const field = document.createElement("input");
    field.type = "hidden";
    field.name = "replyTo";
    field.value = cell.id.replace("message-", "");
    form.prepend(line, field);
    addCancel(form);
    form.querySelector("textarea").focus();
  }

  function editMode(form, cell) {
    plainMode(form);
    const id = cell.id.replace("message-", "");
    form.setAttribute("data-editing", "");
    form.setAttribute("action", messagesURL(form) + "/" + id);
    form.querySelector("label").textContent = "Edit your message";
    form.querySelector("button[type=submit]").textContent = "Save";
    const textarea = form.querySelector("textarea");
    textarea.value = typedText(cell);
    addCancel(form);
    textarea.focus();
    textarea.setSelectionRange(textarea.value.length, textarea.value.length);
  }

  // Saves an edit; the new text reaches every page of the chat on its stream.
  function saveEdit(form, text) {
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    const controller = new AbortController();
    const givingUp = setTimeout(() => controller.abort(), FAILED_AFTER);
    post(form.action, { csrf: csrfToken(), body: text }, controller.signal).then(async (response) => {
      if (accepted(response)) {
        plainMode(form);
        form.querySelector("textarea").focus();
      } else {
        showComposerError(form, await refusal(response, "Not saved"));
      }
    }).catch(() => {
      showComposerError(form, controller.signal.aborted ? "Not saved: no answer from Parlor. Try again." : "Not saved: no connection. Try again.");
    }).finally(() => { clearTimeout(givingUp); button.disabled = false; });
  }

  // Asked first; the cell turns into "Message deleted" when the stream says so, here and everywhere.
  function deleteMessage(form, cell) {
    if (!window.confirm("Delete this message for everyone? The text cannot be brought back.")) return;
    const url = messagesURL(form) + "/" + cell.id.slice("message-".length) + "/delete";
    post(url, { csrf: csrfToken() }).then(async (response) => {
      if (!accepted(response)) window.alert(await refusal(response, "Not deleted"));
    }).catch(() => window.alert("Not deleted: no connection. Try again."));
    form.querySelector("textarea").focus();
  }

  // ---------------------------------------------------------------- mentions

  // Typing "@" and the start of a name offers the room's members over the text box: Up and Down move through
  // them, Enter or Tab puts "@handle " in the text, Escape closes the list. The text box stays a text box (a
  // combo box is one line); it names the list only while the list exists, and the option chosen. Without the
  // script, "@handle" typed by hand names the person just the same.
  function enhanceMentions(textarea) {
    const url = textarea.getAttribute("data-mentions-url");
    if (!url) return;
    textarea.setAttribute("aria-autocomplete", "list");
    let timer = null, latest = 0, active = -1;
    const list = () => document.getElementById("mention-suggestions");
    const options = () => Array.from((list() || document.createElement("ul")).querySelectorAll("[role=option]"));
    function typed() {
      const before = textarea.value.slice(0, textarea.selectionStart);
      const found = before.match(/(^|[\s(\["'])@([A-Za-z0-9_]{0,20})$/);
      return found ? { prefix: found[2], start: before.length - found[2].length - 1 } : null;
    }
    function close() {
      const open = list();
      if (open) open.remove();
      active = -1;
      textarea.removeAttribute("aria-controls");
      textarea.removeAttribute("aria-activedescendant");
    }
    function highlight(index) {
      const all = options();
      if (!all.length) return;
      active = (index + all.length) % all.length;
      all.forEach((option, at) => option.setAttribute("aria-selected", at === active ? "true" : "false"));
      textarea.setAttribute("aria-activedescendant", all[active].id);
    }
    function pick(option) {
      const at = typed();
      if (!at || !option) return close();
      const handle = option.getAttribute("data-handle");
      const after = textarea.value.slice(textarea.selectionStart);
      textarea.value = textarea.value.slice(0, at.start) + "@" + handle + " " + after;
      const caret = at.start + handle.length + 2;
      textarea.setSelectionRange(caret, caret);
      close();
      textarea.focus();
    }
    textarea.addEventListener("input", () => {
      clearTimeout(timer);
      const at = typed();
      if (!at) return close();
      timer = setTimeout(async () => {
        const asked = ++latest;
        const response = await fetch(url + "?q=" + encodeURIComponent(at.prefix), { credentials: "same-origin" });
        if (!response.ok || asked !== latest || !typed()) return;
        const holder = document.createElement("template");
        holder.innerHTML = await response.text();
        close();
        const fresh = holder.content.querySelector("#mention-suggestions");
        if (!fresh || !fresh.querySelector("[role=option]")) return;
        textarea.after(fresh);
        textarea.setAttribute("aria-controls", fresh.id);
        highlight(0);
      }, 120);
    });
    // Registered before the composer's own keys: with the list open, Enter and Tab pick instead of sending.
    textarea.addEventListener("keydown", (event) => {
      if (!list() || event.isComposing) return;
      const keys = { ArrowDown: () => highlight(active + 1), ArrowUp: () => highlight(active - 1), Escape: close,
        Enter: () => pick(options()[active]), Tab: () => pick(options()[active]) };
      const handler = keys[event.key];
      if (!handler || (event.key === "Enter" && event.shiftKey)) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      handler();
    });
    textarea.addEventListener("blur", () => setTimeout(close, 150));
    document.addEventListener("mousedown", (event) => {
      const option = event.target.closest && event.target.closest("#mention-suggestions [role=option]");
      if (option) {
        event.preventDefault();
        pick(option);
      }
    });
  }

  // "Is typing": at most one "start" every three seconds while the person types a new message, and a "stop"
  // when they send it or clear the text (Parlor hides the name six seconds after the last "start" anyway).
  function reportTyping(textarea) {
    const url = textarea.getAttribute("data-typing-url");
    if (!url) return { typed() {}, stopped() {} };
    let lastStart = 0;
    function post(state) {
      fetch(url, { method: "POST", credentials: "same-origin", body: new URLSearchParams({ csrf: csrfToken(), state: state }) }).catch(() => {});
    }
    return {
      typed() {
        if (textarea.form.hasAttribute("data-editing")) return;
        if (!textarea.value.trim()) { this.stopped(); return; }
        const now = Date.now();
        if (now - lastStart < 3000) return;
        lastStart = now;
        post("start");
      },
      stopped() {
        if (!lastStart) return;
        lastStart = 0;
        post("stop");
      },
    };
  }

  // A quote links to its original opened in its conversation (it may be older than the page holds); one already on
  // the page is scrolled to instead, as an in-page link would.
  document.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest("a.reply-quote") : null;
    if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    if (!link.hash || !document.getElementById(link.hash.slice(1))) return;
    event.preventDefault();
    window.location.hash = link.hash;
  });

  function enhanceComposer(form) {
    const textarea = form.querySelector("textarea");
    form.classList.add("is-enhanced");
    growWithText(textarea);
    enhanceMentions(textarea);
    const typing = reportTyping(textarea);
    textarea.addEventListener("input", () => typing.typed());
    rememberPlainMode(form);
    if (/\/messages\/\d+$/.test(form.getAttribute("action"))) form.setAttribute("data-editing", "");
    enhancePhotoField(form);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = textarea.value;
      const photo = chosenPhoto(form);
      if (!text.trim() && !photo) {
        showComposerError(form, "Write something before sending.");
        return;
      }
      showComposerError(form, null);
      if (form.hasAttribute("data-editing")) {
        saveEdit(form, text);
        return;
      }
      typing.stopped();
      const tokenField = form.querySelector("input[name=token]");
      const token = tokenField.value || newToken();
      const replyField = form.querySelector("input[name=replyTo]");
      const replyTo = replyField ? replyField.value : null;
      // The next message gets a token of its own; this one keeps its token for retries.
      tokenField.value = newToken();
      textarea.value = "";
      if (replyTo) plainMode(form);
      textarea.focus();
      if (photo) {
        clearPhoto(form);
        sendPhoto(form, text, token, replyTo, photo);
      } else {
        send(form, text, token, replyTo);
      }
    });
    textarea.addEventListener("keydown", (event) => {
      // Enter sends (or saves), Shift+Enter starts a new line, Escape leaves a reply or an edit.
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        form.requestSubmit();
      } else if (event.key === "Escape" && (form.hasAttribute("data-editing") || form.querySelector("input[name=replyTo]"))) {
        event.preventDefault();
        plainMode(form);
      } else if (event.key === "ArrowUp" && !textarea.value && !event.shiftKey && !event.altKey && !event.ctrlKey && !event.metaKey) {
        // Up in an empty composer edits the newest message the viewer may edit.
        const cells = Array.from(document.querySelectorAll(".conversation li.message.is-own[id^=message-]"))
          .filter((cell) => cell.querySelector(".message-actions a[href*='edit=']"));
        const newest = cells[cells.length - 1];
        if (newest) {
          event.preventDefault();
          editMode(form, newest);
        }
      }
    });
  }

  document.addEventListener("click", (event) => {
    // Reply and Edit change the composer in place instead of loading the page again.
    const action = event.target.closest(".message-actions a");
    // React has its own picker (below).
    if (action && action.classList.contains("react-to-message")) return;
    if (action) {
      const cell = action.closest("li.message");
      const form = document.querySelector("form.composer");
      if (action.classList.contains("delete-message")) {
        if (!cell || !form || !cell.id.startsWith("message-")) return;
        event.preventDefault();
        deleteMessage(form, cell);
        return;
      }
      const kind = /[?&]edit=/.test(action.getAttribute("href")) ? "edit" : "reply";
      if (!cell || !form || !cell.id.startsWith("message-")) return;
      event.preventDefault();
      if (kind === "edit") editMode(form, cell); else replyMode(form, cell);
      return;
    }
    // "Retry" on a failed cell the server rendered: the same text and token, so never a duplicate.
    const link = event.target.closest(".delivery-failed a");
    if (!link) return;
    const cell = link.closest("li.message");
    const form = document.querySelector("form.composer");
    if (!cell || !form || !cell.id.startsWith("pending-")) return;
    event.preventDefault();
    send(form, typedText(cell), cell.id.slice("pending-".length), cell.getAttribute("data-reply-to"));
  });

  function scrollToEnd(form) {
    const conversation = form ? form.closest(".conversation") : document.querySelector(".conversation");
    const messages = conversation && conversation.querySelector(".messages");
    if (messages) messages.scrollTop = messages.scrollHeight;
  }

  // The text box grows with its text up to eight lines, then scrolls. Browsers with CSS `field-sizing` do it
  // themselves (and without the script); the others are measured at each change.
  function growWithText(textarea) {
    if (window.CSS && CSS.supports("field-sizing", "content")) return;
    const fit = () => {
      textarea.style.height = "auto";
      textarea.style.height = Math.min(textarea.scrollHeight + 2, parseFloat(getComputedStyle(textarea).maxHeight) || 1e9) + "px";
    };
    textarea.addEventListener("input", fit);
    fit();
  }

  // ---------------------------------------------------------------- messages by keyboard

  // One Tab stop for all the messages (the newest, or the one last focused); Up and Down move between them,
  // Home and End to the first and last; Tab goes on into the focused message's toolbar, whose actions Left and
  // Right move between, and Escape comes back to the message. Only the focused message's actions are Tab stops.
  function messageCells() {
    return Array.from(document.querySelectorAll(".conversation .messages li.message"));
  }

  function rove(cells, current) {
    for (const cell of cells) {
      cell.tabIndex = cell === current ? 0 : -1;
      for (const action of cell.querySelectorAll(".message-actions a, .reactions button")) action.tabIndex = cell === current ? 0 : -1;
    }
  }

  function afterMessagesChange() {
    const cells = messageCells();
    if (!cells.length) return;
    const current = cells.find((cell) => cell.tabIndex === 0 && cell.contains(document.activeElement)) || cells[cells.length - 1];
    rove(cells, current);
  }

  // On a touch screen a tap on a message focuses it and shows its toolbar; so does a long press, which
  // otherwise would only select text or open the browser's own menu.
  let pressTimer = null;
  let pressStart = null;
  let pressed = { cell: null, at: 0 };
  document.addEventListener("touchstart", (event) => {
    const cell = event.target.closest && event.target.closest(".conversation .messages li.message");
    clearTimeout(pressTimer);
    if (!cell || event.touches.length !== 1 || event.target.closest("a, button")) return;
    pressStart = { x: event.touches[0].clientX, y: event.touches[0].clientY };
    pressTimer = setTimeout(() => {
      pressTimer = null;
      cell.focus();
      pressed = { cell, at: Date.now() };
    }, 500);
  }, { passive: true });
  document.addEventListener("touchmove", (event) => {
    if (!pressTimer || !pressStart) return;
    const touch = event.touches[0];
    if (Math.abs(touch.clientX - pressStart.x) > 10 || Math.abs(touch.clientY - pressStart.y) > 10) clearTimeout(pressTimer);
  }, { passive: true });
  document.addEventListener("touchend", () => clearTimeout(pressTimer), { passive: true });
  document.addEventListener("contextmenu", (event) => {
    // The press that showed the toolbar opens no menu of the browser's over it (a link or a photo keeps its own).
    if (pressed.cell && pressed.cell.contains(event.target) && Date.now() - pressed.at < 1500 && !event.target.closest("a, img")) event.preventDefault();
  });

  document.addEventListener("focusin", (event) => {
    const cell = event.target.closest && event.target.closest(".conversation .messages li.message");
    if (cell && cell.tabIndex !== 0) rove(messageCells(), cell);
  });

  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target.matches && target.matches(".conversation .messages li.message")) {
      const cells = messageCells();
      const index = cells.indexOf(target);
      const next = { ArrowUp: index - 1, ArrowDown: index + 1, Home: 0 }[event.key];
      if (next === undefined) return;
      event.preventDefault();
      const cell = cells[Math.max(0, Math.min(cells.length - 1, next))];
      if (cell) cell.focus();
    } else if (target.closest && target.closest(".message-actions")) {
      const actions = Array.from(target.closest(".message-actions").querySelectorAll("a"));
      const index = actions.indexOf(target);
      if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
        event.preventDefault();
        const step = event.key === "ArrowRight" ? 1 : -1;
        actions[(index + step + actions.length) % actions.length].focus();
      } else if (event.key === "Escape") {
        event.preventDefault();
        target.closest("li.message").focus();
      }
    }
  });

  // ---------------------------------------------------------------- reactions

  // A reaction's button toggles it without leaving the page: the list under the message comes back on the
  // stream, as everyone's does. "React" opens a small picker (quick picks and a field) instead of its page.
  async function toggleReaction(url, text) {
    try {
      const response = await post(url, { csrf: csrfToken(), reaction: text });
      if (!accepted(response)) window.alert(await refusal(response, "Not added"));
      return accepted(response);
    } catch {
      window.alert("Not added: no connection. Try again.");
      return false;
    }
  }

  document.addEventListener("submit", (event) => {
    // Only a reaction's button toggles in place; another (a preview's removal) posts the form as it is.
    if (event.target.id !== "reaction-form" || !event.submitter || event.submitter.name !== "reaction") return;
    event.preventDefault();
    toggleReaction(event.submitter.formAction, event.submitter.value);
  });

  function placeReactions(target) {
    const cell = document.getElementById("message-" + target.slice("reactions-".length));
    const content = cell && cell.querySelector(".message-content");
    if (!content) return null;
    const list = document.createElement("div");
    list.className = "reactions";
    list.id = target;
    content.insertBefore(list, content.querySelector(".message-actions"));
    return list;
  }

  // After a live redraw, the button of the same reaction has the focus again (or the message's React, when the
  // reaction is gone), so a keyboard user pressing it twice stays where they were.
  function refocusReaction(target, text) {
    const list = document.getElementById(target);
    if (!list) return;
    const again = Array.from(list.querySelectorAll("button")).find((button) => button.value === text);
    const cell = list.closest("li.message");
    const fallback = cell && cell.querySelector(".react-to-message");
    if (again) again.focus(); else if (fallback) fallback.focus();
  }

  let openPicker = null;

  function closePicker(returnFocus) {
    if (!openPicker) return;
    const { picker, link } = openPicker;
    openPicker = null;
    picker.remove();
    if (returnFocus) link.focus();
  }

  function showPicker(link) {
    closePicker(false);
    // The choosing page is …/react; reactions are posted to …/reactions beside it.
    const url = link.pathname.replace(/\/react$/, "/reactions");
    const picker = document.createElement("div");
    picker.className = "reaction-picker";
    picker.setAttribute("role", "dialog");
    picker.setAttribute("aria-label", "React to this message");
    const picks = document.createElement("div");
    picks.className = "reaction-picks";
    // The quick ones, as Parlor names them on the conversation's reaction form.
    const reactionForm = document.getElementById("reaction-form");
    const quick = ((reactionForm && reactionForm.getAttribute("data-quick-reactions")) || "👍").split(" ").filter(Boolean);
    for (const text of quick) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "reaction";
      button.textContent = text;
      button.setAttribute("aria-label", "React with " + text);
      button.addEventListener("click", async () => { if (await toggleReaction(url, text)) closePicker(true); });
      picks.append(button);
    }
    const form = document.createElement("form");
    form.className = "reaction-other";
    const field = document.createElement("input");
    field.type = "text";
    // No maxlength: it counts UTF-16 units, and sixteen emoji are more; Parlor says when a reaction is too long.
    field.autocomplete = "off";
    field.placeholder = "Or type one";
    field.setAttribute("aria-label", "Another reaction: an emoji or up to 16 characters");
    const add = document.createElement("button");
    add.type = "submit";
    add.textContent = "React";
    form.append(field, add);
    form.addEventListener("submit", async (submit) => {
      submit.preventDefault();
      if (field.value.trim() && await toggleReaction(url, field.value)) closePicker(true);
    });
    picker.append(picks, form);
    picker.addEventListener("keydown", (key) => {
      if (key.key === "Escape") { key.preventDefault(); key.stopPropagation(); closePicker(true); }
    });
    link.closest(".message-content").append(picker);
    openPicker = { picker, link };
    picks.firstChild.focus();
  }

  document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest("a.react-to-message");
    if (link) {
      event.preventDefault();
      if (openPicker && openPicker.link === link) closePicker(true); else showPicker(link);
      return;
    }
    if (openPicker && !openPicker.picker.contains(event.target)) closePicker(false);
  });

  // ---------------------------------------------------------------- history in place

  // "Show older messages", or scrolling to the top, puts the older page above the messages shown: the
  // conversation stays live and scrolled where it was. Without the script the link opens that page.
  let loadingOlder = false;

  async function loadOlder(link) {
    if (loadingOlder) return;
    const conversation = link.closest(".conversation");
    const messages = conversation && conversation.querySelector(".messages");
    if (!messages) return;
    loadingOlder = true;
    try {
      const response = await fetch(link.href, { credentials: "same-origin" });
      if (!response.ok) throw new Error("status " + response.status);
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const olderMessages = page.querySelector(".conversation .messages");
      if (!olderMessages) throw new Error("no messages");
      const keptHeight = messages.scrollHeight;
      const keptTop = messages.scrollTop;
      const firstDay = messages.querySelector("section.day");
      for (const day of Array.from(olderMessages.querySelectorAll("section.day"))) {
        const existing = document.getElementById(day.id);
        if (existing) {
          // The same day continues: its older cells go first, without doubles.
          const list = existing.querySelector(".day-messages");
          const cells = Array.from(day.querySelectorAll("li.message")).filter((cell) => !document.getElementById(cell.id));
          list.prepend(...cells.map((cell) => document.adoptNode(cell)));
        } else {
          const adopted = document.adoptNode(day);
          if (firstDay) firstDay.before(adopted); else messages.append(adopted);
        }
      }
      messages.scrollTop = keptTop + (messages.scrollHeight - keptHeight);
      afterMessagesChange();
      const next = page.querySelector(".older-messages a");
      if (next) link.href = next.href; else link.closest(".older-messages").remove();
    } catch (error) {
      // Not loaded in place: open the older page itself, as without the script.
      window.location.href = link.href;
    } finally {
      loadingOlder = false;
    }
  }

  document.addEventListener("click", (event) => {
    const link = event.target.closest(".older-messages a");
    if (!link || !document.querySelector(".conversation .messages")) return;
    event.preventDefault();
    loadOlder(link);
  });

  // Listened for on the document (scroll events do not bubble, but they can be caught on the way down):
  // the stream replaces the history element when it connects, and a listener on it would go with it.
  function watchTopOfHistory() {
    document.addEventListener("scroll", (event) => {
      const messages = event.target;
      if (!(messages instanceof Element) || !messages.matches(".conversation .messages")) return;
      const link = document.querySelector(".older-messages a");
      if (link && messages.scrollTop < 80) loadOlder(link);
    }, { capture: true, passive: true });
  }

  // ---------------------------------------------------------------- read receipts

  let reported = 0;
  let readTimer = null;

  // While the conversation is visible and focused, the newest message from the other person is read.
  function reportRead() {
    clearTimeout(readTimer);
    readTimer = setTimeout(() => {
      if (document.visibilityState !== "visible" || !document.hasFocus()) return;
      const conversation = document.querySelector(".conversation");
      const form = document.querySelector("form.composer");
      if (!conversation || !form) return;
      let newest = 0;
      for (const cell of conversation.querySelectorAll("li.message:not(.is-own)")) {
        const id = parseInt(cell.id.replace("message-", ""), 10);
        if (id > newest) newest = id;
      }
      if (newest <= reported) return;
      reported = newest;
      const chat = messagesURL(form).replace(/\/messages$/, "");
      // Not taken (no connection, a server shutting down): the next update or focus reports again.
      post(chat + "/read", { csrf: csrfToken(), upTo: String(newest) })
        .then((response) => { if (!response.ok && response.type !== "opaqueredirect") reported = 0; })
        .catch(() => { reported = 0; });
    }, 300);
  }

  // A section of the chat list folded away stays so on this browser, across pages and redrawn lists.
  function keepSections() {
    for (const section of document.querySelectorAll(".chat-list-section[id]")) {
      let folded = null;
      try { folded = localStorage.getItem("parlor-folded-" + section.id); } catch (error) { /* storage refused: folds for this page */ }
      if (folded === "1" && section.open) section.open = false;
      if (section.dataset.watched) continue;
      section.dataset.watched = "1";
      section.addEventListener("toggle", () => {
        try { localStorage.setItem("parlor-folded-" + section.id, section.open ? "0" : "1"); } catch (error) { /* as above */ }
      });
    }
  }

  function afterUpdate() {
    keepSections();
    afterMessagesChange();
    reportRead();
    showPresence();
  }

  // ---------------------------------------------------------------- presence

  // Dots on the avatars of the people a page shows: the page names them on its stream (`watch=`), Parlor sends
  // each one's state as it opens and when it changes, and every dot of theirs (rows redrawn since included)
  // takes it. Without the script there are no dots.
  const presenceStates = {};

  function watchedPeople() {
    const ids = Array.from(document.querySelectorAll("[data-presence-of]"), (dot) => dot.getAttribute("data-presence-of"));
    return Array.from(new Set(ids)).filter((id) => /^\d+$/.test(id)).slice(0, 200);
  }

  function takePresence(element) {
    if (!element) return;
    const user = element.getAttribute("data-user");
    if (!/^\d+$/.test(user || "")) return;
    presenceStates[user] = { state: element.getAttribute("data-state"), label: element.getAttribute("data-label") };
  }

  function showPresence() {
    document.querySelectorAll("[data-presence-of]").forEach((dot) => {
      const known = presenceStates[dot.getAttribute("data-presence-of")];
      const state = known ? known.state : "offline";
      dot.setAttribute("data-state", state);
      dot.setAttribute("role", "img");
      if (known && known.label) {
        dot.setAttribute("aria-label", known.label);
        dot.title = known.label;
      } else {
        dot.setAttribute("aria-label", "Offline");
        dot.title = "Offline";
      }
      dot.hidden = false;
    });
  }

  // Idle after five minutes without a key, a click or a scroll on a visible page; back at the next one.
  const IDLE_AFTER = 5 * 60 * 1000;
  let lastUse = Date.now();
  let pageIdle = false;

  function used() {
    lastUse = Date.now();
    if (pageIdle) {
      pageIdle = false;
      reportVisibility();
    }
  }

  function watchIdle() {
    ["keydown", "pointerdown", "wheel", "touchstart"].forEach((name) => document.addEventListener(name, used, { passive: true, capture: true }));
    setInterval(() => {
      if (!pageIdle && document.visibilityState === "visible" && Date.now() - lastUse >= IDLE_AFTER) {
        pageIdle = true;
        reportVisibility();
      }
    }, 30 * 1000);
  }

  // ---------------------------------------------------------------- type-to-find

  function enhanceNewChat(form) {
    const input = form.querySelector("#new-chat-handle");
    const url = form.getAttribute("data-suggestions-url");
    if (!input || !url) return;
    let timer = null;
    let latest = 0;
    input.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        const asked = ++latest;
        const response = await fetch(url + "?q=" + encodeURIComponent(input.value), { credentials: "same-origin" });
        if (!response.ok || asked !== latest) return;
        const holder = document.createElement("template");
        holder.innerHTML = await response.text();
        const existing = document.getElementById("contact-suggestions");
        if (existing) existing.replaceWith(holder.content); else form.append(holder.content);
      }, 150);
    });
  }

  // ---------------------------------------------------------------- search

  // The header's search field is a GET form: the results page without the script. With it, results come as the
  // person types, 250 ms after the last key: the results region alone is fetched and swapped in, on the results
  // page itself (its address follows) or in a panel under the header elsewhere. Escape closes the panel; Down
  // moves into the results.
  const SEARCH_DELAY = 250;
  let searchTimer = null;
  let searchRequest = null;

  function focusSearch() {
    const field = document.getElementById("search-field");
    if (!field) return false;
    field.focus();
    field.select();
    return true;
  }

  function searchPanel(create) {
    let panel = document.getElementById("search-panel");
    if (!panel && create) {
      panel = document.createElement("div");
      panel.id = "search-panel";
      panel.className = "search-panel";
      panel.hidden = true;
      panel.addEventListener("keydown", (event) => {
        if (event.key !== "Escape") return;
        closeSearchPanel();
        focusSearch();
      });
      document.querySelector(".app-header").after(panel);
    }
    return panel;
  }

  function closeSearchPanel() {
    clearTimeout(searchTimer);
    if (searchRequest) searchRequest.abort();
    const panel = searchPanel(false);
    if (!panel || panel.hidden) return false;
    panel.hidden = true;
    panel.replaceChildren();
    return true;
  }

  function shownResults() {
    return document.querySelector("main #search-results") || document.querySelector("#search-panel:not([hidden]) #search-results");
  }

  function showResults(html) {
    const template = document.createElement("template");
    template.innerHTML = html;
    const results = template.content.querySelector("#search-results");
    if (!results) return;
    const onPage = document.querySelector("main #search-results");
    if (onPage) {
      onPage.replaceWith(results);
    } else {
      const panel = searchPanel(true);
      panel.replaceChildren(results);
      panel.hidden = false;
    }
    const found = results.querySelectorAll(".search-result").length;
    const empty = results.querySelector(".search-empty");
    announce(found ? (found === 1 ? "1 message found" : found + (results.querySelector(".search-more") ? " or more messages found" : " messages found"))
      : empty ? empty.firstChild.textContent.trim() : "");
  }

  async function searchAsYouType(field) {
    const text = field.value;
    const onPage = document.querySelector("main #search-results");
    if (searchRequest) searchRequest.abort();
    if (!text.trim() && !onPage) return closeSearchPanel();
    const request = new AbortController();
    searchRequest = request;
    const url = field.form.action + "?q=" + encodeURIComponent(text);
    try {
      const response = await fetch(url + "&fragment=1", { credentials: "same-origin", signal: request.signal });
      if (!response.ok || request !== searchRequest) return;
      showResults(await response.text());
      if (onPage) history.replaceState(null, "", url);
    } catch (error) {
      // Stopped by the next key, or no connection: Enter still submits the form.
    }
  }

  function enhanceSearch(form) {
    const field = form.querySelector("input[type=search]");
    if (!field) return;
    field.addEventListener("input", () => {
      clearTimeout(searchTimer);
      searchTimer = setTimeout(() => searchAsYouType(field), SEARCH_DELAY);
    });
    field.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && closeSearchPanel()) {
        event.preventDefault();
      } else if (event.key === "ArrowDown") {
        const results = shownResults();
        const first = results && results.querySelector(".search-result a");
        if (first) {
          event.preventDefault();
          first.focus();
        }
      }
    });
    // A click outside the panel and the field closes the panel.
    document.addEventListener("click", (event) => {
      const panel = searchPanel(false);
      if (panel && !panel.hidden && !panel.contains(event.target) && !form.contains(event.target)) closeSearchPanel();
    });
  }

  // Results: Up and Down move between them.
  document.addEventListener("keydown", (event) => {
    if ((event.key !== "ArrowDown" && event.key !== "ArrowUp") || event.altKey || event.ctrlKey || event.metaKey) return;
    const link = event.target.closest && event.target.closest(".search-result a");
    if (!link) return;
    const links = Array.from(link.closest(".search-result-list").querySelectorAll(".search-result a"));
    const index = links.indexOf(link) + (event.key === "ArrowDown" ? 1 : -1);
    event.preventDefault();
    if (index >= 0 && index < links.length) links[index].focus(); else if (index < 0) focusSearch();
  });

  // A conversation opened at a message found: that message in the middle of the view, marked, instead of the newest.
  function showFoundMessage() {
    const id = decodeURIComponent(window.location.hash.slice(1));
    if (!/^message-\d+$/.test(id)) return false;
    const cell = document.getElementById(id);
    if (!cell || !cell.closest(".conversation .messages")) return false;
    cell.classList.add("is-found");
    cell.scrollIntoView({ block: "center" });
    // The browser's own jump to the address's fragment (the top of the view) may come after: centred again then.
    window.addEventListener("load", () => cell.scrollIntoView({ block: "center" }), { once: true });
    return true;
  }

  // A conversation opened with unread messages: the "New messages" line near the top of the view and the first
  // unread message under it, when they do not all fit above the end; otherwise the end, as always.
  function showFirstUnread() {
    const line = document.getElementById("unread-marker");
    const messages = line && line.closest(".conversation .messages");
    if (!messages) return false;
    messages.scrollTop = messages.scrollHeight;
    const above = line.getBoundingClientRect().top - messages.getBoundingClientRect().top;
    // Room for the day pinned at the top, which may show over the line while the messages move.
    if (above < 0) messages.scrollTop += above - 40;
    showJumpToUnread();
    return true;
  }

  // "Jump to first unread" shows while the "New messages" line is out of view; it brings the line back.
  function showJumpToUnread() {
    const jump = document.querySelector(".conversation .jump-unread");
    if (!jump) return;
    const line = document.getElementById("unread-marker");
    const messages = line && line.closest(".conversation .messages");
    if (!messages) { jump.hidden = true; return; }
    const view = messages.getBoundingClientRect();
    const at = line.getBoundingClientRect();
    jump.hidden = at.bottom > view.top && at.top < view.bottom;
  }

  document.addEventListener("scroll", (event) => {
    if (event.target instanceof Element && event.target.matches(".conversation .messages")) showJumpToUnread();
  }, { capture: true, passive: true });

  document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest(".conversation .jump-unread a");
    const line = document.getElementById("unread-marker");
    const messages = line && line.closest(".conversation .messages");
    if (!link || !messages) return;
    event.preventDefault();
    messages.scrollTop += line.getBoundingClientRect().top - messages.getBoundingClientRect().top - 40;
    showJumpToUnread();
  });

  // Escape, outside text fields and dialogs, marks the whole chat read: the line and the jump go.
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    if (event.target.closest && event.target.closest("input, textarea, select, [contenteditable], dialog, .search-panel")) return;
    const form = document.querySelector("form.composer");
    if (!form || !document.querySelector(".conversation .messages")) return;
    const chat = messagesURL(form).replace(/\/messages$/, "");
    post(chat + "/read", { csrf: csrfToken() });
    const line = document.getElementById("unread-marker");
    if (line) line.remove();
    const jump = document.querySelector(".conversation .jump-unread");
    if (jump) jump.remove();
    announce("Marked as read");
  });

  // ---------------------------------------------------------------- keyboard shortcuts

  // "/" or Ctrl+K focuses the search field ("/" outside text fields: it moves the focus and changes nothing);
  // Ctrl+/ jumps to a chat by name; Alt+Up/Down opens the previous or next chat in the list, with Shift the
  // previous or next one with unread messages. "?" lists the shortcuts, but only once the person turned
  // single-key shortcuts on in Settings (WCAG 2.1.4: a stray key or speech input must do nothing).
  const SINGLE_KEY = "parlor-single-key-shortcuts";

  function singleKeyShortcutsOn() {
    try { return localStorage.getItem(SINGLE_KEY) === "on"; } catch (error) { return false; }
  }

  function chatsFrom(root) {
    return Array.from(root.querySelectorAll(".chat-list-item")).map((item) => ({
      name: (item.querySelector(".chat-list-name") || {}).textContent || "",
      url: item.querySelector("a").getAttribute("href"),
      unread: !!item.querySelector(".badge, .unread-dot"),
      current: item.classList.contains("is-current"),
    }));
  }

  // The chats of this page's list, or of the chats page when this page has none (Settings, an image).
  async function chatsForJump() {
    if (document.querySelector(".chat-list-item")) return chatsFrom(document);
    const response = await fetch((document.body.getAttribute("data-base-path") || "") + "/chats", { headers: { Accept: "text/html" } });
    return response.ok ? chatsFrom(new DOMParser().parseFromString(await response.text(), "text/html")) : [];
  }

  function folded(text) {
    return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  }

  async function openJump() {
    if (document.querySelector("dialog.jump-dialog[open]")) return;
    const chats = await chatsForJump();
    const dialog = document.createElement("dialog");
    dialog.className = "jump-dialog";
    dialog.setAttribute("aria-labelledby", "jump-label");
    dialog.innerHTML = '<label id="jump-label" for="jump-input">Jump to a chat</label>' +
      '<input type="text" id="jump-input" aria-controls="jump-results" aria-autocomplete="list" autocomplete="off">' +
      '<ul class="jump-results" id="jump-results" role="listbox" aria-label="Chats"></ul><p class="jump-empty" hidden>No chat by that name.</p>';
    (document.querySelector("main") || document.body).append(dialog);
    const input = dialog.querySelector("input");
    const list = dialog.querySelector("ul");
    let shown = [];
    let active = 0;
    function render() {
      const query = folded(input.value.trim());
      shown = chats.filter((chat) => !chat.current && folded(chat.name).includes(query)).slice(0, 20);
      active = Math.min(active, Math.max(shown.length - 1, 0));
      list.replaceChildren(...shown.map((chat, index) => {
        const option = document.createElement("li");
        option.id = "jump-option-" + index;
        option.setAttribute("role", "option");
        option.setAttribute("aria-selected", index === active ? "true" : "false");
        const name = document.createElement("span");
        name.textContent = chat.name;
        option.append(name);
        if (chat.unread) {
          const unread = document.createElement("span");
          unread.className = "jump-unread";
          unread.textContent = "unread";
          option.append(unread);
        }
        option.addEventListener("mousedown", (event) => { event.preventDefault(); go(chat); });
        return option;
      }));
      dialog.querySelector(".jump-empty").hidden = shown.length > 0;
      if (shown.length) input.setAttribute("aria-activedescendant", "jump-option-" + active); else input.removeAttribute("aria-activedescendant");
    }
    function go(chat) {
      dialog.close();
      window.location.assign(chat.url);
    }
    input.addEventListener("input", () => { active = 0; render(); });
    input.addEventListener("keydown", (event) => {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        if (shown.length) active = (active + (event.key === "ArrowDown" ? 1 : -1) + shown.length) % shown.length;
        render();
      } else if (event.key === "Enter") {
        event.preventDefault();
        if (shown[active]) go(shown[active]);
      }
    });
    dialog.addEventListener("close", () => dialog.remove());
    render();
    dialog.showModal();
    input.focus();
  }

  function showShortcuts() {
    if (document.querySelector("dialog.shortcuts-dialog[open]")) return;
    const dialog = document.createElement("dialog");
    dialog.className = "shortcuts-dialog";
    dialog.setAttribute("aria-labelledby", "shortcuts-dialog-title");
    const rows = [["Ctrl + K, Ctrl + /", "Jump to a chat by name"], ["Alt + ↑ / ↓", "Previous or next chat"],
      ["Alt + Shift + ↑ / ↓", "Previous or next chat with unread messages"], ["↑ in an empty message box", "Edit your last message"],
      ["End", "Jump to the newest message"], ["?", "List these shortcuts"]];
    const title = document.createElement("h2");
    title.id = "shortcuts-dialog-title";
    title.textContent = "Keyboard shortcuts";
    const list = document.createElement("dl");
    list.className = "shortcut-list";
    for (const [keys, what] of rows) {
      const term = document.createElement("dt");
      term.textContent = keys;
      const detail = document.createElement("dd");
      detail.textContent = what;
      list.append(term, detail);
    }
    const close = document.createElement("button");
    close.type = "button";
    close.textContent = "Close";
    close.addEventListener("click", () => dialog.close());
    dialog.append(title, list, close);
    dialog.addEventListener("close", () => dialog.remove());
    (document.querySelector("main") || document.body).append(dialog);
    dialog.showModal();
    close.focus();
  }

  function stepChat(direction, unreadOnly) {
    const chats = chatsFrom(document);
    const here = chats.findIndex((chat) => chat.current);
    for (let index = here + direction; index >= 0 && index < chats.length; index += direction) {
      if (!unreadOnly || chats[index].unread) return window.location.assign(chats[index].url);
    }
    if (here < 0 && chats.length && !unreadOnly) window.location.assign(chats[direction > 0 ? 0 : chats.length - 1].url);
  }

  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.isComposing) return;
    const key = event.key;
    const inField = event.target.closest && event.target.closest("input, textarea, select, [contenteditable]");
    if ((event.ctrlKey || event.metaKey) && !event.altKey && (key === "k" || key === "K")) {
      if (focusSearch()) event.preventDefault();
    } else if (key === "/" && !event.ctrlKey && !event.altKey && !event.metaKey && !inField) {
      if (focusSearch()) event.preventDefault();
    } else if ((event.ctrlKey || event.metaKey) && !event.altKey && key === "/") {
      event.preventDefault();
      openJump();
    } else if (event.altKey && !event.ctrlKey && !event.metaKey && (key === "ArrowUp" || key === "ArrowDown")) {
      event.preventDefault();
      stepChat(key === "ArrowDown" ? 1 : -1, event.shiftKey);
    } else if (key === "?" && !event.ctrlKey && !event.altKey && !event.metaKey && singleKeyShortcutsOn()) {
      if (event.target.closest && event.target.closest("input, textarea, select, [contenteditable]")) return;
      event.preventDefault();
      showShortcuts();
    }
  });

  function enhanceShortcutSetting(section) {
    const box = section.querySelector("#single-key-shortcuts");
    box.checked = singleKeyShortcutsOn();
    box.addEventListener("change", () => {
      try { localStorage.setItem(SINGLE_KEY, box.checked ? "on" : "off"); } catch (error) { /* private mode: stays off */ }
    });
    section.hidden = false;
  }

  // ---------------------------------------------------------------- start

  // A new account starts in the browser's time zone (without the script: UTC, changeable in Settings).
  function addTimeZone(form) {
    if (!form.querySelector("[name=displayName]")) return;
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (!zone) return;
    const field = document.createElement("input");
    field.type = "hidden";
    field.name = "timeZone";
    field.value = zone;
    form.append(field);
  }

  // Settings: this device's zone, as the browser knows it, comes first in the list.
  function deviceZoneFirst(select) {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const known = zone && Array.from(select.options).find((option) => option.value === zone);
    if (!known) return;
    const group = document.createElement("optgroup");
    group.label = "This device";
    const option = known.cloneNode(true);
    option.removeAttribute("selected");
    group.append(option);
    select.prepend(group);
    if (known.selected) option.selected = true;
  }

  function start() {
    document.querySelectorAll("form.composer").forEach(enhanceComposer);
    document.querySelectorAll("form.auth-form").forEach(addTimeZone);
    document.querySelectorAll("#settings-time-zone").forEach(deviceZoneFirst);
    document.querySelectorAll("#notifications").forEach(enhanceNotificationSetting);
    document.querySelectorAll(".push-bell").forEach(enhanceBell);
    showAppBadge();
    showPresence();
    watchIdle();
    document.querySelectorAll("#shortcuts").forEach(enhanceShortcutSetting);
    document.querySelectorAll("form.create-chat").forEach(enhanceNewChat);
    const errorField = document.querySelector("[data-error-field]");
    if (errorField) {
      const field = errorField.querySelector("[name=" + errorField.getAttribute("data-error-field") + "]");
      if (field) field.focus();
    }
    document.querySelectorAll("form.header-search").forEach(enhanceSearch);
    if (!showFoundMessage() && !showFirstUnread()) scrollToEnd(null);
    afterMessagesChange();
    showBackCount();
    keepSections();
    watchTopOfHistory();
    connect();
    document.addEventListener("visibilitychange", reportRead);
    document.addEventListener("visibilitychange", reportVisibility);
    window.addEventListener("pagehide", () => reportVisibility(true));
    window.addEventListener("focus", reportRead);
    reportRead();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
