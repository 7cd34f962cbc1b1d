/* SPDX-License-Identifier: BSD-3-Clause */
/* The transport registry with fake components (no transport, no launcher): which components
 * open for a job, RCMSG_TRANSPORTS, the choice of transport per peer by reachability and
 * priority, and the error when none reaches; and the shape of the real table. */
#include "config.h"

#include "btl/btl_component.h"

#include "ck_run.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- fake transports: "me" (this rank), "node" (same key "N1"), "net" (any peer) --------- */

typedef struct {
    rcmsg_btl_t super;
    int rank;
} fake_btl_t;

static fake_btl_t fakes[RCMSG_BTL_MAX];
static int nfakes, nclosed;
static rcmsg_status_t net_open_status; /* what the "net" component's open answers */

static void fake_close(rcmsg_btl_t *btl)
{
    (void)btl;
    nclosed++;
}

static const rcmsg_btl_ops_t fake_ops = {.close = fake_close};

static rcmsg_status_t fake_open(const rcmsg_btl_job_t *job, rcmsg_btl_t **btl_p)
{
    fake_btl_t *f = &fakes[nfakes++];

    f->super.ops = &fake_ops;
    f->rank = job->rank;
    *btl_p = &f->super;
    return RCMSG_OK;
}

static rcmsg_status_t net_open(const rcmsg_btl_job_t *job, rcmsg_btl_t **btl_p)
{
    return net_open_status == RCMSG_OK ? fake_open(job, btl_p) : net_open_status;
}

static size_t addr_none(const rcmsg_btl_job_t *job)
{
    (void)job;
    return 0;
}

static bool me_reachable(rcmsg_btl_t *btl, int peer, const void *addr, size_t len)
{
    (void)addr;
    (void)len;
    return peer == ((fake_btl_t *)btl)->rank;
}

static bool node_reachable(rcmsg_btl_t *btl, int peer, const void *addr, size_t len)
{
    (void)btl;
    (void)peer;
    return len == 2 && memcmp(addr, "N1", 2) == 0;
}

static bool net_reachable(rcmsg_btl_t *btl, int peer, const void *addr, size_t len)
{
    (void)btl;
    (void)peer;
    (void)addr;
    (void)len;
    return true;
}

static const rcmsg_btl_component_t me_comp = {.name = "me",
                                              .priority = 30,
                                              .reach = RCMSG_BTL_REACH_SELF,
                                              .always = true,
                                              .addr_max = addr_none,
                                              .open = fake_open,
                                              .reachable = me_reachable};
static const rcmsg_btl_component_t node_comp = {.name = "node",
                                                .priority = 20,
                                                .reach = RCMSG_BTL_REACH_NODE,
                                                .addr_max = addr_none,
                                                .open = fake_open,
                                                .reachable = node_reachable};
static const rcmsg_btl_component_t net_comp = {.name = "net",
                                               .priority = 10,
                                               .reach = RCMSG_BTL_REACH_ANY,
                                               .addr_max = addr_none,
                                               .open = net_open,
                                               .reachable = net_reachable};

/* listed out of priority order on purpose: priorities, not the table order, decide */
static const rcmsg_btl_component_t *const fake_comps[] = {&net_comp, &me_comp, &node_comp};
static const rcmsg_btl_table_t fake_table = {fake_comps, 3};

static rcmsg_btl_set_t set;

static void setup(void)
{
    memset(fakes, 0, sizeof(fakes));
    memset(&set, 0, sizeof(set));
    nfakes = nclosed = 0;
    net_open_status = RCMSG_OK;
}

/* ---- capture of the error lines ------------------------------------------------------- */

static char logged[4096];
static int saved_stderr = -1;
static FILE *capture;

static void capture_start(void)
{
    fflush(stderr);
    capture = tmpfile();
    ck_assert_ptr_nonnull(capture);
    saved_stderr = dup(STDERR_FILENO);
    dup2(fileno(capture), STDERR_FILENO);
}

static const char *capture_end(void)
{
    size_t n;

    fflush(stderr);
    dup2(saved_stderr, STDERR_FILENO);
    close(saved_stderr);
    rewind(capture);
    n = fread(logged, 1, sizeof(logged) - 1, capture);
    logged[n] = '\0';
    fclose(capture);
    fputs(logged, stderr); /* still shown in the test's log */
    return logged;
}

/* mask of the names allowed, as RCMSG_TRANSPORTS would list them */
static unsigned allow(const char *a, const char *b)
{
    char *items[2] = {(char *)a, (char *)b};
    unsigned mask = 0;

    ck_assert_int_eq(rcmsg_btl_allowed(&fake_table, items, b != NULL ? 2 : 1, &mask), RCMSG_OK);
    return mask;
}

