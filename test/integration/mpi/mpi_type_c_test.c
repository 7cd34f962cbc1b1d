/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI-4.0's large-count (_c) forms of the datatype, packing, user-operation and attached-buffer
 * calls, data checked, on any number of ranks: every _c constructor (contiguous, vector,
 * hvector, indexed, hindexed, indexed_block, hindexed_block, struct, subarray, darray, resized)
 * against its int twin: Type_size_c, Type_get_extent_c, Type_get_true_extent_c, Pack_size_c
 * and the expected values; Pack_c / Unpack_c with MPI_Count positions and Pack_external_c /
 * Unpack_external_c / Pack_external_size_c round trips, byte for byte the int calls' results;
 * Type_get_envelope_c / Type_get_contents_c of each _c type (its arguments as large counts,
 * a type rebuilt from them equal to it) and of the int twins (no large counts, the int
 * contents), and the int Type_get_envelope / Type_get_contents refusing a _c type
 * (MPI_ERR_TYPE); a type of more than INT_MAX bytes (Type_size: MPI_UNDEFINED, Type_size_c the
 * size, Pack_size refused, Pack_size_c the size; its buffer never allocated); a user operation
 * of Op_create_c in Allreduce (a basic and a derived type) and Reduce_local(_c), called with
 * its MPI_Count length, next to an Op_create one; Buffer_attach_c / Buffer_detach_c around
 * Bsend_c, and a buffer of more than INT_MAX bytes (reserved, not touched past its first
 * message) that the int Buffer_detach refuses and Buffer_detach_c detaches, and (rank 0, with
 * the memory; else skipped, saying so) one Bsend_c of 2^31 + 16 bytes through such a buffer,
 * every byte checked; the errors (negative counts: MPI_ERR_COUNT, a displacement or stride
 * that overflows: MPI_ERR_ARG, ...), their strings naming the _c call.
 */
#include "mpi_test.h"

#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NI 256 /* ints in the source buffer: every type's two elements lie within it */

/* ---- a _c type and its int twin ---------------------------------------------------------- */
typedef struct {
    const char *name;
    MPI_Datatype c, i;          /* built by the _c call and by the int call */
    MPI_Count size, lb, extent; /* expected */
    int combiner;
    MPI_Count ni, na, nc, nd; /* the _c type's envelope */
} pair_t;

static MPI_Datatype commit(MPI_Datatype t)
{
    OK(MPI_Type_commit(&t));
    return t;
}

