// The graph view: opened without a name (#graph), the graph at a glance, its most connected
// entities a page at a time with the links among them; with one (#graph/NAME), an entity of the
// knowledge graph and its neighbours (Cytoscape.js, labelled edges). Clicking a node centres on
// it (#graph/NAME, so Back goes back); clicking an edge or a neighbour in the list shows the
// sentences that support the relation.

import cytoscape from "cytoscape";
import { api, type Entity, type GraphOverview, type Neighbor } from "./api";
import { busyBox, clear, emptyBox, errorBox, h, apiImg } from "./dom";
import { openCitation } from "./citation";

let cy: cytoscape.Core | null = null;
let canvas: HTMLElement;
let info: HTMLElement;
let input: HTMLInputElement;
let current = "";
let loading = 0;
let overviewPage = 1;
const PER_PAGE = 20;

export function initGraph(root: HTMLElement): void {
  input = h("input", { type: "search", placeholder: "Entity name, alias or acronym (e.g. attention)", "data-testid": "graph-input", "aria-label": "Entity" });
  const form = h("form", { class: "graphform", "data-testid": "graph-form" }, input, h("button", { type: "submit", class: "primary", "data-testid": "graph-submit" }, "Show"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const name = input.value.trim();
    if (!name) return;
    const hash = `#graph/${encodeURIComponent(name)}`;
    if (location.hash === hash) void showEntity(name);
    else location.hash = hash;
  });
  canvas = h("div", { class: "graph-canvas", "data-testid": "graph-canvas", "data-node-count": "0", "data-edge-count": "0" });
  info = h("div", { class: "graph-info", "data-testid": "graph-info" });
  info.append(emptyBox("Search for an entity to see it and its neighbours in the knowledge graph; entities linked by an answer open here too.", "graph-empty"));
  canvas.hidden = true;
  root.append(form, h("div", { class: "graph-grid" }, canvas, info));
}

export async function showEntity(name: string): Promise<void> {
  if (name === current && cy) return;
  const token = ++loading;
  input.value = name;
  clear(info);
  info.append(busyBox(`Looking up “${name}”…`, "graph-busy"));
  let ent: Entity;
  try {
    ent = await api.entity(name);
  } catch (e) {
    if (token !== loading) return;
    clear(info);
    info.append(errorBox(e, "graph-error"));
    destroy();
    current = "";
    return;
  }
  if (token !== loading) return;
  current = name;
  render(ent);
}

/** The graph at a glance: page `page` of the most connected entities (#graph with no name). */
export async function showOverview(page = overviewPage): Promise<void> {
  const token = ++loading;
  current = "";
  input.value = "";
  clear(info);
  info.append(busyBox("Reading the graph…", "graph-busy"));
  let ov: GraphOverview;
  try {
    ov = await api.graphOverview(page, PER_PAGE);
  } catch (e) {
    if (token !== loading) return;
    clear(info);
    info.append(errorBox(e, "graph-error"));
    destroy();
    return;
  }
  if (token !== loading) return;
  overviewPage = ov.page;
  renderOverview(ov);
}

function renderOverview(ov: GraphOverview): void {
  destroy();
  clear(info);
  if (!ov.entities) {
    info.append(emptyBox("The knowledge graph is empty: ingest documents to build it.", "graph-empty"));
    return;
  }
  canvas.hidden = false;
  const top = Math.max(1, ...ov.nodes.map((n) => n.degree));
  const nodes: cytoscape.ElementDefinition[] = ov.nodes.map((n) => ({
    data: { id: n.id, label: n.name, size: 14 + 22 * Math.sqrt(n.degree / top) },
  }));
  const edges: cytoscape.ElementDefinition[] = ov.links.map((l, i) => ({
    data: { id: `o${i}`, source: l.src, target: l.dst, label: l.type.replace(/_/g, " "), width: 1 + Math.log2(1 + l.weight) },
  }));
  cy = cytoscape({
    container: canvas,
    elements: [...nodes, ...edges],
    wheelSensitivity: 0.3,
    style: [
      { selector: "node", style: { label: "data(label)", "background-color": "#6b8fd6", color: "#1d2433", "font-size": 11, width: "data(size)", height: "data(size)", "text-valign": "bottom", "text-margin-y": 4, "text-wrap": "wrap", "text-max-width": "120px" } },
      // Unlabelled: a page's links cross too often to read their types; a node's own view has them.
      { selector: "edge", style: { width: "data(width)", "line-color": "#c9d1e0", "curve-style": "haystack", opacity: 0.8 } },
    ],
    layout: { name: "cose", animate: false, randomize: false, nodeRepulsion: () => 40000, idealEdgeLength: () => 140, padding: 30 } as cytoscape.LayoutOptions,
  });
  cy.on("tap", "node", (e) => {
    location.hash = `#graph/${encodeURIComponent(String((e.target as cytoscape.NodeSingular).data("label")))}`;
  });
  (canvas as HTMLElement & { cy?: cytoscape.Core }).cy = cy;
  canvas.dataset.nodeCount = String(cy.nodes().length);
  canvas.dataset.edgeCount = String(cy.edges().length);
  canvas.dataset.center = "";
  const pager = h("div", { class: "pager" },
    h("button", { type: "button", "data-testid": "graph-prev", disabled: ov.page <= 1, onclick: () => void showOverview(ov.page - 1) }, "← Previous"),
    h("span", { class: "muted small", "data-testid": "graph-page" }, `page ${ov.page} of ${ov.pages}`),
    h("button", { type: "button", "data-testid": "graph-next", disabled: ov.page >= ov.pages, onclick: () => void showOverview(ov.page + 1) }, "Next →"),
  );
  info.append(
    h("h2", { "data-testid": "graph-overview" }, "The graph at a glance"),
    h("div", { class: "muted small" }, `${ov.entities} entities, the most connected first; click one to see its neighbours.`),
    pager,
    h("ol", { class: "neighbors", start: String((ov.page - 1) * ov.per_page + 1), "data-testid": "graph-overview-list" },
      ov.nodes.map((n) =>
        h("li", {},
          h("a", { href: `#graph/${encodeURIComponent(n.name)}`, class: "nb-name" }, n.name),
          h("span", { class: "muted small" }, ` ${n.degree} neighbours · ${n.mentions} passages`),
        ),
      ),
    ),
  );
}