static const char *opened_names(void)
{
    static char buf[64];

    buf[0] = '\0';
    for (int i = 0; i < set.n; i++) {
        strcat(buf, i ? "," : "");
        strcat(buf, set.btls[i]->component->name);
    }
    return buf;
}

/* ---- which components open ------------------------------------------------------------ */

START_TEST(test_open_by_need)
{
    unsigned all = allow("node", "net");
    rcmsg_btl_job_t single = {.rank = 0, .size = 1, .local_size = 1};
    rcmsg_btl_job_t local = {.rank = 1, .size = 3, .local_rank = 1, .local_size = 3};
    rcmsg_btl_job_t mixed = {.rank = 1, .size = 4, .local_rank = 1, .local_size = 2};

    ck_assert_int_eq(rcmsg_btl_open_all(&fake_table, &single, all, "node,net", &set), RCMSG_OK);
    ck_assert_str_eq(opened_names(), "me"); /* a 1-rank job needs only its own transport */
    rcmsg_btl_close_all(&set);
    ck_assert_int_eq(nclosed, 1);
    ck_assert_int_eq(set.n, 0);

    ck_assert_int_eq(rcmsg_btl_open_all(&fake_table, &local, all, "node,net", &set), RCMSG_OK);
    ck_assert_str_eq(opened_names(), "me,node"); /* net is not wanted: node serves them all */
    rcmsg_btl_close_all(&set);

    ck_assert_int_eq(rcmsg_btl_open_all(&fake_table, &mixed, all, "node,net", &set), RCMSG_OK);
    ck_assert_str_eq(opened_names(), "me,node,net");
    ck_assert_ptr_eq(set.btls[2]->component, &net_comp);
    rcmsg_btl_close_all(&set);
    ck_assert_int_eq(nclosed, 6);
}
END_TEST

START_TEST(test_wanted)
{
    rcmsg_btl_job_t local = {.rank = 0, .size = 2, .local_size = 2};
    rcmsg_btl_job_t remote = {.rank = 0, .size = 2, .local_size = 1};

    ck_assert_uint_eq(rcmsg_btl_wanted(&net_comp, &local, RCMSG_BTL_NEED_SELF),
                      RCMSG_BTL_NEED_LOCAL);
    ck_assert_uint_eq(
        rcmsg_btl_wanted(&net_comp, &local, RCMSG_BTL_NEED_SELF | RCMSG_BTL_NEED_LOCAL), 0);
    ck_assert_uint_eq(rcmsg_btl_wanted(&node_comp, &remote, RCMSG_BTL_NEED_SELF), 0);
    ck_assert_uint_eq(rcmsg_btl_wanted(&net_comp, &remote, RCMSG_BTL_NEED_SELF),
                      RCMSG_BTL_NEED_REMOTE);
    ck_assert_uint_eq(rcmsg_btl_wanted(&me_comp, &remote, 0), RCMSG_BTL_NEED_SELF);
}
END_TEST

/* RCMSG_TRANSPORTS without node: net serves the local peers; without net as well: an error
 * that says what is excluded; an unknown name: an error listing the known ones. */
START_TEST(test_transports_exclude)
{
    rcmsg_btl_job_t local = {.rank = 0, .size = 2, .local_size = 2};
    rcmsg_btl_job_t remote = {.rank = 0, .size = 2, .local_size = 1};
    char *bogus[] = {"node", "ud"};
    unsigned mask = 12345;
    const char *log;

    ck_assert_int_eq(rcmsg_btl_open_all(&fake_table, &local, allow("net", NULL), "net", &set),
                     RCMSG_OK);
    ck_assert_str_eq(opened_names(), "me,net");
    rcmsg_btl_close_all(&set);

    capture_start();
    ck_assert_int_eq(rcmsg_btl_open_all(&fake_table, &local, allow("me", NULL), "me", &set),
                     RCMSG_ERR_CONFIG);
    ck_assert_str_eq(opened_names(), "me"); /* what was opened is left for the caller */
    rcmsg_btl_close_all(&set);
    ck_assert_int_eq(rcmsg_btl_open_all(&fake_table, &remote, allow("node", NULL), "node", &set),
                     RCMSG_ERR_CONFIG);
    ck_assert_str_eq(opened_names(), "me");
    ck_assert_int_eq(rcmsg_btl_allowed(&fake_table, bogus, 2, &mask), RCMSG_ERR_CONFIG);
    log = capture_end();
    ck_assert_uint_eq(mask, 12345); /* untouched on error */
    ck_assert_ptr_nonnull(
        strstr(log, "peers run on this node, but RCMSG_TRANSPORTS=me excludes node, net"));
    ck_assert_ptr_nonnull(
        strstr(log, "peers run on other nodes, but RCMSG_TRANSPORTS=node excludes net"));
    ck_assert_ptr_nonnull(
        strstr(log, "RCMSG_TRANSPORTS: unknown transport 'ud' (known: net, me, node)"));
    rcmsg_btl_close_all(&set);
}
END_TEST

