#pragma once
// An etcd server for tests: /usr/bin/etcd on free 127.0.0.1 ports with a data
// directory of its own, stopped (and the directory removed) on destruction.

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "rpc.pb.h"
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

// With `tls`, etcd serves https with a certificate for 127.0.0.1 signed by
// a CA of its own and requires client certificates of that CA; the files
// are ca.crt, client.crt and client.key in dir().
class EtcdServer {
 public:
  explicit EtcdServer(bool tls = false) : tls_(tls) {
    char dir[] = "/tmp/berth-etcd-test-XXXXXX";
    if (!::mkdtemp(dir)) throw std::runtime_error("mkdtemp failed");
    dir_ = dir;
    try {
      if (tls_) MakeCertificates();
      Start();
    } catch (...) {
      // The destructor does not run when the constructor throws.
      std::error_code ignored;
      std::filesystem::remove_all(dir_, ignored);
      throw;
    }
  }
  ~EtcdServer() {
    Kill();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  const std::string& url() const { return url_; }
  const std::string& dir() const { return dir_; }

  // Starts etcd (again, on the same data directory and ports) and waits
  // until it answers.
  void Start() {
    if (client_port_ == 0) {
      client_port_ = FreePort();
      peer_port_ = FreePort();
    }
    url_ = std::string(tls_ ? "https" : "http") + "://127.0.0.1:" + std::to_string(client_port_);
    const std::string peer = "http://127.0.0.1:" + std::to_string(peer_port_);
    pid_ = ::fork();
    if (pid_ == 0) {
      const std::string log = dir_ + "/etcd.log";
      FILE* out = std::freopen(log.c_str(), "a", stderr);
      (void)out;
      const std::string cert = dir_ + "/server.crt", key = dir_ + "/server.key",
                        ca = dir_ + "/ca.crt";
      if (tls_) {
        ::execl(kEtcdBinary, kEtcdBinary, "--name", "test", "--data-dir", (dir_ + "/data").c_str(),
                "--listen-client-urls", url_.c_str(), "--advertise-client-urls", url_.c_str(),
                "--listen-peer-urls", peer.c_str(), "--initial-advertise-peer-urls", peer.c_str(),
                "--initial-cluster", ("test=" + peer).c_str(), "--cert-file", cert.c_str(),
                "--key-file", key.c_str(), "--trusted-ca-file", ca.c_str(), "--client-cert-auth",
                nullptr);
      }
      ::execl(kEtcdBinary, kEtcdBinary, "--name", "test", "--data-dir", (dir_ + "/data").c_str(),
              "--listen-client-urls", url_.c_str(), "--advertise-client-urls", url_.c_str(),
              "--listen-peer-urls", peer.c_str(), "--initial-advertise-peer-urls", peer.c_str(),
              "--initial-cluster", ("test=" + peer).c_str(), "--quota-backend-bytes", "8589934592",
              nullptr);
      ::_exit(127);
    }
    etcd::ClientOptions options;
    options.endpoints = {url_};
    options.timeout = std::chrono::milliseconds(500);
    if (tls_) {
      options.ca_file = dir_ + "/ca.crt";
      options.cert_file = dir_ + "/client.crt";
      options.key_file = dir_ + "/client.key";
    }
    Status last = Status::Unavailable("not tried");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      // A new client each time: a channel that connected while etcd was
      // starting waits out gRPC's reconnect backoff before it tries again.
      auto client = etcd::Client::Create(options);
      if (!client.ok()) {
        last = client.status();
        break;
      }
      etcdserverpb::RangeRequest request;
      request.set_key(std::string(1, '\0'));
      etcdserverpb::RangeResponse response;
      last = client.value()->Range(request, &response);
      if (last.ok()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    Kill();
    throw std::runtime_error("etcd did not start (" + last.ToString() + "); see " + dir_ +
                             "/etcd.log");
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
  void MakeCertificates() {
    const std::string d = dir_;
    const std::string script =
        "cd '" + d +
        "' && echo subjectAltName=IP:127.0.0.1 > san.ext && "
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=test-ca -keyout ca.key -out "
        "ca.crt && "
        "openssl req -newkey rsa:2048 -nodes -subj /CN=etcd -keyout server.key -out server.csr && "
        "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 "
        "-extfile san.ext -out server.crt && "
        "openssl req -newkey rsa:2048 -nodes -subj /CN=berth -keyout client.key -out client.csr && "
        "openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 -out "
        "client.crt";
    if (std::system((script + " > certs.log 2>&1").c_str()) != 0) {
      throw std::runtime_error("making certificates failed; see " + d + "/certs.log");
    }
  }

  bool tls_ = false;
  std::string dir_;
  std::string url_;
  int client_port_ = 0;
  int peer_port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace berth::store::testing
