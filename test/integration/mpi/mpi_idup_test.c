/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Comm_idup is nonblocking (MPI-3.1 6.4.2): it returns before the other members call it,
 * *newcomm is written only when the request completes, several may be outstanding on one
 * communicator and on overlapping ones (with nonblocking collectives between them) and be
 * waited for in any order, and blocking communicator creation runs while one is outstanding,
 * in orders that a blocking idup would deadlock. Each new communicator is used once complete.
 * With argument "threads": one phase under MPI_THREAD_MULTIPLE (an idup waited for in one
 * thread while another dups other communicators). With argument "inter" (2-4 ranks): idups
 * of an intercommunicator (the low half of the world and the rest), as nonblocking: several
 * outstanding beside an Ibarrier on it and a blocking Comm_dup of it, waited for in opposite
 * orders by the two groups; returning before the other group calls it; beside blocking
 * creation on it (Intercomm_merge) and on overlapping communicators; attributes as of the
 * call; p2p and collectives checked on each new intercommunicator; a dup and an idup of it
 * failing on every member (none hangs) when rank 0 is out of context ids. With argument "kill" (3
 * ranks, mpi_idup_kill.sh): rank 2 dies by SIGKILL once its idup's first exchange went out;
 * the survivors' idup fails (no hang), and they say after how long; "kill-inter": the same
 * with an idup of the intercommunicator ({0} and {1, 2}).
 */
#include "mpi_test.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#define NIDUP 4

/* comm is a working duplicate of parent (congruent: the same members in the same order):
 * an allreduce of the world ranks and a ring exchange on it, checked */