function destroy(): void {
  cy?.destroy();
  cy = null;
  canvas.hidden = true;
  canvas.dataset.nodeCount = "0";
  canvas.dataset.edgeCount = "0";
}

function render(ent: Entity): void {
  destroy();
  canvas.hidden = false;
  const nodes = new Map<string, cytoscape.ElementDefinition>();
  nodes.set(ent.id, { data: { id: ent.id, label: ent.name, ring: 3 }, classes: "center" });
  const edges: cytoscape.ElementDefinition[] = [];
  ent.neighbors.forEach((nb, i) => {
    if (!nodes.has(nb.id)) nodes.set(nb.id, { data: { id: nb.id, label: nb.name, ring: 1 } });
    const out = nb.direction !== "in";
    edges.push({
      data: {
        id: `e${i}`,
        source: out ? ent.id : nb.id,
        target: out ? nb.id : ent.id,
        label: nb.relation.replace(/_/g, " "),
        width: 1 + Math.log2(1 + (nb.weight || 1)),
        index: i,
      },
    });
  });
  cy = cytoscape({
    container: canvas,
    elements: [...nodes.values(), ...edges],
    wheelSensitivity: 0.3,
    style: [
      {
        selector: "node",
        style: {
          label: "data(label)",
          "background-color": "#6b8fd6",
          color: "#1d2433",
          "font-size": 11,
          "text-valign": "bottom",
          "text-margin-y": 4,
          "text-wrap": "wrap",
          "text-max-width": "110px",
          width: 18,
          height: 18,
        },
      },
      { selector: "node.center", style: { "background-color": "#d9534f", width: 30, height: 30, "font-size": 13, "font-weight": "bold" } },
      { selector: "node:selected", style: { "border-width": 3, "border-color": "#f0ad4e" } },
      {
        selector: "edge",
        style: {
          label: "data(label)",
          width: "data(width)",
          "line-color": "#b8c2d6",
          "target-arrow-color": "#b8c2d6",
          "target-arrow-shape": "triangle",
          "curve-style": "bezier",
          "font-size": 9,
          color: "#56607a",
          "text-rotation": "autorotate",
          "text-background-color": "#ffffff",
          "text-background-opacity": 0.8,
          "text-background-padding": "1px",
        },
      },
      { selector: "edge:selected", style: { "line-color": "#f0ad4e", "target-arrow-color": "#f0ad4e" } },
    ],
    layout: {
      name: "concentric",
      concentric: (n: cytoscape.NodeSingular) => Number(n.data("ring")),
      levelWidth: () => 1,
      minNodeSpacing: 56,
      padding: 40,
      animate: false,
    } as cytoscape.LayoutOptions,
  });
  placeLabels(cy);
  cy.on("tap", "node", (e) => {
    const n = e.target as cytoscape.NodeSingular;
    if (n.hasClass("center")) return;
    location.hash = `#graph/${encodeURIComponent(String(n.data("label")))}`;
  });
  cy.on("tap", "edge", (e) => {
    const i = Number((e.target as cytoscape.EdgeSingular).data("index"));
    if (ent.neighbors[i]) focusNeighbor(ent.neighbors[i], i);
  });
  // For the browser tests (tests/browser/ui_test.mjs), which click nodes on the canvas.
  (canvas as HTMLElement & { cy?: cytoscape.Core }).cy = cy;
  canvas.dataset.nodeCount = String(cy.nodes().length);
  canvas.dataset.edgeCount = String(cy.edges().length);
  canvas.dataset.center = ent.name;
  renderInfo(ent);
}

