// The Ask view: a question, the agent's steps as they stream in, then the answer with
// clickable citation markers and the cited figures.

import { api, type AskResult, type Citation, type DirectAnswer, type Step, streamSSE } from "./api";
import { busyBox, clear, emptyBox, errorBox, fmtMs, h, apiImg } from "./dom";
import { openCitation } from "./citation";

const STEP_TITLES: Record<string, string> = {
  rewrite: "Follow-up",
  plan: "Plan",
  graph: "Knowledge graph",
  figures: "Figures",
  retrieve: "Retrieve",
  synthesize: "Synthesize",
  verify: "Verify",
  orchestrate: "Orchestrate",
};

let controller: AbortController | null = null;

/** The conversation so far (sent as `history`: a follow-up is read in its light). */
interface Turn {
  role: "user" | "assistant";
  content: string;
}
let conversation: Turn[] = [];
// At most this many earlier messages are sent (the server reads the last few anyway).
const MAX_HISTORY = 12;

export function initAsk(root: HTMLElement): void {
  const input = h("textarea", { id: "question", rows: 2, placeholder: "Ask a question about your documents…", "data-testid": "ask-input", "aria-label": "Question" });
  const button = h("button", { type: "submit", class: "primary", "data-testid": "ask-submit" }, "Ask");
  const turns = h("ol", { class: "turns", "data-testid": "conversation", "aria-label": "Conversation" });
  const reset = h("button", { type: "button", class: "linkish", "data-testid": "new-conversation", hidden: true }, "New conversation");
  const form = h("form", { class: "askform", "data-testid": "ask-form" }, input, button);
  const steps = h("ol", { class: "steps", "data-testid": "steps", "aria-label": "Steps" });
  const status = h("div", { class: "ask-status", "data-testid": "ask-status", "aria-live": "polite" });
  const answer = h("div", { class: "answer", "data-testid": "answer-area" });
  answer.append(emptyBox("Ask a question: the answer cites the passages of your documents it comes from.", "ask-empty"));

  const stepsBox = h("div", { class: "steps-box" }, h("h3", {}, "Steps"), steps);
  stepsBox.hidden = true;
  root.append(h("div", { class: "conversation" }, turns, reset), form, status,
    h("div", { class: "ask-grid" }, h("div", { class: "answer-col" }, answer), stepsBox));
  reset.addEventListener("click", () => {
    conversation = [];
    clear(turns);
    reset.hidden = true;
    input.focus();
  });
  // Another workspace: another corpus, so the conversation and the answer shown end.
  document.addEventListener("mmkg:workspace", () => {
    controller?.abort(); // an answer still streaming is the other workspace's
    controller = null;
    button.disabled = false;
    conversation = [];
    clear(turns);
    reset.hidden = true;
    clear(steps);
    stepsBox.hidden = true;
    clear(status);
    clear(answer);
    answer.append(emptyBox("Ask a question: the answer cites the passages of your documents it comes from.", "ask-empty"));
  });

  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const q = input.value.trim();
    if (!q) {
      input.focus();
      return;
    }
    void ask(q, { steps, stepsBox, status, answer, button, turns, reset });
  });
}

interface Parts {
  steps: HTMLOListElement;
  stepsBox: HTMLElement;
  status: HTMLElement;
  answer: HTMLElement;
  button: HTMLButtonElement;
  turns: HTMLOListElement;
  reset: HTMLButtonElement;
}

/** Remembers an answered question and shows it above the form. */
function remember(p: Parts, question: string, r: AskResult): void {
  conversation.push({ role: "user", content: question }, { role: "assistant", content: r.answer ?? "" });
  const asked = r.standalone_question && r.standalone_question !== question ? ` (read as: ${r.standalone_question})` : "";
  p.turns.append(h("li", { class: "turn", "data-testid": "turn" }, question, h("span", { class: "muted", "data-testid": "turn-standalone" }, asked)));
  p.reset.hidden = false;
}

async function ask(question: string, p: Parts): Promise<void> {
  controller?.abort();
  const ctl = (controller = new AbortController());
  clear(p.steps);
  clear(p.answer);
  p.stepsBox.hidden = false;
  p.steps.dataset.count = "0";
  p.steps.dataset.beforeAnswer = "0";
  p.answer.append(busyBox("Thinking…", "ask-busy"));
  p.button.disabled = true;
  p.status.textContent = "";
  let gotAnswer = false;
  const t0 = performance.now();
  try {
    await streamSSE(
      "/api/ask",
      {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ question, stream: true, history: conversation.slice(-MAX_HISTORY) }),
      },
      (ev) => {
        if (ctl.signal.aborted) return;
        if (ev.event === "step") {
          const step = JSON.parse(ev.data) as Step;
          p.steps.append(renderStep(step));
          const n = String(p.steps.children.length);
          p.steps.dataset.count = n;
          if (!gotAnswer) p.steps.dataset.beforeAnswer = n;
        } else if (ev.event === "answer") {
          gotAnswer = true;
          clear(p.answer);
          const r = JSON.parse(ev.data) as AskResult;
          p.answer.append(renderAnswer(r));
          remember(p, question, r);
        } else if (ev.event === "error") {
          gotAnswer = true;
          clear(p.answer);
          p.answer.append(errorBox(new Error(errorMessage(ev.data)), "ask-error"));
        }
      },
      ctl.signal,
    );
    if (!gotAnswer && !ctl.signal.aborted) {
      clear(p.answer);
      p.answer.append(errorBox(new Error("The answer stream ended without an answer."), "ask-error"));
    }
    p.status.textContent = `${p.steps.children.length} steps · ${Math.round(performance.now() - t0)} ms`;
  } catch (e) {
    if ((e as Error).name === "AbortError" || ctl.signal.aborted) return;
    clear(p.answer);
    p.answer.append(errorBox(e, "ask-error"));
  } finally {
    if (controller === ctl) {
      p.button.disabled = false;
      controller = null;
    }
  }
}

