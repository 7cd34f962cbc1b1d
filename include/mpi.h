/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rcmsg's MPI face: the subset of MPI (C bindings) that librcmsg_mpi implements over the
 * public rcmsg.h. Build programs with rcmsg-mpicc (see docs/mpi.md).
 *
 * Conventions follow MPICH's where MPI leaves the choice free: handles are integers
 * (typedef int MPI_Comm, ...), MPI_Status is MPICH's struct (count_lo, count_hi_and_cancelled,
 * MPI_SOURCE, MPI_TAG, MPI_ERROR), MPI_Aint is intptr_t, MPI_Count and MPI_Offset are long
 * long. The handle VALUES and constants are rcmsg's own: this is not ABI-compatible with
 * MPICH binaries; programs are rebuilt with rcmsg-mpicc.
 *
 * Only what is implemented is declared: a call outside the subset (I/O, dynamic
 * processes, ...) fails to compile (undeclared) or to link. Every thread level is
 * provided, MPI_THREAD_MULTIPLE included (rcmsg's thread model: docs/threads.md).
 *
 * Handle encoding: a null handle is 0 for every kind (so a zeroed array of requests is an
 * array of MPI_REQUEST_NULL); a valid handle is (kind << 24) | index.
 */
#ifndef RCMSG_MPI_H
#define RCMSG_MPI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_API __attribute__((visibility("default")))

#define MPI_VERSION    3
#define MPI_SUBVERSION 1

/* ---- handles ------------------------------------------------------------------------------ */
typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Group;
typedef int MPI_Errhandler;
typedef int MPI_Message;

typedef intptr_t MPI_Aint;
typedef long long MPI_Count;
typedef long long MPI_Offset;

#define MPI_HANDLE_KIND_SHIFT    24
#define MPI_HANDLE_(kind, index) ((int)(((kind) << MPI_HANDLE_KIND_SHIFT) | (index)))
/* handle kinds (the top bits of a valid handle) */
#define MPI_KIND_COMM_       1
#define MPI_KIND_GROUP_      2
#define MPI_KIND_DATATYPE_   3
#define MPI_KIND_REQUEST_    4
#define MPI_KIND_OP_         5
#define MPI_KIND_ERRHANDLER_ 6
#define MPI_KIND_MESSAGE_    7

#define MPI_COMM_NULL       ((MPI_Comm)0)
#define MPI_COMM_WORLD      ((MPI_Comm)MPI_HANDLE_(MPI_KIND_COMM_, 0))
#define MPI_COMM_SELF       ((MPI_Comm)MPI_HANDLE_(MPI_KIND_COMM_, 1))
#define MPI_GROUP_NULL      ((MPI_Group)0)
#define MPI_DATATYPE_NULL   ((MPI_Datatype)0)
#define MPI_REQUEST_NULL    ((MPI_Request)0)
#define MPI_OP_NULL         ((MPI_Op)0)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_MESSAGE_NULL    ((MPI_Message)0)
/* Mprobe/Improbe of MPI_PROC_NULL: Mrecv of it completes at once as a receive from PROC_NULL */
#define MPI_MESSAGE_NO_PROC ((MPI_Message)MPI_HANDLE_(MPI_KIND_MESSAGE_, 0xffffff))

#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)MPI_HANDLE_(MPI_KIND_ERRHANDLER_, 0))
#define MPI_ERRORS_RETURN    ((MPI_Errhandler)MPI_HANDLE_(MPI_KIND_ERRHANDLER_, 1))

/* ---- constants ---------------------------------------------------------------------------- */
#define MPI_ANY_SOURCE (-1)
#define MPI_PROC_NULL  (-2)
#define MPI_ROOT       (-3)
#define MPI_ANY_TAG    (-1)
#define MPI_UNDEFINED  (-32766)

/* array orders of MPI_Type_create_subarray */
#define MPI_ORDER_C       56
#define MPI_ORDER_FORTRAN 57

#define MPI_BOTTOM   ((void *)0)
#define MPI_IN_PLACE ((void *)-1)

#define MPI_MAX_PROCESSOR_NAME         256
#define MPI_MAX_ERROR_STRING           512
#define MPI_MAX_OBJECT_NAME            128
#define MPI_MAX_LIBRARY_VERSION_STRING 256

/* bytes Bsend takes from the attached buffer beyond the packed data, per message */
#define MPI_BSEND_OVERHEAD 64

/* results of MPI_Comm_compare (and, later, MPI_Group_compare) */
#define MPI_IDENT     0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR   2
#define MPI_UNEQUAL   3

#define MPI_THREAD_SINGLE     0
#define MPI_THREAD_FUNNELED   1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE   3

/* predefined attribute keys of MPI_COMM_WORLD (MPI_Comm_get_attr) */
#define MPI_KEYVAL_INVALID  0
#define MPI_TAG_UB          1
#define MPI_HOST            2
#define MPI_IO              3
#define MPI_WTIME_IS_GLOBAL 4

/* ---- status ------------------------------------------------------------------------------- */
typedef struct MPI_Status {
    int count_lo;               /* bytes received, low 32 bits */
    int count_hi_and_cancelled; /* bit 0: cancelled; the rest: bytes >> 32 */
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
} MPI_Status;

#define MPI_STATUS_IGNORE   ((MPI_Status *)1)
#define MPI_STATUSES_IGNORE ((MPI_Status *)1)

/* ---- error classes ------------------------------------------------------------------------
 * An error code is its class, + 256 * n where n names the rcmsg status that caused it, +
 * 8192 * m where m names the specific message of an error the library raised or noted (a
 * returned code, a status's MPI_ERROR: MPI_Error_string then gives what MPI_ERRORS_ARE_FATAL
 * would have printed, e.g. "MPI_Send: negative count -1"). Compare classes, not codes:
 * MPI_Error_class gives the class. */
#define MPI_SUCCESS                   0
#define MPI_ERR_BUFFER                1
#define MPI_ERR_COUNT                 2
#define MPI_ERR_TYPE                  3
#define MPI_ERR_TAG                   4
#define MPI_ERR_COMM                  5
#define MPI_ERR_RANK                  6
#define MPI_ERR_ROOT                  7
#define MPI_ERR_GROUP                 8
#define MPI_ERR_OP                    9
#define MPI_ERR_TOPOLOGY              10
#define MPI_ERR_DIMS                  11
#define MPI_ERR_ARG                   12
#define MPI_ERR_UNKNOWN               13
#define MPI_ERR_TRUNCATE              14
#define MPI_ERR_OTHER                 15
#define MPI_ERR_INTERN                16
#define MPI_ERR_IN_STATUS             17
#define MPI_ERR_PENDING               18
#define MPI_ERR_REQUEST               19
#define MPI_ERR_KEYVAL                20
#define MPI_ERR_NO_MEM                21
#define MPI_ERR_UNSUPPORTED_OPERATION 22
#define MPI_ERR_PROC_ABORTED          23
#define MPI_ERR_INFO_KEY              24
#define MPI_ERR_INFO_VALUE            25
#define MPI_ERR_INFO_NOKEY            26
#define MPI_ERR_INFO                  27
#define MPI_ERR_LASTCODE              0x3fffffff

/* The classes MPI-3.1 8.4 defines for I/O and dynamic processes (outside the subset: no call
 * raises them, but each is a class Error_class and Error_string know), and MPI_ERR_CONVERSION,
 * which Pack_external / Unpack_external raise for a value external32 cannot hold. */
#define MPI_ERR_FILE                40
#define MPI_ERR_NOT_SAME            41
#define MPI_ERR_AMODE               42
#define MPI_ERR_UNSUPPORTED_DATAREP 43
#define MPI_ERR_NO_SUCH_FILE        44
#define MPI_ERR_FILE_EXISTS         45
#define MPI_ERR_BAD_FILE            46
#define MPI_ERR_ACCESS              47
#define MPI_ERR_NO_SPACE            48
#define MPI_ERR_QUOTA               49
#define MPI_ERR_READ_ONLY           50
#define MPI_ERR_FILE_IN_USE         51
#define MPI_ERR_DUP_DATAREP         52
#define MPI_ERR_CONVERSION          53
#define MPI_ERR_IO                  54
#define MPI_ERR_SPAWN               55
#define MPI_ERR_PORT                56
#define MPI_ERR_SERVICE             57
#define MPI_ERR_NAME                58

/* ---- predefined datatypes ---------------------------------------
 * Values: MPI_HANDLE_(MPI_KIND_DATATYPE_, n) with n the index in mpi_type.c's table. */
#define MPI_DT_(n)                ((MPI_Datatype)MPI_HANDLE_(MPI_KIND_DATATYPE_, (n)))
#define MPI_CHAR                  MPI_DT_(1)
#define MPI_SIGNED_CHAR           MPI_DT_(2)
#define MPI_UNSIGNED_CHAR         MPI_DT_(3)
#define MPI_BYTE                  MPI_DT_(4)
#define MPI_WCHAR                 MPI_DT_(5)
#define MPI_SHORT                 MPI_DT_(6)
#define MPI_UNSIGNED_SHORT        MPI_DT_(7)
#define MPI_INT                   MPI_DT_(8)
#define MPI_UNSIGNED              MPI_DT_(9)
#define MPI_LONG                  MPI_DT_(10)
#define MPI_UNSIGNED_LONG         MPI_DT_(11)
#define MPI_LONG_LONG_INT         MPI_DT_(12)
#define MPI_LONG_LONG             MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG    MPI_DT_(13)
#define MPI_FLOAT                 MPI_DT_(14)
#define MPI_DOUBLE                MPI_DT_(15)
#define MPI_LONG_DOUBLE           MPI_DT_(16)
#define MPI_C_BOOL                MPI_DT_(17)
#define MPI_INT8_T                MPI_DT_(18)
#define MPI_INT16_T               MPI_DT_(19)
#define MPI_INT32_T               MPI_DT_(20)
#define MPI_INT64_T               MPI_DT_(21)
#define MPI_UINT8_T               MPI_DT_(22)
#define MPI_UINT16_T              MPI_DT_(23)
#define MPI_UINT32_T              MPI_DT_(24)
#define MPI_UINT64_T              MPI_DT_(25)
#define MPI_AINT                  MPI_DT_(26)
#define MPI_COUNT                 MPI_DT_(27)
#define MPI_OFFSET                MPI_DT_(28)
#define MPI_C_FLOAT_COMPLEX       MPI_DT_(29)
#define MPI_C_COMPLEX             MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX      MPI_DT_(30)
#define MPI_C_LONG_DOUBLE_COMPLEX MPI_DT_(31)
#define MPI_PACKED                MPI_DT_(32)
#define MPI_FLOAT_INT             MPI_DT_(33)
#define MPI_DOUBLE_INT            MPI_DT_(34)
#define MPI_LONG_INT              MPI_DT_(35)
#define MPI_2INT                  MPI_DT_(36)
#define MPI_SHORT_INT             MPI_DT_(37)
#define MPI_LONG_DOUBLE_INT       MPI_DT_(38)
/* The Fortran types, for C programs that exchange data with Fortran (MPI-3.1 3.2.2, 5.9.2,
 * 5.9.4; there is no Fortran binding): the layout of gfortran's default kinds (INTEGER and
 * LOGICAL 4 bytes, REAL float, DOUBLE PRECISION double, COMPLEX two floats, .TRUE. is 1). The
 * sized types whose Fortran kind has no C type here (gfortran's real(16) is IEEE binary128,
 * not x87's long double; real(2); integer(16)) are MPI_DATATYPE_NULL, as in MPICH. */
#define MPI_CHARACTER            MPI_DT_(39)
#define MPI_INTEGER              MPI_DT_(40)
#define MPI_REAL                 MPI_DT_(41)
#define MPI_DOUBLE_PRECISION     MPI_DT_(42)
#define MPI_COMPLEX              MPI_DT_(43)
#define MPI_DOUBLE_COMPLEX       MPI_DT_(44)
#define MPI_LOGICAL              MPI_DT_(45)
#define MPI_INTEGER1             MPI_DT_(46)
#define MPI_INTEGER2             MPI_DT_(47)
#define MPI_INTEGER4             MPI_DT_(48)
#define MPI_INTEGER8             MPI_DT_(49)
#define MPI_REAL4                MPI_DT_(50)
#define MPI_REAL8                MPI_DT_(51)
#define MPI_COMPLEX8             MPI_DT_(52)
#define MPI_COMPLEX16            MPI_DT_(53)
#define MPI_LOGICAL1             MPI_DT_(54)
#define MPI_LOGICAL2             MPI_DT_(55)
#define MPI_LOGICAL4             MPI_DT_(56)
#define MPI_LOGICAL8             MPI_DT_(57)
#define MPI_2INTEGER             MPI_DT_(58)
#define MPI_2REAL                MPI_DT_(59)
#define MPI_2DOUBLE_PRECISION    MPI_DT_(60)
#define MPI_INTEGER16            MPI_DATATYPE_NULL
#define MPI_REAL2                MPI_DATATYPE_NULL
#define MPI_REAL16               MPI_DATATYPE_NULL
#define MPI_COMPLEX4             MPI_DATATYPE_NULL
#define MPI_COMPLEX32            MPI_DATATYPE_NULL
#define MPI_DT_PREDEFINED_COUNT_ 61 /* indices 1..60; derived types come after */

/* ---- environment -------------------------------------------------------------------------- */
MPI_API int MPI_Init(int *argc, char ***argv);
MPI_API int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
MPI_API int MPI_Finalize(void);
MPI_API int MPI_Initialized(int *flag);
MPI_API int MPI_Finalized(int *flag);
MPI_API int MPI_Query_thread(int *provided);
MPI_API int MPI_Is_thread_main(int *flag);
MPI_API int MPI_Abort(MPI_Comm comm, int errorcode);
MPI_API double MPI_Wtime(void);
MPI_API double MPI_Wtick(void);
MPI_API int MPI_Get_processor_name(char *name, int *resultlen);
MPI_API int MPI_Get_version(int *version, int *subversion);
MPI_API int MPI_Get_library_version(char *version, int *resultlen);
MPI_API int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag);
MPI_API int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag);

