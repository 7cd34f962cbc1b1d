/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of src/base: status names, logging gates, the configuration table. */
#include "config.h"

#include "base/config_table.h"
#include "base/log.h"
#include "base/watch.h"

#include "ck_run.h"

#include <check.h>
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- status ---------------------------------------------------------------------------- */

/* ---- the watch thread (base/watch.h) ----------------------------------------------------- */

static atomic_int watch_readies, watch_takes;
static int watch_fd = -1;

static int watch_ready_once(void *arg)
{
    uint64_t v;

    ck_assert_ptr_eq(arg, &watch_fd);
    ck_assert_int_eq((int)read(watch_fd, &v, sizeof(v)), (int)sizeof(v));
    atomic_fetch_add(&watch_readies, 1);
    return RCMSG_WATCH_FOUND;
}

static void watch_take_count(void *arg)
{
    ck_assert_ptr_eq(arg, &watch_takes);
    atomic_fetch_add(&watch_takes, 1);
}

/* Until the news is raised (at most 5 s). */
static bool watch_news_within_5s(void)
{
    for (int i = 0; i < 5000; i++) {
        if (atomic_load(&rcmsg_watch_news) & RCMSG_WATCH_NEWS) {
            return true;
        }
        usleep(1000);
    }
    return false;
}

/* An fd made readable wakes the thread: ready() runs on it and the news is raised; the take
 * runs in the caller's rcmsg_watch_take, which clears the news; after forget, nothing runs. */
START_TEST(test_watch_fd_news_take)
{
    uint64_t one = 1;

    watch_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    ck_assert_int_ge(watch_fd, 0);
    ck_assert_int_eq(rcmsg_watch_add(watch_fd, 0, watch_ready_once, &watch_fd), RCMSG_OK);
    ck_assert_int_eq(rcmsg_watch_take_add(watch_take_count, &watch_takes), RCMSG_OK);
    ck_assert_int_eq(rcmsg_watch_start("a test"), RCMSG_OK);
    ck_assert(rcmsg_watch_running());
    usleep(20000);
    ck_assert_int_eq(atomic_load(&watch_readies), 0); /* idle: nothing runs */
    ck_assert_int_eq(atomic_load(&rcmsg_watch_news), 0);
    ck_assert_int_eq((int)write(watch_fd, &one, sizeof(one)), (int)sizeof(one));
    ck_assert(watch_news_within_5s());
    ck_assert_int_eq(atomic_load(&watch_readies), 1);
    rcmsg_watch_take();
    ck_assert_int_eq(atomic_load(&watch_takes), 1);
    ck_assert_int_eq(atomic_load(&rcmsg_watch_news) & RCMSG_WATCH_NEWS, 0);
    rcmsg_watch_forget(&watch_fd);
    rcmsg_watch_forget(&watch_takes);
    ck_assert_int_eq((int)write(watch_fd, &one, sizeof(one)), (int)sizeof(one));
    usleep(50000);
    ck_assert_int_eq(atomic_load(&watch_readies), 1);
    rcmsg_watch_stop();
    ck_assert(!rcmsg_watch_running());
    close(watch_fd);
}
END_TEST

static int watch_pid_ready(void *arg)
{
    (void)arg;
    return RCMSG_WATCH_FOUND | RCMSG_WATCH_DONE;
}

