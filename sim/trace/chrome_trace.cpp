#include "chrome_trace.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "isa/isa.h"

namespace emx::trace {
namespace {

std::string json_string(const std::string& s) { return nlohmann::json(s).dump(); }
const char* type_name(uint8_t t) { return isa::packet_type_name(static_cast<isa::PacketType>(t)); }
constexpr int kExec = 0, kMemory = 1;  // track (tid) of each PE process

}  // namespace

ChromeTrace::ChromeTrace(const std::string& path, unsigned pes, double clock_mhz, Filter filter)
    : f_(std::fopen(path.c_str(), "w")), pes_(pes), mhz_(clock_mhz), filter_(std::move(filter)),
      threads_(pes), path_(path) {
  if (!f_) throw std::runtime_error("cannot write the trace file " + path);
  std::fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", f_);
  auto name = [&](int pid, int tid, const char* what, const std::string& n) {
    event(fmt::format(R"({{"ph":"M","pid":{},"tid":{},"name":"{}","args":{{"name":{}}}}})", pid,
                      tid, what, json_string(n)));
  };
  for (unsigned k = 0; k < pes; ++k) {
    if (!filter_.pe(k)) continue;
    name(k, 0, "process_name", fmt::format("PE {}", k));
    event(fmt::format(R"({{"ph":"M","pid":{},"name":"process_sort_index","args":{{"sort_index":{}}}}})", k, k));
    name(k, kExec, "thread_name", "execution unit");
    name(k, kMemory, "thread_name", "memory unit (arrivals)");
  }
  name(pes, 0, "process_name", "host interface");
  name(pes + 1, 0, "process_name", "network");
}

ChromeTrace::~ChromeTrace() {
  if (f_) std::fclose(f_);
}

void ChromeTrace::event(const std::string& json) {
  if (!first_) std::fputs(",\n", f_);
  first_ = false;
  std::fputs(json.c_str(), f_);
}

void ChromeTrace::thread_begin(unsigned pe, uint64_t cycle, uint32_t entry, const std::string& name,
                               const pe::ThreadToken& t) {
  if (!filter_.pe(pe)) return;
  Open& o = threads_[pe];
  o = Open{true, cycle, name.empty() ? fmt::format("0x{:x}", entry) : name,
           fmt::format(R"({{"entry":"0x{:x}","continuation":"0x{:08x}","a0":{},"a1":{}}})", entry,
                       t.cont, t.op0, t.op1)};
}

void ChromeTrace::thread_end(unsigned pe, uint64_t cycle) {
  if (!filter_.pe(pe) || !threads_[pe].open) return;
  Open& o = threads_[pe];
  o.open = false;
  const uint64_t s = std::max(o.start, filter_.from), e = std::min(cycle, filter_.to);
  if (e < s || (e == s && !filter_.time(s))) return;
  event(fmt::format(R"({{"ph":"X","pid":{},"tid":{},"ts":{:.4f},"dur":{:.4f},"name":{},"cat":"thread","args":{}}})",
                    pe, kExec, us(s), us(e - s), json_string(o.name), o.args));
}

void ChromeTrace::packet_sent(const net::Packet& p, uint64_t cycle, const std::string& where) {
  if (p.src >= pes_ || !filter_.pe(p.src) || !filter_.time(cycle)) return;
  // A memory-unit reply starts inside that unit's slice, just before its end.
  const bool reply = p.src_pc == 0;
  const double ts = reply ? us(cycle) - 0.5 / mhz_ : us(cycle);
  event(fmt::format(R"({{"ph":"s","id":{},"pid":{},"tid":{},"ts":{:.4f},"name":"{}","cat":"packet","args":{{"from":{}}}}})",
                    p.seq, p.src, reply ? kMemory : kExec, ts, type_name(p.type),
                    json_string(where.empty() ? "memory unit" : where)));
}

void ChromeTrace::packet_arrived(const net::Packet& p, uint64_t cycle, uint64_t start, uint64_t done,
                                 const char* effect) {
  const bool host = p.dst >= pes_;
  if ((!host && !filter_.pe(p.dst)) || !filter_.time(cycle)) return;
  const int pid = host ? static_cast<int>(pes_) : p.dst;
  const int tid = host ? 0 : kMemory;
  const uint64_t end = std::max(done, cycle + 1);
  (void)start;
  event(fmt::format(R"({{"ph":"X","pid":{},"tid":{},"ts":{:.4f},"dur":{:.4f},"name":"{}","cat":"arrival","args":{{"from":"PE {}","address":"0x{:08x}","data":"0x{:08x}","effect":{}}}}})",
                    pid, tid, us(cycle), us(end - cycle), type_name(p.type), p.src, p.addr, p.data,
                    json_string(effect)));
  event(fmt::format(R"({{"ph":"f","bp":"e","id":{},"pid":{},"tid":{},"ts":{:.4f},"name":"{}","cat":"packet"}})",
                    p.seq, pid, tid, us(cycle), type_name(p.type)));
}

void ChromeTrace::input_buffer(unsigned pe, uint64_t cycle, std::size_t occupancy) {
  if (!filter_.pe(pe) || !filter_.time(cycle)) return;
  event(fmt::format(R"({{"ph":"C","pid":{},"ts":{:.4f},"name":"input buffer","args":{{"threads":{}}}}})",
                    pe, us(cycle), occupancy));
}

void ChromeTrace::network_sample(uint64_t from, uint64_t to, double mean, double max,
                                 const std::vector<double>& ejection) {
  if (!filter_.time(from)) return;
  (void)to;
  event(fmt::format(R"({{"ph":"C","pid":{},"ts":{:.4f},"name":"links busy %","args":{{"mean":{:.1f},"max":{:.1f}}}}})",
                    pes_ + 1, us(from), 100 * mean, 100 * max));
  for (unsigned k = 0; k < pes_ && k < ejection.size(); ++k)
    if (filter_.pe(k))
      event(fmt::format(R"({{"ph":"C","pid":{},"ts":{:.4f},"name":"ejection port busy %","args":{{"busy":{:.1f}}}}})",
                        k, us(from), 100 * ejection[k]));
}

void ChromeTrace::finish(uint64_t end_cycle) {
  for (unsigned k = 0; k < pes_; ++k) thread_end(k, end_cycle);
  std::fputs("\n]}\n", f_);
  // Every write went through f_: its error flag and the close say whether all arrived.
  const bool written = std::fflush(f_) == 0 && !std::ferror(f_);
  const int error = errno;
  const bool closed = std::fclose(f_) == 0;
  if (!written || !closed)
    write_error_ = fmt::format("--trace {}: cannot write it: {}", path_,
                               std::strerror(written ? errno : error));
  f_ = nullptr;
}

}  // namespace emx::trace
