/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * STAND-IN, owned by helper B (mpi-types): only the predefined datatypes, so that helper A's
 * point-to-point code builds and runs. Helper B replaces this whole file (and mpi_pack.c)
 * with the real datatype engine implementing mpi_impl.h's datatype interface.
 */
#include "mpi/mpi_impl.h"

#include <complex.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

struct mpi_type {
    size_t size;
};

#define PAIR(a, b)                                                                                 \
    sizeof(struct {                                                                                \
        a x;                                                                                       \
        b y;                                                                                       \
    })

static const struct mpi_type predefined[MPI_DT_PREDEFINED_COUNT_] = {
    [1] = {sizeof(char)},
    [2] = {sizeof(signed char)},
    [3] = {sizeof(unsigned char)},
    [4] = {1},
    [5] = {sizeof(wchar_t)},
    [6] = {sizeof(short)},
    [7] = {sizeof(unsigned short)},
    [8] = {sizeof(int)},
    [9] = {sizeof(unsigned)},
    [10] = {sizeof(long)},
    [11] = {sizeof(unsigned long)},
    [12] = {sizeof(long long)},
    [13] = {sizeof(unsigned long long)},
    [14] = {sizeof(float)},
    [15] = {sizeof(double)},
    [16] = {sizeof(long double)},
    [17] = {sizeof(_Bool)},
    [18] = {1},
    [19] = {2},
    [20] = {4},
    [21] = {8},
    [22] = {1},
    [23] = {2},
    [24] = {4},
    [25] = {8},
    [26] = {sizeof(MPI_Aint)},
    [27] = {sizeof(MPI_Count)},
    [28] = {sizeof(MPI_Offset)},
    [29] = {sizeof(float _Complex)},
    [30] = {sizeof(double _Complex)},
    [31] = {sizeof(long double _Complex)},
    [32] = {1},
    /* the pair types: the stand-in treats them as contiguous blocks of their extent */
    [33] = {PAIR(float, int)},
    [34] = {PAIR(double, int)},
    [35] = {PAIR(long, int)},
    [36] = {PAIR(int, int)},
    [37] = {PAIR(short, int)},
    [38] = {PAIR(long double, int)},
};

mpi_type_t *mpi_type_get(MPI_Datatype dt)
{
    int i = dt & MPI_HANDLE_INDEX_MASK;

    if ((dt >> MPI_HANDLE_KIND_SHIFT) != MPI_KIND_DATATYPE_ || i < 1 ||
        i >= MPI_DT_PREDEFINED_COUNT_) {
        return NULL;
    }
    return (mpi_type_t *)&predefined[i];
}

bool mpi_type_is_contig(const mpi_type_t *t)
{
    (void)t;
    return true;
}

size_t mpi_type_size(const mpi_type_t *t)
{
    return t->size;
}

MPI_Aint mpi_type_extent(const mpi_type_t *t)
{
    return (MPI_Aint)t->size;
}

MPI_Aint mpi_type_true_lb(const mpi_type_t *t)
{
    (void)t;
    return 0;
}

bool mpi_type_committed(const mpi_type_t *t)
{
    (void)t;
    return true;
}

void mpi_type_pack(const mpi_type_t *t, const void *buf, size_t count, void *out)
{
    memcpy(out, buf, t->size * count);
}

void mpi_type_unpack(const mpi_type_t *t, const void *in, size_t count, void *buf)
{
    memcpy(buf, in, t->size * count);
}

int mpi_type_basic_count(const mpi_type_t *t, size_t nbytes, MPI_Count *basic_p)
{
    *basic_p = (MPI_Count)(nbytes / t->size);
    return (int)(nbytes / t->size);
}

rcmsg_datatype_t mpi_type_rcmsg(const mpi_type_t *t, bool *ok_p)
{
    (void)t;
    *ok_p = false;
    return RCMSG_INT8;
}

int MPI_Type_size(MPI_Datatype datatype, int *size)
{
    mpi_type_t *t = mpi_type_get(datatype);

    if (t == NULL) {
        return mpi_err(NULL, "MPI_Type_size", MPI_ERR_TYPE, "invalid datatype");
    }
    *size = (int)t->size;
    return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    mpi_type_t *t = mpi_type_get(datatype);

    if (t == NULL) {
        return mpi_err(NULL, "MPI_Type_get_extent", MPI_ERR_TYPE, "invalid datatype");
    }
    *lb = 0;
    *extent = (MPI_Aint)t->size;
    return MPI_SUCCESS;
}

int MPI_Type_commit(MPI_Datatype *datatype)
{
    if (datatype == NULL || mpi_type_get(*datatype) == NULL) {
        return mpi_err(NULL, "MPI_Type_commit", MPI_ERR_TYPE, "invalid datatype");
    }
    return MPI_SUCCESS;
}
