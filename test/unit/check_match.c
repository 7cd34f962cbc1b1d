/* SPDX-License-Identifier: BSD-3-Clause */
/* The matching queues alone (no transport, no launcher): MPI order for posted receives and
 * unexpected messages, wildcards against the per-source queues, contexts, probe, cancel, a
 * sender taking a message back. */
#include "config.h"

#include "pml/pml_match.h"

#include "ck_run.h"

#include <check.h>
#include <stdlib.h>

#define ANY_SRC RCMSG_ANY_SOURCE
#define ANY_TAG RCMSG_ANY_TAG

typedef struct {
    rcmsg_match_msg_t m;
    int id;
} msg_t;

typedef struct {
    rcmsg_match_recv_t r;
    int id;
} recv_t;

static rcmsg_match_t mq;
static msg_t msgs[64];
static recv_t recvs[64];

static void setup(void)
{
    rcmsg_match_init(&mq, 8);
}

static void teardown(void)
{
    rcmsg_match_fini(&mq, NULL, NULL);
}

static void push(int id, uint32_t ctx, int src, int tag)
{
    msgs[id] = (msg_t){.m = {.ctx = ctx, .src = src, .tag = tag}, .id = id};
    ck_assert_int_eq(rcmsg_match_push(&mq, &msgs[id].m), RCMSG_OK);
}

static void post(int id, uint32_t ctx, int src, int tag)
{
    recvs[id] = (recv_t){.r = {.ctx = ctx, .src = src, .tag = tag}, .id = id};
    ck_assert_int_eq(rcmsg_match_post(&mq, &recvs[id].r), RCMSG_OK);
}

/* The id of the unexpected message a receive finds (-1: none). */
static int find(uint32_t ctx, int src, int tag, bool take)
{
    rcmsg_match_msg_t *m = rcmsg_match_find(&mq, ctx, src, tag, take);
    return m != NULL ? RCMSG_MATCH_ITEM(m, msg_t, m)->id : -1;
}

/* The id of the posted receive a message takes (-1: none). */
static int take(uint32_t ctx, int src, int tag)
{
    rcmsg_match_recv_t *r = rcmsg_match_take_recv(&mq, ctx, src, tag);
    return r != NULL ? RCMSG_MATCH_ITEM(r, recv_t, r)->id : -1;
}

START_TEST(test_unexpected_arrival_order)
{
    push(0, 0, 1, 5);
    push(1, 0, 1, 5);
    push(2, 0, 2, 5);
    push(3, 0, 1, 6);
    ck_assert_int_eq(find(0, 1, 5, true), 0); /* non-overtaking per source */
    ck_assert_int_eq(find(0, 1, 5, true), 1);
    ck_assert_int_eq(find(0, 1, 5, true), -1);
    ck_assert_int_eq(find(0, ANY_SRC, ANY_TAG, true), 2); /* arrival order over sources */
    ck_assert_int_eq(find(0, ANY_SRC, ANY_TAG, true), 3);
    ck_assert_int_eq(mq.nmsgs, 0);
}
END_TEST

START_TEST(test_unexpected_wildcards)
{
    push(0, 0, 3, 7);
    push(1, 0, 2, 8);
    push(2, 0, 3, 8);
    ck_assert_int_eq(find(0, 3, ANY_TAG, false), 0);
    ck_assert_int_eq(find(0, ANY_SRC, 8, false), 1);
    ck_assert_int_eq(find(0, 3, 8, true), 2); /* a named source skips other sources' messages */
    ck_assert_int_eq(find(0, ANY_SRC, 8, true), 1);
    ck_assert_int_eq(find(0, ANY_SRC, 8, true), -1);
    ck_assert_int_eq(find(0, 2, ANY_TAG, false), -1); /* taken through the wildcard */
    ck_assert_int_eq(find(0, 3, ANY_TAG, true), 0);
}
END_TEST

START_TEST(test_posted_order)
{
    post(0, 0, 1, 5);
    post(1, 0, 1, 5);
    post(2, 0, 1, ANY_TAG);
    ck_assert_int_eq(take(0, 1, 5), 0);
    ck_assert_int_eq(take(0, 1, 9), 2);
    ck_assert_int_eq(take(0, 1, 5), 1);
    ck_assert_int_eq(take(0, 1, 5), -1);
    ck_assert_int_eq(mq.nposted, 0);
}
END_TEST

