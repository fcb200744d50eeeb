// The bus connection, its loop and notifications. See CSessionBus.h.
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

static int load(struct sd_functions *sd, char *error, size_t size) {
    void *library = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(error, size, "cannot load libsystemd.so.0: %s", dlerror());
        return -ENOENT;
    }
#define RESOLVE(field, name)                                                  \
    do {                                                                      \
        *(void **)&sd->field = dlsym(library, name);                          \
        if (!sd->field) {                                                     \
            snprintf(error, size, "libsystemd.so.0 has no %s", name);         \
            return -ENOSYS;                                                   \
        }                                                                     \
    } while (0)
    RESOLVE(open_user, "sd_bus_open_user");
    RESOLVE(flush_close_unref, "sd_bus_flush_close_unref");
    RESOLVE(get_fd, "sd_bus_get_fd");
    RESOLVE(get_events, "sd_bus_get_events");
    RESOLVE(get_timeout, "sd_bus_get_timeout");
    RESOLVE(process, "sd_bus_process");
    RESOLVE(add_object_vtable, "sd_bus_add_object_vtable");
    RESOLVE(request_name, "sd_bus_request_name");
    RESOLVE(add_match, "sd_bus_add_match");
    RESOLVE(call_method_async, "sd_bus_call_method_async");
    RESOLVE(emit_signal, "sd_bus_emit_signal");
    RESOLVE(new_method_call, "sd_bus_message_new_method_call");
    RESOLVE(new_method_return, "sd_bus_message_new_method_return");
    RESOLVE(call, "sd_bus_call");
    RESOLVE(send, "sd_bus_send");
    RESOLVE(reply_method_return, "sd_bus_reply_method_return");
    RESOLVE(append, "sd_bus_message_append");
    RESOLVE(append_basic, "sd_bus_message_append_basic");
    RESOLVE(open_container, "sd_bus_message_open_container");
    RESOLVE(close_container, "sd_bus_message_close_container");
    RESOLVE(read, "sd_bus_message_read");
    RESOLVE(read_basic, "sd_bus_message_read_basic");
    RESOLVE(enter_container, "sd_bus_message_enter_container");
    RESOLVE(exit_container, "sd_bus_message_exit_container");
    RESOLVE(skip, "sd_bus_message_skip");
    RESOLVE(get_error, "sd_bus_message_get_error");
    RESOLVE(message_unref, "sd_bus_message_unref");
    RESOLVE(error_free, "sd_bus_error_free");
    RESOLVE(vtable_format, "sd_bus_object_vtable_format");
#undef RESOLVE
    return 0;
}

static int on_action_invoked(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    (void)error;
    sl_bus *bus = userdata;
    uint32_t id = 0;
    const char *key = NULL;
    if (bus->sd.read(message, "us", &id, &key) >= 0 && key && bus->callbacks.action)
        bus->callbacks.action(bus->callbacks.context, id, key);
    return 0;
}

sl_bus *sl_bus_open(const sl_bus_callbacks *callbacks, int *code, char *error, size_t size) {
    *code = -ENOMEM;
    sl_bus *bus = calloc(1, sizeof(*bus));
    if (!bus) {
        snprintf(error, size, "out of memory");
        return NULL;
    }
    bus->wake_fd = -1;
    pthread_mutex_init(&bus->lock, NULL);
    bus->callbacks = *callbacks;
    int r = load(&bus->sd, error, size);
    if (r < 0) goto fail;
    r = bus->sd.open_user(&bus->bus);
    if (r < 0) {
        // sd-bus says "No medium found" (ENOMEDIUM) when neither DBUS_SESSION_BUS_ADDRESS nor
        // XDG_RUNTIME_DIR names a bus: the one case people meet outside a desktop session.
        if (r == -ENOMEDIUM)
            snprintf(
                error, size,
                "no session bus: neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set (No medium found)");
        else
            snprintf(error, size, "cannot connect to the session bus: %s", strerror(-r));
        goto fail;
    }
    bus->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (bus->wake_fd < 0) {
        r = -errno;
        snprintf(error, size, "eventfd: %s", strerror(errno));
        goto fail;
    }
    // Every notification server emits ActionInvoked from its unique name, which a well-known
    // sender in the rule would not match on this side: the rule names the path and interface.
    r = bus->sd.add_match(
        bus->bus, NULL,
        "type='signal',path='/org/freedesktop/Notifications',interface='org.freedesktop.Notifications',"
        "member='ActionInvoked'",
        on_action_invoked, bus);
    if (r < 0) {
        snprintf(error, size, "cannot follow notification actions: %s", strerror(-r));
        goto fail;
    }
    return bus;
fail:
    *code = r;
    if (bus->bus) bus->sd.flush_close_unref(bus->bus);
    if (bus->wake_fd >= 0) close(bus->wake_fd);
    free(bus);
    return NULL;
}

