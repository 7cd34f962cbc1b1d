/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the registration cache alone: fake register/deregister callbacks, no
 * transport. */
#include "config.h"

#include "base/config_table.h"
#include "base/rcache.h"

#include "ck_run.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the fake callbacks fill in and count. */
typedef struct {
    void *addr;
    size_t len;
    bool remote_read;
    unsigned id; /* the nth registration */
} fake_handle_t;

static struct {
    unsigned regs, deregs;
    size_t live_bytes;
    rcmsg_status_t fail; /* reg() returns this when not OK */
} fake;

static int ctx_a, ctx_b; /* two contexts (two transports) */

static rcmsg_status_t fake_reg(void *ctx, void *addr, size_t len, bool remote_read, void *handle)
{
    (void)ctx;
    if (fake.fail != RCMSG_OK) {
        return fake.fail;
    }
    ck_assert_uint_eq((uintptr_t)handle % sizeof(void *), 0);
    *(fake_handle_t *)handle = (fake_handle_t){addr, len, remote_read, ++fake.regs};
    fake.live_bytes += len;
    return RCMSG_OK;
}

static void fake_dereg(void *ctx, void *handle)
{
    const fake_handle_t *h = handle;

    (void)ctx;
    ck_assert_uint_ge(fake.live_bytes, h->len);
    fake.live_bytes -= h->len;
    fake.deregs++;
}

static const rcmsg_rcache_ops_t fake_ops = {
    .reg = fake_reg,
    .dereg = fake_dereg,
    .handle_size = sizeof(fake_handle_t),
};

static size_t page;
static char *arena; /* 16 pages, page aligned */

/* Loads the configuration with RCMSG_RCACHE=enabled and RCMSG_RCACHE_SIZE=size_pages pages;
 * starts the cache. */
static void cache_start(const char *enabled, unsigned size_pages)
{
    char on[32], size[48];
    char *env[] = {on, size, NULL};

    snprintf(on, sizeof(on), "RCMSG_RCACHE=%s", enabled);
    snprintf(size, sizeof(size), "RCMSG_RCACHE_SIZE=%zu", size_pages * page);
    memset(&fake, 0, sizeof(fake));
    ck_assert_int_eq(rcmsg_config_load(env), RCMSG_OK);
    rcmsg_rcache_init(&fake_ops);
}

static void cache_stop(void)
{
    rcmsg_rcache_fini();
    rcmsg_config_unload();
}

static void setup(void)
{
    page = (size_t)sysconf(_SC_PAGESIZE);
    ck_assert_int_eq(posix_memalign((void **)&arena, page, 16 * page), 0);
}

static void teardown(void)
{
    free(arena);
}

/* get() of [arena + off, +len) in ctx; the handle through *h_p. */
static rcmsg_rcache_entry_t *get(void *ctx, size_t off, size_t len, bool remote_read,
                                 const fake_handle_t **h_p)
{
    rcmsg_rcache_entry_t *e = NULL;
    const void *h = NULL;

    ck_assert_int_eq(rcmsg_rcache_get(ctx, arena + off, len, remote_read, &e, &h), RCMSG_OK);
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_nonnull(h);
    *h_p = h;
    return e;
}

START_TEST(test_rcache_off)
{
    const fake_handle_t *h;
    rcmsg_rcache_entry_t *e;

    cache_start("no", 16);
    e = get(&ctx_a, 100, 50, true, &h);
    /* exactly the buffer, no page rounding, registered and released each time */
    ck_assert_ptr_eq(h->addr, arena + 100);
    ck_assert_uint_eq(h->len, 50);
    ck_assert(h->remote_read);
    rcmsg_rcache_put(e);
    ck_assert_uint_eq(fake.deregs, 1);
    e = get(&ctx_a, 100, 50, true, &h);
    rcmsg_rcache_put(e);
    ck_assert_uint_eq(fake.regs, 2);
    ck_assert_uint_eq(fake.deregs, 2);
    ck_assert_uint_eq(rcmsg_rcache_stats().hits, 0);
    cache_stop();
    ck_assert_uint_eq(fake.live_bytes, 0);
}
END_TEST

