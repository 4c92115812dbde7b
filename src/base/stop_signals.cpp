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

void block_stop_signals_here() {
  const sigset_t s = stop_signals();
  pthread_sigmask(SIG_BLOCK, &s, nullptr);
}

StopSignalsHeld::StopSignalsHeld() {
  const sigset_t s = stop_signals();
  pthread_sigmask(SIG_BLOCK, &s, &old_);
}

StopSignalsHeld::~StopSignalsHeld() {
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

StopSignalsReleased::StopSignalsReleased() {
  const sigset_t s = stop_signals();
  pthread_sigmask(SIG_UNBLOCK, &s, &old_);
}

StopSignalsReleased::~StopSignalsReleased() {
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

}  // namespace sbrdma::base
