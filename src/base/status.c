/* SPDX-License-Identifier: BSD-3-Clause */
/* Printable names for rcmsg_status_t, from the one X-macro list in rcmsg.h. */
#include "config.h"

#include "status.h"

#include <rcmsg.h>

const char *rcmsg_strerror(rcmsg_status_t status)
{
    switch (status) {
#define RCMSG_STATUS_TEXT(name, value, text)                                                       \
    case name:                                                                                     \
        return text;
        RCMSG_STATUS_LIST(RCMSG_STATUS_TEXT)
#undef RCMSG_STATUS_TEXT
    }
    return "unknown status";
}

const char *rcmsg_status_name(rcmsg_status_t status)
{
    switch (status) {
#define RCMSG_STATUS_NAME(name, value, text)                                                       \
    case name:                                                                                     \
        return #name;
        RCMSG_STATUS_LIST(RCMSG_STATUS_NAME)
#undef RCMSG_STATUS_NAME
    }
    return "RCMSG_STATUS_UNKNOWN";
}

bool rcmsg_status_known(int status)
{
    switch ((rcmsg_status_t)status) {
#define RCMSG_STATUS_KNOWN(name, value, text)                                                      \
    case name:                                                                                     \
        return true;
        RCMSG_STATUS_LIST(RCMSG_STATUS_KNOWN)
#undef RCMSG_STATUS_KNOWN
    }
    return false;
}

const char *rcmsg_version(void)
{
    return PACKAGE_VERSION;
}
