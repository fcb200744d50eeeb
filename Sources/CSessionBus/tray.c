// The tray icon: org.kde.StatusNotifierItem at /StatusNotifierItem and its menu,
// com.canonical.dbusmenu at /MenuBar. Properties are read from the state sl_bus_set_tray keeps.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define ITEM_PATH "/StatusNotifierItem"
#define MENU_PATH "/MenuBar"
#define WATCHER "org.kde.StatusNotifierWatcher"

static char *copy(const char *text) { return strdup(text ? text : ""); }

void sl_bus_set_tray(sl_bus *bus, const sl_tray_state *state) {
    struct sl_item *items = calloc(state->count ? state->count : 1, sizeof(*items));
    if (!items) return;
    for (size_t i = 0; i < state->count; i++) {
        items[i] = (struct sl_item){
            .id = state->items[i].id, .parent = state->items[i].parent, .label = copy(state->items[i].label),
            .enabled = state->items[i].enabled, .separator = state->items[i].separator};
    }
    pthread_mutex_lock(&bus->lock);
    for (size_t i = 0; i < bus->count; i++) free(bus->items[i].label);
    free(bus->items);
    free(bus->status), free(bus->icon), free(bus->title), free(bus->tooltip_title), free(bus->tooltip_body);
    bus->items = items;
    bus->count = state->count;
    bus->status = copy(state->status);
    bus->icon = copy(state->icon);
    bus->title = copy(state->title);
    bus->tooltip_title = copy(state->tooltip_title);
    bus->tooltip_body = copy(state->tooltip_body);
    bus->revision++;
    bus->tray_changed = true;
    pthread_mutex_unlock(&bus->lock);
    sl_bus_wake(bus);
}

void sl_tray_emit_changes(sl_bus *bus) {
    pthread_mutex_lock(&bus->lock);
    bool changed = bus->tray_changed;
    bus->tray_changed = false;
    uint32_t revision = bus->revision;
    char *status = copy(bus->status);
    pthread_mutex_unlock(&bus->lock);
    if (changed) {
        struct sd_functions *sd = &bus->sd;
        sd->emit_signal(bus->bus, ITEM_PATH, "org.kde.StatusNotifierItem", "NewTitle", NULL);
        sd->emit_signal(bus->bus, ITEM_PATH, "org.kde.StatusNotifierItem", "NewIcon", NULL);
        sd->emit_signal(bus->bus, ITEM_PATH, "org.kde.StatusNotifierItem", "NewToolTip", NULL);
        sd->emit_signal(bus->bus, ITEM_PATH, "org.kde.StatusNotifierItem", "NewStatus", "s", status);
        sd->emit_signal(bus->bus, MENU_PATH, "com.canonical.dbusmenu", "LayoutUpdated", "ui", revision, (int32_t)0);
    }
    free(status);
}

// StatusNotifierItem properties, one getter for all: the property's name picks the field.
static int item_property(
    sd_bus *b, const char *path, const char *interface, const char *property, sd_bus_message *reply, void *userdata,
    sd_bus_error *error) {
    (void)b, (void)path, (void)interface, (void)error;
    sl_bus *bus = userdata;
    struct sd_functions *sd = &bus->sd;
    int r;
    pthread_mutex_lock(&bus->lock);
    if (!strcmp(property, "Category")) r = sd->append(reply, "s", "ApplicationStatus");
    else if (!strcmp(property, "Id")) r = sd->append(reply, "s", "simplylock");
    else if (!strcmp(property, "Title")) r = sd->append(reply, "s", bus->title ? bus->title : "SimplyLock");
    else if (!strcmp(property, "Status")) r = sd->append(reply, "s", bus->status ? bus->status : "Passive");
    else if (!strcmp(property, "WindowId")) r = sd->append(reply, "i", (int32_t)0);
    else if (!strcmp(property, "IconName")) r = sd->append(reply, "s", bus->icon ? bus->icon : "");
    else if (!strcmp(property, "AttentionIconName")) r = sd->append(reply, "s", bus->icon ? bus->icon : "");
    else if (!strcmp(property, "OverlayIconName") || !strcmp(property, "IconThemePath")) r = sd->append(reply, "s", "");
    else if (!strcmp(property, "IconPixmap") || !strcmp(property, "AttentionIconPixmap") || !strcmp(property, "OverlayIconPixmap"))
        r = sd->append(reply, "a(iiay)", 0);
    else if (!strcmp(property, "ToolTip"))
        r = sd->append(
            reply, "(sa(iiay)ss)", bus->icon ? bus->icon : "", 0, bus->tooltip_title ? bus->tooltip_title : "",
            bus->tooltip_body ? bus->tooltip_body : "");
    else if (!strcmp(property, "ItemIsMenu")) r = sd->append(reply, "b", 1);
    else if (!strcmp(property, "Menu")) r = sd->append(reply, "o", MENU_PATH);
    else r = -ENOENT;
    pthread_mutex_unlock(&bus->lock);
    return r;
}

