/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A rank whose transport address cannot be packed (run under mpirun with 2 ranks, see
 * wireup_pack_fail.sh). This program replaces the registry (rcmsg_btl_table, taken from it
 * instead of from the static library's btl_components.o) by self and a copy of sm whose
 * addr_max is too small on rank PACK_FAIL_RANK: there sm's addr_pack refuses
 * (RCMSG_ERR_INVALID_PARAM). Run with RCMSG_TRANSPORTS=sm (rc is not in this table). That
 * rank must publish its failure, so that every other rank's rcmsg_init fails at once naming
 * it instead of waiting for RCMSG_LAUNCHER_TIMEOUT.
 *
 * Every rank prints "rank R: init: <status name> after <seconds> s". The failing rank then
 * stays alive (at most 30 s) until PACK_FAIL_DONE exists: rank 0 creates it after its init
 * returned, so that a rank that never published is not noticed early by its exit.
 */
#include "config.h"

#include "base/clock.h"
#include "btl/btl_component.h"

#include <rcmsg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern const rcmsg_btl_component_t rcmsg_btl_self_component, rcmsg_btl_sm_component;

static rcmsg_btl_component_t sm_short; /* sm with a short address buffer on one rank */
static const rcmsg_btl_component_t *comps[2];
const rcmsg_btl_table_t rcmsg_btl_table = {comps, 2};

static int env_int(const char *name)
{
    const char *v = getenv(name);
    return v != NULL ? atoi(v) : -1;
}

static size_t sm_short_addr_max(const rcmsg_btl_job_t *job)
{
    return job->rank == env_int("PACK_FAIL_RANK") ? 1 : rcmsg_btl_sm_component.addr_max(job);
}

int main(void)
{
    const char *done = getenv("PACK_FAIL_DONE");
    int rank = env_int("PMIX_RANK");
    double t0 = (double)rcmsg_clock_us() / 1e6;
    rcmsg_status_t s;

    sm_short = rcmsg_btl_sm_component;
    sm_short.addr_max = sm_short_addr_max;
    comps[0] = &rcmsg_btl_self_component;
    comps[1] = &sm_short;
    s = rcmsg_init();
    printf("rank %d: init: %s after %.1f s\n", rank, rcmsg_status_name(s),
           (double)rcmsg_clock_us() / 1e6 - t0);
    fflush(stdout);
    if (s == RCMSG_OK) {
        rcmsg_finalize();
    }
    if (rank == 0 && done != NULL) {
        FILE *f = fopen(done, "w");
        if (f == NULL) {
            perror(done);
            return 1;
        }
        fclose(f);
    }
    for (int i = 0; i < 300 && rank == env_int("PACK_FAIL_RANK") && done != NULL; i++) {
        if (access(done, F_OK) == 0) {
            break;
        }
        usleep(100000);
    }
    return 0;
}