/** Each neighbour's label away from the centre (left of a node on the left, and so on). */
function placeLabels(core: cytoscape.Core): void {
  const c = core.nodes(".center").first().position();
  core.nodes().not(".center").forEach((n) => {
    const dx = n.position("x") - c.x;
    const dy = n.position("y") - c.y;
    const side = Math.abs(dx) > Math.abs(dy) * 0.15;
    n.style({
      "text-halign": side ? (dx < 0 ? "left" : "right") : "center",
      "text-valign": side ? "center" : dy < 0 ? "top" : "bottom",
      "text-margin-x": side ? (dx < 0 ? -4 : 4) : 0,
      "text-margin-y": side ? 0 : dy < 0 ? -4 : 4,
    });
  });
}

function renderInfo(ent: Entity): void {
  clear(info);
  info.append(h("h2", { "data-testid": "graph-entity-name" }, ent.name));
  if (ent.description) info.append(h("p", { class: "desc" }, ent.description));
  const meta: string[] = [];
  if (ent.mentions !== undefined) meta.push(`${ent.mentions} mentions`);
  meta.push(`${ent.neighbors.length} neighbours`);
  info.append(h("div", { class: "muted small" }, meta.join(" · ")));
  const aliases = (ent.aliases ?? []).filter((a) => a !== ent.name);
  if (aliases.length) info.append(h("div", { class: "muted small" }, `Also: ${aliases.join(", ")}`));
  const figs = (ent.figures ?? []).filter((f): f is { id: string; label?: string; caption?: string; where?: string } => typeof f === "object" && f !== null && "id" in f);
  if (figs.length)
    info.append(
      h("h3", {}, "Figures"),
      h("div", { class: "figures", "data-testid": "graph-figures" },
        figs.map((f) =>
          h("figure", { class: "figure", title: f.caption ?? "" },
            apiImg(api.figureImage(f.id), { alt: f.label ?? "figure", loading: "lazy" }),
            h("figcaption", {}, f.where ?? f.label ?? "Figure"),
          ),
        ),
      ),
    );
  if (!ent.neighbors.length) {
    info.append(emptyBox("This entity has no neighbours in the graph.", "graph-no-neighbors"));
    return;
  }
  info.append(
    h("h3", {}, "Neighbours"),
    h("ul", { class: "neighbors", "data-testid": "graph-neighbors" },
      ent.neighbors.map((nb, i) =>
        h("li", { "data-index": i },
          h("div", { class: "nb-row" },
            h("button", { type: "button", class: "linkish nb-name", title: "Show the evidence", onclick: () => focusNeighbor(nb, i) }, nb.name),
            h("span", { class: "nb-rel muted small", title: nb.direction === "in" ? `${nb.name} ${nb.relation} ${ent.name}` : `${ent.name} ${nb.relation} ${nb.name}` },
              nb.direction === "in" ? `← ${nb.relation.replace(/_/g, " ")}` : `${nb.relation.replace(/_/g, " ")} →`),
            h("a", { class: "nb-centre small", href: `#graph/${encodeURIComponent(nb.name)}`, title: `Centre the graph on ${nb.name}`, "data-testid": "graph-centre" }, "centre"),
          ),
          h("div", { class: "evidence", hidden: true }),
        ),
      ),
    ),
  );
}

/** Opens a neighbour's evidence sentences in the list; each opens its passage in the viewer. */
function focusNeighbor(nb: Neighbor, i: number): void {
  const li = info.querySelector<HTMLElement>(`.neighbors > li[data-index="${i}"]`);
  if (!li) return;
  const ev = li.querySelector<HTMLElement>(".evidence")!;
  ev.hidden = !ev.hidden;
  if (!ev.hidden && !ev.childElementCount) {
    const sentences = nb.evidence ?? [];
    if (!sentences.length) ev.append(h("div", { class: "muted small" }, nb.description || "No evidence sentence stored."));
    for (const s of sentences)
      ev.append(
        h("button", { type: "button", class: "evidence-item", onclick: () => openCitation({ doc: s.doc, chunk_id: s.chunk_id, page: s.page, quote: s.sentence }) },
          `“${s.sentence}” `, h("span", { class: "muted small" }, s.where),
        ),
      );
  }
  li.scrollIntoView({ block: "nearest" });
  cy?.nodes().unselect();
  cy?.getElementById(nb.id).select();
}
