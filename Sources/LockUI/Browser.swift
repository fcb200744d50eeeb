import Foundation
import Glibc

/// Opens the UI in the user's browser with `xdg-open`, the way Jupyter does: through a file
/// only the user can read that sends the browser on to the address with the token, so that the
/// token never appears on a command line (other users can read every process's arguments).
enum Browser {
    /// Returns the redirect file (removed at exit by the caller), or nil when nothing could
    /// be opened (the caller prints the address instead).
    static func open(_ url: String) -> String? {
        // The user's own PATH first, as a shell finds it (a desktop may ship its own opener).
        let searched = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").filter { $0.hasPrefix("/") }
        let candidates: [String] = searched.map { "\($0)/xdg-open" } + ["/usr/bin/xdg-open", "/bin/xdg-open"]
        guard let opener = candidates.first(where: { path in Glibc.access(path, X_OK) == 0 }) else { return nil }
        let directory = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? NSTemporaryDirectory()
        // One file per page opened: a server reused by later `lockctl ui` opens several.
        let path = "\(directory)/simplylock-ui-\(getpid())-\(Gate.randomHex(bytes: 6)).html"
        let page = """
            <!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=\(url)">
            <title>SimplyLock</title><p><a href="\(url)">Open SimplyLock</a></p>

            """
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return nil }
        let bytes = Array(page.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count else {
            unlink(path)
            return nil
        }
        var pid: pid_t = 0
        let arguments = [opener, "file://" + path]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        // The opener and the browser it starts must not inherit the server's sockets: NIO opens
        // them without close-on-exec, and a browser holding the listening socket keeps the port.
        // (Close-on-exec on every descriptor changes nothing for this process, which never execs.)
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            if let fd = Int32(entry), fd > 2 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }
        guard posix_spawn(&pid, opener, nil, nil, &argv, environ) == 0 else {
            unlink(path)
            return nil
        }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        guard status == 0 else {
            unlink(path)
            return nil
        }
        return path
    }
}
