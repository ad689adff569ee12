// Offline after the first visit: the page's files are kept, and served from
// the cache first. The build writes its files' hash into the cache's name, so
// a new build replaces the old copy. The training histories downloaded so far
// are kept in a cache of their own, named by the histories' hash: a new build
// of the page with the same histories keeps them.
"use strict";
var CACHE = "transformer-tracer-@BUILD@", HISTORIES = "transformer-tracer-histories-@HISTORIES@";
importScripts("simd.js");  // ttProgram: the build this browser runs, the one to keep
var FILES = ["./", "index.html", "simd.js", "data.js", "transformer-tracer.data", ttProgram + ".js", ttProgram + ".wasm",
             "manifest.webmanifest", "icon.svg"];

self.addEventListener("install", function (e) {
  e.waitUntil(caches.open(CACHE).then(function (c) { return c.addAll(FILES); }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (e) {
  e.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (k) { return k !== CACHE && k !== HISTORIES; }).map(function (k) { return caches.delete(k); }));
  }).then(function () { return self.clients.claim(); }));
});

// the page's address carries ?lesson=…&src=…: the cached page serves any of them.
// A model's training history (histories/) is not installed with the page but
// fetched when first shown: kept once it came whole, for offline use.
self.addEventListener("fetch", function (e) {
  if (e.request.method !== "GET") return;
  e.respondWith(caches.match(e.request, { ignoreSearch: true }).then(function (hit) {
    if (hit) return hit;
    return fetch(e.request).then(function (r) {
      // (not a server's HTML page answering for a file it lacks)
      var type = r.headers.get("Content-Type") || "";
      if (r.ok && type.indexOf("text/html") < 0 && new URL(e.request.url).pathname.indexOf("/histories/") >= 0) {
        var copy = r.clone();
        e.waitUntil(caches.open(HISTORIES).then(function (c) { return c.put(e.request, copy); }));
      }
      return r;
    });
  }));
});
