#include "core/files/temp_files.hpp"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace scaleout::core {

namespace {

constexpr int kSlots = 256;
enum : int { kFree = 0, kBusy = 1, kSet = 2 };

struct PathSlot {
  std::atomic<int> state{kFree};
  pid_t owner = 0;
  char path[PATH_MAX];
};
struct ChildSlot {
  std::atomic<pid_t> pid{0};
  pid_t owner = 0;
};

PathSlot g_paths[kSlots];
ChildSlot g_children[kSlots];

// The layout getdents64 fills in.
struct Dirent64 {
  unsigned long long ino;
  long long off;
  unsigned short reclen;
  unsigned char type;
  char name[1];
};

bool dot_or_dotdot(const char* n) { return n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2])); }

// Removes `name` in `dirfd`, a directory with what it holds; only system calls (signal-safe).
void remove_tree_at(int dirfd, const char* name, int depth) {
  if (::unlinkat(dirfd, name, 0) == 0 || (errno != EISDIR && errno != EPERM)) return;
  int fd = ::openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  alignas(8) char buf[4096];
  for (int pass = 0; pass < 8 && depth < 16; ++pass) {  // entries removed while read: again
    ::lseek(fd, 0, SEEK_SET);
    bool any = false;
    long n;
    while ((n = ::syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
      for (long pos = 0; pos < n;) {
        auto* d = reinterpret_cast<Dirent64*>(buf + pos);
        if (!dot_or_dotdot(d->name)) {
          any = true;
          remove_tree_at(fd, d->name, depth + 1);
        }
        pos += d->reclen;
      }
    }
    if (!any) break;
  }
  ::close(fd);
  ::unlinkat(dirfd, name, AT_REMOVEDIR);
}

void on_signal(int sig) {
  int saved = errno;
  pid_t me = ::getpid();
  for (auto& c : g_children) {
    pid_t pid = c.pid.load();
    if (pid > 0 && c.owner == me) ::kill(pid, SIGKILL);
  }
  for (auto& c : g_children) {
    pid_t pid = c.pid.load();
    if (pid > 0 && c.owner == me) ::waitpid(pid, nullptr, 0);
  }
  for (auto& s : g_paths)
    if (s.state.load() == kSet && s.owner == me) remove_tree_at(AT_FDCWD, s.path, 0);
  errno = saved;
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

std::filesystem::path temp_root() {
  const char* dir = std::getenv("TMPDIR");
  return dir && *dir ? std::filesystem::path(dir) : std::filesystem::path("/tmp");
}

std::string make_temp_file(const std::string& prefix) {
  std::string name = (temp_root() / (prefix + "-XXXXXX")).string();
  int fd = ::mkstemp(name.data());
  if (fd < 0)
    throw std::runtime_error("cannot create a temporary file in " + temp_root().string() + ": " +
                             std::strerror(errno));
  ::close(fd);
  register_temp(name);
  return name;
}

std::string make_temp_dir(const std::string& prefix) {
  std::string name = (temp_root() / (prefix + "-XXXXXX")).string();
  if (!::mkdtemp(name.data()))
    throw std::runtime_error("cannot create a temporary directory in " + temp_root().string() +
                             ": " + std::strerror(errno));
  register_temp(name);
  return name;
}

void register_temp(const std::string& path) {
  std::string abs = std::filesystem::absolute(path).string();
  if (abs.size() >= PATH_MAX) return;  // too long to hold: removed on a normal end only
  for (auto& s : g_paths) {
    int expected = kFree;
    if (!s.state.compare_exchange_strong(expected, kBusy)) continue;
    s.owner = ::getpid();
    std::memcpy(s.path, abs.c_str(), abs.size() + 1);
    s.state.store(kSet);
    return;
  }
}

void forget_temp(const std::string& path) {
  std::string abs = std::filesystem::absolute(path).string();
  pid_t me = ::getpid();
  for (auto& s : g_paths) {
    if (s.state.load() != kSet || s.owner != me || abs != s.path) continue;
    int expected = kSet;
    if (s.state.compare_exchange_strong(expected, kBusy)) s.state.store(kFree);
    return;
  }
}

void remove_temp(const std::string& path) {
  forget_temp(path);
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

void track_child(pid_t pid) {
  for (auto& c : g_children) {
    pid_t expected = 0;
    if (!c.pid.compare_exchange_strong(expected, -1)) continue;  // taken: -1 until set
    c.owner = ::getpid();
    c.pid.store(pid);
    return;
  }
}

void untrack_child(pid_t pid) {
  for (auto& c : g_children) {
    pid_t expected = pid;
    if (c.pid.compare_exchange_strong(expected, 0)) return;
  }
}

void install_temp_cleanup() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT);
  sigaddset(&sa.sa_mask, SIGTERM);
  sigaddset(&sa.sa_mask, SIGHUP);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

}  // namespace scaleout::core
