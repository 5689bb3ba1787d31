#include "exec/cluster_state.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "core/files/atomic_file.hpp"

namespace scaleout::exec {

namespace fs = std::filesystem;

namespace {

const char* kindName(ClusterObject::Kind k) {
  return k == ClusterObject::Kind::kNamespace ? "namespace" : "link";
}

// Names reach a shell command: only the characters the cluster's own names use.
bool plain_name(const std::string& name) {
  if (name.empty() || name.size() > 15) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  return true;
}

}  // namespace

bool ClusterObject::exists() const {
  std::error_code ec;
  if (kind == Kind::kNamespace) return fs::exists("/var/run/netns/" + name, ec);
  return fs::exists("/sys/class/net/" + name, ec);  // sysfs shows this process's namespace: root
}

std::string ClusterObject::what() const { return std::string(kindName(kind)) + " " + name; }

namespace {

std::string& named_state_file() {
  static std::string file;
  return file;
}

}  // namespace

void ClusterState::set_path(const std::string& file) { named_state_file() = file; }

std::string ClusterState::path() {
  return named_state_file().empty() ? "/run/scaleout-cluster.json" : named_state_file();
}

ClusterState ClusterState::load() {
  ClusterState s;
  std::ifstream in(path());
  if (!in) return s;
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw std::runtime_error("emulated cluster: the state file " + path() +
                             " is not valid JSON; remove what it named by hand, then the file");
  for (const auto& o : j.value("created", nlohmann::json::array())) {
    ClusterObject obj{o.value("kind", "") == "link" ? ClusterObject::Kind::kLink
                                                    : ClusterObject::Kind::kNamespace,
                      o.value("name", "")};
    if (!plain_name(obj.name))
      throw std::runtime_error("emulated cluster: the state file " + path() + " names an object '" +
                               obj.name + "' this cluster never makes");
    s.objects_.push_back(obj);
  }
  s.cluster_ = j.value("cluster", nlohmann::json());
  return s;
}

void ClusterState::save() const {
  nlohmann::json created = nlohmann::json::array();
  for (const auto& o : objects_) created.push_back({{"kind", kindName(o.kind)}, {"name", o.name}});
  core::write_file_atomic(path(),
                          nlohmann::json{{"created", created}, {"cluster", cluster_}}.dump());
}

void ClusterState::record(const ClusterObject& object) {
  if (!plain_name(object.name))
    throw std::runtime_error("emulated cluster: bad object name '" + object.name + "'");
  if (object.exists())
    throw std::runtime_error("emulated cluster: " + object.what() +
                             " exists already and was not made by this cluster; remove it or "
                             "rename it, then run 'cluster up' again");
  objects_.push_back(object);
  save();
}

void ClusterState::complete(const nlohmann::json& cluster) {
  cluster_ = cluster;
  save();
}

std::vector<ClusterObject> ClusterState::leftovers() const {
  std::vector<ClusterObject> left;
  for (const auto& o : objects_)
    if (o.exists()) left.push_back(o);
  return left;
}

std::vector<ClusterObject> ClusterState::remove_all() {
  for (auto it = objects_.rbegin(); it != objects_.rend(); ++it) {
    if (!it->exists()) continue;
    std::string cmd = it->kind == ClusterObject::Kind::kNamespace ? "ip netns delete " + it->name
                                                                  : "ip link delete " + it->name;
    std::system((cmd + " > /dev/null 2>&1").c_str());
  }
  std::vector<ClusterObject> left = leftovers();
  if (left.empty()) {
    objects_.clear();
    cluster_ = nullptr;
    std::error_code ec;
    fs::remove(path(), ec);
  }
  return left;
}

}  // namespace scaleout::exec
