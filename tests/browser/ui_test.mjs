// The web UI end to end in a real browser: Debian's chromium driven by playwright-core against
// a real `mmkg serve` on a fresh store. Each step saves a screenshot to ARTIFACTS.
//
//   MMKG_BIN=/abs/build/mmkg node tests/browser/ui_test.mjs [ARTIFACTS]
//
// Env: MMKG_BIN (default build/mmkg), MMKG_UI_DIR (default build/ui), CHROMIUM (default
// /usr/bin/chromium).
// Exits 0 when every step passed, 1 naming the step that failed.

import { spawn, execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(new URL("../../ui/package.json", import.meta.url));
let chromium;
try {
  ({ chromium } = require("playwright-core"));
} catch {
  console.error("ui_test: playwright-core is missing: run `bash scripts/build_ui.sh build/ui` (npm ci in ui/) first");
  process.exit(1);
}

const ARTIFACTS = path.resolve(process.argv[2] ?? path.join(ROOT, "build/test-artifacts/browser"));
const BIN = path.resolve(process.env.MMKG_BIN ?? path.join(ROOT, "build/mmkg"));
const UI_DIR = path.resolve(process.env.MMKG_UI_DIR ?? path.join(ROOT, "build/ui"));
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const KEY = "ui-test-key";
const STEP_MS = 60_000;
const INGEST_MS = 240_000; // the sample corpus takes ~30 s with the native embedder on 2 cores
for (const [what, p] of [["mmkg binary (MMKG_BIN)", BIN], ["built UI (MMKG_UI_DIR)", path.join(UI_DIR, "index.html")], ["chromium (CHROMIUM)", CHROMIUM]]) {
  if (!fs.existsSync(p)) {
    console.error(`ui_test: no ${what} at ${p}`);
    process.exit(1);
  }
}
fs.mkdirSync(ARTIFACTS, { recursive: true });
for (const f of fs.readdirSync(ARTIFACTS)) if (f.endsWith(".png")) fs.rmSync(path.join(ARTIFACTS, f));

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mmkg-ui-test-"));
const store = path.join(tmp, "store");
const corpus = fs.readdirSync(path.join(ROOT, "examples/corpus")).filter((f) => !f.startsWith(".")).map((f) => path.join(ROOT, "examples/corpus", f));
const pdf = path.join(tmp, "quokkas.pdf");
// Two encyclopedic pages: "When was Ada Vale's father born?" walks from hers to his.
const wiki = [
  ["Ada Vale.md", "# Ada Vale\n\nAda Vale (12 May 1890 – 3 June 1951) was a British bridge engineer. She was the daughter of Tom Vale and Mary Vale.\n"],
  ["Tom Vale.md", "# Tom Vale\n\nTom Vale (1 January 1860 – 2 February 1930) was an English surveyor from Leeds.\n"],
].map(([name, text]) => {
  const f = path.join(tmp, name);
  fs.writeFileSync(f, text);
  return f;
});
const teamStore = path.join(tmp, "team");
const teamDoc = path.join(tmp, "team-notes.md");

let server = null;
let browser = null;
let page = null;
let shot = 0;
let passed = 0;
const pageErrors = [];

function log(msg) {
  console.log(`ui_test: ${msg}`);
}

// Two pages: where quokkas live (page 1); their counts by year with a bar chart, Figure 1 (page 2).
function makePdf() {
  const py = `
import sys, warnings
warnings.simplefilter("ignore")
import fitz
d = fitz.open()
p = d.new_page()
p.insert_textbox(fitz.Rect(72, 72, 520, 420), "Quokkas on Rottnest Island\\n\\nThe quokka is a small marsupial that lives on Rottnest Island, off the coast of Western Australia near Perth. Most quokkas live on Rottnest Island, where they roam freely among the dunes and salt lakes. Quokkas are herbivores and feed at night on grasses and leaves.", fontsize=12)
p = d.new_page()
p.insert_textbox(fitz.Rect(72, 72, 520, 200), "Quokka counts\\n\\nThe number of quokkas on Rottnest Island rose from 4000 in 2000 to 12000 in 2020, as Figure 1 shows.", fontsize=12)
pix = fitz.Pixmap(fitz.csRGB, fitz.IRect(0, 0, 300, 200), 0)
pix.clear_with(255)
for i, (h, c) in enumerate([(60, (200, 60, 60)), (120, (60, 120, 200)), (170, (60, 170, 90))]):
    for x in range(40 + i * 80, 90 + i * 80):
        for y in range(200 - h, 195):
            pix.set_pixel(x, y, c)
p.insert_image(fitz.Rect(72, 210, 372, 410), pixmap=pix)
p.insert_textbox(fitz.Rect(72, 415, 520, 470), "Figure 1: Quokka population on Rottnest Island by year.", fontsize=10)
d.save(sys.argv[1])
`;
  execFileSync("python3", ["-c", py, pdf], { stdio: ["ignore", "inherit", "inherit"] });
}

function startServer() {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, MMKG_API_KEY: KEY, MMKG_EMBEDDER: "native" };
    delete env.MMKG_STORE;
    delete env.MMKG_UI_DIR;
    // A second workspace, "team" (its own store, empty until the workspace step uploads to it).
    // --auth writes as a one-store server has (with --workspace the default is all).
    const args = ["serve", "--port", "0", "--store", store, "--ui", UI_DIR, "--auth", "writes", "--workspace", `team=${teamStore}`];
    server = spawn(BIN, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    const serverLog = fs.createWriteStream(path.join(ARTIFACTS, "server.log"));
    server.stderr.pipe(serverLog);
    let out = "";
    const timer = setTimeout(() => reject(new Error(`the server printed no URL within 60 s: ${out}`)), STEP_MS);
    server.stdout.on("data", (b) => {
      out += b;
      serverLog.write(b);
      const m = out.match(/serving .* on (http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1].replace(/\/$/, ""));
      }
    });
    server.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before it served: ${out}`));
    });
  });
}

async function stopServer() {
  if (!server || server.exitCode !== null) return;
  const exited = new Promise((r) => server.once("exit", r));
  server.kill("SIGTERM");
  const t = setTimeout(() => server.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(t);
}

async function screenshot(name) {
  const file = path.join(ARTIFACTS, `${String(++shot).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}

function withTimeout(promise, ms, what) {
  let t;
  return Promise.race([promise, new Promise((_, rej) => (t = setTimeout(() => rej(new Error(`${what}: timed out after ${ms / 1000} s`)), ms)))]).finally(() => clearTimeout(t));
}

async function step(name, fn, ms = STEP_MS) {
  const t0 = Date.now();
  try {
    await withTimeout(fn(), ms, name);
    const file = await screenshot(name);
    passed++;
    log(`ok   ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s) ${path.relative(process.cwd(), file)}`);
  } catch (e) {
    log(`FAIL ${name}: ${e?.stack ?? e}`);
    try {
      if (page) log(`failure screenshot: ${await screenshot(`FAILED-${name}`)}`);
    } catch {
      /* the page is gone */
    }
    await shutdown();
    console.log(`${passed} passed, 1 failed`);
    process.exit(1);
  }
}

async function shutdown() {
  try {
    await browser?.close();
  } catch {
    /* already closed */
  }
  await stopServer();
  fs.rmSync(tmp, { recursive: true, force: true });
}

function check(cond, msg) {
  if (!cond) throw new Error(msg);
}

const tid = (id) => `[data-testid="${id}"]`;

async function setKey(key) {
  await page.fill(tid("api-key"), key);
  await page.click(tid("api-key-save"));
  await page.waitForSelector(`${tid("api-key-state")}:has-text("saved")`);
}

async function ask(question) {
  await page.goto(`${BASE}/#ask`);
  await page.fill(tid("ask-input"), question);
  await page.click(tid("ask-submit"));
  await page.waitForSelector(`${tid("steps")} > li`, { timeout: STEP_MS });
  await page.waitForSelector(`${tid("answer")}, ${tid("ask-error")}`, { timeout: STEP_MS });
  check(!(await page.$(tid("ask-error"))), `the ask failed: ${await page.textContent(tid("answer-area"))}`);
  const before = Number(await page.getAttribute(tid("steps"), "data-before-answer"));
  check(before >= 1, `no step was streamed before the answer (data-before-answer=${before})`);
}

// ---------------------------------------------------------------------------------------------

process.on("SIGINT", async () => {
  await shutdown();
  process.exit(130);
});

makePdf();
fs.writeFileSync(teamDoc, "# Team notes\n\nThe Zorblax valve of the team rig opens at 42 kPa and closes at 17 kPa.\n");
log(`server: ${BIN} serve --store ${store} --ui ${UI_DIR}`);
const BASE = await startServer().catch(async (e) => {
  log(`FAIL start server: ${e.message}`);
  await shutdown();
  console.log("0 passed, 1 failed");
  process.exit(1);
});
log(`serving on ${BASE}; artifacts in ${ARTIFACTS}`);

browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: process.getuid?.() === 0 ? ["--no-sandbox"] : [],
});
const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
page = await context.newPage();
page.setDefaultTimeout(STEP_MS);
page.on("pageerror", (e) => pageErrors.push(String(e)));
page.on("console", (m) => {
  if (m.type() === "error") log(`browser console: ${m.text()}`);
});

