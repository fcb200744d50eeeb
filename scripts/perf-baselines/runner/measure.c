/* Runs a command with its output sent to /dev/null and prints "CPU_MICROSECONDS PEAK_RSS_KIB
 * WALL_MICROSECONDS". A small C parent, so the child's peak RSS is its own (a Python parent's
 * memory would count in the child's until it execs). Used by scripts/bench-perf.py. */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: measure COMMAND [ARG...]\n"); return 2; }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t pid;
    if (posix_spawnp(&pid, argv[1], &actions, NULL, argv + 1, environ) != 0) { perror("posix_spawn"); return 2; }
    int status;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) < 0) { perror("wait4"); return 2; }
    clock_gettime(CLOCK_MONOTONIC, &end);
    long cpu = usage.ru_utime.tv_sec * 1000000L + usage.ru_utime.tv_usec + usage.ru_stime.tv_sec * 1000000L + usage.ru_stime.tv_usec;
    long wall = (end.tv_sec - start.tv_sec) * 1000000L + (end.tv_nsec - start.tv_nsec) / 1000;
    printf("%ld %ld %ld\n", cpu, usage.ru_maxrss, wall);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
