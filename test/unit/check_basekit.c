/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the base kit: the intrusive queue, the hash, the wire codec, deadlines. */
#include "config.h"

#include "base/clock.h"
#include "base/hash.h"
#include "base/queue.h"
#include "base/wire.h"

#include "ck_run.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- queue ----------------------------------------------------------------------------- */

typedef struct {
    int id;
    rcmsg_queue_link_t link;
} item_t;

static int item_id(rcmsg_queue_link_t *l)
{
    return l != NULL ? RCMSG_CONTAINER_OF(l, item_t, link)->id : -1;
}

/* The ids of q in order, as a string of digits. */
static const char *queue_ids(const rcmsg_queue_t *q)
{
    static char buf[32];
    size_t n = 0;

    for (rcmsg_queue_link_t *l = rcmsg_queue_first(q); l != NULL && n + 1 < sizeof(buf);
         l = rcmsg_queue_next(l)) {
        buf[n++] = (char)('0' + item_id(l));
    }
    buf[n] = '\0';
    return buf;
}

START_TEST(test_queue_order)
{
    item_t it[6];
    rcmsg_queue_t q;

    memset(&q, 0, sizeof(q)); /* zeroed is empty */
    ck_assert(rcmsg_queue_empty(&q));
    ck_assert_ptr_null(rcmsg_queue_pop_head(&q));
    for (int i = 0; i < 6; i++) {
        it[i].id = i;
    }
    rcmsg_queue_push_tail(&q, &it[1].link);
    rcmsg_queue_push_tail(&q, &it[2].link);
    rcmsg_queue_push_head(&q, &it[0].link);
    rcmsg_queue_push_tail(&q, &it[3].link);
    ck_assert_str_eq(queue_ids(&q), "0123");
    ck_assert_int_eq(item_id(rcmsg_queue_last(&q)), 3);
    ck_assert_int_eq(item_id(rcmsg_queue_prev(&it[2].link)), 1);
    rcmsg_queue_remove(&q, &it[2].link); /* middle */
    ck_assert_str_eq(queue_ids(&q), "013");
    rcmsg_queue_remove(&q, &it[3].link); /* tail */
    rcmsg_queue_push_tail(&q, &it[4].link);
    ck_assert_str_eq(queue_ids(&q), "014");
    rcmsg_queue_remove(&q, &it[0].link); /* head */
    ck_assert_str_eq(queue_ids(&q), "14");
    ck_assert_int_eq(item_id(rcmsg_queue_pop_head(&q)), 1);
    ck_assert_int_eq(item_id(rcmsg_queue_pop_head(&q)), 4);
    ck_assert(rcmsg_queue_empty(&q));
    ck_assert_ptr_null(rcmsg_queue_last(&q));
    rcmsg_queue_push_head(&q, &it[5].link); /* push_head on an empty queue sets the tail */
    ck_assert_int_eq(item_id(rcmsg_queue_last(&q)), 5);
}
END_TEST

/* A queue copied out and reset (a batch taken at once) keeps its items in order. */
START_TEST(test_queue_take_all)
{
    item_t it[3] = {{.id = 0}, {.id = 1}, {.id = 2}}, extra = {.id = 7};
    rcmsg_queue_t q, batch;

    rcmsg_queue_init(&q);
    for (int i = 0; i < 3; i++) {
        rcmsg_queue_push_tail(&q, &it[i].link);
    }
    batch = q;
    rcmsg_queue_init(&q);
    rcmsg_queue_push_tail(&q, &extra.link); /* the source queue is reusable at once */
    ck_assert_str_eq(queue_ids(&batch), "012");
    ck_assert_str_eq(queue_ids(&q), "7");
}
END_TEST

/* ---- hash ------------------------------------------------------------------------------ */

typedef struct {
    uint64_t key;
    rcmsg_hash_link_t hl;
    int seen;
} entry_t;

static entry_t *entry_of(rcmsg_hash_link_t *l)
{
    return l != NULL ? RCMSG_CONTAINER_OF(l, entry_t, hl) : NULL;
}

