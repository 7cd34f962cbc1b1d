/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Compile-time checks and small helpers every module may use. RCMSG_STATIC_ASSERT is the one
 * way to state a fact the compiler can check: wire record sizes, and the bound of every array
 * indexed by a configuration value or an enum (the array must cover the whole range).
 */
#ifndef RCMSG_BASE_COMPILER_H
#define RCMSG_BASE_COMPILER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define RCMSG_STATIC_ASSERT(cond, why) _Static_assert(cond, why)

/* The text of a macro's value as a string literal: RCMSG_STRINGIFY(RCMSG_POLL_BATCH_MAX) is
 * "256" (for a bound written once and quoted in a configuration range). */
#define RCMSG_STRINGIFY_(x) #x
#define RCMSG_STRINGIFY(x)  RCMSG_STRINGIFY_(x)

/* Number of elements of a true array (not a pointer). */
#define RCMSG_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The struct of type `type` whose member `member` is at ptr (intrusive links). */
#define RCMSG_CONTAINER_OF(ptr, type, member)                                                      \
    ((type *)(void *)((char *)(ptr)-offsetof(type, member)))

/* An array indexed by every value of an enum whose last member is COUNT must have COUNT
 * entries: RCMSG_ASSERT_COVERS(names, RCMSG_WAIT_COUNT). */
#define RCMSG_ASSERT_COVERS(a, count)                                                              \
    RCMSG_STATIC_ASSERT(RCMSG_ARRAY_SIZE(a) == (count), #a " must cover every value up "           \
                                                           "to " #count)

/* For a function whose loops over buffers should be vectorized at -O2: GCC's -O2 cost model
 * ("very cheap") leaves a loop whose buffers may overlap scalar; "dynamic" versions it with an
 * overlap check (the reduction operations: 2x at 16 KiB of doubles). Nothing elsewhere. */
#if defined(__GNUC__) && !defined(__clang__)
#define RCMSG_VECTORIZE_LOOPS __attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic")))
#else
#define RCMSG_VECTORIZE_LOOPS
#endif

/* ... and built for AVX-512 and AVX2 besides the baseline (SSE2 on x86-64), the one for this
 * CPU chosen at load time (configure's HAVE_TARGET_CLONES; config.h first): a sum of doubles in
 * L2 ran 1.5-2x faster with AVX2 or AVX-512 than with SSE2 (docs/performance.md, issue 19).
 * Each element is the same operation on the same two operands at any width: the same results.
 * GCC only: clang 14 names the dispatcher `f.ifunc`, which callers in other files miss. */
#if defined(HAVE_TARGET_CLONES) && !defined(__clang__)
#define RCMSG_VECTORIZE                                                                            \
    RCMSG_VECTORIZE_LOOPS __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define RCMSG_VECTORIZE RCMSG_VECTORIZE_LOOPS
#endif

/* memcpy(dst, src, n) for the short copies of every message (a header, a few bytes of
 * payload): up to 32 bytes inline, as two moves of 4, 8 or 16 bytes that may overlap in the
 * middle (no call, no loop), memcpy's call above. A call to memcpy cost some 15 instructions
 * for 8 bytes (its setup and the function's dispatch: callgrind). dst and src do not
 * overlap. */
typedef struct {
    uint64_t w[2];
} rcmsg_bytes16_t;

static inline void rcmsg_copy_short(void *dst, const void *src, size_t n)
{
    char *d = (char *)dst;
    const char *s = (const char *)src;

    if (n <= 16) {
        if (n >= 8) {
            uint64_t a, b;
            memcpy(&a, s, 8);
            memcpy(&b, s + n - 8, 8);
            memcpy(d, &a, 8);
            memcpy(d + n - 8, &b, 8);
        } else if (n >= 4) {
            uint32_t a, b;
            memcpy(&a, s, 4);
            memcpy(&b, s + n - 4, 4);
            memcpy(d, &a, 4);
            memcpy(d + n - 4, &b, 4);
        } else if (n > 0) {
            char a = s[0], b = s[n / 2], c = s[n - 1];
            d[0] = a;
            d[n / 2] = b;
            d[n - 1] = c;
        }
    } else if (n <= 32) {
        rcmsg_bytes16_t a, b;
        memcpy(&a, s, 16);
        memcpy(&b, s + n - 16, 16);
        memcpy(d, &a, 16);
        memcpy(d + n - 16, &b, 16);
    } else {
        memcpy(d, s, n);
    }
}

/* memset(dst, 0, n) for a constant n (a struct's part, cleared per message): straight 16-byte
 * stores, the last one overlapping. GCC -O2 clears more than 128 bytes with `rep stosq`, one
 * iteration per 8 bytes and a slow start (a request's 168 bytes: 30 instructions counted by
 * callgrind, against 12). */
static inline __attribute__((always_inline)) void rcmsg_zero_fixed(void *dst, size_t n)
{
    const rcmsg_bytes16_t zero = {{0, 0}};
    char *d = (char *)dst;
    size_t i;

#pragma GCC unroll 32
    for (i = 0; i + 16 <= n; i += 16) {
        memcpy(d + i, &zero, 16);
    }
    if (i < n && n >= 16) {
        memcpy(d + n - 16, &zero, 16);
    } else if (i < n) {
        memset(d + i, 0, n - i);
    }
}

#endif /* RCMSG_BASE_COMPILER_H */
