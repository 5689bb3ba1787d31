// Whether a schedule of NCCL calls completes: each rank runs its groups in order on its stream,
// and a send and a receive between two ranks (matched in the order posted on that pair) move only
// while both ranks are running the groups that hold them. A schedule that cannot complete would
// hang the GPUs; this finds it without one.
#pragma once

#include <string>
#include <vector>

#include "exec/op_groups.hpp"

namespace scaleout::exec {

// Empty when every rank's groups complete; else which ranks are stuck at which group, waiting for
// what ("rank 2 group 5 waits for ncclRecv(peer 3, ...)").
std::string nccl_schedule_hangs(const std::vector<std::vector<std::vector<PointOp>>>& ranks);

}  // namespace scaleout::exec
