// swift-tools-version: 6.1
import PackageDescription

// Layering (dependencies only point downwards):
//   LockCore (pure domain values and rules, clock injected)
//     → LockPlatform (Linux plumbing: files, clocks, timers, inotify) → LockEnforcement / LockStore
//     → LockDaemon (domain services, API edge, systemd glue) → simplylockd
//   LockCore + CICU (through CICUBridge) → LockNames (names as typed: UTS 46, URLs, public suffixes) → LockStore, LockDaemon
//   LockProtocol (wire types, the endpoint table; depends on nothing) → LockClient → LockCommands → lockctl
//   LockCore + SwiftNIO → LockServing (accept loop, connection limits, peer credentials) → LockDaemon, LockUI
// LockDaemon's API edge is the only place wire types meet domain types (API/WireTypes+Domain.swift). lockctl never links
// the daemon, the enforcers, SQLite or ICU: it sends names as typed and the daemon parses them.
let package = Package(
    name: "simplylock",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "simplylockd", targets: ["simplylockd"]),
        .executable(name: "lockctl", targets: ["lockctl"]),
        .executable(name: "simplylock-ui", targets: ["simplylock-ui"]),
        .executable(name: "simplylock-bridge", targets: ["simplylock-bridge"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        .target(name: "LockCore"),
        .target(name: "LockProtocol"),
        .target(name: "CLinux"),
        .target(name: "LockPlatform", dependencies: ["LockCore", "CLinux"]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CNFTables", pkgConfig: "libnftables", providers: [.apt(["libnftables-dev"])]),
        // The connection check's queue tables (an xt NFQUEUE target that libnftables cannot write).
        .systemLibrary(name: "CNFTNL", pkgConfig: "libnftnl", providers: [.apt(["libnftnl-dev"])]),
        .systemLibrary(name: "CICU", pkgConfig: "icu-uc", providers: [.apt(["libicu-dev"])]),
        .target(name: "CICUBridge", dependencies: ["CICU"]),
        .systemLibrary(name: "CLibBPF", pkgConfig: "libbpf", providers: [.apt(["libbpf-dev"])]),
        // Loads, attaches and pins the BPF LSM exec guard (bpf/exec-guard.bpf.c, built by the Makefile).
        .target(name: "CExecGuardBPF", dependencies: ["CLibBPF"]),
        .target(name: "LockNames", dependencies: ["LockCore", "CICUBridge"]),
        .target(
            name: "LockEnforcement",
            dependencies: [
                "LockCore", "LockPlatform", "CNFTables", "CNFTNL", "CLinux", "CExecGuardBPF",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        .target(
            name: "LockStore",
            dependencies: [
                "LockCore", "LockPlatform", "LockNames",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]),
        .target(
            name: "LockDaemon",
            dependencies: [
                "LockCore", "LockProtocol", "LockPlatform", "LockEnforcement", "LockStore", "LockNames", "CSystemd", "LockServing",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // What the daemon's control server and the UI's server share: the accept loop, connection
        // limits, the request deadline and peer credentials (SwiftNIO, nothing of the daemon's).
        .target(
            name: "LockServing",
            dependencies: [
                "LockCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        .target(name: "LockClient", dependencies: ["LockCore", "LockProtocol"]),
        // lockctl notify's session bus (notifications with actions, the tray icon): sd-bus's
        // headers only, its functions found with dlsym, so that lockctl does not link libsystemd.
        .target(name: "CSessionBus"),
        .target(
            name: "LockCommands",
            dependencies: [
                "LockCore", "LockProtocol", "LockPlatform", "LockClient", "CSessionBus",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // The browser companion's packed extension (CRX3) is signed at install with a key made there.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
        // The web UI's server (`lockctl ui` runs it): loopback HTTP, static files, the API relayed to
        // the daemon's socket. Its own program, so that lockctl stays free of an event loop; it
        // links neither the daemon, the enforcers nor SQLite.
        .target(
            name: "LockUI",
            dependencies: [
                "LockCore", "LockProtocol", "LockClient", "LockServing",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(name: "simplylock-ui", dependencies: ["LockUI"]),
        // Not position-independent: the loader then has no relative relocations to apply, and
        // the pages they dirtied (about 3 MiB of a long-running daemon) stay clean and shared.
        // No exported symbols: nothing looks the daemon's up, and the loader touched 2 MiB of
        // their tables on each search of another library's symbol (a crash report then names
        // no functions of a stripped binary; it named only exported ones before).
        .executableTarget(
            name: "simplylockd", dependencies: ["LockDaemon"],
            linkerSettings: [
                .unsafeFlags(
                    ["-Xclang-linker", "-no-pie", "-Xlinker", "--no-export-dynamic"] + linkOrder("simplylockd"),
                    .when(configuration: .release))
            ]),
        // A static executable: a command that status bars run every second or two then starts
        // without the dynamic loader (40 % of the instructions of a `status --json` before).
        // Release only: a debug build links the Swift runtime dynamically.
        .executableTarget(
            name: "lockctl", dependencies: ["LockCommands"],
            linkerSettings: [.unsafeFlags(["-static-executable"] + linkOrder("lockctl"), .when(configuration: .release))]),
        // The browser companion's native messaging host: relays the extension's few requests
        // to the daemon's socket as the user. Links only the client side, as lockctl does.
        .executableTarget(name: "simplylock-bridge", dependencies: ["LockProtocol", "LockClient"]),
        // Drives the DNS filter's parts for scripts/bench-dns.sh; not installed.
        .executableTarget(
            name: "dns-bench",
            dependencies: [
                "LockCore", "LockNames", "LockEnforcement", "CLinux", .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(name: "LockCoreTests", dependencies: ["LockCore", "TestSupport"]),
        .testTarget(name: "LockNamesTests", dependencies: ["LockCore", "LockNames", "TestSupport"]),
        .testTarget(name: "LockPlatformTests", dependencies: ["LockCore", "LockPlatform", "TestSupport"]),
        .testTarget(
            name: "LockStoreTests",
            dependencies: [
                "LockCore", "LockProtocol", "LockStore", "LockNames", "CLinux", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "LockDaemonTests",
            dependencies: [
                "LockCore", "LockProtocol", "LockPlatform", "LockEnforcement", "LockStore", "LockNames", "LockDaemon", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .testTarget(
            name: "LockEnforcementTests",
            dependencies: [
                "LockCore", "LockProtocol", "LockPlatform", "LockEnforcement", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        // Completes the manual pages made by generate-manual (scripts run by the Makefile); not installed.
        .executableTarget(name: "finish-manual"),
        // Hosts the app enforcer in a process of its own for the exec guard tests and
        // benchmark: the test runner must never be the process whose execs wait for it.
        .executableTarget(
            name: "exec-guard-probe",
            dependencies: [
                "LockCore", "LockPlatform", "LockEnforcement", .product(name: "Logging", package: "swift-log"),
            ], path: "Tests/ExecGuardProbe"),
        .target(name: "TestSupport", dependencies: ["CLinux", "LockCore"], path: "Tests/TestSupport"),
        .testTarget(name: "LockCommandsTests", dependencies: ["LockCommands", "LockCore", "LockProtocol", "LockClient"]),
        .testTarget(name: "IntegrationTests", dependencies: ["LockCore", "LockProtocol", "LockClient", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

/// The release link places the functions a typical session runs side by side, in the order of
/// `link-order/NAME.order` (written by `scripts/link-order.sh`). The kernel maps code 64 KiB
/// around each page a program faults in, so a few functions used at start-up and per request,
/// scattered over 25 MB of text, kept most of it resident: lockctl's peak RSS fell from 9.4 to
/// 7.7 MiB, the idle daemon's from 38.5 to 30.3 MiB. It needs every function in a section of its
/// own (the Makefile's SECTION_FLAGS); functions the list names that no longer exist are ignored.
func linkOrder(_ product: String) -> [String] {
    ["-Xlinker", "--section-ordering-file=\(Context.packageDirectory)/link-order/\(product).order"]
}
