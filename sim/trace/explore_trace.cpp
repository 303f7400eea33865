#include "explore_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "isa/isa.h"
#include "network/topology.h"

namespace emx::trace {
namespace {

// A JSON string that is safe inside a <script> element (no "</script>", no "<!--").
std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (u < 0x20 || c == '<' || c == '>' || c == '&') {
      o += fmt::format("\\u{:04x}", u);
    } else {
      o += c;
    }
  }
  return o + "\"";
}

// `numbers` as a JSON array, written straight into `o`.
template <typename T>
void array(std::string& o, const std::vector<T>& numbers) {
  o += '[';
  for (std::size_t k = 0; k < numbers.size(); ++k) {
    if (k) o += ',';
    fmt::format_to(std::back_inserter(o), "{}", numbers[k]);
  }
  o += ']';
}

}  // namespace

ExploreTrace::ExploreTrace(std::string path, unsigned pes, double clock_mhz, Filter filter,
                           Run run, const loader::SymbolTable& symbols)
    : path_(std::move(path)), pes_(pes), mhz_(clock_mhz), filter_(std::move(filter)),
      run_(std::move(run)), symbols_(symbols), open_(pes) {
  std::ofstream probe(path_, std::ios::app);
  if (!probe) throw std::runtime_error("cannot write the explorer page " + path_);
  for (Thread& t : open_) t.start = kNone;
  str("");  // id 0: none
}

uint32_t ExploreTrace::str(const std::string& s) {
  const auto [it, added] = string_ids_.emplace(s, uint32_t(strings_.size()));
  if (added) strings_.push_back(s);
  return it->second;
}

void ExploreTrace::network(const net::Topology& t, uint32_t link_clocks) {
  link_clocks_ = link_clocks;
  std::string o = fmt::format(R"({{"kind":"{}","describe":{},"nodes":{},"host_node":{},"omega":[{},{}],"torus":[{},{}],"endpoint_node":[)",
                              net::topology_name(t.kind()), json_str(t.describe()), t.node_count(),
                              t.host_node(), t.omega().groups, t.omega().group_size,
                              t.torus().width, t.torus().height);
  for (uint32_t e = 0; e < t.endpoint_count(); ++e)
    o += fmt::format("{}{}", e ? "," : "", t.endpoint_node(e));
  o += "],\"links\":[";
  for (uint32_t k = 0; k < t.link_count(); ++k) {
    const net::Link& l = t.link(k);
    o += fmt::format("{}[{},{},\"{}\"]", k ? "," : "", l.from, l.to, net::link_kind_name(l.kind));
  }
  topology_json_ = o + "]}";
}

void ExploreTrace::thread_begin(unsigned pe, uint64_t cycle, uint32_t entry, const std::string& name,
                                const pe::ThreadToken& t) {
  if (!filter_.pe(pe)) return;
  // A resumed computation is named by the code it returns into: show that code's line.
  uint32_t line_pc = entry;
  if (name.rfind("resume ", 0) == 0) {
    const std::string target = name.substr(7);
    const auto plus = target.find("+0x");
    const uint32_t base = symbols_.address_of(target.substr(0, plus));
    if (base) line_pc = base + (plus == std::string::npos ? 0 : std::stoul(target.substr(plus + 3), nullptr, 16));
  }
  open_[pe] = Thread{pe, cycle, kNone, str(name.empty() ? fmt::format("0x{:x}", entry) : name),
                     entry, line_pc, t.op0, t.op1, t.cont, static_cast<uint8_t>(t.kind), t.src};
}

void ExploreTrace::thread_end(unsigned pe, uint64_t cycle) {
  if (!filter_.pe(pe) || open_[pe].start == kNone) return;
  Thread t = open_[pe];
  open_[pe].start = kNone;
  t.end = cycle;
  if (t.end < filter_.from || t.start >= filter_.to) {
    ++left_out_threads_;
    return;
  }
  pcs_.push_back(t.line_pc);
  threads_.push_back(t);
}