/* Every branch of the error for ranks without a transport names the right thing: a build
 * without a node-local transport, and one with nothing but "me". */
START_TEST(test_transports_uncovered_words)
{
    static const rcmsg_btl_component_t *const no_node[] = {&me_comp, &net_comp};
    static const rcmsg_btl_component_t *const me_only[] = {&me_comp};
    const rcmsg_btl_table_t no_node_table = {no_node, 2}, me_only_table = {me_only, 1};
    rcmsg_btl_job_t local = {.rank = 0, .size = 2, .local_size = 2};
    rcmsg_btl_job_t remote = {.rank = 0, .size = 2, .local_size = 1};
    const char *log;

    capture_start();
    ck_assert_int_eq(rcmsg_btl_open_all(&no_node_table, &local, 1u << 0, "me", &set),
                     RCMSG_ERR_CONFIG);
    ck_assert_int_eq(rcmsg_btl_open_all(&me_only_table, &local, 1u << 0, "me", &set),
                     RCMSG_ERR_CONFIG);
    ck_assert_int_eq(rcmsg_btl_open_all(&me_only_table, &remote, 1u << 0, "me", &set),
                     RCMSG_ERR_CONFIG);
    log = capture_end();
    ck_assert_ptr_nonnull(
        strstr(log, "peers run on this node, but RCMSG_TRANSPORTS=me excludes net\n"));
    ck_assert_ptr_nonnull(
        strstr(log, "peers run on this node, but no transport of this build reaches them"));
    ck_assert_ptr_nonnull(
        strstr(log, "peers run on other nodes, but no transport of this build reaches them"));
    ck_assert_ptr_null(strstr(log, "not used"));
    ck_assert_ptr_null(strstr(log, "excludes every"));
    rcmsg_btl_close_all(&set);
}
END_TEST

START_TEST(test_open_failure)
{
    rcmsg_btl_job_t remote = {.rank = 0, .size = 3, .local_size = 2};
    const char *log;

    net_open_status = RCMSG_ERR_NO_DEVICE;
    capture_start();
    ck_assert_int_eq(
        rcmsg_btl_open_all(&fake_table, &remote, allow("node", "net"), "node,net", &set),
        RCMSG_ERR_NO_DEVICE);
    log = capture_end();
    ck_assert_ptr_nonnull(strstr(
        log, "cannot open the net transport (RCMSG_ERR_NO_DEVICE) but peers on other nodes need "
             "it"));
    ck_assert_str_eq(opened_names(), "me,node"); /* left for the caller to close */
    rcmsg_btl_close_all(&set);
    ck_assert_int_eq(nclosed, 2);
}
END_TEST

/* ---- the choice per peer -------------------------------------------------------------- */

static void open_three(void)
{
    rcmsg_btl_job_t job = {.rank = 0, .size = 4, .local_size = 2};

    ck_assert_int_eq(rcmsg_btl_open_all(&fake_table, &job, allow("node", "net"), "all", &set),
                     RCMSG_OK);
    ck_assert_str_eq(opened_names(), "me,node,net");
}

START_TEST(test_select_priority)
{
    rcmsg_btl_section_t secs[] = {{"net", "x", 1}, {"node", "N1", 2}, {"me", NULL, 0}};
    rcmsg_btl_section_t reversed[] = {{"me", NULL, 0}, {"node", "N1", 2}, {"net", "x", 1}};

    open_three();
    /* every transport reaches rank 0 (this rank): me has the highest priority */
    ck_assert_int_eq(rcmsg_btl_select(&set, 0, secs, 3), 0);
    ck_assert_int_eq(rcmsg_btl_select(&set, 0, reversed, 3), 0);
    /* rank 1 on this node: node beats net, whatever the section order */
    ck_assert_int_eq(rcmsg_btl_select(&set, 1, secs, 3), 1);
    ck_assert_int_eq(rcmsg_btl_select(&set, 1, secs, 2), 1);
    ck_assert_int_eq(rcmsg_btl_select(&set, 1, reversed, 3), 1);
    ck_assert_int_eq(rcmsg_btl_select(&set, 1, reversed + 1, 2), 1);
    rcmsg_btl_close_all(&set);
}
END_TEST

