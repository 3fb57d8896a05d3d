// The app shell: hash routing (#ask, #graph[/NAME], #docs), the API key field, the workspace
// switch, the health line.

import "./style.css";
import { api, apiKey, getJSON, setApiKey, setWorkspace, workspace } from "./api";
import { $, clear, h } from "./dom";
import { initAsk } from "./ask";
import { initGraph, showEntity, showOverview } from "./graph";
import { initDocs, refreshDocs } from "./docs";
import { closeCitation } from "./citation";

type View = "ask" | "graph" | "docs";
const VIEWS: View[] = ["ask", "graph", "docs"];

function route(): void {
  const [head, ...rest] = location.hash.replace(/^#\/?/, "").split("/");
  const view: View = (VIEWS as string[]).includes(head) ? (head as View) : "ask";
  for (const v of VIEWS) $(`#view-${v}`).hidden = v !== view;
  document.querySelectorAll<HTMLAnchorElement>(".tabs a").forEach((a) => {
    a.classList.toggle("active", a.dataset.view === view);
    if (a.dataset.view === view) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  });
  document.body.dataset.view = view;
  if (view === "graph") {
    const name = decodeURIComponent(rest.join("/"));
    if (name) void showEntity(name);
    else void showOverview();
  } else if (view === "docs") {
    void refreshDocs();
  }
}

/** The health line: how many documents and chunks the store has, or that the server is down. */
export async function refreshHealth(): Promise<void> {
  const el = $("[data-testid=health]");
  try {
    const h = await getJSON<{ documents: number; chunks: number; ingest?: { queued: number; running: number } }>("/health");
    const busy = h.ingest && h.ingest.queued + h.ingest.running > 0 ? " · ingesting…" : "";
    el.textContent = `${h.documents} document${h.documents === 1 ? "" : "s"} · ${h.chunks} chunk${h.chunks === 1 ? "" : "s"}${busy}`;
    el.classList.remove("down");
  } catch {
    el.textContent = "server unreachable";
    el.classList.add("down");
  }
}

function initKeyForm(): void {
  const form = $("[data-testid=key-form]") as HTMLFormElement;
  const input = $("#api-key") as HTMLInputElement;
  const state = $("[data-testid=api-key-state]");
  const show = () => {
    state.textContent = apiKey() ? "saved" : "not set";
    state.classList.toggle("set", !!apiKey());
  };
  input.value = apiKey();
  show();
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    setApiKey(input.value.trim());
    show();
    document.dispatchEvent(new CustomEvent("mmkg:key"));
  });
}

/** Moves the UI to workspace `name`: every view reloads from its store. */
function switchWorkspace(name: string): void {
  setWorkspace(name);
  ($("[data-testid=workspace]") as HTMLSelectElement).value = name;
  document.body.dataset.workspace = name;
  closeCitation();
  document.dispatchEvent(new CustomEvent("mmkg:workspace"));
  route();
  void refreshHealth();
}

/**
 * The workspace switch: the workspaces the key may read (GET /api/workspaces). Shown when there
 * is a choice, or when the one workspace is not the default; a stored workspace the key may no
 * longer read gives way to the first it may.
 */
async function refreshWorkspaces(): Promise<void> {
  const box = $("[data-testid=workspace-box]");
  const select = $("[data-testid=workspace]") as HTMLSelectElement;
  let names: string[];
  try {
    names = (await api.workspaces()).map((w) => w.name);
  } catch {
    names = []; // an older server, or no key yet (--auth all): keep the stored choice
  }
  clear(select);
  for (const n of names) select.append(h("option", { value: n }, n));
  box.hidden = names.length === 0 || (names.length === 1 && names[0] === "default");
  if (names.length && !names.includes(workspace())) switchWorkspace(names[0]);
  else select.value = workspace();
  document.body.dataset.workspace = workspace();
}

function initWorkspaces(): void {
  const select = $("[data-testid=workspace]") as HTMLSelectElement;
  select.addEventListener("change", () => switchWorkspace(select.value));
  document.addEventListener("mmkg:key", () => void refreshWorkspaces());
  void refreshWorkspaces();
}

/** The citation panel starts below the top bar, whose height depends on the width. */
function trackTopbar(): void {
  const bar = $(".topbar");
  const set = () => document.documentElement.style.setProperty("--topbar-h", `${bar.offsetHeight}px`);
  new ResizeObserver(set).observe(bar);
  set();
}

function init(): void {
  trackTopbar();
  initKeyForm();
  initWorkspaces();
  initAsk($("#view-ask"));
  initGraph($("#view-graph"));
  initDocs($("#view-docs"), refreshHealth);
  window.addEventListener("hashchange", route);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") closeCitation();
  });
  route();
  void refreshHealth();
}

init();
