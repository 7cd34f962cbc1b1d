/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The progress hooks of rcmsg.h (rcmsg_progress_register): the table and its errors, the
 * order and the counts of a round (a negative count is 0; what a nested round handles counts
 * for the outer one), no reentrancy, (un)registering from inside a hook, the count kept for
 * the stall clock, and, in a singleton job, a blocking wait that only completes through a hook
 * (busy polling, then sleeping waits: RCMSG_WAIT_MODE=hybrid).
 */
#include "config.h"

#include "base/event.h"
#include "progress/progress.h"

#include "ck_run.h"

#include <check.h>
#include <rcmsg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int calls[3], order[8], norder, depth, max_depth;

/* Records its call (arg: its index in calls[]) and returns its index as its count. */
static int hook_record(void *arg)
{
    int i = (int)(intptr_t)arg;

    calls[i]++;
    if (norder < 8) {
        order[norder++] = i;
    }
    return i;
}

static int hook_negative(void *arg)
{
    (void)arg;
    return -5;
}

static void reset(void)
{
    memset(calls, 0, sizeof(calls));
    norder = depth = max_depth = 0;
}

START_TEST(test_register_errors)
{
    rcmsg_progress_fn_t fn = hook_record;

    ck_assert_int_eq(rcmsg_progress_register(NULL, NULL), RCMSG_ERR_INVALID_PARAM);
    ck_assert_int_eq(rcmsg_progress_unregister(NULL, NULL), RCMSG_ERR_INVALID_PARAM);
    ck_assert_int_eq(rcmsg_progress_unregister(fn, NULL), RCMSG_ERR_NOT_FOUND);
    for (intptr_t i = 0; i < RCMSG_PROGRESS_HOOK_MAX; i++) {
        ck_assert_int_eq(rcmsg_progress_register(fn, (void *)i), RCMSG_OK);
    }
    ck_assert_int_eq(rcmsg_progress_register(fn, (void *)(intptr_t)1), RCMSG_ERR_INVALID_PARAM);
    ck_assert_int_eq(rcmsg_progress_register(hook_negative, NULL), RCMSG_ERR_NO_RESOURCE);
    ck_assert_int_eq(rcmsg_progress_unregister(fn, (void *)(intptr_t)RCMSG_PROGRESS_HOOK_MAX),
                     RCMSG_ERR_NOT_FOUND);
    ck_assert_int_eq(rcmsg_progress_unregister(fn, (void *)(intptr_t)3), RCMSG_OK);
    ck_assert_int_eq(rcmsg_progress_unregister(fn, (void *)(intptr_t)3), RCMSG_ERR_NOT_FOUND);
    ck_assert_int_eq(rcmsg_progress_register(hook_negative, NULL), RCMSG_OK);
    ck_assert_int_eq(rcmsg_progress_unregister(hook_negative, NULL), RCMSG_OK);
    for (intptr_t i = 0; i < RCMSG_PROGRESS_HOOK_MAX; i++) {
        ck_assert_int_eq(rcmsg_progress_unregister(fn, (void *)i),
                         i == 3 ? RCMSG_ERR_NOT_FOUND : RCMSG_OK);
    }
}
END_TEST

