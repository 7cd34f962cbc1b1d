/* Reduction kernels of the collectives, every operation on every datatype; no transport. */
#include "config.h"

#include "collectives/coll_op.h"

#include "ck_run.h"

#include <check.h>
#include <math.h>
#include <string.h>

/* The reference result of one element, computed in long double / int64 independently. */
static long double ref(rcmsg_coll_op_t op, long double a, long double b)
{
    switch (op) {
    case RCMSG_COLL_OP_SUM:
        return a + b;
    case RCMSG_COLL_OP_PROD:
        return a * b;
    case RCMSG_COLL_OP_MIN:
        return a < b ? a : b;
    case RCMSG_COLL_OP_MAX:
        return a > b ? a : b;
    case RCMSG_COLL_OP_LAND:
        return (a != 0) && (b != 0);
    case RCMSG_COLL_OP_LOR:
        return (a != 0) || (b != 0);
    case RCMSG_COLL_OP_LXOR:
        return (a != 0) != (b != 0);
    case RCMSG_COLL_OP_BAND:
        return (long double)((long long)a & (long long)b);
    case RCMSG_COLL_OP_BOR:
        return (long double)((long long)a | (long long)b);
    case RCMSG_COLL_OP_BXOR:
        return (long double)((long long)a ^ (long long)b);
    default:
        return 0;
    }
}

/* Small values (no overflow in any type), signed ones only for signed and FP types. */
static const int in_vals[] = {0, 1, 5, 7, 12, 3, 0, 9};
static const int io_vals[] = {0, 0, 3, 7, 5, 12, 2, 1};

#define CHECK_TYPE(name, type, kind)                                                               \
    if (dt == RCMSG_COLL_##name) {                                                                 \
        type in[8], io[8];                                                                         \
        for (int i = 0; i < 8; i++) {                                                              \
            in[i] = (type)(kind == 1 && i == 5 ? -in_vals[i] : in_vals[i]);                        \
            io[i] = (type)io_vals[i];                                                              \
        }                                                                                          \
        ck_assert_int_eq(rcmsg_coll_op_reduce(op, dt, in, io, 8), RCMSG_OK);                       \
        for (int i = 0; i < 8; i++) {                                                              \
            long double want =                                                                     \
                ref(op, (long double)(type)(kind == 1 && i == 5 ? -in_vals[i] : in_vals[i]),       \
                    (long double)(type)io_vals[i]);                                                \
            ck_assert_msg((long double)io[i] == (long double)(type)want,                           \
                          "%s %s element %d: got %Lg want %Lg", #name, rcmsg_coll_op_name(op), i,  \
                          (long double)io[i], want);                                               \
        }                                                                                          \
    }

START_TEST(test_every_pair)
{
    int checked = 0;

    for (int op = 0; op < RCMSG_COLL_OP_COUNT; op++) {
        for (int dt = 0; dt < RCMSG_COLL_DTYPE_COUNT; dt++) {
            if (!rcmsg_coll_op_valid(op, dt)) {
                char a[16] = {0}, b[16] = {0};
                ck_assert_int_eq(rcmsg_coll_op_reduce(op, dt, a, b, 1), RCMSG_ERR_UNSUPPORTED);
                continue;
            }
            RCMSG_COLL_DTYPE_LIST(CHECK_TYPE)
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

    ck_assert_int_eq(rcmsg_coll_op_reduce(RCMSG_COLL_OP_PROD, RCMSG_COLL_UINT16, a, b, 1),
                     RCMSG_OK);
    ck_assert_uint_eq(b[0], 1); /* 65535^2 mod 2^16 */
    ck_assert_int_eq(rcmsg_coll_op_reduce(RCMSG_COLL_OP_SUM, RCMSG_COLL_INT8, c, d, 1), RCMSG_OK);
    ck_assert_int_eq(d[0], -128);
}
END_TEST

START_TEST(test_invalid)
{
    double x = 1, y = 2;

    ck_assert_int_eq(rcmsg_coll_op_reduce(RCMSG_COLL_OP_COUNT, RCMSG_COLL_DOUBLE, &x, &y, 1),
                     RCMSG_ERR_INVALID_PARAM);
    ck_assert_int_eq(rcmsg_coll_op_reduce(RCMSG_COLL_OP_SUM, RCMSG_COLL_DTYPE_COUNT, &x, &y, 1),
                     RCMSG_ERR_INVALID_PARAM);
    ck_assert_int_eq(rcmsg_coll_op_reduce(RCMSG_COLL_OP_SUM, RCMSG_COLL_DOUBLE, NULL, &y, 1),
                     RCMSG_ERR_INVALID_PARAM);
    ck_assert_int_eq(rcmsg_coll_op_reduce(RCMSG_COLL_OP_SUM, RCMSG_COLL_DOUBLE, NULL, NULL, 0),
                     RCMSG_OK);
    ck_assert_uint_eq(rcmsg_coll_dtype_size(RCMSG_COLL_INT64), 8);
    ck_assert_str_eq(rcmsg_coll_dtype_name(RCMSG_COLL_FLOAT), "FLOAT");
    ck_assert_str_eq(rcmsg_coll_op_name(RCMSG_COLL_OP_BXOR), "BXOR");
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
    return ck_run(s);
}
