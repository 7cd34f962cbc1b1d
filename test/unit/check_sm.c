/* SPDX-License-Identifier: BSD-3-Clause */
/* The shared-memory transport opened alone in this process (no peers): its segment is
 * created mode 0600 (a memfd is 0777 by default), its address is the size it announces. */
#include "config.h"

#include "base/config_table.h"
#include "btl/btl_component.h"
#include "btl_sm/sm_btl.h"

#include "ck_run.h"

#include <check.h>
#include <dirent.h>
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

static Suite *sm_suite(void)
{
    Suite *s = suite_create("sm");
    TCase *tc = tcase_create("segment");

    tcase_add_test(tc, test_segment_mode);
    tcase_add_test(tc, test_addr_max_is_the_record);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return ck_run(sm_suite());
}
