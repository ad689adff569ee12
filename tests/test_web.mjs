// The web build (tools/build-web.sh) in headless Chromium, driven through
// puppeteer-core: the page served from 127.0.0.1, its first frame, keys and
// clicks, views read back from the canvas and compared with the native
// goldens (tests/golden, the tolerance of tests/app_fixture.c), a lesson
// stepped and its question revealed, a typed sentence traced, an export
// downloaded as a valid PNG, and bad input answered in the status line with
// the desktop's messages.
//
// node tests/test_web.mjs [NATIVE_PROGRAM]   exit 77 (skipped) without the web
// build, Chromium or puppeteer-core. TT_WEB_SHOTS=DIR also saves the README's
// screenshots there (TT_WEB_SHOTS=docs).
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";

import { serve } from "./web_server.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const site = process.env.TT_WEB_SITE || path.join(root, "build-wasm", "site");
const chromium = process.env.TT_CHROMIUM || "/usr/bin/chromium";
const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
const npm = path.join(cache, "transformer-tracer-web", "npm");
const native = process.argv[2];
const SENTENCE = "the cat sits on the mat .";
// tests/app_fixture.c: a pixel differs beyond 3 × 6² of squared RGB distance; at most 0.5% may
const ALLOWABLE_ERROR = 3 * 6 * 6, MAX_DIFFERING = 0.005;

// Skipped (77) where there is no web build; where one is required (.ci/run
// sets TT_WEB_REQUIRED=1, having built it), its absence fails the test.
function skip(why) {
  if (process.env.TT_WEB_REQUIRED) {
    console.log(`FAIL: ${why}`);
    process.exit(1);
  }
  console.log(`SKIP: ${why}`);
  process.exit(77);
}
if (!fs.existsSync(path.join(site, "transformer-tracer.wasm"))) skip(`no web build in ${site} (bash tools/build-web.sh)`);
// the folder's sources against the tree's (tools/build-web.sh writes sources.sha256)
function sourcesHash() {
  const files = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(path.join(root, d), { withFileTypes: true }))
      e.isDirectory() ? walk(`${d}/${e.name}`) : files.push(`${d}/${e.name}`);
  };
  ["src", "lessons", "assets", "web"].forEach(walk);
  files.sort();
  const lines = files.map((f) => `${crypto.createHash("sha256").update(fs.readFileSync(path.join(root, f))).digest("hex")}  ${f}\n`);
  return crypto.createHash("sha256").update(lines.join("")).digest("hex");
}
const built = fs.existsSync(path.join(site, "sources.sha256")) ? fs.readFileSync(path.join(site, "sources.sha256"), "utf8").trim() : "";
if (built !== sourcesHash()) skip(`the web build in ${site} is older than the sources (bash tools/build-web.sh)`);
if (!fs.existsSync(chromium)) skip(`no ${chromium} (apt-get install chromium)`);
let puppeteer;
try {
  puppeteer = createRequire(path.join(npm, "package.json"))("puppeteer-core");
} catch {
  skip(`no puppeteer-core in ${npm} (bash tools/build-web.sh installs it)`);
}

let failures = 0, passes = 0;
function check(ok, what, detail = "") {
  if (ok) passes++;
  else failures++;
  console.log(`${ok ? "ok" : "FAIL"}: ${what}${detail ? ` (${detail})` : ""}`);
}

const server = await serve(site, root);
const origin = server.origin;

const downloads = fs.mkdtempSync(path.join(os.tmpdir(), "tt-web-"));
const shots = process.env.TT_WEB_SHOTS;
const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--force-device-scale-factor=1"],
});
const timeout = (ms, what) => new Promise((_, no) => setTimeout(() => no(new Error(`timed out: ${what}`)), ms));

// Opens the page with a query; waits for its first frame. Returns the page.
async function open(query, sw = false) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800, deviceScaleFactor: 1 });
  page.on("pageerror", (e) => console.log(`page error: ${e.message}`));
  const cdp = await page.createCDPSession();
  await cdp.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: downloads });
  await page.goto(`${origin}/${query}${sw ? "" : (query ? "&" : "?") + "nosw"}`);
  const lines = [];
  page.on("console", (m) => lines.push(m.text()));
  try {
    await page.waitForFunction(() => window.Module && Module.ttFrames >= 1, { timeout: 30000 });
  } catch (e) {
    throw new Error(`no first frame of ${query}; the page's console:\n${lines.join("\n")}`);
  }
  return page;
}

