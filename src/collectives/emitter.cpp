#include "collectives/emitter.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/check.h"

namespace sbrdma::collectives {
namespace {

constexpr std::uint64_t kAlign = 64;           // scratch offsets: one SBUF line [CHOICE D30a]
constexpr std::uint32_t kAllEngines = 0xFFFF;  // data legs use every engine [CHOICE D30c]
constexpr std::uint32_t kOneEngine = 0x0001;   // semaphore-only legs use engine 0
constexpr unsigned kLocalIncrement = 16;       // LOCAL descriptors per leg [CHOICE D5]
constexpr std::uint64_t kMaxNum0 = 65535;      // TENSOR2D num_elem is u16 [HIGH]
constexpr std::uint64_t kMaxStep = 32767;      // TENSOR2D step_elem is s16 [HIGH]

isa::Word wait_word(unsigned sem, std::uint32_t target) {
  isa::EventSemaphore w;
  w.events.wait_mode = isa::WaitMode::kGeImm;  // [CHOICE D11] >=
  w.events.wait_idx = static_cast<std::uint8_t>(sem);
  w.events.semaphore_value = target;
  return isa::encode(w);
}

isa::AluOp alu_of(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return isa::AluOp::kAdd;
    case ReduceOp::kMax:
      return isa::AluOp::kMax;
    case ReduceOp::kMin:
      return static_cast<isa::AluOp>(0x09);  // ALU_OP_MIN [HIGH] tensor-tensor §3; run per D28
  }
  return isa::AluOp::kAdd;
}

}  // namespace

Emitter::Emitter(const Geometry& g, bool notes, Output output)
    : g_(g), notes_(notes && output == Output::kPrograms), keep_(output == Output::kPrograms) {
  books_.resize(g_.num_cores());
  expected_.assign(static_cast<std::size_t>(g_.num_cores()) * g_.semaphores, 0);
  // Window size: K legs of the largest shape must fit a ring between two reuses of a slot
  // (one slot of the ring stays free, [CHOICE D20c]).
  const std::uint64_t chunks = (g_.partition_bytes + g_.max_desc_bytes - 1) / g_.max_desc_bytes;
  const std::uint64_t per_leg = g_.partitions / g_.engines * chunks + 2;
  const std::uint64_t fit = (g_.ring_depth - 1) / per_leg;
  const unsigned k = static_cast<unsigned>(std::clamp<std::uint64_t>(fit, 1, kWindow));
  window_ = alloc_sems(k, "the legs-in-flight window");
}

unsigned Emitter::alloc_sem(std::string_view purpose) {
  if (next_sem_ >= g_.usable_semaphores()) {
    fail(fmt::format("out of semaphores: {} are usable per core and all are taken before {}",
                     g_.usable_semaphores(), purpose));
    return 0;
  }
  return next_sem_++;
}

std::vector<unsigned> Emitter::alloc_sems(unsigned n, std::string_view purpose) {
  std::vector<unsigned> out;
  out.reserve(n);
  for (unsigned i = 0; i < n; ++i) out.push_back(alloc_sem(purpose));
  return out;
}

std::uint64_t Emitter::alloc_bytes(std::uint64_t bytes) {
  const std::uint64_t at = sbuf_used_;
  sbuf_used_ += (bytes + kAlign - 1) / kAlign * kAlign;
  return at;
}

void Emitter::rewind(Reserved r) {
  SBRDMA_CHECK(r.sems <= next_sem_ && r.bytes <= sbuf_used_);
  next_sem_ = r.sems;
  sbuf_used_ = r.bytes;
}

void Emitter::reserve_past(Reserved r) {
  next_sem_ = std::max(next_sem_, r.sems);
  sbuf_used_ = std::max(sbuf_used_, r.bytes);
}

std::uint32_t Emitter::expected(CoreId core, unsigned sem) const {
  return expected_[static_cast<std::size_t>(core) * g_.semaphores + sem];
}

