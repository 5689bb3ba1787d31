#include "exec/stuck_rank.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace scaleout::exec {

namespace {

std::string seconds(std::chrono::milliseconds t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", t.count() / 1000.0);
  return buf;
}

// The ranks named in `error` after "from rank " or "to rank ".
std::vector<int> peers_named(const std::string& error) {
  std::vector<int> peers;
  for (const char* key : {"from rank ", "to rank "})
    for (auto pos = error.find(key); pos != std::string::npos; pos = error.find(key, pos + 1)) {
      std::size_t at = pos + std::string(key).size(), end = at;
      while (end < error.size() && std::isdigit(static_cast<unsigned char>(error[end]))) ++end;
      if (end > at) peers.push_back(std::stoi(error.substr(at, end - at)));
    }
  return peers;
}

}  // namespace

bool process_stopped(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto close = text.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos || close + 2 >= text.size()) return false;
  char state = text[close + 2];
  return state == 'T' || state == 't';
}

std::string most_waited_on(const std::vector<int>& quiet, const std::vector<std::string>& errors,
                           std::chrono::milliseconds timeout) {
  std::map<int, std::vector<int>> waited_on;  // rank -> the ranks that waited on it
  for (std::size_t r = 0; r < errors.size(); ++r)
    for (int peer : peers_named(errors[r])) waited_on[peer].push_back(static_cast<int>(r));
  int best = -1;
  std::size_t most = 0;
  for (int rank : quiet) {
    auto it = waited_on.find(rank);
    if (it != waited_on.end() && it->second.size() > most) {
      best = rank;
      most = it->second.size();
    }
  }
  if (best < 0) return "";
  std::string who;
  for (int r : waited_on[best]) who += (who.empty() ? "" : ", ") + std::to_string(r);
  return "rank " + std::to_string(best) + " sent nothing for " + seconds(timeout) + " s (rank" +
         (most > 1 ? "s " : " ") + who + " waited on it)";
}

std::string stuck_rank(const std::map<pid_t, int>& running, const std::vector<std::string>& errors,
                       std::chrono::milliseconds timeout) {
  for (const auto& [pid, rank] : running)
    if (process_stopped(pid))
      return "rank " + std::to_string(rank) + " sent nothing for " + seconds(timeout) +
             " s (its process is stopped)";
  std::vector<int> quiet;  // running, without an error of their own
  for (const auto& [pid, rank] : running)
    if (rank >= static_cast<int>(errors.size()) || errors[rank].empty()) quiet.push_back(rank);
  std::sort(quiet.begin(), quiet.end());
  return most_waited_on(quiet, errors, timeout);
}

}  // namespace scaleout::exec
