#include "sim/trace.h"

#include <charconv>

namespace sbrdma::sim {

void StringTrace::record(const TraceRecord& r) {
  char buf[48];
  auto put = [&](std::uint64_t v) {
    const auto res = std::to_chars(buf, buf + sizeof(buf), v);
    text_.append(buf, res.ptr);
  };
  put(r.time.ps);
  text_.push_back(' ');
  put(r.seq);
  text_.push_back(' ');
  text_.append(r.label);
  text_.push_back('\n');
  ++lines_;
}

}  // namespace sbrdma::sim
