// The JSON contract of every command (README, "JSON output"), rendered from the Session's typed
// reports. The CLI prints these with --json; the server will answer with them.
#pragma once

#include <nlohmann/json.hpp>

#include "app/session.h"

namespace mmkg {

nlohmann::json graph_sync_json(const graph::GraphSyncResult& g);
nlohmann::json ingest_json(const IngestReport& r);
nlohmann::json remove_json(const RemoveReport& r);
nlohmann::json search_json(const SearchReport& r);
nlohmann::json ask_json(const std::string& question, const AskResult& r);
/// One agent step of ask, as an element of ask_json's "trace" (the server streams them).
nlohmann::json ask_step_json(const StepRecord& step);
nlohmann::json stats_json(const StatsReport& r);
nlohmann::json check_json(const CheckReport& r);
/// `graph entity` (no evidence) and `graph neighbors` (with evidence).
nlohmann::json entity_json(const EntityReport& r, bool with_evidence);
nlohmann::json graph_overview_json(const GraphOverview& o);
nlohmann::json eval_report_json(const EvalReport& r);
nlohmann::json figure_json(const StoredFigure& f);
nlohmann::json figure_report_json(const FigureReport& r);
nlohmann::json export_json(const ExportReport& r);
/// Page boxes: [{"page", "x0", "y0", "x1", "y1"}] (points, y down, page space).
nlohmann::json page_boxes_json(const std::vector<PageBox>& boxes);
/// One stored chunk with its boxes (GET /api/chunks/{id}).
nlohmann::json chunk_json(const ChunkReport& r);
/// A rendered page's metadata (the PNG itself is not included).
nlohmann::json page_image_json(const PageImage& p);

}  // namespace mmkg
