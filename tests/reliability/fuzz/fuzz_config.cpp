// The config reader: JSON text (mutated committed configs) and --set assignments, through
// parsing, overrides and validation. Accepted: a MachineConfig that writes back to JSON
// and reads again to the same values. Rejected: config::ConfigError. Anything else is a
// finding.
#include <filesystem>
#include <fstream>
#include <iterator>

#include "fuzz.h"
#include "sim/machine/config_file.h"

namespace emx::fuzz {
namespace {

const char* const kNumbers[] = {"0", "-1", "1", "2", "3", "1e400", "-1e400", "1e-400", "0.5",
                                "-0", "4096", "65536", "4294967296", "18446744073709551615",
                                "18446744073709551616", "-9223372036854775809", "1024",
                                "1025", "255", "256", "16777216", "true", "null", "\"\"",
                                "[]", "{}", "\"auto\"", "\"ring\"", "\"torus2d\""};

std::string deep(Rng& rng) {
  static const unsigned kDepths[] = {2, 10, 63, 64, 65, 1000, 100000};
  const unsigned d = kDepths[pick(rng, std::size(kDepths))];
  const bool arrays = rng() & 1;
  std::string s;
  for (unsigned k = 0; k < d; ++k) s += arrays ? "[" : "{\"a\":";
  s += "1";
  for (unsigned k = 0; k < d; ++k) s += arrays ? "]" : "}";
  return s;
}

std::string random_value(Rng& rng) {
  switch (pick(rng, 5)) {
    case 0: return kNumbers[pick(rng, std::size(kNumbers))];
    case 1: return deep(rng);
    case 2: return std::string(1 + pick(rng, 3) * pick(rng, 30000), 'x');  // a bare word
    case 3: return std::to_string(static_cast<int64_t>(rng()) >> pick(rng, 64));
    default: return "\"" + std::string(pick(rng, 100), 'q') + "\"";
  }
}

std::vector<std::string> known_keys() {
  machine::MachineConfig c;
  config::Documenter d;
  c.visit(d);
  std::vector<std::string> keys;
  for (const auto& r : d.rows) keys.push_back(r.key);
  return keys;
}

std::string mutate_text(Rng& rng, std::string s) {
  const unsigned n = 1 + static_cast<unsigned>(pick(rng, 4));
  for (unsigned k = 0; k < n && !s.empty(); ++k) {
    const std::size_t at = pick(rng, s.size());
    switch (pick(rng, 5)) {
      case 0: s[at] = static_cast<char>(rng()); break;
      case 1: s.erase(at, 1 + pick(rng, 8)); break;
      case 2: s.insert(at, random_value(rng)); break;
      case 3: {  // replace a number
        const std::size_t d = s.find_first_of("0123456789", at);
        if (d != std::string::npos) {
          const std::size_t e = s.find_first_not_of("0123456789.e-", d);
          s.replace(d, e == std::string::npos ? std::string::npos : e - d,
                    kNumbers[pick(rng, std::size(kNumbers))]);
        }
        break;
      }
      default: s.insert(at, s.substr(pick(rng, s.size()), pick(rng, 40))); break;
    }
  }
  return s;
}

std::string random_assignment(Rng& rng, const std::vector<std::string>& keys) {
  std::string key = keys[pick(rng, keys.size())];
  switch (pick(rng, 6)) {
    case 0: key += ".x"; break;
    case 1: key = "." + key; break;
    case 2: key += std::string(pick(rng, 3), '.'); break;
    default: break;
  }
  if (pick(rng, 20) == 0) return key;  // no '='
  return key + "=" + random_value(rng);
}

}  // namespace

Report fuzz_config(const Options& o) {
  Report r;
  const auto keys = known_keys();
  std::vector<std::string> bases = {"{}"};
  if (!o.source.empty())
    for (const auto& e : std::filesystem::directory_iterator(o.source + "/configs"))
      if (e.path().extension() == ".json") {
        std::ifstream in(e.path());
        bases.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      }
  // The corpus first: *.json as config text, *.set as one assignment.
  std::vector<std::pair<std::string, bool>> corpus;  // text, is an assignment
  if (!o.corpus.empty())
    for (const auto& e : std::filesystem::directory_iterator(o.corpus)) {
      const auto ext = e.path().extension();
      if (ext != ".json" && ext != ".set") continue;
      std::ifstream in(e.path());
      corpus.emplace_back(std::string(std::istreambuf_iterator<char>(in), {}), ext == ".set");
    }
  const uint64_t cases = o.cases ? o.cases : static_cast<uint64_t>(40000 * o.scale);
  for (uint64_t k = 0; k < corpus.size() + cases; ++k) {
    const uint64_t seed = o.seed + k;
    Rng rng(seed);
    std::string text;
    std::vector<std::string> sets;
    if (k < corpus.size()) {
      (corpus[k].second ? sets.emplace_back() : text) = corpus[k].first;
      if (corpus[k].second) text = "{}";
    } else {
      text = bases[pick(rng, bases.size())];
      if (rng() & 1) text = mutate_text(rng, text);
      for (uint64_t n = pick(rng, 4); n > 0; --n) sets.push_back(random_assignment(rng, keys));
    }
    ++r.cases;
    std::string input = text;
    for (const auto& s : sets) input += "\n--set " + s;
    try {
      nlohmann::json j = machine::parse_config_text(text, "fuzz.json");
      for (const auto& s : sets) machine::apply_override(j, s);
      const machine::MachineConfig c = machine::parse_config(j);
      const nlohmann::json back = machine::to_json(c);
      if (machine::to_json(machine::parse_config(back)) != back)
        finding(r, o, "config", seed, "the effective config does not read back the same", input,
                ".txt");
      ++r.accepted;
    } catch (const config::ConfigError&) {
      ++r.rejected;
    } catch (const std::exception& e) {
      finding(r, o, "config", seed, std::string("not a config error: ") + e.what(), input, ".txt");
    }
  }
  return r;
}

}  // namespace emx::fuzz
