// Review tool (engineer s4e, not CI): LD_PRELOAD shim that makes the FAILN-th durable call
// (pwrite/pwrite64/write to fd>2/fsync/fdatasync, counted across all threads, as in
// scripts/killshim.c) FAIL with an errno instead of killing the process: the store's error
// paths run, the command exits with an error, and the next command opens the store after it.
// FAILERRNO: EIO (default) or ENOSPC. FAILSTICKY=1: after the first failure every later durable
// call on a file under the same OSS directory (the path up to "/objects/" or the last "/")
// fails too (a disk that died), FAILSTICKY=0: only that one call fails (a transient error).
// Prints "EIOSHIM: ..." on stderr naming the call; the count at exit to FAILCOUNT_FILE if set.
// READFAILN=N: also (or only, without FAILN) the N-th pread/pread64 on a file under an OSS
// "objects/" directory fails with EIO (a bad sector; counted separately; sticky as above).
// SYNCFAILN=N (s7s): instead, the N-th fsync/fdatasync (counted separately over all files) fails
// (a sync outside a client write: settle, rm, scrub --repair, rebuild); sticky as above.
// SYNCKILLAFTER=K (with SYNCFAILN): SIGKILL at the K-th durable call (any kind) after that
// sync failed: a crash while the store handles the failure.
// FAILWRITESUNDER=PREFIX (s9e): every durable call (write or sync) on a file whose path starts
// with PREFIX fails, from the first on (counted as before); reads there work (a disk that refuses its
// writes, in every command run with it: a settle that cannot finish while the cause lasts).
// Build: gcc -O2 -shared -fPIC -o /tmp/s4e-eioshim.so scripts/eioshim.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/types.h>
static atomic_long count;
static long failn = -1;
static int fail_errno = EIO;
static int sticky = 0;
static char dead_prefix[512] = "";
static atomic_long read_count;
static atomic_long sync_count;
static long syncfailn = -1;
static long synckillafter = -1;
static atomic_long after_sync_failure = -1;
#include <signal.h>
// With SYNCKILLAFTER: counts durable calls after the sync failure, kills at the K-th.
static void maybe_kill(const char *fn) {
    if (synckillafter <= 0 || atomic_load(&after_sync_failure) < 0) return;
    long c = atomic_fetch_add(&after_sync_failure, 1) + 1;
    if (c == synckillafter) { fprintf(stderr, "EIOSHIM: kill at call %ld after the sync failure (%s)\n", c, fn); kill(getpid(), SIGKILL); }
}
static long readfailn = -1;
static char writes_dead_prefix[512] = "";
static void fin(void) {
    const char *f = getenv("FAILCOUNT_FILE");
    if (f) { FILE *o = fopen(f, "w"); if (o) { fprintf(o, "%ld\n", (long)(syncfailn > 0 ? sync_count : count)); fclose(o); } }
    const char *r = getenv("READCOUNT_FILE");
    if (r) { FILE *o = fopen(r, "w"); if (o) { fprintf(o, "%ld\n", (long)read_count); fclose(o); } }
}
__attribute__((constructor)) static void init(void) {
    const char *k = getenv("FAILN"); if (k) failn = atol(k);
    const char *e = getenv("FAILERRNO"); if (e && strcmp(e, "ENOSPC") == 0) fail_errno = ENOSPC;
    const char *sf = getenv("SYNCFAILN"); if (sf) syncfailn = atol(sf);
    const char *sk = getenv("SYNCKILLAFTER"); if (sk) synckillafter = atol(sk);
    const char *rf = getenv("READFAILN"); if (rf) readfailn = atol(rf);
    const char *s = getenv("FAILSTICKY"); if (s && *s == '1') sticky = 1;
    const char *w = getenv("FAILWRITESUNDER");
    if (w && strlen(w) < sizeof writes_dead_prefix) strcpy(writes_dead_prefix, w);
    atexit(fin);
}
static void path_of(int fd, char *t, size_t n) {
    char p[64]; snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    ssize_t l = readlink(p, t, n - 1); if (l < 0) l = 0; t[l] = 0;
}
// Should this call fail? Counts it; remembers the dead OSS directory in sticky mode.
static int should_fail(const char *fn, int fd, size_t n, long o) {
    maybe_kill(fn);
    long c = atomic_fetch_add(&count, 1) + 1;
    char t[512]; path_of(fd, t, sizeof t);
    if (writes_dead_prefix[0] && strncmp(t, writes_dead_prefix, strlen(writes_dead_prefix)) == 0) return 1;
    if (dead_prefix[0] && strncmp(t, dead_prefix, strlen(dead_prefix)) == 0) return 1;
    if (failn > 0 && c == failn) {
        fprintf(stderr, "EIOSHIM: call %ld fails (%s): %s(%s, len %zu, off %ld)\n", c,
                fail_errno == EIO ? "EIO" : "ENOSPC", fn, t, n, o);
        if (sticky) {
            char *cut = strstr(t, "/objects/");
            if (!cut) cut = strrchr(t, '/');
            if (cut) { size_t l = (size_t)(cut - t); if (l < sizeof dead_prefix) { memcpy(dead_prefix, t, l); dead_prefix[l] = 0; } }
        }
        return 1;
    }
    return 0;
}
#define REAL(name) static __typeof__(name) *real_##name; if (!real_##name) real_##name = dlsym(RTLD_NEXT, #name)
ssize_t pwrite64(int fd, const void *b, size_t n, off_t o) { REAL(pwrite64);
    if (should_fail("pwrite64", fd, n, o)) { errno = fail_errno; return -1; } return real_pwrite64(fd, b, n, o); }
