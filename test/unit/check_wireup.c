/* SPDX-License-Identifier: BSD-3-Clause */
/* The wireup address blob: built, parsed, and rejected when malformed; the launcher's count from
 * its environment (rcmsg_launcher_size), bad values ignored; no launcher needed. */
#include "config.h"

#include "wireup/wireup.h"

#include "ck_run.h"

#include <check.h>
#include <rcmsg.h>
#include <stdlib.h>
#include <string.h>

static uint8_t blob[256];

static size_t build_rc(const char *payload)
{
    size_t n = rcmsg_wireup_blob_build(
        blob, sizeof(blob), RCMSG_OK, &(rcmsg_wireup_section_t){"rc", payload, strlen(payload)}, 1);
    ck_assert_uint_gt(n, 0);
    return n;
}

START_TEST(test_roundtrip)
{
    size_t n = build_rc("hello"), len = 0;
    const void *data = NULL;
    rcmsg_status_t peer_status = RCMSG_ERR_IO;

    ck_assert_int_eq(rcmsg_wireup_blob_section(blob, n, 3, "rc", &data, &len, &peer_status),
                     RCMSG_OK);
    ck_assert_uint_eq(len, 5);
    ck_assert_mem_eq(data, "hello", 5);
    ck_assert_int_eq(peer_status, RCMSG_OK);
    ck_assert_int_eq(rcmsg_wireup_blob_section(blob, n, 3, "sm", &data, &len, &peer_status),
                     RCMSG_ERR_NOT_FOUND);
}
END_TEST

START_TEST(test_peer_status_carried)
{
    size_t n = rcmsg_wireup_blob_build(blob, sizeof(blob), RCMSG_ERR_NO_DEVICE, NULL, 0);
    const void *data;
    size_t len;
    rcmsg_status_t peer_status = RCMSG_OK;

    ck_assert_uint_gt(n, 0);
    ck_assert_int_eq(rcmsg_wireup_blob_section(blob, n, 1, "rc", &data, &len, &peer_status),
                     RCMSG_ERR_NOT_FOUND);
    ck_assert_int_eq(peer_status, RCMSG_ERR_NO_DEVICE);
}
END_TEST

START_TEST(test_malformed)
{
    size_t n = build_rc("hello"), len;
    const void *data;
    rcmsg_status_t ps;

    /* too short for the header, truncated section, NULL */
    ck_assert_int_eq(rcmsg_wireup_blob_section(blob, 5, 1, "rc", &data, &len, &ps),
                     RCMSG_ERR_PEER_DATA);
    ck_assert_int_eq(rcmsg_wireup_blob_section(blob, n - 1, 1, "rc", &data, &len, &ps),
                     RCMSG_ERR_PEER_DATA);
    ck_assert_int_eq(rcmsg_wireup_blob_section(blob, 14, 1, "rc", &data, &len, &ps),
                     RCMSG_ERR_PEER_DATA);
    ck_assert_int_eq(rcmsg_wireup_blob_section(NULL, 0, 1, "rc", &data, &len, &ps),
                     RCMSG_ERR_PEER_DATA);
    /* wrong magic */
    blob[0] ^= 0xff;
    ck_assert_int_eq(rcmsg_wireup_blob_section(blob, n, 1, "rc", &data, &len, &ps),
                     RCMSG_ERR_PEER_DATA);
    blob[0] ^= 0xff;
    /* a section length beyond the blob */
    blob[12 + 8] = 0xff;
    ck_assert_int_eq(rcmsg_wireup_blob_section(blob, n, 1, "rc", &data, &len, &ps),
                     RCMSG_ERR_PEER_DATA);
}
END_TEST

START_TEST(test_version_mismatch)
{
    size_t n = build_rc("x"), len;
    const void *data;
    rcmsg_status_t ps;

    blob[4] = 99; /* version, little-endian u16 at offset 4 */
    ck_assert_int_eq(rcmsg_wireup_blob_section(blob, n, 2, "rc", &data, &len, &ps),
                     RCMSG_ERR_PEER_DATA);
}
END_TEST

START_TEST(test_two_sections)
{
    rcmsg_wireup_section_t secs[2] = {{"rc", "0123456789", 10}, {"sm", "abc", 3}};
    size_t n = rcmsg_wireup_blob_build(blob, sizeof(blob), RCMSG_OK, secs, 2), len;
    const void *data;
    rcmsg_status_t ps;

    ck_assert_int_eq(rcmsg_wireup_blob_section(blob, n, 1, "sm", &data, &len, &ps), RCMSG_OK);
    ck_assert_uint_eq(len, 3);
    ck_assert_mem_eq(data, "abc", 3);
    ck_assert_int_eq(rcmsg_wireup_blob_section(blob, n, 1, "rc", &data, &len, &ps), RCMSG_OK);
    ck_assert_uint_eq(len, 10);
}
END_TEST

