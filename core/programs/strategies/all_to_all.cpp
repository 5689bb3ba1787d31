#include "core/programs/strategies/all_to_all.hpp"

#include <algorithm>
#include <set>

namespace scaleout::core {

namespace {

// Segments [first, first + count) of `of`, in segments of `segment` elements.
Span segments(Span of, std::int64_t segment, std::int64_t first, std::int64_t count) {
  return Span{of.begin + first * segment, count * segment};
}

}  // namespace

void pairwise_all_to_all(Fabric& group, Span send, Span receive) {
  int n = group.size(), me = group.rank();
  if (n < 2) return;
  std::int64_t segment = send.count / n;
  for (int k = 1; k < n; ++k) {
    int to = (me + k) % n, from = (me - k + n) % n;
    Fabric::Handle in =
        group.post_recv(from, segments(receive, segment, from, 1), Combine::kReplace);
    Fabric::Handle out = group.post_send(to, segments(send, segment, to, 1));
    group.wait_all({in, out});
  }
}

namespace {

// Inside the node: in step k a member sends the member k places after it, one message per node,
// the segments meant for that place, and receives the same from the member k places before it.
void exchange_inside_nodes(Fabric& group, int per_node, Span send, Span receive, Span relay) {
  int n = group.size(), me = group.rank(), nodes = n / per_node;
  int node = me / per_node, place = me % per_node;
  std::int64_t segment = send.count / n;
  for (int k = 1; k < per_node; ++k) {
    int to = (place + k) % per_node, from = (place - k + per_node) % per_node;
    std::vector<Fabric::Handle> handles;
    for (int b = 0; b < nodes; ++b) {
      Span into = b == node ? receive : relay;  // segments for this member land where they stay
      handles.push_back(group.post_recv(node * per_node + from,
                                        segments(into, segment, b * per_node + from, 1),
                                        Combine::kReplace));
      handles.push_back(
          group.post_send(node * per_node + to, segments(send, segment, b * per_node + to, 1)));
    }
    group.wait_all(handles);
  }
}

// Across the nodes, between members of one place: in step k a member sends the node k after its
// own the block its node holds for that node's member of its place (relayed by its node's other
// members; its own segment still in `send`), and receives the block of the node k before. Of each
// block the first `across` elements go.
void exchange_across_nodes(Fabric& group, int per_node, Span send, Span receive, Span relay,
                           std::int64_t across) {
  int n = group.size(), me = group.rank(), nodes = n / per_node;
  int node = me / per_node, place = me % per_node;
  std::int64_t segment = send.count / n;
  // The block in up to three messages: the relayed places before this one, its own, those after
  // (the member it goes to, of the same place, receives them in the same shapes), cut at `across`.
  auto pieces = [&](int block) {
    std::int64_t first = static_cast<std::int64_t>(block) * per_node;
    std::vector<Span> whole, out;
    if (place > 0) whole.push_back(segments(relay, segment, first, place));
    whole.push_back(segments(send, segment, first + place, 1));
    if (place + 1 < per_node)
      whole.push_back(segments(relay, segment, first + place + 1, per_node - place - 1));
    std::int64_t left = across;
    for (Span piece : whole) {
      std::int64_t count = std::min(piece.count, left);
      if (count > 0) out.push_back(Span{piece.begin, count});
      left -= count;
    }
    return out;
  };
  for (int k = 1; k < nodes; ++k) {
    int to = (node + k) % nodes, from = (node - k + nodes) % nodes;
    std::vector<Fabric::Handle> handles;
    std::int64_t at = static_cast<std::int64_t>(from) * per_node * segment;  // the sender's block
    for (Span piece : pieces(to)) {
      handles.push_back(group.post_recv(from * per_node + place,
                                        Span{receive.begin + at, piece.count}, Combine::kReplace));
      at += piece.count;
      handles.push_back(group.post_send(to * per_node + place, piece));
    }
    group.wait_all(handles);
  }
}

}  // namespace

void hierarchical_all_to_all(Fabric& group, int per_node, Span send, Span receive, Span relay,
                             std::int64_t across) {
  if (group.size() < 2) return;
  std::int64_t block = send.count / group.size() * per_node;
  exchange_inside_nodes(group, per_node, send, receive, relay);
  exchange_across_nodes(group, per_node, send, receive, relay,
                        across < 0 ? block : std::min(across, block));
}

int members_per_node(const std::vector<int>& nodes) {
  if (nodes.empty()) return 0;
  int run = 1;
  while (run < static_cast<int>(nodes.size()) && nodes[run] == nodes[0]) ++run;
  if (nodes.size() % run != 0) return 0;
  std::set<int> seen;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    bool starts = i % run == 0;
    if (starts && !seen.insert(nodes[i]).second) return 0;
    if (!starts && nodes[i] != nodes[i - 1]) return 0;
  }
  return run;
}

}  // namespace scaleout::core
