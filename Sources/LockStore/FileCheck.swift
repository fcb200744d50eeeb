import LockCore
import LockNames

/// Every problem of one file, not only the first: each field is read on its own and each
/// element of a list is checked, then the file's loader runs for the checks that concern the
/// whole file. Used by `simplylockd --check-config`; the daemon itself loads with the loaders.
struct FileCheck {
    let document: TOMLDocument
    private(set) var problems: [FileProblem] = []

    init(_ document: TOMLDocument) { self.document = document }

    /// Runs one check, keeping its problem.
    mutating func check(_ body: () throws(FileProblem) -> Void) {
        do { try body() } catch { add(error) }
    }

    /// Keeps a problem unless the same one is kept already.
    mutating func add(_ problem: FileProblem) {
        if !problems.contains(problem) { problems.append(problem) }
    }

    /// Every key that is not one of `allowed`.
    mutating func unknownKeys(_ allowed: Set<String>) {
        for key in (document.table(nil)?.keys ?? []).sorted() where !allowed.contains(key) {
            add(document.problem(key, "unknown field (expected one of: \(allowed.sorted().joined(separator: ", ")))"))
        }
    }

    /// Every element of a list of strings that `parse` refuses.
    mutating func each(_ key: String, _ parse: (String) -> String?) {
        let values: [String]
        do { values = try document.strings(key) } catch { return add(error) }
        for value in values {
            if let reason = parse(value) { add(document.problem(key, value: value, reason)) }
        }
    }
}

extension ProfileFile {
    /// Every problem of the profile file at `path`.
    public static func problems(_ path: String, kind: Profile.Kind, catalog: ServiceCatalog, names: DomainNameParser) -> [FileProblem] {
        let document: TOMLDocument
        do { document = try TOMLDocument(contentsOf: path, trust: kind == .custom ? .daemonOnly : .anyone) } catch { return [error] }
        var check = FileCheck(document)
        check.unknownKeys(fields)
        for key in ["name", "display_name", "description", "icon", "color", "mode"] {
            check.check { () throws(FileProblem) in _ = try document.string(key) }
        }
        for key in ["display_name", "description", "icon"] {
            check.check { () throws(FileProblem) in
                let text = try document.string(key)
                do throws(FieldError) { try DisplayText.validate(text, field: key) } catch { throw document.problem(error) }
            }
        }
        check.check { () throws(FileProblem) in _ = try document.bool("strict") }
        check.each("domains") { text in
            do { _ = try names.parseEntry(text) } catch { return "\(error)" }
            return nil
        }
        check.each("allow") { text in
            do { _ = try names.parseEntry(text) } catch { return "\(error)" }
            return nil
        }
        check.each("addresses") { text in
            do { _ = try IPNetwork(parsing: text) } catch { return "\(error)" }
            return nil
        }
        check.each("services") {
            catalog.services[$0] == nil
                ? "unknown service \"\($0)\" (known: \(catalog.services.keys.sorted().joined(separator: ", ")))" : nil
        }
        check.each("categories") {
            catalog.categories[$0] == nil
                ? "unknown category \"\($0)\" (known: \(catalog.categories.keys.sorted().joined(separator: ", ")))" : nil
        }
        check.check { () throws(FileProblem) in _ = try load(path, kind: kind, catalog: catalog, names: names) }
        return check.problems
    }
}

extension ScheduleFile {
    /// Every problem of the schedule file at `path`.
    public static func problems(_ path: String, profiles: Set<String>?) -> [FileProblem] {
        let document: TOMLDocument
        do { document = try TOMLDocument(contentsOf: path, trust: .daemonOnly) } catch { return [error] }
        var check = FileCheck(document)
        check.unknownKeys(fields)
        for key in ["name", "profile", "days", "from", "to", "on", "cron", "tz"] {
            check.check { () throws(FileProblem) in _ = try document.string(key) }
        }
        for key in ["strict", "enabled"] { check.check { () throws(FileProblem) in _ = try document.bool(key) } }
        check.check { () throws(FileProblem) in _ = try document.duration("for") }
        check.check { () throws(FileProblem) in
            if let text = try document.string("warn") {
                do throws(FieldError) { _ = try Schedule.parseWarning(text) } catch { throw document.problem(error) }
            }
        }
        // The rule on its own, so its problem shows even when the loader stops earlier.
        check.check { () throws(FileProblem) in
            let days = try document.string("days"), from = try document.string("from"), to = try document.string("to")
            let on = try document.string("on"), cron = try document.string("cron"), tz = try document.string("tz")
            let duration = try document.duration("for")
            do throws(FieldError) {
                _ = try Schedule(
                    name: "check", profile: "check", days: days, from: from, to: to, on: on, cron: cron,
                    duration: duration, timeZoneName: tz)
            } catch { throw document.problem(error) }
        }
        check.check { () throws(FileProblem) in _ = try load(path, profiles: profiles) }
        return check.problems
    }
}
