/* SPDX-License-Identifier: BSD-3-Clause */
/* The shared-memory transport opened alone in this process (no peers): its segment is
 * created mode 0600 (a memfd is 0777 by default), its address is the size it announces, and
 * its eager limit and cell size follow RCMSG_SM_EAGER_LIMIT and RCMSG_SM_CELL_SIZE, its eager
 * credits RCMSG_SM_EAGER_CREDITS or RCMSG_EAGER_CREDITS (bad values refused naming the
 * variable). */
#include "config.h"

#include "base/config_table.h"
#include "btl/btl_component.h"
#include "btl_sm/sm_btl.h"

#include "base/log.h"

#include "ck_run.h"

#include <check.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The permission bits of this process's open file whose /proc link starts with prefix, -1
 * when there is none, -2 when there are several. */
static int fd_mode(const char *prefix)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int mode = -1;

    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL) {
        char path[300], link[300];
        struct stat st;
        ssize_t n;

        snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
        n = readlink(path, link, sizeof(link) - 1);
        if (n <= 0) {
            continue;
        }
        link[n] = '\0';
        if (strncmp(link, prefix, strlen(prefix)) == 0 && stat(path, &st) == 0) {
            mode = mode == -1 ? (int)(st.st_mode & 07777) : -2;
        }
    }
    closedir(d);
    return mode;
}

START_TEST(test_segment_mode)
{
    char *env[] = {"RCMSG_WAIT_MODE=event", NULL};
    rcmsg_btl_job_t job = {.rank = 0, .size = 2, .local_rank = 0, .local_size = 2};
    rcmsg_btl_t *btl = NULL;

    ck_assert_int_eq(rcmsg_config_load(env), RCMSG_OK);
    ck_assert_int_eq(fd_mode("/memfd:rcmsg-sm"), -1);
    ck_assert_int_eq(rcmsg_sm_btl_open(&job, &btl), RCMSG_OK);
    /* only this user's processes may open the segment through /proc/<pid>/fd */
    ck_assert_int_eq(fd_mode("/memfd:rcmsg-sm"), 0600);
    ck_assert_int_ge(btl->ops->event_fd(btl), 0);
    btl->ops->close(btl);
    ck_assert_int_eq(fd_mode("/memfd:rcmsg-sm"), -1);
    rcmsg_config_unload();
}
END_TEST

/* The address size sm announces to wireup is the record it packs, no more, no less. */
START_TEST(test_addr_max_is_the_record)
{
    char *env[] = {NULL};
    rcmsg_btl_job_t job = {.rank = 0, .size = 2, .local_rank = 0, .local_size = 2};
    const rcmsg_btl_component_t *sm = NULL;
    rcmsg_btl_t *btl = NULL;
    char buf[RCMSG_SM_ADDR_LEN + 8];
    size_t len, max;

    for (int i = 0; i < rcmsg_btl_table.n; i++) {
        if (strcmp(rcmsg_btl_table.comps[i]->name, "sm") == 0) {
            sm = rcmsg_btl_table.comps[i];
        }
    }
    ck_assert_ptr_nonnull(sm);
    max = sm->addr_max(&job);
    ck_assert_uint_eq(max, RCMSG_SM_ADDR_LEN);
    ck_assert_int_eq(rcmsg_config_load(env), RCMSG_OK);
    ck_assert_int_eq(rcmsg_sm_btl_open(&job, &btl), RCMSG_OK);
    len = max;
    ck_assert_int_eq(btl->ops->addr_pack(btl, buf, &len), RCMSG_OK);
    ck_assert_uint_eq(len, max);
    ck_assert_uint_eq(rcmsg_sm_addr_node_key(buf, len), rcmsg_sm_node_key());
    len = max - 1;
    ck_assert_int_eq(btl->ops->addr_pack(btl, buf, &len), RCMSG_ERR_INVALID_PARAM);
    btl->ops->close(btl);
    rcmsg_config_unload();
}
END_TEST

/* Opens sm alone with env; its status, and *btl_p (closed by the caller) when it opened. What
 * it logs goes to out. */
