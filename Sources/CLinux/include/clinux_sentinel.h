// The exec guard's sentinel: a small process forked from the daemon that shares its fanotify
// group and answers the permission events itself when the daemon stops answering (stopped with
// SIGSTOP, stuck, swapped out), so that no exec on the machine waits longer than a bound. It
// decides from a table the daemon keeps in shared memory: blocked files by device and inode,
// and during a strict block, refuses what it cannot read (files the daemon would compare by
// content). It ends when the daemon closes its end of a pipe or dies.
//
// Opens of a blocked file (its own mark) are refused only to programs that may run it without
// exec, as the daemon decides them: a user-controlled executable, an interpreter or loader by
// name, the dynamic loader by its ELF header, or a program of exactly an interpreter's size
// (the daemon compares those by content; the sentinel cannot, so it errs towards refusing).
// `cat game.py` works while the daemon is stopped.
//
// Blocked files past the first CLINUX_SENTINEL_FILES are held in a Bloom filter: never one
// missed, and an unblocked file refused now and then while the daemon is stalled.
#ifndef CLINUX_SENTINEL_H
#define CLINUX_SENTINEL_H
#include <stdint.h>
#include <sys/types.h>

#define CLINUX_SENTINEL_FILES 4096
#define CLINUX_SENTINEL_SIZES 64
#define CLINUX_SENTINEL_FILTER_BITS (1u << 20)
#define CLINUX_SENTINEL_NAMES 1024

struct clinux_sentinel_file {
    uint64_t device;
    uint64_t inode;
};

struct clinux_sentinel_table {
    // CLOCK_MONOTONIC nanoseconds of the daemon's answer thread's last sign of life.
    uint64_t beat;
    // Even while the table is consistent; the writer makes it odd while it changes it.
    uint32_t sequence;
    // Nonzero during a strict block.
    uint32_t strict;
    // During a strict block, user-controlled files at least this large (or of one of `sizes`)
    // would be read by the daemon; the sentinel refuses them. -1: none by size.
    int64_t minimum_size;
    uint32_t size_count;
    uint32_t file_count;
    int64_t sizes[CLINUX_SENTINEL_SIZES];
    struct clinux_sentinel_file files[CLINUX_SENTINEL_FILES];
    // Blocked files that did not fit in `files` (0: the filter is unused).
    uint32_t filtered;
    // Interpreters: their sizes, and their names (lowercase, versions removed) one after the
    // other, each ended by a NUL; an empty name ends the list.
    uint32_t runner_size_count;
    int64_t runner_sizes[CLINUX_SENTINEL_SIZES];
    char runner_names[CLINUX_SENTINEL_NAMES];
    uint64_t filter[CLINUX_SENTINEL_FILTER_BITS / 64];
    // How many events the sentinel answered (allowed, refused).
    uint64_t allowed;
    uint64_t refused;
};

struct clinux_sentinel {
    pid_t pid;
    int pipe_fd;
    struct clinux_sentinel_table *table;
};

// Maps the table and forks the sentinel for `group_fd`; it takes over after `stall_ns` without
// a beat. Returns 0, or -1 with errno (nothing started).
int clinux_sentinel_start(int group_fd, uint64_t stall_ns, struct clinux_sentinel *sentinel);
// Ends the sentinel (closes the pipe, waits for it); the table stays mapped.
void clinux_sentinel_stop(struct clinux_sentinel *sentinel);
// Unmaps the table (after the stop, once nothing beats into it).
void clinux_sentinel_release(struct clinux_sentinel_table *table);
// Records a sign of life of the answer thread.
void clinux_sentinel_beat(struct clinux_sentinel_table *table, uint64_t now_ns);
// Replaces the table: `files` as pairs (device, inode), any number of them (past
// CLINUX_SENTINEL_FILES in the filter), `sizes` exact sizes of strict programs.
void clinux_sentinel_update(
    struct clinux_sentinel_table *table, int strict, int64_t minimum_size, const int64_t *sizes, uint32_t size_count,
    const uint64_t *files, uint32_t file_count);
struct stat;
// 1 when the sentinel would refuse the exec of a file with this status (for tests).
int clinux_sentinel_refuses_exec(const struct clinux_sentinel_table *table, const struct stat *status);
// Replaces what the sentinel knows interpreters by: `sizes` (at most CLINUX_SENTINEL_SIZES
// kept) and `names`, NUL-separated and ended by an empty name (cut to CLINUX_SENTINEL_NAMES).
void clinux_sentinel_set_runners(
    struct clinux_sentinel_table *table, const int64_t *sizes, uint32_t size_count, const char *names, uint32_t names_length);
#endif
