// ELF32 parsing with our own structs (the layout is fixed by the ELF spec), so the
// error for every kind of bad input can say exactly what is wrong.
#include "elf_image.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "sim/host/bounded_read.h"
#include "sim/mem/local_memory.h"

namespace emx::loader {

std::size_t max_program_bytes(uint32_t memory_bytes) {
  return std::max<std::size_t>(std::size_t{16} << 20, std::size_t{4} * memory_bytes);
}
namespace {

constexpr uint16_t kEmRiscv = 243;
constexpr uint16_t kEtExec = 2;
constexpr uint32_t kPtLoad = 1;
constexpr uint32_t kPfX = 1, kPfW = 2;
constexpr uint32_t kShtSymtab = 2;
constexpr uint32_t kEfRvc = 0x1, kEfFloatAbiMask = 0x6, kEfFloatAbiSingle = 0x2;

#pragma pack(push, 1)
struct Ehdr {
  unsigned char ident[16];
  uint16_t type, machine;
  uint32_t version, entry, phoff, shoff, flags;
  uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct Phdr {
  uint32_t type, offset, vaddr, paddr, filesz, memsz, flags, align;
};
struct Shdr {
  uint32_t name, type, flags, addr, offset, size, link, info, addralign, entsize;
};
struct Sym {
  uint32_t name, value, size;
  unsigned char info, other;
  uint16_t shndx;
};
#pragma pack(pop)

const char* float_abi_name(uint32_t flags) {
  switch (flags & kEfFloatAbiMask) {
    case 0x0: return "soft-float (ilp32)";
    case 0x2: return "single-float (ilp32f)";
    case 0x4: return "double-float (ilp32d)";
    default: return "quad-float";
  }
}

}  // namespace

ElfImage ElfImage::load(const std::string& path, uint32_t memory_bytes) {
  ElfImage img;
  img.path_ = path;
  auto fail = [&](const std::string& what) -> ElfError {
    return ElfError(fmt::format("{}: {}", path, what));
  };
  host::BoundedRead file = host::read_bounded(path, max_program_bytes(memory_bytes), "program file");
  if (!file.error.empty()) throw fail(file.error);
  img.file_ = std::move(file.data);
  const auto& f = img.file_;

  auto read = [&](auto& out, std::size_t off, const char* what) {
    if (off > f.size() || f.size() - off < sizeof(out))
      throw fail(fmt::format("truncated ELF file: the {} at offset {} runs past the end", what, off));
    std::memcpy(&out, f.data() + off, sizeof(out));
  };

  Ehdr eh;
  if (f.size() < 4 || std::memcmp(f.data(), "\x7f" "ELF", 4) != 0)
    throw fail("not an ELF file (build programs with riscv64-unknown-elf-gcc, see docs/runtime.md)");
  read(eh, 0, "ELF header");
  if (eh.ident[4] != 1)
    throw fail("a 64-bit ELF: the EMC-Y model runs RV32; compile with -march=rv32imf -mabi=ilp32f");
  if (eh.ident[5] != 1) throw fail("a big-endian ELF: RISC-V programs are little-endian");
  if (eh.machine != kEmRiscv)
    throw fail(fmt::format("built for machine {} , not RISC-V (243)", eh.machine));
  if (eh.type != kEtExec) throw fail("not an executable (ET_EXEC): link the program, do not pass an object file");
  if (eh.flags & kEfRvc)
    throw fail("uses compressed (C) instructions, which EMC-Y does not have: compile with -march=rv32imf");
  if ((eh.flags & kEfFloatAbiMask) != kEfFloatAbiSingle)
    throw fail(fmt::format("float ABI is {}, the model needs single-float: compile with -mabi=ilp32f",
                           float_abi_name(eh.flags)));
  if (eh.phentsize != sizeof(Phdr)) throw fail("program headers have an unexpected size");

  const uint32_t lo = mem::kGuardBytes;
  int exec_segments = 0;
  for (unsigned k = 0; k < eh.phnum; ++k) {
    Phdr ph;
    read(ph, eh.phoff + std::size_t(k) * sizeof(Phdr), "program header");
    if (ph.type != kPtLoad || ph.memsz == 0) continue;
    Segment s{ph.vaddr, ph.filesz, ph.memsz, (ph.flags & kPfX) != 0, (ph.flags & kPfW) != 0,
              ph.offset};
    if (s.filesz > s.memsz) throw fail(fmt::format("segment {} has filesz > memsz", k));
    if (s.offset > f.size() || f.size() - s.offset < s.filesz)
      throw fail(fmt::format("segment {} runs past the end of the file", k));
    if (s.vaddr >= lo && s.vaddr <= memory_bytes && memory_bytes - s.vaddr < s.memsz) {
      // Linked right, but too large for this machine's memory: say what it needs.
      const uint64_t end = uint64_t(s.vaddr) + s.memsz, mib = 1u << 20;
      throw fail(fmt::format(
          "segment {} (code or static data) ends at 0x{:x}, beyond a PE's local memory of {} "
          "bytes: the program needs at least {} bytes per PE, more for its stack and heap; "
          "give the PEs more memory, e.g. --set pe.memory_bytes={}",
          k, end, memory_bytes, end, (end + mib - 1) / mib * mib + mib));
    }
    if (s.vaddr < lo || s.vaddr > memory_bytes || memory_bytes - s.vaddr < s.memsz)
      throw fail(fmt::format(
          "segment {} [0x{:x}, 0x{:x}) lies outside local memory [0x{:x}, 0x{:x}): link with "
          "runtime/link/emx.ld, or give the PEs more memory (pe.memory_bytes)",
          k, s.vaddr, uint64_t(s.vaddr) + s.memsz, lo, memory_bytes));
    if (s.exec && s.write)
      throw fail(fmt::format("segment {} is both writable and executable; code must be read-only "
                             "(link with runtime/link/emx.ld)", k));
    if (s.exec) {
      if (++exec_segments > 1) throw fail("more than one executable segment");
      img.code_base_ = s.vaddr;
      img.code_bytes_ = s.memsz;
    }
    img.end_ = std::max(img.end_, s.vaddr + s.memsz);
    img.segments_.push_back(s);
  }
  if (img.segments_.empty()) throw fail("no loadable segment");
  if (exec_segments == 0) throw fail("no executable segment");
  if ((img.code_base_ & 3) || eh.entry < img.code_base_ ||
      eh.entry - img.code_base_ >= img.code_bytes_ || (eh.entry & 3))
    throw fail(fmt::format("entry point 0x{:x} is not an aligned address inside the code segment "
                           "[0x{:x}, 0x{:x})", eh.entry, img.code_base_,
                           img.code_base_ + img.code_bytes_));
  img.entry_ = eh.entry;

  // Symbols are optional (a stripped program still runs; reports just lack names).
  if (eh.shoff && eh.shentsize == sizeof(Shdr)) {
    for (unsigned k = 0; k < eh.shnum; ++k) {
      Shdr sh;
      read(sh, eh.shoff + std::size_t(k) * sizeof(Shdr), "section header");
      if (sh.type != kShtSymtab || sh.entsize != sizeof(Sym)) continue;
      // Every offset and length from the file is bounded before use.
      if (sh.link >= eh.shnum)
        throw fail(fmt::format("section {} (symbols) names string table section {}, but there "
                               "are {} sections", k, sh.link, eh.shnum));
      if (sh.offset > f.size() || f.size() - sh.offset < sh.size)
        throw fail(fmt::format("section {} (symbols) [0x{:x}, +0x{:x}) lies outside the file",
                               k, sh.offset, sh.size));
      Shdr strtab;
      read(strtab, eh.shoff + std::size_t(sh.link) * sizeof(Shdr), "string table header");
      if (strtab.offset > f.size() || f.size() - strtab.offset < strtab.size)
        throw fail(fmt::format("section {} (the string table of the symbols) [0x{:x}, +0x{:x}) "
                               "lies outside the file ({} bytes)", sh.link, strtab.offset,
                               strtab.size, f.size()));
      const char* strings = reinterpret_cast<const char*>(f.data() + strtab.offset);
      for (uint32_t n = 1; n < sh.size / sizeof(Sym); ++n) {
        Sym sym;
        read(sym, sh.offset + std::size_t(n) * sizeof(Sym), "symbol");
        const unsigned type = sym.info & 0xf;  // 1 object, 2 func, 0 notype
        if (type > 2 || sym.shndx == 0 || sym.name >= strtab.size) continue;
        const char* name = strings + sym.name;
        const auto* end = static_cast<const char*>(std::memchr(name, 0, strtab.size - sym.name));
        if (!end)
          throw fail(fmt::format("symbol {}: its name (at 0x{:x} in section {}) runs past its "
                                 "string table", n, sym.name, sh.link));
        if (!*name || name[0] == '$' || name[0] == '.') continue;
        img.symbols_.add({sym.value, sym.size, std::string(name, end), type == 2});
      }
    }
    img.symbols_.finish();
  }
  return img;
}

void ElfImage::copy_into(uint8_t* dest, Span in_place) const {
  auto copy = [&](const Segment& s, uint32_t from, uint32_t to) {  // addresses in s
    if (from < to) std::memcpy(dest + from, file_.data() + s.offset + (from - s.vaddr), to - from);
  };
  for (const Segment& s : segments_) {
    const uint32_t end = s.vaddr + s.filesz;  // inside local memory: checked by load
    copy(s, s.vaddr, std::min(end, std::max(s.vaddr, in_place.from)));
    copy(s, std::max(s.vaddr, std::min(end, in_place.to)), end);
  }
}

}  // namespace emx::loader
