#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "clinux_elf.h"
#include "clinux_sentinel.h"

static uint64_t now_ns(void) {
    struct timespec spec;
    clock_gettime(CLOCK_MONOTONIC, &spec);
    return (uint64_t)spec.tv_sec * 1000000000ULL + (uint64_t)spec.tv_nsec;
}

// Three bit positions of the filter for one file (splitmix64 of device and inode).
static void filter_bits(uint64_t device, uint64_t inode, uint32_t bits[3]) {
    uint64_t h = device * 0x9E3779B97F4A7C15ULL ^ inode;
    h ^= h >> 30;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 27;
    h *= 0x94D049BB133111EBULL;
    h ^= h >> 31;
    bits[0] = (uint32_t)h % CLINUX_SENTINEL_FILTER_BITS;
    bits[1] = (uint32_t)(h >> 21) % CLINUX_SENTINEL_FILTER_BITS;
    bits[2] = (uint32_t)(h >> 42) % CLINUX_SENTINEL_FILTER_BITS;
}

static int in_filter(const struct clinux_sentinel_table *table, uint64_t device, uint64_t inode) {
    uint32_t bits[3];
    filter_bits(device, inode, bits);
    for (int i = 0; i < 3; i++) {
        if (!(table->filter[bits[i] / 64] & (1ULL << (bits[i] % 64)))) return 0;
    }
    return 1;
}

// Refuse: a blocked file; during a strict block, a file the daemon would have to read.
static int refuse(const struct clinux_sentinel_table *table, const struct stat *status) {
    // A daemon stopped in the middle of an update leaves the sequence odd: after a bounded
    // wait, refuse during a strict block and allow otherwise, as for anything unchecked.
    for (int attempt = 0;; attempt++) {
        if (attempt > 100000) return table->strict != 0;
        uint32_t before = __atomic_load_n(&table->sequence, __ATOMIC_ACQUIRE);
        if (before & 1) continue;
        int verdict = 0;
        uint32_t files = table->file_count, sizes = table->size_count;
        if (files > CLINUX_SENTINEL_FILES) files = CLINUX_SENTINEL_FILES;
        if (sizes > CLINUX_SENTINEL_SIZES) sizes = CLINUX_SENTINEL_SIZES;
        for (uint32_t i = 0; i < files && !verdict; i++) {
            if (table->files[i].device == (uint64_t)status->st_dev && table->files[i].inode == (uint64_t)status->st_ino) verdict = 1;
        }
        if (!verdict && table->filtered) verdict = in_filter(table, (uint64_t)status->st_dev, (uint64_t)status->st_ino);
        int user_controlled = status->st_uid != 0 || (status->st_mode & (S_IWGRP | S_IWOTH)) != 0;
        if (!verdict && table->strict && user_controlled) {
            if (table->minimum_size >= 0 && status->st_size >= table->minimum_size) verdict = 1;
            for (uint32_t i = 0; i < sizes && !verdict; i++) {
                if (table->sizes[i] == status->st_size) verdict = 1;
            }
        }
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&table->sequence, __ATOMIC_RELAXED) == before) return verdict;
    }
}

// "/proc/PID/exe" into `path` (no stdio: this runs in a forked child).
static void exe_path(int32_t pid, char path[32]) {
    char digits[12];
    int count = 0;
    uint32_t value = pid < 0 ? 0 : (uint32_t)pid;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value && count < 11);
    memcpy(path, "/proc/", 6);
    int at = 6;
    while (count) path[at++] = digits[--count];
    memcpy(path + at, "/exe", 5);
}

// True for a program name the daemon treats as an interpreter or the loader (ProgramNames):
// the base name lowercased, trailing digits and dots removed, in the table's list.
static int runner_name(const struct clinux_sentinel_table *table, const char *path, ssize_t length) {
    const char *base = path;
    for (ssize_t i = 0; i < length; i++) {
        if (path[i] == '/') base = path + i + 1;
    }
    size_t size = (size_t)(path + length - base);
    if (size == 0 || size > 255) return 0;
    char name[256];
    for (size_t i = 0; i < size; i++) name[i] = (base[i] >= 'A' && base[i] <= 'Z') ? (char)(base[i] + 32) : base[i];
    name[size] = 0;
    if (strcmp(name, "ld.so") == 0 || (strncmp(name, "ld-", 3) == 0 && strstr(name, ".so") != NULL)) return 1;
    while (size > 0 && ((name[size - 1] >= '0' && name[size - 1] <= '9') || name[size - 1] == '.')) name[--size] = 0;
    const char *entry = table->runner_names;
    const char *end = table->runner_names + CLINUX_SENTINEL_NAMES;
    while (entry < end && *entry) {
        size_t entry_length = strnlen(entry, (size_t)(end - entry));
        if (entry_length == size && memcmp(entry, name, size) == 0) return 1;
        entry += entry_length + 1;
    }
    return 0;
}

