// Reading the node's fabric from a cluster's YAML: intra_node (its links and their kind) and
// nics_per_node (rails). Every malformed field is an InputError naming file, line and field.
#pragma once

#include <string>

#include "core/plan/plan.hpp"
#include "core/plan/yaml_reader.hpp"

namespace scaleout::core {

inline constexpr int kMaxNicsPerNode = 64;

// Reads `intra_node` (absent: LinkSpec{} and kind nvlink) and `nics_per_node` (default 1) of the
// cluster mapping `m` into `c`. REQUIRES: c.network already read (a torus has no NICs to add).
void read_node_fabric(YamlMap& m, Cluster& c);

// Reads the link mapping `key` of `parent` ({bandwidth, latency}; latency defaults to 0).
LinkSpec read_link(YamlMap& parent, const std::string& key);

// The YAML name of an intra-node kind ("nvlink", "pcie_tree", "nvswitch").
const char* intra_node_kind_name(IntraNodeKind kind);

}  // namespace scaleout::core
