#include "exec/cluster_spec.hpp"

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/plan/input_error.hpp"

namespace scaleout::exec {

namespace {

std::optional<int> env_int(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x < 0)
    throw core::InputError(name, 0, name, std::string("'") + v + "' is not a rank or size");
  return static_cast<int>(x);
}

std::optional<ExternalRank> from_tf_config(const char* text) {
  auto fail = [](const std::string& what) {
    throw core::InputError("TF_CONFIG", 0, "TF_CONFIG", what);
  };
  nlohmann::json spec = nlohmann::json::parse(text, nullptr, false);
  if (spec.is_discarded() || !spec.is_object()) fail("is not JSON");
  if (!spec.contains("cluster") || !spec.contains("task")) fail("needs \"cluster\" and \"task\"");
  if (!spec["cluster"].is_object() || !spec["task"].is_object())
    fail("\"cluster\" and \"task\" must be objects");
  auto list = [&](const char* role) {
    std::vector<std::string> out;
    if (!spec["cluster"].contains(role)) return out;
    const auto& hosts = spec["cluster"][role];
    if (!hosts.is_array())
      fail(std::string("cluster.") + role + " must be a list of \"host:port\" strings");
    for (const auto& h : hosts) {
      if (!h.is_string())
        fail(std::string("cluster.") + role + " must be a list of \"host:port\" strings");
      out.push_back(h.get<std::string>());
    }
    return out;
  };
  std::vector<std::string> workers = list("chief"), more = list("worker"), ps = list("ps");
  workers.insert(workers.end(), more.begin(), more.end());
  const auto& task = spec["task"];
  if ((task.contains("type") && !task["type"].is_string()) ||
      (task.contains("index") && !task["index"].is_number_integer()))
    fail("task needs a string \"type\" and a whole \"index\"");
  std::string type = task.value("type", "");
  int index = task.value("index", -1);
  ExternalRank r;
  r.size = static_cast<int>(workers.size() + ps.size());
  r.servers = static_cast<int>(ps.size());
  r.source = "TF_CONFIG";
  int chiefs = static_cast<int>(list("chief").size());
  std::string address;
  if (type == "chief" && index == 0 && chiefs == 1) {
    r.rank = 0;
  } else if (type == "worker" && index >= 0 && index < static_cast<int>(more.size())) {
    r.rank = chiefs + index;
  } else if (type == "ps" && index >= 0 && index < static_cast<int>(ps.size())) {
    r.rank = static_cast<int>(workers.size()) + index;
  } else {
    fail("task {type: " + type + ", index: " + std::to_string(index) + "} is not in the cluster");
  }
  address =
      r.rank < static_cast<int>(workers.size()) ? workers[r.rank] : ps[r.rank - workers.size()];
  r.hostname = address.substr(0, address.rfind(':'));
  return r;
}

}  // namespace

std::optional<ExternalRank> external_rank_from_environment() {
  if (const char* tf = std::getenv("TF_CONFIG"); tf && *tf) return from_tf_config(tf);
  const std::pair<const char*, const char*> launchers[] = {
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
      {"PMI_RANK", "PMI_SIZE"},
      {"SLURM_PROCID", "SLURM_NTASKS"}};
  for (const auto& [rank_var, size_var] : launchers) {
    auto rank = env_int(rank_var), size = env_int(size_var);
    if (rank && size) {
      if (*rank >= *size)
        throw core::InputError(rank_var, 0, rank_var, "rank is not below the world size");
      return ExternalRank{*rank, *size, -1, "", std::string(rank_var) + "/" + size_var};
    }
  }
  return std::nullopt;
}

}  // namespace scaleout::exec
