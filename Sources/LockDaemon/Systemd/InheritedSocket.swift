/// A listening socket handed over by the service manager (socket activation).
public struct InheritedSocket: Sendable, Hashable {
    /// The file descriptor, 3 or higher (`SD_LISTEN_FDS_START`). It has `FD_CLOEXEC` set.
    public let fileDescriptor: CInt

    /// The socket unit's `FileDescriptorName=`, or the socket unit's name when none is set
    /// (`"unknown"` when the manager passed no names, e.g. an old `systemd-socket-activate`).
    public let name: String

    /// Creates a value describing an inherited descriptor.
    public init(fileDescriptor: CInt, name: String) {
        self.fileDescriptor = fileDescriptor
        self.name = name
    }
}
