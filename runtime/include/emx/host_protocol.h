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
  EMX_HOST_RESULT_VALUE_HI = 5
};

enum emx_result_kind { EMX_RESULT_INT = 0, EMX_RESULT_FLOAT = 1 };

#endif
