#include "platform/collective_trace.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

namespace sbrdma::platform {
namespace {

constexpr unsigned kStepsTid = 50;  // between the Q7 threads (1..8) and DMA (100+)

struct Slice {
  double ts = 0;
  double dur = 0;
};

}  // namespace

std::string add_step_boxes(const std::string& trace_json,
                           const std::vector<collectives::CoreProgram>& programs) {
  const nlohmann::json doc = nlohmann::json::parse(trace_json, nullptr, false);
  const std::size_t tail = trace_json.rfind("\n]}");
  if (doc.is_discarded() || !doc.contains("traceEvents") || tail == std::string::npos) {
    return trace_json;
  }
  // 1. When each word of each core ran: POOL slices carry {"pc": N}.
  std::map<unsigned, std::map<std::size_t, Slice>> words;
  for (const auto& e : doc["traceEvents"]) {
    if (e.value("ph", "") != "X" || e.value("tid", 1U) != 0 || !e.contains("args") ||
        !e["args"].contains("pc")) {
      continue;
    }
    words[e["pid"].get<unsigned>()][e["args"]["pc"].get<std::size_t>()] =
        Slice{e["ts"].get<double>(), e["dur"].get<double>()};
  }
  // 2. One box per step mark.
  std::string extra;
  for (const collectives::CoreProgram& p : programs) {
    auto w = words.find(p.core);
    if (w == words.end() || p.steps.empty()) continue;
    const auto& at = w->second;
    extra += fmt::format(
        ",\n{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":"
        "\"steps\"}}}}",
        p.core, kStepsTid);
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
      auto first = at.lower_bound(p.steps[k].pc);
      if (first == at.end()) continue;
      double end = 0;
      if (k + 1 < p.steps.size() && at.lower_bound(p.steps[k + 1].pc) != at.end()) {
        end = at.lower_bound(p.steps[k + 1].pc)->second.ts;
      } else {
        end = at.rbegin()->second.ts + at.rbegin()->second.dur;
      }
      extra += fmt::format(
          ",\n{{\"name\":\"{}\",\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":{:.6f},\"dur\":{:.6f}}}",
          p.steps[k].name, p.core, kStepsTid, first->second.ts, end - first->second.ts);
    }
  }
  std::string out = trace_json;
  out.insert(tail, extra);
  return out;
}

}  // namespace sbrdma::platform
