import Foundation
import LockCore
import LockNames

/// `simplylockd --check-config`: reads every file the daemon would read (the configuration,
/// the service catalog, every profile and schedule) and reports every problem found.
public struct ConfigurationCheck: Sendable {
    /// What was found.
    public struct Report: Sendable, Equatable {
        /// Every problem, file by file.
        public var problems: [FileProblem]
        /// How many files of each kind were read (`configuration`, `profile`, `schedule`, …).
        public var files: [(kind: String, count: Int)]

        public static func == (a: Report, b: Report) -> Bool {
            a.problems == b.problems && a.files.map(\.kind) == b.files.map(\.kind) && a.files.map(\.count) == b.files.map(\.count)
        }
    }

    /// The files to check.
    public var paths: Paths
    /// The parser the daemon reads names with.
    public var names: DomainNameParser

    /// Checks the files under `paths`.
    public init(paths: Paths, names: DomainNameParser) {
        self.paths = paths
        self.names = names
    }

    /// Reads everything and collects the problems.
    public func run() -> Report {
        var problems: [FileProblem] = []
        var files: [(String, Int)] = []
        let configurationExists = FileManager.default.fileExists(atPath: paths.configFile)
        problems += DaemonConfiguration.load(paths.configFile).problems
        files.append(("configuration", configurationExists ? 1 : 0))

        // The loader reports the catalog and names used twice; each file's own problems come
        // from checking it field by field against the catalog that could be read.
        var store = ProfileStore(paths: paths, names: names)
        let loadProblems = store.reload()
        files.append(("service catalog", 1))
        var profileProblems: [FileProblem] = []
        var profileCount = 0
        for (directory, kind) in [(paths.dataDirectory + "/profiles", Profile.Kind.system), (paths.profilesDirectory, .custom)] {
            for file in Self.tomlFiles(in: directory) {
                profileCount += 1
                profileProblems += ProfileFile.problems(directory + "/" + file, kind: kind, catalog: store.catalog, names: names)
            }
        }
        problems += loadProblems.filter { !profileProblems.contains($0) } + profileProblems
        files.append(("profile", profileCount))

        let profileNames = Set(store.profiles.keys)
        let schedules = Self.tomlFiles(in: paths.schedulesDirectory)
        for file in schedules {
            problems += ScheduleFile.problems(paths.schedulesDirectory + "/" + file, profiles: profileNames)
        }
        files.append(("schedule", schedules.count))
        return Report(problems: problems, files: files)
    }

    static func tomlFiles(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".toml") && !$0.hasPrefix(".") }
            .sorted()
    }
}