/* ---- errors ------------------------------------------------------------------------------- */
typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *errcode, ...);
MPI_API int MPI_Error_class(int errorcode, int *errorclass);
MPI_API int MPI_Error_string(int errorcode, char *string, int *resultlen);
MPI_API int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function,
                                       MPI_Errhandler *errhandler);
MPI_API int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
MPI_API int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
MPI_API int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
MPI_API int MPI_Errhandler_free(MPI_Errhandler *errhandler);

/* ---- communicators ------------------------------------------------------------------------ */
MPI_API int MPI_Comm_rank(MPI_Comm comm, int *rank);
MPI_API int MPI_Comm_size(MPI_Comm comm, int *size);
MPI_API int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
MPI_API int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
MPI_API int MPI_Comm_free(MPI_Comm *comm);
/* of any communicator (MPI-3.1 10.5.4): a barrier of its members, then Comm_free; with its PMPI_
 * name */
MPI_API int MPI_Comm_disconnect(MPI_Comm *comm);
MPI_API int PMPI_Comm_disconnect(MPI_Comm *comm);
MPI_API int MPI_Comm_get_parent(MPI_Comm *parent);
MPI_API int PMPI_Comm_get_parent(MPI_Comm *parent);
MPI_API int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result);
MPI_API int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name);
MPI_API int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen);

/* ---- point-to-point ----------------------------------------------------------------------- */
MPI_API int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm);
MPI_API int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm);
MPI_API int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm);
MPI_API int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm);
MPI_API int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request);
MPI_API int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm, MPI_Request *request);
MPI_API int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm, MPI_Request *request);
MPI_API int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm, MPI_Request *request);
MPI_API int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm, MPI_Status *status);
MPI_API int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                      MPI_Comm comm, MPI_Request *request);
MPI_API int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                         int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status);
MPI_API int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                                 int source, int recvtag, MPI_Comm comm, MPI_Status *status);
MPI_API int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
MPI_API int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
MPI_API int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
                       MPI_Status *status);
MPI_API int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                        MPI_Status *status);
MPI_API int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                      MPI_Status *status);
MPI_API int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                       MPI_Request *request);
MPI_API int MPI_Buffer_attach(void *buffer, int size);
MPI_API int MPI_Buffer_detach(void *buffer_addr, int *size);
MPI_API int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);
MPI_API int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count);
MPI_API int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);

