// The page view: a page of a PDF rendered as PNG with a cited chunk's boxes highlighted
// (Session::page_image), and one chunk with its boxes as JSON (Session::chunk_info).
#include <cmath>
#include <string>

#include "app/json.h"
#include "core/error.h"
#include "server/context.h"
#include "server/workspaces.h"

namespace mmkg::server {

namespace {

/// The zoom parameter: a number (clamped to 0.5..4 by the renderer); 400 when it is not one.
double zoom_param(const httplib::Request& req) {
  if (!req.has_param("zoom")) return 1.5;
  const std::string v = req.get_param_value("zoom");
  try {
    size_t used = 0;
    const double z = std::stod(v, &used);
    if (used == v.size() && std::isfinite(z) && z > 0) return z;
  } catch (const std::exception&) {
  }
  throw HttpError(400, "bad_request", "zoom must be a positive number (it is clamped to 0.5..4)");
}

/// The page number of the path (digits only, by the route's pattern); 404 when it is too large.
int page_number(const std::string& digits) {
  if (digits.size() > 6) throw HttpError(404, "not_found", "no page " + digits);
  return std::stoi(digits);
}

void page_image(Context& c, const httplib::Request& req, httplib::Response& res) {
  const std::string key = req.matches[1];
  const int page = page_number(req.matches[2]);
  const double zoom = zoom_param(req);
  const std::string chunk = param(req, "chunk");
  PageImage img;
  {
    auto s = c.pool.acquire();  // rendering is heavy work: a reader session, not the meta one
    img = s->page_image(key, page, chunk, zoom);
  }
  res.set_header("Cache-Control", "private, max-age=60");
  res.set_header("X-Page-Count", std::to_string(img.pages));
  res.set_header("X-Highlight-Boxes", std::to_string(img.boxes));
  res.set_content(std::move(img.png), "image/png");
}

void chunk(Context& c, const httplib::Request& req, httplib::Response& res) {
  const std::string id = req.matches[1];
  ChunkReport r;
  {
    std::lock_guard<std::mutex> lk(c.meta_mu);
    r = c.meta.chunk_info(id);
  }
  send_json(res, chunk_json(r));
}

}  // namespace

void add_page_routes(Http& http, Workspaces& ws) {
  http.get(R"(/api/documents/([^/]+)/pages/([0-9]+)/image)", "/api/documents/{key}/pages/{n}/image",
           in_workspace(ws, page_image));
  http.get(R"(/api/chunks/([^/]+))", "/api/chunks/{id}", in_workspace(ws, chunk));
}

}  // namespace mmkg::server
