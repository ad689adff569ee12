// Large zeroed blocks taken from the kernel whole, for buffers that are
// written end to end at once (a canvas, a model's parameters). Touching a
// fresh page faults, and on a virtual machine a fault costs ~10 µs: 4 MB
// page by page took 11 ms where asking for it populated, on huge pages
// where the kernel offers them, took 0.3 ms (docs/PERFORMANCE.md).
#ifndef TT_PAGES_H
#define TT_PAGES_H

#include <stddef.h>

// A zeroed block of bytes, or NULL. Free it with pg_free and the same size.
// From 512 KB it is whole huge pages, aligned (it takes up to 2 MB more).
void *pg_alloc(size_t bytes);
void pg_free(void *p, size_t bytes);

// Faults in the whole pages inside [p, p + bytes) in one go (huge pages
// where offered), for memory someone else allocated that is about to be
// written whole, such as a window's framebuffer. Only a hint.
void pg_prefault(void *p, size_t bytes);

// Readies bytes of malloc's heap in one go, for a process about to make many
// allocations it touches at once (opening the CJK font allocates ~2.4 MB,
// a trace ~1.5 MB): blocks of up to 32 MB then come from that heap rather
// than from fresh mappings, and freed memory is kept. Costs bytes of
// resident memory; a no-op outside glibc on Linux.
void pg_warm_heap(size_t bytes);

// Bytes of physical memory (4 GiB where the system does not say).
size_t pg_physical_memory(void);

#endif
