#pragma once
/// Step boxes for the trace of a collective: the platform's Chrome trace has one slice per
/// instruction word (thread "POOL"); this adds, per core, a thread "steps" with one box per
/// step of the algorithm (collectives::StepMark), from the start of the step's first word to
/// the start of the next step's first word (the last one to the end of the last word). A step
/// with no word on a core (its mark and the next are at one pc) has no box there. The
/// lowering may place a word of one step after the next step's mark (a leg started early, a
/// wait left for later): the word then counts in the box of the mark it follows.

#include <string>
#include <vector>

#include "collectives/program.h"
#include "platform/chrome_trace.h"

namespace sbrdma::platform {

/// `trace_json` (ChromeTrace::json() of a one-iteration run of `programs`, whose word slices
/// are `words`: ChromeTrace::word_spans()) with the step boxes added. The input is returned
/// unchanged if it does not end as such a document does.
std::string add_step_boxes(const std::string& trace_json, const std::vector<WordSpan>& words,
                           const std::vector<collectives::CoreProgram>& programs);

}  // namespace sbrdma::platform
