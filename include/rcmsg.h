/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rcmsg: message passing for HPC jobs over InfiniBand / RoCE reliable connections.
 *
 * This is the only public header. Every function returns an rcmsg_status_t (0 on success,
 * a positive value for "in progress", negative values for errors) unless said otherwise.
 */
#ifndef RCMSG_H
#define RCMSG_H

#include <stddef.h>
#include <stdint.h>

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
 * Slurm's srun --mpi=pmix) for this process's rank, and connects to every other rank (shared
 * memory on the same node, RDMA reliable connections otherwise) before it returns. Without a
 * launcher the process is a 1-rank job. If a rank cannot open the transports it needs, every
 * rank's rcmsg_init() fails, naming it; no rank waits forever. (A connection that fails on
 * one side only fails that rank's init; its peers see the failure on first use.)
 */
RCMSG_API rcmsg_status_t rcmsg_init(void);

/* ---- threads (docs/threads.md) -----------------------------------------------------------
 *
 * The levels of MPI, in MPI's order: SINGLE: one thread in the process; FUNNELED: only the
 * thread that called rcmsg_init_thread calls rcmsg; SERIALIZED: any thread, one at a time
 * (the application orders them); MULTIPLE: any thread, any number at once. rcmsg_init is
 * rcmsg_init_thread(RCMSG_THREAD_SINGLE). Under MULTIPLE every call below is safe from any
 * thread at once: messages from one sending thread are matched in the order that thread sent
 * them (non-overtaking per thread; no order between threads), a request may be waited on or
 * tested by a thread that did not start it (but by one thread at a time), communicators may be
 * created by several threads at once on different parent communicators, and collectives on
 * different communicators run concurrently (on one communicator, in the same order on every
 * rank, as always). Several threads may wait at once: they drive progress in turn. Below
 * MULTIPLE no lock is taken. */
#define RCMSG_THREAD_SINGLE     0
#define RCMSG_THREAD_FUNNELED   1
#define RCMSG_THREAD_SERIALIZED 2
#define RCMSG_THREAD_MULTIPLE   3

/* rcmsg_init with the level the application asks for: *provided gets the level granted (every
 * level is granted as asked; a level out of range is RCMSG_ERR_INVALID_PARAM, nothing done). */
RCMSG_API rcmsg_status_t rcmsg_init_thread(int required, int *provided);
/* The level granted (RCMSG_THREAD_SINGLE before init). */
RCMSG_API rcmsg_status_t rcmsg_query_thread(int *provided);
/* For a library layered on rcmsg (the MPI face) whose own state needs the same protection:
 * under MULTIPLE, enter takes rcmsg's lock (recursively per thread) and leave gives it back,
 * so the layer's state is protected by the lock that rcmsg's waits let go in their idle rounds;
 * pause is such an idle round for the layer's own polling loops (lets the lock go a moment and
 * yields the CPU). Below MULTIPLE, enter and leave do nothing and pause only yields. */
RCMSG_API void rcmsg_thread_enter(void);
RCMSG_API void rcmsg_thread_leave(void);
RCMSG_API void rcmsg_thread_pause(void);
/* A longer idle round for a layer's backing-off loop: sleeps `us` microseconds with rcmsg's
 * lock let go for the whole sleep (under MULTIPLE; below it only the sleep). */
RCMSG_API void rcmsg_thread_nap(unsigned us);

/* Refused with RCMSG_ERR_PENDING (nothing released) while requests are not completed by
 * wait or test. Otherwise lets the transports finish what they carry, waits for every rank,
 * and releases everything. Messages that arrived unreceived, and any that arrive until the
 * closing barrier ends, are dropped: a rendezvous sender's send among them fails with
 * RCMSG_ERR_STATE (no wait), or is cancelled if its sender cancels it, and a CANCEL is
 * answered (rcmsg_cancel). After a peer was lost
 * during the job (its operations failed with RCMSG_ERR_CONNECTION): nothing is flushed to
 * the lost peers, there is no closing barrier, one warning names them, and a survivor's
 * finalize returns RCMSG_OK promptly (the loss was reported by the operations it failed). */
RCMSG_API rcmsg_status_t rcmsg_finalize(void);

/* Ends every rank of the job and never returns: logs reason, asks the launcher to terminate
 * the whole job (PMIx_Abort, then a PMIx job-control kill: also under `mpirun
 * --enable-recovery` and `srun --kill-on-bad-exit=0`, which keep the others after a rank's
 * exit), and exits this process. The exit status (this process's, and the launcher's when it
 * passes it on) is status's low 8 bits, or 1 when those are 0 (status 0, 256, ...): an abort
 * never exits 0. (`mpirun --enable-recovery` exits 0 whatever its ranks do, even after Open
 * MPI's own MPI_Abort: the aborting rank whose parent it is sends it SIGTERM; it exits 1.)
 * Bounded: the process exits within 5 s whatever the launcher does. Before rcmsg_init(), after
 * rcmsg_finalize() or without a launcher only this process exits. */
RCMSG_API void rcmsg_abort(int status, const char *reason) __attribute__((noreturn));

/* This process's rank in the job and the job's size; -1 before rcmsg_init(). */
RCMSG_API int rcmsg_rank(void);
RCMSG_API int rcmsg_size(void);

/* The number of processes the launcher started, from its environment, so known before
 * rcmsg_init too: OMPI_COMM_WORLD_SIZE (Open MPI's mpirun), PMI_SIZE (Hydra),
 * SLURM_STEP_NUM_TASKS (srun), the first that holds a positive count (an outer job step's
 * count may be inherited: the launcher that started the process sets its own); 1 without a
 * launcher (a singleton, as rcmsg_init finds it); 0 when a launcher gives no count. Reads the
 * environment only. */
RCMSG_API int rcmsg_launcher_size(void);

/* ---- point-to-point ----------------------------------------------------------------------
 *
 * Messages are byte buffers matched on (communicator, source, tag) with MPI's rules:
 * RCMSG_ANY_SOURCE and RCMSG_ANY_TAG match anything; two messages from one sender to one
 * receiver on one communicator are matched in the order they were sent (non-overtaking);
 * receives are matched in the order they were posted. A message longer than the receive
 * buffer completes the receive with RCMSG_ERR_TRUNCATED (the buffer is never overrun).
 *
 * Small messages travel eagerly (one SEND, up to RCMSG_EAGER_LIMIT); larger ones by
 * rendezvous: the receiver pulls the data with RDMA_READ once the message is matched. A
 * nonblocking send's buffer belongs to rcmsg until its request completes; so does a receive's.
 * Progress is made inside every rcmsg call that tests or waits.
 *
 * Nothing waits forever for a rank that is gone. A receive (or probe) from a lost rank fails
 * with RCMSG_ERR_CONNECTION once nothing it sent is left to match; an RCMSG_ANY_SOURCE one
 * once every other rank of its communicator is lost (a send to itself would still match
 * it, but nothing can send while the caller waits). A rank is lost when its transport says so
 * (shared memory: its process exited, noticed within ~0.1 s; rc: an operation to it ran out
 * of retries), when the launcher reports it terminated, or when a rank that waits for it
 * probes it (every RCMSG_LIVENESS_INTERVAL, 1 s) and the probe runs out of retries; see
 * docs/liveness.md for the bounds. A rank that sends malformed data is lost too (its requests fail
 * with RCMSG_ERR_PEER_DATA). Once the launcher itself is gone (mpirun killed), every request
 * fails with RCMSG_ERR_LAUNCHER and so does every later call that starts an operation.
 *
 * A rendezvous send completes with the receiver's outcome: when the receiver's read fails
 * (RCMSG_ERR_IO, ...), or the message is discarded unreceived because its communicator was
 * freed (RCMSG_ERR_STATE) or because the collectives it belongs to failed at the receiver (a
 * member lost: that member's status), the send fails too; a failed receive reports count 0.
 */