static int build_pairs(pair_t *p)
{
    int n = 0;
    MPI_Datatype t;
    int sz2[2] = {4, 5}, sub2[2] = {2, 3}, st2[2] = {1, 1};
    MPI_Count szc[2] = {4, 5}, subc[2] = {2, 3}, stc[2] = {1, 1};
    int gs = 10, ds = MPI_DISTRIBUTE_BLOCK, da = MPI_DISTRIBUTE_DFLT_DARG, ps = 2;
    MPI_Count gsc = 10;
    MPI_Datatype st_types[2] = {MPI_INT, MPI_DOUBLE};

    OK(MPI_Type_contiguous_c(5, MPI_INT, &t));
    p[n] = (pair_t){"contiguous", commit(t), 0, 20, 0, 20, MPI_COMBINER_CONTIGUOUS, 0, 0, 1, 1};
    OK(MPI_Type_contiguous(5, MPI_INT, &p[n++].i));

    OK(MPI_Type_vector_c(3, 2, 4, MPI_INT, &t));
    p[n] = (pair_t){"vector", commit(t), 0, 24, 0, 40, MPI_COMBINER_VECTOR, 0, 0, 3, 1};
    OK(MPI_Type_vector(3, 2, 4, MPI_INT, &p[n++].i));

    OK(MPI_Type_create_hvector_c(3, 2, 20, MPI_INT, &t));
    p[n] = (pair_t){"hvector", commit(t), 0, 24, 0, 48, MPI_COMBINER_HVECTOR, 0, 0, 3, 1};
    OK(MPI_Type_create_hvector(3, 2, 20, MPI_INT, &p[n++].i));

    OK(MPI_Type_indexed_c(3, (MPI_Count[]){1, 2, 3}, (MPI_Count[]){0, 3, 7}, MPI_INT, &t));
    p[n] = (pair_t){"indexed", commit(t), 0, 24, 0, 40, MPI_COMBINER_INDEXED, 0, 0, 7, 1};
    OK(MPI_Type_indexed(3, (int[]){1, 2, 3}, (int[]){0, 3, 7}, MPI_INT, &p[n++].i));

    OK(MPI_Type_create_hindexed_c(3, (MPI_Count[]){1, 2, 3}, (MPI_Count[]){0, 12, 28}, MPI_INT,
                                  &t));
    p[n] = (pair_t){"hindexed", commit(t), 0, 24, 0, 40, MPI_COMBINER_HINDEXED, 0, 0, 7, 1};
    OK(MPI_Type_create_hindexed(3, (int[]){1, 2, 3}, (MPI_Aint[]){0, 12, 28}, MPI_INT, &p[n++].i));

    OK(MPI_Type_create_indexed_block_c(3, 2, (MPI_Count[]){0, 3, 7}, MPI_INT, &t));
    p[n] =
        (pair_t){"indexed_block", commit(t), 0, 24, 0, 36, MPI_COMBINER_INDEXED_BLOCK, 0, 0, 5, 1};
    OK(MPI_Type_create_indexed_block(3, 2, (int[]){0, 3, 7}, MPI_INT, &p[n++].i));

    OK(MPI_Type_create_hindexed_block_c(3, 2, (MPI_Count[]){0, 12, 28}, MPI_INT, &t));
    p[n] = (pair_t){
        "hindexed_block", commit(t), 0, 24, 0, 36, MPI_COMBINER_HINDEXED_BLOCK, 0, 0, 5, 1};
    OK(MPI_Type_create_hindexed_block(3, 2, (MPI_Aint[]){0, 12, 28}, MPI_INT, &p[n++].i));

    OK(MPI_Type_create_struct_c(2, (MPI_Count[]){1, 2}, (MPI_Count[]){0, 8}, st_types, &t));
    p[n] = (pair_t){"struct", commit(t), 0, 20, 0, 24, MPI_COMBINER_STRUCT, 0, 0, 5, 2};
    OK(MPI_Type_create_struct(2, (int[]){1, 2}, (MPI_Aint[]){0, 8}, st_types, &p[n++].i));

    OK(MPI_Type_create_subarray_c(2, szc, subc, stc, MPI_ORDER_C, MPI_INT, &t));
    p[n] = (pair_t){"subarray", commit(t), 0, 24, 0, 80, MPI_COMBINER_SUBARRAY, 2, 0, 6, 1};
    OK(MPI_Type_create_subarray(2, sz2, sub2, st2, MPI_ORDER_C, MPI_INT, &p[n++].i));

    /* rank 1 of 2 owns elements 5 to 9 of 10 */
    OK(MPI_Type_create_darray_c(2, 1, 1, &gsc, &ds, &da, &ps, MPI_ORDER_C, MPI_INT, &t));
    p[n] = (pair_t){"darray", commit(t), 0, 20, 0, 40, MPI_COMBINER_DARRAY, 7, 0, 1, 1};
    OK(MPI_Type_create_darray(2, 1, 1, &gs, &ds, &da, &ps, MPI_ORDER_C, MPI_INT, &p[n++].i));

    OK(MPI_Type_create_resized_c(MPI_INT, -4, 16, &t));
    p[n] = (pair_t){"resized", commit(t), 0, 4, -4, 16, MPI_COMBINER_RESIZED, 0, 0, 2, 1};
    OK(MPI_Type_create_resized(MPI_INT, -4, 16, &p[n++].i));
    for (int k = 0; k < n; k++) {
        p[k].i = commit(p[k].i);
    }
    return n;
}

/* sizes and extents of p's two types, against the expected */
static void check_bounds(const pair_t *p)
{
    MPI_Count size = -1, lb = -1, ext = -1, tlb = -1, text = -1, psize = -1;
    MPI_Aint ilb = -1, iext = -1, itlb = -1, itext = -1;
    int isize = -1;

    OK(MPI_Type_size_c(p->c, &size));
    OK(MPI_Type_get_extent_c(p->c, &lb, &ext));
    OK(MPI_Type_get_true_extent_c(p->c, &tlb, &text));
    OK(MPI_Pack_size_c(2, p->c, MPI_COMM_WORLD, &psize));
    OK(MPI_Type_size(p->i, &isize));
    OK(MPI_Type_get_extent(p->i, &ilb, &iext));
    OK(MPI_Type_get_true_extent(p->i, &itlb, &itext));
    CHECK(size == p->size && lb == p->lb && ext == p->extent && psize == 2 * p->size,
          "%s: size %lld lb %lld extent %lld Pack_size_c(2) %lld, expected %lld %lld %lld", p->name,
          size, lb, ext, psize, p->size, p->lb, p->extent);
    CHECK(isize == size && ilb == lb && iext == ext && itlb == tlb && itext == text,
          "%s: the int twin: size %d lb %ld extent %ld true %ld %ld; _c: true %lld %lld", p->name,
          isize, (long)ilb, (long)iext, (long)itlb, (long)itext, tlb, text);
}

/* Pack_c / Unpack_c of two elements (after a 3-byte header: positions that are not 0) against
 * Pack / Unpack of the twin; the external32 forms likewise */
