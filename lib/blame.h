/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Ended requests remembered for blame: the last DF_BLAME_ENDED_MAX of a device, oldest overwritten. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qos.h"

#define DF_BLAME_ENDED_MAX 64

struct df_blame_entry {
        enum df_qos_type type;
        uint32_t uid;
        char *unit;    /* the owner's systemd unit, "" when none */
        char *command; /* the owner's command name, or "profile NAME" for the daemon's own */
        char *reason;
        uint64_t value;
        uint64_t binding_usec;
        bool daemon_own; /* a hold of the daemon's (a profile's): public */
};

struct df_blame_ring {
        struct df_blame_entry entries[DF_BLAME_ENDED_MAX];
        size_t n;       /* how many are kept */
        size_t next;    /* where the next goes */
        uint64_t ended; /* how many ended in all */
};

/* Copy an entry in (its strings duplicated; NULL ones become ""), the oldest going when full. */
int df_blame_ring_push(struct df_blame_ring *r, const struct df_blame_entry *e);
/* The i-th kept entry, oldest first; NULL out of range. */
const struct df_blame_entry *df_blame_ring_get(const struct df_blame_ring *r, size_t i);
void df_blame_ring_done(struct df_blame_ring *r);
