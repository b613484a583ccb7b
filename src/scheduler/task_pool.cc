#include "scheduler/task_pool.h"

#include <pthread.h>

namespace berth::scheduler {

TaskPool::TaskPool(int threads, std::string name) : name_(std::move(name)) {
  for (int i = 0; i < threads; ++i) {
    workers_.emplace_back([this] {
      pthread_setname_np(pthread_self(), name_.substr(0, 15).c_str());
      Work();
    });
  }
}

void TaskPool::Submit(std::function<void()> task) {
  {
    std::lock_guard lock(mu_);
    if (!stopping_) {
      tasks_.push_back(std::move(task));
      cv_.notify_one();
      return;
    }
  }
  task();
}

size_t TaskPool::pending() const {
  std::lock_guard lock(mu_);
  return tasks_.size() + running_;
}

void TaskPool::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) {
    if (t.joinable()) t.join();
  }
}

void TaskPool::Work() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
    if (tasks_.empty()) return;  // stopping, and everything queued has run
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    ++running_;
    lock.unlock();
    task();
    lock.lock();
    --running_;
  }
}

}  // namespace berth::scheduler
