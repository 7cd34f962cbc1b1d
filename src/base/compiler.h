/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Compile-time checks and small helpers every module may use. RCMSG_STATIC_ASSERT is the one
 * way to state a fact the compiler can check: wire record sizes, and the bound of every array
 * indexed by a configuration value or an enum (the array must cover the whole range).
 */
#ifndef RCMSG_BASE_COMPILER_H
#define RCMSG_BASE_COMPILER_H

#include <stddef.h>

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

#endif /* RCMSG_BASE_COMPILER_H */