/* ---- requests ----------------------------------------------------------------------------- */
MPI_API int MPI_Wait(MPI_Request *request, MPI_Status *status);
MPI_API int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
MPI_API int MPI_Waitany(int count, MPI_Request *array_of_requests, int *index, MPI_Status *status);
MPI_API int MPI_Testany(int count, MPI_Request *array_of_requests, int *index, int *flag,
                        MPI_Status *status);
MPI_API int MPI_Waitall(int count, MPI_Request *array_of_requests, MPI_Status *array_of_statuses);
MPI_API int MPI_Testall(int count, MPI_Request *array_of_requests, int *flag,
                        MPI_Status *array_of_statuses);
MPI_API int MPI_Waitsome(int incount, MPI_Request *array_of_requests, int *outcount,
                         int array_of_indices[], MPI_Status *array_of_statuses);
MPI_API int MPI_Testsome(int incount, MPI_Request *array_of_requests, int *outcount,
                         int array_of_indices[], MPI_Status *array_of_statuses);
MPI_API int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);
MPI_API int MPI_Request_free(MPI_Request *request);
MPI_API int MPI_Cancel(MPI_Request *request);
MPI_API int MPI_Test_cancelled(const MPI_Status *status, int *flag);
MPI_API int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm, MPI_Request *request);
MPI_API int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm, MPI_Request *request);
MPI_API int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm, MPI_Request *request);
MPI_API int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm, MPI_Request *request);
MPI_API int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                          MPI_Comm comm, MPI_Request *request);
MPI_API int MPI_Start(MPI_Request *request);
MPI_API int MPI_Startall(int count, MPI_Request *array_of_requests);

/* ---- datatypes -------------------------------------------------- */
MPI_API int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype);
MPI_API int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype);
MPI_API int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                                    MPI_Datatype oldtype, MPI_Datatype *newtype);
MPI_API int MPI_Type_indexed(int count, const int array_of_blocklengths[],
                             const int array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
MPI_API int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                                     const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype);
MPI_API int MPI_Type_create_indexed_block(int count, int blocklength,
                                          const int array_of_displacements[], MPI_Datatype oldtype,
                                          MPI_Datatype *newtype);
MPI_API int MPI_Type_create_hindexed_block(int count, int blocklength,
                                           const MPI_Aint array_of_displacements[],
                                           MPI_Datatype oldtype, MPI_Datatype *newtype);
MPI_API int MPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                                     const int array_of_subsizes[], const int array_of_starts[],
                                     int order, MPI_Datatype oldtype, MPI_Datatype *newtype);
MPI_API int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
                                   const MPI_Aint array_of_displacements[],
                                   const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
MPI_API int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                    MPI_Datatype *newtype);
MPI_API int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype);
MPI_API int MPI_Type_commit(MPI_Datatype *datatype);
MPI_API int MPI_Type_free(MPI_Datatype *datatype);
MPI_API int MPI_Type_size(MPI_Datatype datatype, int *size);
MPI_API int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size);
MPI_API int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent);
MPI_API int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
                                     MPI_Aint *true_extent);
MPI_API int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
MPI_API int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                                       MPI_Count *true_extent);
MPI_API int MPI_Get_address(const void *location, MPI_Aint *address);
MPI_API int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
                     int outsize, int *position, MPI_Comm comm);
MPI_API int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                       MPI_Datatype datatype, MPI_Comm comm);
MPI_API int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size);
/* datarep "external32" only (MPI-3.1 13.5.2): big-endian, the standard's sizes; with their
 * PMPI_ names */
MPI_API int MPI_Pack_external(const char datarep[], const void *inbuf, int incount,
                              MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                              MPI_Aint *position);
MPI_API int MPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                                MPI_Aint *position, void *outbuf, int outcount,
                                MPI_Datatype datatype);
MPI_API int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                                   MPI_Aint *size);
MPI_API int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount,
                               MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                               MPI_Aint *position);
MPI_API int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                                 MPI_Aint *position, void *outbuf, int outcount,
                                 MPI_Datatype datatype);
MPI_API int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                                    MPI_Aint *size);

/* ---- operations and blocking collectives ---------------------------------------------- */
/* Reduction operations. Values: MPI_HANDLE_(MPI_KIND_OP_, n), n the index in mpi_op.c's
 * table; user operations (MPI_Op_create) come after. A predefined operation is defined on the
 * predefined types the MPI standard names for it (MPI_CHAR, MPI_WCHAR and MPI_PACKED on
 * none), and on derived types made of one such type. */
typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
#define MPI_OP_(n)               ((MPI_Op)MPI_HANDLE_(MPI_KIND_OP_, (n)))
#define MPI_MAX                  MPI_OP_(1)
#define MPI_MIN                  MPI_OP_(2)
#define MPI_SUM                  MPI_OP_(3)
#define MPI_PROD                 MPI_OP_(4)
#define MPI_LAND                 MPI_OP_(5)
#define MPI_BAND                 MPI_OP_(6)
#define MPI_LOR                  MPI_OP_(7)
#define MPI_BOR                  MPI_OP_(8)
#define MPI_LXOR                 MPI_OP_(9)
#define MPI_BXOR                 MPI_OP_(10)
#define MPI_MINLOC               MPI_OP_(11)
#define MPI_MAXLOC               MPI_OP_(12)
#define MPI_OP_PREDEFINED_COUNT_ 13 /* indices 1..12 */

MPI_API int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op);
MPI_API int MPI_Op_free(MPI_Op *op);
MPI_API int MPI_Op_commutative(MPI_Op op, int *commute);
MPI_API int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                             MPI_Op op);

/* Blocking collectives (intracommunicators). MPI_IN_PLACE where MPI allows it. */
MPI_API int MPI_Barrier(MPI_Comm comm);
MPI_API int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
MPI_API int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, int root, MPI_Comm comm);
MPI_API int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm);
MPI_API int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
MPI_API int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int *recvcounts, const int *displs, MPI_Datatype recvtype, int root,
                        MPI_Comm comm);
MPI_API int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
MPI_API int MPI_Scatterv(const void *sendbuf, const int *sendcounts, const int *displs,
                         MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                         int root, MPI_Comm comm);
MPI_API int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
MPI_API int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                           MPI_Comm comm);
MPI_API int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
MPI_API int MPI_Alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
                          MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                          const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm);
MPI_API int MPI_Alltoallw(const void *sendbuf, const int *sendcounts, const int *sdispls,
                          const MPI_Datatype *sendtypes, void *recvbuf, const int *recvcounts,
                          const int *rdispls, const MPI_Datatype *recvtypes, MPI_Comm comm);
MPI_API int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
MPI_API int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int *recvcounts,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
MPI_API int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm);
MPI_API int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm);

/* ---- nonblocking collectives ---------------------------------------------------------- */
/* Progressed by the MPI calls that test or wait (and by blocking point-to-point calls while
 * one is active), as schedules: no thread. Their requests can be neither cancelled nor freed
 * (as MPI says). */
MPI_API int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request);
MPI_API int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                       MPI_Request *request);
MPI_API int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                        MPI_Request *request);
MPI_API int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                         MPI_Request *request);
MPI_API int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *request);
MPI_API int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Request *request);
MPI_API int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, int root, MPI_Comm comm, MPI_Request *request);
MPI_API int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, MPI_Request *request);
MPI_API int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                      MPI_Request *request);
MPI_API int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, MPI_Request *request);

/* ---- groups, communicators, attributes, intercommunicators ---------------------------- */
typedef int MPI_Info; /* info objects: MPI_Info_create, ... (below) */
#define MPI_INFO_NULL        ((MPI_Info)0)
#define MPI_GROUP_EMPTY      ((MPI_Group)MPI_HANDLE_(MPI_KIND_GROUP_, 0))
#define MPI_COMM_TYPE_SHARED 1 /* Comm_split_type: the ranks of one node (host name) */
/* MPI-4.0: HW_UNGUIDED: the node's ranks when comm spans several nodes, else MPI_COMM_NULL (no
 * finer domain is known); HW_GUIDED: info "mpi_hw_resource_type" = "mpi_shared_memory" (as
 * SHARED), MPI_COMM_NULL for any other value or none */
