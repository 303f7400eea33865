/* unistd.h for the simulated EM-X: files through the host (runtime/src/files.c), and
 * facts about the PE (runtime/src/time.c): a "page" is 4 KiB (the code/data boundary of
 * emx.ld), physical pages the PE's local memory. */
#ifndef EMX_UNISTD_H
#define EMX_UNISTD_H

#include <sys/types.h>

#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2
#define STDIN_FILENO 0
#define STDOUT_FILENO 1
#define STDERR_FILENO 2

ssize_t read(int fd, void *buf, size_t n);
ssize_t write(int fd, const void *buf, size_t n);
off_t lseek(int fd, off_t offset, int whence);
int close(int fd);
int unlink(const char *path);

#define _SC_PAGESIZE 30
#define _SC_PAGE_SIZE _SC_PAGESIZE
#define _SC_PHYS_PAGES 85
#define _SC_AVPHYS_PAGES 86
#define _SC_NPROCESSORS_CONF 83
#define _SC_NPROCESSORS_ONLN 84
#define _SC_CLK_TCK 2
int getpagesize(void);
long sysconf(int name);

#endif