START_TEST(test_hash_many)
{
    enum { N = 5000 };
    entry_t *e = calloc(N, sizeof(*e));
    rcmsg_hash_t h;
    size_t walked = 0;

    ck_assert_ptr_nonnull(e);
    memset(&h, 0, sizeof(h)); /* zeroed is empty */
    ck_assert_ptr_null(rcmsg_hash_find(&h, 7));
    ck_assert_ptr_null(rcmsg_hash_first(&h));
    for (int i = 0; i < N; i++) {
        e[i].key = (uint64_t)i * 0x10001u + ((uint64_t)i << 40); /* spread and dense bits */
        ck_assert_int_eq(rcmsg_hash_insert(&h, &e[i].hl, e[i].key), RCMSG_OK);
    }
    ck_assert_uint_eq(rcmsg_hash_count(&h), N);
    for (int i = 0; i < N; i++) {
        ck_assert_ptr_eq(entry_of(rcmsg_hash_find(&h, e[i].key)), &e[i]);
    }
    ck_assert_ptr_null(rcmsg_hash_find(&h, 3)); /* not a key */
    /* every other one removed, the rest still found, the removed ones not */
    for (int i = 0; i < N; i += 2) {
        ck_assert(rcmsg_hash_remove(&h, &e[i].hl));
    }
    ck_assert(!rcmsg_hash_remove(&h, &e[0].hl)); /* not in the table any more */
    ck_assert_uint_eq(rcmsg_hash_count(&h), N / 2);
    for (int i = 0; i < N; i++) {
        ck_assert_ptr_eq(entry_of(rcmsg_hash_find(&h, e[i].key)), i % 2 ? &e[i] : NULL);
    }
    /* a walk sees each remaining entry once, and may remove the one it is on */
    for (rcmsg_hash_link_t *l = rcmsg_hash_first(&h), *next; l != NULL; l = next) {
        next = rcmsg_hash_next(&h, l);
        entry_of(l)->seen++;
        walked++;
        rcmsg_hash_remove(&h, l);
    }
    ck_assert_uint_eq(walked, N / 2);
    for (int i = 1; i < N; i += 2) {
        ck_assert_int_eq(e[i].seen, 1);
    }
    ck_assert_uint_eq(rcmsg_hash_count(&h), 0);
    ck_assert_ptr_null(rcmsg_hash_first(&h));
    rcmsg_hash_fini(&h);
    ck_assert_ptr_null(rcmsg_hash_find(&h, e[1].key));
    free(e);
}
END_TEST

/* Keys that all fall in one bucket: one chain, found and removed at any position, and still
 * found after the table grows under them. */
START_TEST(test_hash_collisions)
{
    enum { NC = 12, NMORE = 100 };
    entry_t c[NC], more[NMORE];
    rcmsg_hash_t h;
    int n = 0;

    rcmsg_hash_init(&h);
    memset(c, 0, sizeof(c));
    memset(more, 0, sizeof(more));
    ck_assert_int_eq(rcmsg_hash_insert(&h, &c[n].hl, 1), RCMSG_OK);
    c[n++].key = 1;
    ck_assert_uint_eq(h.bits, RCMSG_HASH_MIN_BITS);
    for (uint64_t k = 2; n < NC; k++) {
        if (rcmsg_hash_bucket(&h, k) == rcmsg_hash_bucket(&h, 1)) {
            c[n].key = k;
            ck_assert_int_eq(rcmsg_hash_insert(&h, &c[n].hl, k), RCMSG_OK);
            n++;
        }
    }
    ck_assert_uint_eq(h.bits, RCMSG_HASH_MIN_BITS); /* not grown: one chain of NC */
    for (int i = 0; i < NC; i++) {
        ck_assert_ptr_eq(entry_of(rcmsg_hash_find(&h, c[i].key)), &c[i]);
    }
    ck_assert(rcmsg_hash_remove(&h, &c[0].hl));      /* chain tail (first inserted) */
    ck_assert(rcmsg_hash_remove(&h, &c[NC - 1].hl)); /* chain head */
    ck_assert(rcmsg_hash_remove(&h, &c[NC / 2].hl)); /* middle */
    for (int i = 0; i < NC; i++) {
        bool gone = i == 0 || i == NC - 1 || i == NC / 2;
        ck_assert_ptr_eq(entry_of(rcmsg_hash_find(&h, c[i].key)), gone ? NULL : &c[i]);
    }
    for (int i = 0; i < NMORE; i++) { /* grows the table */
        more[i].key = 1000000 + (uint64_t)i;
        ck_assert_int_eq(rcmsg_hash_insert(&h, &more[i].hl, more[i].key), RCMSG_OK);
    }
    ck_assert_uint_gt(h.bits, RCMSG_HASH_MIN_BITS);
    for (int i = 1; i < NC - 1; i++) {
        ck_assert_ptr_eq(entry_of(rcmsg_hash_find(&h, c[i].key)), i == NC / 2 ? NULL : &c[i]);
    }
    for (int i = 0; i < NMORE; i++) {
        ck_assert_ptr_eq(entry_of(rcmsg_hash_find(&h, more[i].key)), &more[i]);
    }
    ck_assert_uint_eq(rcmsg_hash_count(&h), NC - 3 + NMORE);
    rcmsg_hash_fini(&h);
}
END_TEST

