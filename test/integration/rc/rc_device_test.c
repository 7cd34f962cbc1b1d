/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Opens every RDMA device through btl_rc's device code and checks that port 1 is ACTIVE and
 * that a RoCE v2 GID is selected on Ethernet ports. RXE_EXPECT_DEVICES=N (set by the guest
 * runner) makes fewer than N devices a failure. No device at all: SKIP.
 */
#include "config.h"

#include "base/config_table.h"
#include "base/log.h"
#include "btl_rc/rc_device.h"

#include <stdio.h>
#include <stdlib.h>

static int check_device(const char *name)
{
    rcmsg_rc_device_t *dev;
    struct ibv_port_attr pa;
    rcmsg_rc_gid_t gid;
    char buf[64];
    int fail = 0;

    if (rcmsg_rc_device_open(name, &dev) != RCMSG_OK) {
        printf("FAIL: %s cannot be opened\n", name);
        return 1;
    }
    if (rcmsg_rc_port_query(dev, 1, &pa) != RCMSG_OK || pa.state != IBV_PORT_ACTIVE) {
        printf("FAIL: %s port 1 not ACTIVE\n", name);
        fail = 1;
    } else {
        printf("ok: %s port 1 ACTIVE, %s, mtu %d\n", name, rcmsg_rc_link_layer_name(pa.link_layer),
               rcmsg_rc_mtu_bytes(pa.active_mtu));
    }
    if (!fail && pa.link_layer == IBV_LINK_LAYER_ETHERNET) {
        if (rcmsg_rc_gid_select(dev, 1, -1, &gid) != RCMSG_OK ||
            gid.gid_type != IBV_GID_TYPE_ROCE_V2) {
            printf("FAIL: %s has no RoCE v2 GID selected\n", name);
            fail = 1;
        } else {
            printf("ok: %s gid index %d %s (%s%s)\n", name, gid.index,
                   rcmsg_rc_gid_str(&gid.gid, buf), rcmsg_rc_gid_type_name(gid.gid_type),
                   gid.ipv4_mapped ? ", IPv4-mapped" : "");
        }
        if (!fail && rcmsg_rc_gid_select(dev, 1, 1000, &gid) != RCMSG_ERR_NOT_FOUND) {
            printf("FAIL: %s: a forced index that does not exist is not refused\n", name);
            fail = 1;
        }
    }
    unsigned inl = rcmsg_rc_max_inline(dev, 4096), capped = rcmsg_rc_max_inline(dev, 64);
    if (inl == 0) {
        printf("FAIL: %s: max inline probe found nothing\n", name);
        fail = 1;
    } else if (capped == 0 || capped > 64 || capped > inl || rcmsg_rc_max_inline(dev, 0) != 0) {
        printf("FAIL: %s: max inline with a limit: %u for 64, %u for 0 (device: %u)\n", name,
               capped, rcmsg_rc_max_inline(dev, 0), inl);
        fail = 1;
    } else {
        printf("ok: %s max inline %u bytes, %u with a limit of 64\n", name, inl, capped);
    }
    rcmsg_rc_device_close(dev);
    return fail;
}

int main(void)
{
    const char *expect = rcmsg_config_foreign("RXE_EXPECT_DEVICES");
    char **names;
    int n, fail = 0;

    if (rcmsg_config_load(NULL) != RCMSG_OK) {
        return 1;
    }
    if (rcmsg_rc_device_names(&names, &n) != RCMSG_OK) {
        return 1;
    }
    if (n == 0) {
        printf("SKIP: no RDMA device (run inside the Soft-RoCE guest: make check-rdma)\n");
        rcmsg_rc_device_names_free(names);
        return 77;
    }
    if (expect != NULL && n < atoi(expect)) {
        printf("FAIL: %d device(s), expected %s\n", n, expect);
        fail = 1;
    }
    for (int i = 0; i < n; i++) {
        fail |= check_device(names[i]);
    }
    rcmsg_rc_device_names_free(names);
    rcmsg_config_unload();
    return fail;
}