static int item_activate(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    sl_bus *bus = userdata;
    if (bus->callbacks.clicked) bus->callbacks.clicked(bus->callbacks.context, 0);
    return bus->sd.reply_method_return(m, NULL);
}

static int item_ignore(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    sl_bus *bus = userdata;
    return bus->sd.reply_method_return(m, NULL);
}

// The format reference of the first entry is set at run time to libsystemd's own, found with
// dlsym (the header's SD_BUS_VTABLE_START names the symbol, which would link the library).
#define VTABLE_START_UNRESOLVED                                                                              \
    {.type = _SD_BUS_VTABLE_START,                                                                           \
     .flags = 0,                                                                                             \
     .x = {.start = {.element_size = sizeof(sd_bus_vtable), .features = _SD_BUS_VTABLE_PARAM_NAMES, .vtable_format_reference = NULL}}}

static sd_bus_vtable item_vtable[] = {
    VTABLE_START_UNRESOLVED,
    SD_BUS_PROPERTY("Category", "s", item_property, 0, 0),
    SD_BUS_PROPERTY("Id", "s", item_property, 0, 0),
    SD_BUS_PROPERTY("Title", "s", item_property, 0, 0),
    SD_BUS_PROPERTY("Status", "s", item_property, 0, 0),
    SD_BUS_PROPERTY("WindowId", "i", item_property, 0, 0),
    SD_BUS_PROPERTY("IconName", "s", item_property, 0, 0),
    SD_BUS_PROPERTY("IconPixmap", "a(iiay)", item_property, 0, 0),
    SD_BUS_PROPERTY("OverlayIconName", "s", item_property, 0, 0),
    SD_BUS_PROPERTY("OverlayIconPixmap", "a(iiay)", item_property, 0, 0),
    SD_BUS_PROPERTY("AttentionIconName", "s", item_property, 0, 0),
    SD_BUS_PROPERTY("AttentionIconPixmap", "a(iiay)", item_property, 0, 0),
    SD_BUS_PROPERTY("IconThemePath", "s", item_property, 0, 0),
    SD_BUS_PROPERTY("ToolTip", "(sa(iiay)ss)", item_property, 0, 0),
    SD_BUS_PROPERTY("ItemIsMenu", "b", item_property, 0, 0),
    SD_BUS_PROPERTY("Menu", "o", item_property, 0, 0),
    SD_BUS_METHOD("Activate", "ii", "", item_activate, 0),
    SD_BUS_METHOD("SecondaryActivate", "ii", "", item_ignore, 0),
    SD_BUS_METHOD("ContextMenu", "ii", "", item_ignore, 0),
    SD_BUS_METHOD("Scroll", "is", "", item_ignore, 0),
    SD_BUS_SIGNAL("NewTitle", "", 0),
    SD_BUS_SIGNAL("NewIcon", "", 0),
    SD_BUS_SIGNAL("NewAttentionIcon", "", 0),
    SD_BUS_SIGNAL("NewOverlayIcon", "", 0),
    SD_BUS_SIGNAL("NewToolTip", "", 0),
    SD_BUS_SIGNAL("NewStatus", "s", 0),
    SD_BUS_VTABLE_END};

// dbusmenu. Items are kept in menu order with their parent's id; the root is id 0.
static bool has_children(sl_bus *bus, int32_t id) {
    for (size_t i = 0; i < bus->count; i++)
        if (bus->items[i].parent == id && bus->items[i].id != id) return true;
    return false;
}

