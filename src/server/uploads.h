// Uploaded files: a safe name, a type decided by the bytes (not the name), and a write that can
// only land inside the store's uploads/ folder (no path traversal, no symlink followed). Every
// format ingest reads is accepted: PDF, Markdown, HTML, text, EPUB, Office files and images.
#pragma once

#include <string>
#include <string_view>

namespace mmkg::server {

/// The base name of an uploaded file name, reduced to a safe name: no folders ("a/../b.txt" and
/// "..\\b.txt" give "b.txt"), no control characters, no leading dots, at most 120 bytes (the
/// extension kept). Empty when nothing usable is left.
std::string safe_file_name(std::string_view name);

/// The name to store an upload under: `safe_name`, with the extension that says what the bytes
/// are appended when its own does not (upload_format in ingest/formats.h: "scan.bin" holding a
/// PDF is stored as "scan.bin.pdf", "notes" holding text as "notes.txt"). Throws HttpError 415
/// for bytes no parser reads (archives, executables, an image named like a document), or a name
/// ending in .pdf whose bytes are not a PDF.
std::string stored_name(const std::string& safe_name, std::string_view bytes);

/// Writes `bytes` to DIR/NAME (DIR created, itself not a symlink), through a temporary file
/// opened with O_EXCL|O_NOFOLLOW and renamed over NAME, so a symlink planted at NAME is replaced,
/// never followed. Returns the absolute path. Throws Error on failure.
std::string write_upload(const std::string& dir, const std::string& name, std::string_view bytes);

}  // namespace mmkg::server
