/* Host I/O packets (packet type `host`, tag 8): the one definition shared by the
 * runtime (C, on the simulated PE) and the simulator's host interface (C++).
 *
 * A host packet's address word is  src_pe << 22 | command << 16 | argument (16 bits),
 * its data word is the payload. Packets from one PE reach the host in the order sent.
 */
#ifndef EMX_HOST_PROTOCOL_H
#define EMX_HOST_PROTOCOL_H

#define EMX_HOST_ADDR(pe, cmd, arg) \
  (((unsigned)(pe) << 22) | (((unsigned)(cmd) & 0x3f) << 16) | ((unsigned)(arg) & 0xffff))
#define EMX_HOST_PE(addr) ((unsigned)(addr) >> 22)
#define EMX_HOST_CMD(addr) (((unsigned)(addr) >> 16) & 0x3f)
#define EMX_HOST_ARG(addr) ((unsigned)(addr) & 0xffff)

enum emx_host_command {
  /* Console: argument = number of bytes (1..4), data = the bytes, first in the low byte. */
  EMX_HOST_CONSOLE = 1,
  /* The program on this PE finished: data = exit code (int). */
  EMX_HOST_EXIT = 2,
  /* Result record, three packets in a row: NAME (data = local byte address of a
   * NUL-terminated name, read by the host from the PE's memory), then VALUE_LO and
   * VALUE_HI (data = low and high word of the value; argument = EMX_RESULT_INT for a
   * 64-bit signed integer, EMX_RESULT_FLOAT for an IEEE double). */
  EMX_HOST_RESULT_NAME = 3,
  EMX_HOST_RESULT_VALUE_LO = 4,
  EMX_HOST_RESULT_VALUE_HI = 5,
  /* File request (emx run --files DIR): data = local byte address of an
   * emx_host_file_request; the host reads it (and the path or data it names) from the
   * PE's memory, does the operation inside DIR, writes what it read into the PE's
   * memory, and answers with an I-structure write of the result (>= 0, or -errno) into
   * the request's `done` word, at the time the transfer takes at the host link's rate
   * (host.bandwidth_mb_s; one link, requests served in arrival order). */
  EMX_HOST_FILE = 6
};

enum emx_host_file_op {
  EMX_FILE_OPEN = 1,   /* a = path, b = flags (EMX_O_*), c = mode: the descriptor */
  EMX_FILE_CLOSE = 2,  /* a = descriptor */
  EMX_FILE_READ = 3,   /* a = descriptor, b = buffer, c = bytes: bytes read */
  EMX_FILE_WRITE = 4,  /* a = descriptor, b = buffer, c = bytes: bytes written */
  EMX_FILE_SEEK = 5,   /* a = descriptor, b = offset, c = whence (0 set, 1 cur, 2 end) */
  EMX_FILE_REMOVE = 6  /* a = path */
};

/* Open flags (the values of Linux, which the runtime's fcntl.h uses too). */
enum {
  EMX_O_ACCMODE = 3, EMX_O_RDONLY = 0, EMX_O_WRONLY = 1, EMX_O_RDWR = 2,
  EMX_O_CREAT = 0100, EMX_O_EXCL = 0200, EMX_O_TRUNC = 01000, EMX_O_APPEND = 02000
};

/* In PE memory, word aligned (the host reads it, and writes `done` by packet). */
struct emx_host_file_request {
  unsigned done; /* I-structure element: the result */
  unsigned op, a, b, c;
};

enum emx_result_kind { EMX_RESULT_INT = 0, EMX_RESULT_FLOAT = 1 };

#endif
