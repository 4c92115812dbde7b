#include "collectives/phases.h"

namespace sbrdma::collectives {

void wait_all_sent(Ctx& ctx, const std::vector<CoreId>& ranks, const std::vector<bool>& got,
                   unsigned sem, std::string_view note) {
  for (std::size_t j = 0; j < ranks.size(); ++j) {
    if (!got[j]) continue;
    ctx.em.wait(Arrival{ranks[j], sem, ctx.em.expected(ranks[j], sem)}, note);
  }
}

}  // namespace sbrdma::collectives