await step("empty-store", async () => {
  await page.goto(`${BASE}/#docs`);
  await page.waitForSelector(tid("docs-empty"));
  check((await page.textContent(tid("health"))).includes("0 documents"), "the health line does not say 0 documents");
  check((await page.textContent(tid("api-key-state"))) === "not set", "the API key shows as set on a fresh browser");
});

await step("empty-graph", async () => {
  await page.goto(`${BASE}/#graph`);
  await page.waitForSelector(tid("graph-empty"));
});

await step("empty-store-ask", async () => {
  await page.goto(`${BASE}/#ask`);
  await page.waitForSelector(tid("ask-empty"));
  await page.fill(tid("ask-input"), "what is attention?");
  await page.click(tid("ask-submit"));
  // An empty store answers "not found" (or an error the UI shows): either way a clear message.
  await page.waitForSelector(`${tid("answer-notfound")}, ${tid("ask-error")}`);
});

await step("wrong-key", async () => {
  await page.goto(`${BASE}/#docs`);
  await setKey("not-the-key");
  await page.setInputFiles(tid("upload-input"), corpus[0]);
  await page.click(tid("upload-submit"));
  const err = await page.waitForSelector(tid("upload-key-error"));
  const text = await err.textContent();
  check(/API key/.test(text), `the 401 message does not ask for the API key: ${text}`);
});

