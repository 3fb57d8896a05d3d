#include "app/json.h"

#include "agents/trace_json.h"
#include "app/cite.h"
#include "eval/eval_json.h"

namespace mmkg {

using nlohmann::json;

namespace {

json page_json(int p) { return p > 0 ? json(p) : json(nullptr); }

}  // namespace

json graph_sync_json(const graph::GraphSyncResult& g) {
  return {{"extractor", g.extractor}, {"llm_calls", g.model.model_calls}, {"llm_requests", g.model.model_requests},
          {"llm_cached", g.model.model_cached},
          {"llm_fallbacks", g.model.fallbacks}, {"prompt_tokens", g.model.prompt_tokens},
          {"completion_tokens", g.model.completion_tokens},
          {"documents_added", g.documents_added}, {"documents_removed", g.documents_removed},
          {"chunks_extracted", g.chunks_extracted}, {"extractions_cached", g.extractions_cached},
          {"entities", g.stats.entities}, {"relations", g.stats.relations}, {"mentions", g.stats.mentions},
          {"aliases", g.stats.aliases}, {"communities", g.stats.communities}, {"seconds", g.seconds},
          {"extract_seconds", g.extract_seconds}, {"resolve_seconds", g.resolve_seconds},
          {"write_seconds", g.write_seconds}, {"community_seconds", g.community_seconds}};
}

json ingest_json(const IngestReport& rep) {
  const IngestResult& r = rep.files;
  json failed = json::array();
  for (const auto& f : r.failed) failed.push_back({{"path", f.path}, {"error", f.error}});
  json warnings = json::array();
  for (const auto& w : r.warnings) warnings.push_back({{"path", w.path}, {"warning", w.error}});
  json links = json::array();
  for (const auto& w : r.skipped_links) links.push_back({{"path", w.path}, {"warning", w.error}});
  return {{"documents", r.documents}, {"skipped", r.skipped}, {"chunks", r.chunks},
          {"figures", r.figures},     {"tables", r.tables},   {"pages", r.pages},     {"bytes", r.bytes},
          {"ocr", {{"images", r.ocr_runs}, {"skipped", r.ocr_skipped}, {"cached", r.ocr_cached}, {"seconds", r.ocr_seconds}}},
          {"vision", {{"calls", r.described}, {"cached", r.describe_cached}, {"seconds", r.describe_seconds}}},
          {"ignored", r.ignored},     {"failed", failed},     {"warnings", warnings},
          {"skipped_links", links},
          {"embedder", rep.embedder.empty() ? json(nullptr) : json(rep.embedder)}, {"embedded", r.embedded},
          {"embed_reused", r.embed_reused}, {"embed_seconds", r.embed_seconds},
          {"vector_index", r.vector_index}, {"lexical_index", r.lexical_index}, {"seconds", r.seconds},
          {"graph", rep.graph ? graph_sync_json(*rep.graph) : json(nullptr)}};
}

json remove_json(const RemoveReport& r) {
  json deleted = json::array(), failed = json::array();
  for (const auto& d : r.deleted) deleted.push_back({{"id", d.id}, {"doc", d.doc}, {"path", d.path}, {"chunks", d.chunks}});
  for (const auto& f : r.failed) failed.push_back({{"doc", f.doc}, {"error", f.error}});
  return {{"deleted", deleted}, {"failed", failed}, {"graph", r.graph ? graph_sync_json(*r.graph) : json(nullptr)}};
}

json search_json(const SearchReport& r) {
  json results = json::array();
  for (size_t i = 0; i < r.hits.size(); ++i) {
    const auto& h = r.hits[i];
    results.push_back({{"rank", i + 1}, {"doc", h.doc}, {"doc_id", h.doc_id}, {"chunk_id", h.chunk_id},
                       {"page", page_json(h.page_start)}, {"page_end", page_json(h.page_end)},
                       {"heading_path", h.heading_path}, {"score", h.score}, {"snippet", h.snippet},
                       {"text", h.text}, {"kind", h.kind()},
                       {"figure_id", h.figure_id.empty() ? json(nullptr) : json(h.figure_id)},
                       {"figure_label", h.figure_label.empty() ? json(nullptr) : json(h.figure_label)},
                       {"where", location_text(location_of(h))}, {"boxes", page_boxes_json(h.boxes)}});
  }
  return {{"query", r.query}, {"mode", search_mode_name(r.mode)},
          {"dense_backend", r.dense_backend.empty() ? json(nullptr) : json(r.dense_backend)},
          {"lexical_backend", r.lexical_backend.empty() ? json(nullptr) : json(r.lexical_backend)},
          {"graph_passages", r.graph_passages}, {"results", results}};
}

json ask_step_json(const StepRecord& step) { return step_json(step); }

// The direct answer and its walks, each step with the chunk it read (docs/JSON.md).
json direct_json(const DirectAnswer& d, const std::vector<Candidate>& context) {
  if (d.asked.form == AskedFact::Form::None) return nullptr;
  json paths = json::array();
  for (const auto& path : d.paths) {
    json steps = json::array();
    for (const HopStep& h : path) {
      const SearchHit* hit = walk_passage(d, context, h.passage);
      const SearchHit* said = walk_passage(d, context, h.source);
      steps.push_back({{"entity", h.entity},
                       {"relation", h.relation.empty() ? json(nullptr) : json(h.relation)},
                       {"chunk_id", hit ? json(hit->chunk_id) : json(nullptr)},
                       {"doc", hit ? json(hit->doc) : json(nullptr)},
                       {"fetched", h.passage != static_cast<size_t>(-1) && h.passage >= context.size()},
                       {"sentence", h.sentence.empty() ? json(nullptr) : json(h.sentence)},
                       {"sentence_chunk_id", said ? json(said->chunk_id) : json(nullptr)}});
    }
    paths.push_back(steps);
  }
  return {{"found", d.found},
          {"text", d.found ? json(d.text) : json(nullptr)},
          {"kind", d.found ? json(d.kind) : json(nullptr)},
          {"form", asked_form_name(d.asked.form)},
          {"property", fact_property_name(d.asked.property)},
          {"relations", d.asked.chain},
          {"entities", d.asked.form == AskedFact::Form::Lookup ? std::vector<std::string>{d.asked.topic} : d.asked.options},
          {"paths", paths},
          {"why", d.found ? json(nullptr) : json(d.why)}};
}

json ask_json(const std::string& question, const AskResult& r) {
  json cites = json::array();
  for (const auto& ct : r.citations)
    cites.push_back({{"n", ct.n}, {"doc", ct.doc}, {"doc_id", ct.doc_id}, {"chunk_id", ct.chunk_id},
                     {"page", page_json(ct.page)}, {"page_end", page_json(ct.page_end)},
                     {"figure_id", ct.figure_id.empty() ? json(nullptr) : json(ct.figure_id)},
                     {"figure_label", ct.figure_label.empty() ? json(nullptr) : json(ct.figure_label)},
                     {"kind", ct.figure_id.empty() ? "text" : figure_kind_name(ct.figure_kind)},
                     {"heading_path", ct.heading_path}, {"where", location_text(location_of(ct))},
                     {"quote", ct.quote}, {"text", ct.text},
                     {"boxes", page_boxes_json(ct.boxes)}});
  json ents = json::array();
  for (const auto& e : r.entities) ents.push_back(entity_link_json(e));
  json facts = json::array();
  for (const auto& f : r.facts)
    facts.push_back({{"fact", f.text}, {"relation", f.relation}, {"chunk_id", f.chunk_id}, {"sentence", f.sentence}});
  return {{"question", question}, {"standalone_question", r.question.empty() ? question : r.question},
          {"answer", r.answer}, {"found", r.found}, {"direct", direct_json(r.direct, r.context)}, {"citations", cites},
          {"subqueries", r.subqueries}, {"entities", ents}, {"facts", facts}, {"context_chunks", r.context_chunks},
          {"context_chars", r.context_chars}, {"context_tokens", r.context_tokens}, {"rounds", r.rounds},
          {"gaps", r.gaps}, {"trace", trace_json(r.trace)}};
}

json stats_json(const StatsReport& r) {
  json graph = nullptr;
  if (!r.graph_backend.empty()) {
    if (r.graph)
      graph = {{"backend", r.graph_backend}, {"documents", r.graph_documents}, {"entities", r.graph->entities},
               {"relations", r.graph->relations}, {"mentions", r.graph->mentions}, {"aliases", r.graph->aliases},
               {"communities", r.graph->communities}};
    else
      graph = {{"backend", r.graph_backend}, {"error", r.graph_error}};
  }
  json d = json::array();
  for (const auto& x : r.docs)
    d.push_back({{"id", x.id}, {"doc", x.name}, {"path", x.path}, {"format", x.format}, {"title", x.title},
                 {"pages", x.pages}, {"chunks", x.chunks}, {"bytes", x.bytes}, {"ingested_at", x.ingested_at}});
  const StoreStats& s = r.store;
  return {{"store", s.path},   {"schema_version", s.schema_version}, {"documents", s.documents},
          {"chunks", s.chunks}, {"pages", s.pages}, {"bytes", s.bytes}, {"text_chars", s.text_chars},
          {"db_bytes", s.db_bytes}, {"graph", graph}, {"docs", d}};
}

json check_json(const CheckReport& r) {
  json checks = json::array();
  for (const auto& c : r.checks) checks.push_back({{"name", c.name}, {"ok", c.ok}, {"detail", c.detail}});
  return {{"ok", r.ok}, {"checks", checks}};
}

json graph_overview_json(const GraphOverview& o) {
  json nodes = json::array(), links = json::array();
  for (const auto& n : o.nodes)
    nodes.push_back({{"id", n.id}, {"name", n.name}, {"type", n.type}, {"degree", n.degree}, {"mentions", n.mentions}});
  for (const auto& l : o.links) links.push_back({{"src", l.src}, {"dst", l.dst}, {"type", l.type}, {"weight", l.weight}});
  return {{"entities", o.entities}, {"page", o.page}, {"per_page", o.per_page}, {"pages", o.pages},
          {"nodes", std::move(nodes)}, {"links", std::move(links)}};
}

json entity_json(const EntityReport& r, bool with_evidence) {
  const graph::Entity& e = r.entity;
  json neighbors = json::array();
  for (const auto& n : r.neighbors) {
    json j = {{"id", n.id}, {"name", n.name}, {"relation", n.relation}, {"weight", n.weight},
              {"direction", n.outgoing ? "out" : "in"}, {"description", n.description}};
    if (with_evidence) {
      json ev = json::array();
      for (const auto& x : n.evidence)
        ev.push_back({{"chunk_id", x.chunk_id}, {"doc", x.doc}, {"page", page_json(x.page)}, {"sentence", x.sentence},
                      {"where", location_text(location_of(x))}});
      j["evidence"] = ev;
    }
    neighbors.push_back(j);
  }
  json figures = json::array();
  for (const auto& f : r.figures)
    figures.push_back({{"id", f.id}, {"doc", f.doc}, {"page", page_json(f.page)},
                       {"label", f.label.empty() ? json(nullptr) : json(f.label)}, {"kind", figure_kind_name(f.kind)},
                       {"caption", f.caption},
                       {"where", location_text(location_of(f))}});
  return {{"id", e.id},         {"name", e.name},   {"aliases", e.aliases},
          {"type", e.type},     {"description", e.description}, {"mentions", r.mentions},
          {"score", e.score},   {"neighbors", neighbors}, {"figures", figures}};
}

json eval_report_json(const EvalReport& r) { return eval_json(r); }

json figure_json(const StoredFigure& sf) {
  const Figure& f = sf.figure;
  return {{"id", f.id}, {"doc", sf.doc_name}, {"doc_id", sf.doc_id}, {"kind", figure_kind_name(f.kind())},
          {"source", f.source}, {"page", page_json(f.page)},
          {"bbox", f.x1 > f.x0 ? json::array({f.x0, f.y0, f.x1, f.y1}) : json(nullptr)},
          {"label", f.label.empty() ? json(nullptr) : json(f.label)}, {"caption", f.caption}, {"alt", f.alt},
          {"references", f.references}, {"text", f.text},
          {"text_source", f.text_source.empty() ? json(nullptr) : json(f.text_source)},
          {"ocr_confidence", f.ocr_confidence < 0 ? json(nullptr) : json(f.ocr_confidence)},
          {"description", f.description.empty() ? json(nullptr) : json(f.description)},
          {"visual_kind", f.visual_kind.empty() ? json(nullptr) : json(f.visual_kind)},
          {"table", f.table_markdown.empty() ? json(nullptr) : json(f.table_markdown)},
          {"width", f.width}, {"height", f.height},
          {"image_hash", f.image_hash.empty() ? json(nullptr) : json(f.image_hash)},
          {"chunk_id", sf.chunk_id.empty() ? json(nullptr) : json(sf.chunk_id)}};
}

json figure_report_json(const FigureReport& r) {
  json j = figure_json(r.figure);
  j["image_path"] = r.image_path.empty() ? json(nullptr) : json(r.image_path);
  j["written"] = r.written.empty() ? json(nullptr) : json(r.written);
  return j;
}

json page_boxes_json(const std::vector<PageBox>& boxes) {
  json out = json::array();
  for (const PageBox& b : boxes) out.push_back({{"page", b.page}, {"x0", b.x0}, {"y0", b.y0}, {"x1", b.x1}, {"y1", b.y1}});
  return out;
}

json chunk_json(const ChunkReport& r) {
  const StoredChunk& sc = r.chunk;
  const Chunk& c = sc.chunk;
  return {{"chunk_id", c.id}, {"doc", sc.doc_name}, {"doc_id", c.doc_id}, {"format", r.format},
          {"seq", c.seq}, {"page", page_json(c.page_start)}, {"page_end", page_json(c.page_end)},
          {"heading_path", c.heading_path}, {"text", c.text},
          {"kind", c.figure_id.empty() ? "text" : figure_kind_name(sc.figure_kind)},
          {"figure_id", c.figure_id.empty() ? json(nullptr) : json(c.figure_id)},
          {"figure_label", sc.figure_label.empty() ? json(nullptr) : json(sc.figure_label)},
          {"boxes", page_boxes_json(c.boxes)}};
}

json page_image_json(const PageImage& p) {
  return {{"doc", p.doc}, {"doc_id", p.doc_id}, {"page", p.page}, {"pages", p.pages}, {"width", p.width},
          {"height", p.height}, {"zoom", p.zoom}, {"boxes", p.boxes},
          {"chunk_id", p.chunk_id.empty() ? json(nullptr) : json(p.chunk_id)}};
}

json export_json(const ExportReport& r) {
  return {{"doc", r.doc}, {"markdown", r.markdown}, {"figures", r.figures}, {"images", r.images}};
}

}  // namespace mmkg
