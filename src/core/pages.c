// MAP_ANONYMOUS and madvise's advice are not in POSIX 2008.
#define _DEFAULT_SOURCE

#include "pages.h"

#include <stdint.h>
#include <stdlib.h>

#if defined(__linux__)
#include <malloc.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

// A huge page, the unit of a transparent huge page on x86-64 and arm64.
#define HUGE_PAGE ((size_t)2 << 20)

// What a block of bytes takes: from 512 KB, whole huge pages. A huge page
// only backs a 2 MB-aligned stretch, so a block that merely spans one (a
// 3.8 MB canvas anywhere) was mostly small pages; made whole and aligned,
// it is a few huge pages, which a virtual machine populates several times
// faster than small ones: a process populating 4 MB aligned took 1.1 ms of
// CPU in all where 4 MB unaligned took 2.5, and with 2 MB aligned 0.9 ms
// where 1 MB of small pages took 1.3 (docs/PERFORMANCE.md). Below 512 KB the rounding would cost more than it saves.
static size_t taken(size_t bytes) {
    if (bytes == 0) return 1;
    return bytes < ((size_t)512 << 10) || bytes > SIZE_MAX - HUGE_PAGE ? bytes : (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

void *pg_alloc(size_t bytes) {
    size_t n = taken(bytes), extra = n % HUGE_PAGE == 0 ? HUGE_PAGE : 0;  // room to align the start
    if (n > SIZE_MAX - extra) return NULL;
    char *p = mmap(NULL, n + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    if (extra) {  // the aligned n bytes kept, what is before and after them unmapped
        char *start = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
        if (start > p) munmap(p, (size_t)(start - p));
        if (p + extra > start) munmap(start + n, (size_t)(p + extra - start));
        p = start;
    }
    // Both are hints: an older kernel refuses them, and then the pages
    // simply fault in as they are first written.
#ifdef MADV_HUGEPAGE
    madvise(p, n, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
    madvise(p, n, MADV_POPULATE_WRITE);
#endif
    return p;
}

void pg_free(void *p, size_t bytes) {
    if (p) munmap(p, taken(bytes));
}

void pg_prefault(void *p, size_t bytes) {
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), lo = ((uintptr_t)p + page - 1) & ~(page - 1),
              hi = ((uintptr_t)p + bytes) & ~(page - 1);
    if (hi <= lo) return;
#ifdef MADV_HUGEPAGE
    madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
    madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#endif
}

void pg_warm_heap(size_t bytes) {
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
    // glibc maps each block of 128 KB or more afresh and unmaps it when
    // freed, so that every large block faults in page by page again
    mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest
    mallopt(M_TRIM_THRESHOLD, (int)(bytes * 2 < (64u << 20) ? (64u << 20) : bytes * 2));
    void *block = malloc(bytes);  // the heap grows to hold it; freed, it stays as the heap's free top
    if (!block) return;
    pg_prefault(block, bytes);
    free(block);
#else
    (void)bytes;
#endif
}

size_t pg_physical_memory(void) {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (size_t)pages * (size_t)size : (size_t)4 << 30;
}

#else

// 4 GiB when the system does not say, or as much as a 32-bit build (the web page's) can address
size_t pg_physical_memory(void) {
    uint64_t four = (uint64_t)4 << 30;
    return four > SIZE_MAX ? SIZE_MAX : (size_t)four;
}

void *pg_alloc(size_t bytes) { return calloc(1, bytes == 0 ? 1 : bytes); }

void pg_free(void *p, size_t bytes) {
    (void)bytes;
    free(p);
}

void pg_prefault(void *p, size_t bytes) {
    (void)p;
    (void)bytes;
}

void pg_warm_heap(size_t bytes) { (void)bytes; }

#endif
