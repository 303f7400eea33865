#include "symbols.h"

#include <fmt/format.h>

#include <algorithm>

namespace emx::loader {

void SymbolTable::finish() {
  std::stable_sort(syms_.begin(), syms_.end(),
                   [](const Symbol& a, const Symbol& b) { return a.addr < b.addr; });
}

const SymbolTable::Symbol* SymbolTable::find(uint32_t addr) const {
  auto it = std::upper_bound(syms_.begin(), syms_.end(), addr,
                             [](uint32_t a, const Symbol& s) { return a < s.addr; });
  // Walk back over symbols starting at or before addr; take the nearest that covers it
  // (zero-sized symbols, e.g. assembly labels, cover up to the next symbol).
  while (it != syms_.begin()) {
    --it;
    const bool covers = it->size ? addr < it->addr + it->size
                                 : (std::next(it) == syms_.end() || addr < std::next(it)->addr);
    if (covers) return &*it;
    if (it->size) break;
  }
  return nullptr;
}

std::string SymbolTable::describe(uint32_t addr) const {
  const Symbol* s = find(addr);
  if (!s) return "";
  return addr == s->addr ? s->name : fmt::format("{}+0x{:x}", s->name, addr - s->addr);
}

uint32_t SymbolTable::address_of(const std::string& name) const {
  for (const Symbol& s : syms_)
    if (s.name == name) return s.addr;
  return 0;
}

}  // namespace emx::loader
