/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A rank that exits before rcmsg_init, reported by the launcher before the others' fence
 * begins (issue 38 item 10; early_exit_host.sh, early_exit_rc.sh). Rank EARLY_EXIT_RANK
 * creates the file EARLY_EXIT_FILE and exits 0 at once. Every other rank runs rcmsg_init with
 * this program's registry (rcmsg_btl_table, as pack_fail_test.c does): self, whose open first
 * waits (at most 30 s) for that file and then 2 s more, so that the launcher's report of the
 * termination is in before the address exchange's fence begins; then sm and rc as built.
 *
 * Every rank prints "rank R: init: <status name> after <seconds> s", the seconds counted from
 * the end of that wait (the fence's start, nearly): a termination already known must end the
 * fence at once, not after RCMSG_LAUNCHER_TIMEOUT.
 */
#include "config.h"

#include "base/clock.h"
#include "btl/btl_component.h"

#include <rcmsg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern const rcmsg_btl_component_t rcmsg_btl_self_component, rcmsg_btl_sm_component,
    rcmsg_btl_rc_component;

static rcmsg_btl_component_t self_late; /* self, opened once the early rank is gone */
static const rcmsg_btl_component_t *comps[3];
const rcmsg_btl_table_t rcmsg_btl_table = {comps, 3};
static double t_fence;

static int env_int(const char *name)
{
    const char *v = getenv(name);
    return v != NULL ? atoi(v) : -1;
}

static double now_s(void)
{
    return (double)rcmsg_clock_us() / 1e6;
}

static rcmsg_status_t self_late_open(const rcmsg_btl_job_t *job, rcmsg_btl_t **btl_p)
{
    const char *file = getenv("EARLY_EXIT_FILE");

    for (int i = 0; i < 300 && file != NULL && access(file, F_OK) != 0; i++) {
        usleep(100000);
    }
    sleep(2); /* the launcher's report of the exit arrives meanwhile */
    printf("rank %d: rank %d has exited; the address exchange begins\n", job->rank,
           env_int("EARLY_EXIT_RANK"));
    fflush(stdout);
    t_fence = now_s();
    return rcmsg_btl_self_component.open(job, btl_p);
}

int main(void)
{
    int rank = env_int("PMIX_RANK");
    const char *file = getenv("EARLY_EXIT_FILE");
    rcmsg_status_t s;

    if (rank == env_int("EARLY_EXIT_RANK")) {
        FILE *f = file != NULL ? fopen(file, "w") : NULL;

        printf("rank %d: exiting before rcmsg_init\n", rank);
        if (f != NULL) {
            fclose(f);
        }
        return env_int("EARLY_EXIT_STATUS") > 0 ? env_int("EARLY_EXIT_STATUS") : 0;
    }
    self_late = rcmsg_btl_self_component;
    self_late.open = self_late_open;
    comps[0] = &self_late;
    comps[1] = &rcmsg_btl_sm_component;
    comps[2] = &rcmsg_btl_rc_component;
    t_fence = now_s();
    s = rcmsg_init();
    printf("rank %d: init: %s after %.1f s\n", rank, rcmsg_status_name(s), now_s() - t_fence);
    fflush(stdout);
    if (s == RCMSG_OK) {
        rcmsg_finalize();
    }
    return 0;
}
