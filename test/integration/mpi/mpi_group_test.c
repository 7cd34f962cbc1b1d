/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Groups, communicators made from groups (Comm_create with disjoint groups: each rank gets
 * the communicator of the group it passes), Comm_split_type, Comm_idup and attribute caching
 * (keyvals with copy and delete callbacks), data checked, on any number of ranks.
 */
#include "mpi_test.h"

#include <stdlib.h>

/* ring exchange on comm: every rank gets its left neighbour's world rank */
static void check_ring(MPI_Comm comm, const int *world_of, const char *what)
{
    int r, n, left, got = -1, wme;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &wme);
    left = (r + n - 1) % n;
    OK(MPI_Sendrecv(&wme, 1, MPI_INT, (r + 1) % n, 7, &got, 1, MPI_INT, left, 7, comm,
                    MPI_STATUS_IGNORE));
    CHECK(got == world_of[left], "%s: rank %d got %d from its left, expected %d", what, r, got,
          world_of[left]);
}

static void test_groups(void)
{
    MPI_Group world, g, h, u, x, d;
    int n, r, res, ranks[8], out[8], ranges[1][3];

    OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    OK(MPI_Group_size(world, &n));
    OK(MPI_Group_rank(world, &r));
    CHECK(n == np && r == me, "world group %d/%d", r, n);
    /* the even ranks, reversed */
    n = 0;
    for (int i = (np - 1) / 2 * 2; i >= 0; i -= 2) {
        ranks[n++] = i;
    }
    OK(MPI_Group_incl(world, n, ranks, &g));
    OK(MPI_Group_size(g, &res));
    CHECK(res == n, "incl size %d, expected %d", res, n);
    OK(MPI_Group_rank(g, &r));
    CHECK(me % 2 ? r == MPI_UNDEFINED : r == n - 1 - me / 2, "incl rank %d", r);
    /* range_incl of the evens (ascending): similar to g, not identical unless one rank */
    ranges[0][0] = 0, ranges[0][1] = np - 1, ranges[0][2] = 2;
    OK(MPI_Group_range_incl(world, 1, ranges, &h));
    OK(MPI_Group_compare(g, h, &res));
    CHECK(res == (n == 1 ? MPI_IDENT : MPI_SIMILAR), "compare incl/range_incl %d", res);
    /* translate: rank i of g is world rank ranks[i] */
    {
        int in[8];
        for (int i = 0; i < n; i++) {
            in[i] = i;
        }
        OK(MPI_Group_translate_ranks(g, n, in, world, out));
        for (int i = 0; i < n; i++) {
            CHECK(out[i] == (n - 1 - i) * 2, "translate %d -> %d", i, out[i]);
        }
    }
    /* excl of the evens = the odds; union(evens, odds) similar to world; intersection empty;
     * difference(world, odds) = evens in world order = h */
    OK(MPI_Group_excl(world, n, ranks, &x));
    OK(MPI_Group_size(x, &res));
    CHECK(res == np - n, "excl size %d", res);
    OK(MPI_Group_union(h, x, &u));
    OK(MPI_Group_compare(u, world, &res));
    CHECK(res == (np <= 2 ? MPI_IDENT : MPI_SIMILAR), "union compare %d", res);
    OK(MPI_Group_free(&u));
    OK(MPI_Group_intersection(g, x, &u));
    CHECK(u == MPI_GROUP_EMPTY, "intersection of evens and odds is not MPI_GROUP_EMPTY");
    OK(MPI_Group_free(&u));
    OK(MPI_Group_difference(world, x, &d));
    OK(MPI_Group_compare(d, h, &res));
    CHECK(res == MPI_IDENT, "difference compare %d", res);
    OK(MPI_Group_range_excl(world, 1, ranges, &u));
    OK(MPI_Group_compare(u, x, &res));
    CHECK(res == MPI_IDENT, "range_excl compare %d", res);
    OK(MPI_Group_free(&u));
    CHECK(u == MPI_GROUP_NULL, "Group_free does not null the handle");
    /* bad input: an error naming the call, no crash */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    ranks[0] = np;
    FAILS(MPI_Group_incl(world, 1, ranks, &u), MPI_ERR_RANK);
    ranks[0] = ranks[1] = 0;
    FAILS(MPI_Group_incl(world, 2, ranks, &u), np >= 2 ? MPI_ERR_RANK : MPI_ERR_ARG);
    FAILS(MPI_Group_size(MPI_GROUP_NULL, &res), MPI_ERR_GROUP);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Group_free(&g), MPI_Group_free(&h), MPI_Group_free(&x), MPI_Group_free(&d);
    MPI_Group_free(&world);
}

