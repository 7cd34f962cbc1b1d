/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One-sided communication with derived target datatypes and the accumulates of MPI-3.1
 * 11.3.4 outside the integer and floating types (issue 43):
 * - Put and Get with vector, indexed, hindexed (blocks out of order), struct, resized (lb and
 *   extent honoured), subarray target types, target_count > 1, against a contiguous or another
 * derived origin type of the same type signature: the target's bytes checked, the gaps between its
 * blocks untouched;
 * - Accumulate (SUM from every rank at once, exact), Get_accumulate (REPLACE, NO_OP),
 *   Raccumulate and Rget_accumulate on noncontiguous target types;
 * - MINLOC / MAXLOC on the pair types (MPI_2INT, FLOAT_INT, DOUBLE_INT, LONG_INT, SHORT_INT,
 *   LONG_DOUBLE_INT) from every rank to one location, ties to the smaller index, on a strided
 *   target too; Get_accumulate's old values; REPLACE / NO_OP on a pair type;
 * - Fetch_and_op SUM on signed and unsigned char (wrapping) and long double, MAX on long
 *   double, SUM on double complex, REPLACE / NO_OP and SUM (MPICH's extension) on
 *   MPI_CHAR, from every rank;
 * - type signatures: ints into MPI_2INT (the same signature) work;
 * - errors: origin and target type signatures that differ (MPI_ERR_TYPE), a target type
 *   reaching past the window (MPI_ERR_RMA_RANGE, nothing written), an accumulate on a type of
 *   two predefined types (MPI_ERR_TYPE), MINLOC on MPI_INT and SUM on MPI_WCHAR (MPI_ERR_OP).
 */
#include "mpi_test.h"

#include <complex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define N 256 /* ints in each rank's window */

static int right, left;

static void clear(int *mem)
{
    for (int i = 0; i < N; i++) {
        mem[i] = -1;
    }
}

/* Put and Get through vector, indexed, resized, struct and subarray target types. */
static void test_put_get(MPI_Win win, int *mem)
{
    int src[32], got[32], strided[64];
    MPI_Datatype vec, idx, idx_r, sub, ovec;
    int blens[3] = {2, 1, 3}, disps[3] = {0, 5, 9};
    int sizes[2] = {6, 6}, subs[2] = {2, 3}, starts[2] = {1, 2};

    for (int i = 0; i < 32; i++) {
        src[i] = me * 1000 + i;
    }
    /* vector: 4 blocks of 2 ints, stride 3; target_count 2 (the second element starts at the
     * first's extent: 11 ints) */
    MPI_Type_vector(4, 2, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    clear(mem);
    OK(MPI_Win_fence(0, win));
    OK(MPI_Put(src, 16, MPI_INT, right, 4, 2, vec, win));
    OK(MPI_Win_fence(0, win));
    for (int e = 0, k = 0; e < 2; e++) {
        for (int b = 0; b < 4; b++) {
            for (int j = 0; j < 2; j++, k++) {
                int at_ = 4 + e * 11 + b * 3 + j;
                CHECK(mem[at_] == left * 1000 + k, "vector Put: mem[%d] = %d", at_, mem[at_]);
                mem[at_] = -1;
            }
        }
    }
    for (int i = 0; i < N; i++) {
        CHECK(mem[i] == -1, "vector Put wrote a gap: mem[%d] = %d", i, mem[i]);
    }
    /* Get back through the same type into a contiguous buffer */
    for (int i = 0; i < N; i++) {
        mem[i] = me * 10000 + i;
    }
    OK(MPI_Win_fence(0, win));
    OK(MPI_Get(got, 16, MPI_INT, right, 4, 2, vec, win));
    OK(MPI_Win_fence(0, win));
    for (int e = 0, k = 0; e < 2; e++) {
        for (int b = 0; b < 4; b++) {
            for (int j = 0; j < 2; j++, k++) {
                CHECK(got[k] == right * 10000 + 4 + e * 11 + b * 3 + j, "vector Get [%d] = %d", k,
                      got[k]);
            }
        }
    }
    /* indexed (blocks 2, 1, 3 at 0, 5, 9), resized to lb -2 ints and extent 14 ints: element
     * e's blocks at disp + e * 14 + {0, 5, 9}; the origin a vector of 1-int blocks, stride 2 */
    MPI_Type_indexed(3, blens, disps, MPI_INT, &idx);
    MPI_Type_create_resized(idx, -2 * (MPI_Aint)sizeof(int), 14 * sizeof(int), &idx_r);
    MPI_Type_commit(&idx_r);
    MPI_Type_vector(18, 1, 2, MPI_INT, &ovec);
    MPI_Type_commit(&ovec);
    for (int i = 0; i < 64; i++) {
        strided[i] = i % 2 ? -5 : me * 1000 + i / 2;
    }
    clear(mem);
    OK(MPI_Win_fence(0, win));
    OK(MPI_Put(strided, 1, ovec, right, 40, 3, idx_r, win));
    OK(MPI_Win_fence(0, win));
    for (int e = 0, k = 0; e < 3; e++) {
        for (int b = 0; b < 3; b++) {
            for (int j = 0; j < blens[b]; j++, k++) {
                int at_ = 40 + e * 14 + disps[b] + j;
                CHECK(mem[at_] == left * 1000 + k, "indexed Put: mem[%d] = %d", at_, mem[at_]);
                mem[at_] = -1;
            }
        }
    }
    for (int i = 0; i < N; i++) {
        CHECK(mem[i] == -1, "indexed Put wrote a gap: mem[%d] = %d", i, mem[i]);
    }
    /* subarray: the 2 x 3 block at (1, 2) of a 6 x 6 array of ints at displacement 100 */
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &sub);
    MPI_Type_commit(&sub);
    clear(mem);
    OK(MPI_Win_fence(0, win));
    OK(MPI_Put(src, 6, MPI_INT, right, 100, 1, sub, win));
    OK(MPI_Win_fence(0, win));
    for (int r = 0; r < 2; r++) {
        for (int c = 0; c < 3; c++) {
            int at_ = 100 + (1 + r) * 6 + 2 + c;
            CHECK(mem[at_] == left * 1000 + r * 3 + c, "subarray Put: mem[%d] = %d", at_, mem[at_]);
            mem[at_] = -1;
        }
    }
    for (int i = 0; i < N; i++) {
        CHECK(mem[i] == -1, "subarray Put wrote a gap: mem[%d] = %d", i, mem[i]);
    }
    /* hindexed with its blocks in decreasing order: 2 ints at byte 40, then 1 int at byte 0 */
    {
        int hb[2] = {2, 1};
        MPI_Aint hd[2] = {40, 0};
        MPI_Datatype hix;

        MPI_Type_create_hindexed(2, hb, hd, MPI_INT, &hix);
        MPI_Type_commit(&hix);
        clear(mem);
        OK(MPI_Win_fence(0, win));
        OK(MPI_Put(src, 3, MPI_INT, right, 200, 1, hix, win));
        OK(MPI_Win_fence(0, win));
        CHECK(mem[210] == left * 1000 && mem[211] == left * 1000 + 1 && mem[200] == left * 1000 + 2,
              "hindexed Put: %d %d %d", mem[210], mem[211], mem[200]);
        mem[210] = mem[211] = mem[200] = -1;
        for (int i = 0; i < N; i++) {
            CHECK(mem[i] == -1, "hindexed Put wrote a gap: mem[%d] = %d", i, mem[i]);
        }
        MPI_Type_free(&hix);
    }
    MPI_Type_free(&vec);
    MPI_Type_free(&idx);
    MPI_Type_free(&idx_r);
    MPI_Type_free(&ovec);
    MPI_Type_free(&sub);
}

/* A struct target type {int at 0, double at 8}, resized to 24 bytes, 2 elements, from an
 * origin of C structs (a struct type of natural layout). */
static void test_struct(MPI_Win win, int *mem)
{
    struct pair {
        int i;
        double d;
    } src[2] = {{me * 10 + 1, me + 0.5}, {me * 10 + 2, me + 0.25}}, got[2];
    int bl[2] = {1, 1};
    MPI_Aint td[2] = {0, 8}, od[2] = {offsetof(struct pair, i), offsetof(struct pair, d)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, tt, tr, ot;
    char *base = (char *)mem + 512; /* window displacement 128 ints */

    MPI_Type_create_struct(2, bl, td, types, &tt);
    MPI_Type_create_resized(tt, 0, 24, &tr);
    MPI_Type_commit(&tr);
    MPI_Type_create_struct(2, bl, od, types, &ot);
    MPI_Type_commit(&ot);
    clear(mem);
    OK(MPI_Win_fence(0, win));
    OK(MPI_Put(src, 2, ot, right, 128, 2, tr, win));
    OK(MPI_Win_fence(0, win));
    for (int e = 0; e < 2; e++) {
        int i;
        double d;
        memcpy(&i, base + e * 24, sizeof(i));
        memcpy(&d, base + e * 24 + 8, sizeof(d));
        CHECK(i == left * 10 + 1 + e && d == left + (e ? 0.25 : 0.5), "struct Put [%d]: %d %g", e,
              i, d);
        CHECK(memcmp(base + e * 24 + 4, "\xff\xff\xff\xff", 4) == 0 &&
                  memcmp(base + e * 24 + 16, "\xff\xff\xff\xff\xff\xff\xff\xff", 8) == 0,
              "struct Put wrote a gap of element %d", e);
    }
    memset(got, 0, sizeof(got));
    OK(MPI_Get(got, 2, ot, right, 128, 2, tr, win));
    OK(MPI_Win_fence(0, win));
    for (int e = 0; e < 2; e++) {
        CHECK(got[e].i == me * 10 + 1 + e && got[e].d == me + (e ? 0.25 : 0.5),
              "struct Get [%d]: %d %g", e, got[e].i, got[e].d);
    }
    MPI_Type_free(&tt);
    MPI_Type_free(&tr);
    MPI_Type_free(&ot);
}

/* Accumulates through a vector target type: SUM from every rank at once to rank 0 (exact),
 * Get_accumulate REPLACE and NO_OP, Raccumulate and Rget_accumulate. */
static void test_acc(MPI_Win win, int *mem)
{
    int src[16], old[16], sum = np * (np - 1) / 2;
    MPI_Datatype vec;
    MPI_Request rq[2];

    for (int i = 0; i < 16; i++) {
        src[i] = me + i;
    }
    MPI_Type_vector(8, 1, 3, MPI_INT, &vec); /* 8 ints, every third */
    MPI_Type_commit(&vec);
    clear(mem);
    for (int i = 0; i < N; i++) {
        mem[i] = 0;
    }
    OK(MPI_Win_fence(0, win));
    OK(MPI_Accumulate(src, 16, MPI_INT, 0, 10, 2, vec, MPI_SUM, win));
    OK(MPI_Win_fence(0, win));
    if (me == 0) {
        for (int e = 0, k = 0; e < 2; e++) {
            for (int b = 0; b < 8; b++, k++) {
                int at_ = 10 + e * 22 + b * 3;
                CHECK(mem[at_] == sum + np * k, "vector SUM: mem[%d] = %d", at_, mem[at_]);
                mem[at_] = 0;
            }
        }
        for (int i = 0; i < N; i++) {
            CHECK(mem[i] == 0, "vector SUM wrote a gap: mem[%d] = %d", i, mem[i]);
        }
    }
    OK(MPI_Win_fence(0, win));
    /* REPLACE to the right neighbour, its old values back; then NO_OP reads the new ones */
    for (int i = 0; i < N; i++) {
        mem[i] = me * 100 + i;
    }
    OK(MPI_Win_fence(0, win));
    OK(MPI_Get_accumulate(src, 8, MPI_INT, old, 8, MPI_INT, right, 50, 1, vec, MPI_REPLACE, win));
    OK(MPI_Win_fence(0, win));
    for (int b = 0; b < 8; b++) {
        CHECK(old[b] == right * 100 + 50 + 3 * b, "Get_accumulate REPLACE old [%d] = %d", b,
              old[b]);
        CHECK(mem[50 + 3 * b] == left + b && mem[51 + 3 * b] == me * 100 + 51 + 3 * b,
              "Get_accumulate REPLACE: mem[%d] = %d", 50 + 3 * b, mem[50 + 3 * b]);
    }
    OK(MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, old, 8, MPI_INT, right, 50, 1, vec, MPI_NO_OP,
                          win));
    OK(MPI_Win_fence(0, win));
    for (int b = 0; b < 8; b++) {
        CHECK(old[b] == me + b, "Get_accumulate NO_OP [%d] = %d", b, old[b]);
    }
    /* request-based, in a passive-target epoch */
    OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    OK(MPI_Raccumulate(src, 8, MPI_INT, right, 50, 1, vec, MPI_SUM, win, &rq[0]));
    OK(MPI_Rget_accumulate(src, 8, MPI_INT, old, 8, MPI_INT, right, 50, 1, vec, MPI_SUM, win,
                           &rq[1]));
    OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    OK(MPI_Win_unlock(right, win));
    for (int b = 0; b < 8; b++) {
        CHECK(old[b] == 2 * (me + b), "Rget_accumulate after Raccumulate [%d] = %d", b, old[b]);
    }
    OK(MPI_Win_fence(0, win));
    for (int b = 0; b < 8; b++) {
        CHECK(mem[50 + 3 * b] == 3 * (left + b), "Raccumulate + Rget_accumulate: mem[%d] = %d",
              50 + 3 * b, mem[50 + 3 * b]);
    }
    MPI_Type_free(&vec);
}

/* MINLOC / MAXLOC of one pair type T (value type V) from every rank to rank 0's window at
 * byte 0 (MAXLOC) and at byte 64 through a vector of 2 pairs, stride 2 (MINLOC), under
 * lock_all: rank r offers value (r % 2 ? r : np - r) with index r (ties: the smaller index). */
#define PAIR_TEST(name, V, T)                                                                      \
    static void name(MPI_Win win, char *mem)                                                       \
    {                                                                                              \
        struct {                                                                                   \
            V v;                                                                                   \
            int i;                                                                                 \
        } mine[2], best[2], got[2];                                                                \
        MPI_Datatype vec;                                                                          \
        V val = (V)(me % 2 ? me : np - me);                                                        \
        int best_max = -1, best_min = -1;                                                          \
        MPI_Type_vector(2, 1, 2, T, &vec);                                                         \
        MPI_Type_commit(&vec);                                                                     \
        memset(mem, 0, 4 * N);                                                                     \
        if (me == 0) {                                                                             \
            best[0].v = (V)-1;                                                                     \
            best[0].i = -1;                                                                        \
            best[1].v = (V)1000;                                                                   \
            best[1].i = -1;                                                                        \
            memcpy(mem, &best[0], sizeof(best[0]));                                                \
            memcpy(mem + 64, &best[1], sizeof(best[1]));                                           \
            memcpy(mem + 64 + 2 * sizeof(best[1]), &best[1], sizeof(best[1]));                     \
        }                                                                                          \
        for (int r = 0; r < np; r++) {                                                             \
            V rv = (V)(r % 2 ? r : np - r);                                                        \
            if (best_max < 0 || rv > (V)(best_max % 2 ? best_max : np - best_max)) {               \
                best_max = r;                                                                      \
            }                                                                                      \
            if (best_min < 0 || rv < (V)(best_min % 2 ? best_min : np - best_min)) {               \
                best_min = r;                                                                      \
            }                                                                                      \
        }                                                                                          \
        MPI_Barrier(MPI_COMM_WORLD);                                                               \
        mine[0].v = mine[1].v = val;                                                               \
        mine[0].i = mine[1].i = me;                                                                \
        OK(MPI_Win_lock_all(0, win));                                                              \
        OK(MPI_Accumulate(mine, 1, T, 0, 0, 1, T, MPI_MAXLOC, win));                               \
        OK(MPI_Accumulate(mine, 2, T, 0, 16, 1, vec, MPI_MINLOC, win));                            \
        OK(MPI_Win_unlock_all(win));                                                               \
        MPI_Barrier(MPI_COMM_WORLD);                                                               \
        if (me == 0) {                                                                             \
            memcpy(&got[0], mem, sizeof(got[0]));                                                  \
            CHECK(got[0].i == best_max &&                                                          \
                      got[0].v == (V)(best_max % 2 ? best_max : np - best_max),                    \
                  #T " MAXLOC: index %d, expected %d", got[0].i, best_max);                        \
            for (int k = 0; k < 2; k++) {                                                          \
                memcpy(&got[k], mem + 64 + 2 * k * sizeof(got[0]), sizeof(got[0]));                \
                CHECK(got[k].i == best_min, #T " MINLOC [%d]: index %d, expected %d", k, got[k].i, \
                      best_min);                                                                   \
            }                                                                                      \
            memcpy(&got[0], mem + 64 + sizeof(got[0]), sizeof(got[0]));                            \
            CHECK(got[0].i == 0 && got[0].v == (V)0, #T " MINLOC wrote the vector's gap");         \
        }                                                                                          \
        MPI_Barrier(MPI_COMM_WORLD);                                                               \
        /* Get_accumulate: REPLACE gives the old value, NO_OP reads the new one */                 \
        OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));                                           \
        OK(MPI_Get_accumulate(mine, 1, T, got, 1, T, 0, 0, 1, T, MPI_REPLACE, win));               \
        OK(MPI_Get_accumulate(NULL, 0, T, &got[1], 1, T, 0, 0, 1, T, MPI_NO_OP, win));             \
        OK(MPI_Win_unlock(0, win));                                                                \
        CHECK(got[1].i == me && got[1].v == val, #T " REPLACE then NO_OP: %d", got[1].i);          \
        CHECK(got[0].i >= 0 && got[0].i < np, #T " REPLACE's old value: index %d", got[0].i);      \
        MPI_Type_free(&vec);                                                                       \
        MPI_Barrier(MPI_COMM_WORLD);                                                               \
    }

PAIR_TEST(pair_2int, int, MPI_2INT)
PAIR_TEST(pair_float_int, float, MPI_FLOAT_INT)
PAIR_TEST(pair_double_int, double, MPI_DOUBLE_INT)
PAIR_TEST(pair_long_int, long, MPI_LONG_INT)
PAIR_TEST(pair_short_int, short, MPI_SHORT_INT)
PAIR_TEST(pair_long_double_int, long double, MPI_LONG_DOUBLE_INT)

/* Fetch_and_op from every rank to one location of rank 0 (passive target), the final values
 * exact: SUM on signed and unsigned char (wrapping modulo 256), long double; MAX on long
 * double; SUM on double complex (Accumulate); REPLACE and NO_OP on MPI_CHAR, and SUM on it
 * (MPICH's extension, wrapping modulo 256). */
static void test_fop(MPI_Win win, char *mem)
{
    signed char sc = 100, sco;
    unsigned char uc = 200, uco;
    long double ld = 0.5L + me, ldo, ldm = me, lv;
    double complex z = me + 2.0 * I, zv;
    char ch = (char)('a' + me), cho = 0, chn = 0, cs = 90;
    int rounds = 3;

    memset(mem, 0, 4 * N);
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_Win_lock_all(0, win));
    for (int k = 0; k < rounds; k++) {
        OK(MPI_Fetch_and_op(&sc, &sco, MPI_SIGNED_CHAR, 0, 0, MPI_SUM, win));
        OK(MPI_Fetch_and_op(&uc, &uco, MPI_UNSIGNED_CHAR, 0, 1, MPI_SUM, win));
        OK(MPI_Accumulate(&cs, 1, MPI_CHAR, 0, 2, 1, MPI_CHAR, MPI_SUM, win));
        OK(MPI_Fetch_and_op(&ld, &ldo, MPI_LONG_DOUBLE, 0, 4, MPI_SUM, win));
        OK(MPI_Fetch_and_op(&ldm, &ldo, MPI_LONG_DOUBLE, 0, 8, MPI_MAX, win));
        OK(MPI_Accumulate(&z, 1, MPI_C_DOUBLE_COMPLEX, 0, 12, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM,
                          win));
        OK(MPI_Win_flush(0, win));
    }
    OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        long double want = 0;
        for (int r = 0; r < np; r++) {
            want += rounds * (0.5L + r);
        }
        CHECK((signed char)mem[0] == (signed char)(rounds * np * 100), "signed char SUM: %d",
              (signed char)mem[0]);
        CHECK((unsigned char)mem[4] == (unsigned char)(rounds * np * 200), "unsigned char SUM: %u",
              (unsigned char)mem[1]);
        CHECK(mem[8] == (char)(rounds * np * 90), "MPI_CHAR SUM: %d", mem[8]);
        memcpy(&lv, mem + 16, sizeof(lv));
        CHECK(lv == want, "long double SUM: %Lg, expected %Lg", lv, want);
        memcpy(&lv, mem + 32, sizeof(lv));
        CHECK(lv == np - 1, "long double MAX: %Lg", lv);
        memcpy(&zv, mem + 48, sizeof(zv));
        CHECK(creal(zv) == rounds * np * (np - 1) / 2.0 && cimag(zv) == rounds * np * 2.0,
              "double complex SUM: %g%+gi", creal(zv), cimag(zv));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* MPI_CHAR: REPLACE and NO_OP */
    OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    OK(MPI_Fetch_and_op(&ch, &cho, MPI_CHAR, 0, 16, MPI_REPLACE, win));
    OK(MPI_Fetch_and_op(NULL, &chn, MPI_CHAR, 0, 16, MPI_NO_OP, win));
    OK(MPI_Win_unlock(0, win));
    CHECK(chn == ch, "MPI_CHAR REPLACE then NO_OP: %c", chn);
    CHECK(cho == 0 || (cho >= 'a' && cho < 'a' + np), "MPI_CHAR REPLACE's old value %d", cho);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Errors, raised before anything is posted. */
static void test_errors(MPI_Win win, int *mem)
{
    int v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    double d = 1;
    MPI_Datatype vec, mixed, far;
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 8};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};

    MPI_Type_vector(4, 1, 60, MPI_INT, &vec); /* ints at 0, 60, 120, 180 */
    MPI_Type_commit(&vec);
    MPI_Type_create_struct(2, bl, disp, types, &mixed);
    MPI_Type_commit(&mixed);
    MPI_Type_create_resized(MPI_INT, 0, (MPI_Aint)1 << 62, &far); /* 4 x 2^62 wraps to 0 */
    MPI_Type_commit(&far);
    for (int i = 0; i < N; i++) {
        mem[i] = -1;
    }
    OK(MPI_Win_fence(0, win));
    /* the same number of bytes, other types; another count of the same type */
    FAILS(MPI_Put(v, 2, MPI_INT, right, 0, 1, MPI_DOUBLE, win), MPI_ERR_TYPE);
    FAILS(MPI_Put(v, 3, MPI_INT, right, 0, 1, vec, win), MPI_ERR_TYPE);
    FAILS(MPI_Get(&d, 1, MPI_DOUBLE, right, 0, 2, MPI_INT, win), MPI_ERR_TYPE);
    FAILS(MPI_Accumulate(v, 8, MPI_INT, right, 0, 1, vec, MPI_SUM, win), MPI_ERR_TYPE);
    /* the vector's last int past the window (256 ints): nothing of it is written */
    FAILS(MPI_Put(v, 4, MPI_INT, right, 80, 1, vec, win), MPI_ERR_RMA_RANGE);
    FAILS(MPI_Accumulate(v, 4, MPI_INT, right, 80, 1, vec, MPI_SUM, win), MPI_ERR_RMA_RANGE);
    FAILS(MPI_Get(v, 8, MPI_INT, right, 0, 2, vec, win), MPI_ERR_RMA_RANGE);
    /* displacement and extent math past MPI_Aint (it would wrap to byte 0): out of range */
    FAILS(MPI_Put(v, 1, MPI_INT, right, (MPI_Aint)1 << 62, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    FAILS(MPI_Put(v, 5, MPI_INT, right, 0, 5, far, win), MPI_ERR_RMA_RANGE);
    FAILS(MPI_Accumulate(v, 5, MPI_INT, right, 0, 5, far, MPI_SUM, win), MPI_ERR_RMA_RANGE);
    /* accumulates: one predefined type, an operation defined on it */
    FAILS(MPI_Accumulate(v, 1, mixed, right, 0, 1, mixed, MPI_REPLACE, win), MPI_ERR_TYPE);
    FAILS(MPI_Accumulate(v, 2, MPI_INT, right, 0, 2, MPI_INT, MPI_MINLOC, win), MPI_ERR_OP);
    FAILS(MPI_Fetch_and_op(v, v + 1, MPI_WCHAR, right, 0, MPI_SUM, win), MPI_ERR_OP);
    OK(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++) {
        CHECK(mem[i] == -1, "a refused call wrote mem[%d] = %d", i, mem[i]);
    }
    /* a pair type's signature is its value type and MPI_INT: 4 ints match 2 MPI_2INT */
    OK(MPI_Win_fence(0, win)); /* every rank has checked its memory */
    OK(MPI_Put(v, 4, MPI_INT, right, 2, 2, MPI_2INT, win));
    OK(MPI_Win_fence(0, win));
    CHECK(mem[1] == -1 && mem[2] == 1 && mem[5] == 4 && mem[6] == -1, "ints into MPI_2INT: %d %d",
          mem[2], mem[5]);
    /* Compare_and_swap on a type of one int at byte 4 (lb 4): the int at target_disp + 4 */
    {
        int one = 1, b4 = 4, cmp = -1, old = 0;
        MPI_Aint d4 = 4;
        MPI_Datatype at4, tint = MPI_INT;

        MPI_Type_create_struct(1, &one, &d4, &tint, &at4);
        MPI_Type_commit(&at4);
        OK(MPI_Win_fence(0, win));
        OK(MPI_Compare_and_swap(&b4, &cmp, &old, at4, right, 20, win));
        OK(MPI_Win_fence(0, win));
        CHECK(old == -1 && mem[21] == 4 && mem[20] == -1,
              "Compare_and_swap on an int at lb 4: old %d, mem[20] %d, mem[21] %d", old, mem[20],
              mem[21]);
        MPI_Type_free(&at4);
    }
    MPI_Type_free(&vec);
    MPI_Type_free(&mixed);
    MPI_Type_free(&far);
}

int main(int argc, char **argv)
{
    int *mem;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    right = (me + 1) % np;
    left = (me + np - 1) % np;
    phases_expected = 6;
    OK(MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    test_put_get(win, mem);
    phase("Put, Get: vector, indexed + resized, subarray target types, target_count > 1");
    test_struct(win, mem);
    phase("Put, Get: a resized struct target type from C structs");
    test_acc(win, mem);
    phase("Accumulate, Get_accumulate, Raccumulate, Rget_accumulate: vector target type");
    pair_2int(win, (char *)mem);
    pair_float_int(win, (char *)mem);
    pair_double_int(win, (char *)mem);
    pair_long_int(win, (char *)mem);
    pair_short_int(win, (char *)mem);
    pair_long_double_int(win, (char *)mem);
    phase("MINLOC, MAXLOC, REPLACE, NO_OP on the six pair types, from every rank");
    test_fop(win, (char *)mem);
    phase("Fetch_and_op: char types, long double; complex SUM; from every rank");
    test_errors(win, mem);
    phase("errors: type signatures, outside the window, mixed types, undefined operations");
    OK(MPI_Win_free(&win));
    MPI_Finalize();
    return summary();
}