START_TEST(test_earliest_posted_named_vs_wildcard)
{
    post(0, 0, ANY_SRC, 5); /* posted first: takes the first message */
    post(1, 0, 2, 5);
    post(2, 0, ANY_SRC, ANY_TAG);
    post(3, 0, 2, ANY_TAG);
    ck_assert_int_eq(take(0, 2, 5), 0);
    ck_assert_int_eq(take(0, 2, 5), 1);
    ck_assert_int_eq(take(0, 2, 5), 2); /* the wildcard is older than the named ANY_TAG */
    ck_assert_int_eq(take(0, 2, 5), 3);
    /* the other way round: the named receive is older */
    post(4, 0, 4, 1);
    post(5, 0, ANY_SRC, 1);
    ck_assert_int_eq(take(0, 4, 1), 4);
    ck_assert_int_eq(take(0, 4, 1), 5);
    /* a message of another source passes the named receives by */
    post(6, 0, 4, 1);
    post(7, 0, ANY_SRC, 1);
    ck_assert_int_eq(take(0, 3, 1), 7);
    ck_assert_int_eq(take(0, 3, 1), -1);
    ck_assert_int_eq(take(0, 4, 1), 6);
}
END_TEST

START_TEST(test_contexts_same_tags)
{
    push(0, 2, 1, 5);
    push(1, 0, 1, 5);
    push(2, 3, 1, 5); /* the collective space of context 2 */
    post(0, 3, 1, 5);
    post(1, 2, ANY_SRC, ANY_TAG);
    ck_assert_int_eq(find(0, ANY_SRC, ANY_TAG, true), 1);
    ck_assert_int_eq(find(0, ANY_SRC, ANY_TAG, true), -1);
    ck_assert_int_eq(find(3, 1, 5, true), 2);
    ck_assert_int_eq(find(2, 1, 5, true), 0);
    ck_assert_int_eq(take(0, 1, 5), -1);
    ck_assert_int_eq(take(2, 1, 5), 1);
    ck_assert_int_eq(take(3, 1, 5), 0);
    /* a context with no communicator: messages wait, and can be walked */
    push(3, 0x1234, 7, 1);
    ck_assert_int_eq(find(0x1234, 7, 1, false), 3);
    ck_assert_int_eq(take(0x1234, 7, 1), -1);
}
END_TEST

START_TEST(test_probe_does_not_take)
{
    push(0, 0, 1, 5);
    ck_assert_int_eq(find(0, 1, 5, false), 0);
    ck_assert_int_eq(find(0, ANY_SRC, ANY_TAG, false), 0);
    ck_assert_int_eq(mq.nmsgs, 1);
    ck_assert_int_eq(find(0, 1, 5, true), 0);
    ck_assert_int_eq(find(0, 1, 5, false), -1);
}
END_TEST

START_TEST(test_cancel)
{
    post(0, 0, 1, 5);
    post(1, 0, ANY_SRC, 5);
    post(2, 0, 1, 5);
    ck_assert(rcmsg_match_cancel(&mq, &recvs[0].r));
    ck_assert(!rcmsg_match_cancel(&mq, &recvs[0].r)); /* once */
    ck_assert(rcmsg_match_cancel(&mq, &recvs[1].r));
    ck_assert_int_eq(take(0, 1, 5), 2);
    ck_assert(!rcmsg_match_cancel(&mq, &recvs[2].r)); /* matched already */
    ck_assert_int_eq(mq.nposted, 0);
}
END_TEST

/* A sender takes one of its messages back (a cancelled send): the one the predicate names,
 * from its source only, whatever its tag; the others keep their order for receives. */
static bool is_id(const rcmsg_match_msg_t *m, void *arg)
{
    return RCMSG_MATCH_ITEM(m, const msg_t, m)->id == *(const int *)arg;
}

static int take_back(uint32_t ctx, int src, int id)
{
    rcmsg_match_msg_t *m = rcmsg_match_take_msg(&mq, ctx, src, is_id, &id);
    return m != NULL ? RCMSG_MATCH_ITEM(m, msg_t, m)->id : -1;
}

