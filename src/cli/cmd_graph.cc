// mmkg graph entity|neighbors|overview|export.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>

#include "app/cite.h"
#include "app/json.h"
#include "cli/commands.h"
#include "core/error.h"

namespace mmkg::cli {

namespace {

void print_entity(const EntityReport& r) {
  const graph::Entity& e = r.entity;
  std::printf("%s  (%s, %s; %zu mentions)\n", e.name.c_str(), e.id.c_str(), e.type.c_str(), r.mentions);
  if (e.aliases.size() > 1) {
    std::string a;
    for (const auto& x : e.aliases) a += (a.empty() ? "" : ", ") + x;
    std::printf("  aliases: %s\n", a.c_str());
  }
  if (!e.description.empty()) std::printf("  %s\n", e.description.c_str());
  for (const auto& n : r.neighbors) {
    std::printf("  %s %s %s  (weight %.1f)\n", n.outgoing ? e.name.c_str() : n.name.c_str(), n.relation.c_str(),
                n.outgoing ? n.name.c_str() : e.name.c_str(), n.weight);
    if (!n.description.empty()) std::printf("      %s\n", n.description.c_str());
    for (const auto& x : n.evidence)
      std::printf("      \"%s\" (%s)\n", x.sentence.c_str(), location_text(location_of(x)).c_str());
  }
  for (const auto& f : r.figures) {
    std::printf("  in %s (figure %s)\n", location_text(location_of(f)).c_str(), f.id.c_str());
  }
}

void print_overview(const GraphOverview& o) {
  if (o.entities == 0) {
    std::printf("the knowledge graph is empty; `mmkg ingest` builds it (unless run with --extract none)\n");
    return;
  }
  std::printf("%zu entities, page %d of %d (most connected first)\n", o.entities, o.page, o.pages);
  std::map<std::string, std::string> names;
  for (const auto& n : o.nodes) {
    names[n.id] = n.name;
    std::printf("  %-40s %4zu neighbours %5zu passages  (%s, %s)\n", n.name.c_str(), n.degree, n.mentions, n.type.c_str(),
                n.id.c_str());
  }
  if (!o.links.empty()) std::printf("links among them:\n");
  for (const auto& l : o.links)
    std::printf("  %s %s %s  (weight %.1f)\n", names[l.src].c_str(), l.type.c_str(), names[l.dst].c_str(), l.weight);
}

}  // namespace

Command add_graph(CLI::App& app, Common& c) {
  auto* cmd = app.add_subcommand("graph", "inspect and export the knowledge graph");
  add_common(cmd, c);
  cmd->require_subcommand(1);
  struct Flags {
    std::string name, format = "jsonl", output;
    int page = 1, per_page = 20;
  };
  auto f = std::make_shared<Flags>();
  auto* entity = cmd->add_subcommand("entity", "an entity: aliases, type, description, mentions, neighbours");
  add_common(entity, c);
  entity->add_option("name", f->name, "entity name or alias (fuzzy matching applies)")->required();
  auto* neighbors = cmd->add_subcommand("neighbors", "an entity's relations with their evidence sentences");
  add_common(neighbors, c);
  neighbors->add_option("name", f->name, "entity name or alias")->required();
  auto* overview = cmd->add_subcommand("overview", "the most connected entities and the links among them, a page at a time");
  add_common(overview, c);
  overview->add_option("--page", f->page, "page, from 1")->capture_default_str()->check(CLI::PositiveNumber);
  overview->add_option("--per-page", f->per_page, "entities per page")->capture_default_str()->check(CLI::Range(1, 200));
  auto* exp = cmd->add_subcommand("export", "write the whole graph as JSON lines, GraphML or Cypher");
  add_common(exp, c);
  exp->add_option("--format", f->format, "jsonl, graphml or cypher")->capture_default_str()
      ->check(CLI::IsMember(Session::export_formats()));
  exp->add_option("-o,--output", f->output, "file to write (default: stdout)");
  return {cmd, [&c, f, exp, neighbors, overview]() {
            auto session = open_session(c);
            if (overview->parsed()) {
              GraphOverview o = session->graph_overview(f->page, f->per_page);
              if (c.json)
                std::printf("%s\n", graph_overview_json(o).dump().c_str());
              else
                print_overview(o);
              return 0;
            }
            if (exp->parsed()) {
              std::ofstream file;
              if (!f->output.empty()) {
                file.open(f->output, std::ios::binary);
                if (!file) throw IOError(f->output + ": cannot write the export file");
              }
              session->graph_export(f->format, f->output.empty() ? std::cout : file);
              return 0;
            }
            const bool evidence = neighbors->parsed();
            EntityReport r = session->graph_entity(f->name, evidence, evidence ? 200 : 20);
            if (c.json)
              std::printf("%s\n", entity_json(r, evidence).dump().c_str());
            else
              print_entity(r);
            return 0;
          }};
}

}  // namespace mmkg::cli