#define RCMSG_ANY_SOURCE (-1)
#define RCMSG_ANY_TAG    (-1)
#define RCMSG_UNDEFINED  (-32766) /* color for rcmsg_comm_split: not a member of any new comm */

/* A communicator: a group of ranks with its own matching space. */
typedef struct rcmsg_comm *rcmsg_comm_t;
/* A nonblocking operation; RCMSG_REQUEST_NULL once completed by wait or test. A copy of the
 * handle taken before that is stale: wait or test on it returns RCMSG_ERR_INVALID_PARAM
 * (completed requests are reused last, so a stale copy is detected until the request is
 * reused by a later operation, after all free ones). */
typedef struct rcmsg_request *rcmsg_request_t;
#define RCMSG_REQUEST_NULL ((rcmsg_request_t)0)
#define RCMSG_COMM_NULL    ((rcmsg_comm_t)0)

/* What a completed receive (or a probe) found. */
typedef struct {
    int source; /* rank of the sender in the communicator */
    int tag;
    size_t count;         /* bytes received (for a probe: bytes in the message) */
    rcmsg_status_t error; /* RCMSG_OK, RCMSG_ERR_TRUNCATED, RCMSG_ERR_CONNECTION, ... */
    int cancelled;        /* 1: the request was cancelled (rcmsg_cancel): nothing was sent or
                             received; 0: it completed as the operation */
} rcmsg_msg_status_t;

/* Every rank of the job. Valid between rcmsg_init() and rcmsg_finalize(). */
RCMSG_API rcmsg_comm_t rcmsg_comm_world(void);
/* A second communicator of every rank, ranks as in the world's, with a matching space of its
 * own: no receive on rcmsg_comm_world() (or any other) takes its messages. Made by rcmsg_init
 * on every process with no communication; for a library over rcmsg that needs to reach any
 * rank without a collective call first (the MPI face's ports: MPI_Comm_connect). Cannot be
 * freed. Valid between rcmsg_init() and rcmsg_finalize(). */
RCMSG_API rcmsg_comm_t rcmsg_comm_world_private(void);
RCMSG_API int rcmsg_comm_rank(rcmsg_comm_t comm);
RCMSG_API int rcmsg_comm_size(rcmsg_comm_t comm);
/* Making a communicator: its matching space (context) is one the members agree on, free on
 * every one of them: they exchange their tables of contexts (dup and split over comm's
 * collectives, so they fail when those broke; create_ranks among the listed ranks only). A
 * process holds at most 16384 communicators at once, the world included (a freed one's
 * context is reused once its members have all freed it and agreed again, so that its late
 * messages never reach a new communicator): beyond that the call fails on every member with
 * RCMSG_ERR_NO_RESOURCE and a log line naming the limit; free some and retry.
 * Collective over comm: the same ranks with a new matching space. comm may be an
 * intercommunicator: collective over both groups, whose members all agree on the context (in
 * the union's collective space); the duplicate has the same two groups. */
RCMSG_API rcmsg_status_t rcmsg_comm_dup(rcmsg_comm_t comm, rcmsg_comm_t *newcomm_p);
/* Nonblocking dup: returns at once; the members agree on the context while *req_p is under
 * way, advanced by rcmsg's progress (any call that progresses, as a nonblocking collective).
 * *newcomm_p is written when the request completes (rcmsg_wait / rcmsg_test: RCMSG_OK), not
 * before: use it only then. Collective over comm, in the order of comm's other collectives
 * (several may be outstanding on one communicator, or on overlapping ones, and complete in any
 * order of waits); comm cannot be freed until it completes. Blocking communicator creation on
 * any communicator may run while it is outstanding. RCMSG_COLL_CHECK does not check it.
 * An intercommunicator's as its rcmsg_comm_dup: both groups take part, in the order of its
 * collectives (those of both groups), and a member lost fails the request on the survivors. */
RCMSG_API rcmsg_status_t rcmsg_comm_idup(rcmsg_comm_t comm, rcmsg_comm_t *newcomm_p,
                                         rcmsg_request_t *req_p);
/* Collective over comm: one new communicator per color, ranked by (key, rank in comm).
 * RCMSG_UNDEFINED as color gives RCMSG_COMM_NULL. A negative color on any rank fails the
 * split on every rank (RCMSG_ERR_INVALID_PARAM, naming that rank). */
RCMSG_API rcmsg_status_t rcmsg_comm_split(rcmsg_comm_t comm, int color, int key,
                                          rcmsg_comm_t *newcomm_p);
/* Collective over the n ranks of comm listed in ranks (every one passes the same list, with
 * no repeats): a communicator of those ranks, rank i being ranks[i]. The other ranks of comm
 * take no part: the listed ones agree on the context among themselves, in comm's
 * point-to-point space (with an internal tag that no receive of the program matches), which
 * works when comm's collectives broke. key is not needed any more (any value). A rank not in
 * the list, a rank out of range or a repeat: RCMSG_ERR_INVALID_PARAM.
 * A listed rank lost during the call fails it on each survivor with the loss's status
 * (RCMSG_ERR_CONNECTION for a dead rank) within the liveness bounds (docs/liveness.md): every
 * exchange of the agreement waits for every member, and a survivor that learns of the loss
 * stops there, waiting neither for the lost rank nor for a survivor that already gave up. A
 * survivor that had every member's part before the loss may still succeed: its communicator
 * then holds the lost rank (broken from the start, as described at the collectives below).
 * The survivors can then make their own communicator (a list without the lost rank): each list
 * and key agrees on an internal tag of its own (a 30-bit hash of them), so that it does not take
 * what a failed call of another list left in flight (discarded when it came in time). */
RCMSG_API rcmsg_status_t rcmsg_comm_create_ranks(rcmsg_comm_t comm, int n, const int ranks[],
                                                 uint32_t key, rcmsg_comm_t *newcomm_p);
/* Frees a communicator made by dup, split or create_ranks (not the world); *comm_p becomes NULL.
 * Receives already posted on it still complete. Messages that arrived for it unreceived, and any
 * that arrive later for no posted receive, are discarded with a warning: their memory and eager
 * credits come back, and a rendezvous sender's request fails with RCMSG_ERR_STATE (a cancel of
 * one of these sends takes: rcmsg_cancel). */
RCMSG_API rcmsg_status_t rcmsg_comm_free(rcmsg_comm_t *comm_p);

