// s17r: LD_PRELOAD shim: the first $NOSPCAFTER write-type calls (write, pwrite, pwritev, fallocate,
// posix_fallocate) on files whose path contains $NOSPCFILE succeed, every later one fails ENOSPC
// (a disk that fills at a chosen instant); $NOSPCERRNO picks another errno (5: EIO, a disk that dies); $NOSPCKIND=write|falloc limits it to
// the writes or to the (posix_)fallocate calls. Build:
// gcc -O2 -shared -fPIC -o /tmp/s17r-nospc.so scripts/repro/s17r-nospc-shim.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include <sys/types.h>
static long calls = 0;
static int err_no(void) { const char *e = getenv("NOSPCERRNO"); return e ? atoi(e) : ENOSPC; }
static int kind_ok(int is_falloc) { const char *k = getenv("NOSPCKIND"); if (!k) return 1; return is_falloc ? strcmp(k, "falloc") == 0 : strcmp(k, "write") == 0; }
static int hit_k(int fd, int is_falloc);
static int hit(int fd) { return hit_k(fd, 0); }
static int hit_f(int fd) { return hit_k(fd, 1); }
static int hit_k(int fd, int is_falloc) {
    if (!kind_ok(is_falloc)) return 0;
    const char *pat = getenv("NOSPCFILE"); if (!pat || fd < 3) return 0;
    char p[64], t[1024]; snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(p, t, sizeof t - 1); if (n <= 0) return 0; t[n] = 0;
    if (strstr(t, pat) == NULL) return 0;
    const char *a = getenv("NOSPCAFTER"); long after = a ? atol(a) : 0;
    return __sync_add_and_fetch(&calls, 1) > after;
}
#define WRAP(ret, name, args, call) ret name args { static ret (*real) args; if (!real) real = dlsym(RTLD_NEXT, #name); if (hit(fd)) { errno = err_no(); return -1; } return real call; }
WRAP(ssize_t, write, (int fd, const void *b, size_t n), (fd, b, n))
WRAP(ssize_t, pwrite, (int fd, const void *b, size_t n, off_t o), (fd, b, n, o))
WRAP(ssize_t, pwrite64, (int fd, const void *b, size_t n, off_t o), (fd, b, n, o))
WRAP(ssize_t, pwritev, (int fd, const struct iovec *v, int c, off_t o), (fd, v, c, o))
WRAP(ssize_t, writev, (int fd, const struct iovec *v, int c), (fd, v, c))
#define WRAPF(ret, name, args, call) ret name args { static ret (*real) args; if (!real) real = dlsym(RTLD_NEXT, #name); if (hit_f(fd)) { errno = err_no(); return -1; } return real call; }
WRAPF(int, fallocate, (int fd, int m, off_t o, off_t l), (fd, m, o, l))
WRAPF(int, fallocate64, (int fd, int m, off_t o, off_t l), (fd, m, o, l))
int posix_fallocate(int fd, off_t o, off_t l) { static int (*real)(int, off_t, off_t); if (!real) real = dlsym(RTLD_NEXT, "posix_fallocate"); if (hit_f(fd)) return err_no(); return real(fd, o, l); }
int posix_fallocate64(int fd, off_t o, off_t l) { static int (*real)(int, off_t, off_t); if (!real) real = dlsym(RTLD_NEXT, "posix_fallocate64"); if (hit_f(fd)) return err_no(); return real(fd, o, l); }
