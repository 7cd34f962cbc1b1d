/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The connection manager (btl_rc/rc_cm.h) on a real device: a fork, rank 0 on the first RDMA
 * device and rank 1 on the second (when there are two, so that traffic crosses the veth). The
 * two exchange only their fixed-size CM addresses over a socketpair, connect an RC QP through
 * the CM and send each other a message over it.
 *
 *   rc_cm_test one    rank 1 connects, rank 0 answers
 *   rc_cm_test both   both connect at the same moment: one connection
 *   rc_cm_test dead   rank 1 exits after giving its address: rank 0's connect fails with
 *                     RCMSG_ERR_CONNECTION ("returned ... after S s (bound B s)")
 *
 * Prints "ok: ..." or "FAIL: ..."; exit 0, 1, or 77 (no device). RCMSG_CM_TIMEOUT and
 * RCMSG_CM_RETRIES come from the environment.
 */
#include "config.h"

#include "base/clock.h"
#include "base/config_table.h"
#include "base/log.h"
#include "btl_rc/rc_cm.h"
#include "btl_rc/rc_device.h"
#include "btl_rc/rc_qp.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define MSG_LEN 64
#define WAIT_US (30 * 1000000ull)

typedef struct {
    int rank;
    int sock;
    rcmsg_rc_device_t *dev;
    struct ibv_port_attr port_attr;
    rcmsg_rc_gid_t gid;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    rcmsg_rc_qp_t qp;
    struct ibv_mr *mr;
    char buf[2 * MSG_LEN]; /* receive, then send */
    rcmsg_rc_cm_payload_t local;
    rcmsg_rc_cm_t *cm;
} side_t;

static int fail(side_t *s, const char *what)
{
    printf("FAIL: rank %d: %s\n", s->rank, what);
    fflush(stdout);
    return 1;
}