Emitter::CoreBook& Emitter::book(CoreId core) {
  SBRDMA_CHECK(core < books_.size());
  CoreBook& b = books_[core];
  if (!b.touched) {
    b.touched = true;
    b.prog.core = core;
  }
  return b;
}

template <class Make>
void Emitter::put(CoreId core, std::size_t at, bool wait, Make&& make, std::string_view note) {
  CoreBook& b = book(core);
  SBRDMA_CHECK(at <= b.length);
  if (at == b.length) b.ends_with_wait = wait;
  ++b.length;
  if (!keep_) return;
  CoreProgram& p = b.prog;
  p.words.insert(p.words.begin() + static_cast<std::ptrdiff_t>(at), make());
  if (notes_) {
    p.notes.resize(p.words.size() - 1);
    p.notes.insert(p.notes.begin() + static_cast<std::ptrdiff_t>(at), std::string(note));
    for (StepMark& m : p.steps) {
      if (m.pc > at) ++m.pc;  // a word hoisted above a step start belongs to the step before
    }
  }
}

void Emitter::put_wait(CoreId core, unsigned sem, std::uint32_t target, std::string_view note) {
  put(
      core, book(core).length, true, [&] { return wait_word(sem, target); }, note);
  ++stats_.wait_words;
}

void Emitter::step(CoreId core, std::string_view name) {
  if (!notes_) return;
  CoreProgram& p = book(core).prog;
  p.steps.push_back(StepMark{p.words.size(), std::string(name)});
}

void Emitter::fail(std::string message) {
  if (status_.ok()) status_ = base::make_error(std::move(message));
}

Arrival Emitter::leg(CoreId src, CoreId dst, std::uint64_t src_off, std::uint64_t dst_off,
                     std::uint64_t bytes, unsigned remote_sem, std::string_view note) {
  if (forward_sem_ && bytes > 0) note_forward(src, dst, src_off, dst_off, bytes);
  const unsigned n_active = bytes == 0 ? 1 : g_.engines;  // [CHOICE D5] remote +n_active
  std::uint32_t& exp = expected_[static_cast<std::size_t>(dst) * g_.semaphores + remote_sem];
  exp += n_active;
  const Arrival a{dst, remote_sem, exp};
  if (foldable(g_, src, dst)) {
    direct_leg(src, dst, src_off, dst_off, bytes, remote_sem, note);
    return a;
  }
  // [CHOICE D30g] src -> relay (same die, chip-id fold) -> dst (neighbour fold).
  const CoreId relay = relay_core(g_, src, dst);
  // A semaphore-only leg holds no bytes at the relay: it takes no slot (an empty slot at the
  // end of the scratch would start past the partition's last byte, which gen refuses).
  std::uint64_t relay_off = 0;
  RelaySlot* slot_of_leg = nullptr;
  if (bytes > 0) {
    const SlotKey key{src, dst, dst_off, bytes};
    auto slot = relay_slots_.find(key);
    if (slot == relay_slots_.end()) {
      slot = relay_slots_.emplace(key, RelaySlot{alloc_bytes(bytes)}).first;
    } else if (slot->second.uncredited) {
      credit_relay_slot(src, relay, slot->first, slot->second);
    }
    relay_off = slot->second.offset;
    slot_of_leg = &slot->second;
  }
  const unsigned rs = relay_sem(remote_sem);
  expected_[static_cast<std::size_t>(relay) * g_.semaphores + rs] += n_active;
  direct_leg(src, relay, src_off, relay_off, bytes, rs,
             this->note("{} (first hop, via relay core {})", note, relay));
  pending_.push_back(Pending{relay, dst, slot_of_leg, relay_off, dst_off, bytes, remote_sem, rs,
                             notes_ ? std::string(note) : std::string()});
  ++stats_.relayed_legs;
  return a;
}