/* Comm_create of the reversed evens; Comm_create_group of the odds (the evens do not call) */
static void test_create(void)
{
    MPI_Group world, g;
    MPI_Comm c;
    int n = 0, ranks[8], r, s;

    MPI_Comm_group(MPI_COMM_WORLD, &world);
    for (int i = (np - 1) / 2 * 2; i >= 0; i -= 2) {
        ranks[n++] = i;
    }
    MPI_Group_incl(world, n, ranks, &g);
    OK(MPI_Comm_create(MPI_COMM_WORLD, g, &c));
    CHECK((me % 2 == 0) == (c != MPI_COMM_NULL), "Comm_create gave %s", c ? "a comm" : "NULL");
    if (c != MPI_COMM_NULL) {
        MPI_Comm_rank(c, &r);
        MPI_Comm_size(c, &s);
        CHECK(r == n - 1 - me / 2 && s == n, "Comm_create rank %d size %d", r, s);
        check_ring(c, ranks, "Comm_create");
        OK(MPI_Comm_free(&c));
    }
    MPI_Group_free(&g);
    /* the odds, in order; a second one right after gets its own matching space */
    n = 0;
    for (int i = 1; i < np; i += 2) {
        ranks[n++] = i;
    }
    if (me % 2 == 1) {
        MPI_Comm c2;
        int x = me, y = -1;

        MPI_Group_incl(world, n, ranks, &g);
        OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 5, &c));
        OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 5, &c2));
        MPI_Comm_rank(c, &r);
        CHECK(r == me / 2, "Comm_create_group rank %d", r);
        /* a message on c2 is not received on c */
        OK(MPI_Sendrecv(&x, 1, MPI_INT, r, 3, &y, 1, MPI_INT, r, 3, c2, MPI_STATUS_IGNORE));
        CHECK(y == me, "c2 self message %d", y);
        check_ring(c, ranks, "Comm_create_group");
        MPI_Comm_free(&c2);
        MPI_Comm_free(&c);
        MPI_Group_free(&g);
    }
    MPI_Group_free(&world);
}

static void test_split_type_idup(void)
{
    MPI_Comm node, d;
    MPI_Request req;
    MPI_Status st;
    int n, res, all[8];

    /* one host here: the node communicator is the world, ranked by key (reversed) */
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, np - me, MPI_INFO_NULL, &node));
    MPI_Comm_size(node, &n);
    MPI_Comm_rank(node, &res);
    CHECK(n == np && res == np - 1 - me, "split_type SHARED: rank %d of %d", res, n);
    for (int i = 0; i < np; i++) {
        all[i] = np - 1 - i;
    }
    check_ring(node, all, "split_type");
    MPI_Comm_free(&node);
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, me == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0,
                           MPI_INFO_NULL, &node));
    CHECK((me == 0) == (node == MPI_COMM_NULL), "split_type UNDEFINED");
    if (node != MPI_COMM_NULL) {
        MPI_Comm_free(&node);
    }
    OK(MPI_Comm_idup(MPI_COMM_WORLD, &d, &req));
    OK(MPI_Wait(&req, &st)); /* (nonblocking: mpi_idup_test) */
    CHECK(req == MPI_REQUEST_NULL && d != MPI_COMM_NULL, "idup request not complete");
    MPI_Comm_compare(d, MPI_COMM_WORLD, &res);
    CHECK(res == MPI_CONGRUENT, "idup compare %d", res);
    for (int i = 0; i < np; i++) {
        all[i] = i;
    }
    check_ring(d, all, "idup");
    MPI_Comm_free(&d);
}

static int copies, deletes;

static int copy_fn(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)oldcomm, (void)keyval;
    copies++;
    *(void **)out = (char *)in + *(int *)extra; /* a copy differs from its original */
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)keyval, (void)val, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

static int failing_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)keyval, (void)val, (void)extra;
    return MPI_ERR_OTHER;
}