// An open of a blocked file: refused to what may run it without exec (see the header); to
// everyone when the opener cannot be examined. The opener's program is opened (to read its ELF
// header) only when nothing else decided and it is not blocked itself: a blocked file carries a
// permission mark, and the sentinel opening one would wait for its own answer.
static int refuse_open(const struct clinux_sentinel_table *table, int32_t pid) {
    char path[32];
    exe_path(pid, path);
    struct stat status;
    if (stat(path, &status) != 0) return 1;
    if (status.st_uid != 0 || (status.st_mode & (S_IWGRP | S_IWOTH)) != 0) return 1;
    char target[4096];
    ssize_t length = readlink(path, target, sizeof(target) - 1);
    int verdict = 1;
    for (int attempt = 0; attempt <= 100000; attempt++) {
        uint32_t before = __atomic_load_n(&table->sequence, __ATOMIC_ACQUIRE);
        if (before & 1) continue;
        verdict = length > 0 && runner_name(table, target, length);
        uint32_t files = table->file_count, sizes = table->runner_size_count;
        if (files > CLINUX_SENTINEL_FILES) files = CLINUX_SENTINEL_FILES;
        if (sizes > CLINUX_SENTINEL_SIZES) sizes = CLINUX_SENTINEL_SIZES;
        for (uint32_t i = 0; i < sizes && !verdict; i++) {
            if (table->runner_sizes[i] == status.st_size) verdict = 1;
        }
        for (uint32_t i = 0; i < files && !verdict; i++) {
            if (table->files[i].device == (uint64_t)status.st_dev && table->files[i].inode == (uint64_t)status.st_ino) verdict = 1;
        }
        if (!verdict && table->filtered) verdict = in_filter(table, (uint64_t)status.st_dev, (uint64_t)status.st_ino);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&table->sequence, __ATOMIC_RELAXED) == before) break;
        verdict = 1;
    }
    if (verdict) return 1;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return 1;
    int loader = clinux_elf_is_loader(fd) != 0;
    close(fd);
    return loader;
}

int clinux_sentinel_refuses_exec(const struct clinux_sentinel_table *table, const struct stat *status) {
    return refuse(table, status);
}

static void answer_all(int group_fd, struct clinux_sentinel_table *table) {
    char buffer[4096] __attribute__((aligned(__alignof__(struct fanotify_event_metadata))));
    for (;;) {
        ssize_t length = read(group_fd, buffer, sizeof(buffer));
        if (length <= 0) return;
        struct fanotify_event_metadata *event = (struct fanotify_event_metadata *)buffer;
        while (FAN_EVENT_OK(event, length)) {
            if (event->fd >= 0) {
                struct stat status;
                int deny;
                if (event->mask & FAN_OPEN_EXEC_PERM) {
                    deny = fstat(event->fd, &status) != 0 ? table->strict != 0 : refuse(table, &status);
                } else {
                    // An open of a blocked file (only those carry that mark).
                    deny = refuse_open(table, event->pid);
                }
                struct fanotify_response response = {.fd = event->fd, .response = deny ? FAN_DENY : FAN_ALLOW};
                (void)!write(group_fd, &response, sizeof(response));
                close(event->fd);
                __atomic_add_fetch(deny ? &table->refused : &table->allowed, 1, __ATOMIC_RELAXED);
            }
            event = FAN_EVENT_NEXT(event, length);
        }
    }
}

// The child: only system calls from here on (it was forked from a multithreaded process).
static void sentinel_main(int group_fd, int pipe_fd, uint64_t stall_ns, struct clinux_sentinel_table *table) {
    prctl(PR_SET_NAME, "exec-sentinel", 0, 0, 0);
    // Keep only the group and the pipe: the daemon's sockets and files are not ours to hold.
    for (int fd = 0; fd < 3; fd++) {
        if (fd != group_fd && fd != pipe_fd) {
            int null = open("/dev/null", O_RDWR);
            if (null >= 0 && null != fd) { dup2(null, fd); close(null); }
        }
    }
    int low = group_fd < pipe_fd ? group_fd : pipe_fd, high = group_fd < pipe_fd ? pipe_fd : group_fd;
    if (low > 3) syscall(SYS_close_range, 3, low - 1, 0);
    if (high > low + 1) syscall(SYS_close_range, low + 1, high - 1, 0);
    syscall(SYS_close_range, high + 1, ~0U, 0);
    for (;;) {
        uint64_t beat = __atomic_load_n(&table->beat, __ATOMIC_RELAXED);
        int stale = now_ns() - beat > stall_ns;
        struct pollfd fds[2] = {{.fd = pipe_fd, .events = POLLIN}, {.fd = group_fd, .events = POLLIN}};
        int ready = poll(fds, stale ? 2 : 1, 100);
        if (ready < 0) continue;
        if (fds[0].revents) _exit(0);
        if (stale && (fds[1].revents & POLLIN)) answer_all(group_fd, table);
    }
}

