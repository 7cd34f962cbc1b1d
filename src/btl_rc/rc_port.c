/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc: the choice of the device port. Candidates are the ACTIVE ports of the devices
 * named by RCMSG_NET_DEVICES (DEVICE or DEVICE:PORT), else of every device; the nearest ones
 * (same NUMA node as the process, then unknown locality, then another node) are shared out
 * by local rank. Each candidate device is opened once: the chosen one stays open for the
 * transport, the others are closed.
 */
#include "config.h"

#include "rc_iface.h"

#include "base/topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char name[IBV_SYSFS_NAME_MAX];
    rcmsg_rc_device_t *dev; /* opened; shared by the candidates of one device */
    int port;
    int distance; /* 0 same NUMA node as the process, 1 unknown (no locality), 2 other node */
} rc_candidate_t;

/* Adds the ACTIVE ports of device `name` (only `port` if > 0) to the candidates. */
static int rc_candidates_add(const char *name, int port, int numa, rc_candidate_t *c, int n,
                             int max)
{
    rcmsg_rc_device_t *dev;
    char where[64];
    int dev_numa, before = n;

    if (rcmsg_rc_device_open(name, &dev) != RCMSG_OK) {
        return n;
    }
    dev_numa = rcmsg_rc_device_numa(dev, where, sizeof(where));
    for (int p = 1; p <= dev->attr.phys_port_cnt && n < max; p++) {
        struct ibv_port_attr pa;
        if ((port > 0 && p != port) || rcmsg_rc_port_query(dev, p, &pa) != RCMSG_OK) {
            continue;
        }
        if (pa.state != IBV_PORT_ACTIVE) {
            rcmsg_info("%s:%d is %s, not used", name, p, rcmsg_rc_port_state_name(pa.state));
            continue;
        }
        snprintf(c[n].name, sizeof(c[n].name), "%s", name);
        c[n].dev = dev;
        c[n].port = p;
        c[n].distance = dev_numa < 0 ? 1 : (numa >= 0 && dev_numa == numa ? 0 : 2);
        rcmsg_info("candidate %s:%d (%s, numa %s)", name, p,
                   rcmsg_rc_link_layer_name(pa.link_layer), where);
        n++;
    }
    if (n == before) {
        rcmsg_rc_device_close(dev); /* kept open only while one of its ports is a candidate */
    }
    return n;
}

/* Closes the candidates' devices but keep (NULL: none); a device's candidates are adjacent. */
static void rc_candidates_close(rc_candidate_t *c, int n, const rcmsg_rc_device_t *keep)
{
    for (int i = 0; i < n; i++) {
        if (c[i].dev != keep && (i == 0 || c[i].dev != c[i - 1].dev)) {
            rcmsg_rc_device_close(c[i].dev);
        }
    }
}

/* The candidates among the RCMSG_NET_DEVICES entries (DEVICE or DEVICE:PORT): their number,
 * or -1 for a malformed entry. */
static int rc_candidates_wanted(char *const *wanted, size_t nwanted, int numa, rc_candidate_t *c,
                                int max)
{
    int n = 0;

    for (size_t i = 0; i < nwanted; i++) {
        char dev[IBV_SYSFS_NAME_MAX];
        int port = 0, before = n;
        const char *colon = strchr(wanted[i], ':');
        char *end;

        snprintf(dev, sizeof(dev), "%.*s",
                 (int)(colon ? (size_t)(colon - wanted[i]) : strlen(wanted[i])), wanted[i]);
        if (colon != NULL) {
            port = (int)strtol(colon + 1, &end, 10);
            if (*end != '\0' || port < 1) {
                rcmsg_error("RCMSG_NET_DEVICES entry '%s': expected DEVICE or DEVICE:PORT "
                            "with PORT >= 1",
                            wanted[i]);
                rc_candidates_close(c, n, NULL);
                return -1;
            }
        }
        n = rc_candidates_add(dev, port, numa, c, n, max);
        if (n == before) {
            rcmsg_warn("RCMSG_NET_DEVICES entry '%s' has no ACTIVE port (or no such device)",
                       wanted[i]);
        }
    }
    return n;
}

/* The candidates among every device: their number, or -2 when the devices cannot be listed. */
static int rc_candidates_all(int numa, rc_candidate_t *c, int max)
{
    char **names;
    int ndev, n = 0;

    if (rcmsg_rc_device_names(&names, &ndev) != RCMSG_OK) {
        return -2;
    }
    for (int i = 0; i < ndev; i++) {
        n = rc_candidates_add(names[i], 0, numa, c, n, max);
    }
    rcmsg_rc_device_names_free(names);
    return n;
}

rcmsg_status_t rc_choose_port(const rcmsg_btl_job_t *job, const rc_config_t *config,
                              rcmsg_rc_device_t **dev_p, int *port_p)
{
    rc_candidate_t c[64];
    int n = 0, best = 3, nbest = 0, pick, numa = rcmsg_topo_bound_numa();
    char where[64];
    size_t nwanted = config->nnet_devices;
    char *const *wanted = config->net_devices;

    if (nwanted > 0) {
        n = rc_candidates_wanted(wanted, nwanted, numa, c, 64);
    } else {
        n = rc_candidates_all(numa, c, 64);
    }
    if (n < 0) {
        return n == -1 ? RCMSG_ERR_CONFIG : RCMSG_ERR_IO;
    }
    if (n == 0) {
        rcmsg_error("no ACTIVE RDMA port found%s (rcmsg_info lists the devices and their ports)",
                    nwanted > 0 ? " among RCMSG_NET_DEVICES" : "");
        return RCMSG_ERR_NO_DEVICE;
    }
    for (int i = 0; i < n; i++) {
        if (c[i].distance < best) {
            best = c[i].distance;
            nbest = 0;
        }
        nbest += c[i].distance == best;
    }
    /* equally near ports are shared out by local rank */
    pick = job->local_rank % nbest;
    for (int i = 0; i < n; i++) {
        if (c[i].distance == best && pick-- == 0) {
            *dev_p = c[i].dev;
            *port_p = c[i].port;
            break;
        }
    }
    rc_candidates_close(c, n, *dev_p);
    if (numa >= 0) {
        snprintf(where, sizeof(where), "bound to numa node %d", numa);
    } else {
        snprintf(where, sizeof(where), "not bound to one numa node");
    }
    rcmsg_info("using %s:%d: %d equally near port(s) (%s), picked by local rank %d; process %s",
               (*dev_p)->name, *port_p, nbest,
               best == 0   ? "same numa node"
               : best == 1 ? "no locality information"
                           : "other numa node",
               job->local_rank, where);
    return RCMSG_OK;
}
