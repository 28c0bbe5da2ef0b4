// Review tool (s15r2, not CI): LD_PRELOAD shim that keeps, for every file whose path ends with
// SNAPNAME (default "exaraid-epoch.json"), a copy of its content as of its last successful
// fsync/fdatasync in SNAPDIR (the path with '/' as '%'): what a power cut (or a disk dropped
// before the page cache wrote back) leaves of it. "Power cut" = copy it back afterwards.
// Build: gcc -O2 -shared -fPIC -o /tmp/s15r2-syncsnapshim.so scripts/repro/s15r2-syncsnapshim.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static void snap(int fd) {
    const char *name = getenv("SNAPNAME"); if (!name) name = "exaraid-epoch.json";
    char p[64], t[1024]; snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    ssize_t l = readlink(p, t, sizeof t - 1); if (l <= 0) return; t[l] = 0;
    size_t nl = strlen(name);
    if ((size_t)l < nl || strcmp(t + l - nl, name) != 0) return;
    // The file may be open write-only: read it by name (its content as of this sync).
    int in = open(t, O_RDONLY); if (in < 0) return;
    char buf[65536]; ssize_t n = pread(in, buf, sizeof buf, 0); close(in); if (n < 0) return;
    const char *dir = getenv("SNAPDIR"); if (!dir) return;
    char flat[1024]; strcpy(flat, t); for (char *c = flat; *c; c++) if (*c == '/') *c = '%';
    char out[2100]; snprintf(out, sizeof out, "%s/%s", dir, flat);
    int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644); if (o < 0) return;
    ssize_t w = 0; while (w < n) { ssize_t k = ((ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write"))(o, buf + w, n - w); if (k <= 0) break; w += k; }
    close(o);
}
int fsync(int fd) { static int (*r)(int); if (!r) r = dlsym(RTLD_NEXT, "fsync"); int x = r(fd); if (x == 0) snap(fd); return x; }
int fdatasync(int fd) { static int (*r)(int); if (!r) r = dlsym(RTLD_NEXT, "fdatasync"); int x = r(fd); if (x == 0) snap(fd); return x; }
