/* SPDX-License-Identifier: BSD-3-Clause */
/* The transport registry: which components open for a job, and which one reaches a peer. */
#include "config.h"

#include "btl_component.h"

#include <stdio.h>
#include <string.h>

const rcmsg_btl_component_t *rcmsg_btl_find(const rcmsg_btl_table_t *t, const char *name)
{
    for (int i = 0; i < t->n; i++) {
        if (strcmp(t->comps[i]->name, name) == 0) {
            return t->comps[i];
        }
    }
    return NULL;
}

/* Appends name to the ", "-separated list in buf (truncated to cap). */
static void names_add(char *buf, size_t cap, const char *name)
{
    size_t used = strlen(buf);

    if (used < cap) {
        snprintf(buf + used, cap - used, "%s%s", used > 0 ? ", " : "", name);
    }
}

void rcmsg_btl_names(const rcmsg_btl_table_t *t, char *buf, size_t cap)
{
    buf[0] = '\0';
    for (int i = 0; i < t->n; i++) {
        names_add(buf, cap, t->comps[i]->name);
    }
}

rcmsg_status_t rcmsg_btl_allowed(const rcmsg_btl_table_t *t, char *const *items, size_t n,
                                 unsigned *mask_p)
{
    unsigned mask = 0;
    char known[128];

    for (int i = 0; i < t->n; i++) {
        mask |= t->comps[i]->always ? 1u << i : 0;
    }
    for (size_t k = 0; k < n; k++) {
        int i = 0;

        while (i < t->n && strcmp(t->comps[i]->name, items[k]) != 0) {
            i++;
        }
        if (i == t->n) {
            rcmsg_btl_names(t, known, sizeof(known));
            rcmsg_error("RCMSG_TRANSPORTS: unknown transport '%s' (known: %s)", items[k], known);
            return RCMSG_ERR_CONFIG;
        }
        mask |= 1u << i;
    }
    *mask_p = mask;
    return RCMSG_OK;
}

/* The RCMSG_BTL_NEED_* kinds of rank a reach serves. */
static unsigned reach_serves(rcmsg_btl_reach_t reach)
{
    switch (reach) {
    case RCMSG_BTL_REACH_SELF:
        return RCMSG_BTL_NEED_SELF;
    case RCMSG_BTL_REACH_NODE:
        return RCMSG_BTL_NEED_SELF | RCMSG_BTL_NEED_LOCAL;
    case RCMSG_BTL_REACH_ANY:
        break;
    }
    return RCMSG_BTL_NEED_SELF | RCMSG_BTL_NEED_LOCAL | RCMSG_BTL_NEED_REMOTE;
}

/* The kinds of rank this job has. */
static unsigned job_present(const rcmsg_btl_job_t *job)
{
    return RCMSG_BTL_NEED_SELF | (job->local_size > 1 ? RCMSG_BTL_NEED_LOCAL : 0u) |
           (job->size > job->local_size ? RCMSG_BTL_NEED_REMOTE : 0u);
}

unsigned rcmsg_btl_wanted(const rcmsg_btl_component_t *c, const rcmsg_btl_job_t *job,
                          unsigned covered)
{
    return reach_serves(c->reach) & job_present(job) & ~covered;
}

