/* SPDX-License-Identifier: BSD-3-Clause */
/* RDMA device and port discovery. */
#include "config.h"

#include "rc_device.h"

#include "base/log.h"
#include "base/topo.h"

#include <arpa/inet.h>
#include <errno.h>
#include <hwloc/openfabrics-verbs.h>
#include <stdlib.h>
#include <string.h>

rcmsg_status_t rcmsg_rc_device_names(char ***names_p, int *count_p)
{
    struct ibv_device **list;
    char **names;
    int n = 0;

    list = ibv_get_device_list(&n);
    if (list == NULL) {
        /* ENOSYS: no kernel support; that means no device, not a failure */
        if (errno == ENOSYS || errno == ENODEV) {
            n = 0;
        } else {
            rcmsg_error("ibv_get_device_list failed: %m");
            return RCMSG_ERR_IO;
        }
    }
    names = calloc((size_t)n + 1, sizeof(*names));
    if (names == NULL) {
        ibv_free_device_list(list);
        return RCMSG_ERR_NO_MEMORY;
    }
    for (int i = 0; i < n; i++) {
        names[i] = strdup(ibv_get_device_name(list[i]));
        if (names[i] == NULL) {
            rcmsg_rc_device_names_free(names);
            ibv_free_device_list(list);
            return RCMSG_ERR_NO_MEMORY;
        }
    }
    if (list != NULL) {
        ibv_free_device_list(list);
    }
    *names_p = names;
    *count_p = n;
    return RCMSG_OK;
}

void rcmsg_rc_device_names_free(char **names)
{
    for (int i = 0; names != NULL && names[i] != NULL; i++) {
        free(names[i]);
    }
    free(names);
}

rcmsg_status_t rcmsg_rc_device_open(const char *name, rcmsg_rc_device_t **dev_p)
{
    struct ibv_device **list;
    struct ibv_context *ctx = NULL;
    rcmsg_rc_device_t *dev;
    int n = 0;

    list = ibv_get_device_list(&n);
    for (int i = 0; i < n; i++) {
        if (strcmp(ibv_get_device_name(list[i]), name) == 0) {
            ctx = ibv_open_device(list[i]);
            if (ctx == NULL) {
                rcmsg_error("ibv_open_device(%s) failed: %m", name);
                ibv_free_device_list(list);
                return RCMSG_ERR_IO;
            }
            break;
        }
    }
    if (list != NULL) {
        ibv_free_device_list(list);
    }
    if (ctx == NULL) {
        rcmsg_error("RDMA device %s not found (%d device(s) present)", name, n);
        return RCMSG_ERR_NO_DEVICE;
    }
    dev = calloc(1, sizeof(*dev));
    if (dev == NULL) {
        goto err_close;
    }
    snprintf(dev->name, sizeof(dev->name), "%s", name);
    dev->ctx = ctx;
    if (ibv_query_device(ctx, &dev->attr) != 0) {
        rcmsg_error("ibv_query_device(%s) failed: %m", name);
        goto err_free;
    }
    *dev_p = dev;
    return RCMSG_OK;

err_free:
    free(dev);
err_close:
    ibv_close_device(ctx);
    return dev == NULL ? RCMSG_ERR_NO_MEMORY : RCMSG_ERR_IO;
}

void rcmsg_rc_device_close(rcmsg_rc_device_t *dev)
{
    if (dev == NULL) {
        return;
    }
    if (ibv_close_device(dev->ctx) != 0) {
        rcmsg_warn("ibv_close_device(%s) failed: %m", dev->name);
    }
    free(dev);
}

rcmsg_status_t rcmsg_rc_port_query(rcmsg_rc_device_t *dev, int port, struct ibv_port_attr *attr_p)
{
    struct ibv_port_attr attr;
    int rc;

    if (port < 1 || port > dev->attr.phys_port_cnt) {
        rcmsg_error("%s has no port %d (ports 1..%d)", dev->name, port, dev->attr.phys_port_cnt);
        return RCMSG_ERR_NOT_FOUND;
    }
    rc = ibv_query_port(dev->ctx, (uint8_t)port, &attr);
    if (rc != 0) {
        rcmsg_error("ibv_query_port(%s:%d) failed: %s", dev->name, port, strerror(rc));
        return RCMSG_ERR_IO;
    }
    *attr_p = attr;
    return RCMSG_OK;
}

static bool gid_is_ipv4_mapped(const union ibv_gid *gid)
{
    static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return memcmp(gid->raw, prefix, sizeof(prefix)) == 0;
}

int rcmsg_rc_gid_foreach(rcmsg_rc_device_t *dev, int port,
                         int (*fn)(const rcmsg_rc_gid_t *gid, void *arg), void *arg)
{
    struct ibv_port_attr pattr;
    int visited = 0;

    if (rcmsg_rc_port_query(dev, port, &pattr) != RCMSG_OK) {
        return 0;
    }
    for (int i = 0; i < pattr.gid_tbl_len; i++) {
        struct ibv_gid_entry entry;
        rcmsg_rc_gid_t g;

        if (ibv_query_gid_ex(dev->ctx, (uint32_t)port, (uint32_t)i, &entry, 0) != 0) {
            continue; /* ENODATA: empty slot */
        }
        g.index = i;
        g.gid = entry.gid;
        g.gid_type = (enum ibv_gid_type)entry.gid_type;
        g.ipv4_mapped = gid_is_ipv4_mapped(&entry.gid);
        visited++;
        if (fn(&g, arg) != 0) {
            break;
        }
    }
    return visited;
}

