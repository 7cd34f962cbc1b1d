/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transport components and the registry (after Open MPI's btl component and its add_procs
 * reachability). A transport is one rcmsg_btl_component_t, defined in its own folder and
 * listed once in btl_components.c; wireup, pml and progress only iterate:
 *
 *   RCMSG_TRANSPORTS -> rcmsg_btl_allowed()   which components may open (names checked)
 *   job              -> rcmsg_btl_open_all()  opens, by decreasing priority, each allowed
 *                                             component whose reach serves ranks that no
 *                                             opened one serves yet
 *   opened           -> addr_pack             one wireup section per opened transport,
 *                                             named after its component
 *   peer's sections  -> rcmsg_btl_select()    the opened transport of highest priority that
 *                                             has the peer's section and says reachable()
 *
 * Ownership: components are static and const; an opened transport belongs to its set until
 * rcmsg_btl_close_all(). A peer's sections belong to the caller (valid during the call).
 */
#ifndef RCMSG_BTL_COMPONENT_H
#define RCMSG_BTL_COMPONENT_H

#include "base/log.h"
#include "btl/btl.h"

#include <stdbool.h>
#include <stddef.h>

/* The most transports a process opens (and the most components a table holds). */
#define RCMSG_BTL_MAX 8

/* The ranks a component can serve; decides whether it is opened for a job. */
typedef enum {
    RCMSG_BTL_REACH_SELF, /* this rank only */
    RCMSG_BTL_REACH_NODE, /* ranks on this node */
    RCMSG_BTL_REACH_ANY,  /* every rank */
} rcmsg_btl_reach_t;

/* Which ranks a component is opened for (bits): none means it is not wanted. */
enum {
    RCMSG_BTL_NEED_SELF = 1u << 0,   /* this rank */
    RCMSG_BTL_NEED_LOCAL = 1u << 1,  /* other ranks on this node */
    RCMSG_BTL_NEED_REMOTE = 1u << 2, /* ranks on other nodes */
};

typedef struct rcmsg_btl_component {
    const char *name;        /* wireup section and RCMSG_TRANSPORTS item; at most 8 chars */
    int priority;            /* a peer reached by several opened transports gets the highest */
    rcmsg_btl_reach_t reach; /* the ranks it can serve */
    bool always;             /* opened whatever RCMSG_TRANSPORTS says (self) */
    /* The largest address addr_pack() writes for this job. */
    size_t (*addr_max)(const rcmsg_btl_job_t *job);
    /* Opens the transport; logs why it cannot. *btl_p set only on success. */
    rcmsg_status_t (*open)(const rcmsg_btl_job_t *job, rcmsg_btl_t **btl_p);
    /* Whether the opened btl reaches peer, given the section the peer published under this
     * component's name (called only when the peer has one). */
    bool (*reachable)(rcmsg_btl_t *btl, int peer, const void *addr, size_t len);
    /* Whether, for this job and configuration, the transport fetches a peer's address only
     * when it first needs it (rc's lazy connect): then wireup gives connect() the peers it
     * must know at init (those of this node another transport may serve) and sets the
     * transport's addr_fetch for the others; the same answer on every rank (NULL: never). */
    bool (*addr_on_demand)(const rcmsg_btl_job_t *job);
    /* Logs the transport's state at level after wireup (NULL: nothing to show). */
    void (*dump)(rcmsg_btl_t *btl, rcmsg_log_level_t level);
    /* Prints its part of the state dump with rcmsg_log_dump (RCMSG_STALL_TIMEOUT, SIGUSR1):
     * each connection's state as mirrored and as the hardware has it now (NULL: nothing). */
    void (*dump_state)(rcmsg_btl_t *btl);
} rcmsg_btl_component_t;

/* A list of components: the registry (rcmsg_btl_table) or a test's fakes. */
typedef struct {
    const rcmsg_btl_component_t *const *comps;
    int n;
} rcmsg_btl_table_t;

/* Every transport of this build, one line each in btl_components.c. */
extern const rcmsg_btl_table_t rcmsg_btl_table;

/* The opened transports, by decreasing priority; btls[i]->component says which. */
typedef struct {
    rcmsg_btl_t *btls[RCMSG_BTL_MAX];
    int n;
} rcmsg_btl_set_t;

/* A peer's published address section for one component. */
typedef struct {
    const char *name;
    const void *data;
    size_t len;
} rcmsg_btl_section_t;

/* The component named name, or NULL. */
const rcmsg_btl_component_t *rcmsg_btl_find(const rcmsg_btl_table_t *t, const char *name);

/* Opens one component's transport (its open op), which then points back to it. */
rcmsg_status_t rcmsg_btl_open(const rcmsg_btl_component_t *c, const rcmsg_btl_job_t *job,
                              rcmsg_btl_t **btl_p);

/* "self, sm, rc": the names of the table, into buf. */
void rcmsg_btl_names(const rcmsg_btl_table_t *t, char *buf, size_t cap);

/* The components the items of RCMSG_TRANSPORTS allow (bit i: t->comps[i]), plus every
 * `always` one. RCMSG_ERR_CONFIG (logged, listing the known names) on an unknown item. */
rcmsg_status_t rcmsg_btl_allowed(const rcmsg_btl_table_t *t, char *const *items, size_t n,
                                 unsigned *mask_p);

/* The ranks of job that component c would serve and that no opened transport serves yet
 * (covered: RCMSG_BTL_NEED_* bits already served); 0: c is not wanted. */
unsigned rcmsg_btl_wanted(const rcmsg_btl_component_t *c, const rcmsg_btl_job_t *job,
                          unsigned covered);

/* Opens, by decreasing priority, every allowed component that is wanted (allowed: the mask
 * of rcmsg_btl_allowed, allowed_text: the setting, for messages). Fails (logged) when one
 * cannot open or when ranks are left that no allowed component serves; what was opened stays
 * in set for rcmsg_btl_close_all(). */
rcmsg_status_t rcmsg_btl_open_all(const rcmsg_btl_table_t *t, const rcmsg_btl_job_t *job,
                                  unsigned allowed, const char *allowed_text, rcmsg_btl_set_t *set);

/* Index in set of the transport for peer: the one of highest priority that has a section in
 * secs (by its component's name) and says reachable; -1 when none does. Pure: no logging. */
int rcmsg_btl_select(const rcmsg_btl_set_t *set, int peer, const rcmsg_btl_section_t *secs,
                     int nsecs);

/* Why no transport reaches a peer that published secs, in words, into buf. */
void rcmsg_btl_unreached_why(const rcmsg_btl_table_t *t, const rcmsg_btl_set_t *set,
                             const rcmsg_btl_section_t *secs, int nsecs, char *buf, size_t cap);

/* Logs the state of every opened transport that has a dump op. */
void rcmsg_btl_dump_all(const rcmsg_btl_set_t *set, rcmsg_log_level_t level);

/* Closes every opened transport, in reverse order; the set is empty after. */
void rcmsg_btl_close_all(rcmsg_btl_set_t *set);

#endif /* RCMSG_BTL_COMPONENT_H */
