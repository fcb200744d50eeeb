#ifndef EXEC_GUARD_BPF_H
#define EXEC_GUARD_BPF_H

#include <stddef.h>
#include <stdint.h>

// The BPF LSM exec guard's loader: loads bpf/exec-guard.bpf.c's object, attaches its three
// programs and pins the links and maps in a directory of a bpf filesystem, so that they stay in
// force when the daemon dies. Every function returns 0 or a negative errno and writes what failed
// into `error`.

/// Loads `object` and closes it again, attaching nothing: whether the kernel accepts the programs.
int slbpf_probe(const char *object, char *error, size_t size);

/// Loads `object`, attaches its programs and pins links and maps under `pin_directory` (which
/// must exist on a bpf filesystem). On failure nothing stays pinned or attached.
int slbpf_attach(const char *object, const char *pin_directory, char *error, size_t size);

/// Opens the pinned map `name` (`blocked`, `settings`, `denials`); returns its descriptor.
int slbpf_open_pinned(const char *pin_directory, const char *name, char *error, size_t size);

/// Blocks the file (kernel dev_t, inode) for rule `rule`.
int slbpf_block(int map, uint64_t dev, uint64_t ino, uint32_t rule);

/// Unblocks the file.
int slbpf_unblock(int map, uint64_t dev, uint64_t ino);

/// Writes up to `capacity` blocked (dev, ino) pairs into `pairs` (2 values each); returns the count.
int slbpf_blocked(int map, uint64_t *pairs, int capacity);

/// Sets the settings: `flags` (bit 0: refuse memfds) and the kernel dev_t of the shmem mount.
int slbpf_set_settings(int map, uint32_t flags, uint64_t shmem_dev);

/// Reads the settings word.
int slbpf_flags(int map, uint32_t *flags);

/// Sums the per-CPU denial counter `kind` (0 exec, 1 mapping, 2 memfd).
int slbpf_denials(int map, uint32_t kind, uint64_t *total);

/// The stat device number of the kernel's internal shmem mount, where every memfd lives.
int slbpf_shmem_device(uint64_t *device);

/// 1 when `path` is on a bpf filesystem, 0 when not, a negative errno when it cannot be told.
int slbpf_is_bpffs(const char *path);

#endif
