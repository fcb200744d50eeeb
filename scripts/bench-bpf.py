#!/usr/bin/env python3
"""The BPF LSM exec guard's row of bench-apps.sh. Runs inside `unshare -m`. Arguments: the guard's
object (exec-guard.bpf.o) and the repository. The guard is attached with only a fake game of this
run's own bytes, on a tmpfs of its own, in its map; its pins live in a bpf filesystem mounted here,
unmounted at the end (which detaches it) whatever happens."""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

obj, repo = sys.argv[1], sys.argv[2]
EXECS, ROUNDS = 5_000, 5
work = tempfile.mkdtemp(prefix="bench-bpf.", dir="/var/tmp")
apps, pins = f"{work}/apps", f"{work}/bpffs"
os.makedirs(apps)
os.makedirs(pins)
subprocess.run(["mount", "-t", "tmpfs", "tmpfs", apps], check=True)
subprocess.run(["mount", "-t", "bpf", "bpf", pins], check=True)


def compile_c(name, source, *flags):
    with open(f"{work}/{name}.c", "w") as f:
        f.write(textwrap.dedent(source))
    subprocess.run(["gcc", "-O2", f"-I{repo}/Sources/CExecGuardBPF/include", "-o", f"{work}/{name}", f"{work}/{name}.c", *flags],
                   check=True)
    return f"{work}/{name}"


noop = compile_c("noop", """
    void _start(void) { __asm__ volatile("mov $60, %eax\\n xor %edi, %edi\\n syscall"); }
    """, "-static", "-nostdlib", "-s")
game = compile_c("game", f"""
    int main(void) {{ return {os.getpid() % 200 + 20}; }} /* bench-bpf {os.getpid()} {time.time()} */
    """)
shutil.copy(game, f"{apps}/game")
# Attaches the guard, pinned under PINDIR, with FILE (dev, inode) blocked; the kernel's dev_t is major << 20 | minor.
guard = compile_c("guard", """
    #include "exec_guard_bpf.h"
    #include <stdio.h>
    #include <sys/stat.h>
    #include <sys/sysmacros.h>
    int main(int argc, char **argv) {
        char error[512];
        struct stat st;
        if (stat(argv[3], &st)) return 2;
        if (slbpf_attach(argv[1], argv[2], error, sizeof error)) { perror(error); return 1; }
        int map = slbpf_open_pinned(argv[2], "blocked", error, sizeof error);
        if (map < 0) { perror(error); return 1; }
        return slbpf_block(map, (unsigned long long)major(st.st_dev) << 20 | minor(st.st_dev), st.st_ino, 0) ? 1 : 0;
    }
    """, f"{repo}/Sources/CExecGuardBPF/exec_guard_bpf.c", "-lbpf")
execbench = compile_c("execbench", """
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    #include <sys/wait.h>
    #include <time.h>
    #include <unistd.h>
    static int compare(const void *a, const void *b) {
        long x = *(const long *)a, y = *(const long *)b;
        return (x > y) - (x < y);
    }
    int main(int argc, char **argv) {
        int n = atoi(argv[1]), offset = atoi(argv[3]), distinct = argc > 4;
        long *latency = malloc(sizeof(long) * n);
        char path[4096];
        for (int i = 0; i < n; i++) {
            if (distinct) snprintf(path, sizeof path, "%s%d", argv[2], offset + i); else snprintf(path, sizeof path, "%s", argv[2]);
            struct timespec a, b;
            clock_gettime(CLOCK_MONOTONIC, &a);
            pid_t pid = fork();
            if (pid == 0) { execl(path, path, (char *)0); _exit(127); }
            int status;
            waitpid(pid, &status, 0);
            clock_gettime(CLOCK_MONOTONIC, &b);
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) { fprintf(stderr, "%s failed\\n", path); return 1; }
            latency[i] = (b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec);
        }
        qsort(latency, n, sizeof(long), compare);
        printf("%ld %ld\\n", latency[n / 2], latency[n * 99 / 100]);
        return 0;
    }
    """)
per_round = EXECS // ROUNDS


def attach():
    result = subprocess.run([guard, obj, pins, f"{apps}/game"], capture_output=True, text=True)
    return None if result.returncode == 0 else (result.stderr.strip() or f"exit {result.returncode}")