static void check_dup(MPI_Comm comm, MPI_Comm parent, const char *what)
{
    int res = -1, n, r, pn, pr, sum = -1, want = 0, got = -1, wme, left;
    int *world = NULL;

    MPI_Comm_compare(comm, parent, &res);
    CHECK(res == MPI_CONGRUENT, "%s: compare %d", what, res);
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(parent, &pn);
    MPI_Comm_rank(parent, &pr);
    CHECK(n == pn && r == pr, "%s: rank %d of %d, parent %d of %d", what, r, n, pr, pn);
    MPI_Comm_rank(MPI_COMM_WORLD, &wme);
    world = calloc((size_t)n, sizeof(int));
    OK(MPI_Allgather(&wme, 1, MPI_INT, world, 1, MPI_INT, parent));
    for (int i = 0; i < n; i++) {
        want += world[i];
    }
    OK(MPI_Allreduce(&wme, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == want, "%s: allreduce %d, expected %d", what, sum, want);
    left = (r + n - 1) % n;
    OK(MPI_Sendrecv(&wme, 1, MPI_INT, (r + 1) % n, 5, &got, 1, MPI_INT, left, 5, comm,
                    MPI_STATUS_IGNORE));
    CHECK(got == world[left], "%s: got %d from the left, expected %d", what, got, world[left]);
    free(world);
}

/* Several idups of the world outstanding, an Iallreduce between them, waited for in reverse
 * order; *newcomm untouched until its request completes. */
static void test_many(void)
{
    MPI_Comm d[NIDUP];
    MPI_Request req[NIDUP + 1];
    int x = me + 1, sum = 0;

    for (int i = 0; i < NIDUP; i++) {
        d[i] = MPI_COMM_NULL;
        OK(MPI_Comm_idup(MPI_COMM_WORLD, &d[i], &req[i]));
        if (i == 0 && np > 1) { /* nothing progressed yet: the members cannot have agreed */
            CHECK(d[0] == MPI_COMM_NULL, "newcomm written before the request completed");
        }
        if (i == 1) {
            OK(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[NIDUP]));
        }
    }
    OK(MPI_Wait(&req[NIDUP], MPI_STATUS_IGNORE));
    CHECK(sum == np * (np + 1) / 2, "iallreduce between idups: %d", sum);
    for (int i = NIDUP - 1; i >= 0; i--) {
        OK(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
        CHECK(req[i] == MPI_REQUEST_NULL && d[i] != MPI_COMM_NULL, "idup %d not complete", i);
    }
    for (int i = 0; i < NIDUP; i++) {
        check_dup(d[i], MPI_COMM_WORLD, "idup of the world");
        for (int j = 0; j < i; j++) {
            CHECK(d[i] != d[j], "idups %d and %d gave the same handle", i, j);
        }
    }
    for (int i = 0; i < NIDUP; i++) {
        OK(MPI_Comm_free(&d[i]));
    }
}

/* Returning before the others call it: rank 0 posts its idup and then sends what rank 1
 * waits for before it posts its own (a blocking idup would wait for rank 1 forever). */
static void test_returns_at_once(void)
{
    MPI_Comm d = MPI_COMM_NULL;
    MPI_Request req;
    int token = 42, got = 0;

    if (np < 2) {
        return;
    }
    if (me == 0) {
        OK(MPI_Comm_idup(MPI_COMM_WORLD, &d, &req));
        OK(MPI_Send(&token, 1, MPI_INT, 1, 9, MPI_COMM_WORLD));
    } else {
        if (me == 1) {
            OK(MPI_Recv(&got, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(got == token, "token %d", got);
        }
        OK(MPI_Comm_idup(MPI_COMM_WORLD, &d, &req));
    }
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check_dup(d, MPI_COMM_WORLD, "idup posted before the send");
    OK(MPI_Comm_free(&d));
}

/* Overlapping parents: an idup of the world and one of a half (even/odd ranks) outstanding
 * together, with an idup of a duplicate of the half, waited for with Waitany; then one of
 * COMM_SELF (an exchange among one rank completes at once) waited for while one of the world
 * is outstanding. */
static void test_overlap(void)
{
    MPI_Comm half, half2, dw = MPI_COMM_NULL, dh = MPI_COMM_NULL, dh2 = MPI_COMM_NULL, dw2, ds;
    MPI_Request req[3];
    int idx, done = 0;

    OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &half));
    OK(MPI_Comm_dup(half, &half2));
    OK(MPI_Comm_idup(half, &dh, &req[0]));
    OK(MPI_Comm_idup(MPI_COMM_WORLD, &dw, &req[1]));
    OK(MPI_Comm_idup(half2, &dh2, &req[2]));
    while (done < 3) {
        OK(MPI_Waitany(3, req, &idx, MPI_STATUS_IGNORE));
        CHECK(idx >= 0 && idx < 3, "waitany index %d", idx);
        done++;
    }
    OK(MPI_Comm_idup(MPI_COMM_WORLD, &dw2, &req[0]));
    OK(MPI_Comm_idup(MPI_COMM_SELF, &ds, &req[1]));
    OK(MPI_Wait(&req[1], MPI_STATUS_IGNORE));
    check_dup(ds, MPI_COMM_SELF, "idup of COMM_SELF");
    OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    check_dup(dw2, MPI_COMM_WORLD, "idup of the world beside COMM_SELF's");
    OK(MPI_Comm_free(&ds));
    OK(MPI_Comm_free(&dw2));
    check_dup(dh, half, "idup of a half");
    check_dup(dw, MPI_COMM_WORLD, "idup of the world beside the half's");
    check_dup(dh2, half2, "idup of the half's duplicate");
    OK(MPI_Comm_free(&dh));
    OK(MPI_Comm_free(&dw));
    OK(MPI_Comm_free(&dh2));
    OK(MPI_Comm_free(&half2));
    OK(MPI_Comm_free(&half));
}

/* Pairs that overlap in a ring ({0,1},{2,3} and {0,3},{1,2} at 4 ranks): each rank idups
 * both of its pairs, the even ranks one order and the odd ranks the other. */
static void test_ring_pairs(void)
{
    MPI_Comm a, b, d[2] = {MPI_COMM_NULL, MPI_COMM_NULL};
    MPI_Request req[2];

    OK(MPI_Comm_split(MPI_COMM_WORLD, me / 2, me, &a));
    OK(MPI_Comm_split(MPI_COMM_WORLD, (me + 1) % np / 2, me, &b));
    OK(MPI_Comm_idup(me % 2 == 0 ? a : b, &d[0], &req[0]));
    OK(MPI_Comm_idup(me % 2 == 0 ? b : a, &d[1], &req[1]));
    OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    /* used in one order on every rank (a's then b's: collectives on them are ordered) */
    check_dup(d[me % 2], a, "idup of the pair of a");
    check_dup(d[1 - me % 2], b, "idup of the pair of b");
    OK(MPI_Comm_free(&d[0]));
    OK(MPI_Comm_free(&d[1]));
    OK(MPI_Comm_free(&a));
    OK(MPI_Comm_free(&b));
}

/* Blocking creation while an idup is outstanding. Rank 0 posts the idup of x, then dups y
 * (blocking) and splits x itself, then waits; the others wait for the idup first and then
 * dup y and split x. The blocking dup of y must not wait for rank 0's idup (which waits for
 * the others), and the idup must not wait for the blocking calls. */
static void test_blocking_beside(void)
{
    MPI_Comm x, y, dx = MPI_COMM_NULL, dy, sx;
    MPI_Request req;

    OK(MPI_Comm_dup(MPI_COMM_WORLD, &x));
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &y));
    OK(MPI_Comm_idup(x, &dx, &req));
    if (me == 0) {
        OK(MPI_Comm_dup(y, &dy));
        OK(MPI_Comm_split(x, 0, me, &sx));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        OK(MPI_Comm_dup(y, &dy));
        OK(MPI_Comm_split(x, 0, me, &sx));
    }
    check_dup(dx, x, "idup beside blocking dups");
    check_dup(dy, y, "dup beside an idup");
    check_dup(sx, x, "split of the idup's parent");
    OK(MPI_Comm_free(&dx));
    OK(MPI_Comm_free(&dy));
    OK(MPI_Comm_free(&sx));
    OK(MPI_Comm_free(&y));
    OK(MPI_Comm_free(&x));
}

