#!/usr/bin/python3
"""A stand-in for logind on a private bus, for the app usage meter's idle test: owns
org.freedesktop.login1 on the bus named by DBUS_SESSION_BUS_ADDRESS, lists one session, and
answers the manager's IdleHint property with what IDLE_FILE holds ("1" idle, anything else
not), read at each question, so the test switches idle on and off by writing the file. Creates
READY_FILE once the name is owned. Needs Debian's python3-dbus and python3-gi (system Python).

    logind_standin.py IDLE_FILE READY_FILE
"""
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

IDLE_FILE, READY_FILE = sys.argv[1], sys.argv[2]
MANAGER = "org.freedesktop.login1.Manager"


def idle():
    try:
        with open(IDLE_FILE) as f:
            return f.read().strip() == "1"
    except OSError:
        return False


class Manager(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/org/freedesktop/login1")

    @dbus.service.method(MANAGER, in_signature="", out_signature="a(susso)")
    def ListSessions(self):
        return [("1", dbus.UInt32(1000), "user", "seat0", dbus.ObjectPath("/org/freedesktop/login1/session/_31"))]

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        if interface == MANAGER and name == "IdleHint":
            return dbus.Boolean(idle(), variant_level=1)
        raise dbus.exceptions.DBusException("org.freedesktop.DBus.Error.UnknownProperty", name)

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return {"IdleHint": dbus.Boolean(idle())} if interface == MANAGER else {}


DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
name = dbus.service.BusName("org.freedesktop.login1", bus)
manager = Manager(bus)
open(READY_FILE, "w").close()
GLib.MainLoop().run()
