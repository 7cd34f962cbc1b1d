/* SPDX-License-Identifier: BSD-3-Clause */
/* Point-to-point pieces that need no transport: the per-pair sequence check, the request
 * free list, the communicator handle table. */
#include "config.h"

#include "pml/pml.h"
#include "pml/pml_internal.h"

#include "ck_run.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_seq_in_order)
{
    ck_assert_int_eq(rcmsg_pml_seq_check(0, 0), RCMSG_PML_SEQ_IN_ORDER);
    ck_assert_int_eq(rcmsg_pml_seq_check(41, 41), RCMSG_PML_SEQ_IN_ORDER);
    ck_assert_int_eq(rcmsg_pml_seq_check(UINT32_MAX, UINT32_MAX), RCMSG_PML_SEQ_IN_ORDER);
}
END_TEST

START_TEST(test_seq_duplicate)
{
    ck_assert_int_eq(rcmsg_pml_seq_check(10, 9), RCMSG_PML_SEQ_DUPLICATE);
    ck_assert_int_eq(rcmsg_pml_seq_check(10, 0), RCMSG_PML_SEQ_DUPLICATE);
    /* across the wrap: expecting 2 after 0xffffffff, 1, 0; 0xfffffffe is old */
    ck_assert_int_eq(rcmsg_pml_seq_check(2, UINT32_MAX - 1), RCMSG_PML_SEQ_DUPLICATE);
}
END_TEST

START_TEST(test_seq_gap)
{
    ck_assert_int_eq(rcmsg_pml_seq_check(10, 11), RCMSG_PML_SEQ_GAP);
    ck_assert_int_eq(rcmsg_pml_seq_check(10, 1000), RCMSG_PML_SEQ_GAP);
    ck_assert_int_eq(rcmsg_pml_seq_check(UINT32_MAX, 1), RCMSG_PML_SEQ_GAP);
}
END_TEST

START_TEST(test_msg_names)
{
    ck_assert_str_eq(rcmsg_pml_msg_name(RCMSG_PML_EAGER), "EAGER");
    ck_assert_str_eq(rcmsg_pml_msg_name(RCMSG_PML_FIN), "FIN");
    ck_assert_str_eq(rcmsg_pml_msg_name(99), "UNKNOWN");
    ck_assert_uint_eq(sizeof(rcmsg_pml_hdr_t), 32);
}
END_TEST

static size_t free_count(void)
{
    size_t n = 0;

    for (rcmsg_queue_link_t *l = rcmsg_queue_first(&pml_reqs.free_reqs); l != NULL;
         l = rcmsg_queue_next(l)) {
        n++;
    }
    return n;
}

static void reqs_release(void)
{
    for (int c = 0; c < pml_reqs.nreq_chunks; c++) {
        free(pml_reqs.req_chunks[c]);
    }
    free(pml_reqs.req_chunks);
    memset(&pml, 0, sizeof(pml));
}

/* The free list is FIFO: a freed request comes back only after every other free one. */
START_TEST(test_req_free_fifo)
{
    rcmsg_request_t a, b, r;
    uint32_t gen_a;

    memset(&pml, 0, sizeof(pml));
    a = pml_req_alloc(PML_REQ_SEND);
    b = pml_req_alloc(PML_REQ_RECV);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(pml_reqs.nreq_chunks, 1);
    ck_assert_uint_eq(free_count(), PML_REQ_CHUNK - 2);
    gen_a = a->gen;
    pml_req_free(a);
    pml_req_free(b);
    pml_req_free(a); /* already free: left alone */
    ck_assert_int_eq(pml_reqs.live_reqs, 0);
    ck_assert_uint_eq(free_count(), PML_REQ_CHUNK);
    for (int i = 0; i < PML_REQ_CHUNK - 2; i++) {
        r = pml_req_alloc(PML_REQ_SEND);
        ck_assert_ptr_ne(r, a);
        ck_assert_ptr_ne(r, b);
    }
    ck_assert_ptr_eq(pml_req_alloc(PML_REQ_RECV), a);
    ck_assert_uint_eq(a->gen, gen_a + 1);
    ck_assert_int_eq(a->kind, PML_REQ_RECV);
    ck_assert_ptr_eq(pml_req_alloc(PML_REQ_SEND), b);
    ck_assert(rcmsg_queue_empty(&pml_reqs.free_reqs));
    /* empty: the next one grows the list by a chunk */
    r = pml_req_alloc(PML_REQ_SEND);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(pml_reqs.nreq_chunks, 2);
    ck_assert_uint_eq(r->index, PML_REQ_CHUNK);
    reqs_release();
}
END_TEST

