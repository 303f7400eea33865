// Function and object symbols of a program, for fault reports and traces.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace emx::loader {

class SymbolTable {
 public:
  struct Symbol {
    uint32_t addr, size;
    std::string name;
    bool func;
  };
  void add(Symbol s) { syms_.push_back(std::move(s)); }
  void finish();  // sorts; call once after the last add

  // The symbol containing addr, or nullptr.
  const Symbol* find(uint32_t addr) const;
  // "name+0x1c", or "" when no symbol covers addr.
  std::string describe(uint32_t addr) const;
  // Address of a symbol by name, or 0.
  uint32_t address_of(const std::string& name) const;
  std::size_t size() const { return syms_.size(); }

 private:
  std::vector<Symbol> syms_;
};

}  // namespace emx::loader