int clinux_sentinel_start(int group_fd, uint64_t stall_ns, struct clinux_sentinel *sentinel) {
    struct clinux_sentinel_table *table =
        mmap(NULL, sizeof(*table), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (table == MAP_FAILED) return -1;
    memset(table, 0, sizeof(*table));
    table->minimum_size = -1;
    table->beat = now_ns();
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        munmap(table, sizeof(*table));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        int saved = errno;
        close(fds[0]);
        close(fds[1]);
        munmap(table, sizeof(*table));
        errno = saved;
        return -1;
    }
    if (pid == 0) {
        sentinel_main(group_fd, fds[0], stall_ns, table);
        _exit(0);
    }
    close(fds[0]);
    sentinel->pid = pid;
    sentinel->pipe_fd = fds[1];
    sentinel->table = table;
    return 0;
}

void clinux_sentinel_stop(struct clinux_sentinel *sentinel) {
    if (sentinel->pid <= 0) return;
    close(sentinel->pipe_fd);
    // It ends at once (the pipe wakes its poll); the bound is for a sentinel stopped by someone.
    for (int i = 0; i < 200; i++) {
        if (waitpid(sentinel->pid, NULL, WNOHANG) != 0) break;
        if (i == 199) {
            kill(sentinel->pid, SIGKILL);
            waitpid(sentinel->pid, NULL, 0);
        }
        usleep(10000);
    }
    sentinel->pid = 0;
}

void clinux_sentinel_release(struct clinux_sentinel_table *table) { munmap(table, sizeof(*table)); }

void clinux_sentinel_beat(struct clinux_sentinel_table *table, uint64_t now) {
    __atomic_store_n(&table->beat, now, __ATOMIC_RELAXED);
}

void clinux_sentinel_update(
    struct clinux_sentinel_table *table, int strict, int64_t minimum_size, const int64_t *sizes, uint32_t size_count,
    const uint64_t *files, uint32_t file_count) {
    if (size_count > CLINUX_SENTINEL_SIZES) {
        // More distinct sizes than fit: refuse every user-controlled file from the smallest.
        int64_t smallest = minimum_size;
        for (uint32_t i = 0; i < size_count; i++) {
            if (smallest < 0 || sizes[i] < smallest) smallest = sizes[i];
        }
        minimum_size = smallest;
        size_count = 0;
    }
    uint32_t exact = file_count > CLINUX_SENTINEL_FILES ? CLINUX_SENTINEL_FILES : file_count;
    __atomic_add_fetch(&table->sequence, 1, __ATOMIC_ACQ_REL);
    table->strict = strict ? 1 : 0;
    table->minimum_size = minimum_size;
    table->size_count = size_count;
    for (uint32_t i = 0; i < size_count; i++) table->sizes[i] = sizes[i];
    table->file_count = exact;
    for (uint32_t i = 0; i < exact; i++) {
        table->files[i].device = files[2 * i];
        table->files[i].inode = files[2 * i + 1];
    }
    if (table->filtered) memset(table->filter, 0, sizeof(table->filter));
    table->filtered = file_count - exact;
    for (uint32_t i = exact; i < file_count; i++) {
        uint32_t bits[3];
        filter_bits(files[2 * i], files[2 * i + 1], bits);
        for (int b = 0; b < 3; b++) table->filter[bits[b] / 64] |= 1ULL << (bits[b] % 64);
    }
    __atomic_add_fetch(&table->sequence, 1, __ATOMIC_RELEASE);
}

void clinux_sentinel_set_runners(
    struct clinux_sentinel_table *table, const int64_t *sizes, uint32_t size_count, const char *names, uint32_t names_length) {
    if (size_count > CLINUX_SENTINEL_SIZES) size_count = CLINUX_SENTINEL_SIZES;
    __atomic_add_fetch(&table->sequence, 1, __ATOMIC_ACQ_REL);
    table->runner_size_count = size_count;
    for (uint32_t i = 0; i < size_count; i++) table->runner_sizes[i] = sizes[i];
    memset(table->runner_names, 0, sizeof(table->runner_names));
    // Whole names only: a list cut short must not end in half a name.
    uint32_t kept = 0;
    while (kept < names_length && names[kept]) {
        uint32_t length = (uint32_t)strnlen(names + kept, names_length - kept);
        if (kept + length + 2 > CLINUX_SENTINEL_NAMES) break;
        memcpy(table->runner_names + kept, names + kept, length);
        kept += length + 1;
    }
    __atomic_add_fetch(&table->sequence, 1, __ATOMIC_RELEASE);
}