/* Errors of the application's own making that only comm's collectives can find (its ranks
 * passing different counts or roots to one, no context id left on some member for a
 * communicator made from comm) are returned as a status and, by default (on = 1), also logged
 * at level "error" with what was found ("bcast: rank 0 sent 4 bytes where 40 were expected:
 * ..."). on = 0: the application reports comm's errors itself; they are logged at "debug"
 * (RCMSG_LOG_LEVEL=debug shows them). For comm alone (a new communicator starts at 1). A
 * peer's, a device's or the launcher's failure is logged as an error whatever this says.
 * RCMSG_ERR_INVALID_PARAM: comm is not a live communicator. */
RCMSG_API rcmsg_status_t rcmsg_comm_log_errors(rcmsg_comm_t comm, int on);

/* ---- intercommunicators --------------------------------------------------------------------
 *
 * Two disjoint groups, each an intracommunicator, joined as in MPI: a rank's rank and size
 * (rcmsg_comm_rank, rcmsg_comm_size) are those of its own (local) group, rcmsg_comm_remote_size
 * the other's. Every collective of rcmsg.h but scan and exscan takes one (scan, exscan:
 * RCMSG_ERR_INVALID_PARAM), with MPI's meaning: both groups call it, data goes from one group
 * to the other, and a rank argument names a rank of the remote group:
 *   rooted (bcast, reduce, gather(v), scatter(v)): in the root's group root is RCMSG_ROOT at
 *     the root and RCMSG_PROC_NULL at the others (they take no part); in the other group it
 *     is the root's rank in the root's group. The root's buffer holds the remote group's
 *     blocks (gather, scatter), or its reduction (reduce).
 *   allgather(v), alltoall(v): recvbuf gets the remote group's blocks (remote_size of them);
 *     alltoall(v)'s sendbuf has one block per remote rank.
 *   allreduce: each group gets the reduction of the other group's sendbufs (the same count).
 *   reduce_scatter(_block): sendbuf holds the sum of this group's counts (the same total in
 *     both groups); this group's ranks get their blocks of the other group's reduction.
 *   barrier: no rank leaves before every rank of both groups entered.
 * Counts and arrays (recvcounts, displs, ...) of the blocks to or from the other group have
 * remote_size entries. RCMSG_IN_PLACE is refused. Reductions combine a group's values in its
 * rank order (non-commutative user operations too). Nonblocking forms as for any communicator.
 * Point-to-point on an intercommunicator is not supported yet: rcmsg_send, rcmsg_recv and
 * the other point-to-point calls refuse one (RCMSG_ERR_UNSUPPORTED).
 * rcmsg_comm_dup and rcmsg_comm_idup duplicate one (both groups); rcmsg_comm_split and
 * rcmsg_comm_create_ranks refuse one (RCMSG_ERR_UNSUPPORTED); rcmsg_comm_free frees it.
 */
#define RCMSG_PROC_NULL (-2) /* an intercommunicator root's group: not the root */
#define RCMSG_ROOT      (-3) /* an intercommunicator root's group: the root */

/* Collective over local_comm (an intracommunicator) and, at once, over the other group's
 * local_comm: local_leader (a rank of local_comm) and remote_leader (the other group's leader,
 * a rank of peer_comm) swap their groups over peer_comm with tag (meaningful at the leaders
 * only: peer_comm, remote_leader and tag are ignored elsewhere), each tells its group; then
 * every member of both groups agrees on the new communicator's context (as
 * rcmsg_comm_create_ranks, over the world). The groups must be disjoint. A leader's failure
 * (a bad argument, the swap) fails the call on its whole group. */
RCMSG_API rcmsg_status_t rcmsg_intercomm_create(rcmsg_comm_t local_comm, int local_leader,
                                                rcmsg_comm_t peer_comm, int remote_leader, int tag,
                                                rcmsg_comm_t *newcomm_p);
/* The other group's size; -1 for anything but a live intercommunicator. */
RCMSG_API int rcmsg_comm_remote_size(rcmsg_comm_t comm);
/* *flag_p = 1 for an intercommunicator, 0 for an intracommunicator. */
RCMSG_API rcmsg_status_t rcmsg_comm_test_inter(rcmsg_comm_t comm, int *flag_p);
/* Collective over both groups: an intracommunicator of the union, the group whose ranks pass
 * high = 0 first (every rank of a group passes the same high; both groups the same: the group
 * of the lower-ranked leader first), each group in its own order. */
RCMSG_API rcmsg_status_t rcmsg_intercomm_merge(rcmsg_comm_t intercomm, int high,
                                               rcmsg_comm_t *newcomm_p);

/* len is refused (RCMSG_ERR_INVALID_PARAM) when no buffer can have it: more than the node's
 * memory, or past the end of the address space. */
RCMSG_API rcmsg_status_t rcmsg_isend(const void *buf, size_t len, int dest, int tag,
                                     rcmsg_comm_t comm, rcmsg_request_t *req_p);
RCMSG_API rcmsg_status_t rcmsg_irecv(void *buf, size_t len, int source, int tag, rcmsg_comm_t comm,
                                     rcmsg_request_t *req_p);

/* A synchronous send: it completes only once the receiver has matched it and taken the data
 * (it always travels by rendezvous, whatever its length), as MPI_Issend. */
RCMSG_API rcmsg_status_t rcmsg_issend(const void *buf, size_t len, int dest, int tag,
                                      rcmsg_comm_t comm, rcmsg_request_t *req_p);
/* Asks that a request not yet matched be cancelled; the request stays and is completed by
 * wait or test as any other, whose status.cancelled says whether the cancel took (1: nothing
 * was received or sent, the buffer is the caller's again; 0: it completed normally, with its
 * message). A receive nothing matched is cancelled at once. A send the receiver has not
 * matched is taken back: one still queued here at once; one on the wire (an eager message in
 * the receiver's unexpected queue, a rendezvous whose data is still here) by asking the
 * receiver, which answers in its next progress (a receiver computing delays the wait until
 * then, unless its thread of RCMSG_ASYNC_PROGRESS=full answers meanwhile;
 * a lost receiver ends it with the loss's error; a receiver in rcmsg_finalize still
 * answers, until its closing barrier ends). A send its receiver discarded unreceived (its
 * communicator freed there, or the receiver in rcmsg_finalize) was not received: its cancel
 * takes, also for a rendezvous whose RCMSG_ERR_STATE refusal came before the cancel. A request
 * matched or sent to a receiver that took it completes normally. RCMSG_OK, also when too late
 * to cancel; RCMSG_ERR_INVALID_PARAM for no request. Cancelling twice is harmless. */
RCMSG_API rcmsg_status_t rcmsg_cancel(rcmsg_request_t *req_p);

/* Waits for *req_p, fills status (may be NULL) and sets *req_p to RCMSG_REQUEST_NULL.
 * Returns the operation's own status (e.g. RCMSG_ERR_TRUNCATED). A NULL request returns at
 * once with an empty status. */
RCMSG_API rcmsg_status_t rcmsg_wait(rcmsg_request_t *req_p, rcmsg_msg_status_t *status);
/* As wait when complete (*flag_p = 1); otherwise *flag_p = 0 and the request stays. */
RCMSG_API rcmsg_status_t rcmsg_test(rcmsg_request_t *req_p, int *flag_p,
                                    rcmsg_msg_status_t *status);
