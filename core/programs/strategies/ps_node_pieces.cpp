#include "core/programs/strategies/ps_node_pieces.hpp"

#include <algorithm>

#include "core/programs/strategies/ring_phases.hpp"

namespace scaleout::core {

Span node_part(const NodeGroups& g, Span bucket, int w) {
  RingGroup ring = ring_through(g.members[g.node_of[w]], g.local_of[w]);
  return split_part(bucket, ring.size(), owned_segment(ring));
}

std::vector<NodePiece> node_pieces(const NodeGroups& g, Span bucket, int servers) {
  int workers = static_cast<int>(g.node_of.size());
  std::vector<Span> parts;
  std::vector<std::int64_t> cuts{bucket.begin, bucket.end()};
  for (int w = 0; w < workers; ++w) {
    parts.push_back(node_part(g, bucket, w));
    cuts.push_back(parts.back().begin);
  }
  for (int j = 0; j < servers; ++j) cuts.push_back(split_part(bucket, servers, j).begin);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<NodePiece> pieces;
  int server = 0;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    NodePiece p;
    p.span = Span{cuts[i], cuts[i + 1] - cuts[i]};
    while (split_part(bucket, servers, server).end() <= p.span.begin) ++server;
    p.server = server;
    p.owners.resize(g.nodes());
    for (int w = 0; w < workers; ++w)
      if (parts[w].begin <= p.span.begin && p.span.end() <= parts[w].end())
        p.owners[g.node_of[w]] = w;
    pieces.push_back(std::move(p));
  }
  return pieces;
}

}  // namespace scaleout::core
