// Parlor's one script: live updates, instant "Sending", read receipts, type-to-find.
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

  // Whether the conversation is scrolled to (nearly) its end: then new messages keep it there.
  function followsEnd() {
    const messages = document.querySelector(".conversation .messages");
    return !!messages && messages.scrollHeight - messages.scrollTop - messages.clientHeight < 120;
  }

  function apply(action, target, fragment) {
    const element = document.getElementById(target);
    const following = followsEnd();
    switch (action) {
      case "replace":
        if (!element || !fragment) return;
        const unsent = unsentCells(element);
        removeExisting(fragment, element);
        element.replaceWith(fragment);
        restoreUnsent(unsent);
        if (following) scrollToEnd(null);
        break;
      case "append":
      case "prepend":
        if (!element || !fragment) return;
        const announced = announcement(fragment);
        removeExisting(fragment, element);
        if (action === "append") element.append(fragment); else element.prepend(fragment);
        if (announced) announce(announced);
        if (following) scrollToEnd(null);
        break;
      case "remove":
        if (element) element.remove();
        break;
      case "toast":
        showToast(fragment);
        break;
      case "badge":
        if (fragment) updateBadge(fragment.querySelector("parlor-badge"));
        break;
      case "refresh":
        window.location.reload();
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
  }

  function showToast(fragment) {
    const toasts = document.getElementById("toasts");
    if (!toasts || !fragment) return;
    const toast = fragment.firstElementChild;
    removeExisting(fragment, toasts);
    toasts.append(fragment);
    if (toast) setTimeout(() => toast.remove(), 8000);
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

  // ---------------------------------------------------------------- the stream

  function connect() {
    const url = body.getAttribute("data-events-url");
    if (!url || !window.EventSource) return;
    // EventSource reconnects by itself and sends Last-Event-ID; the server answers with the whole state.
    const source = new EventSource(url);
    source.onmessage = (event) => applyEnvelopes(event.data);
    source.onopen = () => body.removeAttribute("data-offline");
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) {
        // Refused (signed out, not a member): a fresh page shows why.
        setTimeout(() => window.location.reload(), 2000);
      } else {
        body.setAttribute("data-offline", "");
      }
    };
  }

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

  function post(url, fields) {
    return fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Parlor-Script": "1" },
      body: new URLSearchParams(fields),
      credentials: "same-origin",
      redirect: "manual",
    });
  }

  // The last list of the conversation, where a new cell goes.
  function lastDayList(form) {
    const conversation = form.closest(".conversation");
    const lists = conversation ? conversation.querySelectorAll(".day-messages") : [];
    return lists.length ? lists[lists.length - 1] : null;
  }

  // A "Sending" cell at once, in the same markup the server sends (it replaces this one).
  function showPending(form, text, token) {
    const list = lastDayList(form);
    if (!list) return null;
    const cell = document.createElement("li");
    cell.className = "message is-own is-pending";
    cell.id = "pending-" + token;
    const content = document.createElement("div");
    content.className = "message-content";
    const paragraph = document.createElement("p");
    paragraph.className = "message-body";
    paragraph.textContent = text;
    const delivery = document.createElement("p");
    delivery.className = "delivery delivery-sending";
    delivery.textContent = "Sending";
    content.append(paragraph, delivery);
    cell.append(content);
    list.append(cell);
    scrollToEnd(form);
    return cell;
  }

  function markFailed(cell, reason, retry) {
    if (!cell) return;
    const delivery = cell.querySelector(".delivery");
    delivery.className = "delivery delivery-failed";
    delivery.textContent = "Failed: " + reason + " ";
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

  function send(form, text, token) {
    const cell = document.getElementById("pending-" + token) || showPending(form, text, token);
    const fields = { csrf: csrfToken(), body: text, token: token };
    const retry = () => {
      const delivery = cell && cell.querySelector(".delivery");
      if (delivery) { delivery.className = "delivery delivery-sending"; delivery.textContent = "Sending"; }
      send(form, text, token);
    };
    post(form.action, fields).then(async (response) => {
      if (response.ok || response.type === "opaqueredirect") {
        // Stored: the server's own cell replaces this one, live or with the next whole state.
        if (cell) cell.setAttribute("data-acknowledged", "");
        return;
      }
      const plain = (response.headers.get("Content-Type") || "").startsWith("text/plain");
      const reason = (plain && (await response.text()).trim()) || "Not sent (" + response.status + ").";
      if (response.status === 422) {
        // The text was refused: give it back to fix, with the reason where it was typed.
        if (cell) cell.remove();
        const textarea = form.querySelector("textarea");
        if (textarea && !textarea.value) textarea.value = text;
        showComposerError(form, reason);
      } else {
        markFailed(cell, reason, retry);
      }
    }).catch(() => markFailed(cell, "No connection.", retry));
  }

  function enhanceComposer(form) {
    // Replies and edits keep the plain form: they leave their mode by loading the conversation again.
    if (form.querySelector("input[name=replyTo]") || /\/messages\/\d+$/.test(form.action)) return;
    const textarea = form.querySelector("textarea");
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = textarea.value;
      if (!text.trim()) {
        showComposerError(form, "Write something before sending.");
        return;
      }
      showComposerError(form, null);
      const tokenField = form.querySelector("input[name=token]");
      const token = tokenField.value || newToken();
      // The next message gets a token of its own; this one keeps its token for retries.
      tokenField.value = newToken();
      textarea.value = "";
      textarea.focus();
      send(form, text, token);
    });
    // Enter sends, Shift+Enter starts a new line.
    textarea.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
  }

  // "Retry" on a failed cell the server rendered: the same text and token, so never a duplicate.
  document.addEventListener("click", (event) => {
    const link = event.target.closest(".delivery-failed a");
    if (!link) return;
    const cell = link.closest("li.message");
    const form = document.querySelector("form.composer");
    if (!cell || !form || !cell.id.startsWith("pending-")) return;
    event.preventDefault();
    const text = cell.querySelector(".message-body").textContent;
    send(form, text, cell.id.slice("pending-".length));
  });

  function scrollToEnd(form) {
    const conversation = form ? form.closest(".conversation") : document.querySelector(".conversation");
    const messages = conversation && conversation.querySelector(".messages");
    if (messages) messages.scrollTop = messages.scrollHeight;
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
      const chat = form.action.replace(/\/messages(\/\d+)?$/, "");
      // Not taken (no connection, a server shutting down): the next update or focus reports again.
      post(chat + "/read", { csrf: csrfToken(), upTo: String(newest) })
        .then((response) => { if (!response.ok && response.type !== "opaqueredirect") reported = 0; })
        .catch(() => { reported = 0; });
    }, 300);
  }

  function afterUpdate() {
    reportRead();
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

  function start() {
    document.querySelectorAll("form.composer").forEach(enhanceComposer);
    document.querySelectorAll("form.auth-form").forEach(addTimeZone);
    document.querySelectorAll("form.create-chat").forEach(enhanceNewChat);
    const errorField = document.querySelector("[data-error-field]");
    if (errorField) {
      const field = errorField.querySelector("[name=" + errorField.getAttribute("data-error-field") + "]");
      if (field) field.focus();
    }
    scrollToEnd(null);
    connect();
    document.addEventListener("visibilitychange", reportRead);
    window.addEventListener("focus", reportRead);
    reportRead();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
