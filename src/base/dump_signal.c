/* SPDX-License-Identifier: BSD-3-Clause */
/* SIGUSR1 as a request for the state dump: a flag, taken by whoever waits (dump_signal.h). */
#include "config.h"

#include "dump_signal.h"

#include "log.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t dump_asked;

static struct {
    struct sigaction old; /* SIGUSR1's disposition before install */
    bool installed;
} dump_sig;

static void on_sigusr1(int sig)
{
    (void)sig;
    dump_asked = 1; /* async-signal-safe: the waiter prints */
}

void rcmsg_dump_signal_install(void)
{
    struct sigaction sa;

    if (dump_sig.installed) {
        return;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_sigusr1;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    if (sigaction(SIGUSR1, NULL, &dump_sig.old) != 0 || dump_sig.old.sa_handler != SIG_DFL) {
        rcmsg_info("SIGUSR1 has a handler already: it does not print rcmsg's state dump");
        return;
    }
    dump_sig.installed = sigaction(SIGUSR1, &sa, NULL) == 0;
}

void rcmsg_dump_signal_restore(void)
{
    if (dump_sig.installed) {
        sigaction(SIGUSR1, &dump_sig.old, NULL);
        dump_sig.installed = false;
    }
    dump_asked = 0;
}

bool rcmsg_dump_signal_take(void)
{
    if (!dump_asked) {
        return false;
    }
    dump_asked = 0;
    return true;
}