static int sock_io(int fd, void *buf, size_t len, bool out)
{
    for (size_t done = 0; done < len;) {
        struct pollfd pfd = {.fd = fd, .events = out ? POLLOUT : POLLIN};
        ssize_t n;

        if (poll(&pfd, 1, 30000) != 1) {
            return -1;
        }
        n = out ? write(fd, (char *)buf + done, len - done)
                : read(fd, (char *)buf + done, len - done);
        if (n <= 0) {
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

/* ---- the RC QP, moved by the CM's callbacks ------------------------------------------- */

static int qp_to_init(side_t *s)
{
    struct ibv_qp_attr attr = {.qp_state = IBV_QPS_INIT,
                               .pkey_index = 0,
                               .port_num = 1,
                               .qp_access_flags = IBV_ACCESS_REMOTE_READ};

    if (s->qp.state != IBV_QPS_RESET) {
        struct ibv_qp_attr reset = {.qp_state = IBV_QPS_RESET};
        if (rcmsg_rc_qp_modify(&s->qp, &reset, IBV_QP_STATE) != RCMSG_OK) {
            return -1;
        }
    }
    return rcmsg_rc_qp_modify(&s->qp, &attr,
                              IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                                  IBV_QP_ACCESS_FLAGS) == RCMSG_OK
               ? 0
               : -1;
}

static int post_recv(side_t *s)
{
    struct ibv_sge sge = {.addr = (uintptr_t)s->buf, .length = MSG_LEN, .lkey = s->mr->lkey};
    struct ibv_recv_wr wr = {.wr_id = 1, .sg_list = &sge, .num_sge = 1}, *bad;

    return ibv_post_recv(s->qp.qp, &wr, &bad);
}

static int cb_rtr(void *arg, int peer, const rcmsg_rc_cm_payload_t *remote,
                  rcmsg_rc_cm_payload_t *local)
{
    side_t *s = arg;

    *local = s->local;
    struct ibv_qp_attr attr = {
        .qp_state = IBV_QPS_RTR,
        .path_mtu = remote->mtu < s->local.mtu ? remote->mtu : s->local.mtu,
        .dest_qp_num = remote->qpn,
        .rq_psn = remote->psn,
        .max_dest_rd_atomic = 1,
        .min_rnr_timer = 12,
    };

    if (s->qp.state != IBV_QPS_INIT) { /* a newer attempt of the peer: start again */
        if (qp_to_init(s) != 0 || post_recv(s) != 0) {
            return -1;
        }
    }
    rcmsg_rc_cm_ah_attr(s->cm, peer, &attr.ah_attr);
    return rcmsg_rc_qp_modify(&s->qp, &attr,
                              IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                                  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                                  IBV_QP_MIN_RNR_TIMER) == RCMSG_OK
               ? 0
               : -1;
}

static int cb_rts(void *arg, int peer, const rcmsg_rc_cm_payload_t *remote)
{
    side_t *s = arg;
    struct ibv_qp_attr attr = {.qp_state = IBV_QPS_RTS,
                               .timeout = 14,
                               .retry_cnt = 7,
                               .rnr_retry = 7,
                               .sq_psn = s->local.psn,
                               .max_rd_atomic = 1};

    (void)peer, (void)remote;
    return rcmsg_rc_qp_modify(&s->qp, &attr,
                              IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC) == RCMSG_OK
               ? 0
               : -1;
}

/* ---- setup ----------------------------------------------------------------------------- */

static int side_open(side_t *s, char **names, int ndev)
{
    struct ibv_qp_init_attr qa = {
        .qp_type = IBV_QPT_RC,
        .cap = {.max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1}};
    uint32_t psn;

    if (rcmsg_rc_device_open(names[s->rank % ndev], &s->dev) != RCMSG_OK ||
        rcmsg_rc_port_query(s->dev, 1, &s->port_attr) != RCMSG_OK ||
        rcmsg_rc_gid_select(s->dev, 1, -1, &s->gid) != RCMSG_OK) {
        return fail(s, "device, port 1 or its GID");
    }
    s->pd = ibv_alloc_pd(s->dev->ctx);
    s->cq = s->pd != NULL ? ibv_create_cq(s->dev->ctx, 8, NULL, NULL, 0) : NULL;
    s->mr =
        s->cq != NULL ? ibv_reg_mr(s->pd, s->buf, sizeof(s->buf), IBV_ACCESS_LOCAL_WRITE) : NULL;
    if (s->mr == NULL) {
        return fail(s, "PD, CQ or MR");
    }
    qa.send_cq = qa.recv_cq = s->cq;
    s->qp = (rcmsg_rc_qp_t){.qp = ibv_create_qp(s->pd, &qa),
                            .state = IBV_QPS_RESET,
                            .peer = 1 - s->rank,
                            .dev_name = s->dev->name,
                            .port = 1};
    if (s->qp.qp == NULL || qp_to_init(s) != 0 || post_recv(s) != 0) {
        return fail(s, "RC QP to INIT");
    }
    if (getrandom(&psn, sizeof(psn), 0) != sizeof(psn)) {
        psn = (uint32_t)getpid();
    }
    s->local = (rcmsg_rc_cm_payload_t){.qpn = s->qp.qp->qp_num,
                                       .psn = psn & 0xffffff,
                                       .buf_size = MSG_LEN,
                                       .mtu = (uint8_t)s->port_attr.active_mtu,
                                       .rd_atomic = 1,
                                       .seq = {(uint64_t)s->rank + 1, 0}};
    return 0;
}

static int cm_open(side_t *s, uint64_t job)
{
    rcmsg_rc_cm_where_t where = {.ctx = s->dev->ctx,
                                 .pd = s->pd,
                                 .dev_name = s->dev->name,
                                 .port = 1,
                                 .port_attr = &s->port_attr,
                                 .gid_index = s->gid.index,
                                 .gid = &s->gid.gid,
                                 .gid_type = (int)s->gid.gid_type};
    rcmsg_rc_cm_params_t params = {
        .self = s->rank,
        .size = 2,
        .job = job,
        .timeout_us = rcmsg_config_time_us(RCMSG_CFG_CM_TIMEOUT),
        .max_tries = (unsigned)rcmsg_config_int(RCMSG_CFG_CM_RETRIES),
    };
    rcmsg_rc_cm_ops_t ops = {.rtr = cb_rtr, .rts = cb_rts, .arg = s};
    uint8_t mine[RC_CM_ADDR_SIZE], theirs[RC_CM_ADDR_SIZE];

    if (rcmsg_rc_cm_open(&where, &params, &ops, &s->cm) != RCMSG_OK) {
        return fail(s, "rcmsg_rc_cm_open");
    }
    rcmsg_rc_cm_addr_pack(s->cm, mine);
    if (sock_io(s->sock, mine, sizeof(mine), true) != 0 ||
        sock_io(s->sock, theirs, sizeof(theirs), false) != 0) {
        return fail(s, "CM address exchange over the socketpair");
    }
    if (rcmsg_rc_cm_add_peer(s->cm, 1 - s->rank, theirs, sizeof(theirs), &s->local) != RCMSG_OK) {
        return fail(s, "the peer's CM address");
    }
    return 0;
}

/* ---- the exchange ---------------------------------------------------------------------- */

static int wait_connected(side_t *s)
{
    rcmsg_deadline_t d = rcmsg_deadline_in(WAIT_US);

    while (rcmsg_rc_cm_state(s->cm, 1 - s->rank) != RC_CM_CONNECTED) {
        rcmsg_rc_cm_progress(s->cm);
        if (rcmsg_rc_cm_state(s->cm, 1 - s->rank) == RC_CM_FAILED || rcmsg_deadline_passed(d)) {
            return fail(s, "not connected by the peer's connect");
        }
    }
    return 0;
}

/* Sends a message over the RC QP and waits for the peer's (progressing the CM meanwhile: a
 * lost RTU is answered while the peer's REP comes again). */
static int exchange(side_t *s)
{
    struct ibv_sge sge = {
        .addr = (uintptr_t)(s->buf + MSG_LEN), .length = MSG_LEN, .lkey = s->mr->lkey};
    struct ibv_send_wr wr = {.wr_id = 2,
                             .sg_list = &sge,
                             .num_sge = 1,
                             .opcode = IBV_WR_SEND,
                             .send_flags = IBV_SEND_SIGNALED},
                       *bad;
    rcmsg_deadline_t d = rcmsg_deadline_in(WAIT_US);
    bool sent = false, received = false;
    char want[MSG_LEN];

    snprintf(s->buf + MSG_LEN, MSG_LEN, "hello from rank %d over qp 0x%x", s->rank,
             s->qp.qp->qp_num);
    if (ibv_post_send(s->qp.qp, &wr, &bad) != 0) {
        return fail(s, "ibv_post_send on the connected QP");
    }
    while ((!sent || !received) && !rcmsg_deadline_passed(d)) {
        struct ibv_wc wc;
        rcmsg_rc_cm_progress(s->cm);
        if (ibv_poll_cq(s->cq, 1, &wc) != 1) {
            continue;
        }
        if (wc.status != IBV_WC_SUCCESS) {
            printf("FAIL: rank %d: %s completed with %s\n", s->rank,
                   wc.wr_id == 2 ? "the send" : "the receive", ibv_wc_status_str(wc.status));
            return 1;
        }
        sent |= wc.wr_id == 2;
        if (wc.wr_id == 1) {
            received = true;
            rcmsg_rc_cm_established(s->cm, 1 - s->rank); /* stands for a lost RTU */
        }
    }
    if (!sent || !received) {
        return fail(s, sent ? "no message from the peer" : "the send did not complete");
    }
    snprintf(want, sizeof(want), "hello from rank %d over qp 0x", 1 - s->rank);
    if (strncmp(s->buf, want, strlen(want)) != 0) {
        return fail(s, "the message received differs");
    }
    printf("ok: rank %d: received \"%s\"\n", s->rank, s->buf);
    return 0;
}

/* Both sides done: progress the CM until the peer says so (it may still need our RTU). */
static int finish(side_t *s)
{
    char c = 'd';
    rcmsg_deadline_t d = rcmsg_deadline_in(WAIT_US);

    if (sock_io(s->sock, &c, 1, true) != 0) {
        return fail(s, "final sync");
    }
    while (!rcmsg_deadline_passed(d)) {
        struct pollfd pfd = {.fd = s->sock, .events = POLLIN};
        rcmsg_rc_cm_progress(s->cm);
        if (poll(&pfd, 1, 0) == 1) {
            return read(s->sock, &c, 1) == 1 ? 0 : fail(s, "final sync");
        }
        usleep(100);
    }
    return fail(s, "final sync");
}

static int run_dead(side_t *s)
{
    uint64_t start = rcmsg_clock_us();
    rcmsg_status_t st = rcmsg_rc_cm_connect_wait(s->cm, 1, s->local.qpn, s->local.psn);
    double secs = (double)(rcmsg_clock_us() - start) / 1e6;
    double bound = (double)rcmsg_config_time_us(RCMSG_CFG_CM_TIMEOUT) / 1e6 *
                   (double)rcmsg_config_int(RCMSG_CFG_CM_RETRIES);

    printf("rank 0: connect to the dead rank 1 returned %s after %.2f s (bound %.2f s)\n",
           rcmsg_status_name(st), secs, bound);
    return st == RCMSG_ERR_CONNECTION ? 0 : 1;
}

static int side_run(side_t *s, const char *mode, char **names, int ndev)
{
    int rc = side_open(s, names, ndev);

    if (rc == 0) {
        rc = cm_open(s, 0x52434d5445535400ull ^ (uint64_t)getpgrp());
    }
    if (rc != 0) {
        return rc;
    }
    if (strcmp(mode, "dead") == 0) {
        return s->rank == 1 ? 0 : run_dead(s);
    }
    if (strcmp(mode, "both") == 0 || s->rank == 1) {
        rc = rcmsg_rc_cm_connect_wait(s->cm, 1 - s->rank, s->local.qpn, s->local.psn) == RCMSG_OK
                 ? 0
                 : fail(s, "connect");
    } else {
        rc = wait_connected(s);
    }
    if (rc == 0) {
        rc = exchange(s);
    }
    if (rc == 0) {
        rc = finish(s);
    }
    return rc;
}

static void side_close(side_t *s)
{
    rcmsg_rc_cm_close(s->cm);
    if (s->qp.qp != NULL) {
        ibv_destroy_qp(s->qp.qp);
    }
    if (s->mr != NULL) {
        ibv_dereg_mr(s->mr);
    }
    if (s->cq != NULL) {
        ibv_destroy_cq(s->cq);
    }
    if (s->pd != NULL) {
        ibv_dealloc_pd(s->pd);
    }
    rcmsg_rc_device_close(s->dev);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    char **names = NULL;
    int ndev = 0, sv[2], rc, wst = 0;
    side_t s = {0};
    pid_t child;

    if (strcmp(mode, "one") != 0 && strcmp(mode, "both") != 0 && strcmp(mode, "dead") != 0) {
        fprintf(stderr, "usage: rc_cm_test one|both|dead\n");
        return 2;
    }
    if (rcmsg_config_load(NULL) != RCMSG_OK) {
        return 1;
    }
    if (rcmsg_rc_device_names(&names, &ndev) != RCMSG_OK || ndev == 0) {
        printf("SKIP: no RDMA device\n");
        return 77;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 || (child = fork()) < 0) {
        printf("FAIL: socketpair/fork: %s\n", strerror(errno));
        return 1;
    }
    s.rank = child == 0 ? 1 : 0;
    rcmsg_log_set_rank(s.rank); /* the log lines name the side: "[rcmsg HOST:R PID]" */
    s.sock = sv[s.rank];
    close(sv[1 - s.rank]);
    rc = side_run(&s, mode, names, ndev);
    side_close(&s);
    rcmsg_rc_device_names_free(names);
    close(s.sock);
    if (child == 0) {
        fflush(stdout);
        _exit(rc);
    }
    if (waitpid(child, &wst, 0) != child || !WIFEXITED(wst) || WEXITSTATUS(wst) != 0) {
        printf("FAIL: rank 1 exited with status 0x%x\n", wst);
        rc = 1;
    }
    printf("%s: %s\n", rc == 0 ? "ok" : "FAIL", mode);
    return rc;
}