#define MPI_COMM_TYPE_HW_UNGUIDED 2
#define MPI_COMM_TYPE_HW_GUIDED   3

typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                          void *extra_state);
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;
MPI_API int rcmsg_mpi_null_copy_fn(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                   void *attribute_val_in, void *attribute_val_out, int *flag);
MPI_API int rcmsg_mpi_dup_fn(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                             void *attribute_val_in, void *attribute_val_out, int *flag);
MPI_API int rcmsg_mpi_null_delete_fn(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                     void *extra_state);
#define MPI_COMM_NULL_COPY_FN   rcmsg_mpi_null_copy_fn
#define MPI_COMM_DUP_FN         rcmsg_mpi_dup_fn
#define MPI_COMM_NULL_DELETE_FN rcmsg_mpi_null_delete_fn
#define MPI_NULL_COPY_FN        rcmsg_mpi_null_copy_fn
#define MPI_DUP_FN              rcmsg_mpi_dup_fn
#define MPI_NULL_DELETE_FN      rcmsg_mpi_null_delete_fn

MPI_API int MPI_Comm_group(MPI_Comm comm, MPI_Group *group);
MPI_API int MPI_Group_size(MPI_Group group, int *size);
MPI_API int MPI_Group_rank(MPI_Group group, int *rank);
MPI_API int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
MPI_API int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
MPI_API int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
MPI_API int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
MPI_API int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
MPI_API int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
MPI_API int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
MPI_API int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                                      int ranks2[]);
MPI_API int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result);
MPI_API int MPI_Group_free(MPI_Group *group);
MPI_API int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
MPI_API int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm);
MPI_API int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                                MPI_Comm *newcomm);
MPI_API int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request);

MPI_API int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                                   MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                                   int *comm_keyval, void *extra_state);
MPI_API int MPI_Comm_free_keyval(int *comm_keyval);
MPI_API int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val);
MPI_API int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval);
MPI_API int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn,
                              int *keyval, void *extra_state);
MPI_API int MPI_Keyval_free(int *keyval);
MPI_API int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val);
MPI_API int MPI_Attr_delete(MPI_Comm comm, int keyval);

MPI_API int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                                 int remote_leader, int tag, MPI_Comm *newintercomm);
MPI_API int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm);
MPI_API int MPI_Comm_test_inter(MPI_Comm comm, int *flag);
MPI_API int MPI_Comm_remote_size(MPI_Comm comm, int *size);
MPI_API int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group);

/* ports (MPI-3.1 10.4) and Comm_join (10.5.4) among the processes of this job (a port names one
 * of them; no names service, no process spawned); with their PMPI_ names */
#define MPI_MAX_PORT_NAME 256
MPI_API int MPI_Open_port(MPI_Info info, char *port_name);
MPI_API int PMPI_Open_port(MPI_Info info, char *port_name);
MPI_API int MPI_Close_port(const char *port_name);
MPI_API int PMPI_Close_port(const char *port_name);
MPI_API int MPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                            MPI_Comm *newcomm);
MPI_API int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                             MPI_Comm *newcomm);
MPI_API int MPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                             MPI_Comm *newcomm);
MPI_API int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                              MPI_Comm *newcomm);
MPI_API int MPI_Comm_join(int fd, MPI_Comm *intercomm);
MPI_API int PMPI_Comm_join(int fd, MPI_Comm *intercomm);

/* ---- issue 43 item 1: predefined attributes, info, type envelopes and names, darray,
 * generalized requests, status setters, error classes, memory, handle conversions, the
 * deprecated names MPI-3.1 (or MPICH) still defines, nonblocking v-collectives ---------------- */
#define MPI_KIND_INFO_   10 /* info objects: MPI_INFO_ENV is index 1 */
#define MPI_INFO_ENV     ((MPI_Info)MPI_HANDLE_(MPI_KIND_INFO_, 1))
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024

/* more predefined attribute keys (on every communicator): MPI_UNIVERSE_SIZE (the job's size:
 * no dynamic processes), MPI_APPNUM (0), MPI_LASTUSEDCODE (the largest error code or class
 * MPI_Add_error_class/code gave, MPI_ERR_LASTCODE before any) */
#define MPI_UNIVERSE_SIZE 5
#define MPI_APPNUM        6
#define MPI_LASTUSEDCODE  7

typedef int MPI_Fint;
#define MPI_F_STATUS_SIZE 5
#define MPI_F_SOURCE      2
#define MPI_F_TAG         3
#define MPI_F_ERROR       4

/* MPI_Type_get_envelope's combiners */
#define MPI_COMBINER_NAMED            1
#define MPI_COMBINER_DUP              2
#define MPI_COMBINER_CONTIGUOUS       3
#define MPI_COMBINER_VECTOR           4
#define MPI_COMBINER_HVECTOR_INTEGER  5
#define MPI_COMBINER_HVECTOR          6
#define MPI_COMBINER_INDEXED          7
#define MPI_COMBINER_HINDEXED_INTEGER 8
#define MPI_COMBINER_HINDEXED         9
#define MPI_COMBINER_INDEXED_BLOCK    10
#define MPI_COMBINER_HINDEXED_BLOCK   11
#define MPI_COMBINER_STRUCT_INTEGER   12
#define MPI_COMBINER_STRUCT           13
#define MPI_COMBINER_SUBARRAY         14
#define MPI_COMBINER_DARRAY           15
#define MPI_COMBINER_F90_REAL         16
#define MPI_COMBINER_F90_COMPLEX      17
#define MPI_COMBINER_F90_INTEGER      18
#define MPI_COMBINER_RESIZED          19

/* MPI_Type_create_darray's distributions */
#define MPI_DISTRIBUTE_BLOCK     121
#define MPI_DISTRIBUTE_CYCLIC    122
#define MPI_DISTRIBUTE_NONE      123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

/* MPI_Type_match_size's classes */
#define MPI_TYPECLASS_REAL    1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3
/* the C type of the kind Fortran's selected_int_kind(r) / selected_real_kind(p, r) picks (MPI
 * calls it predefined: combiner MPI_COMBINER_F90_*, not freed; the same handle for the same
 * arguments); with their PMPI_ names */
MPI_API int MPI_Type_create_f90_integer(int r, MPI_Datatype *newtype);
MPI_API int MPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype);
MPI_API int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype);
MPI_API int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype);
MPI_API int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype);
MPI_API int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype);

MPI_API int MPI_Info_create(MPI_Info *info);
MPI_API int MPI_Info_set(MPI_Info info, const char *key, const char *value);
MPI_API int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag);
MPI_API int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag);
MPI_API int MPI_Info_get_nkeys(MPI_Info info, int *nkeys);
MPI_API int MPI_Info_get_nthkey(MPI_Info info, int n, char *key);
MPI_API int MPI_Info_delete(MPI_Info info, const char *key);
MPI_API int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo);
MPI_API int MPI_Info_free(MPI_Info *info);
/* MPI-4.0: *buflen in: room at value; out: the value's length + 1 (value cut to fit, null
 * ended); an absent key leaves value and *buflen. Create_env: MPI_INFO_ENV's keys (maxprocs,
 * host, arch, wdir, thread_level) and command / argv from the arguments (argv may be NULL).
 * Each with its profiling name (PMPI_: the same function). */
MPI_API int MPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value,
                                int *flag);
MPI_API int MPI_Info_create_env(int argc, char *argv[], MPI_Info *info);
MPI_API int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value,
                                 int *flag);
MPI_API int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info);
MPI_API int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info);
MPI_API int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used);
MPI_API int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm);
/* MPI-4.0's nonblocking form (the info checked, its hints not read), as MPI_Comm_idup */
MPI_API int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                                    MPI_Request *request);

MPI_API int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                                  int *num_datatypes, int *combiner);
MPI_API int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                                  int max_datatypes, int array_of_integers[],
                                  MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]);
MPI_API int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name);
MPI_API int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen);
MPI_API int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                                   const int array_of_distribs[], const int array_of_dargs[],
                                   const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                   MPI_Datatype *newtype);
MPI_API int MPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype);

