#!/usr/bin/python3
"""A freedesktop notification server for tests: owns org.freedesktop.Notifications on the
session bus named by DBUS_SESSION_BUS_ADDRESS and appends every Notify call it receives to
OUTPUT as one JSON object per line. With --invoke KEY it presses a button, as a person would: the
first notification offering the action KEY gets ActionInvoked(id, KEY) a moment after it is shown.
Needs Debian's python3-dbus and python3-gi (run with the system Python, not the test venv)."""
import json
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

OUTPUT = sys.argv[1]
INVOKE = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--invoke" else None


class Recorder(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/org/freedesktop/Notifications")
        self.next_id = 0

    @dbus.service.method("org.freedesktop.Notifications", in_signature="susssasa{sv}i", out_signature="u")
    def Notify(self, app, replaces, icon, summary, body, actions, hints, timeout):
        self.next_id += 1
        shown = int(replaces) or self.next_id
        global INVOKE
        if INVOKE is not None and INVOKE in [str(a) for a in actions[0::2]]:
            key, INVOKE = INVOKE, None
            GLib.timeout_add(300, lambda: self.ActionInvoked(dbus.UInt32(shown), key) and False)
        record = {"app": str(app), "replaces": int(replaces), "icon": str(icon), "summary": str(summary), "body": str(body),
                  "actions": [str(a) for a in actions],
                  "hints": {str(k): (int(v) if isinstance(v, (dbus.Byte, dbus.Int32, dbus.UInt32)) else str(v)) for k, v in hints.items()},
                  "timeout": int(timeout), "id": shown}
        with open(OUTPUT, "a") as out:
            out.write(json.dumps(record) + "\n")
        return dbus.UInt32(shown)

    @dbus.service.signal("org.freedesktop.Notifications", signature="us")
    def ActionInvoked(self, id, key):
        pass

    @dbus.service.method("org.freedesktop.Notifications", out_signature="as")
    def GetCapabilities(self):
        return ["body", "actions"]

    @dbus.service.method("org.freedesktop.Notifications", out_signature="ssss")
    def GetServerInformation(self):
        return ("recorder", "simplylock-tests", "1", "1.2")


DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
name = dbus.service.BusName("org.freedesktop.Notifications", bus)
recorder = Recorder(bus)
with open(OUTPUT, "a"):
    pass
print("ready", flush=True)
GLib.MainLoop().run()