/* statuses may be NULL. Returns RCMSG_OK, or the first error of any operation. */
RCMSG_API rcmsg_status_t rcmsg_waitall(size_t n, rcmsg_request_t reqs[],
                                       rcmsg_msg_status_t statuses[]);
/* Waits for one request; *index_p = its index (n when every request is NULL). */
RCMSG_API rcmsg_status_t rcmsg_waitany(size_t n, rcmsg_request_t reqs[], size_t *index_p,
                                       rcmsg_msg_status_t *status);
/* *flag_p = 1 and every request completed (as waitall) when all are done, else 0. */
RCMSG_API rcmsg_status_t rcmsg_testall(size_t n, rcmsg_request_t reqs[], int *flag_p,
                                       rcmsg_msg_status_t statuses[]);

/* Blocking probe for a matching message, without receiving it. A probe (or a receive) naming
 * a source that was lost returns RCMSG_ERR_CONNECTION once nothing of it is left to match. */
RCMSG_API rcmsg_status_t rcmsg_probe(int source, int tag, rcmsg_comm_t comm,
                                     rcmsg_msg_status_t *status);
RCMSG_API rcmsg_status_t rcmsg_iprobe(int source, int tag, rcmsg_comm_t comm, int *flag_p,
                                      rcmsg_msg_status_t *status);

RCMSG_API rcmsg_status_t rcmsg_send(const void *buf, size_t len, int dest, int tag,
                                    rcmsg_comm_t comm);
RCMSG_API rcmsg_status_t rcmsg_recv(void *buf, size_t len, int source, int tag, rcmsg_comm_t comm,
                                    rcmsg_msg_status_t *status);
RCMSG_API rcmsg_status_t rcmsg_sendrecv(const void *sendbuf, size_t sendlen, int dest, int sendtag,
                                        void *recvbuf, size_t recvlen, int source, int recvtag,
                                        rcmsg_comm_t comm, rcmsg_msg_status_t *status);

/* ---- collectives -------------------------------------------------------------------------
 *
 * Every rank of the communicator calls the same collectives in the same order with matching
 * arguments (count, datatype, op, root). Collectives travel in the communicator's own
 * collective matching space: they never match, and are never matched by, user messages.
 * The algorithm is chosen from the message size and the number of ranks (every rank makes
 * the same choice); RCMSG_COLL_<NAME>_ALGORITHM forces one, and RCMSG_LOG_LEVEL=debug logs
 * each choice. Reductions combine the ranks' values in an order fixed by the algorithm, so
 * integer results are exact (sums and products wrap modulo 2^bits) and every rank of an
 * allreduce gets the bitwise same floating-point result. (The order, and so the rounding, may
 * change with the number of ranks, the root or the algorithm; floating-point MIN and MAX of
 * a NaN, or of -0.0 and +0.0, return the operand the order puts first or second.)
 *
 * Once a rank learns that a member of a communicator is lost (see above), the collectives of
 * that communicator fail on it with the status the member was lost with (RCMSG_ERR_CONNECTION
 * for a dead rank): the one under way without waiting for data from anyone (only for the
 * answers to its rendezvous sends), and every later one at its start; what other members
 * send to them is discarded. A rank that saw the loss itself tells every other member of the
 * communicator, so a rank waiting in a collective for a live one learns it as soon as the
 * first witness does. Point-to-point on it goes on among the others, and a communicator
 * without the lost rank (rcmsg_comm_create_ranks, whose messages go among its members only)
 * works, while a dup or split of the broken one fails with that status, and one made later
 * otherwise with the lost rank among its members is broken from the start. A collective
 * that fails on one rank for another reason (a bad argument only that rank passed, unless
 * RCMSG_COLL_CHECK=yes, below) leaves the others failing, or waiting for that rank until it
 * exits (then they learn it is lost): treat the communicator as unusable afterwards.
 * Arguments that differ between ranks are detected only where they change a message length
 * (the receiver then fails with RCMSG_ERR_INVALID_PARAM, naming the sender), unless
 * RCMSG_COLL_CHECK=yes: the ranks then agree on the call, root, count, datatype and op before
 * each collective (and on the call and a valid color before rcmsg_comm_dup and
 * rcmsg_comm_split); a difference, or an argument that one rank refuses on its own, fails the
 * call on every rank with RCMSG_ERR_INVALID_PARAM and a log line naming the ranks and values,
 * before any data moves (the communicator stays usable). It costs one small allgather per call.
 *
 * Counts are in elements of the datatype. RCMSG_IN_PLACE as the send buffer (as receive
 * buffer for scatter's root) takes the input from the receive buffer, as MPI_IN_PLACE does:
 *   allreduce, reduce (root)                        input and result in recvbuf
 *   reduce_scatter_block                            input (size * count) in recvbuf, the
 *                                                   result in its first count elements
 *   allgather, gather (root)                        own block already at recvbuf[rank]
 *   alltoall                                        recvbuf holds the blocks to send
 *   scatter (root: recvbuf = RCMSG_IN_PLACE)        the root keeps its block in sendbuf
 */

/* X(NAME, C type): the element types of reductions. */
#define RCMSG_DATATYPE_LIST(X)                                                                     \
    X(INT8, int8_t)                                                                                \
    X(UINT8, uint8_t)                                                                              \
    X(INT16, int16_t)                                                                              \
    X(UINT16, uint16_t)                                                                            \
    X(INT32, int32_t)                                                                              \
    X(UINT32, uint32_t)                                                                            \
    X(INT64, int64_t)                                                                              \
    X(UINT64, uint64_t)                                                                            \
    X(FLOAT, float)                                                                                \
    X(DOUBLE, double)

/* X(NAME): sum, product, minimum, maximum, logical and/or/xor, bitwise and/or/xor. Bitwise and
 * logical operations are defined on the integer types only. */
#define RCMSG_OP_LIST(X) X(SUM) X(PROD) X(MIN) X(MAX) X(LAND) X(LOR) X(LXOR) X(BAND) X(BOR) X(BXOR)

typedef enum {
#define RCMSG_DATATYPE_ENUM(name, type) RCMSG_##name,
    RCMSG_DATATYPE_LIST(RCMSG_DATATYPE_ENUM)
#undef RCMSG_DATATYPE_ENUM
        RCMSG_DATATYPE_COUNT
} rcmsg_datatype_t;

typedef enum {
#define RCMSG_OP_ENUM(name) RCMSG_##name,
    RCMSG_OP_LIST(RCMSG_OP_ENUM)
#undef RCMSG_OP_ENUM
        RCMSG_OP_COUNT
} rcmsg_op_t;

#define RCMSG_IN_PLACE ((void *)1)

/* Bytes in one element (of a basic or created datatype); 0 for an unknown datatype. */
RCMSG_API size_t rcmsg_datatype_size(rcmsg_datatype_t dtype);

