/* argc and argv as the loader lays them out below the stack top; the exit code
 * (argc - 1) checks that main's return value reaches the emx exit status. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  printf("argc = %d\n", argc);
  /* argv[0] is the program's path: only its last part is the same on every machine. */
  const char *slash = strrchr(argv[0], '/');
  printf("argv[0] ends in \"%s\"\n", slash ? slash + 1 : argv[0]);
  for (int k = 1; k < argc; ++k) printf("argv[%d] = \"%s\"\n", k, argv[k]);
  printf("argv[argc] is NULL: %d\n", argv[argc] == NULL);
  return argc - 1;
}