static rcmsg_status_t open_captured(char **env, rcmsg_btl_t **btl_p, char *out, size_t len)
{
    rcmsg_btl_job_t job = {.rank = 0, .size = 2, .local_rank = 0, .local_size = 2};
    FILE *f = tmpfile();
    int saved = dup(STDERR_FILENO);
    rcmsg_status_t s;
    size_t n;

    ck_assert(f != NULL && saved >= 0);
    ck_assert_int_ge(dup2(fileno(f), STDERR_FILENO), 0);
    s = rcmsg_config_load(env);
    if (s == RCMSG_OK) {
        s = rcmsg_sm_btl_open(&job, btl_p);
    }
    ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
    close(saved);
    rewind(f);
    n = fread(out, 1, len - 1, f);
    out[n] = '\0';
    fclose(f);
    return s;
}

/* sm opened with one setting: its eager limit and largest send are as expected. */
static void sm_caps_are(char *entry, size_t eager, size_t max_send)
{
    char *env[] = {entry, NULL};
    rcmsg_btl_t *btl = NULL;
    char out[4096];

    ck_assert_msg(open_captured(env, &btl, out, sizeof(out)) == RCMSG_OK, "%s: %s", entry, out);
    ck_assert_msg(btl->caps.eager_limit == eager && btl->caps.max_send == max_send,
                  "%s: eager limit %zu, max send %zu; expected %zu and %zu", entry,
                  btl->caps.eager_limit, btl->caps.max_send, eager, max_send);
    btl->ops->close(btl);
    rcmsg_config_unload();
}

START_TEST(test_eager_limit_sizes_cells)
{
    rcmsg_log_set_level(RCMSG_LOG_WARN);
    sm_caps_are("RCMSG_LOG_LEVEL=warn", 8192, 8192 + RCMSG_BTL_HDR_ROOM); /* the defaults */
    sm_caps_are("RCMSG_SM_EAGER_LIMIT=0", 0, RCMSG_BTL_HDR_ROOM);
    sm_caps_are("RCMSG_SM_EAGER_LIMIT=1m", 1 << 20, (1 << 20) + RCMSG_BTL_HDR_ROOM);
    sm_caps_are("RCMSG_SM_EAGER_LIMIT=6000", 6000, 6000 + RCMSG_BTL_HDR_ROOM);
    /* rc's settings no longer size sm's cells, nor limit its eager messages */
    sm_caps_are("RCMSG_SRQ_BUF_SIZE=1k", 8192, 8192 + RCMSG_BTL_HDR_ROOM);
    sm_caps_are("RCMSG_EAGER_LIMIT=0", 8192, 8192 + RCMSG_BTL_HDR_ROOM);
}
END_TEST

START_TEST(test_cell_size_caps_eager_limit)
{
    char *small[] = {"RCMSG_SM_CELL_SIZE=1k", "RCMSG_LOG_LEVEL=info", NULL};
    rcmsg_btl_t *btl = NULL;
    char out[4096];

    rcmsg_log_set_level(RCMSG_LOG_WARN);
    sm_caps_are("RCMSG_SM_CELL_SIZE=16k", 8192, 16384); /* larger cells: the limit stays */
    sm_caps_are("RCMSG_SM_CELL_SIZE=64", 0, 64);        /* the smallest: headers only */
    rcmsg_log_set_level(RCMSG_LOG_INFO);
    ck_assert_int_eq(open_captured(small, &btl, out, sizeof(out)), RCMSG_OK);
    ck_assert_uint_eq(btl->caps.eager_limit, 1024 - RCMSG_BTL_HDR_ROOM);
    ck_assert_uint_eq(btl->caps.max_send, 1024);
    ck_assert_msg(strstr(out, "sm: eager limit capped to 960 bytes by RCMSG_SM_CELL_SIZE=1k "
                              "(RCMSG_SM_EAGER_LIMIT=8k)") != NULL,
                  "the cap is not said: %s", out);
    btl->ops->close(btl);
    rcmsg_config_unload();
    rcmsg_log_set_level(RCMSG_LOG_WARN);
}
END_TEST

