/* errno.h for the simulated EM-X: the numbers of Linux (the host's file service answers
 * with them: sim/host/host_files.cpp). One program per PE: errno is per PE. */
#ifndef EMX_ERRNO_H
#define EMX_ERRNO_H

extern int errno;
#define errno errno

#define EPERM 1
#define ENOENT 2
#define EIO 5
#define EBADF 9
#define ENOMEM 12
#define EACCES 13
#define EEXIST 17
#define ENOTDIR 20
#define EISDIR 21
#define EINVAL 22
#define EMFILE 24
#define ENOSPC 28
#define ESPIPE 29
#define EDOM 33
#define ERANGE 34
#define ENAMETOOLONG 36
#define ENOSYS 38

#endif
