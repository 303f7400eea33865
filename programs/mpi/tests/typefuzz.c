/* A fuzzer of MPI datatype constructors with extreme counts, strides, displacements and
 * nesting (docs/reliability.md, "Fuzzing"), run on the simulated machine:
 *
 *   mpi_t_typefuzz SEED CASES [-v]
 *
 * Case k draws from SEED + k: a constructor (contiguous, vector, hvector, indexed,
 * hindexed, indexed_block, struct with MPI_LB/MPI_UB, resized, dup, subarray) over basic
 * types and earlier results, with counts such as 0, 1, 2^16, 2^28, 2^30, 2^31 - 1 and -1,
 * and strides and displacements up to the ends of the 32-bit range. Under
 * MPI_ERRORS_RETURN every call must succeed or return MPI_ERR_TYPE, MPI_ERR_COUNT,
 * MPI_ERR_NO_MEM or MPI_ERR_ARG; a type it makes must have a size that is MPI_UNDEFINED or
 * at most its elements' bytes, and one that fits a small buffer must travel to this rank
 * and arrive as MPI_Unpack of its MPI_Pack says, with the bytes around it untouched.
 * Never a fault. Rank 0 prints "typefuzz: ok" and the counts (every rank fuzzes alone). */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static unsigned seed_state;
static unsigned draw(unsigned n) { return rnd(&seed_state) % n; }

static const MPI_Datatype basics[] = {
    MPI_CHAR,      MPI_SHORT,          MPI_INT,        MPI_LONG,      MPI_FLOAT,
    MPI_DOUBLE,    MPI_LONG_DOUBLE,    MPI_BYTE,       MPI_LONG_LONG, MPI_UNSIGNED_SHORT,
    MPI_2INT,      MPI_SHORT_INT,      MPI_DOUBLE_INT, MPI_FLOAT_INT, MPI_LONG_DOUBLE_INT,
    MPI_C_BOOL,    MPI_INT8_T,         MPI_UINT64_T,   MPI_PACKED,    MPI_UNSIGNED_CHAR};
enum { NBASIC = sizeof basics / sizeof *basics, POOL = 12, BLOCKS = 6 };

static MPI_Datatype pool[POOL];
static int pooled;

static int extreme_count(void) {
  static const int counts[] = {0, 1, 2, 3, 5, 64, 1000, 1 << 16, 1 << 20, 1 << 28, 1 << 30,
                               0x7fffffff, -1, -0x7fffffff - 1};
  return draw(3) ? (int)draw(9) : counts[draw(sizeof counts / sizeof *counts)];
}
static MPI_Aint extreme_disp(void) {
  static const MPI_Aint disps[] = {0, 1, -1, 8, -8, 4096, 1 << 20, 1 << 30, -(1 << 30),
                                   0x7fffffff, -0x7fffffff - 1, 0x7ffffff0};
  return draw(3) ? (MPI_Aint)draw(64) - 16 : disps[draw(sizeof disps / sizeof *disps)];
}
static MPI_Datatype any_type(int markers) {
  if (markers && !draw(8)) return draw(2) ? MPI_LB : MPI_UB;
  if (pooled && draw(2)) return pool[draw(pooled)];
  return basics[draw(NBASIC)];
}

static int constructed, accepted, refused, sent, verbose;

/* One constructor call; its result (or MPI_DATATYPE_NULL). */
static MPI_Datatype construct(void) {
  MPI_Datatype t = MPI_DATATYPE_NULL, old = any_type(0), types[BLOCKS];
  int len[BLOCKS], idisp[BLOCKS], err = MPI_SUCCESS;
  MPI_Aint adisp[BLOCKS];
  const int n = (int)draw(BLOCKS + 1);
  for (int k = 0; k < BLOCKS; ++k) {
    len[k] = draw(4) ? (int)draw(5) : extreme_count();
    idisp[k] = draw(4) ? (int)draw(40) - 8 : extreme_count();
    adisp[k] = extreme_disp();
    types[k] = any_type(1);
  }
  const unsigned which = draw(11);
  const int count = extreme_count();
  if (verbose)
    printf("  constructor %u, count %d, n %d, old %d, len %d %d, disp %d %ld\n", which, count, n,
           old, len[0], len[1], idisp[0], (long)adisp[0]);
  switch (which) {
    case 0: err = MPI_Type_contiguous(count, old, &t); break;
    case 1: err = MPI_Type_vector(count, len[0], idisp[0], old, &t); break;
    case 2: err = MPI_Type_create_hvector(count, len[0], adisp[0], old, &t); break;
    case 3: err = MPI_Type_indexed(n, len, idisp, old, &t); break;
    case 4: err = MPI_Type_create_hindexed(n, len, adisp, old, &t); break;
    case 5: err = MPI_Type_create_indexed_block(n, len[0], idisp, old, &t); break;
    case 6: err = MPI_Type_create_struct(n, len, adisp, types, &t); break;
    case 7: err = MPI_Type_create_resized(old, adisp[0], adisp[1], &t); break;
    case 8: err = MPI_Type_dup(old, &t); break;
    case 9: {
      int sizes[3], subs[3], starts[3];
      for (int k = 0; k < 3; ++k) {
        sizes[k] = draw(3) ? (int)draw(6) + 1 : extreme_count();
        subs[k] = draw(4) ? (int)draw(3) + 1 : extreme_count();
        starts[k] = draw(4) ? (int)draw(3) : extreme_count();
      }
      err = MPI_Type_create_subarray((int)draw(3) + 1, sizes, subs, starts,
                                     draw(2) ? MPI_ORDER_C : MPI_ORDER_FORTRAN, old, &t);
      break;
    }
    default: err = MPI_Type_vector(count, extreme_count(), extreme_count(), old, &t); break;
  }
  ++constructed;
  if (err != MPI_SUCCESS) {
    check(err == MPI_ERR_TYPE || err == MPI_ERR_COUNT || err == MPI_ERR_NO_MEM ||
              err == MPI_ERR_ARG,
          "constructor %u returned %d", which, err);
    ++refused;
    return MPI_DATATYPE_NULL;
  }
  ++accepted;
  return t;
}

