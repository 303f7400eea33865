#include "profile_report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

#include "isa/isa.h"

namespace emx::cli {
namespace {

struct Row {
  std::string name;
  uint64_t count = 0, cycles = 0;
  uint64_t entries = 0;  // executions of the function's first instruction: its calls
};

struct Summary {
  uint64_t count = 0, cycles = 0;
  std::vector<Row> functions;  // by clocks, most first
  struct Hot {
    uint32_t pc;
    uint64_t count, cycles;
  };
  std::vector<Hot> hot;  // by clocks, most first
};

Summary summarise(const ProfileInput& in) {
  if (in.harts.empty()) throw std::logic_error("profile of no PE");
  const iss::Hart& first = *in.harts.front();
  const std::size_t words = first.profile().count.size();
  std::vector<uint64_t> count(words, 0), cycles(words, 0);
  for (const iss::Hart* h : in.harts) {
    if (h->profile().count.size() != words) throw std::logic_error("profile not enabled");
    for (std::size_t k = 0; k < words; ++k) {
      count[k] += h->profile().count[k];
      cycles[k] += h->profile().cycles[k];
    }
  }
  Summary s;
  std::map<std::string, Row> by_name;
  for (std::size_t k = 0; k < words; ++k) {
    if (!count[k]) continue;
    const uint32_t pc = first.code_base() + static_cast<uint32_t>(4 * k);
    const loader::SymbolTable::Symbol* sym = in.symbols ? in.symbols->find(pc) : nullptr;
    Row& r = by_name[sym ? sym->name : "(no symbol)"];
    r.count += count[k];
    r.cycles += cycles[k];
    if (sym && sym->addr == pc) r.entries += count[k];
    s.count += count[k];
    s.cycles += cycles[k];
    s.hot.push_back({pc, count[k], cycles[k]});
  }
  for (auto& [name, r] : by_name) {
    r.name = name;
    s.functions.push_back(r);
  }
  auto by_cycles = [](const auto& a, const auto& b) { return a.cycles > b.cycles; };
  std::stable_sort(s.functions.begin(), s.functions.end(), by_cycles);
  std::stable_sort(s.hot.begin(), s.hot.end(), by_cycles);
  if (s.hot.size() > in.top_instructions) s.hot.resize(in.top_instructions);
  return s;
}

double percent(uint64_t part, uint64_t whole) { return whole ? 100.0 * part / whole : 0.0; }

}  // namespace

void write_profile_text(const ProfileInput& in, std::ostream& out) {
  const Summary s = summarise(in);
  const iss::Hart& h = *in.harts.front();
  out << fmt::format(
      "emx profile: {} PE{}, {} instructions, {} clocks in instructions\n"
      "(an instruction's clocks: its timing class, memory penalty, taken branch and send\n"
      "stalls; thread dispatch and idle time are not counted here: see the PE statistics)\n\n",
      in.harts.size(), in.harts.size() == 1 ? "" : "s", s.count, s.cycles);
  out << fmt::format("{:>12} {:>6} {:>12} {:>7} {:>10} {:>9}  {}\n", "clocks", "%", "instructions",
                     "clk/ins", "calls", "clk/call", "function");
  for (const Row& r : s.functions)
    out << fmt::format("{:>12} {:>6.2f} {:>12} {:>7.2f} {:>10} {:>9}  {}\n", r.cycles,
                       percent(r.cycles, s.cycles), r.count, r.count ? double(r.cycles) / r.count : 0.0,
                       r.entries, r.entries ? fmt::format("{:.1f}", double(r.cycles) / r.entries) : "-",
                       r.name);
  out << fmt::format("\nhottest instructions:\n{:>12} {:>12} {:>10}  {:<28} {}\n", "clocks", "count",
                     "pc", "where", "instruction");
  for (const auto& x : s.hot)
    out << fmt::format("{:>12} {:>12} {:>#10x}  {:<28} {}\n", x.cycles, x.count, x.pc,
                       in.symbols ? in.symbols->describe(x.pc) : "",
                       isa::disassemble(h.insn_word(x.pc), x.pc));
}

void write_profile_json(const ProfileInput& in, std::ostream& out) {
  const Summary s = summarise(in);
  const iss::Hart& h = *in.harts.front();
  nlohmann::json j;
  j["pes"] = in.harts.size();
  j["instructions"] = s.count;
  j["clocks"] = s.cycles;
  j["functions"] = nlohmann::json::array();
  for (const Row& r : s.functions)
    j["functions"].push_back(
        {{"name", r.name}, {"instructions", r.count}, {"clocks", r.cycles}, {"calls", r.entries}});
  j["hot"] = nlohmann::json::array();
  for (const auto& x : s.hot)
    j["hot"].push_back({{"pc", x.pc},
                        {"where", in.symbols ? in.symbols->describe(x.pc) : ""},
                        {"disasm", isa::disassemble(h.insn_word(x.pc), x.pc)},
                        {"count", x.count},
                        {"clocks", x.cycles}});
  out << j.dump(1) << "\n";
}

}  // namespace emx::cli