START_TEST(test_build_too_small)
{
    ck_assert_uint_eq(
        rcmsg_wireup_blob_build(blob, 10, RCMSG_OK, &(rcmsg_wireup_section_t){"rc", "abc", 3}, 1),
        0);
}
END_TEST

/* The bytes ranks have always published (little-endian header, then name[8] + len u32 per
 * section): the codec must not change them. */
START_TEST(test_layout)
{
    rcmsg_wireup_section_t secs[2] = {{"sm", "ab", 2}, {"12345678", "xyz", 3}};
    uint16_t st = (uint16_t)(int16_t)RCMSG_ERR_NO_DEVICE;
    const uint8_t want[] = {0x52, 0x43, 0x4d, 0x57, 1,   0,   (uint8_t)st, (uint8_t)(st >> 8),
                            2,    0,    0,    0,    's', 'm', 0,           0,
                            0,    0,    0,    0,    2,   0,   0,           0,
                            'a',  'b',  '1',  '2',  '3', '4', '5',         '6',
                            '7',  '8',  3,    0,    0,   0,   'x',         'y',
                            'z'};

    memset(blob, 0xee, sizeof(blob));
    ck_assert_uint_eq(rcmsg_wireup_blob_build(blob, sizeof(blob), RCMSG_ERR_NO_DEVICE, secs, 2),
                      sizeof(want));
    ck_assert_mem_eq(blob, want, sizeof(want));
    /* exactly the room it needs, and one byte less */
    ck_assert_uint_eq(rcmsg_wireup_blob_build(blob, sizeof(want), RCMSG_ERR_NO_DEVICE, secs, 2),
                      sizeof(want));
    ck_assert_uint_eq(rcmsg_wireup_blob_build(blob, sizeof(want) - 1, RCMSG_OK, secs, 2), 0);
}
END_TEST

/* the launcher's variables as given (NULL: unset) */
static void launcher_env(const char *slurm, const char *ompi, const char *pmi, const char *nspace)
{
    const char *names[] = {"SLURM_STEP_NUM_TASKS", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                           "PMIX_NAMESPACE"};
    const char *values[] = {slurm, ompi, pmi, nspace};

    for (int i = 0; i < 4; i++) {
        if (values[i] != NULL) {
            setenv(names[i], values[i], 1);
        } else {
            unsetenv(names[i]);
        }
    }
}

START_TEST(test_launcher_size)
{
    launcher_env(NULL, NULL, NULL, NULL); /* no launcher: a singleton */
    ck_assert_int_eq(rcmsg_launcher_size(), 1);
    launcher_env(NULL, NULL, NULL, "ns"); /* a PMIx launcher that gives no count */
    ck_assert_int_eq(rcmsg_launcher_size(), 0);
    launcher_env("4", NULL, NULL, "ns"); /* srun */
    ck_assert_int_eq(rcmsg_launcher_size(), 4);
    launcher_env("2", "8", NULL, "ns"); /* mpirun under a Slurm step: mpirun's */
    ck_assert_int_eq(rcmsg_launcher_size(), 8);
    launcher_env("1", NULL, "2", "ns"); /* Hydra inside srun --pty: Hydra's */
    ck_assert_int_eq(rcmsg_launcher_size(), 2);
    /* not a positive count: the next variable, or none */
    launcher_env("3", "0", "4x", "ns");
    ck_assert_int_eq(rcmsg_launcher_size(), 3);
    launcher_env("", "-2", "99999999999", "ns");
    ck_assert_int_eq(rcmsg_launcher_size(), 0);
    launcher_env(NULL, NULL, NULL, NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("wireup");
    TCase *tc = tcase_create("blob");

    tcase_add_test(tc, test_roundtrip);
    tcase_add_test(tc, test_peer_status_carried);
    tcase_add_test(tc, test_malformed);
    tcase_add_test(tc, test_version_mismatch);
    tcase_add_test(tc, test_two_sections);
    tcase_add_test(tc, test_build_too_small);
    tcase_add_test(tc, test_layout);
    tcase_add_test(tc, test_launcher_size);
    suite_add_tcase(s, tc);
    return ck_run(s);
}
