#include "sim/sim_progress.hpp"

#include <sys/mman.h>

namespace scaleout::sim {

namespace {

SimProgress* sink = nullptr;

}  // namespace

std::shared_ptr<SimProgress> make_shared_progress() {
  void* page = ::mmap(nullptr, sizeof(SimProgress), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return nullptr;
  auto* progress = new (page) SimProgress();
  return std::shared_ptr<SimProgress>(progress, [](SimProgress* p) {
    p->~SimProgress();
    ::munmap(p, sizeof(SimProgress));
  });
}

void count_progress_into(SimProgress* progress) { sink = progress; }

void note_message_sent(double now_s) {
  if (!sink) return;
  // Relaxed: one writer, and the parent only reads a count that grows.
  sink->messages.fetch_add(1, std::memory_order_relaxed);
  sink->simulated_s.store(now_s, std::memory_order_relaxed);
}

}  // namespace scaleout::sim