await step("upload-progress", async () => {
  await setKey(KEY);
  await page.setInputFiles(tid("upload-input"), [...corpus, pdf, ...wiki]);
  await page.click(tid("upload-submit"));
  const card = `${tid("upload-card")}:first-child`;
  await page.waitForSelector(`${card} ${tid("upload-progress")}, ${card} ${tid("job-progress")}`, { state: "attached" });
  await page.waitForSelector(`${card}[data-state="ingesting"] ${tid("job-progress")}`);
  // A job label with a count, e.g. "Reading 1/4 · attention_wiki.txt".
  await page.waitForFunction((sel) => /\d+\/\d+/.test(document.querySelector(sel)?.textContent ?? ""), `${card} ${tid("job-label")}`);
});

await step(
  "upload-done",
  async () => {
    const card = `${tid("upload-card")}:first-child`;
    await page.waitForSelector(`${card} ${tid("job-status")}`, { timeout: INGEST_MS });
    const state = await page.getAttribute(`${card} ${tid("job-status")}`, "data-state");
    check(state === "done", `the ingest job ended ${state}: ${await page.textContent(card)}`);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="doc-row"]').length === 6);
    for (const name of [...corpus, pdf, ...wiki].map((p) => path.basename(p)))
      check(await page.$(`${tid("doc-row")}[data-doc="${name}"]`), `${name} is not listed`);
    const pdfRow = await page.textContent(`${tid("doc-row")}[data-doc="quokkas.pdf"]`);
    check(/pdf/i.test(pdfRow), `the PDF row does not show its format: ${pdfRow}`);
  },
  INGEST_MS + STEP_MS,
);

await step("ask-attention", async () => {
  await ask("what is attention?");
  await page.waitForSelector(tid("step-plan"));
  await page.waitForSelector(tid("step-retrieve"));
  await page.waitForSelector(tid("cite-1"));
  const text = await page.textContent(tid("answer-text"));
  check(/attention/i.test(text), `the answer does not talk about attention: ${text.slice(0, 200)}`);
});

await step("citation-text", async () => {
  await page.click(tid("cite-1"));
  await page.waitForSelector(`${tid("citation-panel")}:not([hidden]) ${tid("citation-text")}`);
  await page.waitForSelector(`${tid("citation-text")} mark`);
});