/* The byte-string hash is FNV-1a: the published test vectors, and the bytes of a context
 * derivation hashed as pml_comm.c did by hand before (the same contexts as before). */
START_TEST(test_hash_bytes)
{
    const uint32_t v[3] = {0x12345678u, 3, (uint32_t)-1};
    uint8_t bytes[12];
    uint32_t want = 2166136261u;

    ck_assert_uint_eq(rcmsg_hash_bytes32("", 0), 0x811c9dc5u);
    ck_assert_uint_eq(rcmsg_hash_bytes32("a", 1), 0xe40c292cu);
    ck_assert_uint_eq(rcmsg_hash_bytes32("foobar", 6), 0xbf9cf968u);
    ck_assert_uint_eq(rcmsg_hash_bytes64("", 0), 0xcbf29ce484222325ull);
    ck_assert_uint_eq(rcmsg_hash_bytes64("a", 1), 0xaf63dc4c8601ec8cull);
    ck_assert_uint_eq(rcmsg_hash_bytes64("foobar", 6), 0x85944171f73967e8ull);
    for (int i = 0; i < 3; i++) {
        rcmsg_wire_put_u32(bytes + 4 * i, v[i]);
        for (int b = 0; b < 4; b++) {
            want = (want ^ ((v[i] >> (8 * b)) & 0xff)) * 16777619u;
        }
    }
    ck_assert_uint_eq(rcmsg_hash_bytes32(bytes, sizeof(bytes)), want);
}
END_TEST

/* ---- wire codec ------------------------------------------------------------------------ */

START_TEST(test_wire_values)
{
    uint8_t b[8];
    const uint8_t le64[8] = {0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01};

    rcmsg_wire_put_u16(b, 0x0102);
    ck_assert(b[0] == 0x02 && b[1] == 0x01);
    ck_assert_uint_eq(rcmsg_wire_get_u16(b), 0x0102);
    rcmsg_wire_put_u32(b, 0x01020304u);
    ck_assert(b[0] == 0x04 && b[3] == 0x01);
    ck_assert_uint_eq(rcmsg_wire_get_u32(b), 0x01020304u);
    rcmsg_wire_put_u64(b, 0x0102030405060708ull);
    ck_assert_mem_eq(b, le64, 8);
    ck_assert_uint_eq(rcmsg_wire_get_u64(b), 0x0102030405060708ull);
    rcmsg_wire_put_u8(b, 0xab);
    ck_assert_uint_eq(rcmsg_wire_get_u8(b), 0xab);
    rcmsg_wire_put_be32(b + 1, 0x01020304u); /* big-endian (verbs imm_data), any alignment */
    ck_assert(b[1] == 0x01 && b[2] == 0x02 && b[3] == 0x03 && b[4] == 0x04);
    ck_assert_uint_eq(rcmsg_wire_get_be32(b + 1), 0x01020304u);
}
END_TEST

