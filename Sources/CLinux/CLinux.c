#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/timex.h>
#include <sys/resource.h>
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <linux/netlink.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <linux/connector.h>
#include <linux/cn_proc.h>
#include "CLinux.h"

int clinux_mkostemp(char *template_path, int flags) { return mkostemp(template_path, flags); }

int clinux_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct ucred cred;
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    *pid = cred.pid;
    *uid = cred.uid;
    *gid = cred.gid;
    return 0;
}

long clinux_raise_nofile(long wanted) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
    rlim_t target = limit.rlim_max == RLIM_INFINITY || (long)limit.rlim_max > wanted ? (rlim_t)wanted : limit.rlim_max;
    if (target > limit.rlim_cur) {
        limit.rlim_cur = target;
        if (setrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
    }
    return (long)limit.rlim_cur;
}

int clinux_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

// glibc calls every .init_array entry with (argc, argv, envp), in dynamic and static executables
// alike; Swift's CommandLine reads /proc/self/cmdline instead, which a bare chroot lacks.
static int clinux_saved_argc = -1;
static char *const *clinux_saved_argv;

static void clinux_save_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    if (argv == NULL || argc < 0) return;
    clinux_saved_argc = argc;
    clinux_saved_argv = argv;
}

__attribute__((section(".init_array"), used)) static void (*const clinux_save_arguments_entry)(int, char **, char **) =
    clinux_save_arguments;

int clinux_start_argc(void) { return clinux_saved_argc; }

int clinux_inode_flags(const char *path, int *immutable, int *append_only) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return -1;
    int flags = 0;
    int result = ioctl(fd, FS_IOC_GETFLAGS, &flags);
    int saved = errno;
    close(fd);
    errno = saved;
    if (result != 0) return -1;
    *immutable = (flags & FS_IMMUTABLE_FL) != 0;
    *append_only = (flags & FS_APPEND_FL) != 0;
    return 0;
}
char *const *clinux_start_argv(void) { return clinux_saved_argv; }

int clinux_clock_synchronised(void) {
    struct timex tx = {0};
    int state = adjtimex(&tx);
    if (state < 0) return -1;
    return state == TIME_ERROR ? 0 : 1;
}

// ---- App blocking (exec guard): fanotify, the proc connector, pidfds ----

int clinux_fanotify_init(unsigned int flags, unsigned int event_f_flags) { return fanotify_init(flags, event_f_flags); }

int clinux_fanotify_mark(int fd, unsigned int flags, uint64_t mask, int dirfd, const char *path) {
    return fanotify_mark(fd, flags, mask, dirfd, path);
}

int clinux_fanotify_read(int fd, struct clinux_fanotify_event *events, int max) {
    // Events are small (24 bytes without extra info records); this buffer holds more than
    // `max` of them, and the kernel never splits one across reads.
    char buffer[8192] __attribute__((aligned(__alignof__(struct fanotify_event_metadata))));
    if (max <= 0) return 0;
    size_t want = (size_t)max * sizeof(struct fanotify_event_metadata);
    if (want > sizeof(buffer)) want = sizeof(buffer);
    ssize_t length = read(fd, buffer, want);
    if (length < 0) return errno == EAGAIN ? 0 : -1;
    int count = 0;
    struct fanotify_event_metadata *event = (struct fanotify_event_metadata *)buffer;
    while (count < max && FAN_EVENT_OK(event, length)) {
        if (event->vers == FANOTIFY_METADATA_VERSION) {
            events[count].mask = event->mask;
            events[count].fd = event->fd;
            events[count].pid = event->pid;
            count++;
        } else if (event->fd >= 0) {
            close(event->fd);
        }
        event = FAN_EVENT_NEXT(event, length);
    }
    return count;
}

int clinux_fanotify_respond(int fd, int32_t event_fd, int allow) {
    struct fanotify_response response = { .fd = event_fd, .response = allow ? FAN_ALLOW : FAN_DENY };
    ssize_t written;
    do { written = write(fd, &response, sizeof(response)); } while (written < 0 && errno == EINTR);
    return written == sizeof(response) ? 0 : -1;
}

static int proc_connector_send(int fd, enum proc_cn_mcast_op op) {
    // nlmsghdr, then cn_msg (whose data member is a flexible array), then the operation.
    char request[NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof(enum proc_cn_mcast_op))] __attribute__((aligned(NLMSG_ALIGNTO)));
    memset(request, 0, sizeof(request));
    struct nlmsghdr *header = (struct nlmsghdr *)request;
    header->nlmsg_len = sizeof(request);
    header->nlmsg_type = NLMSG_DONE;
    struct cn_msg *message = NLMSG_DATA(header);
    message->id.idx = CN_IDX_PROC;
    message->id.val = CN_VAL_PROC;
    message->len = sizeof(enum proc_cn_mcast_op);
    memcpy(message->data, &op, sizeof(op));
    return send(fd, request, sizeof(request), 0) < 0 ? -1 : 0;
}

int clinux_proc_connector_open(void) {
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_CONNECTOR);
    if (fd < 0) return -1;
    struct sockaddr_nl address = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC, .nl_pid = 0 };
    if (bind(fd, (struct sockaddr *)&address, sizeof(address)) < 0) goto fail;
    // Exec bursts (a parallel build) must not overflow the queue: ask for a large buffer.
    int size = 4 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size));
    if (proc_connector_send(fd, PROC_CN_MCAST_LISTEN) < 0) goto fail;
    return fd;
fail:;
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

void clinux_proc_connector_close(int fd) {
    int saved = errno;
    (void)proc_connector_send(fd, PROC_CN_MCAST_IGNORE);
    close(fd);
    errno = saved;
}

int clinux_proc_connector_read(int fd, int32_t *pids, int max) {
    char buffer[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
    ssize_t length = recv(fd, buffer, sizeof(buffer), 0);
    if (length < 0) return -1;
    int count = 0;
    for (struct nlmsghdr *header = (struct nlmsghdr *)buffer; NLMSG_OK(header, (size_t)length);
         header = NLMSG_NEXT(header, length)) {
        if (header->nlmsg_type == NLMSG_ERROR || header->nlmsg_type == NLMSG_NOOP) continue;
        if (header->nlmsg_len < NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof(struct proc_event))) continue;
        struct cn_msg *message = NLMSG_DATA(header);
        if (message->id.idx != CN_IDX_PROC || message->id.val != CN_VAL_PROC) continue;
        struct proc_event *event = (struct proc_event *)message->data;
        if (event->what == PROC_EVENT_EXEC && count < max) pids[count++] = event->event_data.exec.process_tgid;
    }
    return count;
}

int clinux_pidfd_open(int32_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

int clinux_pidfd_send_signal(int pidfd, int signal) { return (int)syscall(SYS_pidfd_send_signal, pidfd, signal, NULL, 0); }
