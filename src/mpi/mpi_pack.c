/* SPDX-License-Identifier: BSD-3-Clause */
/* Moving typed data: pack and unpack count elements along a type's flattened blocks
 * (mpi_type.h), MPI_Pack/Unpack/Pack_size, and the element counts of Get_count and
 * Get_elements. */
#include "mpi/mpi_objects.h"
#include "mpi/mpi_type.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

void mpi_type_pack(const mpi_type_t *t, const void *buf, size_t count, void *out)
{
    const char *in = buf;
    char *o = out;

    if (count == 0 || t->size == 0) { /* buf and out may be NULL */
        return;
    }
    if (t->contig) {
        memcpy(o, in + t->true_lb, count * t->size);
        return;
    }
    for (size_t i = 0; i < count; i++, in += t->extent) {
        for (size_t k = 0; k < t->nblocks; k++) {
            memcpy(o, in + t->blocks[k].off, t->blocks[k].len);
            o += t->blocks[k].len;
        }
    }
}

void mpi_type_unpack(const mpi_type_t *t, const void *in, size_t count, void *buf)
{
    const char *i8 = in;
    char *b = buf;

    if (count == 0 || t->size == 0) {
        return;
    }
    if (t->contig) {
        memcpy(b + t->true_lb, i8, count * t->size);
        return;
    }
    for (size_t i = 0; i < count; i++, b += t->extent) {
        for (size_t k = 0; k < t->nblocks; k++) {
            memcpy(b + t->blocks[k].off, i8, t->blocks[k].len);
            i8 += t->blocks[k].len;
        }
    }
}

/* Basic elements in the first nbytes (< one element) of t's signature; MPI_UNDEFINED when
 * nbytes ends inside a basic element. */
static MPI_Count type_basic_prefix(const mpi_type_t *t, size_t nbytes)
{
    MPI_Count basic = 0;

    if (t->nsig == 0) { /* a basic type */
        return nbytes == 0 ? 0 : MPI_UNDEFINED;
    }
    for (size_t i = 0; i < t->nsig && nbytes > 0; i++) {
        const mpi_type_t *c = t->sig[i].child;
        size_t whole = c->size > 0 ? nbytes / c->size : 0;

        if (whole >= t->sig[i].count) {
            whole = t->sig[i].count;
        }
        basic += (MPI_Count)whole * c->basic;
        nbytes -= whole * c->size;
        if (whole < t->sig[i].count && nbytes > 0) {
            MPI_Count rest = type_basic_prefix(c, nbytes);

            return rest == MPI_UNDEFINED ? MPI_UNDEFINED : basic + rest;
        }
    }
    return nbytes == 0 ? basic : MPI_UNDEFINED;
}

int mpi_type_basic_count(const mpi_type_t *t, size_t nbytes, MPI_Count *basic_p)
{
    size_t whole, rest;
    MPI_Count prefix;

    if (t->size == 0) {
        *basic_p = 0;
        return 0;
    }
    whole = nbytes / t->size;
    rest = nbytes % t->size;
    prefix = type_basic_prefix(t, rest);
    *basic_p = prefix == MPI_UNDEFINED ? MPI_UNDEFINED : (MPI_Count)whole * t->basic + prefix;
    return rest != 0 || whole > INT_MAX ? MPI_UNDEFINED : (int)whole;
}

int mpi_type_blocks(const mpi_type_t *t, size_t count, mpi_type_block_fn *fn, void *arg)
{
    MPI_Aint off = 0;
    size_t len = 0, poff = 0;
    int rc;

    if (t->size == 0 || count == 0) {
        return 0;
    }
    if (t->contig) {
        return fn(arg, t->true_lb, count * t->size, 0);
    }
    for (size_t i = 0; i < count; i++) {
        for (size_t k = 0; k < t->nblocks; k++) {
            MPI_Aint at = (MPI_Aint)i * t->extent + t->blocks[k].off;

            if (len > 0 && off + (MPI_Aint)len == at) {
                len += t->blocks[k].len; /* adjacent to the one before: merged */
                continue;
            }
            if (len > 0 && (rc = fn(arg, off, len, poff)) != 0) {
                return rc;
            }
            poff += len;
            off = at;
            len = t->blocks[k].len;
        }
    }
    return fn(arg, off, len, poff);
}

void mpi_type_span(const mpi_type_t *t, size_t count, MPI_Aint *lo_p, MPI_Aint *hi_p)
{
    MPI_Aint step = count > 0 ? (MPI_Aint)(count - 1) * t->extent : 0;

    *lo_p = t->true_lb + (step < 0 ? step : 0);
    *hi_p = t->true_ub + (step > 0 ? step : 0);
}

/* ---- type signatures: runs of (predefined type, how many), consecutive equal ones merged */
typedef struct {
    MPI_Datatype dt;
    size_t n;
} sig_run_t;

typedef struct {
    sig_run_t *runs;
    size_t n, cap;
    bool over; /* more than SIG_RUNS_MAX runs: not compared */
} sig_buf_t;

#define SIG_RUNS_MAX (1u << 20)

static void sig_add(sig_buf_t *b, MPI_Datatype dt, size_t n)
{
    if (n == 0 || b->over) {
        return;
    }
    if (b->n > 0 && b->runs[b->n - 1].dt == dt) {
        b->runs[b->n - 1].n += n;
        return;
    }
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 16;
        sig_run_t *r = cap <= SIG_RUNS_MAX ? realloc(b->runs, cap * sizeof(*r)) : NULL;

        if (r == NULL) {
            b->over = true;
            return;
        }
        b->runs = r;
        b->cap = cap;
    }
    b->runs[b->n++] = (sig_run_t){dt, n};
}

/* count elements of t, as runs of predefined types */
static void sig_expand(const mpi_type_t *t, size_t count, sig_buf_t *b)
{
    MPI_Datatype basic = mpi_type_basic_of(t);

    if (basic != MPI_DATATYPE_NULL) {
        sig_add(b, basic, count * (t->size / mpi_type_size(mpi_type_get(basic))));
        return;
    }
    for (size_t i = 0; i < count && !b->over; i++) {
        for (size_t k = 0; k < t->nsig && !b->over; k++) {
            sig_expand(t->sig[k].child, t->sig[k].count, b);
        }
    }
}

bool mpi_type_sig_equal(const mpi_type_t *a, size_t na, const mpi_type_t *b, size_t nb)
{
    sig_buf_t sa = {0}, sb = {0};
    MPI_Datatype ba, bb;
    bool eq;

    if (a->size * na != b->size * nb) {
        return false;
    }
    if (a->size * na == 0) {
        return true;
    }
    ba = mpi_type_basic_of(a);
    bb = mpi_type_basic_of(b);
    if (ba != MPI_DATATYPE_NULL || bb != MPI_DATATYPE_NULL) {
        return ba == bb; /* one predefined type each (the common case): no expansion */
    }
    sig_expand(a, na, &sa);
    sig_expand(b, nb, &sb);
    eq = sa.over || sb.over || sa.n == sb.n;
    for (size_t i = 0; eq && !sa.over && !sb.over && i < sa.n; i++) {
        eq = sa.runs[i].dt == sb.runs[i].dt && sa.runs[i].n == sb.runs[i].n;
    }
    free(sa.runs);
    free(sb.runs);
    return eq;
}
