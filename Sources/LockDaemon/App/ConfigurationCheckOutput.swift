import Foundation
import LockCore
import LockNames
import LockStore

/// Prints what `simplylockd --check-config` found: every problem as `file:line: field: reason`,
/// then one summary line.
enum ConfigurationCheckOutput {
    /// Checks the files under `paths`; returns the exit status (0: no problem, 1: problems).
    static func run(paths: Paths) -> Int32 {
        let names = DomainNameParser.system()
        let report = ConfigurationCheck(paths: paths, names: names.parser).run()
        for problem in report.problems { print(problem.description) }
        let read = report.files.map { CountText.of($0.count, $0.kind) }.joined(separator: ", ")
        if report.problems.isEmpty {
            print("no problems: \(read) read")
            return 0
        }
        let files = Set(report.problems.map(\.file)).count
        print("\(CountText.of(report.problems.count, "problem")) in \(CountText.of(files, "file")) (\(read) read)")
        return 1
    }
}
