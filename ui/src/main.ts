// The app shell: hash routing (#ask, #graph[/NAME], #docs), the API key field, the health line.

import "./style.css";
import { apiKey, getJSON, setApiKey } from "./api";
import { $ } from "./dom";
import { initAsk } from "./ask";
import { initGraph, showEntity } from "./graph";
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
    el.textContent = `${h.documents} document${h.documents === 1 ? "" : "s"} · ${h.chunks} chunks${busy}`;
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
