/* SPDX-License-Identifier: BSD-3-Clause */
/* The RC QP state table, checked transition by transition; no hardware involved. */
#include "config.h"

#include "btl_rc/rc_qp.h"

#include "ck_run.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define S(x) IBV_QPS_##x

/* The legal RC transitions, written out independently of the table under test. */
static const struct {
    enum ibv_qp_state from, to;
} legal[] = {
    {S(RESET), S(RESET)}, {S(RESET), S(INIT)}, {S(RESET), S(ERR)}, {S(INIT), S(RESET)},
    {S(INIT), S(INIT)},   {S(INIT), S(RTR)},   {S(INIT), S(ERR)},  {S(RTR), S(RESET)},
    {S(RTR), S(RTS)},     {S(RTR), S(ERR)},    {S(RTS), S(RESET)}, {S(RTS), S(RTS)},
    {S(RTS), S(SQD)},     {S(RTS), S(ERR)},    {S(SQD), S(RESET)}, {S(SQD), S(RTS)},
    {S(SQD), S(SQD)},     {S(SQD), S(ERR)},    {S(SQE), S(RESET)}, {S(SQE), S(ERR)},
    {S(ERR), S(RESET)},   {S(ERR), S(ERR)},
};

static int is_legal(enum ibv_qp_state from, enum ibv_qp_state to)
{
    for (size_t i = 0; i < sizeof(legal) / sizeof(legal[0]); i++) {
        if (legal[i].from == from && legal[i].to == to) {
            return 1;
        }
    }
    return 0;
}

START_TEST(test_every_pair)
{
    int n_legal = 0;
    char why[512];

    for (int from = S(RESET); from <= S(ERR); from++) {
        for (int to = S(RESET); to <= S(ERR); to++) {
            int req = rcmsg_rc_qp_required(from, to);
            rcmsg_status_t s = rcmsg_rc_qp_check(from, to, req | IBV_QP_STATE, why, sizeof(why));

            if (is_legal(from, to)) {
                n_legal++;
                ck_assert_msg(s == RCMSG_OK, "%s -> %s should be legal: %s",
                              rcmsg_rc_qp_state_name(from), rcmsg_rc_qp_state_name(to), why);
            } else {
                ck_assert_msg(s == RCMSG_ERR_STATE, "%s -> %s should be refused",
                              rcmsg_rc_qp_state_name(from), rcmsg_rc_qp_state_name(to));
                ck_assert(strstr(why, "not a legal") != NULL);
                ck_assert_int_eq(req, 0);
            }
        }
    }
    ck_assert_int_eq(n_legal, (int)(sizeof(legal) / sizeof(legal[0])));
}
END_TEST

/* For each legal transition: dropping any one required attribute is refused. */
START_TEST(test_missing_required)
{
    char why[512];

    for (size_t i = 0; i < sizeof(legal) / sizeof(legal[0]); i++) {
        int req = rcmsg_rc_qp_required(legal[i].from, legal[i].to);
        ck_assert(req & IBV_QP_STATE);
        for (int bit = 1; bit != 0 && bit <= req; bit <<= 1) {
            if (!(req & bit)) {
                continue;
            }
            ck_assert_int_eq(
                rcmsg_rc_qp_check(legal[i].from, legal[i].to, req & ~bit, why, sizeof(why)),
                RCMSG_ERR_INVALID_PARAM);
            ck_assert(strstr(why, "lacks required") != NULL);
        }
    }
}
END_TEST

/* An attribute the transition does not take is refused; an optional one is accepted. */
START_TEST(test_extra_attributes)
{
    char why[512];
    int req = rcmsg_rc_qp_required(S(INIT), S(RTR));

    ck_assert_int_eq(rcmsg_rc_qp_check(S(INIT), S(RTR), req | IBV_QP_SQ_PSN, why, sizeof(why)),
                     RCMSG_ERR_INVALID_PARAM);
    ck_assert(strstr(why, "sq_psn") != NULL);
    ck_assert_int_eq(rcmsg_rc_qp_check(S(INIT), S(RTR), req | IBV_QP_PKEY_INDEX, NULL, 0),
                     RCMSG_OK);
    req = rcmsg_rc_qp_required(S(RTR), S(RTS));
    ck_assert_int_eq(rcmsg_rc_qp_check(S(RTR), S(RTS), req | IBV_QP_MIN_RNR_TIMER, NULL, 0),
                     RCMSG_OK);
    ck_assert_int_eq(rcmsg_rc_qp_check(S(RTR), S(RTS), req | IBV_QP_DEST_QPN, NULL, 0),
                     RCMSG_ERR_INVALID_PARAM);
    /* to ERR or RESET: the state only */
    ck_assert_int_eq(rcmsg_rc_qp_check(S(RTS), S(ERR), IBV_QP_STATE | IBV_QP_TIMEOUT, NULL, 0),
                     RCMSG_ERR_INVALID_PARAM);
}
END_TEST

START_TEST(test_the_bring_up_masks)
{
    /* the masks the transport uses (rc_ep.c), exactly as rc_pingpong sets them */
    int init = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
    int rtr = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
              IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
    int rts = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
              IBV_QP_MAX_QP_RD_ATOMIC;

    ck_assert_int_eq(rcmsg_rc_qp_check(S(RESET), S(INIT), init, NULL, 0), RCMSG_OK);
    ck_assert_int_eq(rcmsg_rc_qp_check(S(INIT), S(RTR), rtr, NULL, 0), RCMSG_OK);
    ck_assert_int_eq(rcmsg_rc_qp_check(S(RTR), S(RTS), rts, NULL, 0), RCMSG_OK);
    /* skipping a step is not */
    ck_assert_int_eq(rcmsg_rc_qp_check(S(RESET), S(RTR), rtr, NULL, 0), RCMSG_ERR_STATE);
    ck_assert_int_eq(rcmsg_rc_qp_check(S(INIT), S(RTS), rts, NULL, 0), RCMSG_ERR_STATE);
    ck_assert_int_eq(rcmsg_rc_qp_check(S(ERR), S(RTS), rts, NULL, 0), RCMSG_ERR_STATE);
}
END_TEST

START_TEST(test_names)
{
    ck_assert_str_eq(rcmsg_rc_qp_state_name(S(RESET)), "RESET");
    ck_assert_str_eq(rcmsg_rc_qp_state_name(S(RTS)), "RTS");
    ck_assert_str_eq(rcmsg_rc_qp_state_name(S(SQE)), "SQE");
    ck_assert_str_eq(rcmsg_rc_qp_state_name(S(ERR)), "ERR");
    ck_assert_str_eq(rcmsg_rc_qp_state_name((enum ibv_qp_state)99), "UNKNOWN");
    ck_assert_int_eq(rcmsg_rc_qp_check((enum ibv_qp_state)99, S(ERR), IBV_QP_STATE, NULL, 0),
                     RCMSG_ERR_STATE);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rc_qp");
    TCase *tc = tcase_create("state_table");

    tcase_add_test(tc, test_every_pair);
    tcase_add_test(tc, test_missing_required);
    tcase_add_test(tc, test_extra_attributes);
    tcase_add_test(tc, test_the_bring_up_masks);
    tcase_add_test(tc, test_names);
    suite_add_tcase(s, tc);
    return ck_run(s);
}