static void check_pack(const pair_t *p, const int *src)
{
    static char bc[2048], bi[2048];
    static int dc[NI], di[NI];
    const int *from = src + 4; /* room for a negative lb */
    MPI_Count pos = 3, upos = 3, esize = -1, epos = 0, eupos = 0;
    int ipos = 3, iupos = 3;
    MPI_Aint iesize = -1, iepos = 0, ieupos = 0;

    memset(bc, 0, sizeof(bc));
    memset(bi, 0, sizeof(bi));
    OK(MPI_Pack_c(from, 2, p->c, bc, sizeof(bc), &pos, MPI_COMM_WORLD));
    OK(MPI_Pack(from, 2, p->i, bi, sizeof(bi), &ipos, MPI_COMM_WORLD));
    CHECK(pos == 3 + 2 * p->size && ipos == pos && memcmp(bc, bi, (size_t)pos) == 0,
          "%s: Pack_c to %lld, Pack to %d, bytes %s", p->name, pos, ipos,
          memcmp(bc, bi, sizeof(bc)) == 0 ? "equal" : "differ");
    memset(dc, 0, sizeof(dc));
    memset(di, 0, sizeof(di));
    OK(MPI_Unpack_c(bc, pos, &upos, dc + 4, 2, p->c, MPI_COMM_WORLD));
    OK(MPI_Unpack(bi, ipos, &iupos, di + 4, 2, p->i, MPI_COMM_WORLD));
    CHECK(upos == pos && iupos == ipos && memcmp(dc, di, sizeof(dc)) == 0,
          "%s: Unpack_c to %lld, Unpack to %d, data %s", p->name, upos, iupos,
          memcmp(dc, di, sizeof(dc)) == 0 ? "equal" : "differ");
    for (int k = 0; k < NI; k++) { /* what came back is the source's where it is not 0 */
        CHECK(dc[k] == 0 || dc[k] == src[k], "%s: int %d unpacked %d, source %d", p->name, k, dc[k],
              src[k]);
    }
    OK(MPI_Pack_external_size_c("external32", 2, p->c, &esize));
    OK(MPI_Pack_external_size("external32", 2, p->i, &iesize));
    OK(MPI_Pack_external_c("external32", from, 2, p->c, bc, sizeof(bc), &epos));
    OK(MPI_Pack_external("external32", from, 2, p->i, bi, sizeof(bi), &iepos));
    memset(dc, 0, sizeof(dc));
    OK(MPI_Unpack_external_c("external32", bc, epos, &eupos, dc + 4, 2, p->c));
    OK(MPI_Unpack_external("external32", bi, iepos, &ieupos, di + 4, 2, p->i));
    CHECK(esize == iesize && epos == esize && iepos == iesize && eupos == epos && ieupos == iepos &&
              memcmp(bc, bi, (size_t)epos) == 0 && memcmp(dc, di, sizeof(dc)) == 0,
          "%s: external32 size %lld / %ld, packed to %lld / %ld, unpacked to %lld / %ld", p->name,
          esize, (long)iesize, epos, (long)iepos, eupos, (long)ieupos);
}

static void test_ctors(pair_t *p, int n)
{
    int src[NI];

    for (int k = 0; k < NI; k++) {
        src[k] = 1000 + k * 7 + me;
    }
    for (int k = 0; k < n; k++) {
        check_bounds(&p[k]);
        check_pack(&p[k], src);
    }
}

/* ---- envelopes and contents --------------------------------------------------------------- */
static void free_contents(MPI_Datatype *types, MPI_Count nd)
{
    for (MPI_Count k = 0; k < nd; k++) {
        int ni, na, nd2, comb;

        OK(MPI_Type_get_envelope(types[k], &ni, &na, &nd2, &comb));
        if (comb != MPI_COMBINER_NAMED) {
            OK(MPI_Type_free(&types[k]));
        }
    }
}

/* a _c type rebuilt by its constructor from the large counts of its contents */
static MPI_Datatype rebuild(int comb, const MPI_Count *c, const int *ints, MPI_Datatype *types)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_Count n = c[0];

    switch (comb) {
    case MPI_COMBINER_CONTIGUOUS:
        OK(MPI_Type_contiguous_c(n, types[0], &t));
        break;
    case MPI_COMBINER_VECTOR:
        OK(MPI_Type_vector_c(n, c[1], c[2], types[0], &t));
        break;
    case MPI_COMBINER_HVECTOR:
        OK(MPI_Type_create_hvector_c(n, c[1], c[2], types[0], &t));
        break;
    case MPI_COMBINER_INDEXED:
        OK(MPI_Type_indexed_c(n, c + 1, c + 1 + n, types[0], &t));
        break;
    case MPI_COMBINER_HINDEXED:
        OK(MPI_Type_create_hindexed_c(n, c + 1, c + 1 + n, types[0], &t));
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        OK(MPI_Type_create_indexed_block_c(n, c[1], c + 2, types[0], &t));
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        OK(MPI_Type_create_hindexed_block_c(n, c[1], c + 2, types[0], &t));
        break;
    case MPI_COMBINER_STRUCT:
        OK(MPI_Type_create_struct_c(n, c + 1, c + 1 + n, types, &t));
        break;
    case MPI_COMBINER_SUBARRAY: /* ints: ndims, order; counts: sizes, subsizes, starts */
        OK(MPI_Type_create_subarray_c(ints[0], c, c + ints[0], c + 2 * ints[0], ints[1], types[0],
                                      &t));
        break;
    case MPI_COMBINER_DARRAY: /* ints: size, rank, ndims, distribs, dargs, psizes, order */
        OK(MPI_Type_create_darray_c(ints[0], ints[1], ints[2], c, ints + 3, ints + 3 + ints[2],
                                    ints + 3 + 2 * ints[2], ints[3 + 3 * ints[2]], types[0], &t));
        break;
    case MPI_COMBINER_RESIZED:
        OK(MPI_Type_create_resized_c(types[0], c[0], c[1], &t));
        break;
    default:
        CHECK(0, "combiner %d", comb);
    }
    return t;
}

