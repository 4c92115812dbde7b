#pragma once
/// The 64-byte TPB instruction word. Every instruction of every engine queue is one of these,
/// little-endian, packed. [HIGH] wiki-facts §1 ("64 bytes each, little-endian, packed")

#include <array>
#include <cstddef>
#include <cstdint>

namespace sbrdma::isa {

/// Bytes in one instruction word. [HIGH] wiki-facts §1 (NEURON_ISA_TPB_INST_NBYTES = 64)
inline constexpr std::size_t kWordBytes = 64;

/// One instruction word, byte 0 first (byte 0 is `header.opcode`).
using Word = std::array<std::uint8_t, kWordBytes>;
static_assert(sizeof(Word) == 64, "a TPB instruction word is 64 bytes");

/// Top-level opcodes with a row in the op table (NEURON_ISA_TPB_OPCODE, 1 byte at offset 0).
/// [HIGH] wiki-facts §1.1
inline constexpr std::uint8_t kOpcodeEventSemaphore = 0xA0;   // EVENT_SEMAPHORE (CTRL_ES)
inline constexpr std::uint8_t kOpcodeSb2sbCollective = 0xBF;  // SB2SB_COLLECTIVE (S3D3)
inline constexpr std::uint8_t kOpcodeExtendedInst = 0xF0;     // EXTENDED_INST

/// `header.inst_word_len` as the encoder writes it: 16 four-byte words. The decoder does not
/// check it. [CHOICE D10]
inline constexpr std::uint8_t kInstWordLen = 0x10;

}  // namespace sbrdma::isa