ExploreTrace::Pkt& ExploreTrace::packet(const net::Packet& p) {
  Pkt& k = in_flight_[p.seq];
  if (k.sent == kNone && k.hops.empty() && k.arrive == kNone) {
    k.seq = p.seq;
    k.addr = p.addr;
    k.data = p.data;
    k.type = p.type;
    k.data_tag = p.data_tag;
    k.src = p.src;
    k.dst = p.dst;
    k.src_pc = p.src_pc;
  }
  return k;
}

void ExploreTrace::packet_sent(const net::Packet& p, uint64_t cycle, const std::string& where) {
  if (!pe_kept(p.src) && !pe_kept(p.dst)) return;
  if (cycle >= filter_.to) {
    ++left_out_packets_;
    return;
  }
  Pkt& k = packet(p);
  k.sent = cycle;
  k.where = str(where.empty() ? (p.src >= pes_ ? "host interface" : "memory unit") : where);
}

void ExploreTrace::packet_hop(const net::Packet& p, uint32_t output, uint64_t start, uint64_t end) {
  const auto it = in_flight_.find(p.seq);
  if (it == in_flight_.end()) return;  // not recorded (left out when sent)
  it->second.hops.push_back({output, start, end});
}

void ExploreTrace::packet_arrived(const net::Packet& p, uint64_t cycle, uint64_t start, uint64_t done,
                                  const char* effect) {
  auto it = in_flight_.find(p.seq);
  // A timer's invocation arrives without being sent (seq 0 may be another packet's).
  if (it == in_flight_.end() || it->second.type != p.type || it->second.dst != p.dst) {
    if (!pe_kept(p.dst) || !filter_.time(cycle)) return;
    Pkt k;
    k.seq = kNone - packets_.size();
    k.addr = p.addr;
    k.data = p.data;
    k.type = p.type;
    k.src = p.src;
    k.dst = p.dst;
    k.sent = cycle;
    k.where = str(p.src == p.dst && p.src_pc == 0 ? "timer" : "");
    k.arrive = cycle;
    k.mu_start = start;
    k.mu_done = done;
    k.effect = str(effect);
    packets_.push_back(std::move(k));
    return;
  }
  Pkt& k = it->second;
  k.arrive = cycle;
  k.mu_start = start;
  k.mu_done = done;
  k.effect = str(effect);
  retire(p.seq);
}

void ExploreTrace::retire(uint64_t seq) {
  auto it = in_flight_.find(seq);
  Pkt& k = it->second;
  if (k.arrive < filter_.from) {
    ++left_out_packets_;
  } else {
    if (k.src_pc) pcs_.push_back(k.src_pc);
    packets_.push_back(std::move(k));
  }
  in_flight_.erase(it);
}

void ExploreTrace::cell(unsigned pe, uint64_t cycle, uint32_t addr, Cell c, const net::Packet& p) {
  // Every change up to the window's end: the cells' state at its start needs the earlier ones.
  if (filter_.pe(pe) && cycle < filter_.to) cells_.push_back({pe, cycle, p.seq, addr, c});
}

void ExploreTrace::buffer_push(unsigned pe, uint64_t cycle, const net::Packet& p, bool spilled) {
  // From the start: the k-th pop takes the k-th push.
  if (filter_.pe(pe) && cycle < filter_.to) buffer_.push_back({pe, cycle, p.seq, spilled});
}

void ExploreTrace::buffer_pop(unsigned pe, uint64_t cycle) {
  if (filter_.pe(pe) && cycle < filter_.to) buffer_.push_back({pe, cycle, kNone, false});
}

