// Parlor's service worker: shows the notifications Parlor pushes while none of its pages is in front of the
// person, and opens (or focuses) the chat a click asks for. It caches nothing and answers no request, so every
// page works the same with it or without it.
"use strict";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let message = {};
  try { message = event.data ? event.data.json() : {}; } catch (error) { message = {}; }
  const scope = self.registration.scope;
  const title = typeof message.title === "string" && message.title ? message.title : "Parlor";
  const options = {
    body: typeof message.body === "string" ? message.body : "",
    tag: typeof message.tag === "string" ? message.tag : "parlor",
    renotify: true,
    icon: new URL("public/img/icon-192.png", scope).href,
    badge: new URL("public/img/icon-192.png", scope).href,
    data: { url: typeof message.url === "string" ? new URL(message.url, scope).href : new URL("chats", scope).href },
  };
  event.waitUntil(self.registration.showNotification(title, options));
});

// Brings a tab to the front; a browser that does not allow it leaves the tab where it is.
async function focus(client) {
  try { return await client.focus(); } catch (error) { return client; }
}

// A click opens the chat: in a Parlor tab that shows it already, or the tab that has Parlor open (taken to the
// chat), or a new one. Only addresses under Parlor's own scope are opened.
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const scope = self.registration.scope;
  let url = (event.notification.data && event.notification.data.url) || scope;
  if (!url.startsWith(scope)) url = scope;
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    const chat = (url.match(/\/rooms\/(\d+)/) || [])[1];
    const showing = windows.find((client) => chat && client.url.includes("/rooms/" + chat));
    if (showing) return focus(showing);
    const open = windows.find((client) => client.url.startsWith(scope));
    if (open && open.navigate) {
      await focus(open);
      return open.navigate(url);
    }
    return self.clients.openWindow(url);
  })());
});
