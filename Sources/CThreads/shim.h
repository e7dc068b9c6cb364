// Which cores a thread runs on: glibc's affinity calls, which Swift's Glibc module leaves out
// (they need _GNU_SOURCE). Declared under names of their own, bound to glibc's symbols, so
// they cannot clash with a Glibc module built either way.
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

extern int sfumato_sched_getcpu(void) __asm__("sched_getcpu");
extern int sfumato_sched_getaffinity(int pid, size_t size, void *mask) __asm__("sched_getaffinity");
extern int sfumato_sched_setaffinity(int pid, size_t size, const void *mask) __asm__("sched_setaffinity");

#define SFUMATO_MASK_WORD_BITS (8 * sizeof(unsigned long))

/// The core the calling thread runs on now, or -1.
static inline int sfumato_current_cpu(void) { return sfumato_sched_getcpu(); }

/// Up to `max` cores the process's main thread may run on, in `out`; how many (0 when
/// unknown). The mask grows until the kernel takes it (it refuses one shorter than its own).
static inline int sfumato_allowed_cpus(int *out, int max) {
    for (size_t bits = 1024; bits <= (1u << 20); bits *= 2) {
        unsigned long *mask = (unsigned long *)calloc(bits / SFUMATO_MASK_WORD_BITS, sizeof(unsigned long));
        if (!mask) return 0;
        if (sfumato_sched_getaffinity(getpid(), bits / 8, mask) == 0) {
            int n = 0;
            for (size_t c = 0; c < bits && n < max; c++)
                if (mask[c / SFUMATO_MASK_WORD_BITS] >> (c % SFUMATO_MASK_WORD_BITS) & 1UL) out[n++] = (int)c;
            free(mask);
            return n;
        }
        free(mask);
    }
    return 0;
}

/// Binds the calling thread to core `cpu`; 0 when done.
static inline int sfumato_bind_current_thread(int cpu) {
    if (cpu < 0) return -1;
    size_t words = (size_t)cpu / SFUMATO_MASK_WORD_BITS + 1;
    if (words < 1024 / SFUMATO_MASK_WORD_BITS) words = 1024 / SFUMATO_MASK_WORD_BITS;
    unsigned long *mask = (unsigned long *)calloc(words, sizeof(unsigned long));
    if (!mask) return -1;
    mask[cpu / SFUMATO_MASK_WORD_BITS] = 1UL << (cpu % SFUMATO_MASK_WORD_BITS);
    int status = sfumato_sched_setaffinity(0, words * sizeof(unsigned long), mask);
    free(mask);
    return status;
}
