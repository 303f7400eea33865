// Configuration of the EMC-Y units other than the execution unit's instruction costs
// (those are iss::TimingConfig). [paper] = from the EM-X papers; [assumed] = a documented
// modelling assumption (docs/pe.md).
#pragma once
#include <cstdint>

#include "sim/config/fields.h"

namespace emx::pe {

// Input buffer unit: arrived packets waiting for the execution unit.
struct InputBufferConfig {
  uint32_t onchip_packets = 8;  // [assumed] small on-chip FIFO
  uint32_t spill_clocks = 2;    // [assumed] write 2 words to memory
  uint32_t refill_clocks = 2;   // [assumed] read them back
  uint32_t spill_exu_clocks = 0;  // [assumed] EM-4: the spill's words took the EXU's port

  template <class V>
  void visit(V& v) {
    v.field("onchip_packets", onchip_packets, 1u, 4096u,
            "on-chip input buffer capacity in packets; more spill to memory by hardware [paper: "
            "small on-chip buffer backed by memory; size assumed]");
    v.field("spill_clocks", spill_clocks, 0u, 255u,
            "memory-unit clocks to spill one packet to the memory buffer, plus 2 x "
            "pe.timing.memory_penalty (two words written; EM-4: 4) [assumed]");
    v.field("refill_clocks", refill_clocks, 0u, 255u,
            "clocks added to a dispatch whose packet comes back from the memory buffer, plus 2 "
            "x pe.timing.memory_penalty (two words read; EM-4: 4) [assumed]");
    v.field("spill_exu_clocks", spill_exu_clocks, 0u, 255u,
            "clocks the execution unit loses to a spill, added to the refill when the "
            "spilled packet is taken: the two words written through a memory port the "
            "execution unit needs at the same time. 0 (EM-X): the EMC-Y's input buffer "
            "writes overlap with the running thread, as the EM-X papers say; EM-4: 2, a "
            "clock per word: the EMC-R's extra clock on every load and store says a memory "
            "reference holds the port the next instruction needs, and the spill's words "
            "take that port while a thread runs (packets spill only when 8 wait, i.e. "
            "while a thread runs); the EMC-Y changed the input buffer's memory priority to "
            "receive faster. Charged with the refill so that the clock does not depend on "
            "where the host's quantum cut the thread [assumed]");
  }
};

// Thread dispatch by the execution unit.
struct ThreadConfig {
  uint32_t dispatch_clocks = 2;  // [assumed]
  uint32_t frame_words = 32;     // [ours] operand segment size

  template <class V>
  void visit(V& v) {
    v.field("dispatch_clocks", dispatch_clocks, 0u, 255u,
            "clocks from taking a ready packet to the thread's first instruction, reading the "
            "frame's template word and the entry address included, plus 2 x "
            "pe.timing.memory_penalty: the two reads are memory references, and EM-4 pays "
            "its extra clock on each, as on every load and store [assumed]");
    v.field("frame_words", frame_words, 8u, 4096u,
            "words per frame (operand segment), a power of two; frames are aligned to their "
            "size so a continuation names frame and slot [ours]");
  }
};

// Memory control unit and matching unit: packets served without the execution unit.
struct MemoryUnitConfig {
  bool direct_remote_access = true;  // [paper] EM-X: true; EM-X' and EM-4: false
  uint32_t syswr_clocks = 1;         // [assumed] one memory write
  uint32_t sysrd_clocks = 2;         // [assumed] one read, then the reply enters the output port
  uint32_t match_clocks = 2;         // [assumed] read-modify-write of the matching slot
  uint32_t istructure_clocks = 2;    // [assumed] read-modify-write of the element
  uint32_t exu_stall_clocks = 0;     // [assumed] memory-port conflicts with a running thread
  uint32_t block_read_clocks = 1;    // [assumed] per rdb/rdbn/rdbf request packet (latch, start)
  uint32_t block_word_clocks = 2;    // [assumed] one read + one SYSWR reply per link slot

  template <class V>
  void visit(V& v) {
    v.field("direct_remote_access", direct_remote_access, false, true,
            "SYSWR/SYSRD served by the memory unit (EM-X) or by handler threads on the "
            "execution unit (EM-X', EM-4) [paper]");
    v.field("syswr_clocks", syswr_clocks, 1u, 255u, "memory-unit clocks per SYSWR [assumed]");
    v.field("sysrd_clocks", sysrd_clocks, 1u, 255u,
            "memory-unit clocks per SYSRD until the reply leaves [assumed]");
    v.field("match_clocks", match_clocks, 1u, 255u,
            "matching-unit clocks per 2-input packet (slot read-modify-write), plus 2 x "
            "pe.timing.memory_penalty (a read and a write: EM-4 pays its extra clock on "
            "each) [assumed]");
    v.field("istructure_clocks", istructure_clocks, 1u, 255u,
            "memory-unit clocks per I-structure read or write (a read-modify-write of the "
            "element), plus 2 x pe.timing.memory_penalty as for a match [assumed]");
    v.field("exu_stall_clocks", exu_stall_clocks, 0u, 255u,
            "clocks a running thread loses per memory-unit access (memory-port conflict); 0: "
            "the accesses overlap with execution, as the papers say [assumed]");
    v.field("block_read_clocks", block_read_clocks, 1u, 255u,
            "memory-unit clocks per block-read request packet (rdb latches the addresses, "
            "rdbn or rdbf starts the reads) [assumed]");
    v.field("block_word_clocks", block_word_clocks, 1u, 255u,
            "memory-unit clocks per word of a block read: one read and one SYSWR reply "
            "packet; 2 = a two-word packet per link slot, the network's rate [assumed]");
  }
};

// ISA features that differ between EM-X and EM-4.
struct IsaFeatures {
  bool send_displacement = true;  // [paper] EM-4 lacks register-relative packet addressing
  bool auto_increment = true;     // [paper] EM-4 lacks auto-increment memory addressing

  template <class V>
  void visit(V& v) {
    v.field("send_displacement", send_displacement, false, true,
            "the base+displacement form of send exists (EM-X) or is an illegal instruction "
            "(EM-4, whose block transfer needs separate address updates) [paper]");
    v.field("auto_increment", auto_increment, false, true,
            "the auto-increment load lw.ai exists (EM-X: its block-send loop is a load and "
            "a send a word) or is an illegal instruction (EM-4) [paper]");
  }
};

}  // namespace emx::pe
