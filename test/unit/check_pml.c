/* SPDX-License-Identifier: BSD-3-Clause */
/* Point-to-point pieces that need no transport: the per-pair sequence check. */
#include "config.h"

#include "pml/pml.h"

#include "ck_run.h"

#include <check.h>
#include <stdlib.h>

START_TEST(test_seq_in_order)
{
    ck_assert_int_eq(rcmsg_pml_seq_check(0, 0), 0);
    ck_assert_int_eq(rcmsg_pml_seq_check(41, 41), 0);
    ck_assert_int_eq(rcmsg_pml_seq_check(UINT32_MAX, UINT32_MAX), 0);
}
END_TEST

START_TEST(test_seq_duplicate)
{
    ck_assert_int_eq(rcmsg_pml_seq_check(10, 9), 1);
    ck_assert_int_eq(rcmsg_pml_seq_check(10, 0), 1);
    /* across the wrap: expecting 2 after 0xffffffff, 1, 0; 0xfffffffe is old */
    ck_assert_int_eq(rcmsg_pml_seq_check(2, UINT32_MAX - 1), 1);
}
END_TEST

START_TEST(test_seq_gap)
{
    ck_assert_int_eq(rcmsg_pml_seq_check(10, 11), 2);
    ck_assert_int_eq(rcmsg_pml_seq_check(10, 1000), 2);
    ck_assert_int_eq(rcmsg_pml_seq_check(UINT32_MAX, 1), 2);
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

int main(void)
{
    Suite *s = suite_create("pml");
    TCase *tc = tcase_create("wire");

    tcase_add_test(tc, test_seq_in_order);
    tcase_add_test(tc, test_seq_duplicate);
    tcase_add_test(tc, test_seq_gap);
    tcase_add_test(tc, test_msg_names);
    suite_add_tcase(s, tc);
    return ck_run(s);
}