// Source lines of the recorded code addresses, "file.c:line", by one addr2line call.
std::string ExploreTrace::source_lines_json() {
  std::sort(pcs_.begin(), pcs_.end());
  pcs_.erase(std::unique(pcs_.begin(), pcs_.end()), pcs_.end());
  std::vector<std::string> lines(pcs_.size());
  if (!pcs_.empty() && !run_.elf.empty()) {
    const std::string list = path_ + ".pcs";
    {
      std::ofstream f(list);
      for (const uint32_t pc : pcs_) f << fmt::format("0x{:x}\n", pc);
    }
    // -a -i: each address, then its location and those of the calls it is inlined into;
    // the outermost is the line a reader looks for, the innermost follows it.
    const std::string cmd = fmt::format(
        "riscv64-unknown-elf-addr2line -a -i -e '{}' < '{}' 2>/dev/null", run_.elf, list);
    if (run_.elf.find('\'') == std::string::npos && list.find('\'') == std::string::npos) {
      if (FILE* f = popen(cmd.c_str(), "r")) {
        std::vector<std::vector<std::string>> at(lines.size());
        std::size_t k = 0;
        bool started = false;
        char buf[4096];
        while (std::fgets(buf, sizeof buf, f)) {
          std::string l = buf;
          while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
          if (l.rfind("0x", 0) == 0) {  // the next address
            if (started) ++k;
            started = true;
            continue;
          }
          if (k >= at.size()) break;
          if (const auto d = l.find(" (discriminator"); d != std::string::npos) l.erase(d);
          if (const auto slash = l.rfind('/'); slash != std::string::npos) l = l.substr(slash + 1);
          if (l.rfind("??", 0) != 0) at[k].push_back(l);
        }
        pclose(f);
        for (std::size_t i = 0; i < at.size(); ++i)
          if (!at[i].empty())
            lines[i] = at[i].size() == 1 ? at[i][0]
                                         : fmt::format("{} (inlined {})", at[i].back(), at[i].front());
      }
    }
    std::remove(list.c_str());
  }
  std::string o = "{";
  for (std::size_t k = 0; k < pcs_.size(); ++k)
    if (!lines[k].empty()) o += fmt::format("{}\"{}\":{}", o.size() > 1 ? "," : "", pcs_[k], json_str(lines[k]));
  return o + "}";
}

