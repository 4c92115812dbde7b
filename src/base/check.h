#pragma once
/// Always-on internal consistency checks (error kind 3 in DESIGN.md: our own bugs).
/// A failed check prints file:line and the condition, then aborts. Never use it for user
/// input or for mistakes of the modelled hardware's programmer: those are Result errors and
/// modelled error bits.

namespace sbrdma::base {
[[noreturn]] void check_failed(const char* file, int line, const char* cond, const char* msg);

/// The process could not get memory (neither a bug nor bad input: the run is larger than this
/// machine or its limits allow). Prints `sbrdma: error: out of memory: <what> (<hint>)` with
/// the hint the command set (none if it set none), and exits 1 at once, from wherever the
/// allocation failed (an event, a coroutine, a noexcept function), without unwinding. Outputs are
/// written only after a run, so none is left half-written. main() makes every failed operator new
/// end here too.
[[noreturn]] void out_of_memory(const char* what) noexcept;
/// What out_of_memory() says may help this command's runs (a string that lives as long as the
/// process: a literal).
void set_out_of_memory_hint(const char* hint) noexcept;
}  // namespace sbrdma::base

#define SBRDMA_CHECK(cond)                                                    \
  do {                                                                        \
    if (!(cond)) ::sbrdma::base::check_failed(__FILE__, __LINE__, #cond, ""); \
  } while (0)

#define SBRDMA_CHECK_MSG(cond, msg)                                            \
  do {                                                                         \
    if (!(cond)) ::sbrdma::base::check_failed(__FILE__, __LINE__, #cond, msg); \
  } while (0)
