#include "base/stop_signals.h"

#include <pthread.h>

namespace sbrdma::base {
namespace {

sigset_t stop_signals() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGHUP);
  return s;
}

}  // namespace

StopSignalsMask::StopSignalsMask(int how) {
  const sigset_t s = stop_signals();
  pthread_sigmask(how, &s, &old_);
}

StopSignalsMask::~StopSignalsMask() {
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

}  // namespace sbrdma::base
