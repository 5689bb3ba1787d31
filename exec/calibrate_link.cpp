#include "exec/calibrate_link.hpp"

#include <fcntl.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <vector>

#include "core/files/temp_files.hpp"
#include "exec/calibrate_host.hpp"

namespace scaleout::exec {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

// The messages' tags, clear of the slots Gloo's barriers take (0, 1, 2, ... in turn).
constexpr std::uint64_t kTag = 1 << 20;

// One measuring process: its rank among 2 x flows, its partner across the link, its connections.
struct Ranks {
  int rank = 0, flows = 1;
  std::shared_ptr<gloo::rendezvous::Context> context;
  int partner() const { return rank < flows ? rank + flows : rank - flows; }
  bool first_pair() const { return rank == 0 || rank == flows; }
  // Not Gloo's barrier: it shrinks its connections' send buffers, after which a one-way stream
  // crawls (1.8 MB/s on loopback, against 3 GB/s without it). A byte to and from every rank.
  void barrier();
  // The largest of every rank's `seconds`, on rank 0 (others get their own back).
  double slowest(double seconds, std::uint64_t tag);
};

void Ranks::barrier() {
  int size = 2 * flows;
  std::vector<char> bytes(static_cast<std::size_t>(size), 0);
  auto buffer = context->createUnboundBuffer(bytes.data(), bytes.size());
  for (int q = 0; q < size; ++q)
    if (q != rank) buffer->send(q, kTag, static_cast<std::size_t>(rank), 1);
  for (int q = 0; q < size; ++q)
    if (q != rank) buffer->recv(q, kTag, static_cast<std::size_t>(q), 1);
  for (int q = 1; q < size; ++q) buffer->waitSend(), buffer->waitRecv();
}

double Ranks::slowest(double seconds, std::uint64_t tag) {
  int size = 2 * flows;
  std::vector<double> all(static_cast<std::size_t>(size), seconds);
  auto buffer = context->createUnboundBuffer(all.data(), all.size() * sizeof(double));
  if (rank != 0) {
    buffer->send(0, tag, static_cast<std::size_t>(rank) * sizeof(double), sizeof(double));
    buffer->waitSend();
    return seconds;
  }
  for (int r = 1; r < size; ++r)
    buffer->recv(r, tag, static_cast<std::size_t>(r) * sizeof(double), sizeof(double));
  for (int r = 1; r < size; ++r) buffer->waitRecv();
  return *std::max_element(all.begin(), all.end());
}

// Half the median round trip of a 4-byte message between the first pair (others: 0).
double ping_pong(Ranks& r, int trips) {
  if (!r.first_pair()) return 0;
  float word = 0;
  auto small = r.context->createUnboundBuffer(&word, sizeof word);
  bool first = r.rank == 0;
  std::vector<double> times;
  for (int i = 0; i < trips; ++i) {
    auto t0 = Clock::now();
    if (first) small->send(r.partner(), kTag + 1);
    if (first) small->waitSend();
    small->recv(r.partner(), kTag + (first ? 2 : 1));
    small->waitRecv();
    if (!first) small->send(r.partner(), kTag + 2);
    if (!first) small->waitSend();
    times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2] / 2;
}

// Streams `out` to the partner and/or receives `in` from it, 1 MiB a message; the seconds from
// the ranks' barrier to this rank's last byte out and in (0 when it takes no part).
double stream(Ranks& r, std::vector<char>& out, std::vector<char>& in, bool send, bool receive,
              std::uint64_t tag) {
  auto out_buffer = r.context->createUnboundBuffer(out.data(), out.size());
  auto in_buffer = r.context->createUnboundBuffer(in.data(), in.size());
  const std::size_t chunk = 1 << 20;
  r.barrier();
  auto t0 = Clock::now();
  int sends = 0, receives = 0;
  for (std::size_t off = 0; off < out.size(); off += chunk) {
    std::size_t n = std::min(chunk, out.size() - off);
    if (send) out_buffer->send(r.partner(), tag, off, n), ++sends;
    if (receive) in_buffer->recv(r.partner(), tag, off, n), ++receives;
  }
  for (int i = 0; i < sends; ++i) out_buffer->waitSend();
  for (int i = 0; i < receives; ++i) in_buffer->waitRecv();
  return send || receive ? std::chrono::duration<double>(Clock::now() - t0).count() : 0;
}

// Every phase, on every rank; the measure is rank 0's.
LinkMeasure measure_ranks(int rank, int flows, const std::string& store_dir,
                          const std::string& host, const CalibrateOptions& o) {
  gloo::rendezvous::FileStore store(store_dir);
  auto device = gloo::transport::tcp::CreateDevice(gloo::transport::tcp::attr(host.c_str()));
  Ranks r{rank, flows, std::make_shared<gloo::rendezvous::Context>(rank, 2 * flows)};
  r.context->setTimeout(std::chrono::seconds(60));
  r.context->connectFullMesh(store, device);
  LinkMeasure m;
  m.flows = flows;
  m.latency_s = ping_pong(r, o.round_trips);
  if (rank == 0) m.tcp_window_B = kernel_tcp_window();
  if (r.first_pair())
    m.tcp_latency_s =
        tcp_round_trip(rank == 0 ? 0 : 1, store_dir + "-tcp", host, o.round_trips) / 2;
  std::vector<char> out(static_cast<std::size_t>(o.stream_bytes), 1), in(out.size());
  double bytes = static_cast<double>(out.size());
  bool first = r.first_pair();
  m.both_ways_Bps = bytes / r.slowest(stream(r, out, in, first, first, kTag + 5), kTag + 6);
  m.one_way_Bps =
      bytes / r.slowest(stream(r, out, in, rank == 0, rank == flows, kTag + 3), kTag + 4);
  m.bandwidth_Bps =
      flows == 1 ? m.both_ways_Bps
                 : flows * bytes / r.slowest(stream(r, out, in, true, true, kTag + 7), kTag + 8);
  r.barrier();
  return m;
}

// Enters namespace `ns` ("" stays).
void enter(const std::string& ns) {
  if (ns.empty()) return;
  int fd = ::open(("/var/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
  bool ok = fd >= 0 && ::setns(fd, CLONE_NEWNET) == 0;
  if (fd >= 0) ::close(fd);
  if (!ok) throw std::runtime_error("cannot enter namespace " + ns);
}

}  // namespace

LinkMeasure measure_link(const std::string& ns0, const std::string& ns1, const std::string& host0,
                         const std::string& host1, int flows, const CalibrateOptions& o) {
  fs::path dir = core::make_temp_dir("scaleout-calibrate");
  fs::create_directories(dir / "store");
  fs::create_directories(dir / "store-tcp");
  std::fflush(nullptr);
  std::vector<pid_t> pids;
  for (int r = 0; r < 2 * flows; ++r) {
    pid_t pid = ::fork();
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      int code = 0;
      try {
        bool near = r < flows;
        enter(near ? ns0 : ns1);
        LinkMeasure m = measure_ranks(r, flows, (dir / "store").string(), near ? host0 : host1, o);
        if (r == 0)
          std::ofstream(dir / "result")
              << m.latency_s << " " << m.bandwidth_Bps << " " << m.tcp_latency_s << " "
              << m.one_way_Bps << " " << m.both_ways_Bps << " " << std::llround(m.tcp_window_B);
      } catch (const std::exception& e) {
        std::ofstream(dir / ("error" + std::to_string(r))) << e.what();
        code = 1;
      }
      std::_Exit(code);
    }
    pids.push_back(pid);
    core::track_child(pid);
  }
  int failed = 0;
  for (pid_t p : pids) {
    int status = 0;
    ::waitpid(p, &status, 0);
    core::untrack_child(p);
    failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  LinkMeasure m;
  m.flows = flows;
  std::ifstream in(dir / "result");
  bool ok = failed == 0 && (in >> m.latency_s >> m.bandwidth_Bps >> m.tcp_latency_s >>
                            m.one_way_Bps >> m.both_ways_Bps >> m.tcp_window_B);
  std::string why;
  for (int r = 0; r < 2 * flows && why.empty(); ++r)
    if (fs::exists(dir / ("error" + std::to_string(r)))) {
      std::ifstream e(dir / ("error" + std::to_string(r)));
      std::getline(e, why);
    }
  core::remove_temp(dir);
  if (!ok)
    throw std::runtime_error("calibration between " + std::to_string(2 * flows) + " ranks failed" +
                             (why.empty() ? "" : ": " + why));
  return m;
}

}  // namespace scaleout::exec