START_TEST(test_take_back)
{
    push(0, 2, 1, 5);
    push(1, 2, 1, 5);
    push(2, 2, 3, 5);
    push(3, 2, 1, 6);
    push(4, 2, 100, 5); /* a source out of range: on the context's queue only */
    ck_assert_int_eq(take_back(2, 3, 1), -1); /* not from that source */
    ck_assert_int_eq(take_back(4, 1, 1), -1); /* not in that context */
    ck_assert_int_eq(take_back(2, 1, 1), 1);
    ck_assert_int_eq(take_back(2, 1, 1), -1); /* gone */
    ck_assert_int_eq(take_back(2, 100, 4), 4);
    ck_assert_int_eq(take_back(2, 7, 4), -1); /* a source with no queue yet */
    ck_assert_int_eq(mq.nmsgs, 3);
    ck_assert_int_eq(find(2, ANY_SRC, 5, true), 0); /* the others, in arrival order */
    ck_assert_int_eq(find(2, ANY_SRC, ANY_TAG, true), 2);
    ck_assert_int_eq(find(2, 1, ANY_TAG, true), 3);
    ck_assert_int_eq(find(2, ANY_SRC, ANY_TAG, true), -1);
    ck_assert_int_eq(take_back(2, 1, 3), -1); /* received: nothing to take back */
}
END_TEST

/* A negative (internal) tag is matched by its own tag only: RCMSG_ANY_TAG, in a receive, a
 * probe or against a posted receive, never takes it; rcmsg_match_ctx_posted says whether a
 * receive waits on a context. */
START_TEST(test_internal_tag)
{
    push(0, 2, 1, -2);
    ck_assert_int_eq(find(2, 1, ANY_TAG, false), -1);
    ck_assert_int_eq(find(2, ANY_SRC, ANY_TAG, false), -1);
    ck_assert_int_eq(find(2, 1, -2, true), 0);
    ck_assert(!rcmsg_match_ctx_posted(&mq, 2));
    post(0, 2, ANY_SRC, ANY_TAG);
    post(1, 2, 1, -2);
    ck_assert(rcmsg_match_ctx_posted(&mq, 2));
    ck_assert(!rcmsg_match_ctx_posted(&mq, 4));
    ck_assert_int_eq(take(2, 1, -2), 1);
    ck_assert_int_eq(take(2, 1, 3), 0);
    ck_assert(!rcmsg_match_ctx_posted(&mq, 2));
}
END_TEST

static void count_msg(rcmsg_match_msg_t *m, void *arg)
{
    int *n = arg;
    if (RCMSG_MATCH_ITEM(m, msg_t, m)->id == *n) {
        rcmsg_match_remove(&mq, m); /* arrival order, and the current one may be removed */
    }
    (*n)++;
}

static void cancel_src1(rcmsg_match_recv_t *r, void *arg)
{
    (*(int *)arg)++;
    if (r->src == 1) {
        rcmsg_match_cancel(&mq, r);
    }
}

START_TEST(test_walks_and_bounds)
{
    int n = 0;
    push(0, 4, 1, 1);
    push(1, 4, 100, 1); /* out of the source range (context unknown): kept, context queue only */
    push(2, 4, -5, 1);
    rcmsg_match_msg_each(&mq, 4, count_msg, &n);
    ck_assert_int_eq(n, 3);
    ck_assert_int_eq(mq.nmsgs, 0);
    post(0, 0, 1, 1);
    post(1, 0, ANY_SRC, 1);
    post(2, 0, 1, 2);
    n = 0;
    rcmsg_match_recv_each(&mq, cancel_src1, &n);
    ck_assert_int_eq(n, 3);
    ck_assert_int_eq(mq.nposted, 1);
    ck_assert_int_eq(take(0, 1, 1), 1);
    recvs[9] = (recv_t){.r = {.ctx = 0, .src = 8, .tag = 1}};
    ck_assert_int_eq(rcmsg_match_post(&mq, &recvs[9].r), RCMSG_ERR_INVALID_PARAM);
    rcmsg_match_ctx_release(&mq, 4);
    ck_assert_int_eq(find(4, ANY_SRC, ANY_TAG, false), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("match");
    TCase *tc = tcase_create("queues");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_unexpected_arrival_order);
    tcase_add_test(tc, test_unexpected_wildcards);
    tcase_add_test(tc, test_posted_order);
    tcase_add_test(tc, test_earliest_posted_named_vs_wildcard);
    tcase_add_test(tc, test_contexts_same_tags);
    tcase_add_test(tc, test_probe_does_not_take);
    tcase_add_test(tc, test_cancel);
    tcase_add_test(tc, test_take_back);
    tcase_add_test(tc, test_walks_and_bounds);
    tcase_add_test(tc, test_internal_tag);
    suite_add_tcase(s, tc);
    return ck_run(s);
}
