/*
 * rcmsg: message passing for HPC jobs over InfiniBand / RoCE reliable connections.
 *
 * This is the only public header. Every function returns an rcmsg_status_t (0 on success,
 * a positive value for "in progress", negative values for errors) unless said otherwise.
 */
#ifndef RCMSG_H
#define RCMSG_H

#ifdef __cplusplus
extern "C" {
#endif

#define RCMSG_API __attribute__((visibility("default")))

/*
 * Status codes. X(name, value, text): one list, so that the enum and the printable names
 * can never drift apart. RCMSG_ERR_NO_RESOURCE is the temporary "queue full, try again"
 * status; every other negative value is an error.
 */
#define RCMSG_STATUS_LIST(X)                                                                       \
    X(RCMSG_OK, 0, "success")                                                                      \
    X(RCMSG_INPROGRESS, 1, "operation in progress")                                                \
    X(RCMSG_ERR_NO_RESOURCE, -1, "temporarily out of resources, retry")                            \
    X(RCMSG_ERR_INVALID_PARAM, -2, "invalid parameter")                                            \
    X(RCMSG_ERR_NO_MEMORY, -3, "out of memory")                                                    \
    X(RCMSG_ERR_NO_DEVICE, -4, "no usable RDMA device")                                            \
    X(RCMSG_ERR_IO, -5, "input/output error")                                                      \
    X(RCMSG_ERR_UNSUPPORTED, -6, "operation not supported")                                        \
    X(RCMSG_ERR_TRUNCATED, -7, "message truncated")                                                \
    X(RCMSG_ERR_PEER_DATA, -8, "malformed data from a peer")                                       \
    X(RCMSG_ERR_LAUNCHER, -9, "launcher or PMIx error")                                            \
    X(RCMSG_ERR_STATE, -10, "illegal state or transition")                                         \
    X(RCMSG_ERR_TIMEOUT, -11, "timed out")                                                         \
    X(RCMSG_ERR_CONNECTION, -12, "connection to a peer failed")                                    \
    X(RCMSG_ERR_NOT_FOUND, -13, "not found")                                                       \
    X(RCMSG_ERR_CONFIG, -14, "invalid configuration")                                              \
    X(RCMSG_ERR_NOT_INITIALIZED, -15, "rcmsg is not initialized")                                  \
    X(RCMSG_ERR_PENDING, -16, "operations still pending")

typedef enum {
#define RCMSG_STATUS_ENUM(name, value, text) name = value,
    RCMSG_STATUS_LIST(RCMSG_STATUS_ENUM)
#undef RCMSG_STATUS_ENUM
} rcmsg_status_t;

/* Text for a status, e.g. "invalid parameter". Never NULL. */
RCMSG_API const char *rcmsg_strerror(rcmsg_status_t status);

/* The status's enum name, e.g. "RCMSG_ERR_INVALID_PARAM". Never NULL. */
RCMSG_API const char *rcmsg_status_name(rcmsg_status_t status);

/* The library version, e.g. "0.1.0". */
RCMSG_API const char *rcmsg_version(void);

/*
 * Joins the job: reads the RCMSG_* settings, asks the launcher (PMIx: Open MPI's mpirun or
 * Slurm's srun --mpi=pmix) for this process's rank, and connects to every other rank over
 * RDMA reliable connections before it returns. Without a launcher the process is a 1-rank
 * job. If any rank fails, every rank's rcmsg_init() fails (none waits forever).
 */
RCMSG_API rcmsg_status_t rcmsg_init(void);

/* Completes pending sends, waits for every rank to arrive, and releases everything. */
RCMSG_API rcmsg_status_t rcmsg_finalize(void);

/* This process's rank in the job and the job's size; -1 before rcmsg_init(). */
RCMSG_API int rcmsg_rank(void);
RCMSG_API int rcmsg_size(void);

#ifdef __cplusplus
}
#endif

#endif /* RCMSG_H */
