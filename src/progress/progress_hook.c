/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The progress hooks of rcmsg.h (rcmsg_progress_register): a table of at most
 * RCMSG_PROGRESS_HOOK_MAX (function, argument) pairs, run at the end of every progress round
 * (rcmsg_progress) but never from a round nested in them. A hook's rcmsg calls (rcmsg_test)
 * make such nested rounds: what they handle is added to the round that ran the hooks, so a
 * completion consumed there still counts as progress for the wait that called it.
 *
 * The table lives apart from the engine's state, which rcmsg_init and rcmsg_finalize reset: a
 * registration outlives them. While the hooks run, an unregistered entry is only cleared (the
 * loop walks the table) and the table is compacted after the loop; one registered then is
 * appended beyond the loop's end and runs from the next round.
 */
#include "config.h"

#include "progress.h"

#include "base/log.h"
#include "base/mt.h"

#include <stdbool.h>
#include <stdint.h>

int rcmsg_progress_nhooks;

static struct {
    struct {
        rcmsg_progress_fn_t fn; /* NULL: unregistered while the hooks ran (removed after) */
        void *arg;
        bool internal; /* rcmsg's own (the collectives' schedules): the progress thread runs it */
    } at[RCMSG_PROGRESS_HOOK_MAX]; /* [0, rcmsg_progress_nhooks), in registration order */
    bool running;                  /* the hooks run: nested rounds do not call them */
    bool holes;                    /* an entry was unregistered while the hooks ran */
    int nested;                    /* what nested rounds handled while the hooks ran */
    uint64_t advanced;             /* the sum of the hooks' counts */
} hooks;

static int hook_find(rcmsg_progress_fn_t fn, void *arg)
{
    for (int i = 0; i < rcmsg_progress_nhooks; i++) {
        if (hooks.at[i].fn == fn && hooks.at[i].arg == arg) {
            return i;
        }
    }
    return -1;
}

static rcmsg_status_t hook_register(rcmsg_progress_fn_t fn, void *arg, bool internal)
{
    RCMSG_MT_GUARD();
    if (fn == NULL) {
        rcmsg_error("rcmsg_progress_register: NULL function");
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (hook_find(fn, arg) >= 0) {
        rcmsg_error("rcmsg_progress_register: hook %p with argument %p is registered already",
                    (void *)fn, arg);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (rcmsg_progress_nhooks == RCMSG_PROGRESS_HOOK_MAX) {
        rcmsg_error("rcmsg_progress_register: %d hooks registered already, at most "
                    "RCMSG_PROGRESS_HOOK_MAX",
                    RCMSG_PROGRESS_HOOK_MAX);
        return RCMSG_ERR_NO_RESOURCE;
    }
    hooks.at[rcmsg_progress_nhooks].fn = fn;
    hooks.at[rcmsg_progress_nhooks].arg = arg;
    hooks.at[rcmsg_progress_nhooks].internal = internal;
    rcmsg_progress_nhooks++;
    rcmsg_debug("progress: hook %p (argument %p) registered", (void *)fn, arg);
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_progress_register(rcmsg_progress_fn_t fn, void *arg)
{
    return hook_register(fn, arg, false);
}

rcmsg_status_t rcmsg_progress_register_internal(rcmsg_progress_fn_t fn, void *arg)
{
    return hook_register(fn, arg, true);
}

/* drops the entries unregistered while the hooks ran */
static void hooks_compact(void)
{
    int k = 0;

    for (int i = 0; i < rcmsg_progress_nhooks; i++) {
        if (hooks.at[i].fn != NULL) {
            hooks.at[k++] = hooks.at[i];
        }
    }
    rcmsg_progress_nhooks = k;
    hooks.holes = false;
}

rcmsg_status_t rcmsg_progress_unregister(rcmsg_progress_fn_t fn, void *arg)
{
    RCMSG_MT_GUARD();
    int i;

    if (fn == NULL) {
        rcmsg_error("rcmsg_progress_unregister: NULL function");
        return RCMSG_ERR_INVALID_PARAM;
    }
    i = hook_find(fn, arg);
    if (i < 0) {
        rcmsg_error("rcmsg_progress_unregister: hook %p with argument %p is not registered",
                    (void *)fn, arg);
        return RCMSG_ERR_NOT_FOUND;
    }
    hooks.at[i].fn = NULL;
    if (hooks.running) {
        hooks.holes = true;
    } else {
        hooks_compact();
    }
    rcmsg_debug("progress: hook %p (argument %p) unregistered", (void *)fn, arg);
    return RCMSG_OK;
}

int rcmsg_progress_hooks_run(int n)
{
    int end = rcmsg_progress_nhooks; /* one registered now runs from the next round on */

    if (hooks.running) {
        hooks.nested += n; /* a nested round: its count goes to the outer one */
        return n;
    }
    hooks.running = true;
    hooks.nested = 0;
    for (int i = 0; i < end; i++) {
        /* the application's hooks run in its own threads only (rcmsg.h) */
        bool run = hooks.at[i].fn != NULL && (hooks.at[i].internal || !rcmsg_progress_on_thread);
        int k = run ? hooks.at[i].fn(hooks.at[i].arg) : 0;

        if (k > 0) {
            n += k;
            hooks.advanced += (uint64_t)k;
        }
    }
    hooks.running = false;
    if (hooks.holes) {
        hooks_compact();
    }
    return n + hooks.nested;
}

uint64_t rcmsg_progress_hooks_advanced(void)
{
    return hooks.advanced;
}