void Emitter::credit_relay_slot(CoreId src, CoreId relay, const SlotKey& key, RelaySlot& slot) {
  // The sender's next write (of a later iteration, or a later step) would otherwise race with
  // the relay's read for its last second hop: nothing else orders a first hop after the
  // relay's forward of the slot (the target's waits see that forward land, the sender's do
  // not). The credit is placed now, not at the next flush_relays(): a relay's waits count all
  // first hops emitted so far, and flushing early would make them count too few.
  auto sem = credit_sems_.find(relay);
  if (sem == credit_sems_.end()) {
    sem = credit_sems_.emplace(relay, alloc_sem("a relay credit semaphore")).first;
  }
  // The relay sits on src's die on the target's chip: its way back is a same-die fold.
  SBRDMA_CHECK(foldable(g_, relay, src));
  release(relay, slot.offset, slot.offset + std::get<3>(key));
  leg(relay, src, 0, 0, 0, sem->second,
      note("relay credit: core {}'s slot at {:#x} is forwarded", src, slot.offset));
  slot.uncredited = false;
  put_wait(src, sem->second, expected(src, sem->second),
           "relay credit: the relay has forwarded this slot");
}

unsigned Emitter::relay_sem(unsigned remote_sem) {
  auto it = relay_sems_.find(remote_sem);
  if (it != relay_sems_.end()) return it->second;
  const unsigned s = alloc_sem("a relay semaphore");
  relay_sems_.emplace(remote_sem, s);
  return s;
}

void Emitter::direct_leg(CoreId src, CoreId dst, std::uint64_t src_off, std::uint64_t dst_off,
                         std::uint64_t bytes, unsigned remote_sem, std::string_view note) {
  CoreBook& b = book(src);
  const std::uint64_t j = b.legs++;
  const unsigned k = static_cast<unsigned>(window_.size());
  const unsigned local = window_[j % k];
  std::size_t at = b.after_start;
  if (j >= k) {  // leg j-k used this local semaphore: wait until all its engines are done
    const auto target = static_cast<std::uint32_t>(kLocalIncrement * (j / k));
    put(
        src, at++, true, [&] { return wait_word(local, target); },
        "window: an earlier leg's engines are done");
    ++stats_.wait_words;
  }
  put(
      src, at++, false,
      [&] {
        const Place peer = g_.locate(dst);
        isa::RdmaDescGen gen;
        gen.local_sem = static_cast<std::uint8_t>(local);
        gen.remote_sem = static_cast<std::uint8_t>(remote_sem);
        gen.remote_core_id.imm = peer.tpb;      // [CHOICE D9]
        gen.remote_routing_id.imm = peer.chip;  // [CHOICE D9]
        gen.dma_engine_mask.imm = bytes == 0 ? kOneEngine : kAllEngines;
        gen.src_addr.value = static_cast<std::uint32_t>(src_off);
        gen.dst_addr.value = static_cast<std::uint32_t>(dst_off);
        gen.free_dim_bytes = static_cast<std::uint32_t>(bytes);
        return isa::encode(gen);
      },
      note);

  isa::RdmaDescStart start;
  if (b.length > at && b.ends_with_wait) {  // the wait gates the start itself
    --b.length;
    b.ends_with_wait = false;  // unknown now; the start put next is the last word
    if (keep_) {
      CoreProgram& p = b.prog;
      start.events = isa::decode_events(p.words.back());
      const std::size_t gone = p.words.size() - 1;
      p.words.pop_back();
      if (notes_) {
        p.notes.pop_back();
        // A step that began after the wait begins with the start that replaces it.
        for (StepMark& m : p.steps) {
          if (m.pc > gone) --m.pc;
        }
      }
    }
    --stats_.wait_words;
  }
  put(
      src, b.length, false, [&] { return isa::encode(start); },
      this->note("start: to core {}, {} B per partition", dst, bytes));
  b.after_start = b.length;
  if (bytes > 0) {
    // Legs older than the window are done (the window waited for them).
    std::erase_if(b.reading, [&](const Reading& r) { return r.leg + k <= j; });
    b.reading.push_back(Reading{src_off, src_off + bytes, j});
  }
  ++stats_.legs;
  if (bytes == 0) ++stats_.semaphore_legs;
}

