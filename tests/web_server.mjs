// The web build's folder served on 127.0.0.1 (tests/test_web.mjs, bench/web.mjs),
// with tests/golden beside it at /golden/ for the page to compare its canvas with.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";

const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".png": "image/png",
                ".svg": "image/svg+xml", ".webmanifest": "application/manifest+json", ".data": "application/octet-stream" };

// Starts the server; returns {origin, close, down, requests}: down(true)
// answers every request 503 until down(false), the network gone for the page
// and its service worker alike (a browser's offline mode may spare the
// worker); requests lists the paths asked for.
export async function serve(site, root) {
  let isDown = false;
  const requests = [];
  const server = http.createServer((req, res) => {
    requests.push(new URL(req.url, "http://x").pathname);
    if (isDown) {
      res.writeHead(503);
      res.end();
      return;
    }
    const url = new URL(req.url, "http://x");
    let file = url.pathname === "/" ? "/index.html" : decodeURIComponent(url.pathname);
    const base = file.startsWith("/golden/") ? path.join(root, "tests") : site;
    file = path.join(base, path.normalize(file));
    if (!file.startsWith(base) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { "Content-Type": types[path.extname(file)] || "application/octet-stream" });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return { origin: `http://127.0.0.1:${server.address().port}`, close: () => server.close(), down: (v) => { isDown = v; }, requests };
}
