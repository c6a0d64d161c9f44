// glibc's mallopt, whose option names are macros Swift does not import.
#include <malloc.h>

static inline int parlor_malloc_set_arena_max(int arenas) { return mallopt(M_ARENA_MAX, arenas); }
static inline int parlor_malloc_set_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }
