/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The originals file: every node's settings from before devfreqd's first write, in the runtime
 * directory, so they can be written back on exit, after a crash, or by --restore. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "node.h"
#include "strmap.h"

struct originals_entry {
        char *path; /* the node's canonical path inside the root */
        struct df_originals values;
        /* A restore is owed before anything else touches the node: the record was read from the
         * file at start (left by a run that did not restore it, a crash), or writing it back
         * failed when the device was dropped (its CPUs offline, a write refused). */
        bool owed;
};

struct originals {
        char *file; /* <runtime-dir>/originals */
        struct originals_entry *entries;
        size_t n;
        /* path → index, rebuilt on the next lookup after a removal shifted the entries (ten
         * thousand nodes must not cost a scan each) */
        struct df_strmap index;
        bool index_stale;
};

/* Take the runtime directory for this process (made if missing): its lock file, locked as long as
 * the returned descriptor is open, holds the holder's pid. -EBUSY while another process holds
 * it (*ret_pid: its pid, 0 if unknown): a second devfreqd, or --restore under a running one, would
 * rewrite the nodes and the originals of the one running. */
int originals_lock(const char *runtime_dir, int *ret_fd, pid_t *ret_pid);

/* Read the file when it exists (entries left by a run that did not restore them). */
int originals_load(const char *runtime_dir, struct originals **ret);
struct originals *originals_free(struct originals *o);

const struct df_originals *originals_get(struct originals *o, const char *path);
/* The entry of a node, NULL when there is none. */
struct originals_entry *originals_entry(struct originals *o, const char *path);

/* Record and save at once (before the first write to the node); an existing entry is kept. */
int originals_add(struct originals *o, const char *path, const struct df_originals *values);

/* Record without saving (many nodes at start), then save once: one fsync for all. */
int originals_record(struct originals *o, const char *path, const struct df_originals *values);
int originals_save(const struct originals *o);

/* Forget the entries recorded after the first n (a save that failed must not count as done). */
void originals_truncate(struct originals *o, size_t n);

/* Forget and save (after the values were written back); the file goes when the last entry does. */
int originals_remove(struct originals *o, const char *path);
/* Forget without saving: many in a row (at exit, after a crash), then originals_save() once. 1 when
 * there was an entry. Until the save, the file still has it: a crash in between restores the node
 * again at the next start, which writes the same values. */
int originals_forget(struct originals *o, const char *path);
