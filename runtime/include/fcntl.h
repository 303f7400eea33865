/* fcntl.h for the simulated EM-X: open() of files in the directory given by
 * emx run --files DIR (runtime/src/files.c). */
#ifndef EMX_FCNTL_H
#define EMX_FCNTL_H

#include <emx/host_protocol.h>
#include <sys/types.h>

#define O_ACCMODE EMX_O_ACCMODE
#define O_RDONLY EMX_O_RDONLY
#define O_WRONLY EMX_O_WRONLY
#define O_RDWR EMX_O_RDWR
#define O_CREAT EMX_O_CREAT
#define O_EXCL EMX_O_EXCL
#define O_TRUNC EMX_O_TRUNC
#define O_APPEND EMX_O_APPEND

int open(const char *path, int flags, ...);
int creat(const char *path, mode_t mode);

#endif