static void check_env_c(const pair_t *p)
{
    MPI_Count ni = -1, na = -1, nc = -1, nd = -1, size = -1, lb = -1, ext = -1;
    int comb = -1, ints[16] = {0}, ini, ina, ind, icomb;
    MPI_Aint aints[8];
    MPI_Count counts[16] = {0};
    MPI_Datatype types[4] = {0}, t;

    OK(MPI_Type_get_envelope_c(p->c, &ni, &na, &nc, &nd, &comb));
    CHECK(comb == p->combiner && ni == p->ni && na == p->na && nc == p->nc && nd == p->nd,
          "%s: envelope_c combiner %d, %lld ints, %lld addresses, %lld large counts, %lld types; "
          "expected %d, %lld, %lld, %lld, %lld",
          p->name, comb, ni, na, nc, nd, p->combiner, p->ni, p->na, p->nc, p->nd);
    FAILS(MPI_Type_get_envelope(p->c, &ini, &ina, &ind, &icomb), MPI_ERR_TYPE);
    FAILS(MPI_Type_get_contents(p->c, 16, 8, 4, ints, aints, types), MPI_ERR_TYPE);
    FAILS(MPI_Type_get_contents_c(p->c, 16, 8, nc - 1, 4, ints, aints, counts, types), MPI_ERR_ARG);
    OK(MPI_Type_get_contents_c(p->c, 16, 8, 16, 4, ints, aints, counts, types));
    t = rebuild(comb, counts, ints, types);
    OK(MPI_Type_size_c(t, &size));
    OK(MPI_Type_get_extent_c(t, &lb, &ext));
    CHECK(size == p->size && lb == p->lb && ext == p->extent,
          "%s rebuilt from its contents: size %lld lb %lld extent %lld", p->name, size, lb, ext);
    OK(MPI_Type_free(&t));
    free_contents(types, nd);
}

/* the _c calls on the int twin: no large counts, the int call's contents */
static void check_env_int(const pair_t *p)
{
    MPI_Count ni = -1, na = -1, nc = -1, nd = -1;
    int comb = -1, ini = -1, ina = -1, ind = -1, icomb = -1;
    int ints[32], iints[32];
    MPI_Aint aints[8], iaints[8];
    MPI_Count counts[1];
    MPI_Datatype types[4], itypes[4];

    OK(MPI_Type_get_envelope_c(p->i, &ni, &na, &nc, &nd, &comb));
    OK(MPI_Type_get_envelope(p->i, &ini, &ina, &ind, &icomb));
    CHECK(comb == icomb && ni == ini && na == ina && nc == 0 && nd == ind,
          "%s int twin: envelope_c %d %lld %lld %lld %lld, envelope %d %d %d %d", p->name, comb, ni,
          na, nc, nd, icomb, ini, ina, ind);
    OK(MPI_Type_get_contents_c(p->i, 32, 8, 0, 4, ints, aints, counts, types));
    OK(MPI_Type_get_contents(p->i, 32, 8, 4, iints, iaints, itypes));
    CHECK(memcmp(ints, iints, sizeof(int) * (size_t)ni) == 0 &&
              memcmp(aints, iaints, sizeof(MPI_Aint) * (size_t)na) == 0,
          "%s int twin: contents_c and contents differ", p->name);
    free_contents(types, nd);
    free_contents(itypes, nd);
}

static void test_envelopes(pair_t *p, int n)
{
    int ni, na, nd, comb;
    MPI_Count cni, cna, cnc, cnd;

    for (int k = 0; k < n; k++) {
        check_env_c(&p[k]);
        check_env_int(&p[k]);
    }
    OK(MPI_Type_get_envelope_c(MPI_INT, &cni, &cna, &cnc, &cnd, &comb));
    CHECK(comb == MPI_COMBINER_NAMED && cni + cna + cnc + cnd == 0, "MPI_INT: combiner %d", comb);
    OK(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb));
}

