// Counts heap allocations made by the whole process (the benchmark executable defines malloc and friends,
// which take precedence over glibc's for every library), so a benchmark can report allocations per page.
#pragma once
#include <stdint.h>

/// Allocations (malloc, calloc, realloc of NULL, aligned) since the process started.
uint64_t parlor_allocation_count(void);