RCMSG_API rcmsg_status_t rcmsg_barrier(rcmsg_comm_t comm);
RCMSG_API rcmsg_status_t rcmsg_bcast(void *buf, size_t count, rcmsg_datatype_t dtype, int root,
                                     rcmsg_comm_t comm);
RCMSG_API rcmsg_status_t rcmsg_reduce(const void *sendbuf, void *recvbuf, size_t count,
                                      rcmsg_datatype_t dtype, rcmsg_op_t op, int root,
                                      rcmsg_comm_t comm);
RCMSG_API rcmsg_status_t rcmsg_allreduce(const void *sendbuf, void *recvbuf, size_t count,
                                         rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm);
/* count elements from each rank; recvbuf holds size * count, rank i's block at i * count. */
RCMSG_API rcmsg_status_t rcmsg_allgather(const void *sendbuf, void *recvbuf, size_t count,
                                         rcmsg_datatype_t dtype, rcmsg_comm_t comm);
/* Block i of sendbuf (count elements) goes to rank i; block j of recvbuf comes from rank j. */
RCMSG_API rcmsg_status_t rcmsg_alltoall(const void *sendbuf, void *recvbuf, size_t count,
                                        rcmsg_datatype_t dtype, rcmsg_comm_t comm);
/* recvbuf (size * count) matters at the root only. */
RCMSG_API rcmsg_status_t rcmsg_gather(const void *sendbuf, void *recvbuf, size_t count,
                                      rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm);
/* sendbuf (size * count) matters at the root only. */
RCMSG_API rcmsg_status_t rcmsg_scatter(const void *sendbuf, void *recvbuf, size_t count,
                                       rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm);
/* sendbuf holds size * count elements; rank i gets block i of the reduction (count elements). */
RCMSG_API rcmsg_status_t rcmsg_reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                                    size_t count, rcmsg_datatype_t dtype,
                                                    rcmsg_op_t op, rcmsg_comm_t comm);

/* ---- user datatypes and operations ------------------------------------------------------
 *
 * A datatype made by rcmsg_datatype_create is an element of size bytes that the collectives
 * move as they are (values >= RCMSG_DATATYPE_COUNT); reductions on it need a user operation.
 * A user operation (rcmsg_op_create, values >= RCMSG_OP_COUNT) works on every datatype, basic
 * or created; a predefined operation on a created datatype is RCMSG_ERR_UNSUPPORTED, naming
 * both. A datatype or operation freed while a nonblocking collective uses it stays valid until
 * that collective completes (they are reference counted).
 */
#define RCMSG_DATATYPE_NULL ((rcmsg_datatype_t)-1)
#define RCMSG_OP_NULL       ((rcmsg_op_t)-1)

/* A new element type of size bytes (size >= 1). */
RCMSG_API rcmsg_status_t rcmsg_datatype_create(size_t size, rcmsg_datatype_t *dtype_p);
/* Frees a created datatype; *dtype_p becomes RCMSG_DATATYPE_NULL. A basic one: refused. */
RCMSG_API rcmsg_status_t rcmsg_datatype_free(rcmsg_datatype_t *dtype_p);

/* A user reduction: inout[i] = in[i] op inout[i] for i < count, elements of dtype packed
 * (rcmsg_datatype_size bytes each). op is the handle the function was registered under (one
 * function may serve several). Called from inside rcmsg calls; it must not call rcmsg. */
typedef void rcmsg_user_fn_t(const void *in, void *inout, size_t count, rcmsg_datatype_t dtype,
                             rcmsg_op_t op);
/* Registers fn as an operation. commute 0: the collectives keep rank order, every result is
 * (((r0 op r1) op r2) ...) with in the lower ranks' partial result; commute 1: any order. */
RCMSG_API rcmsg_status_t rcmsg_op_create(rcmsg_user_fn_t *fn, int commute, rcmsg_op_t *op_p);
/* Frees a user operation; *op_p becomes RCMSG_OP_NULL. A predefined one: refused. */
RCMSG_API rcmsg_status_t rcmsg_op_free(rcmsg_op_t *op_p);

/* ---- more collectives --------------------------------------------------------------------
 *
 * Counts and displacements are in elements of dtype; the arrays (rcounts, displs, ...) are
 * copied by the call: the caller may reuse them once it returns (the nonblocking calls too).
 * A count of 0 moves nothing from or to that rank. RCMSG_IN_PLACE as MPI defines it:
 *   gatherv (root)            own block already at recvbuf + displs[root]
 *   scatterv (root)           recvbuf = RCMSG_IN_PLACE: the root keeps its block in sendbuf
 *   allgatherv                own block already at recvbuf + displs[rank]
 *   alltoallv                 recvbuf holds the blocks to send (sendbuf's counts and
 *                             displacements are ignored: rcounts and rdispls describe both)
 *   reduce_scatter            input (sum of rcounts) in recvbuf, result in its first
 *                             rcounts[rank] elements
 *   scan, exscan              input and result in recvbuf
 */

/* rcounts[i] elements from rank i land at recvbuf + displs[i] (root only). */
RCMSG_API rcmsg_status_t rcmsg_gatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                                       const size_t recvcounts[], const size_t displs[],
                                       rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm);
/* sendcounts[i] elements at sendbuf + displs[i] (root only) go to rank i. */
RCMSG_API rcmsg_status_t rcmsg_scatterv(const void *sendbuf, const size_t sendcounts[],
                                        const size_t displs[], void *recvbuf, size_t recvcount,
                                        rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm);
/* As gatherv, every rank getting the result. */
RCMSG_API rcmsg_status_t rcmsg_allgatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                                          const size_t recvcounts[], const size_t displs[],
                                          rcmsg_datatype_t dtype, rcmsg_comm_t comm);
/* sendcounts[i] elements at sendbuf + sdispls[i] go to rank i; recvcounts[j] from rank j land
 * at recvbuf + rdispls[j]. */
RCMSG_API rcmsg_status_t rcmsg_alltoallv(const void *sendbuf, const size_t sendcounts[],
                                         const size_t sdispls[], void *recvbuf,
                                         const size_t recvcounts[], const size_t rdispls[],
                                         rcmsg_datatype_t dtype, rcmsg_comm_t comm);
/* sendbuf holds sum(recvcounts) elements; rank i gets its recvcounts[i] elements of the
 * reduction (blocks in rank order). */
RCMSG_API rcmsg_status_t rcmsg_reduce_scatter(const void *sendbuf, void *recvbuf,
                                              const size_t recvcounts[], rcmsg_datatype_t dtype,
                                              rcmsg_op_t op, rcmsg_comm_t comm);
/* Inclusive prefix reduction: rank i gets r0 op r1 op ... op ri. */
RCMSG_API rcmsg_status_t rcmsg_scan(const void *sendbuf, void *recvbuf, size_t count,
                                    rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm);
/* Exclusive: rank i > 0 gets r0 op ... op r(i-1); rank 0's recvbuf is left untouched. */
RCMSG_API rcmsg_status_t rcmsg_exscan(const void *sendbuf, void *recvbuf, size_t count,
                                      rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm);