/* Communicators made from groups while idups of the world are outstanding: Comm_create_group
 * before the idup on the even ranks and after it on the odd ones; then Comm_create and
 * Intercomm_create / merge (its leaders' exchange on a duplicate) before the waits. */
static void test_groups_beside(void)
{
    MPI_Group wg, hg;
    MPI_Comm dup, gc, hc, local, ic, merged, d[3] = {MPI_COMM_NULL, MPI_COMM_NULL, MPI_COMM_NULL};
    MPI_Request req[3];
    int range[1][3] = {{np / 2, np - 1, 1}}, hi = np > 1 && me >= np / 2;

    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    OK(MPI_Comm_group(dup, &wg));
    if (me % 2 == 0) {
        OK(MPI_Comm_create_group(dup, wg, 3, &gc));
        OK(MPI_Comm_idup(MPI_COMM_WORLD, &d[0], &req[0]));
    } else {
        OK(MPI_Comm_idup(MPI_COMM_WORLD, &d[0], &req[0]));
        OK(MPI_Comm_create_group(dup, wg, 3, &gc));
    }
    OK(MPI_Comm_idup(MPI_COMM_WORLD, &d[1], &req[1]));
    OK(MPI_Comm_idup_with_info(dup, MPI_INFO_NULL, &d[2], &req[2]));
    OK(MPI_Group_range_incl(wg, 1, range, &hg));
    OK(MPI_Comm_create(dup, hg, &hc));
    CHECK((hc != MPI_COMM_NULL) == (me >= np / 2), "Comm_create of the high half");
    if (np > 1) {
        OK(MPI_Comm_split(dup, hi, me, &local));
        OK(MPI_Intercomm_create(local, 0, dup, hi ? 0 : np / 2, 77, &ic));
        OK(MPI_Intercomm_merge(ic, hi, &merged));
        check_dup(merged, MPI_COMM_WORLD, "merge beside idups");
        OK(MPI_Comm_free(&merged));
        OK(MPI_Comm_free(&ic));
        OK(MPI_Comm_free(&local));
    }
    OK(MPI_Waitall(3, req, MPI_STATUSES_IGNORE));
    check_dup(gc, MPI_COMM_WORLD, "create_group beside an idup");
    check_dup(d[0], MPI_COMM_WORLD, "idup beside create_group");
    check_dup(d[1], MPI_COMM_WORLD, "idup beside create and intercomm_create");
    check_dup(d[2], dup, "idup of the duplicate beside them");
    if (hc != MPI_COMM_NULL) {
        OK(MPI_Comm_free(&hc));
    }
    for (int i = 0; i < 3; i++) {
        OK(MPI_Comm_free(&d[i]));
    }
    OK(MPI_Comm_free(&gc));
    OK(MPI_Group_free(&hg));
    OK(MPI_Group_free(&wg));
    OK(MPI_Comm_free(&dup));
}