/* A process's pidfd (as btl_sm watches a local peer): its exit wakes the thread at once. */
START_TEST(test_watch_pidfd_exit)
{
    pid_t child = fork();
    int fd, status;
    struct timespec t0, t1;

    ck_assert_int_ge(child, 0);
    if (child == 0) {
        pause();
        _exit(0);
    }
    fd = rcmsg_watch_pidfd(child);
    if (fd < 0) {
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
        printf("SKIP (part): no pidfd_open here: %s\n", strerror(errno));
        return;
    }
    ck_assert_int_eq(rcmsg_watch_add(fd, 0, watch_pid_ready, &fd), RCMSG_OK);
    ck_assert_int_eq(rcmsg_watch_start("a test"), RCMSG_OK);
    usleep(20000);
    ck_assert_int_eq(atomic_load(&rcmsg_watch_news), 0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    kill(child, SIGKILL); /* a zombie until reaped: exited, as a killed peer under mpirun */
    ck_assert(watch_news_within_5s());
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("watch: a child's exit noticed in %.1f ms\n",
           (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
    rcmsg_watch_take();
    rcmsg_watch_stop();
    rcmsg_watch_forget(&fd);
    close(fd);
    waitpid(child, &status, 0);
}
END_TEST

START_TEST(test_status_names)
{
    ck_assert_str_eq(rcmsg_status_name(RCMSG_OK), "RCMSG_OK");
    ck_assert_str_eq(rcmsg_strerror(RCMSG_OK), "success");
    ck_assert_str_eq(rcmsg_status_name(RCMSG_ERR_NO_RESOURCE), "RCMSG_ERR_NO_RESOURCE");
    ck_assert_str_eq(rcmsg_strerror(RCMSG_ERR_TRUNCATED), "message truncated");
    ck_assert_str_eq(rcmsg_strerror((rcmsg_status_t)-999), "unknown status");
    ck_assert_str_eq(rcmsg_status_name((rcmsg_status_t)42), "RCMSG_STATUS_UNKNOWN");
    ck_assert_int_gt(RCMSG_INPROGRESS, 0);
    ck_assert_int_lt(RCMSG_ERR_NO_RESOURCE, 0);
}
END_TEST

/* Names indexed by an enum: one per value, and a fallback (not a read past the array) for a
 * value out of range. */
START_TEST(test_enum_names_bounded)
{
    static const rcmsg_config_desc_t bad_type = {
        "RCMSG_T_BAD", RCMSG_CFG_TYPE_COUNT, "1", "", "", NULL, 0};
    rcmsg_config_value_t v = {.i = 7};
    char err[256] = "";

    ck_assert_str_eq(rcmsg_config_type_name(RCMSG_CFG_TYPE_BOOL), "bool");
    ck_assert_str_eq(rcmsg_config_type_name(RCMSG_CFG_TYPE_LIST), "list");
    ck_assert_str_eq(rcmsg_config_type_name(RCMSG_CFG_TYPE_STRING), "string");
    ck_assert_str_eq(rcmsg_config_type_name(RCMSG_CFG_TYPE_COUNT), "?");
    ck_assert_str_eq(rcmsg_config_type_name((rcmsg_config_type_t)-1), "?");
    ck_assert_int_eq(rcmsg_config_parse(&bad_type, "1", err, sizeof(err), &v),
                     RCMSG_ERR_INVALID_PARAM);
    ck_assert_int_eq(v.i, 7);
    ck_assert_msg(strstr(err, "RCMSG_T_BAD") != NULL, "message names the variable: %s", err);
    ck_assert_str_eq(rcmsg_log_level_name(RCMSG_LOG_TRACE), "trace");
    ck_assert_str_eq(rcmsg_log_level_name(RCMSG_LOG_LEVEL_COUNT), "?");
}
END_TEST

/* ---- logging --------------------------------------------------------------------------- */

static int evaluated;

static int touch(void)
{
    return ++evaluated;
}

START_TEST(test_log_off_evaluates_nothing)
{
    rcmsg_log_set_level(RCMSG_LOG_WARN);
    evaluated = 0;
    rcmsg_debug("value %d", touch());
    rcmsg_trace("value %d", touch());
    rcmsg_info("value %d", touch());
    ck_assert_int_eq(evaluated, 0);
    rcmsg_log_set_level(RCMSG_LOG_ERROR);
    rcmsg_warn("value %d", touch());
    ck_assert_int_eq(evaluated, 0);
    ck_assert(rcmsg_log_enabled(RCMSG_LOG_ERROR));
    ck_assert(!rcmsg_log_enabled(RCMSG_LOG_WARN));
    ck_assert_str_eq(rcmsg_log_level_name(RCMSG_LOG_TRACE), "trace");
}
END_TEST

START_TEST(test_log_on_evaluates)
{
    rcmsg_log_set_level(RCMSG_LOG_TRACE);
    evaluated = 0;
    rcmsg_trace("unit test trace line %d", touch());
    ck_assert_int_eq(evaluated, 1);
    rcmsg_log_set_level(RCMSG_LOG_WARN);
}
END_TEST

/* ---- configuration --------------------------------------------------------------------- */

static const rcmsg_config_desc_t d_bool = {
    "RCMSG_T_BOOL", RCMSG_CFG_TYPE_BOOL, "no", "", "", NULL, 0};
static const rcmsg_config_desc_t d_int = {
    "RCMSG_T_INT", RCMSG_CFG_TYPE_INT, "1", "0..7", "", NULL, 0};
static const rcmsg_config_desc_t d_sint = {
    "RCMSG_T_SINT", RCMSG_CFG_TYPE_INT, "1", "", "", NULL, 0};
static const rcmsg_config_desc_t d_size = {
    "RCMSG_T_SIZE", RCMSG_CFG_TYPE_SIZE, "8k", "256..1m", "", NULL, 0};
static const rcmsg_config_desc_t d_time = {
    "RCMSG_T_TIME", RCMSG_CFG_TYPE_TIME, "1ms", "", "", NULL, 0};
static const rcmsg_config_desc_t d_enum = {
    "RCMSG_T_ENUM", RCMSG_CFG_TYPE_ENUM, "b", "a|b|c", "", NULL, 0};
static const rcmsg_config_desc_t d_list = {
    "RCMSG_T_LIST", RCMSG_CFG_TYPE_LIST, "", "", "", NULL, 0};

static rcmsg_config_value_t parse_ok(const rcmsg_config_desc_t *d, const char *text)
{
    rcmsg_config_value_t v;
    char err[256] = "";

    ck_assert_msg(rcmsg_config_parse(d, text, err, sizeof(err), &v) == RCMSG_OK,
                  "'%s' for %s should parse: %s", text, d->name, err);
    return v;
}

/* Parsing must fail, and the message must name the variable, the value and `form`. */
static void parse_bad(const rcmsg_config_desc_t *d, const char *text, const char *form)
{
    rcmsg_config_value_t v = {.i = 12345};
    char err[256] = "";

    ck_assert_int_eq(rcmsg_config_parse(d, text, err, sizeof(err), &v), RCMSG_ERR_CONFIG);
    ck_assert_int_eq(v.i, 12345); /* untouched on error */
    ck_assert_msg(strstr(err, d->name) != NULL, "message names the variable: %s", err);
    ck_assert_msg(strstr(err, text) != NULL, "message names the value: %s", err);
    ck_assert_msg(strstr(err, form) != NULL, "message names the form '%s': %s", form, err);
}

START_TEST(test_parse_bool)
{
    ck_assert(parse_ok(&d_bool, "yes").b);
    ck_assert(parse_ok(&d_bool, "ON").b);
    ck_assert(parse_ok(&d_bool, "1").b);
    ck_assert(!parse_ok(&d_bool, "false").b);
    ck_assert(!parse_ok(&d_bool, "0").b);
    parse_bad(&d_bool, "maybe", "boolean");
    parse_bad(&d_bool, "", "boolean");
}
END_TEST

START_TEST(test_parse_int)
{
    ck_assert_int_eq(parse_ok(&d_int, "0").i, 0);
    ck_assert_int_eq(parse_ok(&d_int, "7").i, 7);
    ck_assert_int_eq(parse_ok(&d_sint, "-3").i, -3);
    parse_bad(&d_int, "8", "0..7");
    parse_bad(&d_int, "-1", "0..7");
    parse_bad(&d_int, "3x", "integer");
    parse_bad(&d_int, "x", "integer");
    parse_bad(&d_int, " 3", "integer");
    parse_bad(&d_sint, "99999999999999999999999", "integer");
}
END_TEST

START_TEST(test_parse_size)
{
    ck_assert_uint_eq(parse_ok(&d_size, "256").size, 256);
    ck_assert_uint_eq(parse_ok(&d_size, "8k").size, 8192);
    ck_assert_uint_eq(parse_ok(&d_size, "8K").size, 8192);
    ck_assert_uint_eq(parse_ok(&d_size, "9kb").size, 9216);
    ck_assert_uint_eq(parse_ok(&d_size, "1m").size, 1 << 20);
    parse_bad(&d_size, "2m", "256..1m");
    parse_bad(&d_size, "255", "256..1m");
    parse_bad(&d_size, "8q", "k, m or g");
    parse_bad(&d_size, "-8k", "k, m or g");
}
END_TEST

START_TEST(test_parse_time)
{
    ck_assert_uint_eq(parse_ok(&d_time, "5us").time_us, 5);
    ck_assert_uint_eq(parse_ok(&d_time, "5ms").time_us, 5000);
    ck_assert_uint_eq(parse_ok(&d_time, "2s").time_us, 2000000);
    parse_bad(&d_time, "5", "us, ms or s");
    ck_assert_uint_eq(parse_ok(&d_time, "0").time_us, 0); /* zero needs no unit */
    parse_bad(&d_time, "5min", "us, ms or s");
}
END_TEST

START_TEST(test_parse_enum)
{
    ck_assert_int_eq(parse_ok(&d_enum, "a").choice, 0);
    ck_assert_int_eq(parse_ok(&d_enum, "C").choice, 2);
    parse_bad(&d_enum, "d", "a|b|c");
    parse_bad(&d_enum, "", "a|b|c");
    parse_bad(&d_enum, "a|b", "a|b|c");
}
END_TEST

START_TEST(test_parse_list)
{
    rcmsg_config_value_t v = parse_ok(&d_list, "rxe0:1, mlx5_0:1,,x");

    ck_assert_uint_eq(v.count, 3);
    ck_assert_str_eq(v.items[0], "rxe0:1");
    ck_assert_str_eq(v.items[1], "mlx5_0:1");
    ck_assert_str_eq(v.items[2], "x");
    ck_assert_ptr_null(v.items[3]);
    rcmsg_config_value_free(&v);
    v = parse_ok(&d_list, "");
    ck_assert_uint_eq(v.count, 0);
    rcmsg_config_value_free(&v);
}
END_TEST

/* An empty value, or a good one with blanks or junk around it, is an error naming the form. */
START_TEST(test_parse_empty_and_junk)
{
    static const struct {
        const rcmsg_config_desc_t *d;
        const char *good, *form;
    } cases[] = {{&d_bool, "yes", "boolean"},
                 {&d_int, "3", "integer"},
                 {&d_size, "8k", "k, m or g"},
                 {&d_time, "5ms", "us, ms or s"},
                 {&d_enum, "a", "a|b|c"}};
    char err[256];
    rcmsg_config_value_t v;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        static const char *const around[] = {"%s ", " %s", "%s\t", "%s\n", "%sx", "%s,"};
        char text[32];

        parse_bad(cases[i].d, "", cases[i].form);
        rcmsg_config_parse(cases[i].d, "", err, sizeof(err), &v);
        ck_assert_msg(strstr(err, "empty value for RCMSG_T_") != NULL, "%s", err);
        for (size_t j = 0; j < sizeof(around) / sizeof(around[0]); j++) {
            snprintf(text, sizeof(text), around[j], cases[i].good);
            parse_bad(cases[i].d, text, cases[i].form);
        }
    }
    /* a list's items lose their blanks at both ends */
    v = parse_ok(&d_list, " rc , self\t");
    ck_assert_uint_eq(v.count, 2);
    ck_assert_str_eq(v.items[0], "rc");
    ck_assert_str_eq(v.items[1], "self");
    rcmsg_config_value_free(&v);
}
END_TEST

START_TEST(test_every_default_parses)
{
    for (int id = 0; id < RCMSG_CFG_COUNT; id++) {
        const rcmsg_config_desc_t *d = rcmsg_config_desc((rcmsg_config_id_t)id);
        rcmsg_config_value_t v = parse_ok(d, d->def);
        rcmsg_config_value_free(&v);
        ck_assert_msg(strncmp(d->name, "RCMSG_", 6) == 0, "%s has the prefix", d->name);
        ck_assert_msg(d->help[0] != '\0', "%s has help text", d->name);
    }
}
END_TEST

/* Each ENUM variable's C enum, bound by name (config_vars.h): the enumerators count from 0 in
 * the order of the form, each name (in any case) parses to its enumerator, and the name table
 * desc->choices[] holds each name at its enumerator. */
static void enum_check_one(const rcmsg_config_desc_t *d, int value, const char *name, int *n)
{
    rcmsg_config_value_t v;
    char upper[64];

    ck_assert_msg(value == *n, "%s: %s is enumerator %d, choice %d", d->name, name, value, *n);
    v = parse_ok(d, name);
    ck_assert_int_eq(v.choice, value);
    for (size_t i = 0; i <= strlen(name) && i < sizeof(upper); i++) {
        upper[i] = (char)toupper((unsigned char)name[i]);
    }
    v = parse_ok(d, upper);
    ck_assert_int_eq(v.choice, value);
    ck_assert_uint_lt((unsigned)value, d->nchoices);
    ck_assert_str_eq(d->choices[value], name);
    (*n)++;
}

#define ENUM_CHECK_NAME(id, name)              enum_check_one(d, id, name, &n);
#define ENUM_CHECK(var, type, def, form, help) ENUM_CHECK_##type(var)
#define ENUM_CHECK_ENUM(var)                                                                       \
    {                                                                                              \
        const rcmsg_config_desc_t *d = rcmsg_config_desc(RCMSG_CFG_##var);                         \
        int n = 0;                                                                                 \
        RCMSG_CFG_##var##_CHOICES(ENUM_CHECK_NAME);                                                \
        ck_assert_uint_eq(d->nchoices, (unsigned)n);                                               \
        checked++;                                                                                 \
    }
#define ENUM_CHECK_BOOL(var)
#define ENUM_CHECK_INT(var)
#define ENUM_CHECK_SIZE(var)
#define ENUM_CHECK_TIME(var)
#define ENUM_CHECK_LIST(var)
#define ENUM_CHECK_STRING(var)

/* A range end that sizes an array is one macro: the variable's form quotes it, and the value
 * one past it is refused (so the array, asserted to cover it, is never overrun). */
START_TEST(test_array_bound_ranges)
{
    static const struct {
        rcmsg_config_id_t id;
        long long max;
    } vars[] = {{RCMSG_CFG_POLL_BATCH, RCMSG_POLL_BATCH_MAX},
                {RCMSG_CFG_RNDV_READS, RCMSG_RNDV_READS_MAX}};

    for (size_t i = 0; i < RCMSG_ARRAY_SIZE(vars); i++) {
        const rcmsg_config_desc_t *d = rcmsg_config_desc(vars[i].id);
        char form[32], text[32];

        snprintf(form, sizeof(form), "1..%lld", vars[i].max);
        ck_assert_str_eq(d->form, form);
        snprintf(text, sizeof(text), "%lld", vars[i].max);
        ck_assert_int_eq(parse_ok(d, text).i, vars[i].max);
        snprintf(text, sizeof(text), "%lld", vars[i].max + 1);
        parse_bad(d, text, form);
    }
}
END_TEST

/* Every INT, SIZE and TIME variable refuses a value beyond the C type it is kept in (an int;
 * 64 bits up to LLONG_MAX), naming the variable, the value and the range, even when its form
 * leaves that end open; the largest value of the type that its range allows parses. (An INT
 * used to take 9223372036854775807 and be truncated where it was stored.) */
START_TEST(test_type_limits)
{
    int checked = 0;

    for (int id = 0; id < RCMSG_CFG_COUNT; id++) {
        const rcmsg_config_desc_t *d = rcmsg_config_desc((rcmsg_config_id_t)id);
        const char *dots = strstr(d->form, "..");
        const char *unit = d->type == RCMSG_CFG_TYPE_TIME ? "us" : "";
        char max[48], over[48], range[64];

        if (d->type != RCMSG_CFG_TYPE_INT && d->type != RCMSG_CFG_TYPE_SIZE &&
            d->type != RCMSG_CFG_TYPE_TIME) {
            continue;
        }
        ck_assert_msg(dots != NULL, "%s declares a range", d->name);
        if (d->type == RCMSG_CFG_TYPE_INT) {
            snprintf(max, sizeof(max), "%d", INT_MAX);
            snprintf(over, sizeof(over), "%lld", (long long)INT_MAX + 1);
        } else {
            snprintf(max, sizeof(max), "%lld%s", LLONG_MAX, unit);
            snprintf(over, sizeof(over), "9223372036854775808%s", unit);
        }
        if (dots[2] == '\0') { /* open: the type closes it */
            rcmsg_config_value_t v = parse_ok(d, max);

            snprintf(range, sizeof(range), "..%s", max);
            parse_bad(d, over, range);
            rcmsg_config_value_free(&v);
            checked++;
        } else {
            parse_bad(d, over, d->type == RCMSG_CFG_TYPE_INT ? d->form : "");
        }
    }
    ck_assert_int_ge(checked, 10);
}
END_TEST

START_TEST(test_spin_count_int)
{
    const rcmsg_config_desc_t *d = rcmsg_config_desc(RCMSG_CFG_SPIN_COUNT);
    char err[256] = "";
    rcmsg_config_value_t v;

    ck_assert_int_eq(parse_ok(d, "2147483647").i, 2147483647);
    parse_bad(d, "2147483648", "0..2147483647");
    parse_bad(d, "9223372036854775807", "0..2147483647");
    parse_bad(d, "99999999999999999999", "0..2147483647");
    parse_bad(&d_sint, "-2147483649", "-2147483648..2147483647");
    ck_assert_int_eq(rcmsg_config_parse(d, "9223372036854775807", err, sizeof(err), &v),
                     RCMSG_ERR_CONFIG);
    ck_assert_str_eq(err, "invalid value '9223372036854775807' for RCMSG_SPIN_COUNT: expected a "
                          "value in the range 0..2147483647 (it is kept in a C int)");
    /* sizes and times: 64 bits, up to LLONG_MAX; an overflowing suffix is refused */
    ck_assert_uint_eq(parse_ok(rcmsg_config_desc(RCMSG_CFG_RCACHE_SIZE), "8589934591g").size,
                      (uint64_t)8589934591 << 30);
    parse_bad(rcmsg_config_desc(RCMSG_CFG_RCACHE_SIZE), "8589934592g", "k, m or g");
    parse_bad(rcmsg_config_desc(RCMSG_CFG_LAUNCHER_TIMEOUT), "9223372036855s", "us, ms or s");
}
END_TEST

START_TEST(test_enum_choices_by_name)
{
    int checked = 0, enums = 0;

    RCMSG_CONFIG_VARS(ENUM_CHECK)
    for (int id = 0; id < RCMSG_CFG_COUNT; id++) {
        const rcmsg_config_desc_t *d = rcmsg_config_desc((rcmsg_config_id_t)id);
        char form[256] = "";

        if (d->type != RCMSG_CFG_TYPE_ENUM) {
            ck_assert_msg(d->nchoices == 0 && d->choices == NULL, "%s has no choices", d->name);
            continue;
        }
        enums++;
        for (unsigned c = 0; c < d->nchoices; c++) {
            strcat(form, c > 0 ? "|" : "");
            strcat(form, d->choices[c]);
            ck_assert_str_eq(rcmsg_config_enum_name((rcmsg_config_id_t)id, (int)c), d->choices[c]);
        }
        ck_assert_str_eq(form, d->form); /* the name table is the form shown to users */
        ck_assert_ptr_null(rcmsg_config_enum_name((rcmsg_config_id_t)id, (int)d->nchoices));
        ck_assert_ptr_null(rcmsg_config_enum_name((rcmsg_config_id_t)id, -1));
    }
    ck_assert_int_eq(checked, enums);
    ck_assert_int_eq(parse_ok(rcmsg_config_desc(RCMSG_CFG_WAIT_MODE), "hybrid").choice,
                     RCMSG_WAIT_HYBRID);
    ck_assert_int_eq(parse_ok(rcmsg_config_desc(RCMSG_CFG_IB_MTU), "1024").choice,
                     RCMSG_IB_MTU_1024);
    ck_assert_int_eq(parse_ok(rcmsg_config_desc(RCMSG_CFG_LOG_LEVEL), "trace").choice,
                     RCMSG_LOG_TRACE);
    ck_assert_int_eq(parse_ok(rcmsg_config_desc(RCMSG_CFG_COLL_ALLREDUCE_ALGORITHM), "ring").choice,
                     RCMSG_COLL_ALLREDUCE_ALG_RING);
    ck_assert_str_eq(rcmsg_config_enum_name(RCMSG_CFG_YIELD, RCMSG_YIELD_NO), "no");
}
END_TEST

START_TEST(test_load_user_values)
{
    char *env[] = {"RCMSG_LOG_LEVEL=debug",
                   "RCMSG_IB_RETRY_COUNT=3",
                   "RCMSG_SRQ_BUF_SIZE=16k",
                   "RCMSG_NET_DEVICES=rxe0:1,rxe1:1",
                   "PATH=/bin",
                   NULL};
    size_t n;
    char *const *list;

    ck_assert_int_eq(rcmsg_config_load(env), RCMSG_OK);
    ck_assert_int_eq(rcmsg_log_level, RCMSG_LOG_DEBUG);
    ck_assert_int_eq(rcmsg_config_int(RCMSG_CFG_IB_RETRY_COUNT), 3);
    ck_assert(rcmsg_config_is_set(RCMSG_CFG_IB_RETRY_COUNT));
    ck_assert(!rcmsg_config_is_set(RCMSG_CFG_IB_RNR_RETRY));
    ck_assert_uint_eq(rcmsg_config_size(RCMSG_CFG_SRQ_BUF_SIZE), 16384);
    ck_assert_str_eq(rcmsg_config_text(RCMSG_CFG_SRQ_BUF_SIZE), "16k");
    ck_assert_str_eq(rcmsg_config_enum_text(RCMSG_CFG_LOG_LEVEL), "debug");
    list = rcmsg_config_list(RCMSG_CFG_NET_DEVICES, &n);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(list[1], "rxe1:1");
    rcmsg_config_unload();
    rcmsg_log_set_level(RCMSG_LOG_WARN);
}
END_TEST

START_TEST(test_load_bad_value_fails)
{
    char *env[] = {"RCMSG_LOG_LEVEL=loud", NULL};
    char *env2[] = {"RCMSG_IB_RNR_RETRY=9", NULL};

    ck_assert_int_eq(rcmsg_config_load(env), RCMSG_ERR_CONFIG);
    ck_assert_int_eq(rcmsg_config_load(env2), RCMSG_ERR_CONFIG);
    rcmsg_config_unload();
}
END_TEST

START_TEST(test_load_unknown_is_only_a_warning)
{
    char *env[] = {"RCMSG_LOG_LEVL=info", "RCMSG_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ=1", NULL};

    ck_assert_int_eq(rcmsg_config_load(env), RCMSG_OK);
    ck_assert_int_eq(rcmsg_config_enum(RCMSG_CFG_LOG_LEVEL), RCMSG_LOG_WARN);
    rcmsg_config_unload();
}
END_TEST

START_TEST(test_closest)
{
    ck_assert_str_eq(rcmsg_config_closest("RCMSG_LOG_LEVL"), "RCMSG_LOG_LEVEL");
    ck_assert_str_eq(rcmsg_config_closest("RCMSG_LOGLEVEL"), "RCMSG_LOG_LEVEL");
    ck_assert_str_eq(rcmsg_config_closest("RCMSG_IB_RNR_RETRIES"), "RCMSG_IB_RNR_RETRY");
    ck_assert_str_eq(rcmsg_config_closest("RCMSG_NET_DEVICE"), "RCMSG_NET_DEVICES");
    ck_assert_ptr_null(rcmsg_config_closest("RCMSG_COMPLETELY_UNRELATED_THING_XYZ"));
}
END_TEST

/* The suggestions for NAME: exactly the N names given, best first. */
static void suggests(const char *name, size_t n, const char *a, const char *b)
{
    const char *names[RCMSG_CONFIG_SUGGEST_MAX];
    size_t got = rcmsg_config_suggest(name, names);

    ck_assert_msg(got == n, "%s: %zu suggestions, expected %zu", name, got, n);
    if (n > 0) {
        ck_assert_msg(strcmp(names[0], a) == 0, "%s: suggests %s, expected %s", name, names[0], a);
    }
    if (n > 1 && b != NULL) {
        ck_assert_msg(strcmp(names[1], b) == 0, "%s: then %s, expected %s", name, names[1], b);
    }
}

START_TEST(test_suggest_by_token)
{
    suggests("RCMSG_COLL_ALLREDUCE_ALGO", 1, "RCMSG_COLL_ALLREDUCE_ALGORITHM", NULL);
    suggests("RCMSG_IB_RETRY", 1, "RCMSG_IB_RETRY_COUNT", NULL); /* not IB_RNR_RETRY */
    suggests("RCMSG_RETRY_COUNT", 1, "RCMSG_IB_RETRY_COUNT", NULL);
    suggests("RCMSG_COLL_BCAST_ALGO", 1, "RCMSG_COLL_BCAST_ALGORITHM", NULL);
    suggests("RCMSG_SRQ_BUF", 1, "RCMSG_SRQ_BUF_SIZE", NULL);
    suggests("RCMSG_eager_limit", 1, "RCMSG_EAGER_LIMIT", NULL);
    suggests("RCMSG_EAGER", 3, "RCMSG_EAGER_RDMA", "RCMSG_EAGER_LIMIT"); /* all three named */
    suggests("RCMSG_COLL_ALLREDUCE", 3, "RCMSG_COLL_ALLREDUCE_LONG", NULL);
    /* edit distance, as before, when the words do not match */
    suggests("RCMSG_EAGRE_LIMIT", 1, "RCMSG_EAGER_LIMIT", NULL);
    suggests("RCMSG_EAGER_LIMITS", 1, "RCMSG_EAGER_LIMIT", NULL);
    suggests("RCMSG_IB_RETRY_COUNTS", 1, "RCMSG_IB_RETRY_COUNT", NULL);
    /* nothing absurd: one letter abbreviates nothing, a lone word of a long name is not it */
    suggests("RCMSG_", 0, NULL, NULL);
    suggests("RCMSG_A", 0, NULL, NULL);
    suggests("RCMSG_C_A_A", 0, NULL, NULL);
    suggests("RCMSG_REDUCE", 0, NULL, NULL);
    suggests("RCMSG_HELLO_WORLD", 0, NULL, NULL);
    suggests("RCMSG_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ", 0,
             NULL, NULL);
}
END_TEST

/* The warning for the environment entry ENTRY ("NAME=value"), or NULL for none. */
static const char *name_warning(const char *entry)
{
    static char msg[512];
    size_t len = strcspn(entry, "=");

    strcpy(msg, "untouched");
    if (!rcmsg_config_name_warning(entry, len, msg, sizeof(msg))) {
        ck_assert_str_eq(msg, "untouched");
        return NULL;
    }
    return msg;
}

static void warns(const char *entry, const char *expect)
{
    const char *msg = name_warning(entry);

    ck_assert_msg(msg != NULL, "%s: no warning", entry);
    ck_assert_msg(strstr(msg, expect) != NULL, "%s: '%s' lacks '%s'", entry, msg, expect);
}

START_TEST(test_name_warning)
{
    static const char *const quiet[] = {"RCMSG_EAGER_LIMIT=8k",
                                        "PATH=/bin",
                                        "HOME=/root",
                                        "OMPI_COMM_WORLD_RANK=0",
                                        "OMPI_MCA_pml=ob1",
                                        "PMIX_RANK=0",
                                        "PMIX_NAMESPACE=x",
                                        "SLURM_PROCID=0",
                                        "SLURM_STEP_NUM_TASKS=2",
                                        "RCMSGX_FOO=1",
                                        "RCMSQ_FOO=1",
                                        "rcmsg_dir=/tmp",
                                        "RCMS=1",
                                        "RCMSG=1",
                                        "RC_MSG_EAGER_LIMIT=8k",
                                        "MSG_EAGER_LIMIT=8k",
                                        "RCMSGXY_EAGER_LIMIT=8k",
                                        "=x",
                                        "RCMSQ_EAGER_LIMIT_MAX=1"};

    for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++) {
        const char *msg = name_warning(quiet[i]);
        ck_assert_msg(msg == NULL, "%s warned: %s", quiet[i], msg);
    }
    warns("RCMSG_COLL_ALLREDUCE_ALGO=ring",
          "unknown variable RCMSG_COLL_ALLREDUCE_ALGO ignored; did you mean "
          "RCMSG_COLL_ALLREDUCE_ALGORITHM?");
    warns("RCMSG_IB_RETRY=3", "RCMSG_IB_RETRY ignored; did you mean RCMSG_IB_RETRY_COUNT?");
    warns("RCMSG_EAGER=1",
          "did you mean RCMSG_EAGER_RDMA, RCMSG_EAGER_LIMIT or RCMSG_EAGER_CREDITS?");
    warns("RCMSG_COLL_ALGO=ring", "or one of 5 more (rcmsg_info lists them)?");
    warns("RCMSG_HELLO_WORLD=1",
          "unknown variable RCMSG_HELLO_WORLD ignored: no known variable is close (rcmsg_info");
    /* near misses of the prefix, naming the variable meant */
    static const char *const misses[] = {"RCMSQ_EAGER_LIMIT=8k", "RCMGS_EAGER_LIMIT=8k",
                                         "RCSMG_EAGER_LIMIT=8k", "rcmsg_eager_limit=8k",
                                         "Rcmsg_Eager_Limit=8k", "RCMSGX_EAGER_LIMIT=8k",
                                         "RCMS_EAGER_LIMIT=8k",  "RCMSQ_EAGER_LIMT=8k"};
    for (size_t i = 0; i < sizeof(misses) / sizeof(misses[0]); i++) {
        char expect[128];
        snprintf(expect, sizeof(expect), "variable %.*s ignored", (int)strcspn(misses[i], "="),
                 misses[i]);
        warns(misses[i], expect);
        warns(misses[i], "did you mean RCMSG_EAGER_LIMIT?");
    }
    warns("rcmsg_coll_allreduce_algorithm=ring", "did you mean RCMSG_COLL_ALLREDUCE_ALGORITHM?");
}
END_TEST

/* rcmsg_config_load(env) with stderr captured into out; returns the load's status. */
static rcmsg_status_t load_captured(char **env, char *out, size_t len)
{
    FILE *f = tmpfile();
    int saved = dup(STDERR_FILENO);
    rcmsg_status_t s;
    size_t n;

    ck_assert(f != NULL && saved >= 0);
    ck_assert_int_ge(dup2(fileno(f), STDERR_FILENO), 0);
    s = rcmsg_config_load(env);
    ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
    close(saved);
    rewind(f);
    n = fread(out, 1, len - 1, f);
    out[n] = '\0';
    fclose(f);
    return s;
}

static size_t count_lines(const char *text)
{
    size_t n = 0;
    for (; *text != '\0'; text++) {
        n += (*text == '\n');
    }
    return n;
}

START_TEST(test_load_warns_once_per_typo)
{
    char *env[] = {"RCMSG_IB_RETRY=3",       "RCMSQ_EAGER_LIMIT=4k", "rcmsg_eager_limit=4k",
                   "OMPI_COMM_WORLD_RANK=0", "PMIX_RANK=0",          "SLURM_PROCID=0",
                   "RCMSGX_FOO=1",           "RCMSG_SM_CELLS=8",     NULL};
    char out[4096];

    rcmsg_log_set_level(RCMSG_LOG_WARN);
    ck_assert_int_eq(load_captured(env, out, sizeof(out)), RCMSG_OK);
    ck_assert_msg(count_lines(out) == 3, "three warnings:\n%s", out);
    ck_assert_msg(strstr(out, "warn: unknown variable RCMSG_IB_RETRY ignored; did you mean "
                              "RCMSG_IB_RETRY_COUNT?\n") != NULL,
                  "%s", out);
    ck_assert_msg(strstr(out, "warn: variable RCMSQ_EAGER_LIMIT ignored") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "warn: variable rcmsg_eager_limit ignored") != NULL, "%s", out);
    ck_assert_uint_eq(rcmsg_config_size(RCMSG_CFG_EAGER_LIMIT), 8192); /* the typos are ignored */
    ck_assert_int_eq(rcmsg_config_int(RCMSG_CFG_SM_CELLS), 8);
    rcmsg_config_unload();
}
END_TEST

/* A bad value from the environment fails the load with one error naming it and the form. */
static void load_fails(char *entry, const char *expect)
{
    char *env[] = {entry, NULL};
    char out[4096];

    ck_assert_int_eq(load_captured(env, out, sizeof(out)), RCMSG_ERR_CONFIG);
    ck_assert_msg(count_lines(out) == 1 && strstr(out, expect) != NULL, "%s: '%s' lacks '%s'",
                  entry, out, expect);
    rcmsg_config_unload();
}

START_TEST(test_load_empty_and_junk_values)
{
    rcmsg_log_set_level(RCMSG_LOG_WARN);
    load_fails("RCMSG_EAGER_LIMIT=",
               "error: empty value for RCMSG_EAGER_LIMIT: expected a size in bytes with an "
               "optional k, m or g suffix (e.g. 8k) in 0..1m\n");
    load_fails("RCMSG_EAGER_LIMIT=8k ", "error: invalid value '8k ' for RCMSG_EAGER_LIMIT: "
                                        "expected a size in bytes");
    load_fails("RCMSG_EAGER_LIMIT=8k;", "invalid value '8k;' for RCMSG_EAGER_LIMIT: expected");
    load_fails("RCMSG_IB_TIMEOUT=", "empty value for RCMSG_IB_TIMEOUT: expected an integer in "
                                    "1..31\n");
    load_fails("RCMSG_IB_TIMEOUT=14 ", "invalid value '14 ' for RCMSG_IB_TIMEOUT: expected an "
                                       "integer in 1..31\n");
    load_fails("RCMSG_DRAIN_TIMEOUT=", "empty value for RCMSG_DRAIN_TIMEOUT: expected a time");
    load_fails("RCMSG_DRAIN_TIMEOUT=5s\t", "for RCMSG_DRAIN_TIMEOUT: expected a time");
    load_fails("RCMSG_RCACHE=", "empty value for RCMSG_RCACHE: expected a boolean");
    load_fails("RCMSG_RCACHE=yes ", "invalid value 'yes ' for RCMSG_RCACHE: expected a boolean");
    load_fails("RCMSG_WAIT_MODE=", "empty value for RCMSG_WAIT_MODE: expected one of "
                                   "poll|event|hybrid\n");
    load_fails("RCMSG_WAIT_MODE=event ", "invalid value 'event ' for RCMSG_WAIT_MODE: expected "
                                         "one of poll|event|hybrid\n");
}
END_TEST

static Suite *base_suite(void)
{
    Suite *s = suite_create("base");
    TCase *tc;

    tc = tcase_create("status");
    tcase_add_test(tc, test_status_names);
    tcase_add_test(tc, test_enum_names_bounded);
    suite_add_tcase(s, tc);

    tc = tcase_create("watch");
    tcase_add_test(tc, test_watch_fd_news_take);
    tcase_add_test(tc, test_watch_pidfd_exit);
    suite_add_tcase(s, tc);

    tc = tcase_create("log");
    tcase_add_test(tc, test_log_off_evaluates_nothing);
    tcase_add_test(tc, test_log_on_evaluates);
    suite_add_tcase(s, tc);

    tc = tcase_create("config");
    tcase_add_test(tc, test_parse_bool);
    tcase_add_test(tc, test_parse_int);
    tcase_add_test(tc, test_parse_size);
    tcase_add_test(tc, test_parse_time);
    tcase_add_test(tc, test_parse_enum);
    tcase_add_test(tc, test_parse_list);
    tcase_add_test(tc, test_parse_empty_and_junk);
    tcase_add_test(tc, test_every_default_parses);
    tcase_add_test(tc, test_enum_choices_by_name);
    tcase_add_test(tc, test_array_bound_ranges);
    tcase_add_test(tc, test_type_limits);
    tcase_add_test(tc, test_spin_count_int);
    tcase_add_test(tc, test_load_user_values);
    tcase_add_test(tc, test_load_bad_value_fails);
    tcase_add_test(tc, test_load_unknown_is_only_a_warning);
    tcase_add_test(tc, test_closest);
    tcase_add_test(tc, test_suggest_by_token);
    tcase_add_test(tc, test_name_warning);
    tcase_add_test(tc, test_load_warns_once_per_typo);
    tcase_add_test(tc, test_load_empty_and_junk_values);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return ck_run(base_suite());
}