// The program's state: {step, stage, head, dstep, lesson_step, revealed, list, frames}, sentence, status.
async function state(page) {
  const text = await page.evaluate(() => Module.ccall("tt_web_state", "string", [], []));
  const [json, sentence, ...status] = text.split("\n");
  return { ...JSON.parse(json), sentence, status: status.join("\n") };
}

// Waits until the program drew a frame after now (the loop runs on the browser's frames).
async function settle(page) {
  const before = (await state(page)).frames;
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  await page.waitForFunction((n) => Module.ttFrames >= n, { timeout: 5000 }, before).catch(() => {});
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
}

async function press(page, key, times = 1) {
  for (let i = 0; i < times; i++) await page.keyboard.press(key);
  await settle(page);
}

// The canvas against tests/golden/NAME.png: {differing, total} or {error}.
async function compare(page, name) {
  return page.evaluate(async (name, allowable) => {
    const c = document.getElementById("canvas");
    const got = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    const img = new Image();
    img.src = `/golden/${name}.png`;
    await img.decode();
    if (img.width !== c.width || img.height !== c.height)
      return { error: `canvas ${c.width}x${c.height}, golden ${img.width}x${img.height}` };
    const g = document.createElement("canvas");
    g.width = img.width;
    g.height = img.height;
    const gx = g.getContext("2d");
    gx.drawImage(img, 0, 0);
    const want = gx.getImageData(0, 0, g.width, g.height).data;
    let differing = 0;
    for (let i = 0; i < want.length; i += 4) {
      const dr = got[i] - want[i], dg = got[i + 1] - want[i + 1], db = got[i + 2] - want[i + 2];
      if (dr * dr + dg * dg + db * db > allowable) differing++;
    }
    return { differing, total: want.length / 4 };
  }, name, ALLOWABLE_ERROR);
}

async function canvasPng(page) {
  const url = await page.evaluate(() => document.getElementById("canvas").toDataURL("image/png"));
  return Buffer.from(url.split(",")[1], "base64");
}

async function shot(page, name) {
  if (!shots) return;
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, `screenshot-${name}.png`) });
}

// A PNG whose chunks' CRCs hold and whose pixels inflate to its size: [w, h] or null.
function pngSize(buf) {
  const sig = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);
  if (buf.length < 8 || !buf.subarray(0, 8).equals(sig)) return null;
  let at = 8, w = 0, h = 0, bpp = 0, idat = [], end = false;
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b) => { let c = 0xffffffff; for (const x of b) c = crcTable[(c ^ x) & 0xff] ^ (c >>> 8); return (c ^ 0xffffffff) >>> 0; };
  while (at + 12 <= buf.length && !end) {
    const len = buf.readUInt32BE(at), type = buf.toString("latin1", at + 4, at + 8);
    if (at + 12 + len > buf.length) return null;
    if (crc(buf.subarray(at + 4, at + 8 + len)) !== buf.readUInt32BE(at + 8 + len)) return null;
    const data = buf.subarray(at + 8, at + 8 + len);
    if (type === "IHDR") {
      w = data.readUInt32BE(0);
      h = data.readUInt32BE(4);
      bpp = { 2: 3, 6: 4, 0: 1, 4: 2 }[data[9]] * (data[8] / 8);
    } else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") end = true;
    at += 12 + len;
  }
  if (!end || !w || !h) return null;
  try {
    return zlib.inflateSync(Buffer.concat(idat)).length === h * (1 + w * bpp) ? [w, h] : null;
  } catch {
    return null;
  }
}

// The exports in the downloads folder, and the ones that came after a listing of them.
const exported = () => fs.readdirSync(downloads).filter((f) => /\.(png|csv)$/.test(f) && !f.includes(".actual."));
function downloaded(before) {
  return Promise.race([
    (async () => {
      for (;;) {
        const files = exported().filter((f) => !before.includes(f));
        if (files.some((f) => f.endsWith(".png")) && files.some((f) => f.endsWith(".csv"))) return files;
        await new Promise((ok) => setTimeout(ok, 100));
      }
    })(),
    timeout(10000, "the export's download"),
  ]).catch((e) => [String(e)]);
}