/* The attributes as of the call: a value changed after it is not the duplicate's. */
static int copy_fn(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)oldcomm;
    (void)keyval;
    (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void test_attr(void)
{
    MPI_Comm p, d = MPI_COMM_NULL;
    MPI_Request req;
    int k, flag = 0;
    static int v1 = 1, v2 = 2;
    int *got = NULL;

    OK(MPI_Comm_dup(MPI_COMM_WORLD, &p));
    OK(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &k, NULL));
    OK(MPI_Comm_set_attr(p, k, &v1));
    OK(MPI_Comm_idup(p, &d, &req));
    OK(MPI_Comm_set_attr(p, k, &v2));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    OK(MPI_Comm_get_attr(d, k, &got, &flag));
    CHECK(flag && got == &v1, "the duplicate's attribute: flag %d, %s", flag,
          got == &v2 ? "the value set after the idup" : "another value");
    check_dup(d, p, "idup with an attribute");
    OK(MPI_Comm_free(&d));
    OK(MPI_Comm_free(&p));
    OK(MPI_Comm_free_keyval(&k));
    /* bad arguments: refused at the call, naming the problem */
    FAILS(MPI_Comm_idup(MPI_COMM_WORLD, &d, NULL), MPI_ERR_ARG);
    FAILS(MPI_Comm_idup(MPI_COMM_WORLD, NULL, &req), MPI_ERR_ARG);
    FAILS(MPI_Comm_idup_with_info(MPI_COMM_WORLD, (MPI_Info)0x7fff1234, &d, &req), MPI_ERR_INFO);
}

/* ---- intercommunicators (argument "inter") ------------------------------------------------ */

static int half;             /* the low group: world ranks [0, half) */
static int hi;               /* this rank's group: 0 low, 1 the rest */
static MPI_Comm ic, iclocal; /* the intercommunicator and this rank's group */

static void inter_make(void)
{
    half = np / 2;
    hi = me >= half;
    OK(MPI_Comm_split(MPI_COMM_WORLD, hi, me, &iclocal));
    OK(MPI_Intercomm_create(iclocal, 0, MPI_COMM_WORLD, hi ? 0 : half, 78, &ic));
}

/* the world rank of remote rank j */
static int remote_world(int j)
{
    return hi ? j : half + j;
}

/* comm is a working duplicate of intercommunicator ic: the same groups and ranks; each rank
 * sends its world rank to remote rank (rank % remote size) and receives from the remote ranks
 * that send to it; an Allreduce gives each group the sum of the other's world ranks, a Bcast
 * from the low group's rank 0 its value. */
static void check_inter(MPI_Comm comm, const char *what)
{
    int flag = 0, res = -1, n, r, rn, pn, pr, prn, sum = -1, want = 0, got[4], k = 0, b = -1;
    MPI_Request rq[4];

    OK(MPI_Comm_test_inter(comm, &flag));
    CHECK(flag == 1, "%s: not an intercommunicator", what);
    MPI_Comm_compare(comm, ic, &res);
    CHECK(res == MPI_CONGRUENT, "%s: compare %d", what, res);
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &r);
    MPI_Comm_remote_size(comm, &rn);
    MPI_Comm_size(ic, &pn);
    MPI_Comm_rank(ic, &pr);
    MPI_Comm_remote_size(ic, &prn);
    CHECK(n == pn && r == pr && rn == prn, "%s: rank %d of %d, remote %d; parent %d of %d, %d",
          what, r, n, rn, pr, pn, prn);
    for (int j = r; j < rn && k < 4; j += n) { /* the remote ranks j with j % n == r */
        OK(MPI_Irecv(&got[k], 1, MPI_INT, j, 6, comm, &rq[k]));
        k++;
    }
    OK(MPI_Send(&me, 1, MPI_INT, r % rn, 6, comm));
    OK(MPI_Waitall(k, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < k; i++) {
        CHECK(got[i] == remote_world(r + i * n), "%s: got %d from remote rank %d, expected %d",
              what, got[i], r + i * n, remote_world(r + i * n));
    }
    for (int j = 0; j < rn; j++) {
        want += remote_world(j);
    }
    OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == want, "%s: allreduce %d, expected %d", what, sum, want);
    b = hi ? -1 : 1234;
    OK(MPI_Bcast(&b, 1, MPI_INT, hi ? 0 : r == 0 ? MPI_ROOT : MPI_PROC_NULL, comm));
    CHECK(b == 1234, "%s: bcast %d", what, b);
}