/* sm's eager credits (caps.eager_credits, the pml's per-peer credits over sm) with env. */
static void sm_credits_are(char **env, int credits)
{
    rcmsg_btl_t *btl = NULL;
    char out[4096];

    ck_assert_msg(open_captured(env, &btl, out, sizeof(out)) == RCMSG_OK, "%s: %s", env[0], out);
    ck_assert_msg(btl->caps.eager_credits == credits, "%s %s: %d eager credits, expected %d",
                  env[0], env[0] != NULL ? env[1] : "", btl->caps.eager_credits, credits);
    btl->ops->close(btl);
    rcmsg_config_unload();
}

/* RCMSG_SM_EAGER_CREDITS (256) is sm's own; unset, a RCMSG_EAGER_CREDITS the user set rules;
 * both set, sm's. */
START_TEST(test_eager_credits)
{
    char *none[] = {NULL}, *sm[] = {"RCMSG_SM_EAGER_CREDITS=7", NULL};
    char *pml[] = {"RCMSG_EAGER_CREDITS=4", NULL};
    char *both[] = {"RCMSG_EAGER_CREDITS=4", "RCMSG_SM_EAGER_CREDITS=300", NULL};

    rcmsg_log_set_level(RCMSG_LOG_WARN);
    sm_credits_are(none, 256);
    sm_credits_are(sm, 7);
    sm_credits_are(pml, 4);
    sm_credits_are(both, 300);
}
END_TEST

/* A bad value fails with one error naming the variable and what it accepts. */
static void sm_open_fails(char *entry, const char *expect)
{
    char *env[] = {entry, NULL};
    rcmsg_btl_t *btl = NULL;
    char out[4096];

    ck_assert_int_eq(open_captured(env, &btl, out, sizeof(out)), RCMSG_ERR_CONFIG);
    ck_assert_msg(strstr(out, expect) != NULL && strchr(out, '\n') == out + strlen(out) - 1,
                  "%s: '%s' lacks '%s' (or says more)", entry, out, expect);
    rcmsg_config_unload();
}

START_TEST(test_bad_values_named)
{
    rcmsg_log_set_level(RCMSG_LOG_WARN);
    sm_open_fails("RCMSG_SM_EAGER_LIMIT=2m", "error: invalid value '2m' for RCMSG_SM_EAGER_LIMIT: "
                                             "expected a value in the range 0..1m");
    sm_open_fails("RCMSG_SM_EAGER_LIMIT=4q", "error: invalid value '4q' for "
                                             "RCMSG_SM_EAGER_LIMIT: expected a size in bytes");
    sm_open_fails("RCMSG_SM_EAGER_LIMIT=", "error: empty value for RCMSG_SM_EAGER_LIMIT");
    sm_open_fails("RCMSG_SM_CELL_SIZE=-1", "for RCMSG_SM_CELL_SIZE: expected a size in bytes");
    sm_open_fails("RCMSG_SM_CELL_SIZE=2m", "error: invalid value '2m' for RCMSG_SM_CELL_SIZE: "
                                           "expected a value in the range 0..1m");
    sm_open_fails("RCMSG_SM_EAGER_CREDITS=0", "error: invalid value '0' for "
                                              "RCMSG_SM_EAGER_CREDITS: expected a value in the "
                                              "range 1..65535");
    sm_open_fails("RCMSG_SM_CELL_SIZE=63", "error: invalid value '63' for RCMSG_SM_CELL_SIZE: "
                                           "expected 0 (sized for RCMSG_SM_EAGER_LIMIT) or at "
                                           "least 64 bytes (a header)");
}
END_TEST

static Suite *sm_suite(void)
{
    Suite *s = suite_create("sm");
    TCase *tc = tcase_create("segment");

    tcase_add_test(tc, test_segment_mode);
    tcase_add_test(tc, test_addr_max_is_the_record);
    suite_add_tcase(s, tc);
    tc = tcase_create("eager");
    tcase_add_test(tc, test_eager_limit_sizes_cells);
    tcase_add_test(tc, test_cell_size_caps_eager_limit);
    tcase_add_test(tc, test_eager_credits);
    tcase_add_test(tc, test_bad_values_named);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return ck_run(sm_suite());
}
