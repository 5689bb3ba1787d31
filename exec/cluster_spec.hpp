// Where this process stands in a job started by something else (mpirun, srun, or a TensorFlow-style
// cluster spec), for runs across real hosts: its rank, the world size and the address to listen on.
#pragma once

#include <optional>
#include <string>

namespace scaleout::exec {

struct ExternalRank {
  int rank = 0;
  int size = 0;
  int servers = 0;  // TF_CONFIG: the "ps" tasks (numbered after the workers); else unknown (-1)
  std::string hostname;  // address to listen on ("" : this host's name)
  std::string source;    // which variables said so, for messages
};

// Reads TF_CONFIG ({"cluster": {"worker": [...], "ps": [...]}, "task": {"type", "index"}}; "chief"
// counts as worker 0), then the rank and size mpirun (OMPI_COMM_WORLD_*, PMI_*) or srun (SLURM_*)
// export. Returns nullopt when none is set. Throws core::InputError for a malformed TF_CONFIG.
std::optional<ExternalRank> external_rank_from_environment();

}  // namespace scaleout::exec