std::string ExploreTrace::data_json(uint64_t end_cycle) {
  for (unsigned k = 0; k < pes_; ++k) thread_end(k, end_cycle);
  // Packets still under way at the end keep what they did so far.
  std::vector<uint64_t> flying;
  for (const auto& [seq, k] : in_flight_) flying.push_back(seq);
  std::sort(flying.begin(), flying.end());
  for (const uint64_t s : flying) retire(s);
  std::stable_sort(packets_.begin(), packets_.end(), [](const Pkt& a, const Pkt& b) {
    return std::min(a.sent, a.arrive) < std::min(b.sent, b.arrive);
  });
  std::unordered_map<uint64_t, int64_t> index;
  for (std::size_t k = 0; k < packets_.size(); ++k) index[packets_[k].seq] = int64_t(k);
  auto packet_index = [&](uint64_t seq) -> int64_t {
    const auto it = index.find(seq);
    return it == index.end() ? -1 : it->second;
  };
  std::stable_sort(threads_.begin(), threads_.end(),
                   [](const Thread& a, const Thread& b) { return a.start < b.start; });
  const std::string lines = source_lines_json();

  std::string o;
  o.reserve(64 * (packets_.size() + threads_.size()) + 4096);
  auto num = [](uint64_t v) -> int64_t { return v == kNone ? -1 : int64_t(v); };
  o += fmt::format(R"({{"version":1,"program":{},"args":[)", json_str(run_.program));
  for (std::size_t k = 0; k < run_.args.size(); ++k) o += (k ? "," : "") + json_str(run_.args[k]);
  o += fmt::format(R"(],"config":{},"pes":{},"mhz":{},"end":{},"link_clocks":{},"topology":{},)",
                   json_str(run_.config), pes_, mhz_, end_cycle, link_clocks_, topology_json_);
  o += fmt::format(R"("window":[{},{}],"traced_pes":)", filter_.from, num(filter_.to));
  if (filter_.pes.empty()) {
    o += "null";
  } else {
    std::vector<unsigned> chosen;
    for (unsigned k = 0; k < pes_; ++k)
      if (filter_.pe(k)) chosen.push_back(k);
    array(o, chosen);
  }
  o += fmt::format(R"(,"left_out":{{"packets":{},"threads":{}}},"types":[)", left_out_packets_,
                   left_out_threads_);
  for (unsigned t = 0; t < 64; ++t) {
    const char* n = isa::packet_type_name(static_cast<isa::PacketType>(t));
    if (t && std::string(n) == "?") break;
    o += fmt::format("{}\"{}\"", t ? "," : "", n);
  }
  o += "],\"strings\":[";
  for (std::size_t k = 0; k < strings_.size(); ++k) o += (k ? "," : "") + json_str(strings_[k]);
  o += "],\"lines\":" + lines;

  // Tables as flat arrays of numbers, a fixed number per record (the page's loader knows).
  std::vector<int64_t> v;
  v.reserve(14 * packets_.size());
  std::vector<int64_t> hops;
  for (const Pkt& k : packets_) {
    const int64_t first = int64_t(hops.size() / 3);
    for (const Hop& h : k.hops) {
      hops.push_back(h.output);
      hops.push_back(int64_t(h.start));
      hops.push_back(int64_t(h.end));
    }
    v.insert(v.end(), {k.seq == 0 || k.seq < kNone - packets_.size() ? int64_t(k.seq) : -1,
                       k.type, k.src, k.dst, k.addr, k.data, num(k.sent), k.where, k.src_pc,
                       num(k.arrive), int64_t(k.mu_start), int64_t(k.mu_done), k.effect, first,
                       int64_t(k.hops.size())});
  }
  o += ",\"packet_fields\":15,\"packets\":";
  array(o, v);
  o += ",\"hops\":";
  array(o, hops);
  v.clear();
  for (const Thread& t : threads_)
    v.insert(v.end(), {t.pe, int64_t(t.start), int64_t(t.end), t.name, t.entry, t.line_pc, t.a0,
                       t.a1, t.cont, t.kind, t.src});
  o += ",\"thread_fields\":11,\"threads\":";
  array(o, v);
  v.clear();
  std::stable_sort(cells_.begin(), cells_.end(),
                   [](const CellEvent& a, const CellEvent& b) { return a.cycle < b.cycle; });
  for (const CellEvent& c : cells_)
    v.insert(v.end(), {c.pe, int64_t(c.cycle), c.addr, static_cast<int64_t>(c.what), packet_index(c.seq)});
  o += ",\"cell_fields\":5,\"cells\":";
  array(o, v);
  v.clear();
  // Per PE in the order they happened (pushes and pops are each in clock order per PE).
  for (const BufferEvent& b : buffer_)
    v.insert(v.end(), {b.pe, int64_t(b.cycle), b.seq == kNone ? 0 : b.spilled ? 2 : 1,
                       b.seq == kNone ? -1 : packet_index(b.seq)});
  o += ",\"buffer_fields\":4,\"buffer\":";
  array(o, v);
  return o + "}";
}

void ExploreTrace::finish(uint64_t end_cycle) {
  const std::string data = data_json(end_cycle);
  const std::string page = kExplorerPage;
  const std::string mark = "/*EMX_DATA*/null";
  const auto at = page.find(mark);
  std::ofstream out(path_, std::ios::trunc);
  if (!out || at == std::string::npos) throw std::runtime_error("cannot write the explorer page " + path_);
  out << page.substr(0, at) << data << page.substr(at + mark.size());
  out.close();
  if (!out) write_error_ = "--explore " + path_ + ": cannot write it: " + std::strerror(errno);
  // A page is read whole by the browser: say when it is big (bench/explorer.py: 1.6e5
  // events, 4.8 MB, load in about 2 s).
  std::size_t events = 0;
  for (const Pkt& k : packets_) events += 2 + k.hops.size();
  if (events > 2'000'000)
    std::fprintf(stderr, "emx: the explorer page %s holds %zu packet events (%.0f MB): a browser "
                 "may take long to open it; --trace-window and --trace-pes record less\n",
                 path_.c_str(), events, static_cast<double>(data.size()) / 1e6);
}

}  // namespace emx::trace
