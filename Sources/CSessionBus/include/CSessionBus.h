#ifndef CSESSIONBUS_H
#define CSESSIONBUS_H

// lockctl notify's session bus: freedesktop notifications with actions, and a tray icon
// (org.kde.StatusNotifierItem with a com.canonical.dbusmenu menu). Built on libsystemd's sd-bus,
// which is opened with dlopen: lockctl must not link libsystemd (see DesktopNotifications.swift).
// One thread runs the bus (sl_bus_run); every other function is for that thread only, except
// sl_bus_wake and sl_bus_set_tray, which any thread may call.

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sl_bus sl_bus;

typedef struct {
    void *context;
    /// After sl_bus_wake, on the bus thread.
    void (*wake)(void *context);
    /// A notification's action was invoked (ActionInvoked).
    void (*action)(void *context, uint32_t notification, const char *key);
    /// A tray menu item was clicked (dbusmenu Event "clicked"); id 0 is the icon itself (Activate).
    void (*clicked)(void *context, int32_t item);
    /// What became of registering the icon with a StatusNotifierWatcher; message is NULL on success.
    void (*registered)(void *context, const char *message);
} sl_bus_callbacks;

typedef struct {
    int32_t id;
    /// 0: the menu's root.
    int32_t parent;
    const char *label;
    bool enabled;
    bool separator;
} sl_menu_item;

typedef struct {
    /// Active, Passive or NeedsAttention.
    const char *status;
    const char *icon;
    const char *title;
    const char *tooltip_title;
    const char *tooltip_body;
    const sl_menu_item *items;
    size_t count;
} sl_tray_state;

/// Loads libsystemd and connects to the session bus; NULL with a negative errno in `code` and a
/// reason in `error` (-ENOMEDIUM: no session bus is named; -ENOENT: no libsystemd).
sl_bus *sl_bus_open(const sl_bus_callbacks *callbacks, int *code, char *error, size_t size);
/// Exports the tray icon and registers it with the StatusNotifierWatcher, now and whenever one
/// starts. Returns a negative errno with a reason in `error`.
int sl_bus_export_tray(sl_bus *bus, char *error, size_t size);
/// Replaces what the tray shows and tells the panel (copied; any thread).
void sl_bus_set_tray(sl_bus *bus, const sl_tray_state *state);
/// Wakes the bus thread, which then calls `wake` (any thread).
void sl_bus_wake(sl_bus *bus);
/// Runs the bus until the connection is lost; returns a negative errno.
int sl_bus_run(sl_bus *bus);
/// org.freedesktop.Notifications.Notify; actions are key, label pairs (2 * count strings).
/// Returns 0 and the id, or a negative errno with a reason in `error`.
int sl_bus_notify(
    sl_bus *bus, const char *app, uint32_t replaces, const char *icon, const char *summary, const char *body,
    const char *const *actions, size_t action_count, uint8_t urgency, const char *category, const char *desktop_entry,
    int32_t timeout, uint32_t *id, char *error, size_t size);

#endif
