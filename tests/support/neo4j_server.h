// Test-only: one Neo4j 5.26 server per test-binary run for the tests that need one.
//
// A gtest Environment that, when at least one selected test has "neo4j" in its name, uses
// $MMKG_NEO4J_URL if set, else the URL in the file $MMKG_NEO4J_URL_FILE (ctest's fixture, started
// once per ctest run by scripts/neo4j_ctest.sh), else starts a fresh server with scripts/neo4j.sh
// (repository root found from this file's path) and stops it when the run ends. Tests call require_neo4j():
// without a server they FAIL loudly, unless MMKG_ALLOW_NO_NEO4J=1, which skips them under a
// visible "NEO4J CONFORMANCE SUITE SKIPPED" banner.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace mmkg::testing {

class Neo4jTestServer : public ::testing::Environment {
 public:
  /// The one instance (owned by gtest once registered).
  static Neo4jTestServer& instance() {
    static Neo4jTestServer* s = [] {
      auto* p = new Neo4jTestServer;
      ::testing::AddGlobalTestEnvironment(p);
      return p;
    }();
    return *s;
  }

  /// Base URL of the server ("" when none could be started; see error()).
  const std::string& url() const { return url_; }
  const std::string& error() const { return error_; }

  static bool allow_missing() {
    const char* v = std::getenv("MMKG_ALLOW_NO_NEO4J");
    return v && std::string(v) == "1";
  }

  static std::string banner(const std::string& why) {
    return "\n"
           "##########################################################################\n"
           "###            NEO4J CONFORMANCE SUITE SKIPPED                         ###\n"
           "###   (MMKG_ALLOW_NO_NEO4J=1; the Neo4j backend was NOT tested)        ###\n"
           "##########################################################################\n"
           "reason: " + why + "\n";
  }

  void SetUp() override {
    if (!neo4j_tests_selected()) return;
    if (const char* u = std::getenv("MMKG_NEO4J_URL"); u && *u) {
      url_ = u;
      return;
    }
    if (const char* f = std::getenv("MMKG_NEO4J_URL_FILE"); f && *f) {
      std::ifstream in(f);
      std::getline(in, url_);
      if (url_.rfind("http", 0) != 0) {
        url_.clear();
        fail(std::string("no server URL in ") + f + ": ctest's fixture test neo4j_server_start did not start one " +
             "(see `ctest -R neo4j_server_start -V`; build the launcher with `bash scripts/setup_neo4j.sh`)");
      }
      return;
    }
    namespace fs = std::filesystem;
    fs::path root = fs::path(__FILE__).parent_path().parent_path().parent_path();
    fs::path script = root / "scripts" / "neo4j.sh";
    if (!fs::exists(script)) {
      fail("cannot find " + script.string() + " (set MMKG_NEO4J_URL to use a running server)");
      return;
    }
    char tmpl[] = "/tmp/mmkg-neo4j-test-XXXXXX";
    if (!mkdtemp(tmpl)) {
      fail("cannot create a temporary directory for Neo4j");
      return;
    }
    dir_ = tmpl;
    script_ = "bash '" + script.string() + "'";
    std::cerr << "[neo4j] starting a test server (" << script_ << " start " << dir_ << ") ...\n";
    std::string out;
    // The server stops itself when this test process ends, even killed by a ctest timeout.
    int rc = run("NEO4J_WATCH_PID=" + std::to_string(getpid()) + " " + script_ + " start " + dir_ + " 2>" + dir_ +
                     "/start.err",
                 out);
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    if (rc != 0 || out.rfind("http", 0) != 0) {
      std::ifstream err(dir_ + "/start.err");
      std::stringstream ss;
      ss << err.rdbuf();
      // The state directory is removed below: keep the end of the server log in the message.
      std::string log;
      run("tail -n 15 " + dir_ + "/neo4j.log 2>/dev/null", log);
      fail("scripts/neo4j.sh start failed (exit " + std::to_string(rc) + "): " + ss.str() +
           (log.empty() ? "" : "--- end of neo4j.log ---\n" + log + "---\n") +
           "build the launcher with `bash scripts/setup_neo4j.sh`, or set MMKG_NEO4J_URL");
      stop();
      return;
    }
    url_ = out;
    std::cerr << "[neo4j] test server at " << url_ << "\n";
  }

  void TearDown() override {
    stop();
    // Repeat the banner at the end of the run, where it is seen.
    if (!error_.empty() && allow_missing()) std::cerr << banner(error_);
  }

 private:
  static bool neo4j_tests_selected() {
    const auto* u = ::testing::UnitTest::GetInstance();
    for (int i = 0; i < u->total_test_suite_count(); ++i) {
      const auto* s = u->GetTestSuite(i);
      for (int j = 0; j < s->total_test_count(); ++j) {
        const auto* t = s->GetTestInfo(j);
        std::string name = std::string(s->name()) + "." + t->name();
        if (t->should_run() && name.find("neo4j") != std::string::npos) return true;
        if (t->should_run() && name.find("Neo4j") != std::string::npos) return true;
      }
    }
    return false;
  }

  static int run(const std::string& cmd, std::string& out) {
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return -1;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }

  void fail(const std::string& why) {
    error_ = why;
    if (allow_missing()) std::cerr << banner(why);
    else std::cerr << "\n[neo4j] *** NEO4J COULD NOT BE STARTED: " << why << " ***\n";
  }

  void stop() {
    if (dir_.empty()) return;
    std::string out;
    run(script_ + " stop " + dir_ + " >/dev/null 2>&1", out);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    dir_.clear();
  }

  std::string url_, error_, dir_, script_;
};

/// Registers the environment before main() runs, once per test binary, whichever (and however
/// many) of its test files include this header.
[[maybe_unused]] inline const Neo4jTestServer& kNeo4jServer = Neo4jTestServer::instance();

/// In a test's SetUp: the server URL, or a FAIL (or, with MMKG_ALLOW_NO_NEO4J=1, a skip) when
/// there is none. Use as `std::string url; ASSERT_TRUE(require_neo4j(url)) ...` via the macro.
#define MMKG_REQUIRE_NEO4J(url_var)                                                                 \
  do {                                                                                              \
    auto& srv_ = ::mmkg::testing::Neo4jTestServer::instance();                                      \
    if (srv_.url().empty()) {                                                                       \
      std::string why_ = srv_.error().empty() ? "the Neo4j test environment did not run" : srv_.error(); \
      if (::mmkg::testing::Neo4jTestServer::allow_missing()) {                                      \
        GTEST_SKIP() << ::mmkg::testing::Neo4jTestServer::banner(why_);                             \
      }                                                                                             \
      FAIL() << "NEO4J IS NOT AVAILABLE, so the Neo4j graph-store tests cannot run: " << why_        \
             << "\n(set MMKG_ALLOW_NO_NEO4J=1 to skip them explicitly)";                            \
    }                                                                                               \
    url_var = srv_.url();                                                                           \
  } while (0)

}  // namespace mmkg::testing
