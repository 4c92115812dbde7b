#include "collectives/interpreter.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "collectives/reference.h"
#include "collectives/types.h"
#include "isa/views.h"

namespace sbrdma::collectives::testing {
namespace {

std::uint64_t next(std::uint64_t& s) {
  s ^= s << 13;
  s ^= s >> 7;
  s ^= s << 17;
  return s;
}

std::optional<DataType> data_type(isa::Dtype d) {
  for (DataType t : all_dtypes()) {
    if (isa_dtype(t) == d) return t;
  }
  return std::nullopt;
}

}  // namespace

Interpreter::Interpreter(const Geometry& g, std::uint64_t sbuf_bytes, std::uint64_t seed)
    : g_(g), sbuf_bytes_(sbuf_bytes), rng_(seed * 2 + 1), cores_(g.num_cores()) {
  for (Core& c : cores_) {
    c.sem.assign(g_.semaphores, 0);
    c.engines.resize(g_.engines);
  }
}

std::uint8_t* Interpreter::at(CoreId core, unsigned p, std::uint64_t offset) {
  Core& c = cores_[core];
  if (c.sbuf.empty()) {
    // Garbage, not zeros, from a fixed generator per core: a slot read before it is written
    // then gives a wrong result under every reduction (zeros hid it from max and sum, and
    // from min over signed types).
    c.sbuf.resize(g_.partitions * sbuf_bytes_);
    std::uint64_t h = 0x9E3779B97F4A7C15ULL * (std::uint64_t{core} + 1);
    for (std::size_t i = 0; i < c.sbuf.size(); i += sizeof h) {
      h ^= h << 13;
      h ^= h >> 7;
      h ^= h << 17;
      std::memcpy(c.sbuf.data() + i, &h, std::min(sizeof h, c.sbuf.size() - i));
    }
  }
  return c.sbuf.data() + p * sbuf_bytes_ + offset;
}

void Interpreter::read(CoreId core, unsigned p, std::uint64_t offset, std::uint8_t* out,
                       std::size_t n) {
  std::memcpy(out, at(core, p, offset), n);
}

void Interpreter::write(CoreId core, unsigned p, std::uint64_t offset, const std::uint8_t* in,
                        std::size_t n) {
  std::memcpy(at(core, p, offset), in, n);
}

bool Interpreter::step_core(Core& c, std::string& err) {
  const isa::Word& w = c.prog->words[c.pc];
  const isa::Events ev = isa::decode_events(w);
  if (ev.wait_mode == isa::WaitMode::kGeImm) {
    if (c.sem[ev.wait_idx] < ev.semaphore_value) return false;
  } else if (ev.wait_mode != isa::WaitMode::kNone || ev.update_mode != isa::UpdateMode::kNone) {
    err = fmt::format("core {} word {}: events the interpreter does not run", c.prog->core, c.pc);
    return false;
  }
  const std::uint64_t chunk = g_.max_desc_bytes;
  if (w[0] == isa::kOpcodeEventSemaphore) {
    ++c.pc;
    return true;
  }
  if (auto gen = isa::decode_rdma_desc_gen(w); gen.ok()) {
    Leg l;
    l.src = c.prog->core;
    l.dst = g_.core_of(Place{gen->remote_routing_id.imm, 0, gen->remote_core_id.imm});
    l.src_off = gen->src_addr.value;
    l.dst_off = gen->dst_addr.value;
    l.bytes = gen->free_dim_bytes;
    l.local_sem = gen->local_sem;
    l.remote_sem = gen->remote_sem;
    l.mask = gen->dma_engine_mask.imm;
    if (l.src_off + l.bytes > sbuf_bytes_ || l.dst_off + l.bytes > sbuf_bytes_) {
      err = fmt::format("core {} word {}: gen range beyond the SBUF in use", l.src, c.pc);
      return false;
    }
    if (!foldable(g_, l.src, l.dst)) {
      err =
          fmt::format("core {} word {}: gen to core {} cannot be folded (D19)", l.src, c.pc, l.dst);
      return false;
    }
    const unsigned n = static_cast<unsigned>(std::popcount(l.mask));
    for (unsigned e = 0; e < g_.engines; ++e) {
      const bool active = ((l.mask >> e) & 1U) != 0;
      const unsigned descs =
          active ? g_.partitions / n * static_cast<unsigned>((l.bytes + chunk - 1) / chunk) + 2 : 1;
      if (c.engines[e].outstanding + descs > g_.ring_depth - 1) {
        err = fmt::format("core {} word {}: engine {} ring overflows ({} + {} descriptors)", l.src,
                          c.pc, e, c.engines[e].outstanding, descs);
        return false;
      }
      c.engines[e].outstanding += descs;
    }
    c.pending.push_back(l);
    ++c.pc;
    return true;
  }
  if (isa::decode_rdma_desc_start(w).ok()) {
    for (const Leg& l : c.pending) {
      const unsigned n = static_cast<unsigned>(std::popcount(l.mask));
      unsigned k = 0;
      for (unsigned e = 0; e < g_.engines; ++e) {
        Job j;
        j.leg = l;
        const bool active = ((l.mask >> e) & 1U) != 0;
        j.descs = active
                      ? g_.partitions / n * static_cast<unsigned>((l.bytes + chunk - 1) / chunk) + 2
                      : 1;
        if (active) {
          j.first_p = k * (g_.partitions / n);
          j.parts = l.bytes == 0 ? 0 : g_.partitions / n;
          j.remote = true;
          ++k;
        }
        c.engines[e].jobs.push_back(j);
      }
      ++legs_;
    }
    c.pending.clear();
    ++c.pc;
    return true;
  }
  if (auto t = isa::decode_ext_tensor_tensor_arith(w); t.ok()) {
    auto dt = data_type(t->out_dtype);
    if (!dt) {
      err = "tta: dtype";
      return false;
    }
    const unsigned eb = dtype_bytes(*dt);
    const std::uint64_t n0 = t->dst_mem_pattern.num_elem[0];
    const std::uint64_t n1 = t->dst_mem_pattern.num_elem[1];
    const auto& a = t->src0_mem_pattern;
    const auto& b = t->src1_mem_pattern;
    const auto& d = t->dst_mem_pattern;
    for (unsigned p = 0; p < g_.partitions; ++p) {
      for (std::uint64_t i1 = 0; i1 < n1; ++i1) {
        for (std::uint64_t i0 = 0; i0 < n0; ++i0) {
          auto off = [&](const isa::Tensor2d& x) {
            return x.start_addr.value + (i0 * x.step_elem[0] + i1 * x.step_elem[1]) * eb;
          };
          const double va = element_value(*dt, at(c.prog->core, p, off(a)));
          const double vb = element_value(*dt, at(c.prog->core, p, off(b)));
          // D28: floats add in fp32 (exact for bf16/fp16) and round on the store; integer
          // sums wrap on the store; max/min pick an input.
          double r = t->op == isa::AluOp::kMax   ? (va > vb ? va : vb)
                     : t->op == isa::AluOp::kAdd ? va + vb
                                                 : (va < vb ? va : vb);
          if (t->op == isa::AluOp::kAdd &&
              (*dt == DataType::kFp32 || *dt == DataType::kBf16 || *dt == DataType::kFp16)) {
            r = static_cast<double>(static_cast<float>(va) + static_cast<float>(vb));
          }
          store_element(*dt, r, at(c.prog->core, p, off(d)));
        }
      }
    }
    ++c.pc;
    return true;
  }
  err = fmt::format("core {} word {}: a word the interpreter does not run", c.prog->core, c.pc);
  return false;
}

void Interpreter::land(Engine& e) {
  const Job j = e.jobs.front();
  e.jobs.pop_front();
  e.outstanding -= j.descs;
  for (unsigned p = j.first_p; p < j.first_p + j.parts; ++p) {
    std::memmove(at(j.leg.dst, p, j.leg.dst_off), at(j.leg.src, p, j.leg.src_off), j.leg.bytes);
  }
  if (j.remote) e.sems.push_back(SemWrite{j.leg.dst, j.leg.remote_sem});
  e.sems.push_back(SemWrite{j.leg.src, j.leg.local_sem});
}

std::string Interpreter::run(const std::vector<CoreProgram>& programs) {
  std::vector<CoreId> active;  // only cores with a program have engines at work
  for (const CoreProgram& p : programs) {
    cores_[p.core].prog = &p;
    active.push_back(p.core);
  }
  std::string err;
  struct Action {
    unsigned kind;  // 0 core word, 1 engine job, 2 engine semaphore write
    CoreId core;
    unsigned engine;
  };
  std::vector<Action> acts;
  for (;;) {
    acts.clear();
    bool left = false;
    for (CoreId k : active) {
      Core& c = cores_[k];
      if (c.prog != nullptr && c.pc < c.prog->words.size()) {
        left = true;
        acts.push_back(Action{0, k, 0});
      }
      for (unsigned e = 0; e < c.engines.size(); ++e) {
        if (!c.engines[e].jobs.empty()) acts.push_back(Action{1, k, e});
        if (!c.engines[e].sems.empty()) acts.push_back(Action{2, k, e});
      }
    }
    if (acts.empty()) return left ? "deadlock" : "";
    // Try actions in a random rotation until one makes progress; the slow core's words only
    // once nothing else did.
    const std::size_t start = next(rng_) % acts.size();
    bool moved = false;
    for (std::size_t i = 0; i < 2 * acts.size() && !moved; ++i) {
      const Action& a = acts[(start + i) % acts.size()];
      const bool slow_word = a.kind == 0 && slow_ && a.core == *slow_;
      if (slow_word == (i < acts.size())) continue;
      Core& c = cores_[a.core];
      if (a.kind == 0) {
        moved = step_core(c, err);
        if (!err.empty()) return err;
      } else if (a.kind == 1) {
        land(c.engines[a.engine]);
        moved = true;
      } else {
        const SemWrite s = c.engines[a.engine].sems.front();
        c.engines[a.engine].sems.pop_front();
        ++cores_[s.core].sem[s.sem];
        moved = true;
      }
    }
    if (!moved) {
      std::string who;
      for (const Core& c : cores_) {
        if (c.prog != nullptr && c.pc < c.prog->words.size()) {
          const isa::Events ev = isa::decode_events(c.prog->words[c.pc]);
          who += fmt::format(" core {} word {} waits sem[{}] >= {} (is {});", c.prog->core, c.pc,
                             ev.wait_idx, ev.semaphore_value, c.sem[ev.wait_idx]);
        }
      }
      return "deadlock:" + who;
    }
  }
}

}  // namespace sbrdma::collectives::testing