/* ---- a type past INT_MAX bytes -------------------------------------------------------------- */
static void test_big_type(void)
{
    const MPI_Count big = (MPI_Count)INT_MAX + 9;
    MPI_Datatype t, t3, h;
    MPI_Count size = -1, lb = -1, ext = -1, psize = -1, esize = -1;
    int isize = 0, ipsize = 0;

    OK(MPI_Type_contiguous_c(big, MPI_CHAR, &t));
    OK(MPI_Type_commit(&t));
    OK(MPI_Type_size(t, &isize));
    OK(MPI_Type_size_c(t, &size));
    OK(MPI_Type_get_true_extent_c(t, &lb, &ext));
    OK(MPI_Pack_size_c(1, t, MPI_COMM_WORLD, &psize));
    OK(MPI_Pack_external_size_c("external32", 1, t, &esize));
    CHECK(isize == MPI_UNDEFINED && size == big && lb == 0 && ext == big && psize == big &&
              esize == big,
          "Type_size %d, Type_size_c %lld, true extent %lld %lld, Pack_size_c %lld, "
          "Pack_external_size_c %lld (expected %lld)",
          isize, size, lb, ext, psize, esize, big);
    FAILS(MPI_Pack_size(1, t, MPI_COMM_WORLD, &ipsize), MPI_ERR_ARG);
    /* 3 of them: more than 6 GiB, still described without a byte of memory */
    OK(MPI_Type_contiguous_c(3, t, &t3));
    OK(MPI_Type_size_c(t3, &size));
    CHECK(size == 3 * big, "3 x %lld bytes: Type_size_c %lld", big, size);
    /* a stride past 2^32 bytes: two ints 8 GiB apart */
    OK(MPI_Type_create_hvector_c(2, 1, (MPI_Count)1 << 33, MPI_INT, &h));
    OK(MPI_Type_size_c(h, &size));
    OK(MPI_Type_get_extent_c(h, &lb, &ext));
    CHECK(size == 8 && lb == 0 && ext == ((MPI_Count)1 << 33) + 4,
          "hvector_c stride 2^33: size %lld lb %lld extent %lld", size, lb, ext);
    OK(MPI_Type_free(&h));
    OK(MPI_Type_free(&t3));
    OK(MPI_Type_free(&t));
}

/* ---- Op_create_c ------------------------------------------------------------------------------
 */
static MPI_Count last_len_c = -1;
static int last_len_int = -1, calls_c, calls_int;
static MPI_Datatype pair; /* 2 ints */

/* inout = in + inout over ints (MPI_INT or pair), with an MPI_Count len */
static void sum_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    MPI_Count per = *dt == pair ? 2 : 1;

    for (MPI_Count k = 0; k < *len * per; k++) {
        ((int *)inout)[k] += ((int *)in)[k];
    }
    last_len_c = *len;
    calls_c++;
}

static void sum_int(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int k = 0; k < *len; k++) {
        ((int *)inout)[k] += ((int *)in)[k];
    }
    last_len_int = *len;
    calls_int++;
}

static void test_op(void)
{
    enum { M = 37 };
    int in[2 * M], out[2 * M], sum = 0;
    MPI_Op op_c, op_i;

    OK(MPI_Op_create_c(sum_c, 1, &op_c));
    OK(MPI_Op_create(sum_int, 1, &op_i));
    for (int r = 0; r < np; r++) {
        sum += r;
    }
    for (int k = 0; k < 2 * M; k++) {
        in[k] = me + k;
    }
    OK(MPI_Allreduce(in, out, M, MPI_INT, op_c, MPI_COMM_WORLD));
    for (int k = 0; k < M; k++) {
        CHECK(out[k] == sum + np * k, "Allreduce with an Op_create_c op: [%d] = %d, not %d", k,
              out[k], sum + np * k);
    }
    CHECK(np == 1 || (calls_c > 0 && last_len_c > 0 && last_len_c <= M),
          "the _c op was called %d times, last len %lld", calls_c, last_len_c);
    OK(MPI_Type_contiguous_c(2, MPI_INT, &pair));
    OK(MPI_Type_commit(&pair));
    OK(MPI_Allreduce(in, out, M, pair, op_c, MPI_COMM_WORLD));
    for (int k = 0; k < 2 * M; k++) {
        CHECK(out[k] == sum + np * k, "Allreduce of pairs with an Op_create_c op: [%d] = %d", k,
              out[k]);
    }
    memcpy(out, in, sizeof(out));
    last_len_c = -1;
    OK(MPI_Reduce_local(in, out, M, MPI_INT, op_c));
    CHECK(last_len_c == M && out[5] == 2 * in[5] && out[M] == in[M],
          "Reduce_local with the _c op: len %lld, [5] %d, [%d] %d", last_len_c, out[5], M, out[M]);
    last_len_c = -1;
    OK(MPI_Reduce_local_c(in, out, (MPI_Count)M, pair, op_c));
    CHECK(last_len_c == M && out[2 * M - 1] == 2 * in[2 * M - 1] && out[5] == 3 * in[5],
          "Reduce_local_c of pairs with the _c op: len %lld, [%d] %d, [5] %d", last_len_c,
          2 * M - 1, out[2 * M - 1], out[5]);
    OK(MPI_Reduce_local(in, out, M, MPI_INT, op_i));
    CHECK(last_len_int == M && calls_int == 1, "Reduce_local with an int op: len %d, %d call(s)",
          last_len_int, calls_int);
    OK(MPI_Allreduce(in, out, M, MPI_INT, op_i, MPI_COMM_WORLD));
    CHECK(out[M - 1] == sum + np * (M - 1), "Allreduce with an int op: [%d] = %d", M - 1,
          out[M - 1]);
    OK(MPI_Type_free(&pair));
    OK(MPI_Op_free(&op_c));
    OK(MPI_Op_free(&op_i));
}

