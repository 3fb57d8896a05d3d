// The Documents view: the store's documents, uploads (an XMLHttpRequest for the bytes' progress,
// then the ingest job's progress over /api/jobs/{id}/events) and deletes. Writes send the API key.

import { api, authHeaders, ApiError, errorFromXhr, inWorkspace, type Doc, type Job, streamSSE } from "./api";
import { busyBox, clear, emptyBox, errorBox, errorText, fmtBytes, fmtDate, h } from "./dom";

let listBox: HTMLElement;
let notices: HTMLElement;
let onChange: () => void = () => undefined;
let refreshing = 0;

export function initDocs(root: HTMLElement, changed: () => void): void {
  onChange = changed;
  const files = h("input", { type: "file", multiple: true, "data-testid": "upload-input", "aria-label": "Files to upload" });
  const submit = h("button", { type: "submit", class: "primary", "data-testid": "upload-submit", disabled: true }, "Upload");
  files.addEventListener("change", () => (submit.disabled = !files.files?.length));
  const form = h("form", { class: "uploadform", "data-testid": "upload-form" },
    h("label", { class: "muted" }, "Add documents (PDF, Word, PowerPoint, Excel, HTML, Markdown, text, images):"),
    h("div", { class: "row" }, files, submit),
  );
  const uploads = h("div", { class: "uploads", "data-testid": "uploads" });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const chosen = [...(files.files ?? [])];
    if (!chosen.length) return;
    uploads.prepend(upload(chosen));
    form.reset();
    submit.disabled = true;
  });
  notices = h("div", { class: "doc-notices", "data-testid": "docs-notices" });
  listBox = h("div", { class: "doclist", "data-testid": "docs-list" });
  root.append(
    h("div", { class: "docs-head" }, h("h2", {}, "Documents"), h("button", { type: "button", "data-testid": "docs-refresh", onclick: () => void refreshDocs() }, "Refresh")),
    form, uploads, notices, listBox,
  );
  // A new key: the key errors of earlier writes are stale.
  document.addEventListener("mmkg:key", () => {
    clear(notices);
    uploads.querySelectorAll('[data-state="failed"]').forEach((card) => card.querySelector('[data-testid="upload-key-error"]') && card.remove());
  });
}

export async function refreshDocs(): Promise<void> {
  const token = ++refreshing;
  if (!listBox.childElementCount) listBox.append(busyBox("Loading the documents…", "docs-busy"));
  let docs: Doc[];
  try {
    docs = await api.documents();
  } catch (e) {
    if (token !== refreshing) return;
    clear(listBox);
    listBox.append(errorBox(e, "docs-error"));
    return;
  }
  if (token !== refreshing) return;
  clear(listBox);
  listBox.dataset.count = String(docs.length);
  if (!docs.length) {
    listBox.append(emptyBox("The store has no documents yet: upload some files above.", "docs-empty"));
    return;
  }
  docs.sort((a, b) => a.doc.localeCompare(b.doc));
  listBox.append(
    h("table", { class: "docs", "data-testid": "docs-table" },
      h("thead", {}, h("tr", {}, ["Document", "Format", "Pages", "Chunks", "Size", "Ingested", ""].map((t) => h("th", {}, t)))),
      h("tbody", {}, docs.map(row)),
    ),
  );
}

function row(d: Doc): HTMLElement {
  return h("tr", { "data-testid": "doc-row", "data-doc": d.doc, "data-id": d.id },
    h("td", {}, h("div", { class: "docname" }, d.doc), d.title && d.title !== d.doc ? h("div", { class: "muted small" }, d.title) : null),
    h("td", {}, d.format),
    h("td", { class: "num" }, d.pages ? String(d.pages) : "—"),
    h("td", { class: "num" }, String(d.chunks)),
    h("td", { class: "num" }, fmtBytes(d.bytes)),
    h("td", {}, fmtDate(d.ingested_at)),
    h("td", {}, h("button", { type: "button", class: "danger", "data-testid": "doc-delete", title: `Delete ${d.doc}`, onclick: () => void remove(d) }, "Delete")),
  );
}

async function remove(d: Doc): Promise<void> {
  if (!confirm(`Delete “${d.doc}” from the store? Its passages and graph facts go too.`)) return;
  clear(notices);
  try {
    await api.deleteDocument(d.id || d.doc);
    notices.append(h("div", { class: "notice ok", "data-testid": "docs-deleted" }, `Deleted ${d.doc}.`));
  } catch (e) {
    notices.append(errorBox(e, "docs-write-error"));
  }
  await refreshDocs();
  onChange();
}

// ---- Uploads ----