async function save(page) {  // Ctrl+S: the view as PNG and CSV
  await page.keyboard.down("Control");
  await page.keyboard.press("KeyS");
  await page.keyboard.up("Control");
  await settle(page);
}

// What the desktop program says of a bad file, without its path: the same line the page must show.
function desktopMessage(args, file) {
  if (!native) return null;
  try {
    execFileSync(native, args, { stdio: "pipe", env: { ...process.env, DISPLAY: "", WAYLAND_DISPLAY: "" } });
  } catch (e) {
    // lint lists problems on stdout, other commands say theirs on stderr
    const out = e.stdout.toString() || e.stderr.toString();
    const line = out.split("\n")[0].replace(/^transformer-tracer: /, "");
    return line.split(file).join("FILE");
  }
  return null;
}

async function main() {
  // ---- the first frame, and views against the native goldens ----------------------
  const t0 = Date.now();
  let page = await open(`?src=${encodeURIComponent(SENTENCE)}`);
  const firstFrame = await page.evaluate(() => Module.ttFirstFrameMs);
  console.log(`first frame: ${firstFrame.toFixed(0)} ms after the page was opened (${Date.now() - t0} ms with the browser's tab)`);
  let s = await state(page);
  await new Promise((ok) => setTimeout(ok, 1000));
  const idle = await state(page);
  check(idle.passes === s.passes && idle.frames === s.frames, "nothing changes: the loop stays paused",
        `${idle.passes - s.passes} passes, ${idle.frames - s.frames} frames in a second`);
  check(s.sentence === SENTENCE && s.steps > 100, "the URL's sentence is traced", `${s.steps} steps of "${s.sentence}"`);
  const goldens = [
    ["src.tokens", "src.tokens", 0, 0, []],
    ["src.embed", "src.embed", 0, 0, []],
    ["enc.L1.self_attn.weights", "enc.L1.self_attn.weights", 1, 0, []],
    ["enc.L1.self_attn.weights.grid", "enc.L1.self_attn.weights", 1, 0, ["g"]],
    ["enc.L1.self_attn.weights.dark", "enc.L1.self_attn.weights", 1, 0, ["t"]],
    ["dec.L2.cross_attn.weights", "dec.L2.cross_attn.weights", 2, 5, []],
    ["dec.L2.cross_attn.weights.lines", "dec.L2.cross_attn.weights", 1, 5, ["v"]],
    ["dec.probs", "dec.probs", 0, 3, []],
    ["dec.L1.self_attn.weights.zh-TW", "dec.L1.self_attn.weights", 1, 5, ["F2"]],
  ];
  for (const [name, stage, head, dstep, keys] of goldens) {
    const i = await page.evaluate((id, h, d) => Module.ccall("tt_web_go", "number", ["string", "number", "number"], [id, h, d]),
                                  stage, head, dstep);
    await settle(page);
    for (const k of keys) await press(page, k);
    const r = await compare(page, name);
    const ok = i >= 0 && !r.error && r.differing <= MAX_DIFFERING * r.total;
    check(ok, `the canvas equals the golden ${name}`, r.error || `${r.differing} of ${r.total} pixels differ`);
    if (!ok) fs.writeFileSync(path.join(downloads, `${name}.actual.png`), await canvasPng(page));
    for (const k of keys) await press(page, k);  // back as it was
  }

  // ---- keys and clicks --------------------------------------------------------------
  await page.evaluate(() => Module.ccall("tt_web_go", "number", ["string", "number", "number"], ["src.tokens", 0, 0]));
  await settle(page);
  await press(page, "ArrowRight", 3);
  s = await state(page);
  check(s.step === 3, "→ three times goes three steps on", `step ${s.step}`);
  await press(page, "End");
  s = await state(page);
  check(s.step === s.steps - 1, "End goes to the last step", `step ${s.step} of ${s.steps}`);
  const plain = await canvasPng(page);
  const help = JSON.parse(await page.evaluate(() => Module.ccall("tt_web_button", "string", ["string"], ["help"])));
  check(help.w > 0, "the help button is drawn", JSON.stringify(help));
  await page.mouse.click(help.x + help.w / 2, help.y + help.h / 2);
  await settle(page);
  const withHelp = await canvasPng(page);
  check(!withHelp.equals(plain), "a click on the help button shows the help");
  await shot(page, "web-help");
  await press(page, "Escape");
  // the page's key for the browser's Ctrl+L: type a sentence, Enter traces it
  const typed = "the big dog sits on the red mat .";
  await page.keyboard.down("Alt");
  await page.keyboard.press("KeyL");
  await page.keyboard.up("Alt");
  await settle(page);
  for (let i = 0; i < 40; i++) await page.keyboard.press("Backspace");
  await page.keyboard.type(typed);
  await press(page, "Enter");
  s = await state(page);
  check(s.sentence === typed && s.steps > 100 && s.status === "", "a typed sentence is traced", `"${s.sentence}", ${s.steps} steps, status "${s.status}"`);

  // ---- export: Ctrl+S downloads the view as PNG and its numbers as CSV ---------------
  await page.evaluate(() => Module.ccall("tt_web_go", "number", ["string", "number", "number"], ["enc.L1.self_attn.weights", 1, 0]));
  await settle(page);
  let before = exported();
  await save(page);
  const saved = await downloaded(before);
  const png = saved.find((f) => f.endsWith(".png"));
  const size = png ? pngSize(fs.readFileSync(path.join(downloads, png))) : null;
  check(size !== null && size[0] > 100 && size[1] > 100, "Ctrl+S downloads a valid PNG", `${saved.join(", ")}: ${size}`);
  const csv = saved.find((f) => f.endsWith(".csv"));
  check(csv && fs.readFileSync(path.join(downloads, csv), "utf8").split("\n").length > 3, "and its numbers as CSV", csv);
  s = await state(page);
  check(s.status.startsWith("Saved "), "the status line says it was saved", s.status);

  // ---- the numbers: the desktop's, bit for bit, in both builds ---------------------
  // the next-token probabilities of the last decoding step: every layer's work is in them
  check(await page.evaluate(() => Module.ttProgram) === "transformer-tracer-simd", "Chromium runs the build with SIMD",
        await page.evaluate(() => Module.ttProgram));
  let want = null;
  if (native) {  // the trace writes the masked scores' −∞ as -Infinity, which JSON.parse does not read
    const json = path.join(downloads, "native.json");
    execFileSync(native, ["trace", "--src", typed, "--out", json], { stdio: "pipe" });
    want = JSON.parse(fs.readFileSync(json, "utf8").replace(/-Infinity/g, "-1e999")).steps.filter((t) => t.stage === "dec.probs").pop();
  }
  const sameNumbers = async (p, build) => {
    if (!want) return;
    await p.evaluate((d) => Module.ccall("tt_web_go", "number", ["string", "number", "number"], ["dec.probs", 0, d]), want.step);
    await settle(p);
    for (const f of exported()) if (f.startsWith("tracer-dec.probs")) fs.rmSync(path.join(downloads, f));  // the same name again
    const before = exported();
    await save(p);
    const file = (await downloaded(before)).find((f) => f.endsWith(".csv"));
    const rows = file ? fs.readFileSync(path.join(downloads, file), "utf8").trim().split("\n").slice(1) : [];
    const got = rows.map((r) => r.split(",").slice(-want.values[0].length).map(Number));
    const same = got.length === want.values.length && got.every((r, i) => r.every((v, j) => v === want.values[i][j]));
    check(same, `the page ${build}: P(next token) at decoding step ${want.step} equals the desktop's in every digit`,
          `${file}: ${got.length} × ${got[0] ? got[0].length : 0}`);
  };
  await sameNumbers(page, "with SIMD");
  const scalar = await open(`?nosimd&src=${encodeURIComponent(typed)}`);  // the tab in front: the other one draws no frames
  check(await scalar.evaluate(() => Module.ttProgram) === "transformer-tracer", "?nosimd runs the build without");
  await sameNumbers(scalar, "without SIMD");
  await scalar.close();
  await page.bringToFront();

  // ---- a bad file picked: the desktop's one line in the status line ----------------
  const bad = path.join(downloads, "bad.lesson");
  fs.writeFileSync(bad, "title: broken\n[step]\nstage: no.such.stage\n");
  const pick = await page.$("#pick");
  await pick.uploadFile(bad);
  await page.waitForFunction(() => Module.ccall("tt_web_state", "string", [], []).includes("bad.lesson"), { timeout: 5000 }).catch(() => {});
  s = await state(page);
  const wantLesson = desktopMessage(["lint", bad], bad);
  console.log(`  desktop: ${wantLesson}\n  page:    ${s.status}`);
  check(s.status.startsWith("/upload/bad.lesson:") && !s.status.includes("\n") &&
        (!wantLesson || s.status.split("/upload/bad.lesson").join("FILE") === wantLesson),
        "a bad lesson picked: its first problem in the status line, as on the desktop", s.status);
  const badList = path.join(downloads, "sentences.txt");
  fs.writeFileSync(badList, "the cat sits .\n\x01bad\n");
  await pick.uploadFile(badList);
  await page.waitForFunction(() => Module.ccall("tt_web_state", "string", [], []).includes("sentences.txt"), { timeout: 5000 }).catch(() => {});
  s = await state(page);
  const wantList = desktopMessage(["window", "--sentences", badList], badList);
  console.log(`  desktop: ${wantList}\n  page:    ${s.status}`);
  check(s.status.includes("/upload/sentences.txt") && (!wantList || s.status.split("/upload/sentences.txt").join("FILE") === wantList),
        "a bad sentence list picked: the desktop's message in the status line", s.status);
  const goodList = path.join(downloads, "class.txt");
  fs.writeFileSync(goodList, "the cat sits on the mat .\nthe small dog sits .\n");
  await pick.uploadFile(goodList);
  await page.waitForFunction(() => Module.ccall("tt_web_state", "string", [], []).includes('"list":0'), { timeout: 5000 }).catch(() => {});
  await page.keyboard.down("Alt");
  await page.keyboard.press("PageDown");
  await page.keyboard.up("Alt");
  await settle(page);
  s = await state(page);
  check(s.list === 1 && s.sentence === "the small dog sits .", "a sentence list picked; Alt+Page Down goes to its next sentence",
        `list ${s.list}, "${s.sentence}"`);
  await page.close();

  // ---- a lesson from the URL: stepped, its question revealed ----------------------
  page = await open("?lesson=01-overview");
  s = await state(page);
  check(s.lesson_step === 0, "?lesson=01-overview opens the lesson", `lesson step ${s.lesson_step}, status "${s.status}"`);
  await press(page, "ArrowRight");
  s = await state(page);
  check(s.lesson_step === 1 && !s.revealed, "→ goes to the lesson's next step, its question not yet answered", JSON.stringify(s));
  await press(page, "Digit2");
  await press(page, "Enter");
  s = await state(page);
  check(s.revealed, "a choice and Enter reveal the answer", JSON.stringify(s));
  await shot(page, "web-question");
  await page.close();

  // ---- a training history: not in the page's data, downloaded when first shown -------
  // (lesson 11's second step opens it; the third wants the snapshot at step 25)
  const snapshotShown = (p, want) => p.waitForFunction((w) => JSON.parse(Module.ccall("tt_web_state", "string", [], []).split("\n")[0]).snapshot === w,
                                                        { timeout: 30000 }, want).then(() => true, () => false);
  page = await open("?lesson=11-how-attention-learns");
  await press(page, "ArrowRight");
  check(await snapshotShown(page, 0), "lesson 11's history step: the history is downloaded, then its first snapshot shown",
        JSON.stringify(await state(page)));
  await press(page, "ArrowRight");
  s = await state(page);
  check(s.snapshot === 1, "the next lesson step shows the snapshot at step 25", JSON.stringify(s));
  await shot(page, "web-history");
  s = await state(page);
  check(s.fetching === -1, "no longer downloading once shown", JSON.stringify(s));
  // a model the server has no history of (the untrained twin): nothing asked for, as on the desktop
  await press(page, "Escape");  // explore
  await press(page, "KeyD");    // settings: the model is the first line; en-zh-random is before en-zh
  await press(page, "ArrowLeft");
  await press(page, "Escape");
  if (!(await state(page)).history) await press(page, "KeyH");  // (the lesson's page may have stayed open)
  s = await state(page);
  const asked = server.requests.filter((r) => r.includes("/histories/en-zh-random")).length;
  check(s.status.includes("en-zh-random") && s.history && s.fetching === -1 && s.snapshot === -1 && asked === 0,
        "a model with no history on the server: none asked for", `${asked} requests; ${JSON.stringify(s)}`);
  await page.close();

  // ---- bad input in the URL --------------------------------------------------------
  page = await open("?lesson=no-such-lesson");
  s = await state(page);
  const wantMissing = desktopMessage(["lint", "/nonexistent/no-such-lesson.lesson"], "/nonexistent/no-such-lesson.lesson");
  console.log(`  desktop: ${wantMissing}\n  page:    ${s.status}`);
  check(s.status.includes("/data/lessons/no-such-lesson.lesson") &&
        (!wantMissing || s.status.split("/data/lessons/no-such-lesson.lesson").join("FILE") === wantMissing),
        "an unknown lesson in the URL: the desktop's message in the status line", s.status);
  await page.close();
  const long = Array(300).fill("the cat").join(" ");
  page = await open(`?src=${encodeURIComponent(long)}`);
  s = await state(page);
  check(/^The sentence has \d+ tokens; this model takes at most \d+$/.test(s.status), "an over-long URL sentence: one line in the status line",
        s.status);
  await page.close();

  // ---- the bare page: the lesson picker, offline after the first visit -------------
  page = await open("", true);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null ||
                                   navigator.serviceWorker.ready.then(() => true), { timeout: 10000 }).catch(() => {});
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.reload();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, { timeout: 10000 }).catch(() => {});
  // a history shown once online is kept: offline it shows again
  await page.goto(`${origin}/?lesson=11-how-attention-learns`);
  await page.waitForFunction(() => window.Module && Module.ttFrames >= 1, { timeout: 30000 });
  await press(page, "ArrowRight");
  check(await snapshotShown(page, 0), "with the service worker: the history downloaded and shown");
  // kept apart from the page's files, in a cache a new build with the same histories keeps (web/sw.js)
  const kept = await page.evaluate(async () => {
    for (const k of await caches.keys())
      if (k.startsWith("transformer-tracer-histories-") && await (await caches.open(k)).match("histories/en-zh.snapshots.safetensors")) return k;
    return null;
  });
  check(kept !== null, "the history is kept in the histories' own cache", String(kept));
  await page.setOfflineMode(true);
  server.down(true);
  await page.reload();
  const offline = await page.waitForFunction(() => window.Module && Module.ttFrames >= 1, { timeout: 30000 }).then(() => true, () => false);
  check(offline, "offline, the page opens again from its service worker's copy");
  await press(page, "ArrowRight");
  check(await snapshotShown(page, 0), "offline, the history shown before shows again");
  // one never shown cannot come offline: the page says so and goes on working
  await page.goto(`${origin}/?lesson=04-generation`);
  await page.waitForFunction(() => window.Module && Module.ttFrames >= 1, { timeout: 30000 });
  await press(page, "Escape");  // explore: H is the history of en-fr, never downloaded
  await press(page, "KeyH");
  await new Promise((ok) => setTimeout(ok, 1000));
  await settle(page);
  s = await state(page);
  await press(page, "KeyH");
  await press(page, "ArrowLeft");
  const after = await state(page);
  check(s.history && s.snapshot === -1 && s.fetching === -1 && after.step === s.step - 1,
        "offline, a history never shown: not waiting for ever, and the page goes on",
        `${JSON.stringify(s)} then step ${after.step}`);
  await page.setOfflineMode(false);
  server.down(false);
  await page.close();
}

try {
  await main();
} catch (e) {
  failures++;
  console.log(`FAIL: ${e.stack || e}`);
} finally {
  await browser.close();
  server.close();
}
console.log(`${passes} passed, ${failures} failed`);
if (failures) console.log(`files kept in ${downloads}`);
else fs.rmSync(downloads, { recursive: true, force: true });
process.exit(failures ? 1 : 0);
