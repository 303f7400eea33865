/* Structs by value (in registers and through memory), arrays of structs, copies,
 * unions and bit-fields. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct point {
  int x, y;
};
struct mixed { /* padding between members of different alignment */
  char tag;
  double weight;
  short count;
  float ratio;
};
struct big {
  int values[32];
  char name[16];
};
struct flags {
  unsigned ready : 1;
  unsigned kind : 3;
  signed level : 4;
  unsigned rest : 24;
};
union word {
  uint32_t u;
  float f;
  uint8_t bytes[4];
};

static struct point add(struct point a, struct point b) { /* in and out in registers */
  return (struct point){a.x + b.x, a.y + b.y};
}

static __attribute__((noinline)) struct mixed scale(struct mixed m, int k) {
  m.weight *= k;
  m.count = (short)(m.count * k);
  m.ratio *= (float)k;
  return m;
}

static __attribute__((noinline)) struct big make_big(const char *name, int base) {
  struct big b;
  for (int k = 0; k < 32; ++k) b.values[k] = base + k * k;
  strncpy(b.name, name, sizeof b.name);
  return b;
}

static __attribute__((noinline)) long sum_big(struct big b) { /* passed by reference to a copy */
  long s = 0;
  for (int k = 0; k < 32; ++k) s += b.values[k];
  b.values[0] = -1; /* changes the copy only */
  return s;
}

int main(void) {
  struct point p = add((struct point){1, 2}, (struct point){30, 40});
  printf("point: (%d, %d)\n", p.x, p.y);

  struct mixed m = scale((struct mixed){'m', 1.25, 300, 0.5f}, 3);
  printf("mixed: %c %.2f %d %.2f size %u\n", m.tag, m.weight, m.count, (double)m.ratio,
         (unsigned)sizeof(struct mixed));

  struct big b = make_big("big-struct", 100);
  struct big copy = b; /* a struct copy: GCC emits memcpy */
  printf("big: %s sum %ld first %d after call %d\n", copy.name, sum_big(copy), copy.values[0],
         b.values[0]);

  struct point path[5];
  for (int k = 0; k < 5; ++k) path[k] = (struct point){k, k * k};
  struct point total = {0, 0};
  for (int k = 0; k < 5; ++k) total = add(total, path[k]);
  printf("path total: (%d, %d), sizeof path %u\n", total.x, total.y, (unsigned)sizeof path);

  struct flags f = {1, 5, -3, 0xabcdef};
  f.kind++;
  printf("bit-fields: %u %u %d %x\n", f.ready, f.kind, f.level, f.rest);

  union word w = {.f = 1.0f};
  printf("union: %08x bytes %02x %02x %02x %02x\n", w.u, w.bytes[0], w.bytes[1], w.bytes[2],
         w.bytes[3]);
  return 0;
}
