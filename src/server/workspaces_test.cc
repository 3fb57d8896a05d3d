// Workspaces over real stores: names parsed, one workspace per store, and a root whose subfolders
// are found at their first use, by many threads at once, opened once.
#include "server/workspaces.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "core/error.h"
#include "support/temp_dir.h"

namespace mmkg::server {
namespace {

Config store_config(const std::string& store) {
  Config cfg;
  cfg.store = store;
  cfg.embedder = EmbedderSpec::parse("none");
  return cfg;
}

TEST(WorkspaceSpec, ParsesNameEqualsStore) {
  const WorkspaceSpec s = WorkspaceSpec::parse("team-a=/srv/a");
  EXPECT_EQ(s.name, "team-a");
  EXPECT_EQ(s.store, "/srv/a");
  for (const std::string bad : {"nostore", "=x", "a=", "default=/x", "a b=/x", "a/b=/x"})
    EXPECT_THROW(WorkspaceSpec::parse(bad), UsageError) << bad;
}

TEST(WorkspaceConfig, EachWorkspaceKeepsItsGraphInItsOwnStore) {
  Config base = store_config("/srv/main");
  base.graph = GraphBackend::parse("neo4j://u:p@db:7474");
  const Config c = workspace_config(base, "/srv/team");
  EXPECT_EQ(c.store, "/srv/team");
  EXPECT_EQ(c.graph.kind, GraphBackend::Kind::Sqlite);
  base.graph = GraphBackend::parse("none");
  EXPECT_EQ(workspace_config(base, "/srv/team").graph.kind, GraphBackend::Kind::None);
}

TEST(Workspaces, ARootsSubfoldersAreFoundOnceByConcurrentRequests) {
  mmkg::testing::TempDir dir;
  ServeOptions opt;
  opt.workers = 1;
  Metrics metrics;
  Workspaces ws(opt, metrics);
  ws.open("default", store_config(dir.str() + "/main"));
  EXPECT_THROW(ws.open("default", store_config(dir.str() + "/other")), UsageError);  // the name is taken
  EXPECT_THROW(ws.open("again", store_config(dir.str() + "/main")), UsageError);     // so is the store
  ws.set_root(store_config(dir.str() + "/main"), dir.str() + "/root");
  EXPECT_EQ(ws.names(), std::vector<std::string>{"default"});
  std::filesystem::create_directories(dir.str() + "/root/team");
  std::filesystem::create_directories(dir.str() + "/root/not a name");
  EXPECT_EQ(ws.names(), (std::vector<std::string>{"default", "team"}));
  std::vector<Context*> got(8, nullptr);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < got.size(); ++i) threads.emplace_back([&, i] { got[i] = &ws.get("team"); });
  for (auto& t : threads) t.join();
  for (Context* c : got) EXPECT_EQ(c, got[0]);
  EXPECT_EQ(got[0]->workspace, "team");
  try {
    ws.get("nobody");
    ADD_FAILURE() << "a workspace with no folder was found";
  } catch (const HttpError& e) {
    EXPECT_EQ(e.status, 404);
  }
  EXPECT_NE(metrics.render().find("mmkg_sessions{workspace=\"team\",state=\"busy\"} 0"), std::string::npos);
}

}  // namespace
}  // namespace mmkg::server