/* Index order of t by decreasing priority (stable: table order breaks ties). */
static void by_priority(const rcmsg_btl_table_t *t, int *order)
{
    for (int i = 0; i < t->n; i++) {
        int j = i;

        while (j > 0 && t->comps[order[j - 1]]->priority < t->comps[i]->priority) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
}

static const char *need_text(unsigned need)
{
    if (need & RCMSG_BTL_NEED_REMOTE) {
        return "peers on other nodes";
    }
    return need & RCMSG_BTL_NEED_LOCAL ? "local peers" : "this rank's own messages";
}

/* Appends to buf the names of the components not allowed whose reach is exactly `reach`. */
static void excluded_names(const rcmsg_btl_table_t *t, unsigned allowed, rcmsg_btl_reach_t reach,
                           char *buf, size_t cap)
{
    for (int i = 0; i < t->n; i++) {
        if (!(allowed & (1u << i)) && t->comps[i]->reach == reach) {
            names_add(buf, cap, t->comps[i]->name);
        }
    }
}

/* Logs why the ranks of kinds `left` have no transport: every component that would reach
 * them excluded (named), or none in this build. */
static rcmsg_status_t uncovered(const rcmsg_btl_table_t *t, unsigned allowed,
                                const char *allowed_text, unsigned left)
{
    const char *who =
        left & RCMSG_BTL_NEED_REMOTE ? "peers run on other nodes" : "peers run on this node";
    char names[128] = "";

    if (!(left & (RCMSG_BTL_NEED_REMOTE | RCMSG_BTL_NEED_LOCAL))) {
        rcmsg_error("no transport of this build serves a rank's own messages");
        return RCMSG_ERR_CONFIG;
    }
    if (!(left & RCMSG_BTL_NEED_REMOTE)) {
        excluded_names(t, allowed, RCMSG_BTL_REACH_NODE, names, sizeof(names));
    }
    excluded_names(t, allowed, RCMSG_BTL_REACH_ANY, names, sizeof(names));
    if (names[0] != '\0') {
        rcmsg_error("%s, but RCMSG_TRANSPORTS=%s excludes %s", who, allowed_text, names);
    } else {
        rcmsg_error("%s, but no transport of this build reaches them", who);
    }
    return RCMSG_ERR_CONFIG;
}

rcmsg_status_t rcmsg_btl_open(const rcmsg_btl_component_t *c, const rcmsg_btl_job_t *job,
                              rcmsg_btl_t **btl_p)
{
    rcmsg_status_t s = c->open(job, btl_p);

    if (s == RCMSG_OK) {
        (*btl_p)->component = c;
    }
    return s;
}

static rcmsg_status_t open_one(const rcmsg_btl_component_t *c, const rcmsg_btl_job_t *job,
                               unsigned need, rcmsg_btl_set_t *set)
{
    rcmsg_btl_t *btl = NULL;
    rcmsg_status_t s;

    if (set->n == RCMSG_BTL_MAX) {
        rcmsg_error("cannot open the %s transport: %d are open already", c->name, set->n);
        return RCMSG_ERR_NO_RESOURCE;
    }
    s = rcmsg_btl_open(c, job, &btl);
    if (s != RCMSG_OK) {
        rcmsg_error("cannot open the %s transport (%s) but %s need it", c->name,
                    rcmsg_status_name(s), need_text(need));
        return s;
    }
    set->btls[set->n++] = btl;
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_btl_open_all(const rcmsg_btl_table_t *t, const rcmsg_btl_job_t *job,
                                  unsigned allowed, const char *allowed_text, rcmsg_btl_set_t *set)
{
    int order[RCMSG_BTL_MAX];
    unsigned covered = 0, left;

    if (t->n > RCMSG_BTL_MAX) {
        rcmsg_error("%d transports in the table, at most %d supported", t->n, RCMSG_BTL_MAX);
        return RCMSG_ERR_CONFIG;
    }
    by_priority(t, order);
    for (int k = 0; k < t->n; k++) {
        const rcmsg_btl_component_t *c = t->comps[order[k]];
        unsigned need = rcmsg_btl_wanted(c, job, covered);
        rcmsg_status_t s;

        if (need == 0 || !(allowed & (1u << order[k]))) {
            continue;
        }
        s = open_one(c, job, need, set);
        if (s != RCMSG_OK) {
            return s;
        }
        covered |= need;
    }
    left = job_present(job) & ~covered;
    return left == 0 ? RCMSG_OK : uncovered(t, allowed, allowed_text, left);
}

/* The section named name in secs, or NULL. */
static const rcmsg_btl_section_t *section_of(const rcmsg_btl_section_t *secs, int nsecs,
                                             const char *name)
{
    for (int i = 0; i < nsecs; i++) {
        if (strcmp(secs[i].name, name) == 0) {
            return &secs[i];
        }
    }
    return NULL;
}

int rcmsg_btl_select(const rcmsg_btl_set_t *set, int peer, const rcmsg_btl_section_t *secs,
                     int nsecs)
{
    int best = -1;

    for (int i = 0; i < set->n; i++) {
        const rcmsg_btl_component_t *c = set->btls[i]->component;
        const rcmsg_btl_section_t *sec = section_of(secs, nsecs, c->name);

        if (sec == NULL || !c->reachable(set->btls[i], peer, sec->data, sec->len)) {
            continue;
        }
        if (best < 0 || c->priority > set->btls[best]->component->priority) {
            best = i;
        }
    }
    return best;
}

void rcmsg_btl_unreached_why(const rcmsg_btl_table_t *t, const rcmsg_btl_set_t *set,
                             const rcmsg_btl_section_t *secs, int nsecs, char *buf, size_t cap)
{
    char mine[64] = "", theirs[64] = "";

    for (int i = 0; i < set->n; i++) {
        const rcmsg_btl_component_t *c = set->btls[i]->component;

        if (c->reach == RCMSG_BTL_REACH_ANY) {
            names_add(section_of(secs, nsecs, c->name) == NULL ? theirs : mine,
                      section_of(secs, nsecs, c->name) == NULL ? sizeof(theirs) : sizeof(mine),
                      c->name);
        }
    }
    if (theirs[0] != '\0') {
        snprintf(buf, cap, "it has not opened %s", theirs);
    } else if (mine[0] != '\0') {
        snprintf(buf, cap, "%s does not reach it", mine);
    } else {
        for (int i = 0; i < t->n; i++) {
            if (t->comps[i]->reach == RCMSG_BTL_REACH_ANY) {
                names_add(mine, sizeof(mine), t->comps[i]->name);
            }
        }
        snprintf(buf, cap, "it needs %s, which this rank has not opened",
                 mine[0] ? mine : "a transport that reaches other nodes");
    }
}

void rcmsg_btl_dump_all(const rcmsg_btl_set_t *set, rcmsg_log_level_t level)
{
    for (int i = 0; i < set->n; i++) {
        if (set->btls[i]->component->dump != NULL) {
            set->btls[i]->component->dump(set->btls[i], level);
        }
    }
}

void rcmsg_btl_close_all(rcmsg_btl_set_t *set)
{
    while (set->n > 0) {
        rcmsg_btl_t *btl = set->btls[--set->n];

        btl->ops->close(btl);
        set->btls[set->n] = NULL;
    }
}
