/* Deep and branching recursion: the stack, calls and returns. */
#include <stdio.h>

static unsigned ackermann(unsigned m, unsigned n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackermann(m - 1, 1);
  return ackermann(m - 1, ackermann(m, n - 1));
}

static unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

/* Mutual recursion, too deep for GCC to turn into a loop unless it sees through both. */
static int is_odd(unsigned n);
static __attribute__((noinline)) int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
static __attribute__((noinline)) int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }

static unsigned hanoi_moves;
static void hanoi(int n, int from, int to, int via) {
  if (n == 0) return;
  hanoi(n - 1, from, via, to);
  ++hanoi_moves;
  hanoi(n - 1, via, to, from);
}

/* Each level keeps a frame with an array, so the stack really grows. */
static __attribute__((noinline)) long deep_sum(int depth) {
  volatile int local[8];
  for (int k = 0; k < 8; ++k) local[k] = depth + k;
  if (depth == 0) return local[0];
  return local[7] - 7 + deep_sum(depth - 1);
}

int main(void) {
  printf("ackermann(2, 3) = %u\n", ackermann(2, 3));
  printf("ackermann(3, 3) = %u\n", ackermann(3, 3));
  printf("fib(20) = %u\n", fib(20));
  printf("is_even(1001) = %d, is_odd(777) = %d\n", is_even(1001), is_odd(777));
  hanoi(10, 1, 3, 2);
  printf("hanoi(10) moves = %u\n", hanoi_moves);
  printf("deep_sum(2000) = %ld\n", deep_sum(2000));
  return 0;
}