/* ---- nonblocking collectives -------------------------------------------------------------
 *
 * Every collective has a nonblocking form: the blocking signature and an rcmsg_request_t *
 * last. The buffers belong to rcmsg until the request completes; the arrays are copied. It is
 * completed by rcmsg_wait, rcmsg_test, waitall, waitany, testall like any request (its
 * status: source and tag meaningless, count 0, error the collective's outcome), and
 * progressed by any rcmsg progress (the blocking calls, waits and tests on other requests,
 * progress hooks' rounds), with no thread. Several may be outstanding on one communicator,
 * mixed with point-to-point and blocking collectives; every rank starts its collectives
 * (blocking and nonblocking) on a communicator in the same order, as MPI requires. Each takes
 * its own tag, so they never mix. rcmsg_cancel of one: RCMSG_ERR_INVALID_PARAM ("a collective
 * cannot be cancelled"). Argument errors are returned by the call itself (*req_p is then
 * RCMSG_REQUEST_NULL). RCMSG_COLL_CHECK checks the blocking calls only (its agreement would
 * make a nonblocking one wait for the others to start it). Free a communicator only once its
 * nonblocking collectives have completed: rcmsg_comm_free refuses one with any outstanding
 * (RCMSG_ERR_STATE, logged). Each active one is advanced from a progress hook
 * of rcmsg's own (one of RCMSG_PROGRESS_HOOK_MAX, registered while any is active): with every
 * hook taken the call fails with RCMSG_ERR_NO_RESOURCE.
 */
RCMSG_API rcmsg_status_t rcmsg_ibarrier(rcmsg_comm_t comm, rcmsg_request_t *req_p);
RCMSG_API rcmsg_status_t rcmsg_ibcast(void *buf, size_t count, rcmsg_datatype_t dtype, int root,
                                      rcmsg_comm_t comm, rcmsg_request_t *req_p);
RCMSG_API rcmsg_status_t rcmsg_ireduce(const void *sendbuf, void *recvbuf, size_t count,
                                       rcmsg_datatype_t dtype, rcmsg_op_t op, int root,
                                       rcmsg_comm_t comm, rcmsg_request_t *req_p);
RCMSG_API rcmsg_status_t rcmsg_iallreduce(const void *sendbuf, void *recvbuf, size_t count,
                                          rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm,
                                          rcmsg_request_t *req_p);
RCMSG_API rcmsg_status_t rcmsg_igather(const void *sendbuf, void *recvbuf, size_t count,
                                       rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm,
                                       rcmsg_request_t *req_p);
RCMSG_API rcmsg_status_t rcmsg_iscatter(const void *sendbuf, void *recvbuf, size_t count,
                                        rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm,
                                        rcmsg_request_t *req_p);
RCMSG_API rcmsg_status_t rcmsg_iallgather(const void *sendbuf, void *recvbuf, size_t count,
                                          rcmsg_datatype_t dtype, rcmsg_comm_t comm,
                                          rcmsg_request_t *req_p);
RCMSG_API rcmsg_status_t rcmsg_ialltoall(const void *sendbuf, void *recvbuf, size_t count,
                                         rcmsg_datatype_t dtype, rcmsg_comm_t comm,
                                         rcmsg_request_t *req_p);
RCMSG_API rcmsg_status_t rcmsg_ireduce_scatter_block(const void *sendbuf, void *recvbuf,
                                                     size_t count, rcmsg_datatype_t dtype,
                                                     rcmsg_op_t op, rcmsg_comm_t comm,
                                                     rcmsg_request_t *req_p);
RCMSG_API rcmsg_status_t rcmsg_igatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                                        const size_t recvcounts[], const size_t displs[],
                                        rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm,
                                        rcmsg_request_t *req_p);
RCMSG_API rcmsg_status_t rcmsg_iscatterv(const void *sendbuf, const size_t sendcounts[],
                                         const size_t displs[], void *recvbuf, size_t recvcount,
                                         rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm,
                                         rcmsg_request_t *req_p);
RCMSG_API rcmsg_status_t rcmsg_iallgatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                                           const size_t recvcounts[], const size_t displs[],
                                           rcmsg_datatype_t dtype, rcmsg_comm_t comm,
                                           rcmsg_request_t *req_p);
RCMSG_API rcmsg_status_t rcmsg_ialltoallv(const void *sendbuf, const size_t sendcounts[],
                                          const size_t sdispls[], void *recvbuf,
                                          const size_t recvcounts[], const size_t rdispls[],
                                          rcmsg_datatype_t dtype, rcmsg_comm_t comm,
                                          rcmsg_request_t *req_p);
RCMSG_API rcmsg_status_t rcmsg_ireduce_scatter(const void *sendbuf, void *recvbuf,
                                               const size_t recvcounts[], rcmsg_datatype_t dtype,
                                               rcmsg_op_t op, rcmsg_comm_t comm,
                                               rcmsg_request_t *req_p);
RCMSG_API rcmsg_status_t rcmsg_iscan(const void *sendbuf, void *recvbuf, size_t count,
                                     rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm,
                                     rcmsg_request_t *req_p);
RCMSG_API rcmsg_status_t rcmsg_iexscan(const void *sendbuf, void *recvbuf, size_t count,
                                       rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm,
                                       rcmsg_request_t *req_p);

/* ---- neighborhood collectives -----------------------------------------------------------
 *
 * An exchange with explicit neighbor lists (the MPI face's neighborhood collectives pass a
 * process topology's): this rank sends sendcounts[i] elements at sendbuf + sdispls[i] to rank
 * dsts[i] (i < ndst) and receives recvcounts[j] elements from rank srcs[j] into recvbuf +
 * rdispls[j] (j < nsrc), counts and displacements in elements of dtype. Every rank of comm (an
 * intracommunicator) calls it, those without neighbors too, in the same order as its other
 * collectives; each passes its own lists. All messages of the call are under way at once.
 *   - A rank may be listed more than once: the k-th message this rank sends to r lands in the
 *     k-th receive from this rank in r's srcs (lists in order). So A's k-th send to B and B's
 *     k-th receive from A must have the same count (else RCMSG_ERR_INVALID_PARAM, naming A).
 *   - RCMSG_PROC_NULL is no neighbor: nothing is sent or received for it, its receive block
 *     is left untouched. A message of 0 elements is not sent.
 *   - A rank outside comm, a negative count of neighbors, NULL arrays with neighbors, a NULL
 *     buffer with data to move, RCMSG_IN_PLACE, an intercommunicator: RCMSG_ERR_INVALID_PARAM,
 *     logged. RCMSG_COLL_CHECK compares only the call (the lists differ from rank to rank).
 * The nonblocking form: as the other nonblocking collectives (above); the lists and arrays are
 * read by the call and may be reused once it returns.
 */
RCMSG_API rcmsg_status_t rcmsg_neighbor_alltoallv(const void *sendbuf, int ndst, const int dsts[],
                                                  const size_t sendcounts[], const size_t sdispls[],
                                                  void *recvbuf, int nsrc, const int srcs[],
                                                  const size_t recvcounts[], const size_t rdispls[],
                                                  rcmsg_datatype_t dtype, rcmsg_comm_t comm);