/* ---- Buffer_attach_c / Buffer_detach_c ------------------------------------------------------- */
static void test_buffer(void)
{
    enum { M = 100 };
    int s[M], r[M];
    MPI_Count bsize = 2 * (M * (MPI_Count)sizeof(int) + MPI_BSEND_OVERHEAD), got = -1;
    char *buf = malloc((size_t)bsize), *back = NULL;
    int to = (me + 1) % np, from = (me + np - 1) % np, isize = -1;
    MPI_Request req;
    MPI_Status st;

    OK(MPI_Buffer_attach_c(buf, bsize));
    for (int k = 0; k < M; k++) {
        s[k] = me * 1000 + k;
    }
    memset(r, 0, sizeof(r));
    OK(MPI_Irecv_c(r, M, MPI_INT, from, 5, MPI_COMM_WORLD, &req));
    OK(MPI_Bsend_c(s, M, MPI_INT, to, 5, MPI_COMM_WORLD));
    OK(MPI_Wait(&req, &st));
    CHECK(r[0] == from * 1000 && r[M - 1] == from * 1000 + M - 1, "Bsend_c: got %d .. %d", r[0],
          r[M - 1]);
    OK(MPI_Buffer_detach_c(&back, &got));
    CHECK(back == buf && got == bsize, "Buffer_detach_c: %p %lld, attached %p %lld", (void *)back,
          got, (void *)buf, bsize);
    /* an int size still detaches by the int call */
    OK(MPI_Buffer_attach_c(buf, bsize));
    OK(MPI_Buffer_detach(&back, &isize));
    CHECK(back == buf && isize == bsize, "Buffer_detach: %d bytes", isize);
    free(buf);
}

/* a buffer past INT_MAX bytes (reserved; a message uses its first bytes only): attached by
 * Buffer_attach_c, refused by Buffer_detach, detached by Buffer_detach_c; false without the
 * address space */
static bool test_big_buffer(void)
{
    const MPI_Count big = (MPI_Count)INT_MAX + 4096;
    char *buf = malloc((size_t)big), *back = NULL;
    int x = me + 17, y = -1, isize = -1;
    MPI_Count got = -1;
    MPI_Request req;

    if (buf == NULL) {
        return false;
    }
    OK(MPI_Buffer_attach_c(buf, big));
    OK(MPI_Irecv(&y, 1, MPI_INT, me, 6, MPI_COMM_WORLD, &req));
    OK(MPI_Bsend_c(&x, 1, MPI_INT, me, 6, MPI_COMM_WORLD));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(y == x, "Bsend_c to self through a buffer of %lld bytes: %d, not %d", big, y, x);
    FAILS(MPI_Buffer_detach(&back, &isize), MPI_ERR_COUNT);
    OK(MPI_Buffer_detach_c(&back, &got));
    CHECK(back == buf && got == big, "Buffer_detach_c of the big buffer: %lld bytes", got);
    free(buf);
    return true;
}

/* rank 0: one Bsend_c of 2^31 + 16 bytes to itself through a buffer of Buffer_attach_c, every
 * byte checked; false (not run) on the other ranks and without 4 x its size available */
static bool test_big_bsend(void)
{
    const MPI_Count n = ((MPI_Count)1 << 31) + 16;
    MPI_Count bsize = n + MPI_BSEND_OVERHEAD, got = -1, dsize = -1;
    unsigned char *s, *r, *b, *back = NULL;
    MPI_Request req;
    MPI_Status st;
    size_t bad = 0;

    if (me != 0 || mem_available() < 4 * n) {
        return false;
    }
    s = malloc((size_t)n);
    r = calloc((size_t)n, 1);
    b = malloc((size_t)bsize);
    if (s != NULL && r != NULL && b != NULL) {
        for (size_t i = 0; i < (size_t)n; i++) {
            s[i] = byte_at(i);
        }
        OK(MPI_Buffer_attach_c(b, bsize));
        OK(MPI_Irecv_c(r, n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &req));
        OK(MPI_Bsend_c(s, n, MPI_BYTE, 0, 7, MPI_COMM_WORLD));
        OK(MPI_Wait(&req, &st));
        OK(MPI_Get_count_c(&st, MPI_BYTE, &got));
        OK(MPI_Buffer_detach_c(&back, &dsize));
        for (size_t i = 0; i < (size_t)n; i++) {
            bad += r[i] != byte_at(i);
        }
        CHECK(bad == 0 && got == n && back == b && dsize == bsize,
              "Bsend_c of %lld bytes: %zu wrong, Get_count_c %lld, detached %lld of %lld", n, bad,
              got, dsize, bsize);
    }
    free(s);
    free(r);
    free(b);
    return s != NULL && r != NULL && b != NULL;
}

