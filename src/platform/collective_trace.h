#pragma once
/// Step boxes for the trace of a collective: the platform's Chrome trace has one slice per
/// instruction word (thread "POOL"); this adds, per core, a thread "steps" with one box per
/// step of the algorithm (collectives::StepMark), from the start of the step's first word to
/// the start of the next step's first word (the last one to the end of the last word).

#include <string>
#include <vector>

#include "collectives/program.h"

namespace sbrdma::platform {

/// `trace_json` (ChromeTrace::json() of a one-iteration run of `programs`) with the step
/// boxes added. The input is returned unchanged if it is not such a document.
std::string add_step_boxes(const std::string& trace_json,
                           const std::vector<collectives::CoreProgram>& programs);

}  // namespace sbrdma::platform
