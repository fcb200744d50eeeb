#!/usr/bin/python3
"""A StatusNotifierWatcher for tests: owns org.kde.StatusNotifierWatcher on the session bus named
by DBUS_SESSION_BUS_ADDRESS, as a panel does. When an item registers, and whenever it announces a
change (NewTitle, NewIcon, NewToolTip, NewStatus, the menu's LayoutUpdated), it reads the item's
properties and its whole dbusmenu layout and appends them to OUTPUT as one JSON object per line.
Click(path) sends com.canonical.dbusmenu.Event "clicked" to the menu item whose labels, from the
top, are PATH joined by " / ". Needs Debian's python3-dbus and python3-gi (the system Python)."""
import json
import re
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

OUTPUT = sys.argv[1]
WATCHER = "org.kde.StatusNotifierWatcher"
ITEM = "org.kde.StatusNotifierItem"
MENU = "com.canonical.dbusmenu"


def plain(value):
    if isinstance(value, (dbus.Boolean,)):
        return bool(value)
    if isinstance(value, (dbus.Byte, dbus.Int32, dbus.UInt32, dbus.Int64, dbus.UInt64, dbus.Int16, dbus.UInt16)):
        return int(value)
    if isinstance(value, (dbus.Array, list)):
        return [plain(v) for v in value]
    if isinstance(value, (dbus.Struct, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (dbus.Dictionary, dict)):
        return {str(k): plain(v) for k, v in value.items()}
    return str(value)


def node(layout):
    item_id, properties, children = layout
    found = {"id": int(item_id), **{str(k): plain(v) for k, v in properties.items()},
             "children": [node(child) for child in children]}
    if "label" in found:
        # As a panel shows it: "_" marks an access key, "__" is an underscore.
        found["label"] = re.sub(r"_(_?)", r"\1", found["label"])
    return found


class Watcher(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/StatusNotifierWatcher")
        self.bus = bus
        self.items = []
        self.layout = None

    def item(self):
        return self.items[-1] if self.items else None

    def snapshot(self, why):
        service = self.item()
        if service is None:
            return
        try:
            proxy = self.bus.get_object(service, "/StatusNotifierItem")
            props = proxy.GetAll(ITEM, dbus_interface="org.freedesktop.DBus.Properties")
            menu_path = str(props["Menu"])
            menu = self.bus.get_object(service, menu_path)
            revision, layout = menu.GetLayout(0, -1, dbus.Array([], signature="s"), dbus_interface=MENU)
            self.layout = (service, menu_path, node(layout))
            record = {"why": why, "service": service, "revision": int(revision), "menu": self.layout[2],
                      **{str(k): plain(v) for k, v in props.items()}}
        except dbus.DBusException as error:
            record = {"why": why, "service": service, "error": str(error)}
        with open(OUTPUT, "a") as out:
            out.write(json.dumps(record) + "\n")

    @dbus.service.method(WATCHER, in_signature="s", out_signature="", sender_keyword="sender")
    def RegisterStatusNotifierItem(self, service, sender=None):
        # An item may pass its bus name or an object path; either way it lives on the sender.
        name = str(service) if not str(service).startswith("/") else str(sender)
        self.items.append(name)
        for signal in ("NewTitle", "NewIcon", "NewToolTip", "NewStatus"):
            self.bus.add_signal_receiver(lambda *args, s=signal: self.snapshot(s), signal_name=signal,
                                         dbus_interface=ITEM, bus_name=name)
        self.bus.add_signal_receiver(lambda *args: self.snapshot("LayoutUpdated"), signal_name="LayoutUpdated",
                                     dbus_interface=MENU, bus_name=name)
        GLib.idle_add(lambda: self.snapshot("registered") and False)
        self.StatusNotifierItemRegistered(name)

    @dbus.service.signal(WATCHER, signature="s")
    def StatusNotifierItemRegistered(self, service):
        pass

    @dbus.service.method("org.simplylock.Test", in_signature="s", out_signature="i")
    def Click(self, path):
        service, menu_path, root = self.layout
        current = root
        for label in path.split(" / "):
            matches = [c for c in current["children"] if c.get("label") == label]
            if not matches:
                raise dbus.DBusException("no menu item %r under %r" % (label, current.get("label", "(root)")))
            current = matches[0]
        menu = self.bus.get_object(service, menu_path)
        menu.Event(current["id"], "clicked", dbus.String("", variant_level=1), dbus.UInt32(0), dbus_interface=MENU)
        return current["id"]

    @dbus.service.method("org.simplylock.Test", in_signature="", out_signature="")
    def Activate(self):
        service = self.item()
        self.bus.get_object(service, "/StatusNotifierItem").Activate(0, 0, dbus_interface=ITEM)


DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
watcher = Watcher(bus)
name = dbus.service.BusName(WATCHER, bus)
with open(OUTPUT, "a"):
    pass
print("ready", flush=True)
GLib.MainLoop().run()