/* Several idups of ic outstanding, an Ibarrier on it after the first and a blocking Comm_dup
 * after the second, one more idup after that; the low group waits in the order posted, the
 * other group in reverse (the Ibarrier first). */
static void test_inter_many(void)
{
    MPI_Comm d[3] = {MPI_COMM_NULL, MPI_COMM_NULL, MPI_COMM_NULL}, bd = MPI_COMM_NULL;
    MPI_Request req[4];

    OK(MPI_Comm_idup(ic, &d[0], &req[0]));
    CHECK(d[0] == MPI_COMM_NULL, "newcomm written before the request completed");
    OK(MPI_Ibarrier(ic, &req[3]));
    OK(MPI_Comm_idup(ic, &d[1], &req[1]));
    OK(MPI_Comm_dup(ic, &bd));
    OK(MPI_Comm_idup_with_info(ic, MPI_INFO_NULL, &d[2], &req[2]));
    for (int i = 0; i < 4; i++) {
        int k = hi ? 3 - i : i;

        OK(MPI_Wait(&req[k], MPI_STATUS_IGNORE));
        CHECK(req[k] == MPI_REQUEST_NULL && (k == 3 || d[k] != MPI_COMM_NULL), "request %d", k);
    }
    check_inter(bd, "dup beside idups");
    for (int i = 0; i < 3; i++) {
        check_inter(d[i], "idup beside an ibarrier and a dup");
        CHECK(d[i] != bd && (i == 0 || d[i] != d[i - 1]), "idup %d: a handle given twice", i);
    }
    for (int i = 0; i < 3; i++) {
        OK(MPI_Comm_free(&d[i]));
    }
    OK(MPI_Comm_free(&bd));
}

/* Returning before the other group calls it: the low group's rank 0 posts its idup and then
 * sends on ic what the other group's rank 0 waits for before it posts its own. */
static void test_inter_at_once(void)
{
    MPI_Comm d = MPI_COMM_NULL;
    MPI_Request req;
    int token = 43, got = 0, r;

    MPI_Comm_rank(ic, &r);
    if (!hi) {
        OK(MPI_Comm_idup(ic, &d, &req));
        if (r == 0) {
            OK(MPI_Send(&token, 1, MPI_INT, 0, 9, ic));
        }
    } else {
        if (r == 0) {
            OK(MPI_Recv(&got, 1, MPI_INT, 0, 9, ic, MPI_STATUS_IGNORE));
            CHECK(got == token, "token %d", got);
        }
        OK(MPI_Comm_idup(ic, &d, &req));
    }
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check_inter(d, "idup posted before the other group's");
    OK(MPI_Comm_free(&d));
}

/* Beside blocking creation: an idup of ic outstanding across Intercomm_merge of ic (every
 * member) and Comm_dup of this rank's group (the low group before its wait, the other after),
 * with an idup of the world outstanding too (it overlaps both groups), waited for first by the
 * low group and last by the other. */
