// fuzz_inputs TARGET [--seed S] [--cases N | --scale X] [--corpus DIR] [--source DIR]
//             [--elf FILE]... [--findings DIR]
// TARGET: config, elf, iss, or write-elf SEED PATH (a random-code ELF for fuzz_machine.py).
// Exit status 0 when there was no finding, 1 when there was, 2 for a usage error.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "fuzz.h"

namespace emx::fuzz {

void finding(Report& r, const Options& o, const std::string& target, uint64_t seed,
             const std::string& what, const std::string& input, const std::string& suffix) {
  ++r.findings;
  std::filesystem::create_directories(o.findings);
  const std::string path = o.findings + "/" + target + "-" + std::to_string(seed) + suffix;
  std::ofstream(path, std::ios::binary) << input;
  std::cerr << "fuzz " << target << ": FINDING with seed " << seed << ": " << what
            << "\n  input saved as " << path << "\n";
}

}  // namespace emx::fuzz

int main(int argc, char** argv) {
  using namespace emx::fuzz;
  if (argc < 2) {
    std::cerr << "usage: fuzz_inputs config|elf|iss [--seed S] [--cases N] [--scale X] "
                 "[--corpus DIR] [--source DIR] [--elf FILE] [--findings DIR]\n"
                 "       fuzz_inputs write-elf SEED PATH\n";
    return 2;
  }
  const std::string target = argv[1];
  if (target == "write-elf" && argc == 4) {
    Rng rng(std::strtoull(argv[2], nullptr, 10));
    const auto code = random_code(rng, 16 + pick(rng, 240));
    const auto elf = make_elf(code, 0x4000);
    std::ofstream(argv[3], std::ios::binary)
        .write(reinterpret_cast<const char*>(elf.data()), static_cast<std::streamsize>(elf.size()));
    return 0;
  }
  Options o;
  for (int k = 2; k + 1 < argc; k += 2) {
    const std::string a = argv[k], v = argv[k + 1];
    if (a == "--seed") o.seed = std::strtoull(v.c_str(), nullptr, 10);
    else if (a == "--cases") o.cases = std::strtoull(v.c_str(), nullptr, 10);
    else if (a == "--scale") o.scale = std::strtod(v.c_str(), nullptr);
    else if (a == "--corpus") o.corpus = v;
    else if (a == "--source") o.source = v;
    else if (a == "--elf") o.elves.push_back(v);
    else if (a == "--findings") o.findings = v;
    else {
      std::cerr << "fuzz_inputs: unknown option " << a << "\n";
      return 2;
    }
  }
  // scripts/test --fuzz-scale X and --sanitize scale every harness's cases.
  if (const char* scale = std::getenv("EMX_FUZZ_SCALE")) o.scale *= std::strtod(scale, nullptr);
  Report r;
  if (target == "config") r = fuzz_config(o);
  else if (target == "elf") r = fuzz_elf(o);
  else if (target == "iss") r = fuzz_iss(o);
  else {
    std::cerr << "fuzz_inputs: unknown target " << target << "\n";
    return 2;
  }
  std::cout << "fuzz " << target << ": " << r.cases << " cases from seed " << o.seed << ": "
            << r.accepted << " accepted, " << r.rejected << " clean errors, " << r.findings
            << " findings\n";
  return r.findings ? 1 : 0;
}