static const struct sl_item *find(sl_bus *bus, int32_t id) {
    for (size_t i = 0; i < bus->count; i++)
        if (bus->items[i].id == id) return &bus->items[i];
    return NULL;
}

static bool wanted(const char *const *names, size_t count, const char *name) {
    if (count == 0) return true;
    for (size_t i = 0; i < count; i++)
        if (!strcmp(names[i], name)) return true;
    return false;
}

static int append_properties(sl_bus *bus, sd_bus_message *m, int32_t id, const char *const *names, size_t count) {
    struct sd_functions *sd = &bus->sd;
    const struct sl_item *item = find(bus, id);
    int r = sd->open_container(m, 'a', "{sv}");
    if (r < 0) return r;
    if (item && item->separator) {
        if (wanted(names, count, "type") && (r = sd->append(m, "{sv}", "type", "s", "separator")) < 0) return r;
    } else if (item) {
        if (wanted(names, count, "label") && (r = sd->append(m, "{sv}", "label", "s", item->label)) < 0) return r;
        if (wanted(names, count, "enabled") && (r = sd->append(m, "{sv}", "enabled", "b", (int)item->enabled)) < 0) return r;
    }
    if (wanted(names, count, "visible") && (r = sd->append(m, "{sv}", "visible", "b", 1)) < 0) return r;
    if ((id == 0 || has_children(bus, id)) && wanted(names, count, "children-display") &&
        (r = sd->append(m, "{sv}", "children-display", "s", "submenu")) < 0)
        return r;
    return sd->close_container(m);
}

static int append_layout(sl_bus *bus, sd_bus_message *m, int32_t id, int32_t depth, const char *const *names, size_t count) {
    struct sd_functions *sd = &bus->sd;
    int r = sd->open_container(m, 'r', "ia{sv}av");
    if (r < 0) return r;
    if ((r = sd->append_basic(m, 'i', &id)) < 0) return r;
    if ((r = append_properties(bus, m, id, names, count)) < 0) return r;
    if ((r = sd->open_container(m, 'a', "v")) < 0) return r;
    if (depth != 0) {
        for (size_t i = 0; i < bus->count; i++) {
            if (bus->items[i].parent != id || bus->items[i].id == id) continue;
            if ((r = sd->open_container(m, 'v', "(ia{sv}av)")) < 0) return r;
            if ((r = append_layout(bus, m, bus->items[i].id, depth < 0 ? -1 : depth - 1, names, count)) < 0) return r;
            if ((r = sd->close_container(m)) < 0) return r;
        }
    }
    if ((r = sd->close_container(m)) < 0) return r;
    return sd->close_container(m);
}

// Reads an `as` argument into at most 32 names (the properties a caller asks for).
static size_t read_names(sl_bus *bus, sd_bus_message *m, const char **names) {
    size_t count = 0;
    if (bus->sd.enter_container(m, 'a', "s") < 0) return 0;
    const char *name;
    while (bus->sd.read_basic(m, 's', &name) > 0)
        if (count < 32) names[count++] = name;
    bus->sd.exit_container(m);
    return count;
}

static int menu_get_layout(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    sl_bus *bus = userdata;
    int32_t parent = 0, depth = -1;
    int r = bus->sd.read(m, "ii", &parent, &depth);
    if (r < 0) return r;
    const char *names[32];
    size_t count = read_names(bus, m, names);
    sd_bus_message *reply = NULL;
    if ((r = bus->sd.new_method_return(m, &reply)) < 0) return r;
    pthread_mutex_lock(&bus->lock);
    r = bus->sd.append_basic(reply, 'u', &bus->revision);
    if (r >= 0) r = append_layout(bus, reply, (parent == 0 || find(bus, parent)) ? parent : 0, depth, names, count);
    pthread_mutex_unlock(&bus->lock);
    if (r >= 0) r = bus->sd.send(NULL, reply, NULL);
    bus->sd.message_unref(reply);
    return r;
}