/* A chunk added while requests are still free goes behind them, none lost. */
START_TEST(test_req_grow_keeps_free)
{
    rcmsg_request_t a;

    memset(&pml, 0, sizeof(pml));
    a = pml_req_alloc(PML_REQ_SEND);
    ck_assert_ptr_nonnull(a);
    pml_req_free(a);
    ck_assert_ptr_nonnull(pml_req_grow());
    ck_assert_uint_eq(free_count(), 2 * PML_REQ_CHUNK);
    ck_assert_uint_eq(pml_req_alloc(PML_REQ_SEND)->index,
                      1); /* the first chunk's free ones first */
    ck_assert_ptr_eq(
        RCMSG_CONTAINER_OF(rcmsg_queue_last(&pml_reqs.free_reqs), struct rcmsg_request, link),
        pml_req_at(2 * PML_REQ_CHUNK - 1));
    reqs_release();
}
END_TEST

/* A handle is valid while its slot is live, found by its context in either space; a freed,
 * foreign or misaligned one is refused without being read outside the table. */
START_TEST(test_comm_handles)
{
    struct rcmsg_comm outside = {.live = true}; /* live, but not in the table */
    struct rcmsg_comm *world, *c;

    ck_assert_int_eq(pml_comms_init(), RCMSG_OK);
    world = pml_comms_take(0);
    c = pml_comms_take(6);
    ck_assert_ptr_nonnull(world);
    ck_assert_ptr_eq(pml_comms.world, world);
    ck_assert_ptr_nonnull(c);
    ck_assert_ptr_null(pml_comms_take(6)); /* live already */
    ck_assert_ptr_null(pml_comms_take(2u * PML_CTX_IDS));
    ck_assert(pml_comm_valid(world));
    ck_assert(pml_comm_valid(c));
    ck_assert_ptr_eq(pml_comm_of_ctx(6), c);
    ck_assert_ptr_eq(pml_comm_of_ctx(7), c); /* its collective space */
    ck_assert_ptr_null(pml_comm_of_ctx(8));
    ck_assert_ptr_null(pml_comm_of_ctx(UINT32_MAX));
    ck_assert(!pml_comm_valid(NULL));
    ck_assert(!pml_comm_valid(&outside));
    ck_assert(!pml_comm_valid((rcmsg_comm_t)((char *)c + 1)));
    pml_comms_put(c);
    ck_assert(!pml_comm_valid(c));
    ck_assert_ptr_null(pml_comm_of_ctx(6));
    ck_assert_ptr_eq(pml_comms_take(6), c); /* the id agreed again: the same slot */
    pml_comms_put(c);
    pml_comms_put(world);
    ck_assert_ptr_null(pml_comms.world);
    pml_comms_fini();
    ck_assert(!pml_comm_valid(c)); /* no table: nothing is valid */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pml");
    TCase *tc = tcase_create("wire");

    tcase_add_test(tc, test_seq_in_order);
    tcase_add_test(tc, test_seq_duplicate);
    tcase_add_test(tc, test_seq_gap);
    tcase_add_test(tc, test_msg_names);
    suite_add_tcase(s, tc);
    tc = tcase_create("requests");
    tcase_add_test(tc, test_req_free_fifo);
    tcase_add_test(tc, test_req_grow_keeps_free);
    suite_add_tcase(s, tc);
    tc = tcase_create("communicators");
    tcase_add_test(tc, test_comm_handles);
    suite_add_tcase(s, tc);
    return ck_run(s);
}
