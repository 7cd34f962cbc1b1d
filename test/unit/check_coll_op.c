/* SPDX-License-Identifier: BSD-3-Clause */
/* Reduction kernels of the collectives, every operation on every datatype; no transport. */
#include "config.h"

#include "base/config_table.h"
#include "collectives/coll.h"
#include "collectives/coll_op.h"

#include "ck_run.h"

#include <check.h>
#include <math.h>
#include <string.h>

/* The reference result of one element, computed in long double / int64 independently. */
static long double ref(rcmsg_op_t op, long double a, long double b)
{
    switch (op) {
    case RCMSG_SUM:
        return a + b;
    case RCMSG_PROD:
        return a * b;
    case RCMSG_MIN:
        return a < b ? a : b;
    case RCMSG_MAX:
        return a > b ? a : b;
    case RCMSG_LAND:
        return (a != 0) && (b != 0);
    case RCMSG_LOR:
        return (a != 0) || (b != 0);
    case RCMSG_LXOR:
        return (a != 0) != (b != 0);
    case RCMSG_BAND:
        return (long double)((long long)a & (long long)b);
    case RCMSG_BOR:
        return (long double)((long long)a | (long long)b);
    case RCMSG_BXOR:
        return (long double)((long long)a ^ (long long)b);
    default:
        return 0;
    }
}

/* Whether dt can hold negative values. */
static int has_negatives(int dt)
{
    return dt == RCMSG_INT8 || dt == RCMSG_INT16 || dt == RCMSG_INT32 || dt == RCMSG_INT64 ||
           dt == RCMSG_FLOAT || dt == RCMSG_DOUBLE;
}

/* Small values (no overflow in any type), signed ones only for signed and FP types. */
static const int in_vals[] = {0, 1, 5, 7, 12, 3, 0, 9};
static const int io_vals[] = {0, 0, 3, 7, 5, 12, 2, 1};

#define CHECK_TYPE(name, type)                                                                     \
    if (dt == RCMSG_##name) {                                                                      \
        type in[8], io[8];                                                                         \
        for (int i = 0; i < 8; i++) {                                                              \
            in[i] = (type)(has_negatives(dt) && i == 5 ? -in_vals[i] : in_vals[i]);                \
            io[i] = (type)io_vals[i];                                                              \
        }                                                                                          \
        ck_assert_int_eq(rcmsg_coll_op_reduce(op, dt, in, io, 8), RCMSG_OK);                       \
        for (int i = 0; i < 8; i++) {                                                              \
            long double want = ref(                                                                \
                op, (long double)(type)(has_negatives(dt) && i == 5 ? -in_vals[i] : in_vals[i]),   \
                (long double)(type)io_vals[i]);                                                    \
            ck_assert_msg((long double)io[i] == (long double)(type)want,                           \
                          "%s %s element %d: got %Lg want %Lg", #name, rcmsg_coll_op_name(op), i,  \
                          (long double)io[i], want);                                               \
        }                                                                                          \
    }

START_TEST(test_every_pair)
{
    int checked = 0;

    for (int op = 0; op < RCMSG_OP_COUNT; op++) {
        for (int dt = 0; dt < RCMSG_DATATYPE_COUNT; dt++) {
            if (!rcmsg_coll_op_valid(op, dt)) {
                char a[16] = {0}, b[16] = {0};
                ck_assert_int_eq(rcmsg_coll_op_reduce(op, dt, a, b, 1), RCMSG_ERR_UNSUPPORTED);
                continue;
            }
            RCMSG_DATATYPE_LIST(CHECK_TYPE)
            checked++;
        }
    }
    /* 8 integer types x 10 operations, 2 floating-point types x 4 */
    ck_assert_int_eq(checked, 8 * 10 + 2 * 4);
}
END_TEST

START_TEST(test_wraps_without_overflow)
{
    uint16_t a[1] = {65535}, b[1] = {65535};
    int8_t c[1] = {127}, d[1] = {1};

    ck_assert_int_eq(rcmsg_coll_op_reduce(RCMSG_PROD, RCMSG_UINT16, a, b, 1), RCMSG_OK);
    ck_assert_uint_eq(b[0], 1); /* 65535^2 mod 2^16 */
    ck_assert_int_eq(rcmsg_coll_op_reduce(RCMSG_SUM, RCMSG_INT8, c, d, 1), RCMSG_OK);
    ck_assert_int_eq(d[0], -128);
}
END_TEST