/** A card that uploads files, then follows the ingest job until it is done or failed. */
function upload(files: File[]): HTMLElement {
  const names = files.map((f) => f.name).join(", ");
  const total = files.reduce((n, f) => n + f.size, 0);
  const bar = h("progress", { max: 1, value: 0, "data-testid": "upload-progress" });
  const label = h("div", { class: "small", "data-testid": "upload-label" }, `Uploading ${fmtBytes(total)}…`);
  const card = h("div", { class: "upload-card", "data-testid": "upload-card", "data-state": "uploading" }, h("div", { class: "docname" }, names), bar, label);
  const fail = (e: unknown) => {
    card.dataset.state = "failed";
    bar.remove();
    label.replaceWith(errorBox(e, e instanceof ApiError && e.needsKey ? "upload-key-error" : "upload-error"));
    card.append(h("button", { type: "button", class: "small", onclick: () => card.remove() }, "Dismiss"));
  };

  const form = new FormData();
  for (const f of files) form.append("file", f, f.name);
  const xhr = new XMLHttpRequest();
  xhr.open("POST", inWorkspace("/api/documents"));
  for (const [k, v] of Object.entries(authHeaders())) xhr.setRequestHeader(k, v);
  xhr.upload.addEventListener("progress", (e) => {
    if (!e.lengthComputable) return;
    bar.value = e.loaded / e.total;
    label.textContent = `Uploading ${fmtBytes(e.loaded)} of ${fmtBytes(e.total)}…`;
  });
  xhr.addEventListener("load", () => {
    if (xhr.status < 200 || xhr.status >= 300) return fail(errorFromXhr(xhr));
    let job: Job;
    try {
      job = (JSON.parse(xhr.responseText) as { job: Job }).job;
    } catch {
      return fail(new Error("the server's answer to the upload is not JSON"));
    }
    bar.value = 1;
    card.dataset.state = "ingesting";
    card.dataset.job = job.id;
    void follow(job, card, bar, label);
  });
  xhr.addEventListener("error", () => fail(errorFromXhr(xhr)));
  xhr.send(form);
  return card;
}

async function follow(job: Job, card: HTMLElement, uploadBar: HTMLProgressElement, uploadLabel: HTMLElement): Promise<void> {
  const bar = h("progress", { max: 1, value: 0, "data-testid": "job-progress" });
  const label = h("div", { class: "small", "data-testid": "job-label" }, "Queued for ingest…");
  uploadBar.after(bar, label);
  uploadBar.remove();
  uploadLabel.remove();
  let last = job;
  const update = (j: Job) => {
    const graph = j.phase === "graph";
    const phase = graph ? "Building the graph" : j.state === "queued" ? "Queued" : "Reading";
    if (j.done !== last.done || j.current !== last.current) onChange(); // the health line's counts
    bar.value = j.total ? j.done / j.total : 0;
    label.textContent = `${phase} ${j.done}/${j.total}${j.current ? ` · ${graph ? j.current.slice(6).trim() : j.current}` : ""}`;
  };
  try {
    await streamSSE(`/api/jobs/${encodeURIComponent(job.id)}/events`, { method: "GET" }, (ev) => {
      if (ev.event !== "progress" && ev.event !== "done") return;
      const j = JSON.parse(ev.data) as Job;
      update(j);
      last = j;
    });
  } catch {
    /* the stream broke: poll below */
  }
  while (last.state === "queued" || last.state === "running") {
    await new Promise((r) => setTimeout(r, 1000));
    try {
      const j = await api.job(job.id);
      update(j);
      last = j;
    } catch (e) {
      label.textContent = `Lost track of the job: ${errorText(e)}`;
      break;
    }
  }
  finish(last, card, bar, label);
  await refreshDocs();
  onChange();
}

function finish(j: Job, card: HTMLElement, bar: HTMLProgressElement, label: HTMLElement): void {
  card.dataset.state = j.state;
  const failed = (j.result?.failed ?? []) as unknown[];
  if (j.state === "done") {
    bar.value = 1;
    const r = j.result ?? {};
    label.replaceWith(
      h("div", { class: failed.length ? "notice error" : "notice ok", "data-testid": "job-status", "data-state": j.state },
        `Ingested ${r.documents ?? j.total} document${r.documents === 1 ? "" : "s"} (${r.chunks ?? "?"} chunks).` +
          (failed.length ? ` Failed: ${failed.map((f) => (typeof f === "object" && f ? JSON.stringify(f) : String(f))).join("; ")}` : ""),
      ),
    );
  } else {
    bar.remove();
    label.replaceWith(h("div", { class: "notice error", role: "alert", "data-testid": "job-status", "data-state": j.state }, `Ingest ${j.state}: ${j.error ?? "see the server log"}`));
  }
  card.append(h("button", { type: "button", class: "small", "data-testid": "upload-dismiss", onclick: () => card.remove() }, "Dismiss"));
}