void Emitter::wait(const Arrival& a, std::string_view note) {
  flush_relays();
  put_wait(a.core, a.sem, a.target, note);
}

void Emitter::release(CoreId core, std::uint64_t lo, std::uint64_t hi) {
  CoreBook& b = book(core);
  const std::uint64_t none = ~std::uint64_t{0};
  std::uint64_t newest = none;
  for (const Reading& r : b.reading) {
    if (r.lo < hi && lo < r.hi && (newest == none || r.leg > newest)) newest = r.leg;
  }
  if (newest == none) return;
  const unsigned k = static_cast<unsigned>(window_.size());
  put_wait(core, window_[newest % k],
           static_cast<std::uint32_t>(kLocalIncrement * (newest / k + 1)),
           "the core's own send of these bytes is done");
  std::erase_if(b.reading, [&](const Reading& r) { return r.leg <= newest; });
}

void Emitter::reduce(CoreId core, std::uint64_t dst_off, std::uint64_t src_off, std::uint64_t cols,
                     DataType dt, ReduceOp op, std::string_view note) {
  const unsigned eb = dtype_bytes(dt);
  release(core, dst_off, dst_off + cols * eb);
  std::uint64_t done = 0;
  while (done < cols) {
    const std::uint64_t left = cols - done;
    const std::uint64_t n0 = left <= kMaxNum0 ? left : kMaxStep;
    const std::uint64_t n1 = left <= kMaxNum0 ? 1 : std::min(left / n0, kMaxNum0);
    put(
        core, book(core).length, false,
        [&] {
          isa::ExtTensorTensorArith t;  // [CHOICE D13, D28] dst = src0 op src1
          t.in0_in1_dtype = isa::DtypePair{isa_dtype(dt), isa_dtype(dt)};
          t.out_dtype = isa_dtype(dt);
          t.op = alu_of(op);
          auto pattern = [&](std::uint64_t off) {
            isa::Tensor2d p;
            p.start_addr.value = static_cast<std::uint32_t>(off + done * eb);
            p.step_elem = {1, static_cast<std::int16_t>(n1 > 1 ? n0 : 0)};
            p.num_elem = {static_cast<std::uint16_t>(n0), static_cast<std::uint16_t>(n1)};
            return p;
          };
          t.src0_mem_pattern = pattern(dst_off);
          t.src1_mem_pattern = pattern(src_off);
          t.dst_mem_pattern = pattern(dst_off);
          return isa::encode(t);
        },
        note);
    ++stats_.reduce_words;
    done += n0 * n1;
  }
}

void Emitter::flush_relays() {
  if (pending_.empty()) return;
  std::vector<Pending> pend = std::move(pending_);
  pending_.clear();
  std::vector<CoreId> relays;
  for (const Pending& p : pend) {
    if (std::find(relays.begin(), relays.end(), p.relay) == relays.end()) relays.push_back(p.relay);
  }
  for (CoreId m : relays) {
    std::vector<unsigned> sems;
    for (const Pending& p : pend) {
      if (p.relay == m && std::find(sems.begin(), sems.end(), p.relay_sem) == sems.end()) {
        sems.push_back(p.relay_sem);
      }
    }
    for (unsigned s : sems) {  // everything relayed to s so far has landed here
      put_wait(m, s, expected(m, s), "relay: first hops landed");
    }
    for (const Pending& p : pend) {
      if (p.relay != m) continue;
      direct_leg(m, p.dst, p.relay_off, p.dst_off, p.bytes, p.remote_sem,
                 this->note("{} (second hop, relayed)", p.note));
      if (p.slot != nullptr) p.slot->uncredited = true;
    }
  }
}