START_TEST(test_rcache_hits)
{
    const fake_handle_t *h1, *h2;
    rcmsg_rcache_entry_t *e1, *e2;

    cache_start("yes", 16);
    e1 = get(&ctx_a, 100, 50, true, &h1);
    /* whole pages registered */
    ck_assert_ptr_eq(h1->addr, arena);
    ck_assert_uint_eq(h1->len, page);
    rcmsg_rcache_put(e1);
    ck_assert_uint_eq(fake.deregs, 0); /* kept */
    /* another buffer on the same page hits, with the same handle */
    e2 = get(&ctx_a, 200, 300, true, &h2);
    ck_assert_ptr_eq(e2, e1);
    ck_assert_ptr_eq(h2, h1);
    ck_assert_uint_eq(fake.regs, 1);
    ck_assert_uint_eq(rcmsg_rcache_stats().hits, 1);
    rcmsg_rcache_put(e2);
    /* other access, other context, or past the page: a registration of its own */
    rcmsg_rcache_put(get(&ctx_a, 200, 300, false, &h2));
    ck_assert_uint_eq(fake.regs, 2);
    ck_assert(!h2->remote_read);
    rcmsg_rcache_put(get(&ctx_b, 200, 300, true, &h2));
    ck_assert_uint_eq(fake.regs, 3);
    rcmsg_rcache_put(get(&ctx_a, page - 10, 20, true, &h2));
    ck_assert_uint_eq(fake.regs, 4);
    ck_assert_uint_eq(h2->len, 2 * page);
    ck_assert_uint_eq(rcmsg_rcache_stats().bytes, 5 * page);
    ck_assert_uint_eq(fake.deregs, 0);
    /* fini deregisters everything */
    cache_stop();
    ck_assert_uint_eq(fake.deregs, 4);
    ck_assert_uint_eq(fake.live_bytes, 0);
}
END_TEST

START_TEST(test_rcache_lru_eviction)
{
    const fake_handle_t *h;
    rcmsg_rcache_entry_t *e;

    cache_start("yes", 3); /* room for three one-page entries */
    for (unsigned i = 0; i < 3; i++) {
        rcmsg_rcache_put(get(&ctx_a, i * page, 8, true, &h));
    }
    ck_assert_uint_eq(fake.regs, 3);
    /* page 0 used again: page 1 is now the least recently used */
    rcmsg_rcache_put(get(&ctx_a, 0, 8, true, &h));
    ck_assert_uint_eq(h->id, 1);
    /* a fourth page evicts page 1 only */
    rcmsg_rcache_put(get(&ctx_a, 3 * page, 8, true, &h));
    ck_assert_uint_eq(fake.deregs, 1);
    ck_assert_uint_eq(rcmsg_rcache_stats().bytes, 3 * page);
    e = get(&ctx_a, 0, 8, true, &h); /* still cached */
    ck_assert_uint_eq(h->id, 1);
    rcmsg_rcache_put(e);
    rcmsg_rcache_put(get(&ctx_a, page, 8, true, &h)); /* evicted: registered anew */
    ck_assert_uint_eq(h->id, 5);
    ck_assert_uint_eq(fake.deregs, 2);
    cache_stop();
    ck_assert_uint_eq(fake.deregs, 5);
    ck_assert_uint_eq(fake.live_bytes, 0);
}
END_TEST

START_TEST(test_rcache_in_use_kept)
{
    const fake_handle_t *h, *held_h;
    rcmsg_rcache_entry_t *held;

    cache_start("yes", 2);
    held = get(&ctx_a, 0, 8, true, &held_h); /* the least recently used, but in use */
    rcmsg_rcache_put(get(&ctx_a, page, 8, true, &h));
    rcmsg_rcache_put(get(&ctx_a, 2 * page, 8, true, &h));
    rcmsg_rcache_put(get(&ctx_a, 3 * page, 8, true, &h));
    /* the held entry stays registered; unused ones went to fit the limit */
    ck_assert_uint_eq(fake.deregs, 2);
    ck_assert_uint_eq(rcmsg_rcache_stats().bytes, 2 * page);
    ck_assert_ptr_eq(held_h->addr, arena);
    ck_assert_uint_eq(held_h->id, 1);
    /* its handle still valid and served again */
    ck_assert_ptr_eq(get(&ctx_a, 16, 8, true, &h), held);
    rcmsg_rcache_put(held);
    rcmsg_rcache_put(held);
    cache_stop();
    ck_assert_uint_eq(fake.deregs, 4);
    ck_assert_uint_eq(fake.live_bytes, 0);
}
END_TEST

START_TEST(test_rcache_reg_fails)
{
    rcmsg_rcache_entry_t *e = NULL;
    const void *h = NULL;

    cache_start("yes", 4);
    fake.fail = RCMSG_ERR_NO_RESOURCE;
    ck_assert_int_eq(rcmsg_rcache_get(&ctx_a, arena, 8, true, &e, &h), RCMSG_ERR_NO_RESOURCE);
    ck_assert_ptr_null(e); /* out-parameters untouched */
    ck_assert_ptr_null(h);
    ck_assert_uint_eq(rcmsg_rcache_stats().bytes, 0);
    cache_stop();
    ck_assert_uint_eq(fake.deregs, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rcache");
    TCase *tc = tcase_create("rcache");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_rcache_off);
    tcase_add_test(tc, test_rcache_hits);
    tcase_add_test(tc, test_rcache_lru_eviction);
    tcase_add_test(tc, test_rcache_in_use_kept);
    tcase_add_test(tc, test_rcache_reg_fails);
    suite_add_tcase(s, tc);
    return ck_run(s);
}
