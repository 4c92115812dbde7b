#include "firmware/descriptor_stream.h"

#include <algorithm>
#include <cstring>
#include <span>

#include "base/check.h"

namespace sbrdma::firmware {

soc::UdmaDescriptor m2s_descriptor(base::SocAddr src, std::uint32_t bytes) {
  return soc::make_copy_descriptor(src, bytes, 0).value();
}

soc::UdmaDescriptor s2m_descriptor(base::SocAddr dst, std::uint32_t bytes) {
  const std::uint16_t len = soc::encode_len(bytes).value();
  return soc::UdmaDescriptor{static_cast<std::uint32_t>(soc::desc_word0::kLen.set(0, len)), 0,
                             dst.v};
}

void DescriptorStream::reset(const std::array<base::SocAddr, kRdmaEngines>& bases, unsigned depth) {
  depth_ = depth;
  for (unsigned e = 0; e < kRdmaEngines; ++e) {
    rings_[e] = Ring{};
    rings_[e].base = bases[e];
  }
}

void DescriptorStream::push(unsigned engine, soc::UdmaDescriptor d) {
  push_stepped(engine, d, 0, 1);  // one ring-full and wrap rule for both
}

void DescriptorStream::push_stepped(unsigned engine, soc::UdmaDescriptor d, std::uint64_t step,
                                    unsigned n) {
  SBRDMA_CHECK(engine < kRdmaEngines && depth_ > 0);
  Ring& r = rings_[engine];
  // What the n push calls do, a run at a time: a run ends where the ring id changes (the
  // tail wraps) or the ring is full; the pushes beyond a full ring are dropped, as push does.
  while (n > 0 && !r.stopped && r.pending + 1 <= depth_ - 1) {  // [CHOICE D20c]
    const unsigned k = std::min({n, depth_ - 1 - r.pending, depth_ - r.tail});
    if (r.staged.empty()) r.staged_start = r.tail;
    d.word0 = static_cast<std::uint32_t>(soc::desc_word0::kRingId.set(d.word0, r.ring_id));
    const std::size_t at = r.staged.size();
    r.staged.resize(at + std::size_t{k} * soc::kDescBytes);
    std::uint8_t* out = r.staged.data() + at;
    for (unsigned i = 0; i < k; ++i, d.buf_ptr += step, out += soc::kDescBytes) {
      const auto bytes = soc::encode_descriptor(d);
      std::memcpy(out, bytes.data(), soc::kDescBytes);
    }
    r.pending += k;
    r.tail += k;
    if (r.tail == depth_) {  // [CHOICE D2] wrap: next ring id
      r.tail = 0;
      r.ring_id = (r.ring_id + 1) % 4;
    }
    n -= k;
  }
  if (n > 0) r.stopped = true;
}

void DescriptorStream::flush(
    soc::MmioBus& bus,
    const std::function<void(unsigned, unsigned, unsigned, base::SocAddr)>& posted) {
  for (unsigned e = 0; e < kRdmaEngines; ++e) {
    Ring& r = rings_[e];
    const std::span<const std::uint8_t> staged = r.staged;
    const std::size_t count = staged.size() / soc::kDescBytes;
    std::size_t i = 0;
    unsigned slot = r.staged_start;
    while (i < count) {
      // One run: from `slot` to the ring's end or the last staged descriptor.
      const std::size_t n = std::min<std::size_t>(count - i, depth_ - slot);
      const base::SocAddr at = r.base + std::uint64_t{slot} * soc::kDescBytes;
      if (posted) posted(e, slot, static_cast<unsigned>(n), at);
      bus.write_block(at, staged.subspan(i * soc::kDescBytes, n * soc::kDescBytes));
      i += n;
      slot = 0;
    }
    r.staged.clear();  // its capacity is kept for the next gen
  }
}

unsigned DescriptorStream::written_total() const {
  unsigned n = 0;
  for (const Ring& r : rings_) n += r.pending;
  return n;
}

unsigned DescriptorStream::expected_total() const {
  unsigned n = 0;
  for (const Ring& r : rings_) n += r.expected;
  return n;
}

void DescriptorStream::publish() {
  for (Ring& r : rings_) {
    SBRDMA_CHECK(r.staged.empty());
    r.pending = 0;
    r.expected = 0;
    r.stopped = false;
  }
}

}  // namespace sbrdma::firmware
