// mmkg figure, mmkg export.
#include <cstdio>

#include "app/json.h"
#include "cli/commands.h"
#include "core/error.h"

namespace mmkg::cli {

Command add_figure(CLI::App& app, Common& c) {
  auto* cmd = app.add_subcommand("figure", "a figure or table: its caption, text, description; -o writes its PNG");
  add_common(cmd, c);
  struct Flags {
    std::string id, output;
  };
  auto f = std::make_shared<Flags>();
  cmd->add_option("id", f->id, "figure id or id prefix (search and ask show them as figure_id)")->required();
  cmd->add_option("-o,--output", f->output, "write the figure's PNG to this file");
  return {cmd, [&c, f]() {
            FigureReport r = open_session(c)->figure(f->id, f->output);
            if (c.json) {
              std::printf("%s\n", figure_report_json(r).dump().c_str());
              return 0;
            }
            const Figure& g = r.figure.figure;
            std::printf("%s %s  (%s%s, %s, %dx%d px)\n", figure_kind_name(g.kind()), g.id.c_str(), r.figure.doc_name.c_str(),
                        g.page > 0 ? (", page " + std::to_string(g.page)).c_str() : "", g.source.c_str(), g.width, g.height);
            if (!g.caption.empty()) std::printf("  caption: %s\n", g.caption.c_str());
            for (const auto& ref : g.references) std::printf("  referred to: %s\n", ref.c_str());
            if (!g.text.empty()) std::printf("  text (%s): %s\n", g.text_source.c_str(), g.text.c_str());
            if (!g.description.empty()) std::printf("  description: %s\n", g.description.c_str());
            if (!r.image_path.empty()) std::printf("  image: %s\n", r.image_path.c_str());
            if (!r.written.empty()) std::printf("  written to %s\n", r.written.c_str());
            return 0;
          }};
}

Command add_export(CLI::App& app, Common& c) {
  auto* cmd = app.add_subcommand("export", "write a document as Markdown with its figures (images/ beside it)");
  add_common(cmd, c);
  struct Flags {
    ExportRequest req;
    std::string format = "md";
  };
  auto f = std::make_shared<Flags>();
  cmd->add_option("doc", f->req.doc, "document: file name, path, id or id prefix")->required();
  cmd->add_option("--format", f->format, "output format (md)")->capture_default_str()->check(CLI::IsMember({"md"}));
  cmd->add_flag("--annotated", f->req.annotated, "add each figure's text (OCR or PDF) and description under it");
  cmd->add_option("-o,--output", f->req.out_dir, "folder to write NAME_raw.md (or NAME_annotated.md) and images/ to")
      ->required();
  return {cmd, [&c, f]() {
            ExportReport r = open_session(c)->export_markdown(f->req);
            if (c.json) {
              std::printf("%s\n", export_json(r).dump().c_str());
              return 0;
            }
            std::printf("wrote %s (%d figure%s in %s/images)\n", r.markdown.c_str(), r.figures,
                        r.figures == 1 ? "" : "s", f->req.out_dir.c_str());
            return 0;
          }};
}

}  // namespace mmkg::cli
