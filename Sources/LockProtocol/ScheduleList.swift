/// `GET /v1/schedules`.
public struct ScheduleList: Sendable, Equatable, Codable {
    /// Every schedule, by name.
    public var schedules: [ScheduleInfo]
    /// Files that could not be loaded (`file:line: field: reason`); the rest still work.
    public var problems: [String]

    /// Creates a list.
    public init(schedules: [ScheduleInfo], problems: [String]) {
        self.schedules = schedules
        self.problems = problems
    }
}