static void test_attrs(void)
{
    static int step = 10;
    static char base[64];
    int k1, k2, k3, flag, *tub;
    void *v;
    MPI_Comm d, d2;

    OK(MPI_Comm_create_keyval(copy_fn, delete_fn, &k1, &step));
    OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k2, NULL));
    OK(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &k3, NULL));
    CHECK(k1 != k2 && k2 != k3 && k1 != MPI_KEYVAL_INVALID, "keyvals %d %d %d", k1, k2, k3);
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    OK(MPI_Comm_get_attr(d, k1, &v, &flag));
    CHECK(!flag, "an unset attribute is found");
    OK(MPI_Comm_set_attr(d, k1, base));
    OK(MPI_Comm_set_attr(d, k2, base + 1));
    OK(MPI_Attr_put(d, k3, base + 2));
    OK(MPI_Comm_set_attr(d, k1, base)); /* replaces: the old value's delete callback runs */
    CHECK(deletes == 1, "set_attr over a value: %d delete(s)", deletes);
    OK(MPI_Comm_get_attr(d, k1, &v, &flag));
    CHECK(flag && v == base, "get_attr k1");
    OK(MPI_Comm_dup(d, &d2));
    CHECK(copies == 1, "dup: %d copy callback(s)", copies);
    OK(MPI_Comm_get_attr(d2, k1, &v, &flag));
    CHECK(flag && v == base + step, "the copy callback's value");
    OK(MPI_Comm_get_attr(d2, k2, &v, &flag));
    CHECK(!flag, "NULL_COPY_FN copied the attribute");
    OK(MPI_Attr_get(d2, k3, &v, &flag));
    CHECK(flag && v == base + 2, "MPI_DUP_FN did not copy");
    /* the predefined ones are on the dup too */
    OK(MPI_Comm_get_attr(d2, MPI_TAG_UB, &tub, &flag));
    CHECK(flag && *tub >= 32767, "MPI_TAG_UB on a dup");
    /* a freed keyval stays usable on the communicators that hold it */
    OK(MPI_Comm_free_keyval(&k1));
    CHECK(k1 == MPI_KEYVAL_INVALID, "free_keyval does not invalidate");
    OK(MPI_Comm_delete_attr(d, k2));
    MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
    FAILS(MPI_Comm_delete_attr(d, k2), MPI_ERR_KEYVAL);
    FAILS(MPI_Comm_set_attr(d, MPI_TAG_UB, base), MPI_ERR_KEYVAL);
    FAILS(MPI_Comm_set_attr(d, 12345, base), MPI_ERR_KEYVAL);
    deletes = 0;
    OK(MPI_Comm_free(&d));
    OK(MPI_Comm_free(&d2));
    CHECK(deletes == 2, "Comm_free: %d delete callback(s), expected 2", deletes);
    /* a delete callback that fails: Comm_free fails and the communicator stays */
    OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, failing_delete, &k1, NULL));
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
    OK(MPI_Comm_set_attr(d, k1, base));
    FAILS(MPI_Comm_free(&d), MPI_ERR_OTHER);
    CHECK(d != MPI_COMM_NULL, "a failed Comm_free nulled the handle");
    /* on COMM_SELF: deleted at Finalize (checked by the callback's count in main) */
    OK(MPI_Comm_free_keyval(&k2));
    OK(MPI_Comm_free_keyval(&k3));
}

static int self_deletes;

static int self_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)keyval, (void)val, (void)extra;
    self_deletes += comm == MPI_COMM_SELF;
    return MPI_SUCCESS;
}

/* The first nonblocking collective on a new communicator does not block, even with
 * RCMSG_COLL_CHECK=yes (where making the hidden duplicate exchanges messages): rank 0 starts
 * an Ibarrier on a fresh dup, then sends to the last rank, which receives before it enters
 * the Ibarrier. (It hung when the hidden duplicate was made at the first collective.) */
