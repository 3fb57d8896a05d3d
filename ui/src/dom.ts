// A tiny DOM builder and the shared notices (empty, error, busy) the views use.

import { ApiError, loadImage } from "./api";

type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;
type Child = Node | string | null | undefined | false;

/** h("div", {class: "x", "data-testid": "y", onclick: fn}, child, ...) */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = String(v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c);
  }
  return el;
}

export function $(selector: string, root: ParentNode = document): HTMLElement {
  const el = root.querySelector<HTMLElement>(selector);
  if (!el) throw new Error(`missing element ${selector}`);
  return el;
}

export function clear(el: Element): void {
  el.replaceChildren();
}

/** The user-facing text of an error; a missing or wrong API key says where to enter it. */
export function errorText(e: unknown): string {
  const t = rawErrorText(e);
  return t.charAt(0).toUpperCase() + t.slice(1);
}

function rawErrorText(e: unknown): string {
  if (e instanceof ApiError) {
    if (e.needsKey) {
      return `${e.message.replace(/\.$/, "")}. This action needs the server's API key: enter it in the "API key" field at the top right.`;
    }
    if (e.status === 0) return `The server could not be reached (${e.message}). Is mmkg serve running?`;
    return e.message;
  }
  return e instanceof Error ? e.message : String(e);
}

export function errorBox(e: unknown, testid = "error"): HTMLElement {
  const needsKey = e instanceof ApiError && e.needsKey;
  return h("div", { class: needsKey ? "notice error key" : "notice error", role: "alert", "data-testid": testid, "data-code": e instanceof ApiError ? e.code : "" }, errorText(e));
}

export function emptyBox(text: string, testid = "empty"): HTMLElement {
  return h("div", { class: "notice empty", "data-testid": testid }, text);
}

export function busyBox(text: string, testid = "busy"): HTMLElement {
  return h("div", { class: "notice busy", "data-testid": testid }, h("span", { class: "spinner", "aria-hidden": "true" }), text);
}

export function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function fmtDate(iso: string): string {
  const d = new Date(iso);
  return isNaN(d.getTime()) ? iso : d.toLocaleString();
}

export function fmtMs(ms: unknown): string {
  return typeof ms === "number" ? (ms < 1 ? "<1 ms" : `${Math.round(ms)} ms`) : "";
}

const RE_SPECIAL = /[.*+?^${}()|[\]\\]/g;

/**
 * Appends text to parent with the passage of it that matches quote wrapped in <mark>
 * (whitespace-insensitive; sentence by sentence when the whole quote is not found).
 * Returns how many marks were placed.
 */
export function appendHighlighted(parent: HTMLElement, text: string, quote: string): number {
  const pieces = [quote, ...quote.split(/(?<=[.!?])\s+/)].map((s) => s.trim()).filter((s) => s.length > 3);
  const ranges: [number, number][] = [];
  for (const piece of pieces) {
    const words = piece.split(/\s+/).map((w) => w.replace(RE_SPECIAL, "\\$&"));
    const re = new RegExp(words.join("\\s+"), "g");
    let m: RegExpExecArray | null;
    let hit = false;
    while ((m = re.exec(text))) {
      const r: [number, number] = [m.index, m.index + m[0].length];
      if (!ranges.some(([a, b]) => r[0] < b && a < r[1])) ranges.push(r);
      hit = true;
      if (m[0].length === 0) break;
    }
    if (hit && piece === pieces[0]) break; // the whole quote was found
  }
  ranges.sort((a, b) => a[0] - b[0]);
  let at = 0;
  for (const [a, b] of ranges) {
    parent.append(text.slice(at, a), h("mark", { "data-testid": "quote-mark" }, text.slice(a, b)));
    at = b;
  }
  parent.append(text.slice(at));
  return ranges.length;
}

/** An <img> for an API image (a figure, a page), loaded with the API key when one is stored. */
export function apiImg(url: string, attrs: Attrs = {}): HTMLImageElement {
  const img = h("img", attrs);
  loadImage(img, url);
  return img;
}