RCMSG_API rcmsg_status_t rcmsg_ineighbor_alltoallv(const void *sendbuf, int ndst, const int dsts[],
                                                   const size_t sendcounts[],
                                                   const size_t sdispls[], void *recvbuf, int nsrc,
                                                   const int srcs[], const size_t recvcounts[],
                                                   const size_t rdispls[], rcmsg_datatype_t dtype,
                                                   rcmsg_comm_t comm, rcmsg_request_t *req_p);

/* ---- one-sided communication (docs/osc.md) ---------------------------------------------
 *
 * A window is memory that every member of a communicator exposes to the others: each member
 * gives its own base and size (0: none) when the window is made, and the members exchange
 * them (with rc, the window's registration key) among themselves only. A member then reads
 * (rcmsg_get), writes (rcmsg_put) and updates with 64-bit atomics (rcmsg_fetch_add,
 * rcmsg_compare_swap) any member's memory, naming it by (target rank in the communicator,
 * byte displacement from that member's base), without the target taking part: over rc by RDMA
 * READ / WRITE / ATOMIC on the window's memory registration, over shared memory by one copy
 * (CMA, process_vm_readv/writev), to itself by memcpy and the CPU's atomics. Where a
 * transport cannot do an operation itself (sm's atomics; puts where CMA is not permitted) the
 * target does it in its progress, on a message: such a target must enter rcmsg (a wait, a
 * test, a flush or fence) for the operation to complete. Windows need rcmsg_init; free them
 * before rcmsg_finalize.
 *
 * Operations are nonblocking: each starts the transfer and returns; it is complete (a put's
 * bytes in the target's memory, a get's in the origin buffer, an atomic's old value in *old_p)
 * once rcmsg_win_flush of its target (or of all) or rcmsg_win_fence returns. Until then the
 * origin buffer and old_p belong to rcmsg. Operations from one origin to one target are not
 * ordered among themselves (a flush between them orders them). An access that does not fit
 * in the target's window (disp + len beyond its size), or an atomic whose target address is
 * not 8-byte aligned, is refused by the call with RCMSG_ERR_INVALID_PARAM, logged with the
 * target, displacement, length and window size, before anything is sent. The errors of
 * operations that failed after they started (RCMSG_ERR_CONNECTION: the target is lost) are
 * returned by the next flush or fence that covers them.
 *
 * Atomics: 64-bit unsigned integers in the target's byte order (two's complement: a negative
 * add subtracts); atomic with each other on one location when they reach it the same way:
 * all by the CPU (self, sm), or all by rc's RDMA atomics (an rc window's owner, whose own
 * atomics go by the CPU, is atomic with the others only on a device with IBV_ATOMIC_GLOB).
 * Recovery (docs/rc.md): an rc connection that breaks and is recovered replays the puts and
 * gets in flight; an atomic in flight then is never sent twice: it fails with RCMSG_ERR_IO
 * (applied at most once; whether it was is unknown).
 */
typedef struct rcmsg_win *rcmsg_win_t;
#define RCMSG_WIN_NULL ((rcmsg_win_t)0)

/* Collective over comm (an intracommunicator): a window over [base, base + size) of each
 * member (base may be NULL when size is 0). The memory stays the caller's; with rc it is
 * registered for remote access until rcmsg_win_free. */
RCMSG_API rcmsg_status_t rcmsg_win_create(void *base, size_t size, rcmsg_comm_t comm,
                                          rcmsg_win_t *win_p);
/* As rcmsg_win_create over size bytes that rcmsg allocates (zeroed, 64-byte aligned; freed by
 * rcmsg_win_free): *base_p gets their address. Where sm is opened they are shared memory that
 * the members on the node map: their puts, gets and atomics on it are plain loads, stores and
 * the CPU's atomics, complete at once (docs/osc.md). */
RCMSG_API rcmsg_status_t rcmsg_win_allocate(size_t size, rcmsg_comm_t comm, void **base_p,
                                            rcmsg_win_t *win_p);
/* Collective over the window's members: completes this member's operations (as a flush of
 * all), waits until every member did (no one accesses this member's memory any more), then
 * releases the window; *win_p becomes RCMSG_WIN_NULL. Returns the first error of those
 * operations, or of the closing barrier (the window is released anyway). */
RCMSG_API rcmsg_status_t rcmsg_win_free(rcmsg_win_t *win_p);
/* This member's base and size, and the number of members (any of the pointers may be NULL). */
RCMSG_API rcmsg_status_t rcmsg_win_query(rcmsg_win_t win, void **base_p, size_t *size_p,
                                         int *members_p);

/* Dynamic windows (MPI's Win_create_dynamic): collective over comm, a window with no memory;
 * each member then attaches regions of its own memory (rcmsg_win_attach) and detaches them,
 * alone: no other member takes part. An operation names the target's memory by its address
 * (disp: the address, as a size_t; rcmsg_win_query's base is NULL, size 0); it may cross
 * adjacent regions (an atomic lies in one); one that reaches a byte no region of the target
 * holds is refused like any access outside a window (nothing sent). Each member's regions are in a
 * table the origins read one-sidedly (docs/osc.md): the first access to a target after a progress
 * round costs one 8-byte read of it more (the table's version), and a read of its table when it
 * changed. An origin must learn of a target's attach (a message, a barrier) before it accesses the
 * region. Freed by rcmsg_win_free (the regions still attached are detached). */
RCMSG_API rcmsg_status_t rcmsg_win_create_dynamic(rcmsg_comm_t comm, rcmsg_win_t *win_p);
/* Local: [base, base + size) of this member's memory is exposed in the dynamic window (with rc
 * registered for remote access until detached). RCMSG_ERR_INVALID_PARAM: not a dynamic window,
 * base NULL, or overlapping a region attached already; RCMSG_ERR_NO_RESOURCE: 1024 regions
 * attached already. */
RCMSG_API rcmsg_status_t rcmsg_win_attach(rcmsg_win_t win, void *base, size_t size);
/* Local: the region attached at base is no longer exposed (nor registered); the program
 * ensures no access to it is in flight. RCMSG_ERR_NOT_FOUND: no region attached at base. */
RCMSG_API rcmsg_status_t rcmsg_win_detach(rcmsg_win_t win, const void *base);
/* Whether the target exposes [disp, disp + len) in win (any window; a dynamic one: inside its
 * attached regions, its table read when needed): RCMSG_OK, RCMSG_ERR_NOT_FOUND (not logged),
 * or the error of reading the target's table. Nothing is accessed. */
RCMSG_API rcmsg_status_t rcmsg_win_attached(rcmsg_win_t win, int target, size_t disp, size_t len);

/* len bytes from origin to the target's window at disp. */
RCMSG_API rcmsg_status_t rcmsg_put(const void *origin, size_t len, int target, size_t disp,
                                   rcmsg_win_t win);
/* len bytes of the target's window at disp into origin. */
RCMSG_API rcmsg_status_t rcmsg_get(void *origin, size_t len, int target, size_t disp,
                                   rcmsg_win_t win);
/* Fetch-and-add: the 8 bytes at disp become old + add; *old_p (may be NULL) gets old. */
RCMSG_API rcmsg_status_t rcmsg_fetch_add(uint64_t add, uint64_t *old_p, int target, size_t disp,
                                         rcmsg_win_t win);