/* attributes of datatypes: copied by Type_dup (copy callback), deleted by Type_free */
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval,
                                          void *attribute_val, void *extra_state);
MPI_API int rcmsg_mpi_type_null_copy_fn(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
MPI_API int rcmsg_mpi_type_dup_fn(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                                  void *attribute_val_in, void *attribute_val_out, int *flag);
MPI_API int rcmsg_mpi_type_null_delete_fn(MPI_Datatype datatype, int type_keyval,
                                          void *attribute_val, void *extra_state);
#define MPI_TYPE_NULL_COPY_FN   rcmsg_mpi_type_null_copy_fn
#define MPI_TYPE_DUP_FN         rcmsg_mpi_type_dup_fn
#define MPI_TYPE_NULL_DELETE_FN rcmsg_mpi_type_null_delete_fn
MPI_API int MPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                                   MPI_Type_delete_attr_function *type_delete_attr_fn,
                                   int *type_keyval, void *extra_state);
MPI_API int MPI_Type_free_keyval(int *type_keyval);
MPI_API int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val);
MPI_API int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val,
                              int *flag);
MPI_API int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval);

typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);
MPI_API int MPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                               MPI_Grequest_free_function *free_fn,
                               MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                               MPI_Request *request);
MPI_API int MPI_Grequest_complete(MPI_Request request);
MPI_API int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count);
MPI_API int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);
MPI_API int MPI_Status_set_cancelled(MPI_Status *status, int flag);

MPI_API int MPI_Add_error_class(int *errorclass);
MPI_API int MPI_Add_error_code(int errorclass, int *errorcode);
MPI_API int MPI_Add_error_string(int errorcode, const char *string);

MPI_API int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
MPI_API int MPI_Free_mem(void *base);
MPI_API MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_API MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);

/* Handle conversions: a Fortran handle is the C handle's value. */
MPI_API MPI_Fint MPI_Comm_c2f(MPI_Comm comm);
MPI_API MPI_Comm MPI_Comm_f2c(MPI_Fint comm);
MPI_API MPI_Fint MPI_Type_c2f(MPI_Datatype datatype);
MPI_API MPI_Datatype MPI_Type_f2c(MPI_Fint datatype);
MPI_API MPI_Fint MPI_Group_c2f(MPI_Group group);
MPI_API MPI_Group MPI_Group_f2c(MPI_Fint group);
MPI_API MPI_Fint MPI_Op_c2f(MPI_Op op);
MPI_API MPI_Op MPI_Op_f2c(MPI_Fint op);
MPI_API MPI_Fint MPI_Info_c2f(MPI_Info info);
MPI_API MPI_Info MPI_Info_f2c(MPI_Fint info);
MPI_API MPI_Fint MPI_Request_c2f(MPI_Request request);
MPI_API MPI_Request MPI_Request_f2c(MPI_Fint request);
MPI_API MPI_Fint MPI_Errhandler_c2f(MPI_Errhandler errhandler);
MPI_API MPI_Errhandler MPI_Errhandler_f2c(MPI_Fint errhandler);
MPI_API MPI_Fint MPI_Message_c2f(MPI_Message message);
MPI_API MPI_Message MPI_Message_f2c(MPI_Fint message);
/* their profiling names (the same functions; with Info_get_string / create_env's, the only
 * PMPI_ names here) */
MPI_API MPI_Fint PMPI_Comm_c2f(MPI_Comm comm);
MPI_API MPI_Comm PMPI_Comm_f2c(MPI_Fint comm);
MPI_API MPI_Fint PMPI_Type_c2f(MPI_Datatype datatype);
MPI_API MPI_Datatype PMPI_Type_f2c(MPI_Fint datatype);
MPI_API MPI_Fint PMPI_Group_c2f(MPI_Group group);
MPI_API MPI_Group PMPI_Group_f2c(MPI_Fint group);
MPI_API MPI_Fint PMPI_Op_c2f(MPI_Op op);
MPI_API MPI_Op PMPI_Op_f2c(MPI_Fint op);
MPI_API MPI_Fint PMPI_Info_c2f(MPI_Info info);
MPI_API MPI_Info PMPI_Info_f2c(MPI_Fint info);
MPI_API MPI_Fint PMPI_Request_c2f(MPI_Request request);
MPI_API MPI_Request PMPI_Request_f2c(MPI_Fint request);
MPI_API MPI_Fint PMPI_Errhandler_c2f(MPI_Errhandler errhandler);
MPI_API MPI_Errhandler PMPI_Errhandler_f2c(MPI_Fint errhandler);
MPI_API MPI_Fint PMPI_Message_c2f(MPI_Message message);
MPI_API MPI_Message PMPI_Message_f2c(MPI_Fint message);
MPI_API int MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);
MPI_API int MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);

/* Deprecated (MPI-2.0) or removed (MPI-3.0) names that MPICH still provides: the same as
 * their replacements (Type_extent: Type_get_extent's extent; Type_lb / Type_ub: lb, lb +
 * extent; Address: Get_address; Type_hvector / hindexed / struct: Type_create_*;
 * Errhandler_create / set / get: Comm_create_errhandler / set / get_errhandler). */
typedef MPI_Comm_errhandler_function MPI_Handler_function;
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
MPI_API int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent);
MPI_API int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement);
MPI_API int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement);
MPI_API int MPI_Address(void *location, MPI_Aint *address);
MPI_API int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
MPI_API int MPI_Type_hindexed(int count, int array_of_blocklengths[],
                              MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype);
MPI_API int MPI_Type_struct(int count, int array_of_blocklengths[],
                            MPI_Aint array_of_displacements[], MPI_Datatype array_of_types[],
                            MPI_Datatype *newtype);
MPI_API int MPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler);
MPI_API int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
MPI_API int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);

/* Nonblocking v-collectives and Iexscan (all but Iexscan over intercommunicators too) */
MPI_API int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         int root, MPI_Comm comm, MPI_Request *request);
MPI_API int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
MPI_API int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
MPI_API int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *request);
MPI_API int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                           MPI_Request *request);
MPI_API int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                MPI_Request *request);
MPI_API int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Request *request);

/* ---- persistent collectives and Isendrecv (MPI-4.0), each with its PMPI_ name -------------
 * A persistent collective's request is inactive after its init; MPI_Start / MPI_Startall run
 * the matching nonblocking collective on the buffers' contents of that moment (its arguments
 * are checked then, its errors name it: reported by the start or, by a start made before the
 * request's own communicator was agreed on, at its completion); a wait or test completes it
 * and leaves it inactive. A request is matched at its init (a communicator of its own, agreed
 * on from the init): starts may come in different orders on different ranks (over an
 * intercommunicator: in the same order).
 * Request_free of an inactive one frees it (of an active one: MPI_ERR_REQUEST, MPI calls it
 * erroneous); starting an active one: MPI_ERR_REQUEST. The info is checked, not read. The
 * program keeps the buffers and arrays until it frees the request. Isendrecv(_replace)
 * completes when both its send and its receive did; its status is the receive's. */
#define MPI_WITH_PMPI_(name, params)                                                               \
    MPI_API int MPI_##name params;                                                                 \
    MPI_API int PMPI_##name params
