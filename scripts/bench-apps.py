#!/usr/bin/env python3
"""App blocking benchmark; see bench-apps.sh. Runs inside `unshare -m`. Argument: the probe binary."""
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

probe_binary = sys.argv[1]
EXECS = 5_000
ROUNDS = 5
work = tempfile.mkdtemp(prefix="bench-apps.", dir="/var/tmp")
apps = f"{work}/apps"
os.makedirs(apps)
subprocess.run(["mount", "-t", "tmpfs", "tmpfs", apps], check=True)


def compile_c(name, source, *flags):
    with open(f"{work}/{name}.c", "w") as f:
        f.write(textwrap.dedent(source))
    subprocess.run(["gcc", "-O2", *flags, "-o", f"{work}/{name}", f"{work}/{name}.c"], check=True)
    return f"{work}/{name}"


# A static no-op without libc: exec cost is the kernel's and the guard's, nothing else.
noop = compile_c("noop", """
    void _start(void) { __asm__ volatile("mov $60, %eax\\n xor %edi, %edi\\n syscall"); }
    """, "-static", "-nostdlib", "-s")
game = compile_c("game", """
    #include <stdio.h>
    #include <string.h>
    #include <unistd.h>
    int main(int argc, char **argv) {
        if (argc > 1 && strcmp(argv[1], "sleep") == 0) for (;;) pause();
        puts("game running");
        return 0;
    }
    """, "-static")
# The same with 450 KB of data: more than half the game's size, so that during a strict block a
# copy owned by an ordinary user is read and compared with the game before its exec is decided.
bignoop = compile_c("bignoop", """
    static const volatile char pad[450000] = {1};
    void _start(void) { (void)pad[0]; __asm__ volatile("mov $60, %eax\\n xor %edi, %edi\\n syscall"); }
    """, "-static", "-nostdlib", "-s")
