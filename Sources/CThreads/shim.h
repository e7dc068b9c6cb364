// Which cores a thread runs on: glibc's affinity calls, which Swift's Glibc module leaves out
// (they need _GNU_SOURCE). Declared under names of their own, bound to glibc's symbols, so
// they cannot clash with a Glibc module built either way.
#include <stddef.h>

extern int sfumato_sched_getcpu(void) __asm__("sched_getcpu");
extern int sfumato_sched_getaffinity(int pid, size_t size, void *mask) __asm__("sched_getaffinity");
extern int sfumato_sched_setaffinity(int pid, size_t size, const void *mask) __asm__("sched_setaffinity");

/// The core the calling thread runs on now, or -1.
static inline int sfumato_current_cpu(void) { return sfumato_sched_getcpu(); }

/// Up to `max` cores the calling thread may run on, in `out`; how many (0 when unknown).
static inline int sfumato_allowed_cpus(int *out, int max) {
    unsigned long mask[16] = {0};  // 1024 cores
    if (sfumato_sched_getaffinity(0, sizeof mask, mask) != 0) return 0;
    int n = 0;
    for (int c = 0; c < 1024 && n < max; c++)
        if (mask[c / 64] >> (c % 64) & 1) out[n++] = c;
    return n;
}

/// Binds the calling thread to core `cpu`; 0 when done.
static inline int sfumato_bind_current_thread(int cpu) {
    if (cpu < 0 || cpu >= 1024) return -1;
    unsigned long mask[16] = {0};
    mask[cpu / 64] = 1UL << (cpu % 64);
    return sfumato_sched_setaffinity(0, sizeof mask, mask);
}
