// s16r: LD_PRELOAD shim: read()/pread() on a file whose path contains $EIOREAD fail with EIO
// (a bad sector under one small metadata file of one OSS). Build:
// gcc -O2 -shared -fPIC -o /tmp/s16r-readeio.so scripts/repro/s16r-readeio-shim.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/types.h>
static int hit(int fd) {
    const char *pat = getenv("EIOREAD"); if (!pat || fd < 3) return 0;
    char p[64], t[1024]; snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(p, t, sizeof t - 1); if (n <= 0) return 0; t[n] = 0;
    return strstr(t, pat) != NULL;
}
ssize_t read(int fd, void *buf, size_t n) {
    static ssize_t (*real)(int, void *, size_t); if (!real) real = dlsym(RTLD_NEXT, "read");
    if (hit(fd)) { errno = EIO; return -1; }
    return real(fd, buf, n);
}
ssize_t pread64(int fd, void *buf, size_t n, off_t o) {
    static ssize_t (*real)(int, void *, size_t, off_t); if (!real) real = dlsym(RTLD_NEXT, "pread64");
    if (hit(fd)) { errno = EIO; return -1; }
    return real(fd, buf, n, o);
}
ssize_t pread(int fd, void *buf, size_t n, off_t o) {
    static ssize_t (*real)(int, void *, size_t, off_t); if (!real) real = dlsym(RTLD_NEXT, "pread");
    if (hit(fd)) { errno = EIO; return -1; }
    return real(fd, buf, n, o);
}
