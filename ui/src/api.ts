// The HTTP API of `mmkg serve` (src/server/openapi.json): typed fetch wrappers, the API key,
// and a Server-Sent Events reader over fetch (EventSource can neither POST nor send headers).

const KEY_STORAGE = "mmkg.apiKey";

export function apiKey(): string {
  try {
    return localStorage.getItem(KEY_STORAGE) ?? "";
  } catch {
    return "";
  }
}

export function setApiKey(key: string): void {
  try {
    if (key) localStorage.setItem(KEY_STORAGE, key);
    else localStorage.removeItem(KEY_STORAGE);
  } catch {
    /* private mode: the key lives for this page only */
  }
}

const WORKSPACE_STORAGE = "mmkg.workspace";

/** The workspace the UI works in ("default": the server's --store). */
export function workspace(): string {
  try {
    return localStorage.getItem(WORKSPACE_STORAGE) || "default";
  } catch {
    return "default";
  }
}

export function setWorkspace(name: string): void {
  try {
    if (name && name !== "default") localStorage.setItem(WORKSPACE_STORAGE, name);
    else localStorage.removeItem(WORKSPACE_STORAGE);
  } catch {
    /* private mode */
  }
}

/** An API path in the chosen workspace: /w/NAME/api/... (the default workspace takes no prefix). */
export function inWorkspace(path: string): string {
  const ws = workspace();
  if (ws === "default" || !path.startsWith("/") || path.startsWith("/w/")) return path;
  return `/w/${encodeURIComponent(ws)}${path}`;
}

/** An error the server answered ({"error":{"code","message"}}) or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
  /** The request needs the API key, or the key given is not valid. */
  get needsKey(): boolean {
    return this.status === 401 || this.status === 403;
  }
}

export function authHeaders(extra: Record<string, string> = {}): Record<string, string> {
  const key = apiKey();
  return key ? { ...extra, "X-API-Key": key } : extra;
}

/**
 * Points `img` at `url`. Without a stored key the browser loads it as usual; with one it is
 * fetched with the key (an <img> cannot send headers, and a server run with --auth all wants the
 * key for images too) and shown from a blob URL. `data-src` keeps the URL; a failed fetch fires
 * the image's error event, as a failed load would.
 */
export function loadImage(img: HTMLImageElement, path: string): void {
  const url = inWorkspace(path);
  img.dataset.src = url;
  if (!apiKey()) {
    img.src = url;
    return;
  }
  const failed = () => {
    if (img.dataset.src === url) img.dispatchEvent(new Event("error"));
  };
  fetch(url, { headers: authHeaders() })
    .then(async (res) => {
      if (img.dataset.src !== url) return; // pointed elsewhere meanwhile
      if (!res.ok) return failed();
      const blobUrl = URL.createObjectURL(await res.blob());
      img.addEventListener("load", () => URL.revokeObjectURL(blobUrl), { once: true });
      img.src = blobUrl;
    })
    .catch(failed);
}

/** The ApiError for a response that is not 2xx (its JSON error body when it has one). */
export async function errorOf(res: Response): Promise<ApiError> {
  let code = `http_${res.status}`;
  let message = `${res.status} ${res.statusText}`;
  try {
    const body = await res.json();
    if (body?.error) {
      code = body.error.code ?? code;
      message = body.error.message ?? message;
    }
  } catch {
    /* not JSON */
  }
  return new ApiError(res.status, code, message);
}

export function errorFromXhr(xhr: XMLHttpRequest): ApiError {
  if (xhr.status === 0) return new ApiError(0, "network", "the server could not be reached");
  try {
    const body = JSON.parse(xhr.responseText);
    if (body?.error) return new ApiError(xhr.status, body.error.code, body.error.message);
  } catch {
    /* not JSON */
  }
  return new ApiError(xhr.status, `http_${xhr.status}`, `${xhr.status} ${xhr.statusText}`);
}

/** Fetches `path` in the chosen workspace (`scoped` false: a server-wide route). */
async function request(path: string, init: RequestInit = {}, scoped = true): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(scoped ? inWorkspace(path) : path, { ...init, headers: authHeaders((init.headers as Record<string, string>) ?? {}) });
  } catch (e) {
    if ((e as Error).name === "AbortError") throw e;
    throw new ApiError(0, "network", "the server could not be reached");
  }
  if (!res.ok) throw await errorOf(res);
  return res;
}

export async function getJSON<T>(path: string, init: RequestInit = {}, scoped = true): Promise<T> {
  return (await request(path, init, scoped)).json() as Promise<T>;
}

export const enc = encodeURIComponent;

// ---- Shapes (only the fields the UI reads) ----

export interface Doc {
  id: string;
  doc: string;
  path: string;
  format: string;
  title: string;
  pages: number;
  chunks: number;
  bytes: number;
  ingested_at: string;
}

export interface Job {
  id: string;
  kind: string;
  state: "queued" | "running" | "done" | "failed";
  files: string[];
  done: number;
  total: number;
  current: string;
  /** "read" (files parsed and stored), then "graph" (done counts the files again), "end". */
  phase: "" | "read" | "graph" | "end";
  error: string | null;
  result: { documents?: number; chunks?: number; failed?: unknown[]; warnings?: unknown[] } | null;
}

