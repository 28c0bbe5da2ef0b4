// s11r: LD_PRELOAD shim adding CLOCKSHIM_OFFSET_S seconds to CLOCK_REALTIME (a wrong wall clock).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
int clock_gettime(clockid_t id, struct timespec *ts) {
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = dlsym(RTLD_NEXT, "clock_gettime");
    int r = real(id, ts);
    const char *o = getenv("CLOCKSHIM_OFFSET_S");
    if (r == 0 && o && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) ts->tv_sec += atol(o);
    return r;
}
