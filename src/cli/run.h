// mmkg's command line as a function, for main.cc (which stays free of CLI11 and the Session).
#pragma once

namespace mmkg::cli {

/// Parses `argv`, runs the chosen command and returns the process's exit code (0 ok, 1 some
/// inputs failed or an error, 2 usage or configuration error).
int run(int argc, char** argv);

}  // namespace mmkg::cli