/* No transport here (rcmsg_progress before init): a round is the hooks alone. */
START_TEST(test_round_counts)
{
    uint64_t advanced = rcmsg_progress_hooks_advanced();

    reset();
    ck_assert_int_eq(rcmsg_progress(), 0);
    ck_assert_int_eq(rcmsg_progress_register(hook_record, (void *)(intptr_t)2), RCMSG_OK);
    ck_assert_int_eq(rcmsg_progress_register(hook_negative, NULL), RCMSG_OK);
    ck_assert_int_eq(rcmsg_progress_register(hook_record, (void *)(intptr_t)1), RCMSG_OK);
    ck_assert_int_eq(rcmsg_progress(), 3); /* 2 + 0 (not -5) + 1 */
    ck_assert_int_eq(rcmsg_progress(), 3);
    ck_assert_int_eq(norder, 4);
    ck_assert_int_eq(order[0], 2); /* in the order of registration */
    ck_assert_int_eq(order[1], 1);
    ck_assert_uint_eq(rcmsg_progress_hooks_advanced() - advanced, 6);
    ck_assert_int_eq(rcmsg_progress_unregister(hook_record, (void *)(intptr_t)2), RCMSG_OK);
    ck_assert_int_eq(rcmsg_progress(), 1);
    ck_assert_int_eq(rcmsg_progress_unregister(hook_record, (void *)(intptr_t)1), RCMSG_OK);
    ck_assert_int_eq(rcmsg_progress_unregister(hook_negative, NULL), RCMSG_OK);
    ck_assert_int_eq(rcmsg_progress(), 0);
    ck_assert_int_eq(calls[2], 2);
    ck_assert_int_eq(calls[1], 3);
}
END_TEST

static int events_seen;

static void on_event(const rcmsg_event_t *event, void *arg)
{
    (void)event;
    (void)arg;
    events_seen++;
}

/* Makes progress rounds of its own (as a hook's rcmsg_test does): they must not call it again,
 * and the event they deliver counts for the outer round, though the hook returns 0. */
static int hook_nesting(void *arg)
{
    (void)arg;
    if (++depth > max_depth) {
        max_depth = depth;
    }
    calls[0]++;
    rcmsg_event_post(RCMSG_EVENT_CONNECTED, 0, "self", RCMSG_OK, "from a hook");
    ck_assert_int_eq(rcmsg_progress(), 1);
    ck_assert_int_eq(rcmsg_progress(), 0);
    depth--;
    return 0;
}

START_TEST(test_not_reentrant)
{
    reset();
    events_seen = 0;
    ck_assert_int_eq(rcmsg_event_handler_set(on_event, NULL), RCMSG_OK);
    ck_assert_int_eq(rcmsg_progress_register(hook_nesting, NULL), RCMSG_OK);
    ck_assert_int_eq(rcmsg_progress_register(hook_record, (void *)(intptr_t)1), RCMSG_OK);
    ck_assert_int_eq(rcmsg_progress(), 2); /* the nested round's event + hook_record's 1 */
    ck_assert_int_eq(rcmsg_progress(), 2);
    ck_assert_int_eq(calls[0], 2);
    ck_assert_int_eq(calls[1], 2); /* not called from the nested rounds either */
    ck_assert_int_eq(max_depth, 1);
    ck_assert_int_eq(events_seen, 2);
    ck_assert_int_eq(rcmsg_progress_unregister(hook_nesting, NULL), RCMSG_OK);
    ck_assert_int_eq(rcmsg_progress_unregister(hook_record, (void *)(intptr_t)1), RCMSG_OK);
    ck_assert_int_eq(rcmsg_event_handler_set(NULL, NULL), RCMSG_OK);
}
END_TEST

/* Unregisters itself and registers hook_record(2), which runs from the next round on. */
static int hook_swap(void *arg)
{
    (void)arg;
    calls[0]++;
    ck_assert_int_eq(rcmsg_progress_unregister(hook_swap, NULL), RCMSG_OK);
    ck_assert_int_eq(rcmsg_progress_register(hook_record, (void *)(intptr_t)2), RCMSG_OK);
    return 1;
}

