// Block remote read by the memory unit (packet types rdb + rdbn, docs/pe.md): the PE that
// holds the data reads `words` consecutive words and sends each as a SYSWR to consecutive
// words at the destination, then an I-structure write of the count to the completion
// element. No thread runs on either side; the replies leave one per
// block_word_clocks, the link's rate by default.
//
// A request is two packets (four fields do not fit in one): rdb carries the source and
// destination addresses and the memory unit latches them, one latch per requesting
// endpoint (hardware: a register pair per source; requests from different PEs may
// interleave), until the same requester's rdbn brings the count and the completion
// element. The network keeps one pair's packets in order, so the two arrive in order.
//
// Forwarded completion (rdbf instead of rdbn): the completion is a SYSRD of the last
// destination word, sent to the destination's PE behind the data, with the requester's
// continuation as its reply address. The destination's memory unit serves it after the
// words (one path, one FIFO server), so its reply — an ordinary SYSRD reply — proves the
// data is in place, wherever the continuation is: a copy between two other PEs completes
// at a third with no per-requester state anywhere and no thread but the continuation's.
#pragma once
#include <cstdint>
#include <vector>

#include "network/packet.h"
#include "pe_config.h"
#include "sim/mem/local_memory.h"

namespace emx::pe {

struct BlockRead {
  uint32_t from = 0;        // local byte address of the first source word
  uint32_t to = 0;          // global address of the first destination word
  uint32_t words = 0;       // >= 1
  uint32_t completion = 0;  // global address of the completion element, 0: none;
                            // forwarded: the continuation the SYSRD's reply goes to
  bool forwarded = false;   // rdbf: completion by a SYSRD through the destination
};

class BlockReadLatches {
 public:
  BlockReadLatches(unsigned pe, unsigned pe_count)
      : pe_(pe), pe_count_(pe_count), latch_(pe_count + 1) {}

  // rdb: latch source and destination for p.src; an rdb already waiting is an error.
  void latch(const net::Packet& p);
  // rdbn or rdbf: the whole request, checked against local memory `m` (source words in it,
  // destination and completion naming PEs of the machine); no latch is an error.
  BlockRead start(const net::Packet& p, const mem::LocalMemory& m);
  bool waiting(unsigned src) const { return src < latch_.size() && latch_[src].full; }

 private:
  struct Latch {
    uint32_t from = 0, to = 0;
    bool full = false;
  };
  unsigned pe_, pe_count_;
  std::vector<Latch> latch_;  // by requesting endpoint
};

// Reply k of a block read served by PE `pe`: k < words the SYSWR of word k (read from `m`
// now), k == words the completion: the I-structure write of the count (rdbn), or the
// SYSRD of the last destination word replying to the continuation (rdbf).
net::Packet block_read_reply(const BlockRead& b, uint32_t k, const mem::LocalMemory& m,
                             unsigned pe);
// The memory unit's busy time for the rdbn packet, and the clock (after its start) at which
// reply k leaves: one per block_word_clocks; the completion with the last word.
inline uint32_t block_read_busy(const BlockRead& b, const MemoryUnitConfig& c) {
  return c.block_read_clocks + b.words * c.block_word_clocks;
}
inline uint32_t block_read_reply_offset(const BlockRead& b, uint32_t k,
                                        const MemoryUnitConfig& c) {
  return c.block_read_clocks + (k < b.words ? k + 1 : b.words) * c.block_word_clocks;
}

}  // namespace emx::pe
