#pragma once
/// DescriptorStream: one Q7 role's producer side of the 16 RDMA rings of its direction (TX the
/// M2S rings, RX the S2M rings, [CHOICE D22a]). rdma_desc_gen pushes descriptors; the stream
/// stamps the ring id, stages them and flushes them into DGE memory with bus writes;
/// rdma_desc_start checks what it wrote against what gen expected and publishes it.
///
///  per engine:  base                 tail (software producer index)
///               |                    |
///               v                    v
///  ring:       [d0][d1][d2] ... [dk-1][  free  ...  ][ depth-1 ]
///               ^---- published ----^^-- pending --^            (pending <= depth - 1)
///
///  Ring id: 1 for a fresh ring, (id + 1) mod 4 each time the tail wraps to 0. [CHOICE D2]
///  A ring holds at most depth - 1 pending descriptors; a push beyond that is dropped and the
///  engine's stream stops writing until the next start. [CHOICE D6, D20c]

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "base/units.h"
#include "firmware/config.h"
#include "soc/mmio_bus.h"
#include "soc/udma_descriptor.h"

namespace sbrdma::firmware {

/// The M2S half of a transfer unit: FIRST|LAST, LEN, word1 = plain CME copy, reads `src`.
/// The ring id is stamped by DescriptorStream::push. Contract: 1 <= bytes <= 64 KiB.
/// [CHOICE D21]
soc::UdmaDescriptor m2s_descriptor(base::SocAddr src, std::uint32_t bytes);
/// The S2M half: word0 LEN only (RX len_ctrl has len2 where TX has FIRST/LAST), word1 0,
/// writes `dst`. Contract: 1 <= bytes <= 64 KiB. [CHOICE D21]
soc::UdmaDescriptor s2m_descriptor(base::SocAddr dst, std::uint32_t bytes);

class DescriptorStream {
 public:
  /// One engine's ring as its producer sees it.
  struct Ring {
    base::SocAddr base;
    unsigned tail = 0;                       ///< next slot to write
    unsigned ring_id = soc::kInitialRingId;  ///< id stamped on the next descriptor
    unsigned pending = 0;                    ///< written since the last publish
    unsigned expected = 0;                   ///< gen's expected count since the last publish
    bool stopped = false;                    ///< a push found the ring full
    std::vector<std::uint8_t> staged;        ///< pushed, not yet flushed: 16 encoded bytes each
    unsigned staged_start = 0;               ///< slot of staged[0]
  };

  /// Fresh rings (tail 0, ring id 1) at `bases`, `depth` descriptors each.
  void reset(const std::array<base::SocAddr, kRdmaEngines>& bases, unsigned depth);

  /// gen records that `n` more descriptors are meant for `engine`. [CHOICE D6]
  void expect(unsigned engine, unsigned n) { rings_[engine].expected += n; }

  /// Stamps the ring id into `d` and appends it to `engine`'s ring; dropped if the ring is full.
  void push(unsigned engine, soc::UdmaDescriptor d);

  /// `n` pushes of `d` to `engine`, the i-th with buf_ptr d.buf_ptr + i * step: the same as
  /// the n push calls, with the staging space taken once per run up to a wrap or a full ring
  /// (push is the case n = 1).
  void push_stepped(unsigned engine, soc::UdmaDescriptor d, std::uint64_t step, unsigned n);

  /// Writes every staged descriptor to its ring slot (one write_block per contiguous run,
  /// straight from the staged bytes); `posted`, if given, is told of each run as it is
  /// written: engine, first slot, count, address.
  void flush(soc::MmioBus& bus,
             const std::function<void(unsigned, unsigned, unsigned, base::SocAddr)>& posted = {});

  /// Descriptors written / expected since the last publish, over all engines.
  [[nodiscard]] unsigned written_total() const;
  [[nodiscard]] unsigned expected_total() const;
  [[nodiscard]] const Ring& ring(unsigned engine) const { return rings_[engine]; }
  [[nodiscard]] unsigned depth() const { return depth_; }

  /// start has rung the doorbells: the pending descriptors now belong to the engines.
  void publish();

 private:
  std::array<Ring, kRdmaEngines> rings_{};
  unsigned depth_ = 0;
};

}  // namespace sbrdma::firmware
