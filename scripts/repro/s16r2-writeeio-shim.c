// s16r2: LD_PRELOAD shim: write()/pwrite()/pwritev()/fsync() on a file whose path contains $EIOWRITE fail with
// EIO (a disk refusing writes to one file), reads unaffected. Build:
// gcc -O2 -shared -fPIC -o /tmp/s16r2-writeeio.so scripts/repro/s16r2-writeeio-shim.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include <sys/types.h>
static int hit(int fd) {
    const char *pat = getenv("EIOWRITE"); if (!pat || fd < 3) return 0;
    char p[64], t[1024]; snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(p, t, sizeof t - 1); if (n <= 0) return 0; t[n] = 0;
    return strstr(t, pat) != NULL;
}
#define WRAP(ret, name, args, call) ret name args { static ret (*real) args; if (!real) real = dlsym(RTLD_NEXT, #name); if (hit(fd)) { errno = EIO; return -1; } return real call; }
WRAP(ssize_t, write, (int fd, const void *b, size_t n), (fd, b, n))
WRAP(ssize_t, pwrite, (int fd, const void *b, size_t n, off_t o), (fd, b, n, o))
WRAP(ssize_t, pwrite64, (int fd, const void *b, size_t n, off_t o), (fd, b, n, o))
WRAP(ssize_t, writev, (int fd, const struct iovec *v, int c), (fd, v, c))
WRAP(ssize_t, pwritev, (int fd, const struct iovec *v, int c, off_t o), (fd, v, c, o))
WRAP(int, fsync, (int fd), (fd))
WRAP(int, fdatasync, (int fd), (fd))
