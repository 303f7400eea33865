/* One_put_all of the ACP paper, scaled to the PE's memory: the sizes of the paper divided
 * by `scale` (sizes below `scale` bytes become the powers of two from 1 up, plus 0), the
 * repetitions divided by `reps_div` (at least 1). Shared by the ACP and MPI versions. */
#ifndef ONE_PUT_ALL_H
#define ONE_PUT_ALL_H

#include <stdint.h>

/* The paper's rows: sizes 0..32 KB x1000, 64 KB x640 ... 4 MB x10. */
static const struct { uint32_t size, reps; } one_put_all_rows[] = {
    {0, 1000},      {1u << 0, 1000},  {1u << 1, 1000},  {1u << 2, 1000},  {1u << 3, 1000},
    {1u << 4, 1000}, {1u << 5, 1000},  {1u << 6, 1000},  {1u << 7, 1000},  {1u << 8, 1000},
    {1u << 9, 1000}, {1u << 10, 1000}, {1u << 11, 1000}, {1u << 12, 1000}, {1u << 13, 1000},
    {1u << 14, 1000}, {1u << 15, 1000}, {1u << 16, 640},  {1u << 17, 320},  {1u << 18, 160},
    {1u << 19, 80},  {1u << 20, 40},   {1u << 21, 20},   {1u << 22, 10}};
enum { ONE_PUT_ALL_ROWS = sizeof one_put_all_rows / sizeof *one_put_all_rows };

/* Row k scaled; 0 when the scaled size repeats a smaller row's (skip it). */
static inline int one_put_all_row(unsigned k, uint32_t scale, uint32_t reps_div, uint32_t *size,
                                  uint32_t *reps) {
  const uint32_t s = one_put_all_rows[k].size;
  if (s && s < scale) return 0; /* 1..scale-1 all scale to 0 */
  *size = s / scale;
  *reps = one_put_all_rows[k].reps / reps_div ? one_put_all_rows[k].reps / reps_div : 1;
  return 1;
}

#endif