static int menu_get_group_properties(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    sl_bus *bus = userdata;
    int32_t ids[256];
    size_t id_count = 0;
    int r = bus->sd.enter_container(m, 'a', "i");
    if (r < 0) return r;
    int32_t id;
    while (bus->sd.read_basic(m, 'i', &id) > 0)
        if (id_count < 256) ids[id_count++] = id;
    bus->sd.exit_container(m);
    const char *names[32];
    size_t count = read_names(bus, m, names);
    sd_bus_message *reply = NULL;
    if ((r = bus->sd.new_method_return(m, &reply)) < 0) return r;
    pthread_mutex_lock(&bus->lock);
    r = bus->sd.open_container(reply, 'a', "(ia{sv})");
    for (size_t i = 0; r >= 0 && i < id_count; i++) {
        if (ids[i] != 0 && !find(bus, ids[i])) continue;
        if ((r = bus->sd.open_container(reply, 'r', "ia{sv}")) < 0) break;
        if ((r = bus->sd.append_basic(reply, 'i', &ids[i])) < 0) break;
        if ((r = append_properties(bus, reply, ids[i], names, count)) < 0) break;
        r = bus->sd.close_container(reply);
    }
    if (r >= 0) r = bus->sd.close_container(reply);
    pthread_mutex_unlock(&bus->lock);
    if (r >= 0) r = bus->sd.send(NULL, reply, NULL);
    bus->sd.message_unref(reply);
    return r;
}

static int menu_get_property(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    sl_bus *bus = userdata;
    int32_t id;
    const char *name;
    int r = bus->sd.read(m, "is", &id, &name);
    if (r < 0) return r;
    pthread_mutex_lock(&bus->lock);
    const struct sl_item *item = find(bus, id);
    if (item && !strcmp(name, "label")) r = bus->sd.reply_method_return(m, "v", "s", item->label);
    else if (item && !strcmp(name, "enabled")) r = bus->sd.reply_method_return(m, "v", "b", (int)item->enabled);
    else if (!strcmp(name, "visible")) r = bus->sd.reply_method_return(m, "v", "b", 1);
    else r = -ENOENT;
    pthread_mutex_unlock(&bus->lock);
    return r;
}

static void clicked(sl_bus *bus, int32_t id, const char *event) {
    pthread_mutex_lock(&bus->lock);
    const struct sl_item *item = find(bus, id);
    bool act = item && item->enabled && !item->separator && !has_children(bus, id) && !strcmp(event, "clicked");
    pthread_mutex_unlock(&bus->lock);
    if (act && bus->callbacks.clicked) bus->callbacks.clicked(bus->callbacks.context, id);
}

static int menu_event(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    sl_bus *bus = userdata;
    int32_t id;
    const char *event;
    int r = bus->sd.read(m, "is", &id, &event);
    if (r < 0) return r;
    clicked(bus, id, event);
    return bus->sd.reply_method_return(m, NULL);
}

static int menu_event_group(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    sl_bus *bus = userdata;
    int r = bus->sd.enter_container(m, 'a', "(isvu)");
    if (r < 0) return r;
    while (bus->sd.enter_container(m, 'r', "isvu") > 0) {
        int32_t id;
        const char *event;
        if ((r = bus->sd.read(m, "is", &id, &event)) < 0) return r;
        char copied[64];
        snprintf(copied, sizeof(copied), "%s", event);
        if ((r = bus->sd.skip(m, "vu")) < 0) return r;
        bus->sd.exit_container(m);
        clicked(bus, id, copied);
    }
    bus->sd.exit_container(m);
    return bus->sd.reply_method_return(m, "ai", 0);
}

static int menu_about_to_show(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    sl_bus *bus = userdata;
    return bus->sd.reply_method_return(m, "b", 0);
}

static int menu_about_to_show_group(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    sl_bus *bus = userdata;
    return bus->sd.reply_method_return(m, "aiai", 0, 0);
}

static int menu_property(
    sd_bus *b, const char *path, const char *interface, const char *property, sd_bus_message *reply, void *userdata,
    sd_bus_error *error) {
    (void)b, (void)path, (void)interface, (void)error;
    sl_bus *bus = userdata;
    if (!strcmp(property, "Version")) return bus->sd.append(reply, "u", (uint32_t)3);
    if (!strcmp(property, "TextDirection")) return bus->sd.append(reply, "s", "ltr");
    if (!strcmp(property, "Status")) return bus->sd.append(reply, "s", "normal");
    if (!strcmp(property, "IconThemePath")) return bus->sd.append(reply, "as", 0);
    return -ENOENT;
}