static void test_inter_beside(void)
{
    MPI_Comm d = MPI_COMM_NULL, dw = MPI_COMM_NULL, merged, ld;
    MPI_Request req[2];

    OK(MPI_Comm_idup(ic, &d, &req[0]));
    OK(MPI_Comm_idup(MPI_COMM_WORLD, &dw, &req[1]));
    OK(MPI_Intercomm_merge(ic, hi, &merged));
    check_dup(merged, MPI_COMM_WORLD, "merge beside an idup of its intercommunicator");
    if (!hi) {
        OK(MPI_Comm_dup(iclocal, &ld));
        OK(MPI_Wait(&req[1], MPI_STATUS_IGNORE));
        OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    } else {
        OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
        OK(MPI_Comm_dup(iclocal, &ld));
        OK(MPI_Wait(&req[1], MPI_STATUS_IGNORE));
    }
    check_inter(d, "idup beside merge and a group's dup");
    check_dup(dw, MPI_COMM_WORLD, "idup of the world beside one of the intercommunicator");
    check_dup(ld, iclocal, "dup of a group beside an idup of the intercommunicator");
    OK(MPI_Comm_free(&d));
    OK(MPI_Comm_free(&dw));
    OK(MPI_Comm_free(&merged));
    OK(MPI_Comm_free(&ld));
}

/* The attributes as of the call (a value set after it is not the duplicate's), and an idup
 * of a duplicate made by an idup. */
static void test_inter_attr(void)
{
    MPI_Comm p = MPI_COMM_NULL, d = MPI_COMM_NULL;
    MPI_Request req;
    int k, flag = 0, *got = NULL;
    static int v1 = 1, v2 = 2;

    OK(MPI_Comm_idup(ic, &p, &req));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    OK(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &k, NULL));
    OK(MPI_Comm_set_attr(p, k, &v1));
    OK(MPI_Comm_idup(p, &d, &req));
    OK(MPI_Comm_set_attr(p, k, &v2));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    OK(MPI_Comm_get_attr(d, k, &got, &flag));
    CHECK(flag && got == &v1, "the duplicate's attribute: flag %d, %s", flag,
          got == &v2 ? "the value set after the idup" : "another value");
    check_inter(d, "idup of an idup, with an attribute");
    OK(MPI_Comm_free(&d));
    OK(MPI_Comm_free(&p));
    OK(MPI_Comm_free_keyval(&k));
}

/* World rank 0 out of context ids but one (dups of MPI_COMM_SELF, no id freed before): a Comm_dup
 * and a Comm_idup of ic fail on every member, none waits for ever (the union's dup takes the last
 * id, the local group's then fails in rank 0's group only: the other group must not be left
 * in the collectives' dup); with the dups freed, a dup of ic works again. */
static MPI_Comm selfdups[16384];

static void test_inter_limit(void)
{
    MPI_Comm d = MPI_COMM_NULL;
    MPI_Request req;
    int n = 0, e;

    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (me == 0) {
        while (n < 16384 && MPI_Comm_dup(MPI_COMM_SELF, &selfdups[n]) == MPI_SUCCESS) {
            n++;
        }
        CHECK(n > 0 && n < 16384, "%d dups of MPI_COMM_SELF before the limit", n);
        OK(MPI_Comm_free(&selfdups[--n])); /* one id left */
    }
    e = MPI_Comm_dup(ic, &d);
    CHECK(e != MPI_SUCCESS && d == MPI_COMM_NULL, "Comm_dup at rank 0's limit: %d", e);
    d = MPI_COMM_NULL;
    e = MPI_Comm_idup(ic, &d, &req);
    if (e == MPI_SUCCESS) {
        e = MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    CHECK(e != MPI_SUCCESS && d == MPI_COMM_NULL, "Comm_idup at rank 0's limit: %d", e);
    while (n > 0) {
        OK(MPI_Comm_free(&selfdups[--n]));
    }
    OK(MPI_Comm_dup(ic, &d));
    check_inter(d, "dup after the limit");
    OK(MPI_Comm_free(&d));
}

static int inter_tests(void)
{
    if (np < 2) {
        printf("SKIP: an intercommunicator needs 2 ranks\n");
        MPI_Finalize();
        return 77;
    }
    phases_expected = 5;
    inter_make();
    test_inter_limit(); /* first: no id freed yet that an agreement could take back */
    phase("a dup and an idup of an intercommunicator at one group's context limit fail on "
          "every member");
    test_inter_many();
    phase("idups of an intercommunicator beside an ibarrier and a dup, waited for in opposite "
          "orders");
    test_inter_at_once();
    phase("an intercommunicator's idup returns before the other group calls it");
    test_inter_beside();
    phase("an intercommunicator's idup beside merge, a group's dup and an idup of the world");
    test_inter_attr();
    phase("the attributes as of an intercommunicator's idup");
    OK(MPI_Comm_free(&ic));
    OK(MPI_Comm_free(&iclocal));
    MPI_Finalize();
    return summary();
}

/* MPI_THREAD_MULTIPLE: thread 1 dups (blocking) its own communicators while thread 0 waits
 * for an idup of another. */
static MPI_Comm tcomm[2];

static void *dupper(void *arg)
{
    (void)arg;
    for (int i = 0; i < 4; i++) {
        MPI_Comm d;

        OK(MPI_Comm_dup(tcomm[1], &d));
        check_dup(d, tcomm[1], "thread 1's dup");
        OK(MPI_Comm_free(&d));
    }
    return NULL;
}

static void test_threads(void)
{
    pthread_t t;
    MPI_Comm d[2] = {MPI_COMM_NULL, MPI_COMM_NULL};
    MPI_Request req[2];

    OK(MPI_Comm_dup(MPI_COMM_WORLD, &tcomm[0]));
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &tcomm[1]));
    OK(MPI_Comm_idup(tcomm[0], &d[0], &req[0]));
    CHECK(pthread_create(&t, NULL, dupper, NULL) == 0, "pthread_create");
    OK(MPI_Comm_idup(tcomm[0], &d[1], &req[1]));
    OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    pthread_join(t, NULL);
    check_dup(d[0], tcomm[0], "idup beside a thread's dups");
    check_dup(d[1], tcomm[0], "second idup beside a thread's dups");
    for (int i = 0; i < 2; i++) {
        OK(MPI_Comm_free(&d[i]));
        OK(MPI_Comm_free(&tcomm[i]));
    }
}