/* ---- errors -------------------------------------------------------------------------------- */
/* the error string of code names the call name (and not only as the start of a longer name) */
static void names(int code, const char *name)
{
    char s[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    const char *at;
    char next;

    MPI_Error_string(code, s, &len);
    at = strstr(s, name);
    next = at == NULL ? '_' : at[strlen(name)];
    CHECK(next != '_' && !isalnum((unsigned char)next), "error string \"%s\" does not name %s", s,
          name);
}

#define FAILS_NAMED(call, cls, name)                                                               \
    do {                                                                                           \
        int c_ = (call);                                                                           \
        FAILS(c_, cls);                                                                            \
        names(c_, name);                                                                           \
    } while (0)

static void test_errors_ctor(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_Count one[1] = {1}, zero[1] = {0}, neg[1] = {-1}, huge[1] = {LLONG_MAX / 2};
    MPI_Count sz[1] = {-3}, sub[1] = {1}, st[1] = {0}, g[1] = {-10};
    int ds = MPI_DISTRIBUTE_BLOCK, da = MPI_DISTRIBUTE_DFLT_DARG, ps = 1;
    MPI_Datatype types[1] = {MPI_INT};

    FAILS_NAMED(MPI_Type_contiguous_c(-1, MPI_INT, &t), MPI_ERR_COUNT, "MPI_Type_contiguous_c");
    FAILS_NAMED(MPI_Type_vector_c(-1, 1, 1, MPI_INT, &t), MPI_ERR_COUNT, "MPI_Type_vector_c");
    FAILS_NAMED(MPI_Type_vector_c(2, -1, 1, MPI_INT, &t), MPI_ERR_ARG, "MPI_Type_vector_c");
    FAILS_NAMED(MPI_Type_vector_c(2, 1, LLONG_MAX / 2, MPI_INT, &t), MPI_ERR_ARG,
                "MPI_Type_vector_c");
    FAILS_NAMED(MPI_Type_create_hvector_c(-5, 1, 1, MPI_INT, &t), MPI_ERR_COUNT,
                "MPI_Type_create_hvector_c");
    FAILS_NAMED(MPI_Type_create_hvector_c(3, 1, LLONG_MAX / 2 + 1, MPI_INT, &t), MPI_ERR_ARG,
                "MPI_Type_create_hvector_c");
    FAILS_NAMED(MPI_Type_create_hvector_c(3, 1, LLONG_MAX / 2, MPI_INT, &t), MPI_ERR_ARG,
                "MPI_Type_create_hvector_c"); /* the upper bound: 2 * stride + 4 */
    FAILS_NAMED(MPI_Type_create_resized_c(MPI_INT, LLONG_MAX - 8, 16, &t), MPI_ERR_ARG,
                "MPI_Type_create_resized_c");
    FAILS_NAMED(MPI_Type_indexed_c(-1, one, zero, MPI_INT, &t), MPI_ERR_COUNT,
                "MPI_Type_indexed_c");
    FAILS_NAMED(MPI_Type_indexed_c(1, neg, zero, MPI_INT, &t), MPI_ERR_ARG, "MPI_Type_indexed_c");
    FAILS_NAMED(MPI_Type_indexed_c(1, one, huge, MPI_INT, &t), MPI_ERR_ARG, "MPI_Type_indexed_c");
    FAILS_NAMED(MPI_Type_indexed_c((MPI_Count)INT_MAX + 1, one, zero, MPI_INT, &t), MPI_ERR_COUNT,
                "MPI_Type_indexed_c");
    FAILS_NAMED(MPI_Type_create_hindexed_c(-2, one, zero, MPI_INT, &t), MPI_ERR_COUNT,
                "MPI_Type_create_hindexed_c");
    FAILS_NAMED(MPI_Type_create_indexed_block_c(-1, 1, zero, MPI_INT, &t), MPI_ERR_COUNT,
                "MPI_Type_create_indexed_block_c");
    FAILS_NAMED(MPI_Type_create_indexed_block_c(1, -1, zero, MPI_INT, &t), MPI_ERR_ARG,
                "MPI_Type_create_indexed_block_c");
    FAILS_NAMED(MPI_Type_create_hindexed_block_c(-1, 1, zero, MPI_INT, &t), MPI_ERR_COUNT,
                "MPI_Type_create_hindexed_block_c");
    FAILS_NAMED(MPI_Type_create_struct_c(-1, one, zero, types, &t), MPI_ERR_COUNT,
                "MPI_Type_create_struct_c");
    FAILS_NAMED(MPI_Type_create_struct_c(1, neg, zero, types, &t), MPI_ERR_ARG,
                "MPI_Type_create_struct_c");
    FAILS_NAMED(MPI_Type_create_subarray_c(1, sz, sub, st, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG,
                "MPI_Type_create_subarray_c");
    FAILS_NAMED(MPI_Type_create_subarray_c(1, huge, sub, st, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG,
                "MPI_Type_create_subarray_c");
    FAILS_NAMED(MPI_Type_create_darray_c(1, 0, 1, g, &ds, &da, &ps, MPI_ORDER_C, MPI_INT, &t),
                MPI_ERR_ARG, "MPI_Type_create_darray_c");
    FAILS_NAMED(MPI_Type_contiguous_c(LLONG_MAX / 2, MPI_INT, &t), MPI_ERR_ARG,
                "MPI_Type_contiguous_c"); /* 2^64 - 4 bytes: a size_t, not an MPI_Count */
    FAILS_NAMED(MPI_Type_contiguous_c(LLONG_MAX / 2, MPI_DOUBLE, &t), MPI_ERR_ARG,
                "MPI_Type_contiguous_c"); /* past SIZE_MAX */
    FAILS_NAMED(MPI_Type_create_resized_c(MPI_DATATYPE_NULL, 0, 4, &t), MPI_ERR_TYPE,
                "MPI_Type_create_resized_c");
    FAILS_NAMED(MPI_Type_size_c(MPI_INT, NULL), MPI_ERR_ARG, "MPI_Type_size_c");
    FAILS_NAMED(MPI_Type_get_extent_c(MPI_DATATYPE_NULL, one, zero), MPI_ERR_TYPE,
                "MPI_Type_get_extent_c");
    FAILS_NAMED(MPI_Type_get_contents_c(MPI_INT, 0, 0, 0, 0, NULL, NULL, NULL, NULL), MPI_ERR_TYPE,
                "MPI_Type_get_contents_c");
    CHECK(t == MPI_DATATYPE_NULL, "a failed constructor set newtype to 0x%x", (unsigned)t);
}

static void test_errors_pack(void)
{
    char buf[64];
    int x[4] = {1, 2, 3, 4};
    MPI_Count pos = 0, big = 8, size;
    MPI_Op op;

    FAILS_NAMED(MPI_Pack_c(x, -1, MPI_INT, buf, 64, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT,
                "MPI_Pack_c");
    FAILS_NAMED(MPI_Pack_c(x, 4, MPI_INT, buf, 8, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE,
                "MPI_Pack_c");
    pos = 65;
    FAILS_NAMED(MPI_Pack_c(x, 1, MPI_INT, buf, 64, &pos, MPI_COMM_WORLD), MPI_ERR_ARG,
                "MPI_Pack_c");
    pos = 0;
    FAILS_NAMED(MPI_Unpack_c(buf, 64, &pos, x, -3, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT,
                "MPI_Unpack_c");
    FAILS_NAMED(MPI_Pack_size_c(-1, MPI_INT, MPI_COMM_WORLD, &size), MPI_ERR_COUNT,
                "MPI_Pack_size_c");
    FAILS_NAMED(MPI_Pack_size_c(LLONG_MAX / 2, MPI_INT, MPI_COMM_WORLD, &size), MPI_ERR_COUNT,
                "MPI_Pack_size_c");
    FAILS_NAMED(MPI_Pack_external_c("external32", x, -1, MPI_INT, buf, 64, &pos), MPI_ERR_COUNT,
                "MPI_Pack_external_c");
    FAILS_NAMED(MPI_Unpack_external_c("external32", buf, 64, &pos, x, -1, MPI_INT), MPI_ERR_COUNT,
                "MPI_Unpack_external_c");
    FAILS_NAMED(MPI_Unpack_external_c("native", buf, 64, &pos, x, 1, MPI_INT),
                MPI_ERR_UNSUPPORTED_DATAREP, "MPI_Unpack_external_c");
    FAILS_NAMED(MPI_Pack_external_size_c("external32", -1, MPI_INT, &big), MPI_ERR_COUNT,
                "MPI_Pack_external_size_c");
    FAILS_NAMED(MPI_Op_create_c(NULL, 1, &op), MPI_ERR_ARG, "MPI_Op_create_c");
    FAILS_NAMED(MPI_Buffer_attach_c(buf, -1), MPI_ERR_ARG, "MPI_Buffer_attach_c");
    FAILS_NAMED(MPI_Buffer_detach_c(NULL, &size), MPI_ERR_ARG, "MPI_Buffer_detach_c");
    CHECK(pos == 0 && big == 8, "a failed call moved position to %lld or size to %lld", pos, big);
}

/* the end of a phase that ran ("ok: name"), or of one that could not run here ("SKIP (this
 * phase): name"): counted alike */
static void phase_if(bool ran, const char *name)
{
    if (ran) {
        phase(name);
        return;
    }
    test_barrier(MPI_COMM_WORLD);
    phases++;
    if (me == 0) {
        printf("SKIP (this phase): %s\n", name);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    pair_t pairs[16];
    int n;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    phases_expected = 8;
    n = build_pairs(pairs);
    test_ctors(pairs, n);
    phase("every _c constructor against its int twin: sizes, extents, Pack_c / Unpack_c, "
          "Pack_external_c / Unpack_external_c");
    test_envelopes(pairs, n);
    phase("Type_get_envelope_c / Type_get_contents_c (a type rebuilt from them), the int forms "
          "refusing a _c type");
    test_big_type();
    phase("a type past INT_MAX bytes: Type_size MPI_UNDEFINED, Type_size_c its size");
    test_op();
    phase("Op_create_c in Allreduce, Reduce_local, Reduce_local_c; Op_create beside it");
    test_buffer();
    phase("Buffer_attach_c / Buffer_detach_c around Bsend_c");
    phase_if(test_big_buffer(), "a buffer past INT_MAX bytes (the address space for it)");
    phase_if(test_big_bsend(), "a Bsend_c of 2^31 + 16 bytes through Buffer_attach_c's buffer "
                               "(rank 0 to itself, with 8.6 GB available)");
    test_errors_ctor();
    test_errors_pack();
    phase("errors: negative counts, overflows, each naming its _c call");
    for (int k = 0; k < n; k++) {
        OK(MPI_Type_free(&pairs[k].c));
        OK(MPI_Type_free(&pairs[k].i));
    }
    MPI_Finalize();
    return summary();
}