START_TEST(test_invalid)
{
    double x = 1, y = 2;

    ck_assert_int_eq(rcmsg_coll_op_reduce(RCMSG_OP_COUNT, RCMSG_DOUBLE, &x, &y, 1),
                     RCMSG_ERR_INVALID_PARAM);
    ck_assert_int_eq(rcmsg_coll_op_reduce(RCMSG_SUM, RCMSG_DATATYPE_COUNT, &x, &y, 1),
                     RCMSG_ERR_INVALID_PARAM);
    ck_assert_int_eq(rcmsg_coll_op_reduce(RCMSG_SUM, RCMSG_DOUBLE, NULL, &y, 1),
                     RCMSG_ERR_INVALID_PARAM);
    ck_assert_int_eq(rcmsg_coll_op_reduce(RCMSG_SUM, RCMSG_DOUBLE, NULL, NULL, 0), RCMSG_OK);
    ck_assert_uint_eq(rcmsg_coll_dtype_size(RCMSG_INT64), 8);
    ck_assert_str_eq(rcmsg_coll_dtype_name(RCMSG_FLOAT), "FLOAT");
    ck_assert_str_eq(rcmsg_coll_op_name(RCMSG_BXOR), "BXOR");
}
END_TEST

/* The algorithms coll.c can run are exactly the choices of their variables, in order. */
START_TEST(test_algorithm_tables)
{
    static const rcmsg_config_id_t vars[RCMSG_COLL_COUNT] = {
#define VAR(id, name) RCMSG_CFG_COLL_##id##_ALGORITHM,
        RCMSG_COLL_LIST(VAR)
#undef VAR
    };

    for (int c = 0; c < RCMSG_COLL_COUNT; c++) {
        char form[256] = "auto";

        ck_assert_int_ge(rcmsg_coll_algorithm_count(c), 1);
        ck_assert_str_eq(rcmsg_coll_algorithm_name(c, RCMSG_COLL_ALG_AUTO), "auto");
        for (int a = 1; a <= rcmsg_coll_algorithm_count(c); a++) {
            ck_assert_ptr_nonnull(rcmsg_coll_algorithm_name(c, a)); /* it has a function */
            strcat(form, "|");
            strcat(form, rcmsg_coll_algorithm_name(c, a));
        }
        ck_assert_str_eq(form, rcmsg_config_desc(vars[c])->form);
        ck_assert_ptr_null(rcmsg_coll_algorithm_name(c, rcmsg_coll_algorithm_count(c) + 1));
        ck_assert_int_eq(rcmsg_coll_algorithm_force(c, rcmsg_coll_algorithm_count(c) + 1),
                         RCMSG_ERR_INVALID_PARAM);
    }
}
END_TEST

/* The folding of a non-power-of-two group: every new rank stands for a contiguous run of
 * real ranks, the runs cover every rank once, and the rank that takes part is in its run. */
START_TEST(test_fold)
{
    for (int n = 1; n <= 40; n++) {
        int pof2 = rcmsg_coll_pof2_floor(n), rem = n - pof2, seen = 0;

        ck_assert(pof2 <= n && 2 * pof2 > n && (pof2 & (pof2 - 1)) == 0);
        for (int i = 0; i < pof2; i++) {
            int first = rcmsg_coll_fold_first(i, rem), next = rcmsg_coll_fold_first(i + 1, rem);
            int real = rcmsg_coll_fold_realrank(i, rem);

            ck_assert_int_eq(first, seen);
            ck_assert(real >= first && real < next);
            ck_assert_int_eq(rcmsg_coll_fold_newrank(real, rem), i);
            seen = next;
        }
        ck_assert_int_eq(seen, n);
        for (int r = 0; r < n; r++) {
            int nr = rcmsg_coll_fold_newrank(r, rem);
            ck_assert(nr >= -1 && nr < pof2);
        }
        ck_assert_uint_eq(rcmsg_coll_block_off(10, n, 0), 0);
        ck_assert_uint_eq(rcmsg_coll_block_off(10, n, n), 10);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("coll_op");
    TCase *tc = tcase_create("reduce");

    tcase_add_test(tc, test_every_pair);
    tcase_add_test(tc, test_wraps_without_overflow);
    tcase_add_test(tc, test_invalid);
    suite_add_tcase(s, tc);
    tc = tcase_create("algorithms");
    tcase_add_test(tc, test_algorithm_tables);
    tcase_add_test(tc, test_fold);
    suite_add_tcase(s, tc);
    return ck_run(s);
}