await step("ask-quokkas", async () => {
  await page.click(tid("citation-close"));
  await ask("where do quokkas live?");
  await page.waitForSelector(`${tid("answer-text")} .cite`);
  const text = await page.textContent(tid("answer-text"));
  check(/Rottnest/i.test(text), `the answer does not say Rottnest Island: ${text.slice(0, 200)}`);
});

await step("citation-pdf-page", async () => {
  const cite = page.locator(`${tid("answer-text")} .cite[title*="quokkas.pdf"]`).first();
  check((await cite.count()) === 1, "no citation of quokkas.pdf in the answer");
  await cite.click();
  await page.waitForSelector(`${tid("citation-panel")}:not([hidden]) ${tid("citation-page")}`);
  // The page image loads (the chunk's region highlighted) or the UI says it is not available.
  await page.waitForFunction(() => ["loaded", "missing"].includes(document.querySelector('[data-testid="citation-panel"]').dataset.pageImage));
  const state = await page.getAttribute(tid("citation-panel"), "data-page-image");
  if (state === "loaded") {
    const w = await page.$eval(tid("citation-page-image"), (img) => img.naturalWidth);
    check(w > 100, `the page image is ${w} px wide`);
    // The server says how many of the chunk's boxes it highlighted on the page. (The UI fetched
    // the image with the key and shows a blob: URL; data-src keeps the API URL.)
    const src = new URL(await page.$eval(tid("citation-page-image"), (img) => img.dataset.src), BASE).href;
    const res = await fetch(src, { headers: { "X-API-Key": KEY } });
    const boxes = res.headers.get("x-highlight-boxes");
    check(Number(boxes) > 0, `the page image highlights no box of the chunk (X-Highlight-Boxes: ${boxes}) for ${src}`);
  } else {
    check(false, "the page image did not load (GET /api/documents/{key}/pages/{n}/image)");
  }
  const marked = await page.textContent(`${tid("citation-text")} mark`);
  check(/Rottnest/.test(marked), `the quote marked in the passage is not about Rottnest: ${marked}`);
  // Scroll the panel to the top so the screenshot shows the page.
  await page.$eval(tid("citation-panel"), (p) => (p.scrollTop = 0));
});

await step("ask-follow-up", async () => {
  // The conversation so far ends with "where do quokkas live?": "they" are the quokkas.
  await page.click(tid("citation-close"));
  await ask("what do they eat?");
  const read = await page.textContent(tid("step-rewrite"));
  check(/read as: What do quokkas eat\?/.test(read), `the follow-up was not made standalone: ${read}`);
  const text = await page.textContent(tid("answer-text"));
  check(/grasses|leaves/i.test(text), `the follow-up's answer does not say what quokkas eat: ${text.slice(0, 200)}`);
  const last = await page.locator(tid("turn")).last().textContent();
  check(/read as: What do quokkas eat\?/.test(last), `the conversation does not show how the follow-up was read: ${last}`);
  await screenshot("ask-follow-up-conversation");
  await page.click(tid("new-conversation"));
  check((await page.locator(tid("turn")).count()) === 0, "New conversation left earlier turns");
});

await step("ask-figure", async () => {
  await ask("how did the number of quokkas change by year?");
  const img = `${tid("answer-figure")} img`;
  await page.waitForSelector(img);
  await page.waitForFunction((sel) => document.querySelector(sel)?.complete && document.querySelector(sel).naturalWidth > 0, img);
  check(/Figure 1/.test(await page.textContent(tid("answer-figure"))), "the cited figure's caption does not name Figure 1");
  // The retrieve step's thumbnail says where the figure is as its citation does.
  const thumb = page.locator(`${tid("step-retrieve")} ${tid("step-figures")} figure`).first();
  const title = await thumb.getAttribute("title");
  check(title === "quokkas.pdf, page 2, Figure 1", `the step's figure thumbnail says "${title}"`);
});

await step("ask-entity-to-graph", async () => {
  const chip = page.locator(`${tid("step-entities")} ${tid("entity-chip")}`).first();
  const name = (await chip.textContent()).trim();
  await chip.click();
  await page.waitForSelector(`${tid("view-graph")}:not([hidden])`);
  await page.waitForFunction((t) => document.querySelector('[data-testid="graph-canvas"]')?.dataset.center === t, name);
  await page.waitForTimeout(300);
});

