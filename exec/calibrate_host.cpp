#include "exec/calibrate_host.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

namespace scaleout::exec {

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error("TCP ping-pong: " + what + ": " + std::strerror(errno));
}

void exact_io(int fd, char* buf, std::size_t n, bool send) {
  for (std::size_t done = 0; done < n;) {
    ssize_t k =
        send ? ::send(fd, buf + done, n - done, MSG_NOSIGNAL) : ::recv(fd, buf + done, n - done, 0);
    if (k <= 0) fail(send ? "send" : "recv");
    done += static_cast<std::size_t>(k);
  }
}

// Rank 1 listens on an ephemeral port and publishes it; rank 0 connects.
int connect_pair(int rank, const std::string& dir, const std::string& host) {
  namespace fs = std::filesystem;
  fs::path port_file = fs::path(dir) / "tcp-port";
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  if (rank == 1) {
    if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) fail("address " + host);
    int ls = ::socket(AF_INET, SOCK_STREAM, 0);
    socklen_t len = sizeof addr;
    if (ls < 0 || ::bind(ls, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(ls, 1) != 0 || ::getsockname(ls, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
      fail("listen");
    { std::ofstream(port_file.string() + ".tmp") << host << " " << ntohs(addr.sin_port); }
    fs::rename(port_file.string() + ".tmp", port_file);
    int fd = ::accept(ls, nullptr, nullptr);
    ::close(ls);
    if (fd < 0) fail("accept");
    return fd;
  }
  auto deadline = Clock::now() + std::chrono::seconds(30);
  while (!fs::exists(port_file)) {
    if (Clock::now() > deadline) throw std::runtime_error("TCP ping-pong: no peer within 30 s");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::string peer;
  int port = 0;
  std::ifstream(port_file) >> peer >> port;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::inet_pton(AF_INET, peer.c_str(), &addr.sin_addr) != 1) fail("address " + peer);
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    fail("connect");
  return fd;
}

}  // namespace

double measure_copy_rate() {
  std::vector<char> a(64 << 20, 1), b(64 << 20, 2);
  std::memcpy(b.data(), a.data(), a.size());  // first touch outside the timing
  auto t0 = Clock::now();
  for (int rep = 0; rep < 4; ++rep)
    std::memcpy(rep % 2 ? a.data() : b.data(), rep % 2 ? b.data() : a.data(), a.size());
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  volatile char sink = a[12345];
  (void)sink;
  return 4.0 * static_cast<double>(a.size()) / s;
}

double tcp_round_trip(int rank, const std::string& dir, const std::string& host, int trips) {
  int fd = connect_pair(rank, dir, host);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  char word[4] = {0, 1, 2, 3};
  std::vector<double> times;
  for (int i = 0; i < trips; ++i) {
    auto t0 = Clock::now();
    exact_io(fd, word, sizeof word, rank == 0);
    exact_io(fd, word, sizeof word, rank != 0);
    times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  ::close(fd);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

namespace {

// The `field`-th number (0 first) of a /proc/sys file; nullopt when it cannot be read.
std::optional<double> sysctl_number(const char* path, int field) {
  std::ifstream in(path);
  double v = 0;
  for (int i = 0; i <= field; ++i)
    if (!(in >> v)) return std::nullopt;
  return v;
}

}  // namespace

double kernel_tcp_window() {
  auto rmem = sysctl_number("/proc/sys/net/ipv4/tcp_rmem", 2);
  auto wmem = sysctl_number("/proc/sys/net/ipv4/tcp_wmem", 2);
  auto scale = sysctl_number("/proc/sys/net/ipv4/tcp_adv_win_scale", 0);
  if (!rmem || !wmem || !scale) return 0;
  // Linux: a positive scale keeps 1 - 2^-scale of the buffer for payload, else 2^scale.
  double share = *scale > 0 ? 1 - std::pow(2.0, -*scale) : std::pow(2.0, *scale);
  return std::min(*wmem, *rmem * share);
}

}  // namespace scaleout::exec