START_TEST(test_wire_roundtrip)
{
    uint8_t buf[32];
    rcmsg_wire_writer_t w;
    rcmsg_wire_reader_t r;
    const uint8_t *bytes;

    rcmsg_wire_writer_init(&w, buf, sizeof(buf));
    rcmsg_wire_write_u8(&w, 0xfe);
    rcmsg_wire_write_u16(&w, 0xbeef);
    rcmsg_wire_write_u32(&w, 0xdeadbeefu);
    rcmsg_wire_write_u64(&w, 0x1122334455667788ull);
    rcmsg_wire_write_bytes(&w, "hi", 2);
    ck_assert(rcmsg_wire_writer_ok(&w));
    ck_assert_uint_eq(sizeof(buf) - w.left, 17);
    rcmsg_wire_reader_init(&r, buf, 17);
    ck_assert_uint_eq(rcmsg_wire_read_u8(&r), 0xfe);
    ck_assert_uint_eq(rcmsg_wire_read_u16(&r), 0xbeef);
    ck_assert_uint_eq(rcmsg_wire_read_u32(&r), 0xdeadbeefu);
    ck_assert_uint_eq(rcmsg_wire_read_u64(&r), 0x1122334455667788ull);
    bytes = rcmsg_wire_read_bytes(&r, 2);
    ck_assert_ptr_nonnull(bytes);
    ck_assert_mem_eq(bytes, "hi", 2);
    ck_assert(rcmsg_wire_reader_ok(&r));
    ck_assert_uint_eq(rcmsg_wire_reader_left(&r), 0);
}
END_TEST

START_TEST(test_wire_short)
{
    const uint8_t buf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint8_t out[5];
    rcmsg_wire_reader_t r;
    rcmsg_wire_writer_t w;

    rcmsg_wire_reader_init(&r, buf, 3);
    ck_assert_uint_eq(rcmsg_wire_read_u32(&r), 0); /* 4 bytes from 3: refused */
    ck_assert(!rcmsg_wire_reader_ok(&r));
    ck_assert_uint_eq(rcmsg_wire_reader_left(&r), 3); /* the cursor did not move */
    ck_assert_uint_eq(rcmsg_wire_read_u8(&r), 0);     /* and stays failed */
    ck_assert(!rcmsg_wire_reader_ok(&r));
    rcmsg_wire_reader_init(&r, buf, 8);
    ck_assert_ptr_null(rcmsg_wire_read_bytes(&r, 9));
    ck_assert_uint_eq(rcmsg_wire_reader_left(&r), 8);
    rcmsg_wire_reader_init(&r, NULL, 100); /* no buffer: nothing to read */
    ck_assert_uint_eq(rcmsg_wire_reader_left(&r), 0);
    ck_assert_uint_eq(rcmsg_wire_read_u16(&r), 0);
    ck_assert(!rcmsg_wire_reader_ok(&r));
    memset(out, 0, sizeof(out));
    rcmsg_wire_writer_init(&w, out, 5);
    rcmsg_wire_write_u32(&w, 0x01020304u);
    rcmsg_wire_write_u16(&w, 0xffff); /* does not fit: nothing written */
    ck_assert(!rcmsg_wire_writer_ok(&w));
    ck_assert_uint_eq(out[4], 0);
    rcmsg_wire_write_u8(&w, 0xff); /* would fit, but the writer failed already */
    ck_assert_uint_eq(out[4], 0);
}
END_TEST

/* ---- deadlines ------------------------------------------------------------------------- */

