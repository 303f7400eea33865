#include "host.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "runtime/include/emx/host_protocol.h"

namespace emx::host {

Host::Host(unsigned pes, std::ostream& console, const HostLink& link)
    : console_(console), lines_(pes), exit_codes_(pes), pending_(pes), link_(link),
      files_(link.file_root) {}

Host::Start Host::load(const loader::ElfImage& prog, const std::vector<std::string>& args,
                       mem::LocalMemory& memory, uint32_t stack_top,
                       loader::Span in_place) {
  // The stack (and the arguments at its top) starts below the memory the hardware keeps.
  const uint64_t low = uint64_t(prog.end()) + 4096;  // the program, then room to grow
  if (low > stack_top)
    throw loader::ElfError(fmt::format(
        "{}: its memory image ends at 0x{:x}, which leaves no stack below 0x{:x} (the top {} "
        "bytes of local memory are the hardware's, pe.reserved_bytes): make the program's "
        "data smaller or the memory larger (pe.memory_bytes)",
        prog.path(), prog.end(), stack_top, memory.size() - stack_top));
  // Checked before any address arithmetic, which could wrap.
  uint64_t need = 4 * (uint64_t(args.size()) + 1) + 16;
  for (const std::string& a : args) need += a.size() + 1;
  if (need > stack_top - low)
    throw std::runtime_error(fmt::format(
        "the program arguments ({} bytes with argv) do not fit in local memory: {} bytes "
        "between the program's end + 4 KiB (0x{:x}) and the stack top (0x{:x})",
        need - 16, stack_top - low, low, stack_top));
  prog.copy_into(memory.bytes(), in_place);
  // Strings first (highest), then the argv array, then sp, 16-byte aligned as the ABI asks.
  uint32_t p = stack_top;
  std::vector<uint32_t> ptrs;
  for (const std::string& a : args) {
    p -= static_cast<uint32_t>(a.size() + 1);
    std::memcpy(memory.bytes() + p, a.c_str(), a.size() + 1);
    ptrs.push_back(p);
  }
  ptrs.push_back(0);
  p = (p - 4 * static_cast<uint32_t>(ptrs.size())) & ~15u;
  for (std::size_t k = 0; k < ptrs.size(); ++k) memory.write32(p + 4 * static_cast<uint32_t>(k), ptrs[k]);
  return {p - 16, p};
}

std::optional<Host::Answer> Host::receive(unsigned src, uint32_t addr, uint32_t data,
                                          uint64_t cycle, mem::LocalMemory& memory) {
  if (EMX_HOST_PE(addr) != src)
    throw std::runtime_error(fmt::format(
        "host packet names PE {} in its address word but came from PE {}", EMX_HOST_PE(addr), src));
  const unsigned arg = EMX_HOST_ARG(addr);
  switch (EMX_HOST_CMD(addr)) {
    case EMX_HOST_CONSOLE: {
      if (arg < 1 || arg > 4) throw std::runtime_error("console packet with a byte count outside 1..4");
      for (unsigned k = 0; k < arg; ++k) {
        const char c = static_cast<char>((data >> (8 * k)) & 0xff);
        lines_[src] += c;
        if (c == '\n') {
          console_ << lines_[src];
          lines_[src].clear();
        }
      }
      return {};
    }
    case EMX_HOST_EXIT:
      if (!exit_codes_[src]) ++exited_;
      exit_codes_[src] = static_cast<int>(data);
      return {};
    case EMX_HOST_FILE: {
      // One link, requests in arrival order: this one's bytes cross it after the last's.
      const HostFiles::Done d = files_.serve(src, data, memory);
      const uint64_t start = std::max(cycle, link_free_);
      link_free_ = start + static_cast<uint64_t>(static_cast<double>(d.bytes) * link_.clock_mhz /
                                                     link_.bandwidth_mb_s +
                                                 0.999999);
      return Answer{link_free_, (src << 22) | (data >> 2), static_cast<uint32_t>(d.result)};
    }
    case EMX_HOST_RESULT_NAME: {
      std::string name;
      for (uint32_t a = data;; ++a) {
        if (!memory.valid(a, 1)) throw std::runtime_error("result name outside local memory");
        const char c = static_cast<char>(memory.bytes()[a]);
        if (!c) break;
        if (name.size() == kMaxResultName)
          throw std::runtime_error(fmt::format("result name longer than {} characters ('{}...')",
                                               kMaxResultName, name.substr(0, 40)));
        name += c;
      }
      if (name.empty()) throw std::runtime_error("result record with an empty name");
      pending_[src] = {name, 0, 0, 1};
      return {};
    }
    case EMX_HOST_RESULT_VALUE_LO:
      if (pending_[src].stage != 1) throw std::runtime_error("result value without a name");
      pending_[src].lo = data;
      pending_[src].kind = arg;
      pending_[src].stage = 2;
      return {};
    case EMX_HOST_RESULT_VALUE_HI: {
      PendingResult& r = pending_[src];
      if (r.stage != 2) throw std::runtime_error("result value high word without the low word");
      const uint64_t bits = (uint64_t(data) << 32) | r.lo;
      nlohmann::json v;
      if (r.kind == EMX_RESULT_FLOAT) {
        double d;
        std::memcpy(&d, &bits, 8);
        // JSON has no NaN or infinity (they would be written as null): strings stand in.
        if (std::isnan(d)) v = "nan";
        else if (std::isinf(d)) v = d > 0 ? "inf" : "-inf";
        else v = d;
      } else {
        v = static_cast<int64_t>(bits);
      }
      results_.push_back({src, r.name, v, cycle});
      r.stage = 0;
      return {};
    }
    default:
      throw std::runtime_error(fmt::format("unknown host command {}", EMX_HOST_CMD(addr)));
  }
}

void Host::flush() {
  for (std::string& l : lines_)
    if (!l.empty()) {
      console_ << l;
      l.clear();
    }
  console_.flush();
}

}  // namespace emx::host