/* Compare-and-swap: the 8 bytes at disp become swap if they equal compare; *old_p (may be
 * NULL) gets the value found (equal to compare: the swap took place). */
RCMSG_API rcmsg_status_t rcmsg_compare_swap(uint64_t compare, uint64_t swap, uint64_t *old_p,
                                            int target, size_t disp, rcmsg_win_t win);
/* Accumulates (MPI's): element-wise on a basic datatype, atomic with each other element by
 * element on one location (not with put, get, fetch_add, compare_swap). They always go by
 * message and are applied by the target in its progress (it must enter rcmsg), its own too.
 * op: a predefined operation defined on dtype, or: */
#define RCMSG_OP_REPLACE ((rcmsg_op_t)-2) /* the target's element becomes the origin's */
#define RCMSG_OP_NO_OP   ((rcmsg_op_t)-3) /* the target's element stays (get_accumulate: a read) */
/* target[i] = origin[i] op target[i] for i < count, at disp. */
RCMSG_API rcmsg_status_t rcmsg_accumulate(const void *origin, size_t count, rcmsg_datatype_t dtype,
                                          rcmsg_op_t op, int target, size_t disp, rcmsg_win_t win);
/* The same, result[i] getting target[i] as it was (origin may be NULL with RCMSG_OP_NO_OP). */
RCMSG_API rcmsg_status_t rcmsg_get_accumulate(const void *origin, void *result, size_t count,
                                              rcmsg_datatype_t dtype, rcmsg_op_t op, int target,
                                              size_t disp, rcmsg_win_t win);
/* One element of dtype at disp becomes *swap if it equals *compare (bytewise); *result gets it
 * as it was. Atomic with the accumulates. */
RCMSG_API rcmsg_status_t rcmsg_acc_compare_swap(const void *compare, const void *swap, void *result,
                                                rcmsg_datatype_t dtype, int target, size_t disp,
                                                rcmsg_win_t win);
/* Completes this member's operations to target (RCMSG_ANY_SOURCE: to every member), and
 * returns the first error among them. */
RCMSG_API rcmsg_status_t rcmsg_win_flush(int target, rcmsg_win_t win);
/* Collective over the members: completes this member's operations (a flush of all), then a
 * barrier: on return every operation any member started before its fence is complete. */
RCMSG_API rcmsg_status_t rcmsg_win_fence(rcmsg_win_t win);

/* ---- events ------------------------------------------------------------------------------
 *
 * An application may be told when a connection changes: one handler for the process, set
 * with rcmsg_event_handler_set() (before rcmsg_init() too, to see the connections init makes).
 * It is called from progress, that is inside an rcmsg call that tests or waits, at the end of
 * rcmsg_init() and at the start of rcmsg_finalize(), never from a signal handler or another
 * thread; an event is delivered at the first of these after it happened. The handler must return
 * promptly and must not call rcmsg functions other than rcmsg_rank(), rcmsg_size(),
 * rcmsg_status_name() and rcmsg_strerror(). Events that find the queue full (more than 1024 between
 * two progress calls) are dropped and counted (events_dropped, see RCMSG_STATS).
 */
typedef enum {
    RCMSG_EVENT_CONNECTED,    /* rc: the connection reached RTS; sm: the peer attached (init) */
    RCMSG_EVENT_DISCONNECTED, /* rc: the connection was closed (idle recycling, RCMSG_QP_MAX_ACTIVE)
                               */
    RCMSG_EVENT_RECOVERED,    /* rc: the connection survived a QP error (see docs/rc.md) */
    RCMSG_EVENT_PEER_FAILED,  /* the peer is lost: its requests fail with status */
} rcmsg_event_kind_t;

typedef struct {
    rcmsg_event_kind_t kind;
    int peer;              /* its rank in the job (rcmsg_comm_world()) */
    const char *transport; /* "rc", "sm", "self" */
    rcmsg_status_t status; /* PEER_FAILED: why (RCMSG_ERR_CONNECTION, ...); others RCMSG_OK */
    const char *cause;     /* in words, e.g. the completion error; valid during the call */
} rcmsg_event_t;

typedef void (*rcmsg_event_handler_t)(const rcmsg_event_t *event, void *arg);

/* Sets the handler (NULL: none) and the argument it gets; replaces the previous one. */
RCMSG_API rcmsg_status_t rcmsg_event_handler_set(rcmsg_event_handler_t handler, void *arg);

/* ---- progress hooks ----------------------------------------------------------------------
 *
 * A layer built over rcmsg that keeps its own operations in flight (state machines made of
 * rcmsg requests: the MPI face's nonblocking collectives) needs to run whenever rcmsg makes
 * progress, also while the program is blocked inside rcmsg. A progress hook is such a
 * function. Once registered it is called from every progress round, in the calling thread:
 * inside every rcmsg call that tests or waits (rcmsg_test*, rcmsg_wait*, rcmsg_iprobe,
 * rcmsg_probe, the blocking sends and receives), at every turn of a blocking wait including
 * those inside the blocking collectives, and in RCMSG_WAIT_MODE=event or hybrid after each
 * wakeup (the arrival of any rcmsg message, the hook's own included, wakes a sleeping wait).
 * Never from a signal handler or another thread.
 *
 * - It is never called reentrantly: the rcmsg calls a hook makes run progress without calling
 *   any hook (the things that progress handles count for the round that called the hook).
 * - It must return promptly and must not block: it may call rcmsg_isend, rcmsg_irecv,
 *   rcmsg_issend, rcmsg_test*, rcmsg_iprobe and rcmsg_cancel, not rcmsg_wait*, the blocking
 *   calls, the collectives or rcmsg_finalize.
 * - It returns how many things it advanced (0: nothing; a negative value counts as 0). A
 *   positive count is progress: the wait that called it polls again instead of sleeping
 *   (event and hybrid waits), and RCMSG_STALL_TIMEOUT's clock starts again.
 * - Registration needs no rcmsg_init() and outlives rcmsg_finalize(); hooks run in the order
 *   they were registered. A hook may register and unregister hooks (itself included) while
 *   it runs: one unregistered is not called again, one registered runs from the next round.
 *
 * Register: RCMSG_ERR_INVALID_PARAM for a NULL fn or a (fn, arg) pair registered already,
 * RCMSG_ERR_NO_RESOURCE when RCMSG_PROGRESS_HOOK_MAX hooks are registered. Unregister:
 * RCMSG_ERR_INVALID_PARAM for a NULL fn, RCMSG_ERR_NOT_FOUND for a pair not registered. Each
 * error is logged.
 */
#define RCMSG_PROGRESS_HOOK_MAX 8

typedef int (*rcmsg_progress_fn_t)(void *arg);

/* Calls fn(arg) from every progress round from now on (see above). */
RCMSG_API rcmsg_status_t rcmsg_progress_register(rcmsg_progress_fn_t fn, void *arg);
/* Stops calling the hook registered with the same fn and arg. */
RCMSG_API rcmsg_status_t rcmsg_progress_unregister(rcmsg_progress_fn_t fn, void *arg);

#ifdef __cplusplus
}
#endif

#endif /* RCMSG_H */
