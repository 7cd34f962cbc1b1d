/* SPDX-License-Identifier: BSD-3-Clause */
/* hwloc topology, loaded once per process. */
#include "config.h"

#include "topo.h"
#include "log.h"

static hwloc_topology_t topo;

hwloc_topology_t rcmsg_topo_get(void)
{
    if (topo != NULL) {
        return topo;
    }
    if (hwloc_topology_init(&topo) != 0) {
        rcmsg_error("hwloc_topology_init failed: %m");
        topo = NULL;
        return NULL;
    }
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(topo) != 0) {
        rcmsg_error("hwloc_topology_load failed: %m");
        hwloc_topology_destroy(topo);
        topo = NULL;
    }
    return topo;
}

void rcmsg_topo_release(void)
{
    if (topo != NULL) {
        hwloc_topology_destroy(topo);
        topo = NULL;
    }
}

int rcmsg_topo_bound_numa(void)
{
    hwloc_topology_t t = rcmsg_topo_get();
    hwloc_bitmap_t set;
    int node = -1;

    if (t == NULL || (set = hwloc_bitmap_alloc()) == NULL) {
        return -1;
    }
    if (hwloc_get_cpubind(t, set, HWLOC_CPUBIND_PROCESS) == 0 &&
        !hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(t), set)) {
        for (int i = 0; i < hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE); i++) {
            hwloc_obj_t numa = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, i);
            if (hwloc_bitmap_isincluded(set, numa->cpuset)) {
                node = (int)numa->logical_index;
                break;
            }
        }
    }
    hwloc_bitmap_free(set);
    return node;
}
