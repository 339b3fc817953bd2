#pragma once

#include <pthread.h>

namespace stampede {

// A mutex that spins a moment before it sleeps (glibc's adaptive mutex). The provider's lock
// is held for a few hundred nanoseconds; a thread that finds it taken would otherwise sleep,
// and on a busy machine wait milliseconds to be scheduled again, a pause in the data plane.
class AdaptiveMutex {
 public:
  AdaptiveMutex() {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init(&mu_, &attr);
    pthread_mutexattr_destroy(&attr);
  }
  ~AdaptiveMutex() { pthread_mutex_destroy(&mu_); }
  AdaptiveMutex(const AdaptiveMutex&) = delete;
  AdaptiveMutex& operator=(const AdaptiveMutex&) = delete;
  void lock() { pthread_mutex_lock(&mu_); }
  void unlock() { pthread_mutex_unlock(&mu_); }

 private:
  pthread_mutex_t mu_;
};

}  // namespace stampede
