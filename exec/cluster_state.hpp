// What the emulated cluster made on this machine, recorded in a state file before each object is
// made, so that `cluster down` removes exactly that: also after an interrupted `cluster up`
// (SIGINT or SIGKILL), and never a namespace or link that someone else made with a similar name.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace scaleout::exec {

// One object the cluster made: a network namespace, or a link (veth end) made in the root
// namespace (a link moved into one of the cluster's namespaces goes with it).
struct ClusterObject {
  enum class Kind { kNamespace, kLink };
  Kind kind = Kind::kNamespace;
  std::string name;

  bool exists() const;       // the namespace exists / the link is in the root namespace
  std::string what() const;  // "namespace so-n0" / "link sov0a"
};

// The state file: the objects made, in order, and, once the cluster is complete, what it emulates.
class ClusterState {
 public:
  // The state file's path: the one set_path named (the CLI passes on $SCALEOUT_CLUSTER_STATE),
  // else /run/scaleout-cluster.json.
  static std::string path();
  // Names the state file from now on (empty: the default). Called once, before any cluster work.
  static void set_path(const std::string& file);

  // The recorded state; empty (no objects, no cluster) when there is no state file.
  static ClusterState load();

  const std::vector<ClusterObject>& objects() const { return objects_; }
  const nlohmann::json& cluster() const { return cluster_; }

  // Records `object` in the state file (written before the object is made). Throws when an object
  // of that name exists already: it was not made by this cluster and must not be taken over.
  void record(const ClusterObject& object);

  // Records what the complete cluster emulates.
  void complete(const nlohmann::json& cluster);

  // Removes every recorded object (namespaces last to first, then links) and, when none is left,
  // the state file. Returns the recorded objects that could not be removed.
  std::vector<ClusterObject> remove_all();

  // The recorded objects that still exist.
  std::vector<ClusterObject> leftovers() const;

 private:
  void save() const;

  std::vector<ClusterObject> objects_;
  nlohmann::json cluster_;  // null until complete
};

}  // namespace scaleout::exec