MPI_WITH_PMPI_(Barrier_init, (MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Bcast_init, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                            MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Gather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Gatherv_init,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Scatter_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                              MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Scatterv_init,
               (const void *sendbuf, const int sendcounts[], const int displs[],
                MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Allgather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Allgatherv_init,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Alltoall_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Alltoallv_init,
               (const void *sendbuf, const int sendcounts[], const int sdispls[],
                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Alltoallw_init,
               (const void *sendbuf, const int sendcounts[], const int sdispls[],
                const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                MPI_Request *request));
MPI_WITH_PMPI_(Reduce_init,
               (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Allreduce_init,
               (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Reduce_scatter_block_init,
               (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Reduce_scatter_init,
               (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Scan_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Exscan_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Isendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                           int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                           int source, int recvtag, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Isendrecv_replace,
               (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                int recvtag, MPI_Comm comm, MPI_Request *request));

/* ---- process topologies and neighborhood collectives ----------------------------------- */
/* MPI_Topo_test's answers (with MPI_UNDEFINED: no topology). Reorder is accepted and ignored:
 * a new topology's ranks are those of the old communicator (MPI allows it). The info argument
 * of the Dist_graph calls is not read. A topology is copied by MPI_Comm_dup (and Comm_idup);
 * a communicator made by any other call has none. */
#define MPI_GRAPH      1
#define MPI_CART       2
#define MPI_DIST_GRAPH 3
/* Dist_graph weights: none (on every rank); weighted, with no edge here. Addresses of the
 * library's own (never read nor written), as MPICH does. */
MPI_API extern int rcmsg_mpi_unweighted_[1];
MPI_API extern int rcmsg_mpi_weights_empty_[1];
#define MPI_UNWEIGHTED    (rcmsg_mpi_unweighted_)
#define MPI_WEIGHTS_EMPTY (rcmsg_mpi_weights_empty_)

MPI_API int MPI_Topo_test(MPI_Comm comm, int *status);
MPI_API int MPI_Dims_create(int nnodes, int ndims, int dims[]);
MPI_API int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                            int reorder, MPI_Comm *comm_cart);
MPI_API int MPI_Cartdim_get(MPI_Comm comm, int *ndims);
MPI_API int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]);
MPI_API int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank);
MPI_API int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]);
MPI_API int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source,
                           int *rank_dest);
MPI_API int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm);
MPI_API int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                         int *newrank);
MPI_API int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                             int reorder, MPI_Comm *comm_graph);
MPI_API int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges);
MPI_API int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]);
MPI_API int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors);
MPI_API int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]);
MPI_API int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                          int *newrank);
MPI_API int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                           const int sourceweights[], int outdegree,
                                           const int destinations[], const int destweights[],
                                           MPI_Info info, int reorder, MPI_Comm *comm_dist_graph);
MPI_API int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
                                  const int degrees[], const int destinations[],
                                  const int weights[], MPI_Info info, int reorder,
                                  MPI_Comm *comm_dist_graph);
MPI_API int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree,
                                           int *weighted);
MPI_API int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
                                     int sourceweights[], int maxoutdegree, int destinations[],
                                     int destweights[]);
/* Neighborhood collectives over a communicator's topology (MPI_ERR_TOPOLOGY without one):
 * blocks in the order of the topology's neighbors (Cart: per dimension the source, then the
 * destination of Cart_shift by 1; MPI_PROC_NULL neighbors move nothing and leave their
 * blocks untouched). MPI_IN_PLACE is not allowed. */
MPI_API int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm);
MPI_API int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, const int recvcounts[], const int displs[],
                                    MPI_Datatype recvtype, MPI_Comm comm);
MPI_API int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm);
MPI_API int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
MPI_API int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                   void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                   const MPI_Datatype recvtypes[], MPI_Comm comm);
MPI_API int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                    MPI_Comm comm, MPI_Request *request);
MPI_API int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                     void *recvbuf, const int recvcounts[], const int displs[],
                                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
MPI_API int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Request *request);
MPI_API int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                    const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                    const int recvcounts[], const int rdispls[],
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
MPI_API int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                    const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                    void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                    const MPI_Datatype recvtypes[], MPI_Comm comm,
                                    MPI_Request *request);
/* the persistent forms (MPI-4.0; as the persistent collectives above) */
MPI_WITH_PMPI_(Neighbor_allgather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                         void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                         MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Neighbor_allgatherv_init,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Neighbor_alltoall_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                        void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                        MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Neighbor_alltoallv_init,
               (const void *sendbuf, const int sendcounts[], const int sdispls[],
                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Neighbor_alltoallw_init,
               (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                MPI_Info info, MPI_Request *request));
#undef MPI_WITH_PMPI_

/* ---- one-sided communication (issue 43 item 3; docs/mpi.md "One-sided", docs/osc.md) ------
 * Windows over rcmsg.h's (rc: RDMA WRITE / READ; sm: CMA; self: memcpy). Accumulates,
 * Get_accumulate, Fetch_and_op and Compare_and_swap are applied by the target in its progress
 * (element-wise atomic with each other, the target's own too): a target must enter MPI (any
 * call that waits, a flush, a fence, an unlock) for them and for passive-target locks to be
 * served. Origin, result and target datatypes may be any (their type signatures must match:
 * MPI_ERR_TYPE). Win_flush_local is Win_flush (local completion is not told apart). Dynamic
 * windows (Win_create_dynamic, Win_attach / detach): target_disp is the target's address
 * (MPI_Get_address), disp_unit 1.
 * Rput / Rget / Raccumulate / Rget_accumulate, attributes of the program's keyvals, info and
 * error handlers: the block of mpi4py's names at the end. */
typedef int MPI_Win;
#define MPI_KIND_WIN_ 9
#define MPI_WIN_NULL  ((MPI_Win)0)
MPI_API MPI_Fint MPI_Win_c2f(MPI_Win win); /* (and PMPI_: the same functions) */
MPI_API MPI_Win MPI_Win_f2c(MPI_Fint win);
MPI_API MPI_Fint PMPI_Win_c2f(MPI_Win win);
MPI_API MPI_Win PMPI_Win_f2c(MPI_Fint win);

#define MPI_REPLACE MPI_OP_(0xfffe) /* accumulate: the target's element becomes the origin's */
#define MPI_NO_OP   MPI_OP_(0xfffd) /* get_accumulate: a read */

#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED    235
/* assertions (accepted; MPI_MODE_NOCHECK skips a lock's protocol) */
#define MPI_MODE_NOCHECK   1024
#define MPI_MODE_NOSTORE   2048
#define MPI_MODE_NOPUT     4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384

/* predefined window attributes (MPI_Win_get_attr) */
#define MPI_WIN_BASE            0x5701
#define MPI_WIN_SIZE            0x5702
#define MPI_WIN_DISP_UNIT       0x5703
#define MPI_WIN_CREATE_FLAVOR   0x5704
#define MPI_WIN_MODEL           0x5705
#define MPI_WIN_FLAVOR_CREATE   1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC  3
#define MPI_WIN_FLAVOR_SHARED   4
#define MPI_WIN_SEPARATE        1
#define MPI_WIN_UNIFIED         2

/* error classes of windows */
#define MPI_ERR_WIN          28
#define MPI_ERR_BASE         29
#define MPI_ERR_SIZE         30
#define MPI_ERR_DISP         31
#define MPI_ERR_LOCKTYPE     32
#define MPI_ERR_ASSERT       33
#define MPI_ERR_RMA_CONFLICT 34
#define MPI_ERR_RMA_SYNC     35
#define MPI_ERR_RMA_RANGE    36
#define MPI_ERR_RMA_ATTACH   37
#define MPI_ERR_RMA_SHARED   38
#define MPI_ERR_RMA_FLAVOR   39

MPI_API int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                           MPI_Win *win);
MPI_API int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win);
/* shared windows: the members on one node; each one's memory follows the rank before's */
MPI_API int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                    void *baseptr, MPI_Win *win);
MPI_API int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,
                                 void *baseptr);
/* dynamic windows (MPI-3.1 11.2.4): no memory at creation; each member attaches its own
 * regions, alone (overlapping ones: MPI_ERR_RMA_ATTACH; at most 1024); an access names the
 * target's address, inside the regions it attached (adjacent ones may be crossed; else
 * MPI_ERR_RMA_RANGE) */
MPI_API int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win);
MPI_API int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size);
MPI_API int MPI_Win_detach(MPI_Win win, const void *base);
MPI_API int MPI_Win_free(MPI_Win *win);
MPI_API int MPI_Win_get_group(MPI_Win win, MPI_Group *group);
MPI_API int MPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag);
MPI_API int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler);
MPI_API int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler);
MPI_API int MPI_Win_set_name(MPI_Win win, const char *win_name);
MPI_API int MPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen);
MPI_API int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Win win);
MPI_API int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Win win);
MPI_API int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                           int target_rank, MPI_Aint target_disp, int target_count,
                           MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
MPI_API int MPI_Get_accumulate(const void *origin_addr, int origin_count,
                               MPI_Datatype origin_datatype, void *result_addr, int result_count,
                               MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                               int target_count, MPI_Datatype target_datatype, MPI_Op op,
                               MPI_Win win);
