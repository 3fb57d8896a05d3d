// The local model server's command line (llm/local_server.h): every core generates.
#include "llm/local_server.h"

#include <algorithm>
#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace mmkg {
namespace {

std::string after(const std::vector<std::string>& args, const std::string& flag) {
  auto it = std::find(args.begin(), args.end(), flag);
  return it == args.end() || it + 1 == args.end() ? "" : *(it + 1);
}

TEST(LocalServer, StartsWithOneThreadPerCoreUnlessToldOtherwise) {
  LocalServerOptions o;
  const auto args = local_server_command(o, "python3", "/m/model.gguf", 8123);
  const std::string cores = std::to_string(std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(after(args, "--n_threads"), cores);
  EXPECT_EQ(after(args, "--n_threads_batch"), cores);
  EXPECT_EQ(after(args, "--model"), "/m/model.gguf");
  EXPECT_EQ(after(args, "--port"), "8123");
  EXPECT_EQ(after(args, "--n_ctx"), "4096");
  o.threads = 3;
  EXPECT_EQ(after(local_server_command(o, "python3", "/m/model.gguf", 8123), "--n_threads"), "3");
}

}  // namespace
}  // namespace mmkg
