/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RCMSG_COLL_CHECK: before a collective, comm_dup or comm_split, the ranks of the communicator
 * allgather one fixed-size record each (the call, root, count, datatype, op, split color and
 * whether the rank's own checks refused its arguments) and go on only if all agree. Every rank
 * sees every record, so every rank makes the same decision and logs the same line; nothing
 * but the records has moved when they disagree, so the communicator stays usable.
 *
 * The exchange is Bruck's allgather (any number of ranks, ceil(log2 size) steps) with the tag
 * RCMSG_COLL_TAG(seq, RCMSG_COLL_TAG_CHECK): its messages have the same length on every rank,
 * whatever the ranks passed, and it takes the communicator's next collective sequence number
 * on every rank, whatever the call, so a rank calling another collective still meets the
 * others here.
 */
#include "config.h"

#include "coll.h"

#include "base/compiler.h"
#include "base/log.h"
#include "pml/pml.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

RCMSG_STATIC_ASSERT(sizeof(rcmsg_coll_check_t) == 32, "the check's record has no padding");

#define TAKES_ROOT  1u
#define TAKES_DATA  2u /* count and datatype */
#define TAKES_OP    4u
#define TAKES_COLOR 8u

#define CHECK_GROUPS_MAX 8    /* groups of ranks named in the log line; then "..." */
#define CHECK_LINE_MAX   1024 /* bytes of the log line */
#define CHECK_STACK_RECS 16   /* communicators up to this size gather onto the stack */

static const struct {
    const char *name; /* the public call */
    unsigned takes;
} calls[] = {
    [RCMSG_COLL_BARRIER] = {"rcmsg_barrier", 0},
    [RCMSG_COLL_BCAST] = {"rcmsg_bcast", TAKES_ROOT | TAKES_DATA},
    [RCMSG_COLL_REDUCE] = {"rcmsg_reduce", TAKES_ROOT | TAKES_DATA | TAKES_OP},
    [RCMSG_COLL_ALLREDUCE] = {"rcmsg_allreduce", TAKES_DATA | TAKES_OP},
    [RCMSG_COLL_ALLGATHER] = {"rcmsg_allgather", TAKES_DATA},
    [RCMSG_COLL_ALLTOALL] = {"rcmsg_alltoall", TAKES_DATA},
    [RCMSG_COLL_GATHER] = {"rcmsg_gather", TAKES_ROOT | TAKES_DATA},
    [RCMSG_COLL_SCATTER] = {"rcmsg_scatter", TAKES_ROOT | TAKES_DATA},
    [RCMSG_COLL_REDUCE_SCATTER] = {"rcmsg_reduce_scatter_block", TAKES_DATA | TAKES_OP},
    [RCMSG_COLL_CALL_DUP] = {"rcmsg_comm_dup", 0},
    [RCMSG_COLL_CALL_SPLIT] = {"rcmsg_comm_split", TAKES_COLOR},
    /* the counts of the v-variants differ from rank to rank: not compared */
    [RCMSG_COLL_GATHERV] = {"rcmsg_gatherv", TAKES_ROOT},
    [RCMSG_COLL_SCATTERV] = {"rcmsg_scatterv", TAKES_ROOT},
    [RCMSG_COLL_ALLGATHERV] = {"rcmsg_allgatherv", 0},
    [RCMSG_COLL_ALLTOALLV] = {"rcmsg_alltoallv", 0},
    [RCMSG_COLL_REDUCE_SCATTER_V] = {"rcmsg_reduce_scatter", TAKES_OP},
    [RCMSG_COLL_SCAN] = {"rcmsg_scan", TAKES_DATA | TAKES_OP},
    [RCMSG_COLL_EXSCAN] = {"rcmsg_exscan", TAKES_DATA | TAKES_OP},
    [RCMSG_COLL_NEIGHBOR_ALLTOALLV] = {"rcmsg_neighbor_alltoallv", 0}, /* own lists per rank */
};
RCMSG_ASSERT_COVERS(calls, RCMSG_COLL_ALL_COUNT);

static const char *call_name(int32_t call)
{
    return call >= 0 && call < RCMSG_COLL_ALL_COUNT ? calls[call].name : "an unknown call";
}

static unsigned call_takes(int32_t call)
{
    return call >= 0 && call < RCMSG_COLL_ALL_COUNT ? calls[call].takes : 0;
}

/* Clears what the call does not take, so that records compare field by field. A split's
 * colors may differ: only an invalid one is kept (and refused). */
static void rec_normalize(rcmsg_coll_check_t *r)
{
    unsigned takes = call_takes(r->call);

    r->bad = r->bad != 0;
    if (!(takes & TAKES_ROOT)) {
        r->root = -1;
    }
    if (!(takes & TAKES_DATA)) {
        r->dtype = -1;
        r->count = 0;
    }
    if (!(takes & TAKES_OP)) {
        r->op = -1;
    }
    if ((takes & TAKES_COLOR) && r->color < 0 && r->color != RCMSG_UNDEFINED) {
        r->bad = 1;
    } else {
        r->color = 0;
    }
}

static bool rec_same(const rcmsg_coll_check_t *x, const rcmsg_coll_check_t *y)
{
    return x->call == y->call && x->root == y->root && x->dtype == y->dtype && x->op == y->op &&
           x->color == y->color && x->bad == y->bad && x->count == y->count;
}

/* Appends to line[CHECK_LINE_MAX] (*len stays within it; the text is cut, never overrun). */
static void put(char *line, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void put(char *line, size_t *len, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (*len + 1 >= CHECK_LINE_MAX) {
        return;
    }
    va_start(ap, fmt);
    n = vsnprintf(line + *len, CHECK_LINE_MAX - *len, fmt, ap);
    va_end(ap);
    if (n > 0) {
        *len += (size_t)n < CHECK_LINE_MAX - *len ? (size_t)n : CHECK_LINE_MAX - 1 - *len;
    }
}

/* "rank 2" or "ranks 0-1,3": the ranks from first on whose record is all[first]'s. */
static void put_ranks(char *line, size_t *len, const rcmsg_coll_check_t *all, int size, int first)
{
    int n = 0;

    for (int j = first; j < size; j++) {
        n += rec_same(&all[j], &all[first]);
    }
    put(line, len, "rank%s ", n > 1 ? "s" : "");
    for (int j = first, sep = 0; j < size; j++) {
        int end = j;

        if (!rec_same(&all[j], &all[first])) {
            continue;
        }
        while (end + 1 < size && rec_same(&all[end + 1], &all[first])) {
            end++;
        }
        put(line, len, end > j ? "%s%d-%d" : "%s%d", sep ? "," : "", j, end);
        sep = 1;
        j = end;
    }
}

/* One group's values: what the call takes, the call itself when the calls differ. */
static void put_values(char *line, size_t *len, const rcmsg_coll_check_t *r, bool calls_differ)
{
    unsigned takes = call_takes(r->call);

    if (calls_differ) {
        put(line, len, " %s", call_name(r->call));
    }
    if (takes & TAKES_ROOT) {
        put(line, len, " root %d", (int)r->root);
    }
    if (takes & TAKES_DATA) {
        put(line, len, " count %llu %s", (unsigned long long)r->count,
            rcmsg_coll_dtype_name((rcmsg_datatype_t)r->dtype));
    }
    if (takes & TAKES_OP) {
        put(line, len, " %s", rcmsg_coll_op_name((rcmsg_op_t)r->op));
    }
    if (r->color != 0) {
        put(line, len, " color %d (colors are >= 0, or RCMSG_UNDEFINED)", (int)r->color);
    } else if (r->bad) {
        put(line, len, " (local argument check failed)");
    } else if (takes & TAKES_COLOR) {
        put(line, len, " color valid");
    }
}

/* The one line every rank logs: the groups of ranks that passed the same, in rank order. */
static void check_report(const rcmsg_coll_check_t *all, int size, const rcmsg_coll_check_t *mine)
{
    char line[CHECK_LINE_MAX];
    size_t len = 0;
    bool calls_differ = false;
    int groups = 0;

    for (int i = 1; i < size; i++) {
        calls_differ |= all[i].call != all[0].call;
    }
    for (int i = 0; i < size; i++) {
        bool seen = false;

        for (int k = 0; k < i && !seen; k++) {
            seen = rec_same(&all[k], &all[i]);
        }
        if (seen) {
            continue;
        }
        if (groups++ == CHECK_GROUPS_MAX) {
            put(line, &len, "; ...");
            break;
        }
        put(line, &len, "%s", groups > 1 ? "; " : "");
        put_ranks(line, &len, all, size, i);
        put_values(line, &len, &all[i], calls_differ);
    }
    line[len] = '\0';
    rcmsg_error("%s: %s: %s (RCMSG_COLL_CHECK)", call_name(mine->call),
                calls_differ ? "ranks call different collectives"
                : groups > 1 ? "collective arguments differ"
                             : "arguments refused",
                line);
}

/* Whether every rank passed what rank 0 did and none refused its own arguments. */
static bool agree_all(const rcmsg_coll_check_t *all, int size)
{
    for (int i = 0; i < size; i++) {
        if (!rec_same(&all[i], &all[0]) || all[i].bad) {
            return false;
        }
    }
    return true;
}

rcmsg_status_t rcmsg_coll_check(rcmsg_comm_t comm, rcmsg_coll_check_t *mine)
{
    rcmsg_coll_args_t a = {.comm = comm,
                           .rank = comm->rank,
                           .size = comm->size,
                           .count = sizeof(*mine),
                           .esize = 1,
                           .dtype = RCMSG_UINT8,
                           .coll = RCMSG_COLL_ALLGATHER};
    rcmsg_coll_check_t stack[CHECK_STACK_RECS], *all = stack;
    rcmsg_status_t s;

    rec_normalize(mine);
    a.tag = RCMSG_COLL_TAG(comm->coll_seq, RCMSG_COLL_TAG_CHECK);
    comm->coll_seq++; /* on every rank, whatever the call and the outcome */
    if (comm->size > CHECK_STACK_RECS) {
        all = rcmsg_coll_scratch_get(&a, sizeof(*all) * (size_t)comm->size);
        if (all == NULL) {
            return RCMSG_ERR_NO_MEMORY;
        }
    }
    a.sbuf = mine;
    a.rbuf = all;
    s = rcmsg_coll_allgather_bruck(&a); /* a blocking call: a.sched NULL */
    if (s != RCMSG_OK) {
        rcmsg_error("%s: the exchange of RCMSG_COLL_CHECK failed: %s", call_name(mine->call),
                    rcmsg_strerror(s));
    } else if (!agree_all(all, comm->size)) {
        check_report(all, comm->size, mine);
        s = RCMSG_ERR_INVALID_PARAM;
    }
    if (comm->coll != NULL) {
        rcmsg_coll_scratch_end(comm);
    }
    return s;
}