function errorMessage(data: string): string {
  try {
    const d = JSON.parse(data);
    return d?.error?.message ?? d?.message ?? data;
  } catch {
    return data;
  }
}

// ---- Steps ----

function renderStep(s: Step): HTMLElement {
  const name = String(s.step);
  const li = h(
    "li",
    { class: `step step-${name}`, "data-testid": `step-${name}`, "data-step": name },
    h("div", { class: "step-head" }, h("span", { class: "step-name" }, STEP_TITLES[name] ?? name), h("span", { class: "step-ms" }, fmtMs(s.ms))),
  );
  const body = h("div", { class: "step-body" });
  const line = (t: string) => body.append(h("div", { class: "step-line" }, t));
  const list = (items: string[], testid: string) =>
    body.append(h("ul", { class: "step-list", "data-testid": testid }, items.map((t) => h("li", {}, t))));
  const arr = (k: string): unknown[] => (Array.isArray(s[k]) ? (s[k] as unknown[]) : []);

  switch (name) {
    case "rewrite":
      line(s.method === "none" ? "a question of its own" : `read as: ${s.question} (${s.method})`);
      if (s.fallback) line(`model not used: ${s.fallback}`);
      break;
    case "plan": {
      const subs = arr("subqueries").map(String);
      line(`${subs.length} sub-quer${subs.length === 1 ? "y" : "ies"}${s.planner ? ` (${s.planner})` : ""}`);
      if (subs.length) list(subs, "step-subqueries");
      break;
    }
    case "graph": {
      const ents = arr("entities") as { name: string; how?: string; score?: number }[];
      line(`${ents.length} linked entit${ents.length === 1 ? "y" : "ies"} · ${plural(Number(s.facts ?? 0), "fact")}`);
      if (ents.length)
        body.append(
          h("div", { class: "chips", "data-testid": "step-entities" },
            ents.map((e) => h("a", { class: "chip", href: `#graph/${encodeURIComponent(e.name)}`, title: `linked by ${e.how ?? "?"}, score ${e.score ?? "?"}`, "data-testid": "entity-chip" }, e.name)),
          ),
        );
      break;
    }
    case "retrieve": {
      const docs = arr("documents").map(String);
      line(`${s.context_chunks ?? "?"} passages in context of ${s.unique_chunks ?? "?"} found · ${s.mode ?? ""}`);
      if (docs.length) list(docs, "step-documents");
      figureList(body, arr("figures"));
      break;
    }
    case "figures": {
      const figs = arr("figures");
      line(plural(figs.length, "figure"));
      figureList(body, figs);
      break;
    }
    case "synthesize":
      line(`${s.synthesizer ?? ""}${typeof s.coverage === "number" ? ` · coverage ${Math.round((s.coverage as number) * 100)}%` : ""}${s.found === false ? " · not found" : ""}`);
      break;
    case "verify": {
      const gaps = arr("gaps").map(String);
      line(`${plural(Number(s.citations ?? 0), "citation")} (${s.citations_resolved ?? 0} resolved) · ${gaps.length ? plural(gaps.length, "gap") : "no gaps"}`);
      if (gaps.length) list(gaps, "step-gaps");
      break;
    }
    case "orchestrate":
      line(`${plural(Number(s.rounds ?? 1), "round")}${s.stop ? ` · stop: ${s.stop}` : ""}`);
      break;
    default: {
      const keys = Object.keys(s).filter((k) => k !== "step" && k !== "ms");
      if (keys.length) line(keys.map((k) => `${k}: ${typeof s[k] === "object" ? JSON.stringify(s[k]) : s[k]}`).join(" · "));
    }
  }
  li.append(body);
  return li;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** The figures a step names ({figure_id|id, label, where}), as small thumbnails titled with where they are. */
function figureList(body: HTMLElement, figs: unknown[]): void {
  const items = figs.filter((f): f is Record<string, unknown> => typeof f === "object" && f !== null);
  if (!items.length) return;
  body.append(
    h("div", { class: "step-figures", "data-testid": "step-figures" },
      items.map((f) => {
        const id = String(f.figure_id ?? f.id ?? "");
        const label = String(f.label ?? "figure");
        return h("figure", { class: "thumb", title: String(f.where ?? label) },
          id ? apiImg(api.figureImage(id), { alt: label, loading: "lazy" }) : null,
          h("figcaption", {}, label),
        );
      }),
    ),
  );
}

// ---- Answer ----

/** The walk behind a direct answer: the entity the question names, each relation followed to the
 * next entity (each a link to the graph view; "fetched" when its passage was found by its name),
 * and the property read at the end. */
function renderPath(d: DirectAnswer): HTMLElement {
  const words = (s: string) => s.replace(/_/g, " ");
  return h("div", { class: "answer-path", "data-testid": "answer-path" },
    d.paths.map((path) =>
      h("div", { class: "chips", "data-testid": "answer-hops", "data-hops": String(path.length) },
        h("span", { class: "muted" }, "Path: "),
        path.flatMap((step, i) => {
          const last = i === path.length - 1;
          const rel = step.relation ? h("span", { class: "muted small" }, ` → ${words(step.relation)} → `) : null;
          if (last && step.relation && step.relation === d.property) return [rel, h("strong", {}, d.text ?? "")];
          return [rel, h("a", { class: "chip", href: `#graph/${encodeURIComponent(step.entity)}`, title: step.fetched ? `${step.doc}: found by its name` : step.doc }, step.entity)];
        }),
      ),
    ),
  );
}

function renderAnswer(r: AskResult): HTMLElement {
  const byN = new Map<number, Citation>((r.citations ?? []).map((c) => [c.n, c]));
  const box = h("div", { class: "answer-body", "data-testid": "answer", "data-found": String(!!r.found) });
  const text = h("div", { class: r.found ? "answer-text" : "answer-text notice empty", "data-testid": r.found ? "answer-text" : "answer-notfound" });
  if (!r.found && !r.answer?.trim()) text.append("The documents do not seem to answer this question.");
  // A cited figure shows right after the paragraph that first cites it.
  const shown = new Set<string>();
  for (const para of (r.answer ?? "").split(/\n{2,}/)) {
    if (!para.trim()) continue;
    const pEl = h("p", {});
    const cited = appendWithMarkers(pEl, para, byN);
    text.append(pEl);
    for (const c of cited)
      if (c.figure_id && !shown.has(c.figure_id)) {
        shown.add(c.figure_id);
        text.append(figureOf(c));
      }
  }
  box.append(text);
  if (r.direct?.found && r.direct.paths.length) box.append(renderPath(r.direct));
  const rest = (r.citations ?? []).filter((c) => c.figure_id && !shown.has(c.figure_id));
  if (rest.length) box.append(h("div", { class: "figures" }, rest.map(figureOf)));

  if (r.citations?.length)
    box.append(
      h("h3", {}, "Sources"),
      h("ol", { class: "sources", "data-testid": "sources" },
        r.citations.map((c) =>
          h("li", { value: c.n },
            h("button", { type: "button", class: "linkish", "data-testid": `source-${c.n}`, onclick: () => openCitation(c) },
              `${c.where}${c.heading_path ? ` · ${c.heading_path}` : ""}`,
            ),
            h("div", { class: "source-quote" }, c.quote),
          ),
        ),
      ),
    );
  if (r.gaps?.length) box.append(h("h3", {}, "Not answered"), h("ul", { class: "gaps", "data-testid": "answer-gaps" }, r.gaps.map((g) => h("li", {}, g))));
  if (r.entities?.length)
    box.append(
      h("div", { class: "chips" }, h("span", { class: "muted" }, "Entities: "),
        r.entities.map((e) => h("a", { class: "chip", href: `#graph/${encodeURIComponent(e.name)}` }, e.name)),
      ),
    );
  return box;
}

function figureOf(c: Citation): HTMLElement {
  return h("figure", { class: "figure inline", "data-testid": "answer-figure", "data-figure": c.figure_id, title: "Open the source", onclick: () => openCitation(c) },
    apiImg(api.figureImage(c.figure_id!), { alt: c.figure_label ?? "figure", loading: "lazy" }),
    h("figcaption", {}, `[${c.n}] ${c.where}`),
  );
}

/** Appends text to el with each [n] (or [n, m]) of a known citation as a button; returns those cited. */
function appendWithMarkers(el: HTMLElement, text: string, byN: Map<number, Citation>): Citation[] {
  const cited: Citation[] = [];
  const re = /\[(\d+(?:\s*,\s*\d+)*)\]/g;
  let at = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const ns = m[1].split(",").map((x) => parseInt(x.trim(), 10));
    if (!ns.every((n) => byN.has(n))) continue;
    el.append(text.slice(at, m.index));
    for (const n of ns) {
      const c = byN.get(n)!;
      cited.push(c);
      el.append(
        h("button", { type: "button", class: "cite", "data-testid": `cite-${n}`, "data-cite": n, title: c.where, onclick: () => openCitation(c) }, `[${n}]`),
      );
    }
    at = m.index + m[0].length;
  }
  el.append(text.slice(at));
  return cited;
}