# fork+exec+wait of PATH (or PATH0, PATH1, … with `distinct`), N times; prints p50 p99 mean in µs.
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
        int n = atoi(argv[1]), offset = atoi(argv[3]);
        int distinct = argc > 4 && strcmp(argv[4], "distinct") == 0;
        long *latency = malloc(sizeof(long) * n);
        char path[4096];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            if (distinct) snprintf(path, sizeof path, "%s%d", argv[2], offset + i);
            else snprintf(path, sizeof path, "%s", argv[2]);
            struct timespec a, b;
            clock_gettime(CLOCK_MONOTONIC, &a);
            pid_t pid = fork();
            if (pid == 0) { execl(path, path, (char *)0); _exit(127); }
            int status;
            waitpid(pid, &status, 0);
            clock_gettime(CLOCK_MONOTONIC, &b);
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) { fprintf(stderr, "%s: status %d\\n", path, status); return 1; }
            latency[i] = (b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec);
            sum += latency[i];
        }
        qsort(latency, n, sizeof(long), compare);
        printf("%ld %ld %f\\n", latency[n / 2], latency[(long)(n * 0.99)], sum / n);
        return 0;
    }
    """)

# fork+exec+wait of `RUNNER TARGET` (RUNNER0SUFFIX, RUNNER1SUFFIX, … with `distinct`), N times, whatever the
# exit status (the runs measured here are refused); prints p50 p99 mean in µs.
runbench = compile_c("runbench", """
    #include <fcntl.h>
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
        int n = atoi(argv[1]), offset = atoi(argv[4]);
        int distinct = argc > 5 && strcmp(argv[5], "distinct") == 0;
        const char *suffix = argc > 6 ? argv[6] : "";
        long *latency = malloc(sizeof(long) * n);
        char path[4096];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            if (distinct) snprintf(path, sizeof path, "%s%d%s", argv[2], offset + i, suffix);
            else snprintf(path, sizeof path, "%s", argv[2]);
            struct timespec a, b;
            clock_gettime(CLOCK_MONOTONIC, &a);
            pid_t pid = fork();
            if (pid == 0) {
                int null = open("/dev/null", O_WRONLY);
                dup2(null, 1);
                dup2(null, 2);
                execl(path, path, argv[3], (char *)0);
                _exit(127);
            }
            int status;
            waitpid(pid, &status, 0);
            clock_gettime(CLOCK_MONOTONIC, &b);
            latency[i] = (b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec);
            sum += latency[i];
        }
        qsort(latency, n, sizeof(long), compare);
        printf("%ld %ld %f\\n", latency[n / 2], latency[(long)(n * 0.99)], sum / n);
        return 0;
    }
    """)

# The fake installation: the no-op and its copies (each a different inode), a game, an entry.
shutil.copy(noop, f"{apps}/noop")
for i in range(EXECS):
    shutil.copy(noop, f"{apps}/noop{i}")
shutil.copy(game, f"{apps}/game")
# An app whose launches an allowance counts (--opens): its programs are a copy of the game and a
# copy of the no-op (Exec and TryExec), each its own inode.
shutil.copy(game, f"{apps}/cgame")
shutil.copy(noop, f"{apps}/cnoop")
STRICT_EXECS = 500
for i in range(STRICT_EXECS):
    shutil.copy(bignoop, f"{apps}/big{i}")
    os.chown(f"{apps}/big{i}", 65534, 65534)
shutil.copy(bignoop, f"{apps}/big")
os.chown(f"{apps}/big", 65534, 65534)
# Root-made copies of the dynamic loader and of dash (issue 23, item 1), each its own inode: under
# names that say nothing (recognised by content: the ELF header; dash's size, then its SHA-256),
# and under their own names in directories of their own (recognised by name), for the same exec
# cost on the watched filesystem.
LOADER = "/lib64/ld-linux-x86-64.so.2"
RUNNER_EXECS = 250
for i in list(range(RUNNER_EXECS)) + [""]:
    shutil.copy(LOADER, f"{apps}/runner{i}")
    shutil.copy("/bin/dash", f"{apps}/shell{i}")
    os.makedirs(f"{apps}/named{i}")
    shutil.copy(LOADER, f"{apps}/named{i}/ld-linux-x86-64.so.2")
    shutil.copy("/bin/dash", f"{apps}/named{i}/dash")
os.makedirs(f"{apps}/share/applications")
with open(f"{apps}/share/applications/benchgame.desktop", "w") as f:
    f.write(f"[Desktop Entry]\nType=Application\nName=Bench Game\nExec={apps}/game %U\nCategories=Game;\n")
with open(f"{apps}/share/applications/benchcount.desktop", "w") as f:
    f.write(f"[Desktop Entry]\nType=Application\nName=Counted\nExec={apps}/cgame\nTryExec={apps}/cnoop\nCategories=Game;\n")

control, output = f"{work}/control", f"{work}/output"
os.mkfifo(control)
# Copies are looked for on the bench's own tmpfs only (`--user-writable`, `--mount-scope`): a
# filesystem mark is machine-wide, and the machine's /tmp or /home are not the bench's to mark.
probe = subprocess.Popen([probe_binary, "--control", control, "--output", output, "--data-dir", f"{apps}/share",
                          "--preference", "fanotify", "--grace", "5", "--user-writable", apps, "--mount-scope", work],
                         stderr=subprocess.DEVNULL)
sequence = 0


def lines():
    try:
        with open(output) as f:
            return f.read().splitlines()
    except FileNotFoundError:
        return []


def command(apps_to_block=None, report=False, strict=False, counted=()):
    """Sends a command; returns (seconds until answered, report)."""
    global sequence
    sequence += 1
    body = ({"seq": sequence, "report": True} if report else
            {"seq": sequence, "apps": [{"id": a, "strict": strict} for a in apps_to_block],
             "counted": [{"id": a} for a in counted]})
    start = time.perf_counter()
    with open(control, "w") as f:
        f.write(json.dumps(body) + "\n")
    prefix = (f"applied {sequence} ", f"error {sequence} ")
    while True:
        for line in lines():
            if line.startswith(prefix[1]):
                raise RuntimeError(line)
            if line.startswith(prefix[0]):
                return time.perf_counter() - start, json.loads(line[len(prefix[0]):])
        time.sleep(0.001)


def measure(path, count, offset=0, distinct=False):
    out = subprocess.run([execbench, str(count), path, str(offset)] + (["distinct"] if distinct else []),
                         capture_output=True, text=True, check=True).stdout.split()
    return [int(out[0]), int(out[1]), float(out[2])]


def cpu_seconds(seq):
    """The probe's CPU time (all threads, ended ones included) when it answered command `seq`:
    its own CLOCK_PROCESS_CPUTIME_ID, finer than the 10 ms ticks of /proc/PID/stat."""
    return next(int(line.split()[2]) for line in lines() if line.startswith(f"cpu {seq} ")) / 1e9


try:
    while "ready" not in lines():
        time.sleep(0.01)
    # Rounds alternate the configurations, so that other load on the machine touches all alike.
    per_round = EXECS // ROUNDS
    results = {key: [] for key in ("none-same", "none-distinct", "cold", "warm")}
    for r in range(ROUNDS):
        command([])
        results["none-same"].append(measure(f"{apps}/noop", per_round))
        results["none-distinct"].append(measure(f"{apps}/noop", per_round, r * per_round, distinct=True))
        # Each apply forgets every allowed file, so these copies are all unseen: cold.
        command(["benchgame"])
        results["cold"].append(measure(f"{apps}/noop", per_round, r * per_round, distinct=True))
        measure(f"{apps}/noop", 1)
        results["warm"].append(measure(f"{apps}/noop", per_round))
    _, report = command(report=True)
    assert int(report["details"]["cachedInodes"]) >= per_round, report

    def summary(key):
        # Medians of the per-round percentiles: robust against one disturbed round.
        p50 = statistics.median(x[0] for x in results[key]) / 1000
        p99 = statistics.median(x[1] for x in results[key]) / 1000
        return p50, p99

    print(f"exec latency, fork+exec+wait of a static no-op, {EXECS} execs per configuration "
          f"({ROUNDS} interleaved rounds; medians of the rounds' percentiles):")
    base_same, base_distinct = summary("none-same"), summary("none-distinct")
    # "No watcher": nothing blocked, so the enforcer has no fanotify group at all.
    for key, label, base in (("none-same", "no watcher, same file", None),
                             ("none-distinct", "no watcher, distinct files", None),
                             ("cold", "watcher, cold cache (distinct files)", base_distinct),
                             ("warm", "watcher, warm cache (same file)", base_same)):
        p50, p99 = summary(key)
        extra = "" if base is None else (f"  ({p50 - base[0]:+.1f} µs p50, ×{p50 / base[0]:.2f}; "
                                         f"{p99 - base[1]:+.1f} µs p99 vs. no watcher)")
        print(f"  {label:<40} p50 {p50:7.1f} µs   p99 {p99:7.1f} µs{extra}")

    # Open limits: every exec of a counted app's program asks the guard (never cached); with no
    # instance running for the user it is a launch and waits for a decision (here allowed at once
    # through a task, as the daemon's comes: the guard's path, without the daemon's SQLite commit);
    # with one running (`cgame sleep`) it is allowed after the /proc scan alone.
    COUNTED_EXECS = 1_000
    counted_per_round = COUNTED_EXECS // ROUNDS
    counted_results = {key: [] for key in ("none", "uncounted", "launch", "within")}
    for r in range(ROUNDS):
        command([])
        counted_results["none"].append(measure(f"{apps}/cnoop", counted_per_round))
        command(["benchgame"])
        measure(f"{apps}/cnoop", 1)
        counted_results["uncounted"].append(measure(f"{apps}/cnoop", counted_per_round))
        command(["benchgame"], counted=["benchcount"])
        counted_results["launch"].append(measure(f"{apps}/cnoop", counted_per_round))
        running = subprocess.Popen([f"{apps}/cgame", "sleep"])
        time.sleep(0.05)
        counted_results["within"].append(measure(f"{apps}/cnoop", counted_per_round))
        running.terminate()
        running.wait()
    _, report = command(report=True)
    processes = len([p for p in os.listdir("/proc") if p.isdigit()])
    print(f"open limits, fork+exec+wait of a counted app's static no-op, {COUNTED_EXECS} execs per configuration "
          f"({ROUNDS} interleaved rounds; {processes} processes in /proc):")
    results.update({f"counted-{k}": v for k, v in counted_results.items()})
    counted_base, uncounted = summary("counted-none"), summary("counted-uncounted")
    for key, label, base in (("counted-none", "no watcher", None),
                             ("counted-uncounted", "watched, not counted (warm cache)", counted_base),
                             ("counted-launch", "counted, each exec a launch", counted_base),
                             ("counted-within", "counted, app running (not a launch)", counted_base)):
        p50, p99 = summary(key)
        extra = "" if base is None else (f"  ({p50 - base[0]:+.1f} µs p50, ×{p50 / base[0]:.2f}; "
                                         f"{p99 - base[1]:+.1f} µs p99 vs. no watcher)")
        print(f"  {label:<40} p50 {p50:7.1f} µs   p99 {p99:7.1f} µs{extra}")
    print(f"  (launches: {report['details'].get('launches')})")

    # Strict blocks: every unseen user-owned file of at least half the game's size is read
    # (SHA-256 and content-defined chunks) and compared before its exec is answered.
    strict_per_round = STRICT_EXECS // ROUNDS
    strict_results = {key: [] for key in ("none-same", "none-distinct", "cold", "warm")}
    for r in range(ROUNDS):
        command([])
        strict_results["none-same"].append(measure(f"{apps}/big", strict_per_round))
        strict_results["none-distinct"].append(measure(f"{apps}/big", strict_per_round, r * strict_per_round, distinct=True))
        command(["benchgame"], strict=True)
        strict_results["cold"].append(measure(f"{apps}/big", strict_per_round, r * strict_per_round, distinct=True))
        measure(f"{apps}/big", 1)
        strict_results["warm"].append(measure(f"{apps}/big", strict_per_round))
    _, report = command(report=True)
    print(f"strict block, fork+exec+wait of a 450 KB static no-op owned by an ordinary user, {STRICT_EXECS} execs "
          f"per configuration ({ROUNDS} interleaved rounds):")
    results.update({f"strict-{k}": v for k, v in strict_results.items()})
    strict_same, strict_distinct = summary("strict-none-same"), summary("strict-none-distinct")
    for key, label, base in (("strict-none-same", "no watcher, same file", None),
                             ("strict-none-distinct", "no watcher, distinct files", None),
                             ("strict-cold", "strict, cold (each file read, compared)", strict_distinct),
                             ("strict-warm", "strict, warm cache (same file)", strict_same)):
        p50, p99 = summary(key)
        extra = "" if base is None else (f"  ({p50 - base[0]:+.1f} µs p50, ×{p50 / base[0]:.2f}; "
                                         f"{p99 - base[1]:+.1f} µs p99 vs. no watcher)")
        print(f"  {label:<40} p50 {p50:7.1f} µs   p99 {p99:7.1f} µs{extra}")
    print(f"  (files read: {report['details'].get('hashes')}, refused unchecked: "
          f"{report['details'].get('refusedUnchecked', '0')})")

    # The strict block's sweep (every second: other mount namespaces, and every process's program
    # compared): the probe's CPU time while idle for 10 s, strict against not strict.
    def idle_cpu(strict):
        command(["benchgame"], strict=strict)
        start = cpu_seconds(sequence)
        time.sleep(10)
        command(report=True)
        return (cpu_seconds(sequence) - start) / 10

    lax_idle, strict_idle = idle_cpu(False), idle_cpu(True)
    processes = [p for p in os.listdir("/proc") if p.isdigit()]
    namespaces = set()
    for pid in processes:
        try:
            namespaces.add(os.stat(f"/proc/{pid}/ns/mnt").st_ino)
        except OSError:
            pass
    print(f"strict block, idle: guard process CPU {strict_idle * 1000:.2f} ms per second with the sweep "
          f"({len(processes)} processes, {len(namespaces)} mount namespaces), {lax_idle * 1000:.2f} ms per second "
          f"not strict (no sweep): {(strict_idle - lax_idle) * 1000:.2f} ms per sweep")

    # Loaders and interpreters recognised by content: a root-made copy opens the blocked game,
    # which the guard refuses after examining the opener (cold: each copy once; warm: the verdict
    # cached), against copies recognised by name. Both pay the same exec on the watched tmpfs.
    def run(path, count, offset=0, distinct=False, suffix=""):
        out = subprocess.run([runbench, str(count), path, f"{apps}/game", str(offset)] +
                             (["distinct", suffix] if distinct else []), capture_output=True, text=True, check=True).stdout.split()
        return [int(out[0]), int(out[1]), float(out[2])]

    runner_per_round = RUNNER_EXECS // ROUNDS
    kinds = (("ld", "runner", "ld-linux-x86-64.so.2", "loader"), ("sh", "shell", "dash", "dash"))
    runner_results = {f"{k}-{c}": [] for k, *_ in kinds for c in ("none", "name-cold", "name-warm", "cold", "warm")}
    for r in range(ROUNDS):
        offset = r * runner_per_round
        command([])
        for key, copy, name, _ in kinds:
            runner_results[f"{key}-none"].append(run(f"{apps}/named/{name}", runner_per_round))
        command(["benchgame"])
        for key, copy, name, _ in kinds:
            runner_results[f"{key}-name-cold"].append(run(f"{apps}/named", runner_per_round, offset, True, f"/{name}"))
            runner_results[f"{key}-cold"].append(run(f"{apps}/{copy}", runner_per_round, offset, True))
            run(f"{apps}/named/{name}", 1)
            run(f"{apps}/{copy}", 1)
            runner_results[f"{key}-name-warm"].append(run(f"{apps}/named/{name}", runner_per_round))
            runner_results[f"{key}-warm"].append(run(f"{apps}/{copy}", runner_per_round))
    _, report = command(report=True)
    results.update(runner_results)
    print(f"a root-made copy of the loader or dash opening the blocked game (refused), fork+exec+wait, "
          f"{RUNNER_EXECS} runs per configuration ({ROUNDS} interleaved rounds):")
    for key, copy, name, label in kinds:
        for suffix, text, base in (("none", f"{label}, no block (runs, fails on the game)", None),
                                   ("name-cold", f"{label} by name, cold (distinct copies)", None),
                                   ("name-warm", f"{label} by name, warm (same copy)", None),
                                   ("cold", f"{label} by content, cold (distinct copies)", f"{key}-name-cold"),
                                   ("warm", f"{label} by content, warm (same copy)", f"{key}-name-warm")):
            p50, p99 = summary(f"{key}-{suffix}")
            extra = ""
            if base is not None:
                b50, b99 = summary(base)
                extra = f"  ({p50 - b50:+.1f} µs p50, {p99 - b99:+.1f} µs p99 vs. by name)"
            print(f"  {text:<44} p50 {p50:7.1f} µs   p99 {p99:7.1f} µs{extra}")
    print(f"  (denials: {report['details'].get('denials')})")

    # Apply to gone: running instances terminated at block start.
    command([])
    gone, applied = [], []
    for _ in range(10):
        children = [subprocess.Popen([f"{apps}/game", "sleep"]) for _ in range(5)]
        time.sleep(0.05)
        start = time.perf_counter()
        seconds, _ = command(["benchgame"])
        for child in children:
            child.wait()
        gone.append(time.perf_counter() - start)
        applied.append(seconds)
        assert all(c.returncode == -signal.SIGTERM for c in children), [c.returncode for c in children]
        command([])
    print(f"block apply → 5 running instances gone (SIGTERM): median {statistics.median(gone) * 1000:.1f} ms, "
          f"max {max(gone) * 1000:.1f} ms (apply itself: median {statistics.median(applied) * 1000:.1f} ms; "
          f"includes the catalog scan, identity resolution and the /proc scan; 10 runs)")

    # CPU during a build: the blocked app lives on the filesystem the compiler runs from, so every
    # exec of the build's compiler passes the guard (until cached).
    project = f"{work}/project"
    os.makedirs(f"{project}/src")
    units = 300
    for i in range(units):
        with open(f"{project}/src/u{i}.c", "w") as f:
            f.write(textwrap.dedent(f"""
                #include <stdint.h>
                #include <string.h>
                uint64_t unit{i}(const char *text) {{
                    uint64_t hash = {i}u;
                    for (size_t k = 0; k < strlen(text); k++) hash = (hash ^ (uint8_t)text[k]) * 1099511628211u;
                    for (int round = 0; round < {i % 7 + 1}; round++) hash ^= hash >> 13, hash *= 0x9E3779B97F4A7C15u;
                    return hash;
                }}
                """))
    with open(f"{project}/src/main.c", "w") as f:
        f.write("#include <stdint.h>\n#include <stdio.h>\n")
        f.write("".join(f"uint64_t unit{i}(const char *);\n" for i in range(units)))
        f.write("int main(void) { uint64_t h = 0;\n")
        f.write("".join(f"  h ^= unit{i}(\"simplylock\");\n" for i in range(units)))
        f.write("  printf(\"%llu\\n\", (unsigned long long)h); return 0; }\n")
    with open(f"{project}/Makefile", "w") as f:
        objects = " ".join(f"src/u{i}.o" for i in range(units)) + " src/main.o"
        f.write(f"prog: {objects}\n\t$(CC) -o $@ $^\n%.o: %.c\n\t$(CC) -O2 -c -o $@ $<\nclean:\n\trm -f prog src/*.o\n")
    # The compiler's programs (driver, cc1, as, collect2, ld) copied onto the watched tmpfs, so
    # that every exec of the build's compiler passes the guard, without marking the machine's root
    # filesystem (a mark is machine-wide: other work on the machine would pass the guard too).
    toolchain = f"{apps}/toolchain"
    os.makedirs(toolchain)
    for program in ("cc1", "as", "collect2", "ld"):
        found = subprocess.run(["gcc", f"-print-prog-name={program}"], capture_output=True, text=True).stdout.strip()
        shutil.copy(found if "/" in found else shutil.which(found), f"{toolchain}/{program}")
    shutil.copy(os.path.realpath(shutil.which("gcc")), f"{toolchain}/gcc")
    libraries = os.path.dirname(subprocess.run(["gcc", "-print-libgcc-file-name"], capture_output=True, text=True).stdout.strip())
    compiler = f"CC={toolchain}/gcc -B{toolchain}/ -B{libraries}/"

    def build():
        subprocess.run(["make", "-s", "-C", project, "clean"], check=True)
        start = time.perf_counter()
        subprocess.run(["make", "-s", "-j2", "-C", project, compiler], check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - start

    # Alternating builds without and with the block, so that other load on the machine touches
    # both alike; every block apply starts the guard's cache empty again.
    baseline, guarded, cpu, events = [], [], 0.0, 0
    for _ in range(3):
        command([])
        baseline.append(build())
        _, before = command(["benchgame"])
        assert apps in before["details"]["filesystems"], before
        cpu0, events0 = cpu_seconds(sequence), int(before["details"]["events"])
        guarded.append(build())
        _, after = command(report=True)
        cpu += cpu_seconds(sequence) - cpu0
        events += int(after["details"]["events"]) - events0
    command([])
    wall = sum(guarded)
    print(f"make -j2 of a generated C project ({units + 1} files, 3 builds each, alternating): median "
          f"{statistics.median(baseline):.2f} s without a block, {statistics.median(guarded):.2f} s with the "
          f"compiler's filesystem watched (×{statistics.median(guarded) / statistics.median(baseline):.3f}); guard process CPU "
          f"{cpu * 1000:.2f} ms for {events} permission events over {wall:.1f} s of building "
          f"({cpu / wall * 100:.3f} % of one core)")
finally:
    probe.terminate()
    probe.wait()
    subprocess.run(["umount", apps])
    shutil.rmtree(work, ignore_errors=True)
