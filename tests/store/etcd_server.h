#pragma once
// An etcd server for tests: /usr/bin/etcd on free 127.0.0.1 ports with a data
// directory of its own, stopped (and the directory removed) on destruction.

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "store/etcd/etcd_client.h"

namespace berth::store::testing {

inline constexpr const char* kEtcdBinary = "/usr/bin/etcd";

inline bool HaveEtcd() { return ::access(kEtcdBinary, X_OK) == 0; }

// A port nothing listens on now (the kernel's pick).
inline int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

class EtcdServer {
 public:
  EtcdServer() {
    char dir[] = "/tmp/berth-etcd-test-XXXXXX";
    if (!::mkdtemp(dir)) throw std::runtime_error("mkdtemp failed");
    dir_ = dir;
    Start();
  }
  ~EtcdServer() {
    Kill();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  const std::string& url() const { return url_; }

  // Starts etcd (again, on the same data directory and ports) and waits
  // until it answers.
  void Start() {
    if (client_port_ == 0) {
      client_port_ = FreePort();
      peer_port_ = FreePort();
    }
    url_ = "http://127.0.0.1:" + std::to_string(client_port_);
    const std::string peer = "http://127.0.0.1:" + std::to_string(peer_port_);
    pid_ = ::fork();
    if (pid_ == 0) {
      const std::string log = dir_ + "/etcd.log";
      FILE* out = std::freopen(log.c_str(), "a", stderr);
      (void)out;
      ::execl(kEtcdBinary, kEtcdBinary, "--name", "test", "--data-dir", (dir_ + "/data").c_str(),
              "--listen-client-urls", url_.c_str(), "--advertise-client-urls", url_.c_str(),
              "--listen-peer-urls", peer.c_str(), "--initial-advertise-peer-urls", peer.c_str(),
              "--initial-cluster", ("test=" + peer).c_str(), "--quota-backend-bytes",
              "8589934592", nullptr);
      ::_exit(127);
    }
    etcd::ClientOptions options;
    options.endpoints = {url_};
    options.timeout = std::chrono::milliseconds(500);
    auto client = etcd::Client::Create(options);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      if (client.ok() && client.value()->Call("/v3/kv/range", {{"key", "AA=="}}).ok()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    throw std::runtime_error("etcd did not start; see " + dir_ + "/etcd.log");
  }

  // SIGKILL, and waits for it to be gone.
  void Kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

 private:
  std::string dir_;
  std::string url_;
  int client_port_ = 0;
  int peer_port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace berth::store::testing
