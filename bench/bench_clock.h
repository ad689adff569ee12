// What every benchmark measures with: a monotonic clock and the peak memory.
#ifndef TT_BENCH_CLOCK_H
#define TT_BENCH_CLOCK_H

#include <sys/resource.h>
#include <time.h>

static inline double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static inline long peak_rss_kb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;  // kilobytes on Linux
}

#endif