void sl_bus_wake(sl_bus *bus) {
    uint64_t one = 1;
    ssize_t written = write(bus->wake_fd, &one, sizeof(one));
    (void)written;
}

int sl_bus_run(sl_bus *bus) {
    for (;;) {
        int r;
        do {
            r = bus->sd.process(bus->bus, NULL);
        } while (r > 0);
        if (r < 0) return r;
        struct pollfd fds[2] = {
            {.fd = bus->sd.get_fd(bus->bus), .events = (short)bus->sd.get_events(bus->bus)},
            {.fd = bus->wake_fd, .events = POLLIN},
        };
        uint64_t until = 0;
        int timeout = -1;
        if (bus->sd.get_timeout(bus->bus, &until) > 0 && until != UINT64_MAX) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            uint64_t current = (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
            timeout = until <= current ? 0 : (int)((until - current + 999) / 1000);
        }
        if (poll(fds, 2, timeout) < 0 && errno != EINTR) return -errno;
        if (fds[1].revents & POLLIN) {
            uint64_t count;
            ssize_t got = read(bus->wake_fd, &count, sizeof(count));
            (void)got;
            if (bus->tray_exported) sl_tray_emit_changes(bus);
            if (bus->callbacks.wake) bus->callbacks.wake(bus->callbacks.context);
        }
    }
}

static int hint_string(sl_bus *bus, sd_bus_message *m, const char *key, const char *value) {
    return bus->sd.append(m, "{sv}", key, "s", value);
}

int sl_bus_notify(
    sl_bus *bus, const char *app, uint32_t replaces, const char *icon, const char *summary, const char *body,
    const char *const *actions, size_t action_count, uint8_t urgency, const char *category, const char *desktop_entry,
    int32_t timeout, uint32_t *id, char *error, size_t size) {
    struct sd_functions *sd = &bus->sd;
    sd_bus_message *m = NULL, *reply = NULL;
    sd_bus_error failure = SD_BUS_ERROR_NULL;
    int r = sd->new_method_call(
        bus->bus, &m, "org.freedesktop.Notifications", "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
        "Notify");
    if (r < 0) goto done;
    if ((r = sd->append(m, "susss", app, replaces, icon, summary, body)) < 0) goto done;
    if ((r = sd->open_container(m, 'a', "s")) < 0) goto done;
    for (size_t i = 0; i < 2 * action_count; i++)
        if ((r = sd->append_basic(m, 's', actions[i])) < 0) goto done;
    if ((r = sd->close_container(m)) < 0) goto done;
    if ((r = sd->open_container(m, 'a', "{sv}")) < 0) goto done;
    if ((r = sd->append(m, "{sv}", "urgency", "y", urgency)) < 0) goto done;
    if (category && (r = hint_string(bus, m, "category", category)) < 0) goto done;
    if (desktop_entry && (r = hint_string(bus, m, "desktop-entry", desktop_entry)) < 0) goto done;
    if ((r = sd->close_container(m)) < 0) goto done;
    if ((r = sd->append_basic(m, 'i', &timeout)) < 0) goto done;
    r = sd->call(bus->bus, m, 5000000, &failure, &reply);
    if (r >= 0) r = sd->read(reply, "u", id);
done:
    if (r < 0) {
        if (failure.name)
            snprintf(error, size, "Notify failed: %s%s%s", failure.name, failure.message ? ": " : "", failure.message ? failure.message : "");
        else
            snprintf(error, size, "Notify failed: %s", strerror(-r));
    }
    sd->error_free(&failure);
    if (reply) sd->message_unref(reply);
    if (m) sd->message_unref(m);
    return r < 0 ? r : 0;
}
