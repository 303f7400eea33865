/* Exits with the code given as its argument (PE 0; the others exit 0). */
#include <emx/emx.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (emx_pe_id() != 0 || argc < 2) return 0;
  return atoi(argv[1]);
}
