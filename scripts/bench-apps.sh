#!/usr/bin/env bash
# App blocking figures, measured with the exec guard (AppEnforcer in exec-guard-probe, release
# build) in a private mount namespace on a tmpfs of its own:
#   - exec latency (fork+exec+wait of a static no-op, p50/p99 over 5 000 execs each) with no
#     watcher, with the watcher and a cold cache (every exec a file the guard has not seen since
#     the blocked set last changed), and with a warm cache (the same file again)
#   - the same during a strict block, for files an ordinary user owns that are large enough to be
#     a copy of the blocked game: cold (each read and compared before its exec is answered) and
#     warm, against no watcher
#   - open limits: exec latency of a counted app (each exec a launch; an exec while it runs) against
#     an uncounted app and no watcher
#   - a root-made copy of the dynamic loader or of dash under a name that says nothing opening
#     the blocked game: recognised by content (ELF header; size, then SHA-256), cold and warm,
#     against copies recognised by name
#   - the strict block's sweep (other mount namespaces, every process's program): the guard's CPU
#     per second while idle, strict against not strict
#   - time from applying a block to its running instances being gone
#   - the guard's CPU time while `make -j2` builds a generated C project under a block that puts
#     a mark on the filesystem the compiler lives on
#   - the BPF LSM exec guard (scripts/bench-bpf.py): exec latency cold and warm and the same
#     make -j2, without and with the guard attached
# Needs root (fanotify, mount namespaces) and gcc with a static C library.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
[ "$(id -u)" = 0 ] || { echo "bench-apps: needs root (fanotify, mount namespaces)" >&2; exit 1; }
. scripts/bench-build.sh
bench_build exec-guard-probe
unshare -m --propagation private python3 scripts/bench-apps.py "$bin/exec-guard-probe" "$@"
# The BPF LSM exec guard's row, in the same run (a line saying why where the kernel refuses it).
make --no-print-directory "$bin/exec-guard.bpf.o" BUILDDIR="$bin" >/dev/null
unshare -m --propagation private python3 scripts/bench-bpf.py "$bin/exec-guard.bpf.o" "$PWD"
