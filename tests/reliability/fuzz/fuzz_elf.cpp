// The ELF loader and the program's layout in memory: mutated ELF files (the given ones
// and random-code ones), loaded for memories of several sizes and laid out with program
// arguments of several lengths, then run for a few thousand clocks when they load.
// Rejected: loader::ElfError, or the arguments' std::runtime_error. Anything else, or an
// accepted image whose segments leave local memory, is a finding.
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "fuzz.h"
#include "sim/host/host.h"
#include "sim/iss/hart.h"
#include "sim/loader/elf_image.h"

namespace emx::fuzz {
namespace {

const uint32_t kInteresting[] = {0, 1, 2, 0x34, 0x1000, 0x7fffffff, 0x80000000, 0xffffffff,
                                 0xfffffff0, 0x10000, 0x400000, 0x3c0000, 40, 32, 52};

std::vector<uint8_t> mutate(Rng& rng, std::vector<uint8_t> f) {
  const unsigned n = 1 + static_cast<unsigned>(pick(rng, 4));
  for (unsigned k = 0; k < n && !f.empty(); ++k) {
    // The headers most of the time: that is where the offsets and sizes are.
    const std::size_t span = pick(rng, 4) ? std::min<std::size_t>(f.size(), 52 + 3 * 32) : f.size();
    std::size_t at = pick(rng, span);
    switch (pick(rng, 6)) {
      case 0: f[at] = static_cast<uint8_t>(rng()); break;
      case 1: f[at] ^= static_cast<uint8_t>(1u << pick(rng, 8)); break;
      case 2: {  // a 32-bit field set to an interesting value
        at &= ~std::size_t{3};
        if (at + 4 <= f.size()) {
          const uint32_t v = kInteresting[pick(rng, std::size(kInteresting))];
          std::memcpy(f.data() + at, &v, 4);
        }
        break;
      }
      case 3: f.resize(pick(rng, f.size() + 1)); break;  // truncated
      case 4: {  // the section headers' fields, where there are some
        uint32_t shoff = 0;
        if (f.size() >= 52) std::memcpy(&shoff, f.data() + 32, 4);
        if (shoff && shoff < f.size()) {
          at = shoff + pick(rng, f.size() - shoff) / 4 * 4;
          const uint32_t v = kInteresting[pick(rng, std::size(kInteresting))] +
                             static_cast<uint32_t>(pick(rng, 3)) - 1;
          if (at + 4 <= f.size()) std::memcpy(f.data() + at, &v, 4);
        }
        break;
      }
      default: f.insert(f.end(), pick(rng, 64), static_cast<uint8_t>(rng())); break;
    }
  }
  return f;
}

struct StopAtEnd : iss::HartEnv {
  void send(iss::Hart&, isa::PacketType, uint32_t, uint32_t) override {}
  void end_thread(iss::Hart& h) override { h.request_stop(); }
};

}  // namespace

Report fuzz_elf(const Options& o) {
  Report r;
  std::vector<std::vector<uint8_t>> bases;
  for (const auto& path : o.elves) {
    std::ifstream in(path, std::ios::binary);
    bases.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::vector<std::vector<uint8_t>> corpus;
  if (!o.corpus.empty())
    for (const auto& e : std::filesystem::directory_iterator(o.corpus))
      if (e.path().extension() == ".elf") {
        std::ifstream in(e.path(), std::ios::binary);
        corpus.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      }
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("emx-fuzz-" + std::to_string(getpid()) + ".elf")).string();
  const uint64_t cases = o.cases ? o.cases : static_cast<uint64_t>(10000 * o.scale);
  for (uint64_t k = 0; k < corpus.size() + cases; ++k) {
    const uint64_t seed = o.seed + k;
    Rng rng(seed);
    std::vector<uint8_t> file;
    if (k < corpus.size()) {
      file = corpus[k];
    } else if (bases.empty() || pick(rng, 3) == 0) {
      file = mutate(rng, make_elf(random_code(rng, 4 + pick(rng, 60)), 0x1000 * pick(rng, 4)));
    } else {
      file = mutate(rng, bases[pick(rng, bases.size())]);
    }
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
    ++r.cases;
    const std::string input(file.begin(), file.end());
    const uint32_t memory_bytes = pick(rng, 2) ? 64u << 10 : 4u << 20;
    const uint32_t reserved = pick(rng, 2) ? 0 : std::min<uint32_t>(256u << 10, memory_bytes / 2);
    std::vector<std::string> args{"prog"};
    for (uint64_t n = pick(rng, 4); n > 0; --n)
      args.emplace_back(pick(rng, 8) ? pick(rng, 100) : 40000 + pick(rng, 40000), 'a');
    try {
      const loader::ElfImage img = loader::ElfImage::load(path, memory_bytes);
      for (const auto& s : img.segments())
        if (s.vaddr < mem::kGuardBytes || uint64_t(s.vaddr) + s.memsz > memory_bytes)
          finding(r, o, "elf", seed, "an accepted segment lies outside local memory", input, ".elf");
      mem::LocalMemory memory(memory_bytes);
      const auto start = host::Host::load(img, args, memory, memory_bytes - reserved);
      (void)img.symbols().describe(img.entry());
      iss::TimingConfig timing;
      iss::Hart h(memory, timing);
      StopAtEnd env;
      h.set_env(&env);
      h.set_code(img.code_base(), img.code_bytes());
      h.pc = img.entry();
      h.x[2] = start.sp;
      h.run(3000);
      ++r.accepted;
    } catch (const loader::ElfError&) {
      ++r.rejected;
    } catch (const std::runtime_error& e) {
      if (std::strstr(e.what(), "the program arguments") != e.what())
        finding(r, o, "elf", seed, std::string("unexpected error: ") + e.what(), input, ".elf");
      ++r.rejected;
    } catch (const std::exception& e) {
      finding(r, o, "elf", seed, std::string("unexpected exception: ") + e.what(), input, ".elf");
    }
  }
  std::filesystem::remove(path);
  return r;
}

}  // namespace emx::fuzz
