/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the counters (base/stats.c: counting, the JSON lines and their file name) and
 * of the event queue (base/event.c: order, no handler, overflow, no nested delivery). */
#include "config.h"

#include "base/config_table.h"
#include "base/event.h"
#include "base/stats.h"

#include "ck_run.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Loads the configuration with one RCMSG_* setting (NULL: none). */
static void config_with(const char *setting)
{
    char *envp[] = {(char *)setting, NULL};

    ck_assert_int_eq(rcmsg_config_load(setting != NULL ? envp : envp + 1), RCMSG_OK);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    static char buf[16384];
    size_t n;

    ck_assert_msg(f != NULL, "%s was not written", path);
    n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

START_TEST(test_stats_count_and_json)
{
    char setting[256], path[256];
    const char *json;

    snprintf(path, sizeof(path), "/tmp/rcmsg_check_stats.%d.3.json", (int)getpid());
    snprintf(setting, sizeof(setting), "RCMSG_STATS_FILE=/tmp/rcmsg_check_stats.%%p.%%r.json");
    config_with(setting);
    ck_assert_int_eq(rcmsg_stats_init(3, 4), 0);
    rcmsg_stats_set_transport(1, "sm");
    rcmsg_stats_set_transport(2, "rc");
    rcmsg_stats_set_qpn(2, 0x1b);
    rcmsg_stat_add(1, RCMSG_STAT_msgs_sent_eager, 100);
    rcmsg_stat_add(1, RCMSG_STAT_bytes_sent_eager, 10000);
    rcmsg_stat_add(2, RCMSG_STAT_msgs_sent_eager, 5);
    rcmsg_stat_add(7, RCMSG_STAT_msgs_sent_eager, 1);  /* outside the job: not counted */
    rcmsg_stat_add(-1, RCMSG_STAT_msgs_sent_eager, 1); /* neither */
    rcmsg_stat_status(2, 12);
    rcmsg_stat_status(2, 12);
    rcmsg_stat_status(2, 999); /* beyond the table: the last entry */
    rcmsg_rstat_max(RCMSG_RSTAT_unexp_peak, 7);
    rcmsg_rstat_max(RCMSG_RSTAT_unexp_peak, 3);
    unlink(path);
    rcmsg_stats_report();
    json = slurp(path);
    ck_assert_ptr_nonnull(strstr(json,
                                 "{\"scope\":\"peer\",\"rank\":3,\"peer\":1,\"transport\":\"sm\","
                                 "\"qpn\":0,\"msgs_sent_inline\":0,\"bytes_sent_inline\":0,"
                                 "\"msgs_sent_eager\":100,\"bytes_sent_eager\":10000,"));
    ck_assert_ptr_nonnull(strstr(json, "\"peer\":2,\"transport\":\"rc\",\"qpn\":27,"));
    ck_assert_ptr_nonnull(strstr(json, "\"cq_errors\":3,"));
    ck_assert_ptr_nonnull(strstr(json, "\"cq_errors_by_status\":{\"status 12\":2,\"other\":1}"));
    ck_assert_ptr_nonnull(
        strstr(json, "{\"scope\":\"rank\",\"rank\":3,\"size\":4,\"unexp_peak\":7,"));
    ck_assert_ptr_nonnull(strstr(json, "\"msgs_sent_eager\":105,")); /* the rank's sum */
    ck_assert_ptr_null(strstr(json, "\"peer\":0,"));                 /* no transport: no line */
    unlink(path);
    rcmsg_stats_fini();
    rcmsg_config_unload();
}
END_TEST

START_TEST(test_stats_bad_file)
{
    config_with("RCMSG_STATS_FILE=/nonexistent-dir/stats.%r.json");
    ck_assert_int_eq(rcmsg_stats_init(0, 2), 0);
    rcmsg_stats_report(); /* logs an error naming the path; must not crash */
    rcmsg_stats_fini();
    rcmsg_stats_report(); /* after fini: nothing */
    rcmsg_config_unload();
}
END_TEST

START_TEST(test_stats_bad_mode)
{
    char *envp[] = {"RCMSG_STATS=bogus", NULL};

    ck_assert_int_eq(rcmsg_config_load(envp), RCMSG_ERR_CONFIG);
    rcmsg_config_unload();
}
END_TEST

static int seen[8], nseen, nested;

static void record(const rcmsg_event_t *e, void *arg)
{
    ck_assert_ptr_eq(arg, &nseen);
    if (nseen < 8) {
        seen[nseen] = e->peer;
    }
    nseen++;
    nested += rcmsg_event_deliver(); /* a handler's progress delivers nothing */
}

START_TEST(test_events)
{
    rcmsg_event_post(RCMSG_EVENT_CONNECTED, 1, "sm", RCMSG_OK, "no handler: %s", "dropped");
    ck_assert(!rcmsg_event_pending());
    rcmsg_event_handler_set(record, &nseen);
    rcmsg_event_post(RCMSG_EVENT_CONNECTED, 1, "sm", RCMSG_OK, "first");
    rcmsg_event_post(RCMSG_EVENT_PEER_FAILED, 2, "rc", RCMSG_ERR_CONNECTION, "second");
    ck_assert(rcmsg_event_pending());
    ck_assert_int_eq(rcmsg_event_deliver(), 2);
    ck_assert_int_eq(nseen, 2);
    ck_assert_int_eq(seen[0], 1);
    ck_assert_int_eq(seen[1], 2);
    ck_assert_int_eq(nested, 0);
    ck_assert(!rcmsg_event_pending());
    for (int i = 0; i < RCMSG_EVENT_QUEUE + 5; i++) {
        rcmsg_event_post(RCMSG_EVENT_CONNECTED, i, "rc", RCMSG_OK, "flood %d", i);
    }
    ck_assert_uint_eq(rcmsg_stats.r[RCMSG_RSTAT_events_dropped], 5);
    nseen = 0;
    ck_assert_int_eq(rcmsg_event_deliver(), RCMSG_EVENT_QUEUE);
    rcmsg_event_post(RCMSG_EVENT_CONNECTED, 1, "rc", RCMSG_OK, "cleared");
    rcmsg_event_clear();
    ck_assert_int_eq(rcmsg_event_deliver(), 0);
    rcmsg_event_handler_set(NULL, NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("stats"), *te = tcase_create("events");

    tcase_add_test(tc, test_stats_count_and_json);
    tcase_add_test(tc, test_stats_bad_file);
    tcase_add_test(tc, test_stats_bad_mode);
    tcase_add_test(te, test_events);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, te);
    return ck_run(s);
}
