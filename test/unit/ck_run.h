/* SPDX-License-Identifier: BSD-3-Clause */
/* The main() of every Check unit test: run the suite, exit 0 only if every test passed. */
#ifndef RCMSG_TEST_CK_RUN_H
#define RCMSG_TEST_CK_RUN_H

#include <check.h>
#include <stdlib.h>

static inline int ck_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif /* RCMSG_TEST_CK_RUN_H */
