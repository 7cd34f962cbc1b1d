/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA device and port discovery for btl_rc: opening a device by name, port attributes,
 * the GID table with types, the RoCE v2 GID choice, the largest inline size, and the
 * device's NUMA locality. Used by the transport and by rcmsg_info.
 */
#ifndef RCMSG_BTL_RC_DEVICE_H
#define RCMSG_BTL_RC_DEVICE_H

#include <infiniband/verbs.h>
#include <rcmsg.h>
#include <stdbool.h>
#include <stddef.h>

/* An open device. Owned by whoever opened it; closed with rcmsg_rc_device_close(). */
typedef struct rcmsg_rc_device {
    char name[IBV_SYSFS_NAME_MAX];
    struct ibv_context *ctx;
    struct ibv_device_attr attr;
} rcmsg_rc_device_t;

/* One GID table entry (empty entries are skipped by the enumeration). */
typedef struct {
    int index;
    union ibv_gid gid;
    enum ibv_gid_type gid_type;
    bool ipv4_mapped;
} rcmsg_rc_gid_t;

/*
 * Names of the RDMA devices present, NULL-terminated, in the order libibverbs lists them.
 * Free with rcmsg_rc_device_names_free(). Zero devices is not an error (*count_p = 0).
 */
rcmsg_status_t rcmsg_rc_device_names(char ***names_p, int *count_p);
void rcmsg_rc_device_names_free(char **names);

rcmsg_status_t rcmsg_rc_device_open(const char *name, rcmsg_rc_device_t **dev_p);
void rcmsg_rc_device_close(rcmsg_rc_device_t *dev);

rcmsg_status_t rcmsg_rc_port_query(rcmsg_rc_device_t *dev, int port, struct ibv_port_attr *attr_p);

/*
 * Calls fn for each non-empty GID entry of the port, in index order; stops early when fn
 * returns non-zero. Returns the number of entries visited.
 */
int rcmsg_rc_gid_foreach(rcmsg_rc_device_t *dev, int port,
                         int (*fn)(const rcmsg_rc_gid_t *gid, void *arg), void *arg);

/*
 * The GID to use on a port. forced >= 0 takes that index (it must exist); otherwise on
 * RoCE: a RoCE v2 entry, IPv4-mapped first; on InfiniBand: index 0.
 */
rcmsg_status_t rcmsg_rc_gid_select(rcmsg_rc_device_t *dev, int port, int forced,
                                   rcmsg_rc_gid_t *gid_p);

/* What a RoCE GID is an address of: RoCE v2 carries it as the IP address of UDP packets. */
typedef enum {
    RCMSG_RC_GID_IPV4,       /* ::ffff:a.b.c.d, an IPv4 address */
    RCMSG_RC_GID_LINK_LOCAL, /* fe80::/10, an IPv6 link-local address */
    RCMSG_RC_GID_IPV6,       /* any other IPv6 address */
} rcmsg_rc_gid_kind_t;

rcmsg_rc_gid_kind_t rcmsg_rc_gid_kind(const union ibv_gid *gid);
/* "IPv4-mapped", "link-local IPv6", "IPv6" */
const char *rcmsg_rc_gid_kind_name(rcmsg_rc_gid_kind_t kind);

/*
 * Can a RoCE port using GID local of type ltype reach one using remote of type rtype (-1: not
 * known)? 0: yes. -1: never (an IPv4 and an IPv6 address, or RoCE v1 and v2). 1: doubtful
 * (a link-local and a global IPv6 address). For non-zero, a sentence naming both GIDs and
 * kinds is written to why (when not NULL). Pure: no verbs.
 */
int rcmsg_rc_gid_compat(const union ibv_gid *local, int ltype, const union ibv_gid *remote,
                        int rtype, char *why, size_t len);

/* The largest max_inline_data up to limit (at most 4096) that an RC QP on this device
 * accepts (probed by creating QPs), or 0. */
unsigned rcmsg_rc_max_inline(rcmsg_rc_device_t *dev, unsigned limit);

/*
 * NUMA locality of the device: writes the NUMA node set ("0", "0-1") into buf and returns
 * the first node, or writes "no locality" and returns -1 for a device without a PCI parent
 * (virtual devices such as rxe).
 */
int rcmsg_rc_device_numa(rcmsg_rc_device_t *dev, char *buf, size_t len);

const char *rcmsg_rc_port_state_name(enum ibv_port_state state);
const char *rcmsg_rc_link_layer_name(uint8_t link_layer);
const char *rcmsg_rc_gid_type_name(enum ibv_gid_type type);
int rcmsg_rc_mtu_bytes(enum ibv_mtu mtu);
/* "fe80:0000:...": buf must hold 40 bytes. */
const char *rcmsg_rc_gid_str(const union ibv_gid *gid, char *buf);

#endif /* RCMSG_BTL_RC_DEVICE_H */