START_TEST(test_select_not_reached)
{
    rcmsg_btl_section_t other_node[] = {{"node", "N2", 2}, {"net", "x", 1}};
    rcmsg_btl_section_t no_net[] = {{"node", "N1", 2}};
    rcmsg_btl_section_t only_net[] = {{"net", "x", 1}};

    open_three();
    /* node says no (another node's key): net, the next priority, gets the peer */
    ck_assert_int_eq(rcmsg_btl_select(&set, 2, other_node, 2), 2);
    /* a peer without a net section: only node can reach it */
    ck_assert_int_eq(rcmsg_btl_select(&set, 1, no_net, 1), 1);
    /* a transport without the peer's section is never chosen, even if it would say yes */
    ck_assert_int_eq(rcmsg_btl_select(&set, 3, only_net, 1), 2);
    rcmsg_btl_close_all(&set);
}
END_TEST

START_TEST(test_select_none)
{
    rcmsg_btl_job_t local = {.rank = 0, .size = 2, .local_size = 2};
    rcmsg_btl_section_t other_node[] = {{"node", "N2", 2}};
    rcmsg_btl_section_t with_net[] = {{"node", "N2", 2}, {"net", "x", 1}};
    char why[128];

    open_three();
    ck_assert_int_eq(rcmsg_btl_select(&set, 3, other_node, 1), -1);
    rcmsg_btl_unreached_why(&fake_table, &set, other_node, 1, why, sizeof(why));
    ck_assert_str_eq(why, "it has not opened net");
    rcmsg_btl_close_all(&set);

    /* this rank opened me and node only (all its peers looked local) */
    ck_assert_int_eq(
        rcmsg_btl_open_all(&fake_table, &local, allow("node", "net"), "node,net", &set), RCMSG_OK);
    ck_assert_int_eq(rcmsg_btl_select(&set, 1, with_net, 2), -1);
    rcmsg_btl_unreached_why(&fake_table, &set, with_net, 2, why, sizeof(why));
    ck_assert_str_eq(why, "it needs net, which this rank has not opened");
    ck_assert_int_eq(rcmsg_btl_select(&set, 1, NULL, 0), -1); /* no sections at all */
    rcmsg_btl_close_all(&set);
}
END_TEST

/* ---- the real table ------------------------------------------------------------------- */

START_TEST(test_real_table)
{
    const rcmsg_btl_component_t *self = rcmsg_btl_find(&rcmsg_btl_table, "self");
    const rcmsg_btl_component_t *sm = rcmsg_btl_find(&rcmsg_btl_table, "sm");
    const rcmsg_btl_component_t *rc = rcmsg_btl_find(&rcmsg_btl_table, "rc");
    char names[128];

    /* rc is listed in every build: without verbs its open says why it is missing */
    ck_assert_ptr_nonnull(self);
    ck_assert_ptr_nonnull(sm);
    ck_assert_ptr_nonnull(rc);
    ck_assert_ptr_null(rcmsg_btl_find(&rcmsg_btl_table, "ud"));
    ck_assert(self->always && !sm->always && !rc->always);
    ck_assert_int_gt(self->priority, sm->priority);
    ck_assert_int_gt(sm->priority, rc->priority);
    rcmsg_btl_names(&rcmsg_btl_table, names, sizeof(names));
    ck_assert_str_eq(names, "self, sm, rc");
    for (int i = 0; i < rcmsg_btl_table.n; i++) {
        const rcmsg_btl_component_t *c = rcmsg_btl_table.comps[i];

        ck_assert_uint_le(strlen(c->name), 8); /* a wireup section name */
        ck_assert(c->open != NULL && c->reachable != NULL && c->addr_max != NULL);
        ck_assert_ptr_eq(rcmsg_btl_find(&rcmsg_btl_table, c->name), c); /* unique */
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("btl_registry");
    TCase *open = tcase_create("open");
    TCase *select = tcase_create("select");
    TCase *table = tcase_create("table");

    tcase_add_checked_fixture(open, setup, NULL);
    tcase_add_test(open, test_open_by_need);
    tcase_add_test(open, test_wanted);
    tcase_add_test(open, test_transports_exclude);
    tcase_add_test(open, test_transports_uncovered_words);
    tcase_add_test(open, test_open_failure);
    suite_add_tcase(s, open);
    tcase_add_checked_fixture(select, setup, NULL);
    tcase_add_test(select, test_select_priority);
    tcase_add_test(select, test_select_not_reached);
    tcase_add_test(select, test_select_none);
    suite_add_tcase(s, select);
    tcase_add_test(table, test_real_table);
    suite_add_tcase(s, table);
    return ck_run(s);
}
