// The citation viewer: a side panel with a cited passage's source. A PDF citation shows its
// page image with the chunk's region highlighted (/api/documents/{doc}/pages/{n}/image); every
// citation shows the passage text with the quoted sentences marked.

import { api, type Citation, loadImage } from "./api";
import { $, appendHighlighted, clear, h, apiImg } from "./dom";

/** What the viewer needs; a citation of an answer, or an evidence sentence of the graph view. */
export type Source = Pick<Citation, "doc" | "chunk_id"> &
  Partial<Pick<Citation, "n" | "doc_id" | "page" | "page_end" | "figure_id" | "figure_label" | "heading_path" | "quote" | "text" | "kind">>;

let opened = 0; // guards against a slow chunk fetch filling a panel reopened since

export function closeCitation(): void {
  const panel = $("#citation-panel");
  panel.hidden = true;
  document.body.classList.remove("with-panel");
}

export function openCitation(c: Source): void {
  const token = ++opened;
  const panel = $("#citation-panel");
  clear(panel);
  panel.hidden = false;
  document.body.classList.add("with-panel");
  panel.dataset.chunk = c.chunk_id;
  panel.dataset.pageImage = "none";

  const title = `${c.n ? `[${c.n}] ` : ""}${c.doc}`;
  panel.append(
    h("div", { class: "panel-head" },
      h("h2", { "data-testid": "citation-title" }, title),
      h("button", { type: "button", class: "close", "aria-label": "Close", "data-testid": "citation-close", onclick: closeCitation }, "×"),
    ),
  );
  const meta: string[] = [];
  if (c.page) meta.push(c.page_end && c.page_end !== c.page ? `pages ${c.page}–${c.page_end}` : `page ${c.page}`);
  if (c.heading_path) meta.push(c.heading_path);
  if (c.kind && c.kind !== "text") meta.push(c.kind);
  if (meta.length) panel.append(h("div", { class: "panel-meta", "data-testid": "citation-meta" }, meta.join(" · ")));

  if (c.figure_id)
    panel.append(
      h("figure", { class: "figure", "data-testid": "citation-figure" },
        apiImg(api.figureImage(c.figure_id), { alt: c.figure_label ?? "figure" }),
        c.figure_label ? h("figcaption", {}, c.figure_label) : null,
      ),
    );

  if (c.page) panel.append(pageViewer(c));

  const passage = h("div", { class: "passage", "data-testid": "citation-text" });
  panel.append(h("h3", {}, "Passage"), passage);
  const fill = (text: string) => {
    if (token !== opened) return;
    clear(passage);
    const marks = appendHighlighted(passage, text, c.quote ?? "");
    passage.dataset.marks = String(marks);
    // Scroll the passage box (not the panel, whose page image stays in view) to the quote.
    const mark = passage.querySelector("mark");
    if (mark) passage.scrollTop = Math.max(0, mark.offsetTop - 40);
  };
  if (c.text) fill(c.text);
  else {
    passage.append(h("span", { class: "muted" }, c.quote ?? "Loading the passage…"));
    api.chunk(c.chunk_id).then(
      (ch) => fill(ch.text),
      () => {
        // No chunk route (an older server): the quoted sentence is all there is to show.
        if (c.quote) fill(c.quote);
        else if (token === opened) passage.textContent = "The passage could not be loaded.";
      },
    );
  }
}

/** The page image(s) of a PDF citation, one page at a time, with a pager for multi-page chunks. */
function pageViewer(c: Source): HTMLElement {
  const panel = $("#citation-panel");
  const first = c.page!;
  const last = Math.max(first, c.page_end ?? first);
  const box = h("div", { class: "page-view", "data-testid": "citation-page" });
  const img = h("img", { class: "page-image", alt: `${c.doc}, page ${first}`, "data-testid": "citation-page-image" });
  const note = h("div", { class: "muted small", "data-testid": "citation-page-note" });
  const pager = h("div", { class: "pager" });
  const show = (page: number) => {
    panel.dataset.pageImage = "loading";
    img.hidden = false;
    note.textContent = `Page ${page}${last > first ? ` of pages ${first}–${last}` : ""}; the cited passage is highlighted.`;
    loadImage(img, api.pageImage(c.doc_id || c.doc, page, c.chunk_id));
    img.alt = `${c.doc}, page ${page}`;
    pager.querySelectorAll("button").forEach((b) => b.classList.toggle("active", b.dataset.page === String(page)));
  };
  img.addEventListener("load", () => {
    panel.dataset.pageImage = "loaded";
    pager.hidden = false;
  });
  img.addEventListener("error", () => {
    panel.dataset.pageImage = "missing";
    pager.hidden = true;
    img.hidden = true;
    note.textContent = "The page image is not available from this server; the passage is below.";
  });
  if (last > first)
    for (let p = first; p <= last; p++)
      pager.append(h("button", { type: "button", "data-page": p, "data-testid": `citation-page-${p}`, onclick: () => show(p) }, `p. ${p}`));
  box.append(pager, img, note);
  show(first);
  return box;
}
