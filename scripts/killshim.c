// Review tool (engineer d): LD_PRELOAD shim that SIGKILLs the process at its KILLN-th
// durable-write call (pwrite/pwrite64/write to fd>2/fsync/fdatasync/rename/renameat/ftruncate),
// counted across all threads. KILLTEAR=1: a pwrite that is the KILLN-th writes only its first
// half before the kill (a torn write). KILLTEAR=page (session 12, s12t): a pwrite that is the
// KILLN-th writes only up to the first 4 KiB page boundary of the file after its offset (nothing
// when it crosses none), then the kill: what a SIGKILL that arrives while the kernel copies a
// pwrite page by page leaves (generic_perform_write stops at a page on a fatal signal), unlike
// KILLTEAR=1's half, which is a power-cut model. Prints the count at exit to KILLCOUNT_FILE if set.
// Build: gcc -O2 -shared -fPIC -o /tmp/exaraid-killshim.so scripts/killshim.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/types.h>
static atomic_long count;
static long killn = -1;
static int tear = 0; // 1: half, 2: up to a page boundary
static void fin(void) {
    const char *f = getenv("KILLCOUNT_FILE");
    if (f) { FILE *o = fopen(f, "w"); if (o) { fprintf(o, "%ld\n", (long)count); fclose(o); } }
}
__attribute__((constructor)) static void init(void) {
    const char *k = getenv("KILLN"); if (k) killn = atol(k);
    const char *t = getenv("KILLTEAR"); if (t && *t == '1') tear = 1; if (t && *t == 'p') tear = 2;
    atexit(fin);
}
static int hit(void) { long c = atomic_fetch_add(&count, 1) + 1; return killn > 0 && c == killn; }
// Bytes of a torn n-byte write at file offset o (tear mode above).
static size_t part(size_t n, long o) {
    if (tear == 1) return n / 2;
    size_t to_page = (size_t)(4096 - (o % 4096));
    return to_page < n ? to_page : 0;
}
static void die(void) { kill(getpid(), SIGKILL); for (;;) pause(); }
// Says where the kill landed (stderr): which call, which file, which range.
static void say(const char *fn, int fd, size_t n, long o) {
    char p[64], t[512] = "?"; snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    ssize_t l = readlink(p, t, sizeof t - 1); if (l > 0) t[l] = 0;
    fprintf(stderr, "KILLSHIM: kill at call %ld: %s(%s, len %zu, off %ld)%s\n", killn, fn, t, n, o, tear ? " torn" : "");
}
#define REAL(name) static __typeof__(name) *real_##name; if (!real_##name) real_##name = dlsym(RTLD_NEXT, #name)
ssize_t pwrite64(int fd, const void *b, size_t n, off_t o) { REAL(pwrite64);
    if (hit()) { say("pwrite64", fd, n, o); if (tear && n > 1 && part(n, o)) real_pwrite64(fd, b, part(n, o), o); die(); } return real_pwrite64(fd, b, n, o); }
ssize_t pwrite(int fd, const void *b, size_t n, off_t o) { REAL(pwrite);
    if (hit()) { say("pwrite", fd, n, o); if (tear && n > 1 && part(n, o)) real_pwrite(fd, b, part(n, o), o); die(); } return real_pwrite(fd, b, n, o); }
ssize_t write(int fd, const void *b, size_t n) { REAL(write);
    if (fd > 2 && hit()) { say("write", fd, n, -1); if (tear == 1 && n > 1) real_write(fd, b, n / 2); die(); } return real_write(fd, b, n); }
int fsync(int fd) { REAL(fsync); if (hit()) { say("fsync", fd, 0, -1); die(); } return real_fsync(fd); }
int fdatasync(int fd) { REAL(fdatasync); if (hit()) { say("fdatasync", fd, 0, -1); die(); } return real_fdatasync(fd); }
int rename(const char *a, const char *b) { REAL(rename); if (hit()) die(); return real_rename(a, b); }
int renameat(int x, const char *a, int y, const char *b) { REAL(renameat); if (hit()) die(); return real_renameat(x, a, y, b); }
int ftruncate(int fd, off_t l) { REAL(ftruncate); if (hit()) die(); return real_ftruncate(fd, l); }
int ftruncate64(int fd, off_t l) { REAL(ftruncate64); if (hit()) die(); return real_ftruncate64(fd, l); }