export interface Citation {
  n: number;
  doc: string;
  doc_id: string;
  chunk_id: string;
  page: number | null;
  page_end: number | null;
  figure_id: string | null;
  figure_label: string | null;
  kind: string;
  heading_path: string;
  /** The location as every front door renders it ("report.pdf, page 3, chunk ID"). */
  where: string;
  quote: string;
  text: string;
}

/** GET /api/graph: the most connected entities, a page of them, and the links among them. */
export interface GraphOverview {
  entities: number;
  page: number;
  per_page: number;
  pages: number;
  nodes: { id: string; name: string; type: string; degree: number; mentions: number }[];
  links: { src: string; dst: string; type: string; weight: number }[];
}

export interface EntityLink {
  name: string;
  how?: string;
  score?: number;
  id?: string;
}

export interface AskResult {
  question: string;
  /** The question answered: a follow-up made standalone from the conversation. */
  standalone_question?: string;
  answer: string;
  found: boolean;
  citations: Citation[];
  subqueries?: string[];
  entities?: EntityLink[];
  facts?: { fact: string; relation?: string; chunk_id?: string }[];
  gaps?: string[];
  /** The one-line answer and the walk that found it (docs/JSON.md, ask `direct`). */
  direct?: DirectAnswer;
}

export interface HopStep {
  entity: string;
  relation: string | null;
  doc: string;
  chunk_id: string;
  fetched: boolean;
  sentence: string | null;
}

export interface DirectAnswer {
  found: boolean;
  text: string | null;
  kind: string | null;
  property: string | null;
  paths: HopStep[][];
}

/** One agent step of an ask (the `step` events; the answer's trace). */
export type Step = { step: string; ms?: number } & Record<string, unknown>;

export interface Evidence {
  chunk_id: string;
  doc: string;
  page: number | null;
  sentence: string;
  /** The location as every front door renders it. */
  where: string;
}

export interface Neighbor {
  id: string;
  name: string;
  relation: string;
  weight: number;
  direction: "in" | "out" | string;
  description: string;
  evidence?: Evidence[];
}

export interface Entity {
  id: string;
  name: string;
  description?: string;
  aliases?: string[];
  mentions?: number;
  neighbors: Neighbor[];
  figures?: unknown[];
}

export interface Chunk {
  chunk_id: string;
  doc: string;
  doc_id: string;
  page_start: number | null;
  page_end: number | null;
  heading_path: string;
  text: string;
  figure_id: string | null;
}

export interface Workspace {
  name: string;
  documents: number;
  chunks: number;
}

export const api = {
  /** The workspaces the key may read (server-wide: no prefix). */
  workspaces: () => getJSON<{ workspaces: Workspace[] }>("/api/workspaces", {}, false).then((r) => r.workspaces),
  documents: () => getJSON<{ documents: Doc[] }>("/api/documents").then((r) => r.documents),
  deleteDocument: (key: string) => getJSON<unknown>(`/api/documents/${enc(key)}`, { method: "DELETE" }),
  job: (id: string) => getJSON<Job>(`/api/jobs/${enc(id)}`),
  entity: async (name: string, limit = 20): Promise<Entity> => {
    const r = await getJSON<Entity & { entity?: Entity }>(`/api/entities/${enc(name)}?limit=${limit}&evidence=true`);
    // Either the entity itself or {"entity":{...},"neighbors":[...]}.
    return r.entity ? { ...r.entity, neighbors: r.neighbors ?? r.entity.neighbors ?? [] } : r;
  },
  graphOverview: (page = 1, perPage = 20) => getJSON<GraphOverview>(`/api/graph?page=${page}&per_page=${perPage}`),
  chunk: (id: string) => getJSON<Chunk>(`/api/chunks/${enc(id)}`),
  figureImage: (id: string) => `/api/figures/${enc(id)}/image`,
  pageImage: (docId: string, page: number, chunkId: string) =>
    `/api/documents/${enc(docId)}/pages/${page}/image?chunk=${enc(chunkId)}&zoom=1.5`,
};

// ---- Server-Sent Events over fetch ----

export interface SSEvent {
  event: string;
  data: string;
}

/** Calls onEvent for each event of an SSE response body, in order, until the stream ends. */
export async function readSSE(res: Response, onEvent: (ev: SSEvent) => void, signal?: AbortSignal): Promise<void> {
  if (!res.body) throw new ApiError(0, "no_body", "the server sent no stream");
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  const abort = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener("abort", abort);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += value.replace(/\r\n?/g, "\n");
      let cut: number;
      while ((cut = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        const ev = parseBlock(block);
        if (ev) onEvent(ev);
      }
    }
    const last = parseBlock(buf);
    if (last) onEvent(last);
  } finally {
    signal?.removeEventListener("abort", abort);
  }
}

function parseBlock(block: string): SSEvent | null {
  let event = "message";
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (!line || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  return data.length ? { event, data: data.join("\n") } : null;
}

/** POSTs (or GETs) and reads the SSE answer; a non-2xx answer throws its ApiError. */
export async function streamSSE(
  path: string,
  init: RequestInit,
  onEvent: (ev: SSEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  const res = await request(path, { ...init, signal, headers: { Accept: "text/event-stream", ...(init.headers as Record<string, string>) } });
  await readSSE(res, onEvent, signal);
}
