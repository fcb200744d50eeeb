import CLinux
import Foundation
import Glibc

/// The fake app the app-blocking tests block: a static C program (so that a copy runs from
/// any filesystem without a loader or libraries), and whether the kernel here lets a process
/// use fanotify permission events.
public enum FakeGame {
    /// Prints `game running`; with an argument it waits for a signal, with `stubborn` it also
    /// ignores SIGTERM. Nil when it cannot be built (no gcc or static C library).
    public static let binary: String? = {
        // Built once per machine and kept (bump the version when the program changes): every
        // test process needs it, and none of them could remove it when it ends.
        let directory = NSTemporaryDirectory() + "simplylock-fakegame-v1"
        let binary = directory + "/game"
        if access(binary, X_OK) == 0 { return binary }
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let source = directory + "/game-\(getpid()).c"
        let built = directory + "/game-\(getpid())"
        let program = """
            #include <signal.h>
            #include <stdio.h>
            #include <string.h>
            #include <unistd.h>
            int main(int argc, char **argv) {
                if (argc > 1 && strcmp(argv[1], "stubborn") == 0) signal(SIGTERM, SIG_IGN);
                if (argc > 1) for (;;) pause();
                puts("game running");
                return 0;
            }
            """
        defer { unlink(source) }
        guard access("/usr/bin/gcc", X_OK) == 0, (try? program.write(toFile: source, atomically: true, encoding: .utf8)) != nil,
            let result = try? ProcessRunner.run("/usr/bin/gcc", ["-static", "-O2", "-o", built, source]),
            result.status == 0
        else { return nil }
        // Atomic: test processes building at the same time never see half a binary.
        guard rename(built, binary) == 0 else { return nil }
        return binary
    }()

    /// Why fanotify permission events cannot be used by this process, or nil. A group is
    /// opened and closed at once, nothing marked: it never waits for anything.
    public static let fanotifyUnavailableReason: String? = {
        let fd = clinux_fanotify_init(UInt32(FAN_CLASS_CONTENT | FAN_CLOEXEC), UInt32(O_RDONLY | O_CLOEXEC))
        guard fd >= 0 else { return "fanotify_init: \(String(cString: strerror(errno)))" }
        close(fd)
        return nil
    }()
}
