/* Results the statistics JSON cannot write as plain numbers (NaN, infinities), and a
 * result name longer than the host reads. */
#include <emx/emx.h>
#include <math.h>
#include <string.h>

static char long_name[400];

int main(int argc, char **argv) {
  (void)argv;
  emx_result("nan", NAN);
  emx_result("inf", INFINITY);
  emx_result("minus_inf", -INFINITY);
  emx_result("half", 0.5);
  if (argc > 1) { /* "long" */
    memset(long_name, 'n', sizeof long_name - 1);
    emx_result(long_name, 1.0);
  }
  return 0;
}