ssize_t pwrite(int fd, const void *b, size_t n, off_t o) { REAL(pwrite);
    if (should_fail("pwrite", fd, n, o)) { errno = fail_errno; return -1; } return real_pwrite(fd, b, n, o); }
ssize_t write(int fd, const void *b, size_t n) { REAL(write);
    if (fd > 2 && should_fail("write", fd, n, -1)) { errno = fail_errno; return -1; } return real_write(fd, b, n); }
// A sync: with SYNCFAILN the sync count decides (the dead OSS directory stays dead).
static int should_fail_sync(const char *fn, int fd) {
    if (syncfailn <= 0) return should_fail(fn, fd, 0, -1);
    maybe_kill(fn);
    long c = atomic_fetch_add(&sync_count, 1) + 1;
    char t[512]; path_of(fd, t, sizeof t);
    if (writes_dead_prefix[0] && strncmp(t, writes_dead_prefix, strlen(writes_dead_prefix)) == 0) return 1;
    if (dead_prefix[0] && strncmp(t, dead_prefix, strlen(dead_prefix)) == 0) return 1;
    if (c != syncfailn) return 0;
    fprintf(stderr, "EIOSHIM: sync %ld fails: %s(%s)\n", c, fn, t);
    atomic_store(&after_sync_failure, 0);
    if (sticky) {
        char *cut = strstr(t, "/objects/");
        if (!cut) cut = strrchr(t, '/');
        if (cut) { size_t l = (size_t)(cut - t); if (l < sizeof dead_prefix) { memcpy(dead_prefix, t, l); dead_prefix[l] = 0; } }
    }
    return 1;
}
int fsync(int fd) { REAL(fsync); if (should_fail_sync("fsync", fd)) { errno = fail_errno; return -1; } return real_fsync(fd); }
int fdatasync(int fd) { REAL(fdatasync); if (should_fail_sync("fdatasync", fd)) { errno = fail_errno; return -1; } return real_fdatasync(fd); }
// Reads: only of OSS object files (metadata reads stay intact).
static int should_fail_read(const char *fn, int fd, size_t n, long o) {
    char t[512]; path_of(fd, t, sizeof t);
    if (!strstr(t, "/objects/")) return 0;
    if (dead_prefix[0] && strncmp(t, dead_prefix, strlen(dead_prefix)) == 0) return 1;
    long c = atomic_fetch_add(&read_count, 1) + 1;
    if (readfailn > 0 && c == readfailn) {
        fprintf(stderr, "EIOSHIM: read %ld fails (EIO): %s(%s, len %zu, off %ld)\n", c, fn, t, n, o);
        if (sticky) {
            char *cut = strstr(t, "/objects/");
            size_t l = (size_t)(cut - t); if (l < sizeof dead_prefix) { memcpy(dead_prefix, t, l); dead_prefix[l] = 0; }
        }
        return 1;
    }
    return 0;
}
ssize_t pread64(int fd, void *b, size_t n, off_t o) { REAL(pread64);
    if (should_fail_read("pread64", fd, n, o)) { errno = EIO; return -1; } return real_pread64(fd, b, n, o); }
ssize_t pread(int fd, void *b, size_t n, off_t o) { REAL(pread);
    if (should_fail_read("pread", fd, n, o)) { errno = EIO; return -1; } return real_pread(fd, b, n, o); }
