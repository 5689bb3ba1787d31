// A plan's training step as Chakra execution traces, which ASTRA-sim replays: one file per rank
// holding what the rank runs, in order, each node waiting for the one before. A model-parallel
// rank runs its stage's schedule: for each forward and backward of a micro-batch (and chunk),
// the receive of its input, each layer's compute and tensor all-reduces (with ZeRO-2/3 its
// parameter gathers beside the compute before it and its gradient reduce-scatter beside what
// follows), the MoE layers' token all-to-alls, the output layer on the last stage, and the send
// of its output (beside what follows, as Megatron-LM's non-blocking sends run; DeepSpeed's
// pipeline waits for it); then the data groups' exchanges (an all-reduce, or ZeRO-1's
// reduce-scatter and all-gather; ZeRO-2's parameter all-gather; the experts' gradient over their
// own group) and the optimizer's update. A data-parallel rank
// computes its step, then all-reduces its gradients. Times are the closed form's; the groups the
// collectives run over are written as ASTRA-sim's communicator groups.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/formats/chakra_format.hpp"
#include "core/plan/plan.hpp"

namespace scaleout::sim {

struct ChakraProgram {
  std::vector<std::vector<core::ChakraNode>> ranks;  // each rank's nodes, ids from 0
  std::map<int, std::vector<int>> groups;            // a collective's pg_name -> its ranks
};

// Throws core::InputError (naming `--chakra`) for what the traces cannot hold yet: a parameter
// server, compression, context parallelism, the zero-bubble schedule; and for a split that does
// not fit.
// REQUIRES (all three): a validated plan.
void check_chakra(const core::Plan& plan);

// Every rank's nodes at once (for a small plan).
ChakraProgram chakra_program(const core::Plan& plan);

// Writes `dir`/scaleout.<rank>.et for every rank, one rank in memory at a time, and
// `dir`/comm_group.json (creating `dir`), each file atomically; returns how many ranks. ASTRA-sim
// takes `dir`/scaleout as its workload and comm_group.json as its communicator groups.
int write_chakra(const core::Plan& plan, const std::string& dir);

}  // namespace scaleout::sim