MPI_API int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                             int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win);
MPI_API int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
                                 void *result_addr, MPI_Datatype datatype, int target_rank,
                                 MPI_Aint target_disp, MPI_Win win);
MPI_API int MPI_Win_fence(int assert, MPI_Win win);
MPI_API int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win);
MPI_API int MPI_Win_unlock(int rank, MPI_Win win);
MPI_API int MPI_Win_lock_all(int assert, MPI_Win win);
MPI_API int MPI_Win_unlock_all(MPI_Win win);
MPI_API int MPI_Win_flush(int rank, MPI_Win win);
MPI_API int MPI_Win_flush_all(MPI_Win win);
MPI_API int MPI_Win_flush_local(int rank, MPI_Win win);
MPI_API int MPI_Win_flush_local_all(MPI_Win win);
MPI_API int MPI_Win_sync(MPI_Win win);
MPI_API int MPI_Win_post(MPI_Group group, int assert, MPI_Win win);
MPI_API int MPI_Win_start(MPI_Group group, int assert, MPI_Win win);
MPI_API int MPI_Win_complete(MPI_Win win);
MPI_API int MPI_Win_wait(MPI_Win win);
MPI_API int MPI_Win_test(MPI_Win win, int *flag);
MPI_API int MPI_Win_call_errhandler(MPI_Win win, int errorcode);

/* ---- one-sided large counts (MPI-4.0 "_c" bindings), each with its PMPI_ name --------------
 * The int calls' own paths, their counts MPI_Count throughout: a count past INT_MAX moves (a
 * target's bytes must lie in its window: MPI_ERR_RMA_RANGE, the message with the whole count).
 * disp_unit is an MPI_Aint, at most INT_MAX in rcmsg (more: MPI_ERR_ARG naming the call and
 * the limit; MPI_WIN_DISP_UNIT's attribute is an int), so Win_shared_query_c and the int
 * Win_shared_query give the same. A negative count or size: MPI_ERR_COUNT / MPI_ERR_SIZE
 * naming the _c call. */
#define MPI_WITH_PMPI_(name, params)                                                               \
    MPI_API int MPI_##name params;                                                                 \
    MPI_API int PMPI_##name params
MPI_WITH_PMPI_(Win_create_c, (void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                              MPI_Comm comm, MPI_Win *win));
MPI_WITH_PMPI_(Win_allocate_c, (MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                void *baseptr, MPI_Win *win));
MPI_WITH_PMPI_(Win_allocate_shared_c, (MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                       MPI_Comm comm, void *baseptr, MPI_Win *win));
MPI_WITH_PMPI_(Win_shared_query_c,
               (MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr));
MPI_WITH_PMPI_(Put_c, (const void *origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win));
MPI_WITH_PMPI_(Get_c, (void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                       int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                       MPI_Datatype target_datatype, MPI_Win win));
MPI_WITH_PMPI_(Accumulate_c,
               (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Op op, MPI_Win win));
MPI_WITH_PMPI_(Get_accumulate_c,
               (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Op op, MPI_Win win));
MPI_WITH_PMPI_(Rput_c,
               (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request));
MPI_WITH_PMPI_(Rget_c, (void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                        MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request));
MPI_WITH_PMPI_(Raccumulate_c,
               (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request));
MPI_WITH_PMPI_(Rget_accumulate_c,
               (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request));
#undef MPI_WITH_PMPI_

/* ---- names Python's mpi4py declares (issue 43; contrib/mpi-clients/mpi4py-tests.sh) ----
 * Windows' attributes of the program's keyvals (only delete callbacks run: a window is never
 * copied), info (checked; Win_get_info: a new empty info, no hint is read), the program's
 * window error handlers (given the window), Win_c2f / f2c; the request-based operations (in
 * a lock epoch on the target; flushed before they return: their requests are complete at
 * once); Pcontrol (no profiling layer: it
 * does nothing); the Fortran status placeholders (refused by Status_c2f / f2c); the C++ types
 * (the C types of the same layout). */
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval, void *extra_state,
                                       void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval, void *attribute_val,
                                         void *extra_state);
#define MPI_WIN_NULL_COPY_FN   rcmsg_mpi_type_null_copy_fn /* MPI_Win and MPI_Datatype: int */
#define MPI_WIN_DUP_FN         rcmsg_mpi_type_dup_fn
#define MPI_WIN_NULL_DELETE_FN rcmsg_mpi_type_null_delete_fn
MPI_API int MPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                                  MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                                  void *extra_state);
MPI_API int MPI_Win_free_keyval(int *win_keyval);
MPI_API int MPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val);
MPI_API int MPI_Win_delete_attr(MPI_Win win, int win_keyval);
MPI_API int MPI_Win_set_info(MPI_Win win, MPI_Info info);
MPI_API int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used);
typedef void MPI_Win_errhandler_function(MPI_Win *win, int *errcode, ...);
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn; /* the MPI-2.0 name */
MPI_API int MPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                                      MPI_Errhandler *errhandler);
MPI_API int MPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
MPI_API int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
MPI_API int MPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                            int target_rank, MPI_Aint target_disp, int target_count,
                            MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                            MPI_Request *request);
MPI_API int MPI_Rget_accumulate(const void *origin_addr, int origin_count,
                                MPI_Datatype origin_datatype, void *result_addr, int result_count,
                                MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                                int target_count, MPI_Datatype target_datatype, MPI_Op op,
                                MPI_Win win, MPI_Request *request);
MPI_API int MPI_Pcontrol(const int level, ...);
#define MPI_F_STATUS_IGNORE         ((MPI_Fint *)1)
#define MPI_F_STATUSES_IGNORE       ((MPI_Fint *)1)
#define MPI_CXX_BOOL                MPI_C_BOOL
#define MPI_CXX_FLOAT_COMPLEX       MPI_C_FLOAT_COMPLEX
#define MPI_CXX_DOUBLE_COMPLEX      MPI_C_DOUBLE_COMPLEX
#define MPI_CXX_LONG_DOUBLE_COMPLEX MPI_C_LONG_DOUBLE_COMPLEX

/* ---- large counts (MPI-4.0 "_c" bindings), each with its PMPI_ name -----------------------
 * The point-to-point ones carry any count whose bytes fit in SIZE_MAX / 2 (more:
 * MPI_ERR_COUNT): they are the int calls' own paths, with MPI_Count counts. The collective
 * ones (blocking, nonblocking, persistent and neighborhood) run the int calls: counts and
 * displacements up to INT_MAX only (the collectives' own limit): a larger one is refused with
 * MPI_ERR_COUNT (a displacement: MPI_ERR_ARG), never cut. The datatype calls': the section after
 * this one. */
#define MPI_WITH_PMPI_(name, params)                                                               \
    MPI_API int MPI_##name params;                                                                 \
    MPI_API int PMPI_##name params
MPI_WITH_PMPI_(Send_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm));
MPI_WITH_PMPI_(Recv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                        MPI_Comm comm, MPI_Status *status));
MPI_WITH_PMPI_(Ssend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm));
MPI_WITH_PMPI_(Rsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm));
MPI_WITH_PMPI_(Bsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm));
MPI_WITH_PMPI_(Isend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Issend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                          int tag, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Irsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                          int tag, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Ibsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                          int tag, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Irecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                         MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Send_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int tag, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Ssend_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                              int tag, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Bsend_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                              int tag, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Rsend_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                              int tag, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Recv_init_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                             MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Sendrecv_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source,
                int recvtag, MPI_Comm comm, MPI_Status *status));
MPI_WITH_PMPI_(Sendrecv_replace_c,
               (void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                int source, int recvtag, MPI_Comm comm, MPI_Status *status));
MPI_WITH_PMPI_(Isendrecv_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source,
                int recvtag, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Isendrecv_replace_c,
               (void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                int source, int recvtag, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Mrecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                         MPI_Status *status));
MPI_WITH_PMPI_(Imrecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                          MPI_Request *request));
MPI_WITH_PMPI_(Get_count_c, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count));
MPI_WITH_PMPI_(Get_elements_c, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count));
MPI_WITH_PMPI_(Bcast_c,
               (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm));