/* The properties of a new type; a small one travels to this rank. */
static void exercise(MPI_Datatype t) {
  int size, elements;
  MPI_Aint lb, extent, tlb, textent;
  check(MPI_Type_size(t, &size) == MPI_SUCCESS, "Type_size failed");
  check(MPI_Type_get_extent(t, &lb, &extent) == MPI_SUCCESS, "Type_get_extent failed");
  check(MPI_Type_get_true_extent(t, &tlb, &textent) == MPI_SUCCESS, "true extent failed");
  check(size == MPI_UNDEFINED || size >= 0, "size %d", size);
  check(textent >= 0, "true extent %ld", (long)textent);
  check(MPI_Type_commit(&t) == MPI_SUCCESS, "commit failed");
  if (size == MPI_UNDEFINED || size > 2048 || textent < 0 || textent > 8192 || tlb < -4096 || tlb > 4096)
    return;
  /* Buffers with 64 bytes of margin each side; the data lie at [tlb, tlb + textent). */
  enum { MARGIN = 64, SPAN = 8192 + 2 * MARGIN };
  static unsigned char src[SPAN + 4096], dst[SPAN + 4096], ref[SPAN + 4096], packed[2048];
  const long at = MARGIN + (tlb < 0 ? -tlb : 0);
  for (int k = 0; k < (int)sizeof src; ++k) src[k] = (unsigned char)(k * 7 + 1), dst[k] = ref[k] = 0xa5;
  int position = 0, unpacked = 0;
  check(MPI_Pack(src + at, 1, t, packed, sizeof packed, &position, MPI_COMM_SELF) == MPI_SUCCESS &&
            position == size,
        "Pack of %d bytes: position %d", size, position);
  check(MPI_Unpack(packed, position, &unpacked, ref + at, 1, t, MPI_COMM_SELF) == MPI_SUCCESS,
        "Unpack failed");
  MPI_Status st;
  const int err = MPI_Sendrecv(src + at, 1, t, 0, 9, dst + at, 1, t, 0, 9, MPI_COMM_SELF, &st);
  check(err == MPI_SUCCESS, "Sendrecv of the type: %d", err);
  check(!memcmp(dst, ref, sizeof dst), "the message differs from Unpack(Pack) (size %d)", size);
  int count;
  MPI_Get_count(&st, t, &count);
  MPI_Get_elements(&st, t, &elements);
  check(count == (size ? 1 : 0) || (size == 0 && count == 0), "Get_count %d of size %d", count,
        size);
  ++sent;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  const unsigned seed = argc > 1 ? (unsigned)atoi(argv[1]) : 1;
  const int cases = argc > 2 ? atoi(argv[2]) : 100;
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  verbose = argc > 3;
  for (int c = 0; c < cases; ++c) {
    seed_state = (seed + (unsigned)c) * 2654435761u ^ (unsigned)rank * 40503u;
    if (!seed_state) seed_state = 1;
    const int before = check_main.failures;
    if (argc > 3) printf("rank %d: case %u\n", rank, seed + c); /* (-v: which case hangs) */
    const MPI_Datatype t = construct();
    if (t != MPI_DATATYPE_NULL) {
      exercise(t);
      if (pooled < POOL) {
        pool[pooled++] = t;
      } else {
        const unsigned k = draw(POOL);
        MPI_Type_free(&pool[k]);
        pool[k] = t;
      }
    }
    if (check_main.failures > before) printf("rank %d: the case of seed %u\n", rank, seed + c);
  }
  int all[4] = {constructed, accepted, refused, sent}, sum[4];
  MPI_Reduce(all, sum, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  report("typefuzz");
  if (rank == 0)
    printf("typefuzz: %d cases, %d accepted, %d refused, %d sent\n", sum[0], sum[1], sum[2],
           sum[3]);
  while (pooled) MPI_Type_free(&pool[--pooled]);
  MPI_Finalize();
  return 0;
}