void Emitter::end_iteration() {
  flush_relays();
  landed_.clear();  // a fence looks only at its iteration's forwards
  for (CoreBook& b : books_) {
    if (keep_) b.prog.iteration_end.push_back(b.length);
    b.after_start = b.length;  // no gen hoisted across an iteration's end
  }
}

void Emitter::track_forwards(unsigned sem) {
  forward_sem_ = sem;
}

void Emitter::note_forward(CoreId src, CoreId dst, std::uint64_t src_off, std::uint64_t dst_off,
                           std::uint64_t bytes) {
  // Does this leg read bytes another core's leg wrote into src in this iteration?
  if (auto it = landed_.find(src); it != landed_.end()) {
    const Landed& l = it->second;
    const std::uint64_t lo = src_off;
    const std::uint64_t hi = src_off + bytes;
    // Ranges starting at or past hi cannot meet [lo, hi); nor can those starting more than
    // the longest range before lo.
    for (auto w = l.by_lo.lower_bound(hi); w != l.by_lo.begin();) {
      --w;
      if (w->first + l.longest <= lo) break;
      if (w->second.hi > lo) forwards_.emplace(src, w->second.writer);
    }
  }
  Landed& l = landed_[dst];
  l.by_lo.emplace(dst_off, Written{dst_off + bytes, src});
  l.longest = std::max(l.longest, bytes);
}

void Emitter::fence_forwards() {
  if (!forward_sem_ || forwards_.empty()) return;
  const unsigned sem = *forward_sem_;
  const auto pairs = std::move(forwards_);
  forwards_.clear();
  // Each forwarder's waits and credits first, then the writers' waits: a core never waits
  // for a credit before it has sent its own, so the fence cannot deadlock.
  std::vector<CoreId> writers;
  std::optional<CoreId> released;
  for (const auto& [forwarder, writer] : pairs) {  // sorted by forwarder
    if (released != forwarder) {
      release(forwarder, 0, ~std::uint64_t{0});  // engines finish their legs in order
      released = forwarder;
    }
    leg(forwarder, writer, 0, 0, 0, sem,
        note("fence: core {}'s pieces of the last iteration are forwarded", writer));
    writers.push_back(writer);
  }
  std::sort(writers.begin(), writers.end());
  writers.erase(std::unique(writers.begin(), writers.end()), writers.end());
  for (const CoreId w : writers) {
    wait(Arrival{w, sem, expected(w, sem)},
         "fence: the cores that forward this core's pieces are done with the last iteration's");
  }
}

Emitter::Windows Emitter::windows() const {
  Windows w;
  for (const CoreBook& b : books_) {
    if (b.legs == 0) continue;
    ++w.senders;
    w.full = w.full && b.legs >= window_.size();
  }
  return w;
}

std::uint64_t Emitter::words() const {
  std::uint64_t n = 0;
  for (const CoreBook& b : books_) n += b.length;
  return n;
}

void Emitter::reserve_iterations(std::uint64_t more) {
  if (!keep_) return;
  for (CoreBook& b : books_) {
    const std::vector<std::size_t>& ends = b.prog.iteration_end;
    if (!b.touched || ends.size() < 2) continue;
    const std::uint64_t after_first = ends.back() - ends.front();
    const std::uint64_t per = (after_first + ends.size() - 2) / (ends.size() - 1);  // rounded up
    b.prog.words.reserve(b.prog.words.size() + per * more);
  }
}

std::vector<CoreProgram> Emitter::take_programs() {
  SBRDMA_CHECK_MSG(keep_, "take_programs: this emitter only counts words");
  flush_relays();
  std::vector<CoreProgram> out;
  for (CoreBook& b : books_) {
    if (b.touched) out.push_back(std::move(b.prog));
  }
  books_.clear();
  return out;
}

}  // namespace sbrdma::collectives