static sd_bus_vtable menu_vtable[] = {
    VTABLE_START_UNRESOLVED,
    SD_BUS_PROPERTY("Version", "u", menu_property, 0, 0),
    SD_BUS_PROPERTY("TextDirection", "s", menu_property, 0, 0),
    SD_BUS_PROPERTY("Status", "s", menu_property, 0, 0),
    SD_BUS_PROPERTY("IconThemePath", "as", menu_property, 0, 0),
    SD_BUS_METHOD("GetLayout", "iias", "u(ia{sv}av)", menu_get_layout, 0),
    SD_BUS_METHOD("GetGroupProperties", "aias", "a(ia{sv})", menu_get_group_properties, 0),
    SD_BUS_METHOD("GetProperty", "is", "v", menu_get_property, 0),
    SD_BUS_METHOD("Event", "isvu", "", menu_event, 0),
    SD_BUS_METHOD("EventGroup", "a(isvu)", "ai", menu_event_group, 0),
    SD_BUS_METHOD("AboutToShow", "i", "b", menu_about_to_show, 0),
    SD_BUS_METHOD("AboutToShowGroup", "ai", "aiai", menu_about_to_show_group, 0),
    SD_BUS_SIGNAL("ItemsPropertiesUpdated", "a(ia{sv})a(ias)", 0),
    SD_BUS_SIGNAL("LayoutUpdated", "ui", 0),
    SD_BUS_SIGNAL("ItemActivationRequested", "iu", 0),
    SD_BUS_VTABLE_END};

static int on_registered(sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)error;
    sl_bus *bus = userdata;
    const sd_bus_error *failure = bus->sd.get_error(reply);
    if (!bus->callbacks.registered) return 0;
    if (failure) {
        char message[512];
        snprintf(message, sizeof(message), "%s%s%s", failure->name ? failure->name : "error", failure->message ? ": " : "",
                 failure->message ? failure->message : "");
        bus->callbacks.registered(bus->callbacks.context, message);
    } else {
        bus->callbacks.registered(bus->callbacks.context, NULL);
    }
    return 0;
}

static int register_item(sl_bus *bus) {
    // Asynchronously: a watcher may read the item's properties before it answers.
    return bus->sd.call_method_async(
        bus->bus, NULL, WATCHER, "/StatusNotifierWatcher", WATCHER, "RegisterStatusNotifierItem", on_registered, bus, "s",
        bus->tray_name);
}

static int on_watcher_owner(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    sl_bus *bus = userdata;
    const char *name, *old_owner, *new_owner;
    if (bus->sd.read(m, "sss", &name, &old_owner, &new_owner) < 0) return 0;
    // A watcher (re)started: it knows no items, so register again.
    if (new_owner && *new_owner) register_item(bus);
    return 0;
}

int sl_tray_export(sl_bus *bus, char *error, size_t size) {
    item_vtable[0].x.start.vtable_format_reference = bus->sd.vtable_format;
    menu_vtable[0].x.start.vtable_format_reference = bus->sd.vtable_format;
    int r = bus->sd.add_object_vtable(bus->bus, NULL, ITEM_PATH, "org.kde.StatusNotifierItem", item_vtable, bus);
    if (r >= 0) r = bus->sd.add_object_vtable(bus->bus, NULL, MENU_PATH, "com.canonical.dbusmenu", menu_vtable, bus);
    if (r < 0) {
        snprintf(error, size, "cannot export the tray icon: %s", strerror(-r));
        return r;
    }
    snprintf(bus->tray_name, sizeof(bus->tray_name), "org.kde.StatusNotifierItem-%d-1", (int)getpid());
    if ((r = bus->sd.request_name(bus->bus, bus->tray_name, 0)) < 0) {
        snprintf(error, size, "cannot own %s on the session bus: %s", bus->tray_name, strerror(-r));
        return r;
    }
    r = bus->sd.add_match(
        bus->bus, NULL,
        "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',"
        "member='NameOwnerChanged',arg0='" WATCHER "'",
        on_watcher_owner, bus);
    if (r < 0) {
        snprintf(error, size, "cannot follow the StatusNotifierWatcher: %s", strerror(-r));
        return r;
    }
    bus->tray_exported = true;
    return register_item(bus);
}

int sl_bus_export_tray(sl_bus *bus, char *error, size_t size) { return sl_tray_export(bus, error, size); }
