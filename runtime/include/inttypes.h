/* inttypes.h: printf conversions for the stdint.h types (8 to 32 bits are int). */
#ifndef EMX_INTTYPES_H
#define EMX_INTTYPES_H

#include <stdint.h>

#define EMX_PRI32(c) #c
#define EMX_PRI64(c) "ll" #c

#define PRId8 EMX_PRI32(d)
#define PRId16 EMX_PRI32(d)
#define PRId32 EMX_PRI32(d)
#define PRId64 EMX_PRI64(d)
#define PRIi8 EMX_PRI32(i)
#define PRIi16 EMX_PRI32(i)
#define PRIi32 EMX_PRI32(i)
#define PRIi64 EMX_PRI64(i)
#define PRIu8 EMX_PRI32(u)
#define PRIu16 EMX_PRI32(u)
#define PRIu32 EMX_PRI32(u)
#define PRIu64 EMX_PRI64(u)
#define PRIx8 EMX_PRI32(x)
#define PRIx16 EMX_PRI32(x)
#define PRIx32 EMX_PRI32(x)
#define PRIx64 EMX_PRI64(x)
#define PRIX8 EMX_PRI32(X)
#define PRIX16 EMX_PRI32(X)
#define PRIX32 EMX_PRI32(X)
#define PRIX64 EMX_PRI64(X)
#define PRIo8 EMX_PRI32(o)
#define PRIo16 EMX_PRI32(o)
#define PRIo32 EMX_PRI32(o)
#define PRIo64 EMX_PRI64(o)
#define PRIdMAX PRId64
#define PRIuMAX PRIu64
#define PRIxMAX PRIx64
#define PRIdPTR PRId32
#define PRIuPTR PRIu32
#define PRIxPTR PRIx32

#endif