await step("graph-overview", async () => {
  // The Graph tab without a name opens on the most connected entities, paged.
  await page.goto(`${BASE}/#graph`);
  await page.waitForSelector(tid("graph-overview"));
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="graph-canvas"]')?.dataset.nodeCount) > 1);
  const n = await page.locator(`${tid("graph-overview-list")} li`).count();
  check(n === Number(await page.getAttribute(tid("graph-canvas"), "data-node-count")), `${n} entities listed, not the nodes drawn`);
  check(Number(await page.getAttribute(tid("graph-canvas"), "data-edge-count")) > 0, "the overview draws no links");
  const first = (await page.locator(`${tid("graph-overview-list")} li a`).first().textContent()).trim();
  check(/^page 1 of \d+$/.test((await page.textContent(tid("graph-page"))).trim()), "no page count");
  await page.click(tid("graph-next"));
  await page.waitForFunction(() => /^page 2 /.test(document.querySelector('[data-testid="graph-page"]')?.textContent ?? ""));
  const second = (await page.locator(`${tid("graph-overview-list")} li a`).first().textContent()).trim();
  check(second !== first, "page 2 lists the same entities");
  await page.click(tid("graph-prev"));
  await page.waitForFunction(() => /^page 1 /.test(document.querySelector('[data-testid="graph-page"]')?.textContent ?? ""));
  await page.waitForTimeout(300); // let the canvas paint for the screenshot
});

await step("graph-overview-open", async () => {
  const first = (await page.locator(`${tid("graph-overview-list")} li a`).first().textContent()).trim();
  await page.locator(`${tid("graph-overview-list")} li a`).first().click();
  await page.waitForFunction((t) => document.querySelector('[data-testid="graph-canvas"]')?.dataset.center === t, first);
  await page.waitForTimeout(300);
});

await step("graph-attention", async () => {
  await page.click(tid("nav-graph"));
  await page.fill(tid("graph-input"), "attention");
  await page.click(tid("graph-submit"));
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="graph-canvas"]')?.dataset.nodeCount) > 1);
  await page.waitForSelector(`${tid("graph-canvas")} canvas`);
  const n = Number(await page.getAttribute(tid("graph-canvas"), "data-node-count"));
  check(n > 1, `${n} nodes`);
  check((await page.textContent(tid("graph-entity-name"))).toLowerCase() === "attention", "the entity shown is not attention");
  await page.waitForTimeout(300); // let the canvas paint for the screenshot
});

await step("graph-click-node", async () => {
  // Click a neighbour on the canvas itself (its position from the Cytoscape instance).
  const hit = await page.$eval(tid("graph-canvas"), (el) => {
    const n = el.cy.nodes().not(".center")[0];
    const p = n.renderedPosition();
    const r = el.getBoundingClientRect();
    return { x: r.left + p.x, y: r.top + p.y, label: n.data("label") };
  });
  await page.mouse.click(hit.x, hit.y);
  await page.waitForFunction((t) => document.querySelector('[data-testid="graph-canvas"]')?.dataset.center === t, hit.label);
  check((await page.textContent(tid("graph-entity-name"))) === hit.label, `the graph did not re-centre on ${hit.label}`);
  check(Number(await page.getAttribute(tid("graph-canvas"), "data-node-count")) > 1, "the re-centred graph has no neighbours");
  await page.waitForTimeout(300);
});

await step("graph-evidence", async () => {
  await page.goBack(); // back to attention
  await page.waitForFunction(() => document.querySelector('[data-testid="graph-canvas"]')?.dataset.center === "attention");
  await page.locator(`${tid("graph-neighbors")} li .nb-name`).first().click();
  await page.locator(`${tid("graph-neighbors")} li .evidence-item`).first().click();
  await page.waitForSelector(`${tid("citation-panel")}:not([hidden]) ${tid("citation-text")} mark`);
  await page.click(tid("citation-close"));
});

await step("graph-not-found", async () => {
  await page.fill(tid("graph-input"), "zzqxv nonexistent entity");
  await page.click(tid("graph-submit"));
  const err = await page.waitForSelector(tid("graph-error"));
  check(/no entity/i.test(await err.textContent()), "the not-found message is not shown");
});