START_TEST(test_deadline_values)
{
    rcmsg_deadline_t past = rcmsg_deadline_at(0), never = rcmsg_deadline_at(UINT64_MAX);
    rcmsg_deadline_t d = rcmsg_deadline_after(1000, 500);

    ck_assert(rcmsg_deadline_passed(past));
    ck_assert(!rcmsg_deadline_passed(never));
    ck_assert_uint_eq(rcmsg_deadline_left_us(past), 0);
    ck_assert_int_eq(rcmsg_deadline_left_ms(past), 0);
    ck_assert_int_eq(rcmsg_deadline_left_ms(never), INT32_MAX);
    ck_assert(!rcmsg_deadline_passed_at(d, 1499));
    ck_assert(rcmsg_deadline_passed_at(d, 1500));
    /* a timeout too long for the clock saturates instead of wrapping into the past */
    ck_assert_uint_eq(rcmsg_deadline_after(UINT64_MAX - 5, 100).at_us, UINT64_MAX);
    ck_assert(!rcmsg_deadline_passed(rcmsg_deadline_in(UINT64_MAX)));
    /* sums of durations saturate too (a huge timeout plus a grace period) */
    ck_assert_uint_eq(rcmsg_time_add_us(1000, 500), 1500);
    ck_assert_uint_eq(rcmsg_time_add_us(UINT64_MAX - 1000, 1000), UINT64_MAX);
    ck_assert_uint_eq(rcmsg_time_add_us(UINT64_MAX - 999999, 1000000), UINT64_MAX);
    ck_assert_uint_eq(rcmsg_time_add_us(UINT64_MAX, UINT64_MAX), UINT64_MAX);
    ck_assert_uint_eq(rcmsg_deadline_min(d, never).at_us, 1500);
    ck_assert_uint_eq(rcmsg_deadline_min(never, d).at_us, 1500);
    /* left, at a given time: milliseconds rounded up, so a wait of that long is not early */
    ck_assert_uint_eq(rcmsg_deadline_left_us_at(d, 499), 1001);
    ck_assert_int_eq(rcmsg_deadline_left_ms_at(d, 0), 2);
    ck_assert_int_eq(rcmsg_deadline_left_ms_at(d, 499), 2);
    ck_assert_int_eq(rcmsg_deadline_left_ms_at(d, 500), 1);
    ck_assert_int_eq(rcmsg_deadline_left_ms_at(d, 1499), 1);
    ck_assert_int_eq(rcmsg_deadline_left_ms_at(d, 1500), 0);
    ck_assert_int_eq(rcmsg_deadline_left_ms_at(d, 9999), 0);
    ck_assert_int_eq(rcmsg_deadline_left_ms_at(never, 0), INT32_MAX);
    ck_assert_int_eq(rcmsg_deadline_timespec(d).tv_sec, 0);
    ck_assert_int_eq(rcmsg_deadline_timespec(d).tv_nsec, 1500000);
}
END_TEST

START_TEST(test_deadline_clock)
{
    rcmsg_deadline_t d = rcmsg_deadline_in(20000), hour = rcmsg_deadline_in(3600000000ull);
    uint64_t left = rcmsg_deadline_left_us(hour);

    ck_assert(rcmsg_deadline_passed(rcmsg_deadline_in(0)));
    ck_assert(!rcmsg_deadline_passed(hour));
    ck_assert(left <= 3600000000ull && left > 3599000000ull);
    ck_assert_int_le(rcmsg_deadline_left_ms(hour), 3600000);
    ck_assert_int_gt(rcmsg_deadline_left_ms(hour), 3599000);
    usleep(30000);
    ck_assert(rcmsg_deadline_passed(d));
    ck_assert_int_eq(rcmsg_deadline_left_ms(d), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("basekit");
    TCase *tq = tcase_create("queue"), *th = tcase_create("hash");
    TCase *tw = tcase_create("wire"), *td = tcase_create("deadline");

    tcase_add_test(tq, test_queue_order);
    tcase_add_test(tq, test_queue_take_all);
    tcase_add_test(th, test_hash_many);
    tcase_add_test(th, test_hash_collisions);
    tcase_add_test(th, test_hash_bytes);
    tcase_add_test(tw, test_wire_values);
    tcase_add_test(tw, test_wire_roundtrip);
    tcase_add_test(tw, test_wire_short);
    tcase_add_test(td, test_deadline_values);
    tcase_add_test(td, test_deadline_clock);
    suite_add_tcase(s, tq);
    suite_add_tcase(s, th);
    suite_add_tcase(s, tw);
    suite_add_tcase(s, td);
    return ck_run(s);
}
