// The weight of every ranked list that retrieval fuses by weighted reciprocal rank (a chunk at
// rank r of a list adds weight / (kRrfK + r), index/fusion.h), in one table. Each list's maker
// reads its weight here; docs/EVAL.md gives the measurements the values come from.
#pragma once

namespace mmkg {

struct FusionWeights {
  double question = 1.0;            ///< sub-query 0: the question itself
  double subquery = 0.7;            ///< every other sub-query (the planner's key phrases, a follow-up's)
  /// The graph's passages as a retriever of their own (graph_passages, RankedList::retriever).
  double graph_passages = 10.0;
  double ppr = 0.3;                 ///< graph_lists: personalised PageRank from the linked entities
  double relation_evidence = 0.2;   ///< graph_lists: the evidence chunks of the entities' relations
  double communities = 0.3;         ///< graph_lists: community summaries (broad questions)
  double bridge = 0.3;              ///< graph_lists: entities shared with the best passages
  double cross_references = 0.3;    ///< graph_lists: passages naming another found document
  double named_figure = 1.0;        ///< a figure or table the question names (pinned)
  double possible_figure = 0.5;     ///< a label the question names that several documents carry
};

inline constexpr FusionWeights kFusionWeights{};

}  // namespace mmkg