typedef struct {
    int forced;
    int rank; /* best candidate so far: 2 = v2 IPv4-mapped, 1 = v2, 0 = none */
    rcmsg_rc_gid_t best;
} gid_choice_t;

static int gid_consider(const rcmsg_rc_gid_t *gid, void *arg)
{
    gid_choice_t *c = arg;
    int rank;

    if (c->forced >= 0) {
        if (gid->index == c->forced) {
            c->best = *gid;
            c->rank = 1;
            return 1;
        }
        return 0;
    }
    if (gid->gid_type != IBV_GID_TYPE_ROCE_V2) {
        return 0;
    }
    rank = gid->ipv4_mapped ? 2 : 1;
    if (rank > c->rank) {
        c->rank = rank;
        c->best = *gid;
    }
    return rank == 2;
}

rcmsg_status_t rcmsg_rc_gid_select(rcmsg_rc_device_t *dev, int port, int forced,
                                   rcmsg_rc_gid_t *gid_p)
{
    gid_choice_t c = {.forced = forced, .rank = 0};
    struct ibv_port_attr pattr;
    rcmsg_status_t status;
    char buf[64];

    status = rcmsg_rc_port_query(dev, port, &pattr);
    if (status != RCMSG_OK) {
        return status;
    }
    if (pattr.link_layer != IBV_LINK_LAYER_ETHERNET && forced < 0) {
        c.forced = 0; /* InfiniBand: the port GID, used only when a GRH is needed */
    }
    rcmsg_rc_gid_foreach(dev, port, gid_consider, &c);
    if (c.rank == 0) {
        if (forced >= 0) {
            rcmsg_error("%s:%d has no GID at index %d (RCMSG_GID_INDEX); rcmsg_info lists the "
                        "table",
                        dev->name, port, forced);
        } else {
            rcmsg_error("%s:%d has no RoCE v2 GID: is an IP address configured on its netdev?",
                        dev->name, port);
        }
        return RCMSG_ERR_NOT_FOUND;
    }
    rcmsg_info("%s:%d gid index %d %s (%s)", dev->name, port, c.best.index,
               rcmsg_rc_gid_str(&c.best.gid, buf), rcmsg_rc_gid_type_name(c.best.gid_type));
    *gid_p = c.best;
    return RCMSG_OK;
}

/* Creates a throw-away RC QP asking for `want` inline bytes; returns what was granted. */
static int inline_try(struct ibv_pd *pd, struct ibv_cq *cq, unsigned want, unsigned *got_p)
{
    struct ibv_qp_init_attr init = {
        .send_cq = cq,
        .recv_cq = cq,
        .qp_type = IBV_QPT_RC,
        .cap = {.max_send_wr = 1,
                .max_recv_wr = 1,
                .max_send_sge = 1,
                .max_recv_sge = 1,
                .max_inline_data = want},
    };
    struct ibv_qp *qp = ibv_create_qp(pd, &init);

    if (qp == NULL) {
        return -1;
    }
    *got_p = init.cap.max_inline_data;
    ibv_destroy_qp(qp);
    return 0;
}

static void cq_pd_free(struct ibv_cq *cq, struct ibv_pd *pd)
{
    if (cq != NULL) {
        ibv_destroy_cq(cq);
    }
    if (pd != NULL) {
        ibv_dealloc_pd(pd);
    }
}

