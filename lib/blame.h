/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Ended requests remembered for blame: the last DF_BLAME_ENDED_MAX of a device, oldest overwritten. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qos.h"

#define DF_BLAME_ENDED_MAX 64
/* Owners whose forgotten binding time a device keeps (a systemd unit each, mostly). */
#define DF_BLAME_FORGOTTEN_MAX 1024

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

/* The binding time of ended requests the ring let go, summed by type and owner. */
struct df_blame_total {
        enum df_qos_type type;
        char *owner; /* the unit, or "profile NAME" for the daemon's own (df_blame_owner()) */
        uint64_t binding_usec;
};

struct df_blame_ring {
        struct df_blame_entry entries[DF_BLAME_ENDED_MAX];
        size_t n;       /* how many are kept */
        size_t next;    /* where the next goes */
        uint64_t ended; /* how many ended in all */
        struct df_blame_total *forgotten;
        size_t n_forgotten;
};

/* Who an entry's binding time is counted for: the daemon's own holder, else the unit ("" none). */
const char *df_blame_owner(const struct df_blame_entry *e);

/*
 * Copy an entry in (its strings duplicated; NULL ones become ""), the oldest going when full:
 * its binding time is added to its owner's in `forgotten` (an owner beyond
 * DF_BLAME_FORGOTTEN_MAX others is not counted).
 */
int df_blame_ring_push(struct df_blame_ring *r, const struct df_blame_entry *e);
/* The i-th kept entry, oldest first; NULL out of range. */
const struct df_blame_entry *df_blame_ring_get(const struct df_blame_ring *r, size_t i);
void df_blame_ring_done(struct df_blame_ring *r);
