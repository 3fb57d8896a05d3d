// GraphML 1.0: entities as nodes (name, type, aliases, description, mention count), relations as
// directed edges (type, weight, description); figures and tables as nodes too (kind "figure",
// type figure|table, label, caption, document, chunk, page) with a "depicts" edge to each entity
// they depict. `kind` tells the two sorts of node apart.
#include <map>
#include <ostream>

#include "graph/export/exporter.h"

namespace mmkg::graph {

namespace {

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char ch : s) {
    switch (ch) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t') break;  // invalid in XML 1.0
        o += ch;
    }
  }
  return o;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string o;
  for (size_t i = 0; i < v.size(); ++i) o += (i ? sep : "") + v[i];
  return o;
}

class GraphmlExporter final : public Exporter {
 public:
  std::string name() const override { return "graphml"; }
  std::string description() const override { return "GraphML 1.0 (Gephi, yEd, NetworkX)"; }
  void write(const GraphDump& g, std::ostream& out) const override {
    std::map<std::string, size_t> mentions;
    for (const auto& m : g.mentions) ++mentions[m.entity_id];
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
           "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
           "  <key id=\"name\" for=\"node\" attr.name=\"name\" attr.type=\"string\"/>\n"
           "  <key id=\"type\" for=\"node\" attr.name=\"type\" attr.type=\"string\"/>\n"
           "  <key id=\"aliases\" for=\"node\" attr.name=\"aliases\" attr.type=\"string\"/>\n"
           "  <key id=\"description\" for=\"node\" attr.name=\"description\" attr.type=\"string\"/>\n"
           "  <key id=\"mentions\" for=\"node\" attr.name=\"mentions\" attr.type=\"int\"/>\n"
           "  <key id=\"kind\" for=\"node\" attr.name=\"kind\" attr.type=\"string\"/>\n"
           "  <key id=\"label\" for=\"node\" attr.name=\"label\" attr.type=\"string\"/>\n"
           "  <key id=\"caption\" for=\"node\" attr.name=\"caption\" attr.type=\"string\"/>\n"
           "  <key id=\"doc_id\" for=\"node\" attr.name=\"doc_id\" attr.type=\"string\"/>\n"
           "  <key id=\"chunk_id\" for=\"node\" attr.name=\"chunk_id\" attr.type=\"string\"/>\n"
           "  <key id=\"page\" for=\"node\" attr.name=\"page\" attr.type=\"int\"/>\n"
           "  <key id=\"rtype\" for=\"edge\" attr.name=\"type\" attr.type=\"string\"/>\n"
           "  <key id=\"weight\" for=\"edge\" attr.name=\"weight\" attr.type=\"double\"/>\n"
           "  <key id=\"rdescription\" for=\"edge\" attr.name=\"description\" attr.type=\"string\"/>\n"
           "  <graph id=\"mmkg\" edgedefault=\"directed\">\n";
    for (const auto& e : g.entities) {
      out << "    <node id=\"" << xml_escape(e.id) << "\"><data key=\"name\">" << xml_escape(e.name)
          << "</data><data key=\"type\">" << xml_escape(e.type) << "</data><data key=\"aliases\">"
          << xml_escape(join(e.aliases, "|")) << "</data><data key=\"description\">" << xml_escape(e.description)
          << "</data><data key=\"mentions\">" << mentions[e.id] << "</data><data key=\"kind\">entity</data></node>\n";
    }
    for (const auto& f : g.figures) {
      // The name is what a viewer labels the node with: "Figure 3", or the kind when uncaptioned.
      const std::string name = !f.label.empty() ? f.label : f.kind == FigureKind::Table ? "Table" : "Figure";
      out << "    <node id=\"" << xml_escape(f.id) << "\"><data key=\"name\">" << xml_escape(name)
          << "</data><data key=\"type\">" << xml_escape(figure_kind_name(f.kind)) << "</data><data key=\"kind\">figure</data>"
          << "<data key=\"label\">" << xml_escape(f.label) << "</data><data key=\"caption\">" << xml_escape(f.caption)
          << "</data><data key=\"doc_id\">" << xml_escape(f.doc_id) << "</data><data key=\"chunk_id\">"
          << xml_escape(f.chunk_id) << "</data><data key=\"page\">" << f.page << "</data></node>\n";
    }
    size_t n = 0;
    for (const auto& r : g.relations) {
      out << "    <edge id=\"r" << n++ << "\" source=\"" << xml_escape(r.src) << "\" target=\"" << xml_escape(r.dst)
          << "\"><data key=\"rtype\">" << xml_escape(r.type) << "</data><data key=\"weight\">" << r.weight
          << "</data>";
      if (!r.description.empty()) out << "<data key=\"rdescription\">" << xml_escape(r.description) << "</data>";
      out << "</edge>\n";
    }
    n = 0;
    for (const auto& f : g.figures)
      for (const auto& e : f.entity_ids)
        out << "    <edge id=\"d" << n++ << "\" source=\"" << xml_escape(f.id) << "\" target=\"" << xml_escape(e)
            << "\"><data key=\"rtype\">depicts</data><data key=\"weight\">1</data></edge>\n";
    out << "  </graph>\n</graphml>\n";
  }
};

}  // namespace

const Exporter& graphml_exporter() {
  static const GraphmlExporter e;
  return e;
}

}  // namespace mmkg::graph
