// The options every command shares, and the Session they open.
#include <cstdio>

#include "cli/commands.h"
#include "core/error.h"

namespace mmkg::cli {

Common Common::from_env() {
  // As written: config() parses them with the command line's flags, where a bad value is a usage
  // error (exit 2), and a flag given overrides a bad default.
  Common c;
  const Config::Env e = Config::read_env();
  c.store = e.store.empty() ? Config().store : e.store;
  if (!e.embedder.empty()) c.embedder = e.embedder;
  if (!e.graph.empty()) c.graph = e.graph;
  c.cache = e.cache;
  return c;
}

Config Common::config() const {
  Config cfg;
  cfg.store = store;
  cfg.embedder = EmbedderSpec::parse(embedder);
  if (fusion != "auto") cfg.fusion = parse_fusion(fusion);
  cfg.ranker = ranker;
  cfg.answerable = answerable;
  cfg.selector = selector;
  cfg.graph = GraphBackend::parse(graph);
  cfg.cache = cache;
  cfg.share_graph_with_store(graph.empty());
  cfg.llm = llm;
  cfg.verbose = verbose;
  return cfg;
}

namespace {

// The flag's help: the option's, with what it takes ("1..5", "bm25|dense|hybrid").
std::string type_name(const OptionSpec& o) {
  auto num = [&](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return std::string(b);
  };
  switch (o.type) {
    case OptionType::Integer: return "INT " + num(o.min) + ".." + num(o.max);
    case OptionType::Number: return "NUM " + num(o.min) + ".." + num(o.max);
    case OptionType::Boolean: return "BOOL";
    case OptionType::Choice: {
      std::string s;
      for (const auto& c : o.choices) s += (s.empty() ? "" : "|") + c;
      return s;
    }
    case OptionType::Text: return "TEXT";
  }
  return "";
}

std::string default_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

}  // namespace

void add_request_flags(CLI::App* a, const std::vector<OptionSpec>& specs, Door door,
                       const std::shared_ptr<nlohmann::json>& given, const std::string& group) {
  for (const OptionSpec& o : specs) {
    CLI::Option* f = a->add_option_function<std::string>(
         o.flag(),
         [o, door, given](const std::string& t) {
           try {
             (*given)[o.name] = o.parse_text(t, door);
           } catch (const UsageError& e) {
             throw CLI::ValidationError(e.what());
           }
         },
         o.help)
        ->type_name(type_name(o))
        ->default_str(default_text(o.fallback));
    if (!group.empty()) f->group(group);
  }
}

void add_common(CLI::App* a, Common& c) {
  a->add_option("--store", c.store,
                "store directory, or neo4j://USER:PASS@HOST:PORT[/DB] for a store several processes and machines "
                "share (Neo4j's HTTP port; env MMKG_STORE)")
      ->capture_default_str();
  a->add_option("--cache", c.cache,
                "with a shared --store: this machine's folder for its local copy and indexes (env MMKG_CACHE_DIR; "
                "default $XDG_CACHE_HOME/mmkg or ~/.cache/mmkg)");
  a->add_flag("--json", c.json, "print one JSON object on stdout (fields in docs/JSON.md)");
  a->add_flag("-v,--verbose", c.verbose, "log every step on stderr");
  a->add_option("--embedder", c.embedder,
                "embedding model: native (all-MiniLM-L6-v2; native:fp32 / native:int8 force the precision), "
                "native:/model/folder, http(s)://HOST/v1#model=NAME "
                "(OpenAI-compatible server), none (env MMKG_EMBEDDER)")
      ->capture_default_str();
  a->add_option("--fusion", c.fusion,
                "hybrid fusion: fitted (a logistic model over each candidate's BM25, dense, proximity, heading, "
                "title and figure features; models/ranker.json), zscore (z-scores of BM25, dense and the question's terms within two sentences, "
                "summed; a multi-part question's parts searched too), relative (min-max normalised BM25 and "
                "dense, summed), rrf (reciprocal rank) or auto (zscore for search, relative for ask's sub-queries)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "fitted", "zscore", "relative", "rrf"}));
  a->add_option("--ranker", c.ranker,
                "the fitted fusion's model file (scripts/train_ranker.py writes one); default: the one built in "
                "(models/ranker.json)")
      ->check(CLI::ExistingFile);
  a->add_option("--answerable", c.answerable,
                "a fitted answerability model (scripts/train_answerable.py writes one) that decides whether the "
                "passages answer, instead of the rule (docs/EVAL.md)")
      ->check(CLI::ExistingFile);
  a->add_option("--selector", c.selector,
                "a fitted answer-sentence selector (scripts/train_selector.py writes one) that picks each part's "
                "sentence of an extractive answer, instead of the hand-set score (docs/EVAL.md)")
      ->check(CLI::ExistingFile);
  a->add_option("--graph", c.graph,
                "where the knowledge graph lives: sqlite (in the store; the default), neo4j://USER:PASS@HOST:PORT[/DB] "
                "(Neo4j HTTP port; its vector and full-text indexes then serve search too), or none (env MMKG_GRAPH; "
                "with a shared --store, the default is the store's database)");
}

std::unique_ptr<Session> open_session(const Common& c, bool create) { return Session::open(c.config(), create); }

void print_error(const std::string& subject, const std::string& message) {
  if (subject.empty())
    std::fprintf(stderr, "mmkg: error: %s\n", message.c_str());
  else
    std::fprintf(stderr, "mmkg: error: %s: %s\n", subject.c_str(), message.c_str());
}

}  // namespace mmkg::cli