unsigned rcmsg_rc_max_inline(rcmsg_rc_device_t *dev, unsigned limit)
{
    struct ibv_pd *pd = limit > 0 ? ibv_alloc_pd(dev->ctx) : NULL;
    struct ibv_cq *cq = pd ? ibv_create_cq(dev->ctx, 2, NULL, NULL, 0) : NULL;
    unsigned best = 0, got, top = limit < 4096 ? limit : 4096;

    /* the limit itself first: a device that grants it (rxe: 512 B, the default limit 256)
     * costs one throw-away QP, not a dozen (each a system call, ~10 ms under emulation) */
    if (cq != NULL && top > 0 && inline_try(pd, cq, top, &got) == 0) {
        cq_pd_free(cq, pd);
        return got < top ? got : top;
    }
    /* else a binary search for the largest accepted request in [0, limit] */
    for (unsigned lo = 1, hi = top; cq != NULL && lo <= hi;) {
        unsigned mid = lo + (hi - lo) / 2;
        if (inline_try(pd, cq, mid, &got) == 0) {
            best = got < mid ? got : mid; /* a device may grant more: never above limit */
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    cq_pd_free(cq, pd);
    return best;
}

int rcmsg_rc_device_numa(rcmsg_rc_device_t *dev, char *buf, size_t len)
{
    hwloc_topology_t topo = rcmsg_topo_get();
    hwloc_obj_t osdev, parent;
    int first;

    osdev = topo ? hwloc_ibv_get_device_osdev(topo, dev->ctx->device) : NULL;
    parent = osdev ? hwloc_get_non_io_ancestor_obj(topo, osdev) : NULL;
    /* a device hanging off the root (or absent) has no locality of its own */
    if (parent == NULL || parent->type == HWLOC_OBJ_MACHINE || parent->nodeset == NULL ||
        hwloc_bitmap_isequal(parent->nodeset, hwloc_topology_get_topology_nodeset(topo))) {
        snprintf(buf, len, "no locality");
        return -1;
    }
    hwloc_bitmap_list_snprintf(buf, len, parent->nodeset);
    first = hwloc_bitmap_first(parent->nodeset);
    return first;
}

const char *rcmsg_rc_port_state_name(enum ibv_port_state state)
{
    switch (state) {
    case IBV_PORT_NOP:
        return "NOP";
    case IBV_PORT_DOWN:
        return "DOWN";
    case IBV_PORT_INIT:
        return "INIT";
    case IBV_PORT_ARMED:
        return "ARMED";
    case IBV_PORT_ACTIVE:
        return "ACTIVE";
    case IBV_PORT_ACTIVE_DEFER:
        return "ACTIVE_DEFER";
    }
    return "UNKNOWN";
}

const char *rcmsg_rc_link_layer_name(uint8_t link_layer)
{
    switch (link_layer) {
    case IBV_LINK_LAYER_INFINIBAND:
    case IBV_LINK_LAYER_UNSPECIFIED:
        return "InfiniBand";
    case IBV_LINK_LAYER_ETHERNET:
        return "Ethernet";
    }
    return "unknown";
}

const char *rcmsg_rc_gid_type_name(enum ibv_gid_type type)
{
    switch (type) {
    case IBV_GID_TYPE_IB:
        return "IB";
    case IBV_GID_TYPE_ROCE_V1:
        return "RoCE v1";
    case IBV_GID_TYPE_ROCE_V2:
        return "RoCE v2";
    }
    return "unknown";
}

int rcmsg_rc_mtu_bytes(enum ibv_mtu mtu)
{
    return (mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096) ? 128 << mtu : 0;
}

const char *rcmsg_rc_gid_str(const union ibv_gid *gid, char *buf)
{
    if (inet_ntop(AF_INET6, gid->raw, buf, 40) == NULL) {
        snprintf(buf, 40, "?");
    }
    return buf;
}

rcmsg_rc_gid_kind_t rcmsg_rc_gid_kind(const union ibv_gid *gid)
{
    if (gid_is_ipv4_mapped(gid)) {
        return RCMSG_RC_GID_IPV4;
    }
    if (gid->raw[0] == 0xfe && (gid->raw[1] & 0xc0) == 0x80) {
        return RCMSG_RC_GID_LINK_LOCAL;
    }
    return RCMSG_RC_GID_IPV6;
}

const char *rcmsg_rc_gid_kind_name(rcmsg_rc_gid_kind_t kind)
{
    switch (kind) {
    case RCMSG_RC_GID_IPV4:
        return "IPv4-mapped";
    case RCMSG_RC_GID_LINK_LOCAL:
        return "link-local IPv6";
    case RCMSG_RC_GID_IPV6:
        return "IPv6";
    }
    return "unknown";
}

int rcmsg_rc_gid_compat(const union ibv_gid *local, int ltype, const union ibv_gid *remote,
                        int rtype, char *why, size_t len)
{
    rcmsg_rc_gid_kind_t lk = rcmsg_rc_gid_kind(local), rk = rcmsg_rc_gid_kind(remote);
    char lbuf[40], rbuf[40];
    const char *problem;
    int verdict;

    if (rtype >= 0 && rtype != ltype) {
        problem = "RoCE v1 and RoCE v2 do not interoperate";
        verdict = -1;
    } else if ((lk == RCMSG_RC_GID_IPV4) != (rk == RCMSG_RC_GID_IPV4)) {
        problem = "RoCE v2 cannot connect an IPv4 to an IPv6 address";
        verdict = -1;
    } else if (lk != rk) {
        problem = "a link-local address may not reach a global one";
        verdict = 1;
    } else {
        return 0;
    }
    if (why != NULL) {
        snprintf(why, len, "%s (%s, %s) here and %s (%s, %s) there: %s",
                 rcmsg_rc_gid_str(local, lbuf), rcmsg_rc_gid_kind_name(lk),
                 rcmsg_rc_gid_type_name((enum ibv_gid_type)ltype), rcmsg_rc_gid_str(remote, rbuf),
                 rcmsg_rc_gid_kind_name(rk),
                 rtype >= 0 ? rcmsg_rc_gid_type_name((enum ibv_gid_type)rtype) : "type unknown",
                 problem);
    }
    return verdict;
}
