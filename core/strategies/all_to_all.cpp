#include "core/strategies/all_to_all.hpp"

namespace scaleout::core {

void pairwise_all_to_all(Fabric& group, Span send, Span receive) {
  int n = group.size(), me = group.rank();
  if (n < 2) return;
  std::int64_t segment = send.count / n;
  auto part = [segment](Span of, int member) { return Span{of.begin + member * segment, segment}; };
  for (int k = 1; k < n; ++k) {
    int to = (me + k) % n, from = (me - k + n) % n;
    Fabric::Handle in = group.post_recv(from, part(receive, from), Combine::kReplace);
    Fabric::Handle out = group.post_send(to, part(send, to));
    group.wait_all({in, out});
  }
}

}  // namespace scaleout::core