MPI_WITH_PMPI_(Gather_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
MPI_WITH_PMPI_(Scatter_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
MPI_WITH_PMPI_(Allgather_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm));
MPI_WITH_PMPI_(Alltoall_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm));
MPI_WITH_PMPI_(Reduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm));
MPI_WITH_PMPI_(Allreduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
MPI_WITH_PMPI_(Gatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                           MPI_Datatype recvtype, int root, MPI_Comm comm));
MPI_WITH_PMPI_(Scatterv_c, (const void *sendbuf, const MPI_Count sendcounts[],
                            const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
                            MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
MPI_WITH_PMPI_(Allgatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                              MPI_Datatype recvtype, MPI_Comm comm));
MPI_WITH_PMPI_(Alltoallv_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm));
MPI_WITH_PMPI_(Alltoallw_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));
MPI_WITH_PMPI_(Reduce_scatter_block_c, (const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
MPI_WITH_PMPI_(Reduce_scatter_c, (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
MPI_WITH_PMPI_(Scan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm));
MPI_WITH_PMPI_(Exscan_c, (const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
MPI_WITH_PMPI_(Reduce_local_c, (const void *inbuf, void *inoutbuf, MPI_Count count,
                                MPI_Datatype datatype, MPI_Op op));
MPI_WITH_PMPI_(Ibcast_c, (void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                          MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Igather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Iscatter_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Iallgather_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Ialltoall_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Ireduce_c,
               (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, int root, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Iallreduce_c,
               (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Ireduce_scatter_block_c,
               (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Iscan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Iexscan_c, (const void *sendbuf, void *recvbuf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Igatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                            MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Iscatterv_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                int root, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Iallgatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Ialltoallv_c, (const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Ialltoallw_c, (const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Ireduce_scatter_c,
               (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));
/* The persistent and neighborhood collectives' large-count forms (the persistent ones convert
 * their counts at the init and keep them with the request): as the collectives' above. */
MPI_WITH_PMPI_(Bcast_init_c, (void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                              MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Gather_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                               MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Scatter_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                                MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Allgather_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Alltoall_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Reduce_init_c,
               (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Allreduce_init_c,
               (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Reduce_scatter_block_init_c,
               (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Reduce_scatter_init_c,
               (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                MPI_Request *request));
MPI_WITH_PMPI_(Scan_init_c,
               (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Exscan_init_c,
               (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Gatherv_init_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Scatterv_init_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Allgatherv_init_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Alltoallv_init_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                MPI_Request *request));
MPI_WITH_PMPI_(Alltoallw_init_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Neighbor_allgather_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm));
MPI_WITH_PMPI_(Ineighbor_allgather_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Neighbor_alltoall_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm));
MPI_WITH_PMPI_(Ineighbor_alltoall_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Neighbor_allgatherv_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                MPI_Comm comm));
MPI_WITH_PMPI_(Ineighbor_allgatherv_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                MPI_Comm comm, MPI_Request *request));
MPI_WITH_PMPI_(Neighbor_alltoallv_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm));
MPI_WITH_PMPI_(Ineighbor_alltoallv_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                MPI_Request *request));
MPI_WITH_PMPI_(Neighbor_alltoallw_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));
MPI_WITH_PMPI_(Ineighbor_alltoallw_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                MPI_Request *request));
MPI_WITH_PMPI_(Neighbor_allgather_init_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                MPI_Request *request));
MPI_WITH_PMPI_(Neighbor_alltoall_init_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                MPI_Request *request));
MPI_WITH_PMPI_(Neighbor_allgatherv_init_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                MPI_Comm comm, MPI_Info info, MPI_Request *request));
MPI_WITH_PMPI_(Neighbor_alltoallv_init_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                MPI_Request *request));
MPI_WITH_PMPI_(Neighbor_alltoallw_init_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                MPI_Info info, MPI_Request *request));
#undef MPI_WITH_PMPI_

/* ---- large counts of datatypes, packing, user operations and the buffer of buffered sends
 * (MPI-4.0 5, 3.6: the "_c" bindings), each with its PMPI_ name -----------------------------
 * The datatype engine counts in MPI_Count / size_t: a type's size, extent and counts may pass
 * INT_MAX (Type_size then gives MPI_UNDEFINED, Type_size_c the size); a type built by a _c
 * constructor answers Type_get_envelope (the int form) with MPI_ERR_TYPE, as its arguments
 * are large counts only Type_get_envelope_c / _contents_c can give. A user operation of
 * Op_create_c is called with an MPI_Count length (an MPI_User_function with an int one). */
typedef void MPI_User_function_c(void *invec, void *inoutvec, MPI_Count *len,
                                 MPI_Datatype *datatype);
#define MPI_WITH_PMPI_(name, params)                                                               \
    MPI_API int MPI_##name params;                                                                 \
    MPI_API int PMPI_##name params
MPI_WITH_PMPI_(Type_contiguous_c, (MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype));
MPI_WITH_PMPI_(Type_vector_c, (MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype));
MPI_WITH_PMPI_(Type_create_hvector_c, (MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                       MPI_Datatype oldtype, MPI_Datatype *newtype));
MPI_WITH_PMPI_(Type_indexed_c, (MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype));
MPI_WITH_PMPI_(Type_create_hindexed_c, (MPI_Count count, const MPI_Count array_of_blocklengths[],
                                        const MPI_Count array_of_displacements[],
                                        MPI_Datatype oldtype, MPI_Datatype *newtype));
MPI_WITH_PMPI_(Type_create_indexed_block_c,
               (MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[],
                MPI_Datatype oldtype, MPI_Datatype *newtype));
MPI_WITH_PMPI_(Type_create_hindexed_block_c,
               (MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[],
                MPI_Datatype oldtype, MPI_Datatype *newtype));
MPI_WITH_PMPI_(Type_create_struct_c, (MPI_Count count, const MPI_Count array_of_blocklengths[],
                                      const MPI_Count array_of_displacements[],
                                      const MPI_Datatype array_of_types[], MPI_Datatype *newtype));
MPI_WITH_PMPI_(Type_create_subarray_c,
               (int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[],
                const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                MPI_Datatype *newtype));
MPI_WITH_PMPI_(Type_create_darray_c,
               (int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                const int array_of_distribs[], const int array_of_dargs[],
                const int array_of_psizes[], int order, MPI_Datatype oldtype,
                MPI_Datatype *newtype));
MPI_WITH_PMPI_(Type_create_resized_c,
               (MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype *newtype));
MPI_WITH_PMPI_(Type_get_extent_c, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent));
MPI_WITH_PMPI_(Type_get_true_extent_c,
               (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent));
MPI_WITH_PMPI_(Type_size_c, (MPI_Datatype datatype, MPI_Count *size));
MPI_WITH_PMPI_(Type_get_envelope_c,
               (MPI_Datatype datatype, MPI_Count *num_integers, MPI_Count *num_addresses,
                MPI_Count *num_large_counts, MPI_Count *num_datatypes, int *combiner));
MPI_WITH_PMPI_(Type_get_contents_c,
               (MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
                MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                MPI_Datatype array_of_datatypes[]));
MPI_WITH_PMPI_(Pack_c, (const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                        MPI_Count outsize, MPI_Count *position, MPI_Comm comm));
MPI_WITH_PMPI_(Unpack_c, (const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                          MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm));
MPI_WITH_PMPI_(Pack_size_c,
               (MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size));
MPI_WITH_PMPI_(Pack_external_c,
               (const char datarep[], const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
                void *outbuf, MPI_Count outsize, MPI_Count *position));
MPI_WITH_PMPI_(Unpack_external_c,
               (const char datarep[], const void *inbuf, MPI_Count insize, MPI_Count *position,
                void *outbuf, MPI_Count outcount, MPI_Datatype datatype));
MPI_WITH_PMPI_(Pack_external_size_c,
               (const char datarep[], MPI_Count incount, MPI_Datatype datatype, MPI_Count *size));
MPI_WITH_PMPI_(Op_create_c, (MPI_User_function_c * user_fn, int commute, MPI_Op *op));
MPI_WITH_PMPI_(Buffer_attach_c, (void *buffer, MPI_Count size));
MPI_WITH_PMPI_(Buffer_detach_c, (void *buffer_addr, MPI_Count *size));
#undef MPI_WITH_PMPI_

#ifdef __cplusplus
}
#endif

#endif /* RCMSG_MPI_H */