static void test_first_nbc(void)
{
    MPI_Comm d;
    MPI_Request r;
    int v = 0, last = np - 1;

    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    if (np > 1 && me == 0) {
        MPI_Ibarrier(d, &r);
        v = 42;
        MPI_Send(&v, 1, MPI_INT, last, 5, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else if (np > 1 && me == last) {
        MPI_Recv(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(v == 42, "got %d before the Ibarrier, expected 42", v);
        MPI_Ibarrier(d, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
        MPI_Ibarrier(d, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&d);
}

/* c is the communicator of group grp[0..n) in its order, this rank being grp[mine]: its rank
 * and size, a ring message and an allreduce on it; then freed. */
static void group_comm_check(MPI_Comm *c, const int *grp, int n, int mine, const char *what)
{
    int r = -1, s = -1, sum = -1, want = 0;

    for (int i = 0; i < n; i++) {
        want += grp[i];
    }
    MPI_Comm_rank(*c, &r);
    MPI_Comm_size(*c, &s);
    CHECK(r == mine && s == n, "%s: rank %d of %d, expected %d of %d", what, r, s, mine, n);
    if (r == mine && s == n) {
        check_ring(*c, grp, what);
        OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, *c));
        CHECK(sum == want, "%s: allreduce of the world ranks %d, expected %d", what, sum, want);
    }
    OK(MPI_Comm_free(c));
}

/* Comm_create with the group this rank passes (world ranks grp[0..n), n 0: MPI_GROUP_EMPTY):
 * a communicator of exactly that group, ranked as in it (MPI_COMM_NULL when this rank is not
 * in it); then Comm_create_group with the same group (its members only). */
static void create_check(const int *grp, int n, const char *what)
{
    MPI_Group world, g = MPI_GROUP_EMPTY;
    MPI_Comm c;
    int mine = -1;

    MPI_Comm_group(MPI_COMM_WORLD, &world);
    if (n > 0) {
        OK(MPI_Group_incl(world, n, grp, &g));
    }
    for (int i = 0; i < n; i++) {
        mine = grp[i] == me ? i : mine;
    }
    OK(MPI_Comm_create(MPI_COMM_WORLD, g, &c));
    CHECK((mine >= 0) == (c != MPI_COMM_NULL), "%s: Comm_create gave %s to rank %d", what,
          c != MPI_COMM_NULL ? "a communicator" : "MPI_COMM_NULL", me);
    if (c != MPI_COMM_NULL) {
        group_comm_check(&c, grp, n, mine, what);
    }
    if (mine >= 0) {
        OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 11, &c));
        group_comm_check(&c, grp, n, mine, what);
    }
    if (g != MPI_GROUP_EMPTY) {
        MPI_Group_free(&g);
    }
    MPI_Group_free(&world);
}

/* Comm_create with disjoint groups (MPI-2.2): each rank passes its own group. */
static void test_create_disjoint(void)
{
    int grp[8], n = 0, half = np / 2;

    create_check(&me, 1, "groups of one rank each");
    /* the lower half in order, the upper half reversed */
    for (int i = 0; i < np; i++) {
        if ((me < half) == (i < half)) {
            grp[n++] = me < half ? i : np - 1 - (i - half);
        }
    }
    create_check(grp, n, "lower and upper halves");
    /* three groups by world rank modulo 3, each in descending order */
    n = 0;
    for (int i = np - 1; i >= 0; i--) {
        if (i % 3 == me % 3) {
            grp[n++] = i;
        }
    }
    create_check(grp, n, "three groups by rank modulo 3");
    /* pairs (2k, 2k+1), the last rank in no group when np is odd (it passes MPI_GROUP_EMPTY) */
    n = 0;
    if (!(np % 2 == 1 && me == np - 1)) {
        grp[n++] = me / 2 * 2 + 1;
        grp[n++] = me / 2 * 2;
    }
    create_check(grp, n, "pairs, an odd last rank passing MPI_GROUP_EMPTY");
}

int main(int argc, char **argv)
{
    int k;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    phases_expected = 6;
    if (np > 8) {
        printf("this test takes at most 8 ranks\n");
        return 1;
    }
    test_groups();
    phase("groups");
    test_create();
    phase("Comm_create, Comm_create_group");
    test_create_disjoint();
    phase("Comm_create and Comm_create_group with disjoint groups");
    test_split_type_idup();
    phase("Comm_split_type, Comm_idup");
    test_attrs();
    phase("attributes");
    test_first_nbc();
    phase("a first nonblocking collective on a new communicator");
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &k, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, k, NULL);
    MPI_Finalize();
    CHECK(self_deletes == 1, "COMM_SELF's attribute deleted %d time(s) at Finalize", self_deletes);
    return summary();
}
