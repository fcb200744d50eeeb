#ifndef CSESSIONBUS_INTERNAL_H
#define CSESSIONBUS_INTERNAL_H

// Only the types and macros of sd-bus are taken from its headers; every function is resolved
// with dlsym (the `sd` table), so nothing here links libsystemd.
#include <pthread.h>
#include <systemd/sd-bus.h>

#include "CSessionBus.h"

struct sd_functions {
    int (*open_user)(sd_bus **);
    sd_bus *(*flush_close_unref)(sd_bus *);
    int (*get_fd)(sd_bus *);
    int (*get_events)(sd_bus *);
    int (*get_timeout)(sd_bus *, uint64_t *);
    int (*process)(sd_bus *, sd_bus_message **);
    int (*add_object_vtable)(sd_bus *, sd_bus_slot **, const char *, const char *, const sd_bus_vtable *, void *);
    int (*request_name)(sd_bus *, const char *, uint64_t);
    int (*add_match)(sd_bus *, sd_bus_slot **, const char *, sd_bus_message_handler_t, void *);
    int (*call_method_async)(
        sd_bus *, sd_bus_slot **, const char *, const char *, const char *, const char *, sd_bus_message_handler_t, void *,
        const char *, ...);
    int (*emit_signal)(sd_bus *, const char *, const char *, const char *, const char *, ...);
    int (*new_method_call)(sd_bus *, sd_bus_message **, const char *, const char *, const char *, const char *);
    int (*new_method_return)(sd_bus_message *, sd_bus_message **);
    int (*call)(sd_bus *, sd_bus_message *, uint64_t, sd_bus_error *, sd_bus_message **);
    int (*send)(sd_bus *, sd_bus_message *, uint64_t *);
    int (*reply_method_return)(sd_bus_message *, const char *, ...);
    int (*append)(sd_bus_message *, const char *, ...);
    int (*append_basic)(sd_bus_message *, char, const void *);
    int (*open_container)(sd_bus_message *, char, const char *);
    int (*close_container)(sd_bus_message *);
    int (*read)(sd_bus_message *, const char *, ...);
    int (*read_basic)(sd_bus_message *, char, void *);
    int (*enter_container)(sd_bus_message *, char, const char *);
    int (*exit_container)(sd_bus_message *);
    int (*skip)(sd_bus_message *, const char *);
    const sd_bus_error *(*get_error)(sd_bus_message *);
    sd_bus_message *(*message_unref)(sd_bus_message *);
    void (*error_free)(sd_bus_error *);
    const unsigned *vtable_format;
};

struct sl_item {
    int32_t id;
    int32_t parent;
    char *label;
    bool enabled;
    bool separator;
};

struct sl_bus {
    struct sd_functions sd;
    sd_bus *bus;
    int wake_fd;
    sl_bus_callbacks callbacks;
    bool tray_exported;
    char tray_name[80];
    // What the tray shows; written by any thread, read by the bus thread.
    pthread_mutex_t lock;
    char *status, *icon, *title, *tooltip_title, *tooltip_body;
    struct sl_item *items;
    size_t count;
    uint32_t revision;
    bool tray_changed;
};

int sl_tray_export(sl_bus *bus, char *error, size_t size);
void sl_tray_emit_changes(sl_bus *bus);

#endif
