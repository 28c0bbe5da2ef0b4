// s16r2: LD_PRELOAD shim: read() on fd 0 fails with errno $STDIN_ERRNO (default EIO) once $STDIN_EIO_AFTER bytes
// were read from it (a failing disk or NFS under the input file of `put`/`write`). Build:
// gcc -O2 -shared -fPIC -o /tmp/s16r2-stdin-eio.so scripts/repro/s16r2-stdin-eio-shim.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
static long long done;
ssize_t read(int fd, void *buf, size_t n) {
    static ssize_t (*real)(int, void *, size_t); if (!real) real = dlsym(RTLD_NEXT, "read");
    if (fd == 0 && getenv("STDIN_EIO_AFTER")) {
        long long lim = atoll(getenv("STDIN_EIO_AFTER"));
        if (done >= lim) { errno = getenv("STDIN_ERRNO") ? atoi(getenv("STDIN_ERRNO")) : EIO; return -1; }
        if ((long long)n > lim - done) n = lim - done;
        ssize_t r = real(fd, buf, n); if (r > 0) done += r; return r;
    }
    return real(fd, buf, n);
}
