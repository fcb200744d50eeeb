#!/usr/bin/python3
"""A stand-in for systemd-resolved on a private D-Bus: owns org.freedesktop.resolve1 and records
every call of org.freedesktop.resolve1.Manager.FlushCaches (one line per call in RECORD).

    resolve1-standin.py BUS_ADDRESS RECORD READY_FILE [ok|deny]

With "deny" every call fails with org.freedesktop.DBus.Error.AccessDenied, as resolved answers
a caller polkit refuses. Needs Debian's python3-dbus and python3-gi (system Python).
"""
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

address, record, ready = sys.argv[1:4]
mode = sys.argv[4] if len(sys.argv) > 4 else "ok"
DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(address)
name = dbus.service.BusName("org.freedesktop.resolve1", bus)


class Manager(dbus.service.Object):
    @dbus.service.method("org.freedesktop.resolve1.Manager", in_signature="", out_signature="")
    def FlushCaches(self):
        if mode == "deny":
            raise dbus.exceptions.DBusException("not allowed", name="org.freedesktop.DBus.Error.AccessDenied")
        with open(record, "a") as f:
            f.write("FlushCaches\n")


Manager(bus, "/org/freedesktop/resolve1")
open(ready, "w").close()
GLib.MainLoop().run()
