// A minimal executable ELF for fuzzing: ELF header, two program headers (code r-x at
// 0x1000, data rw- after it), no sections. Little-endian RV32, single-float ABI.
#include <cstring>

#include "fuzz.h"

namespace emx::fuzz {
namespace {
template <class T>
void put(std::vector<uint8_t>& v, std::size_t at, T x) {
  if (v.size() < at + sizeof x) v.resize(at + sizeof x);
  std::memcpy(v.data() + at, &x, sizeof x);
}
}  // namespace

std::vector<uint8_t> make_elf(const std::vector<uint32_t>& code, uint32_t data_bytes) {
  constexpr uint32_t kBase = 0x1000, kHeaders = 52 + 2 * 32;
  const uint32_t code_bytes = static_cast<uint32_t>(code.size() * 4);
  const uint32_t data_at = (kBase + code_bytes + 0xfff) & ~0xfffu;
  std::vector<uint8_t> f(kHeaders);
  const uint8_t ident[16] = {0x7f, 'E', 'L', 'F', 1, 1, 1};
  std::memcpy(f.data(), ident, 16);
  put<uint16_t>(f, 16, 2);    // ET_EXEC
  put<uint16_t>(f, 18, 243);  // EM_RISCV
  put<uint32_t>(f, 20, 1);
  put<uint32_t>(f, 24, kBase);  // entry
  put<uint32_t>(f, 28, 52);     // phoff
  put<uint32_t>(f, 32, 0);      // shoff
  put<uint32_t>(f, 36, 0x2);    // EF_RISCV_FLOAT_ABI_SINGLE
  put<uint16_t>(f, 40, 52);
  put<uint16_t>(f, 42, 32);
  put<uint16_t>(f, 44, 2);
  put<uint16_t>(f, 46, 40);
  const uint32_t ph[2][8] = {
      {1, kHeaders, kBase, kBase, code_bytes, code_bytes, 5, 4},
      {1, kHeaders + code_bytes, data_at, data_at, 0, data_bytes, 6, 4}};
  for (unsigned k = 0; k < 2; ++k)
    for (unsigned w = 0; w < 8; ++w) put<uint32_t>(f, 52 + 32 * k + 4 * w, ph[k][w]);
  for (std::size_t k = 0; k < code.size(); ++k) put<uint32_t>(f, kHeaders + 4 * k, code[k]);
  return f;
}

}  // namespace emx::fuzz
