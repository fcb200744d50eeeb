/// Names of programs that run other programs, for two decisions that must never go wrong:
/// an app is never identified with `python3`, `sh` or `flatpak` (blocking those would break
/// the machine), and a script a blocked app consists of is denied only to interpreters.
public enum ProgramNames {
    /// Interpreters, by base name with any version suffix removed (`python3.11` → `python`).
    /// `wine` and `love` run game files just as `python3` runs scripts.
    public static let interpreters: Set<String> = [
        "sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "busybox",
        "python", "pypy", "perl", "ruby", "node", "nodejs", "lua", "luajit", "tclsh", "wish", "php",
        "rscript", "java", "mono", "wine", "wine64", "wine-preloader", "wine64-preloader", "love", "gjs",
    ]

    /// Programs that start another program given on their command line: they are looked past,
    /// never blocked themselves.
    public static let launchers: Set<String> = [
        "env", "flatpak", "snap", "nice", "ionice", "nohup", "setsid", "taskset", "chrt", "stdbuf", "timeout",
        "xdg-open", "gtk-launch", "gio", "kioclient", "kioclient5", "exo-open", "systemd-run", "systemd-inhibit",
        "dbus-launch", "dbus-run-session", "pkexec", "sudo", "doas", "firejail", "bwrap", "torsocks", "proxychains",
        "proxychains4", "gamemoderun", "mangohud", "prime-run", "optirun", "primusrun", "pasuspender", "padsp",
        "aoss", "catchsegv",
    ]

    /// Terminal emulators: launchers when a command follows (`xterm -e game`), applications
    /// in their own right otherwise.
    public static let terminals: Set<String> = [
        "xterm", "x-terminal-emulator", "gnome-terminal", "konsole", "kgx", "xfce4-terminal", "lxterminal",
        "mate-terminal", "tilix", "alacritty", "kitty", "foot", "urxvt", "terminator", "wezterm",
    ]

    /// The last path component.
    public static func baseName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// `python3.11` → `python`, `lua5.4` → `lua`, `Rscript` → `rscript`: lowercased, trailing
    /// digits and dots removed.
    public static func normalized(_ name: String) -> String {
        var base = Substring(baseName(name).lowercased())
        while let last = base.last, last.isNumber || last == "." { base = base.dropLast() }
        return String(base)
    }

    /// True for an interpreter (by base name) or the dynamic loader (`ld-linux-x86-64.so.2
    /// ./game` runs a binary without exec).
    public static func isInterpreter(_ path: String) -> Bool {
        isDynamicLoader(path) || interpreters.contains(normalized(path))
    }

    /// True for `ld-linux*.so*`, `ld-musl-*.so*` and `ld.so`.
    public static func isDynamicLoader(_ path: String) -> Bool {
        let base = baseName(path)
        return base == "ld.so" || (base.hasPrefix("ld-") && base.contains(".so"))
    }

    /// True for a program that launches another (by base name).
    public static func isLauncher(_ path: String) -> Bool {
        let name = normalized(path)
        return launchers.contains(name) || terminals.contains(name)
    }

    /// False for programs an application must never be identified with: interpreters, the
    /// dynamic loader and the launchers above other than terminals. Blocking one of these
    /// would stop far more than the app.
    public static func mayBeBlocked(_ path: String) -> Bool {
        !isInterpreter(path) && !launchers.contains(normalized(path))
    }
}
