// Whether this machine's GPUs can run a --backend cuda job. The probe runs in a child process of
// its own: once a process has initialised CUDA, the children it forks (the ranks) cannot use it.
#include <cuda_runtime_api.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "exec/cuda/gpu_backend.hpp"

namespace scaleout::exec {

namespace {

// The device count, or the runtime's error as text, in this process.
std::string count_devices(int& devices) {
  devices = 0;
  // Any error means no usable device: without a driver the runtime answers
  // cudaErrorInsufficientDriver, not cudaErrorNoDevice.
  cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess)
    return std::string("cudaGetDeviceCount failed: ") + cudaGetErrorString(status);
  return "";
}

}  // namespace

std::string gpu::unavailable(int ranks) {
  int fds[2];
  if (::pipe(fds) != 0) return "no usable GPU: cannot start the device probe (pipe failed)";
  pid_t pid = ::fork();
  if (pid < 0) return "no usable GPU: cannot start the device probe (fork failed)";
  if (pid == 0) {
    ::close(fds[0]);
    int devices = 0;
    std::string error = count_devices(devices);
    std::string message = std::to_string(devices) + " " + error;
    ssize_t written = ::write(fds[1], message.data(), message.size());
    ::_exit(written == static_cast<ssize_t>(message.size()) ? 0 : 1);
  }
  ::close(fds[1]);
  std::string answer;
  char buffer[512];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;)
    answer.append(buffer, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (answer.empty()) return "no usable GPU: the device probe ended without an answer";
  int devices = std::stoi(answer);
  std::string error = answer.substr(answer.find(' ') + 1);
  if (!error.empty()) return "no usable GPU: " + error;
  if (devices == 0) return "no usable GPU: the CUDA runtime sees no device";
  // NCCL refuses two ranks of one communicator on the same device.
  if (ranks > devices)
    return "the run needs " + std::to_string(ranks) + " GPUs (one per rank); this machine has " +
           std::to_string(devices);
  return "";
}

}  // namespace scaleout::exec