def detach():
    for name in os.listdir(pins):
        os.unlink(f"{pins}/{name}")


def measure(path, offset=None):
    arguments = [execbench, str(per_round), path, str(offset or 0)] + (["distinct"] if offset is not None else [])
    return [int(x) for x in subprocess.run(arguments, capture_output=True, text=True, check=True).stdout.split()]


try:
    refused = attach()
    if refused:
        probe = subprocess.run(["bpftool", "feature", "probe", "kernel"], capture_output=True, text=True).stdout
        lsm = next((line for line in probe.splitlines() if "program_type lsm" in line), "")
        print(f"BPF exec guard: not measured here: {refused} ({lsm or 'bpftool feature probe gave nothing'})")
        sys.exit(0)
    blocked = subprocess.run([f"{apps}/game"]).returncode
    assert blocked == 126 or blocked < 0 or blocked != os.getpid() % 200 + 20, "the guard did not refuse the game"
    detach()
    for i in range(2 * EXECS):
        shutil.copy(noop, f"{apps}/noop{i}")
    shutil.copy(noop, f"{apps}/noop")
    results = {key: [] for key in ("none-cold", "none-warm", "bpf-cold", "bpf-warm")}
    # Rounds alternate without and with the guard; "cold" execs files not executed before.
    for r in range(ROUNDS):
        results["none-cold"].append(measure(f"{apps}/noop", 2 * r * per_round))
        results["none-warm"].append(measure(f"{apps}/noop"))
        assert attach() is None
        results["bpf-cold"].append(measure(f"{apps}/noop", (2 * r + 1) * per_round))
        results["bpf-warm"].append(measure(f"{apps}/noop"))
        detach()

    def p50(key):
        return statistics.median(x[0] for x in results[key]) / 1000

    def p99(key):
        return statistics.median(x[1] for x in results[key]) / 1000

    print(f"BPF exec guard, exec latency (fork+exec+wait of a static no-op, {EXECS} per configuration, {ROUNDS} alternating rounds):")
    for kind in ("cold", "warm"):
        print(f"  {kind}: p50 {p50('none-' + kind):6.1f} µs without, {p50('bpf-' + kind):6.1f} µs with the guard "
              f"({p50('bpf-' + kind) - p50('none-' + kind):+.1f} µs); p99 {p99('none-' + kind):6.1f} → {p99('bpf-' + kind):6.1f} µs")
    project = f"{work}/project"
    os.makedirs(f"{project}/src")
    units = 300
    for i in range(units):
        with open(f"{project}/src/u{i}.c", "w") as f:
            f.write(f"unsigned long unit{i}(unsigned long x) {{ for (int k = 0; k < {i % 7 + 1}; k++) x = x * 1099511628211u ^ (x >> 13); return x; }}\n")
    with open(f"{project}/src/main.c", "w") as f:
        f.write("".join(f"unsigned long unit{i}(unsigned long);\n" for i in range(units)))
        f.write("int main(void) { unsigned long h = 1;\n" + "".join(f"  h = unit{i}(h);\n" for i in range(units)) + "  return (int)(h & 1); }\n")
    with open(f"{project}/Makefile", "w") as f:
        objects = " ".join(f"src/u{i}.o" for i in range(units)) + " src/main.o"
        f.write(f"prog: {objects}\n\t$(CC) -o $@ $^\n%.o: %.c\n\t$(CC) -O2 -c -o $@ $<\nclean:\n\trm -f prog src/*.o\n")

    def build():
        subprocess.run(["make", "-s", "-C", project, "clean"], check=True)
        start = time.perf_counter()
        subprocess.run(["make", "-s", "-j2", "-C", project], check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - start

    baseline, guarded = [], []
    for _ in range(3):
        baseline.append(build())
        assert attach() is None
        guarded.append(build())
        detach()
    print(f"BPF exec guard, make -j2 of a generated C project ({units + 1} files, 3 builds each, alternating): median "
          f"{statistics.median(baseline):.2f} s without, {statistics.median(guarded):.2f} s with the guard "
          f"(×{statistics.median(guarded) / statistics.median(baseline):.3f})")
finally:
    subprocess.run(["umount", "-l", pins])
    subprocess.run(["umount", "-l", apps])
    shutil.rmtree(work, ignore_errors=True)
