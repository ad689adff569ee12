// bench: the web build (tools/build-web.sh) in headless Chromium: what a
// visitor downloads (raw and gzip -9), the first frame after opening the page
// (median of 7 fresh tabs, no service worker), and bench_trace's toy case run
// in the page (bench.html), in a browser of its own. Figures: docs/PERFORMANCE.md.
//   node bench/web.mjs            (needs chromium and puppeteer-core, as tests/test_web.mjs)
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";

import { serve } from "../tests/web_server.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const site = process.env.TT_WEB_SITE || path.join(root, "build-wasm", "site");
const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
const puppeteer = createRequire(path.join(cache, "transformer-tracer-web", "npm", "package.json"))("puppeteer-core");

// what a browser with WebAssembly SIMD downloads (the build without is the same size)
const page_files = ["index.html", "simd.js", "data.js", "transformer-tracer-simd.js", "transformer-tracer-simd.wasm",
                    "transformer-tracer.data", "sw.js", "manifest.webmanifest", "icon.svg"];
let raw = 0, gz = 0;
for (const f of page_files) {
  const b = fs.readFileSync(path.join(site, f));
  const z = zlib.gzipSync(b, { level: 9 }).length;
  raw += b.length;
  gz += z;
  console.log(`${f.padEnd(26)} ${String(b.length).padStart(9)} B  gzip -9 ${String(z).padStart(9)} B`);
}
console.log(`download: ${raw} B, ${(gz / 1e6).toFixed(2)} MB compressed (gzip -9)`);

const server = await serve(site, root);
const launch = () => puppeteer.launch({ executablePath: process.env.TT_CHROMIUM || "/usr/bin/chromium", headless: true,
                                        args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

// The trace first, in a browser of its own: after the program's page, Chromium
// goes on compiling the page's 2.2 MB of WebAssembly in the background for a
// while, on the same two CPUs, and the trace measured then is slower by half.
// Both builds: the one the page picks here (SIMD) and the one without.
let trace = "";
for (const query of ["", "&nosimd"]) {
  const browser = await launch();
  const page = await browser.newPage();
  await page.goto(`${server.origin}/bench.html?reps=${process.env.REPS || 500}${query}`);
  await page.waitForFunction(() => window.benchExit !== undefined, { timeout: 300000 });
  trace += (await page.$eval("#out", (e) => e.textContent)).trim() + "\n";
  await browser.close();
}

let browser = await launch();

const frames = [];
for (let i = 0; i < 7; i++) {
  const ctx = await browser.createBrowserContext();  // a fresh cache each time
  const page = await ctx.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  await page.goto(`${server.origin}/?nosw&src=the%20cat%20sits%20on%20the%20mat%20.`);
  await page.waitForFunction(() => window.Module && Module.ttFrames >= 1, { timeout: 60000 });
  frames.push(await page.evaluate(() => Module.ttFirstFrameMs));
  await ctx.close();
}
console.log(`first frame after opening the page: median ${median(frames).toFixed(0)} ms (${frames.map((x) => x.toFixed(0)).join(", ")})`);

console.log(trace);
await browser.close();
server.close();