START_TEST(test_change_inside)
{
    reset();
    ck_assert_int_eq(rcmsg_progress_register(hook_swap, NULL), RCMSG_OK);
    ck_assert_int_eq(rcmsg_progress_register(hook_record, (void *)(intptr_t)1), RCMSG_OK);
    ck_assert_int_eq(rcmsg_progress(), 2); /* swap 1, record(1) 1; record(2) not yet */
    ck_assert_int_eq(calls[0], 1);
    ck_assert_int_eq(calls[1], 1);
    ck_assert_int_eq(calls[2], 0);
    ck_assert_int_eq(rcmsg_progress(), 3); /* record(1), then record(2) */
    ck_assert_int_eq(calls[0], 1);
    ck_assert_int_eq(norder, 3);
    ck_assert_int_eq(order[1], 1);
    ck_assert_int_eq(order[2], 2);
    ck_assert_int_eq(rcmsg_progress_unregister(hook_swap, NULL), RCMSG_ERR_NOT_FOUND);
    ck_assert_int_eq(rcmsg_progress_unregister(hook_record, (void *)(intptr_t)1), RCMSG_OK);
    ck_assert_int_eq(rcmsg_progress_unregister(hook_record, (void *)(intptr_t)2), RCMSG_OK);
}
END_TEST

/* A hook that sends to self once it has been called `after` times: the receive the main
 * program waits for is matched only by that send. */
typedef struct {
    int after, calls;
    int value;
    rcmsg_request_t send;
    rcmsg_status_t status;
} sender_t;

static int hook_send(void *arg)
{
    sender_t *s = arg;
    int flag = 0;

    if (++s->calls != s->after) {
        return 0;
    }
    if (++depth > max_depth) {
        max_depth = depth;
    }
    s->status = rcmsg_isend(&s->value, sizeof(s->value), 0, 7, rcmsg_comm_world(), &s->send);
    if (s->status == RCMSG_OK) {
        s->status = rcmsg_test(&s->send, &flag, NULL); /* progresses: no hook from there */
    }
    depth--;
    return 1;
}

/* Waits for a receive that the hook's send matches; returns how long the wait took (ms). */
static double wait_through_hook(int after, int value)
{
    sender_t s = {.after = after, .value = value, .send = RCMSG_REQUEST_NULL};
    rcmsg_request_t recv;
    struct timespec t0, t1;
    int got = 0;

    ck_assert_int_eq(rcmsg_irecv(&got, sizeof(got), 0, 7, rcmsg_comm_world(), &recv), RCMSG_OK);
    ck_assert_int_eq(rcmsg_progress_register(hook_send, &s), RCMSG_OK);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(rcmsg_wait(&recv, NULL), RCMSG_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ck_assert_int_eq(rcmsg_progress_unregister(hook_send, &s), RCMSG_OK);
    ck_assert_int_eq(s.status, RCMSG_OK);
    ck_assert_int_ge(s.calls, after);
    ck_assert_int_eq(got, value);
    ck_assert_int_eq(rcmsg_wait(&s.send, NULL), RCMSG_OK);
    return (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
}

START_TEST(test_blocking_wait)
{
    reset();
    setenv("RCMSG_WAIT_MODE", "hybrid", 1);
    setenv("RCMSG_SPIN_COUNT", "20", 1);
    ck_assert_int_eq(rcmsg_init(), RCMSG_OK);
    ck_assert_int_eq(rcmsg_size(), 1);
    wait_through_hook(5, 41); /* within the idle polls */
    /* after 20 idle polls the wait sleeps (100 ms: a singleton has no fd to wake it), and the
     * hook still runs when it wakes */
    ck_assert_double_ge(wait_through_hook(25, 42), 90.0);
    ck_assert_int_eq(max_depth, 1);
    ck_assert_int_eq(rcmsg_finalize(), RCMSG_OK);
}
END_TEST

static Suite *progress_suite(void)
{
    Suite *s = suite_create("progress");
    TCase *tc = tcase_create("hooks");

    tcase_add_test(tc, test_register_errors);
    tcase_add_test(tc, test_round_counts);
    tcase_add_test(tc, test_not_reentrant);
    tcase_add_test(tc, test_change_inside);
    tcase_set_timeout(tc, 30);
    suite_add_tcase(s, tc);
    tc = tcase_create("wait");
    tcase_add_test(tc, test_blocking_wait);
    tcase_set_timeout(tc, 30);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return ck_run(progress_suite());
}