await step("ask-direct-path", async () => {
  // A two-hop factoid: the one-line answer, then the path the walk took (each entity a link).
  await ask("When was Ada Vale's father born?");
  await page.waitForSelector(tid("answer-path"));
  const text = await page.textContent(tid("answer-text"));
  check(text.trim().startsWith("1 January 1860"), `the answer does not open with the date: ${text.slice(0, 120)}`);
  const hops = (await page.locator(`${tid("answer-hops")} .chip`).allTextContents()).map((t) => t.trim());
  check(hops.join(" > ") === "Ada Vale > Tom Vale", `the path shows ${hops.join(" > ")}`);
  check(/father/.test(await page.textContent(tid("answer-path"))), "the path does not name the relation");
});

await step("delete-wrong-key", async () => {
  await page.goto(`${BASE}/#docs`);
  await setKey("not-the-key");
  await page.waitForSelector(`${tid("doc-row")}[data-doc="attention_wiki.txt"]`);
  page.once("dialog", (d) => d.accept());
  await page.click(`${tid("doc-row")}[data-doc="attention_wiki.txt"] ${tid("doc-delete")}`);
  const err = await page.waitForSelector(tid("docs-write-error"));
  check(/API key/.test(await err.textContent()), "the 401 on delete does not ask for the API key");
  check(await page.$(`${tid("doc-row")}[data-doc="attention_wiki.txt"]`), "the document went although the key was wrong");
});

await step("delete", async () => {
  await setKey(KEY);
  page.once("dialog", (d) => d.accept());
  await page.click(`${tid("doc-row")}[data-doc="attention_wiki.txt"] ${tid("doc-delete")}`);
  await page.waitForSelector(tid("docs-deleted"));
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="doc-row"]').length === 5);
  check(!(await page.$(`${tid("doc-row")}[data-doc="attention_wiki.txt"]`)), "attention_wiki.txt is still listed");
});

await step("workspace-switch", async () => {
  // The switch lists both workspaces; "team" starts empty, takes an upload, and answers from it
  // alone; back in "default" the sample corpus is there and the team's document is not.
  await page.goto(`${BASE}/#docs`);
  await page.waitForSelector(`${tid("workspace-box")}:not([hidden])`);
  const options = await page.$$eval(`${tid("workspace")} option`, (os) => os.map((o) => o.value));
  check(options.join(",") === "default,team", `the workspace switch offers ${options}`);
  await page.waitForSelector(`${tid("doc-row")}[data-doc="quokkas.pdf"]`);
  await page.selectOption(tid("workspace"), "team");
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="doc-row"]').length === 0);
  await page.waitForSelector(`${tid("health")}:has-text("0 documents")`);
  await page.setInputFiles(tid("upload-input"), teamDoc);
  await page.click(tid("upload-submit"));
  await page.waitForSelector(`${tid("job-status")}[data-state="done"]`, { timeout: INGEST_MS });
  await page.waitForSelector(`${tid("doc-row")}[data-doc="team-notes.md"]`);
  check((await page.$$(tid("doc-row"))).length === 1, "the team workspace lists another workspace's documents");
  await ask("At what pressure does the Zorblax valve open?");
  await page.waitForSelector(`${tid("answer-text")} .cite`);
  const cites = await page.$$eval(`${tid("answer-text")} .cite`, (cs) => cs.map((c) => c.getAttribute("title") ?? ""));
  check(cites.length > 0 && cites.every((t) => t.includes("team-notes.md")), `the team answer cites ${cites}`);
  const text = await page.textContent(tid("answer-text"));
  check(/42 kPa/.test(text), `the team answer does not say 42 kPa: ${text.slice(0, 200)}`);
  await screenshot("workspace-team-answer");
  await page.goto(`${BASE}/#docs`);
  await page.selectOption(tid("workspace"), "default");
  await page.waitForSelector(`${tid("doc-row")}[data-doc="quokkas.pdf"]`);
  check(!(await page.$(`${tid("doc-row")}[data-doc="team-notes.md"]`)), "the default workspace lists the team's document");
}, INGEST_MS);

await step("no-page-errors", async () => {
  check(pageErrors.length === 0, `uncaught errors in the page: ${pageErrors.join(" | ")}`);
});

await shutdown();
console.log(`${passed} passed, 0 failed`);
