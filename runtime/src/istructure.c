/* I-structure helpers that are not inline (emx/istructure.h). */
#include <emx/istructure.h>

#include "layer_internal.h"

/* On the element's PE: request = requester PE | element word address, ctx_id = the
 * requester's context. Answer with a wake-up: slot 1 with the value, or slot 2. */
void __emx_h_itry(uint32_t request, uint32_t ctx_id, uint32_t addr) {
  (void)addr;
  uint32_t v = 0;
  const int got = __emx_itake(emx_gaddr_local(request), &v);
  emx_invoke(emx_gaddr_pe(request),
             got ? EMX_HANDLER_INDEX(__emx_h_wake) : EMX_HANDLER_INDEX(__emx_h_wake_alt),
             ctx_id, v);
}
EMX_HANDLER(__emx_h_itry);

/* data = the element's local address, arg16 = the value. */
static void __emx_h_iflag(uint32_t element, uint32_t value, uint32_t addr) {
  (void)addr;
  emx_iwrite(emx_gaddr_mine((void *)(uintptr_t)element), value);
}
EMX_HANDLER(__emx_h_iflag);

void emx_iwrite_flag(emx_gaddr_t e, uint16_t value) {
  if ((emx_features() & EMX_FEATURE_DIRECT_REMOTE_ACCESS) || emx_gaddr_is_local(e))
    emx_iwrite(e, value);
  else
    EMX_INVOKE(emx_gaddr_pe(e), __emx_h_iflag, value, (uint32_t)(uintptr_t)emx_gaddr_local(e));
}

void emx_istruct_clear(volatile uint32_t *e, size_t n) {
  for (size_t k = 0; k < n; ++k) {
    e[k] = 0;
    emx_wtag(&e[k], 0);
  }
}