/* A member lost during the agreement: the survivors' requests fail, with an error (inter: the
 * idup of an intercommunicator of {0} and {1, 2}). */
static int killed_in_idup(bool inter)
{
    MPI_Comm nc = MPI_COMM_NULL;
    MPI_Request r;
    int flag = 0, e, cls = -1;
    double t0;

    if (inter) {
        inter_make();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_Comm_idup(inter ? ic : MPI_COMM_WORLD, &nc, &r));
    if (me == 2) {
        OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE)); /* its first exchange goes out */
        printf("rank 2: killing myself during the idup\n");
        fflush(stdout);
        kill(getpid(), SIGKILL);
    }
    t0 = MPI_Wtime();
    e = MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Error_class(e, &cls);
    printf("rank %d: idup %s (class %d) after %.1f s\n", me,
           e == MPI_SUCCESS ? "succeeded" : "failed", cls, MPI_Wtime() - t0);
    CHECK(e != MPI_SUCCESS && nc == MPI_COMM_NULL, "the idup with a killed member did not fail");
    printf("rank %d of %d: %d failure(s)\n", me, np, failures);
    fflush(stdout);
    MPI_Finalize();
    return failures > 0;
}

int main(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE;
    int threads = argc > 1 && strcmp(argv[1], "threads") == 0;

    if (threads) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (threads && provided != MPI_THREAD_MULTIPLE) {
        printf("SKIP: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Finalize();
        return 77;
    }
    if (argc > 1 && strncmp(argv[1], "kill", 4) == 0) {
        return killed_in_idup(strcmp(argv[1], "kill-inter") == 0);
    }
    if (argc > 1 && strcmp(argv[1], "inter") == 0) {
        return inter_tests();
    }
    phases_expected = threads ? 2 : 7;
    if (threads) {
        test_threads();
        phase("idups waited for while another thread dups");
        test_many();
        phase("idups outstanding under MPI_THREAD_MULTIPLE");
    } else {
        test_many();
        phase("several idups outstanding, an iallreduce between, waits in reverse order");
        test_returns_at_once();
        phase("idup returns before the other members call it");
        test_overlap();
        phase("idups of overlapping communicators, waitany");
        test_ring_pairs();
        phase("idups of pairs overlapping in a ring, posted in different orders");
        test_blocking_beside();
        phase("blocking dup and split while an idup is outstanding");
        test_groups_beside();
        phase("create_group, create, intercomm_create and merge while idups are outstanding");
        test_attr();
        phase("the attributes as of the idup call");
    }
    MPI_Finalize();
    return summary();
}
