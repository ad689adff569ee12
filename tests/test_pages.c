// Large zeroed blocks and the heap warmed for a first frame: hints to the
// kernel that must never change what the memory holds.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pages.h"

// Every size comes back zeroed and writable end to end.
static void test_alloc_zeroed(void **state) {
    (void)state;
    static const size_t sizes[] = {0, 1, 4095, 4096, 3 << 20, (8 << 20) + 13};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        size_t n = sizes[i] ? sizes[i] : 1;
        unsigned char *p = pg_alloc(sizes[i]);
        assert_non_null(p);
        for (size_t k = 0; k < n; k += 997)
            if (p[k]) fail_msg("expected: byte %zu of %zu zero, got: %d", k, n, p[k]);
        assert_int_equal(p[n - 1], 0);
        memset(p, 0xA5, n);
        assert_int_equal(p[n - 1], 0xA5);
        pg_free(p, sizes[i]);
    }
    pg_free(NULL, 123);  // as free(NULL)
}

// Prefaulting memory that already holds data keeps the data.
static void test_prefault_keeps_contents(void **state) {
    (void)state;
    size_t n = (5 << 20) + 7;
    unsigned char *p = malloc(n);
    assert_non_null(p);
    for (size_t k = 0; k < n; k++) p[k] = (unsigned char)(k * 31u);
    pg_prefault(p, n);
    pg_prefault(p + 1, 10);  // less than a page: nothing to do
    for (size_t k = 0; k < n; k++)
        if (p[k] != (unsigned char)(k * 31u)) fail_msg("expected: byte %zu unchanged, got: %d", k, p[k]);
    free(p);
}

// After warming, allocations of every size behave as before.
static void test_warm_heap(void **state) {
    (void)state;
    pg_warm_heap(4 << 20);
    void *blocks[64];
    for (int i = 0; i < 64; i++) {
        size_t n = (size_t)(i + 1) * 40000;
        blocks[i] = malloc(n);
        assert_non_null(blocks[i]);
        memset(blocks[i], i, n);
    }
    for (int i = 0; i < 64; i++) {
        unsigned char *b = blocks[i];
        assert_int_equal(b[(size_t)(i + 1) * 40000 - 1], i);
        free(b);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc_zeroed),
        cmocka_unit_test(test_prefault_keeps_contents),
        cmocka_unit_test(test_warm_heap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
