#include "platform/collective_trace.h"

#include <fmt/format.h>

#include <map>

namespace sbrdma::platform {
namespace {

constexpr unsigned kStepsTid = 50;  // between the Q7 threads (1..8) and DMA (100+)

}  // namespace

std::string add_step_boxes(const std::string& trace_json, const std::vector<WordSpan>& words,
                           const std::vector<collectives::CoreProgram>& programs) {
  const std::size_t tail = trace_json.rfind("\n]}");
  if (tail == std::string::npos) return trace_json;
  // 1. When each word of each core ran (a word run twice: its last run).
  std::map<unsigned, std::map<std::size_t, const WordSpan*>> ran;
  for (const WordSpan& w : words) ran[w.core][w.pc] = &w;
  // 2. One box per step mark.
  std::string extra;
  for (const collectives::CoreProgram& p : programs) {
    auto w = ran.find(p.core);
    if (w == ran.end() || p.steps.empty()) continue;
    const auto& at = w->second;
    extra += fmt::format(
        ",\n{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":"
        "\"steps\"}}}}",
        p.core, kStepsTid);
    // A sort index as every other thread has (a viewer orders threads without one its own way).
    extra += fmt::format(
        ",\n{{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{"
        "\"sort_index\":{}}}}}",
        p.core, kStepsTid, kStepsTid);
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
      // A mark that owns no word (the next mark is at its pc: a step with nothing to do on
      // this core) gets no box: it would be 0 us long, at the next step's start.
      if (k + 1 < p.steps.size() && p.steps[k + 1].pc <= p.steps[k].pc) continue;
      auto first = at.lower_bound(p.steps[k].pc);
      if (first == at.end()) continue;
      base::Tick end = at.rbegin()->second->to;
      if (k + 1 < p.steps.size()) {
        if (auto next = at.lower_bound(p.steps[k + 1].pc); next != at.end()) {
          end = next->second->from;
        }
      }
      const base::Tick from = first->second->from;
      extra += fmt::format(
          ",\n{{\"name\":\"{}\",\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":{},\"dur\":{}}}",
          p.steps[k].name, p.core, kStepsTid, trace_us(from), trace_us(end - from));
    }
  }
  std::string out = trace_json;
  out.insert(tail, extra);
  return out;
}

}  // namespace sbrdma::platform
