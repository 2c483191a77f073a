#include "gpu_share.hpp"

#include "core/errors.hpp"

#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace parcomp::gpu_share {

Policy policy() {
  Policy p;
  if (const char* env = std::getenv("PARCOMP_GPU_SLOTS"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    const unsigned long v = std::strtoul(env, &end, 10);
    if (*end != '\0' || v > 1024) throw ContractError(std::string("PARCOMP_GPU_SLOTS: not a count of 0 to 1024: ") + env);
    p.slots = static_cast<unsigned>(v);
  }
  if (const char* env = std::getenv("PARCOMP_GPU_WAIT"); env != nullptr && *env != '\0') {
    const std::string w = env;
    if (w != "queue" && w != "cpu") throw ContractError("PARCOMP_GPU_WAIT: \"queue\" or \"cpu\", not \"" + w + "\"");
    p.cpu_while_waiting = w == "cpu";
  }
  return p;
}

std::string lock_dir() {
  if (const char* env = std::getenv("PARCOMP_LOCK_DIR"); env != nullptr && *env != '\0') return env;
  struct stat st {};
  if (::stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode)) return "/dev/shm";
  return "/tmp";
}

std::optional<Slot> Slot::try_take(int device, unsigned slots, std::string* why) {
  char bus[64] = {};
  std::string name;
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) == cudaSuccess) {
    name = bus;
    for (char& c : name)
      if (c == ':' || c == '.') c = '-';
  } else {
    (void)cudaGetLastError();
    name = "device" + std::to_string(device);
  }
  for (unsigned k = 0; k < slots; ++k) {
    const std::string path = lock_dir() + "/parcomp-gpu-" + name + "-" + std::to_string(k) + ".lock";
    // Every user's jobs share the file: readable and writable by all, holding nothing.
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) {
      if (why != nullptr) *why = "cannot open " + path + ": " + std::strerror(errno) + " (the GPU is used without a slot)";
      return Slot(-1);
    }
    (void)::fchmod(fd, 0666);  // past the umask; fails harmlessly on another user's file
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return Slot(fd);
    ::close(fd);
  }
  return std::nullopt;
}

Slot& Slot::operator=(Slot&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

Slot::~Slot() {
  if (fd_ >= 0) ::close(fd_);  // closing drops the lock
}

}  // namespace parcomp::gpu_share
