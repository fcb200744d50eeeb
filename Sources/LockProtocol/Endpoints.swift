import Foundation

/// Every endpoint of the control API (version 1).
public enum Endpoints {
    /// What is blocked now and how enforcement is doing.
    public static let status = Endpoint<NoBody, StatusResponse>(.GET, "/v1/status")
    /// Every profile.
    public static let profiles = Endpoint<NoBody, ProfileList>(.GET, "/v1/profiles")
    /// Creates a custom profile.
    public static let createProfile = Endpoint<CreateProfileRequest, ProfileInfo>(.POST, "/v1/profiles", successStatus: 201)
    /// One profile with its expansion.
    public static let profile = Endpoint<NoBody, ProfileInfo>(.GET, "/v1/profiles/{name}")
    /// Changes a custom profile.
    public static let updateProfile = Endpoint<UpdateProfileRequest, ProfileInfo>(.PATCH, "/v1/profiles/{name}")
    /// Deletes a custom profile.
    public static let deleteProfile = Endpoint<NoBody, Deleted>(.DELETE, "/v1/profiles/{name}")
    /// Starts blocking a profile.
    public static let startSession = Endpoint<StartRequest, SessionInfo>(.POST, "/v1/sessions", successStatus: 201)
    /// Stops the sessions a reference names (a session id, or a profile's sessions).
    public static let stopSession = Endpoint<NoBody, [SessionInfo]>(.DELETE, "/v1/sessions/{ref}")
    /// Lengthens a session.
    public static let extendSession = Endpoint<ExtendRequest, SessionInfo>(.POST, "/v1/sessions/{ref}/extend")
    /// Whether a name (`?name=`), a URL (`?url=`, whose path only the browser companion sees)
    /// or an app (`?app=`) is blocked now, and by what; exactly one of them is given.
    public static let check = Endpoint<NoBody, CheckResponse>(
        .GET, "/v1/check",
        query: [
            QueryParameter("name", .text(maxBytes: 2048)), QueryParameter("app", .text(maxBytes: 4096)),
            QueryParameter("for", .text(maxBytes: 64)), QueryParameter("url", .text(maxBytes: 4096)),
        ])
    /// Installed applications, optionally of one freedesktop category.
    public static let apps = Endpoint<NoBody, AppList>(.GET, "/v1/apps", query: [QueryParameter("category", .text(maxBytes: 256))])
    /// The most recent sessions.
    public static let history = Endpoint<NoBody, HistoryResponse>(
        .GET, "/v1/history", query: [QueryParameter("limit", .integer(1...10_000))])
    /// Reads configuration, profiles and schedules again.
    public static let reload = Endpoint<NoBody, ReloadResponse>(.POST, "/v1/reload")
    /// The daemon's own checks, for `lockctl doctor`.
    public static let doctor = Endpoint<NoBody, DoctorReport>(.GET, "/v1/doctor")
    /// Events as they happen, one JSON object per line.
    public static let events = Endpoint<NoBody, EventStream>(.GET, "/v1/events")
    /// The Pomodoro timer.
    public static let pomodoro = Endpoint<NoBody, PomodoroInfo>(.GET, "/v1/pomodoro")
    /// Starts a Pomodoro run.
    public static let startPomodoro = Endpoint<PomodoroStartRequest, PomodoroInfo>(.POST, "/v1/pomodoro", successStatus: 201)
    /// Pauses, resumes, skips, stops or moves on the run (`{action}` is a `PomodoroAction`).
    public static let pomodoroAction = Endpoint<NoBody, PomodoroInfo>(.POST, "/v1/pomodoro/{action}")
    /// Completed focus phases with totals.
    public static let pomodoroHistory = Endpoint<NoBody, PomodoroHistoryResponse>(
        .GET, "/v1/pomodoro/history", query: [QueryParameter("limit", .integer(1...10_000))])
    /// Every schedule.
    public static let schedules = Endpoint<NoBody, ScheduleList>(.GET, "/v1/schedules")
    /// Creates a schedule.
    public static let createSchedule = Endpoint<CreateScheduleRequest, ScheduleInfo>(.POST, "/v1/schedules", successStatus: 201)
    /// One schedule.
    public static let schedule = Endpoint<NoBody, ScheduleInfo>(.GET, "/v1/schedules/{name}")
    /// Enables or disables a schedule.
    public static let updateSchedule = Endpoint<UpdateScheduleRequest, ScheduleInfo>(.PATCH, "/v1/schedules/{name}")
    /// Removes a schedule.
    public static let deleteSchedule = Endpoint<NoBody, Deleted>(.DELETE, "/v1/schedules/{name}")
    /// A schedule's next intervals.
    public static let scheduleNext = Endpoint<NoBody, [ScheduleInterval]>(
        .GET, "/v1/schedules/{name}/next",
        query: [QueryParameter("count", .integer(1...10_000)), QueryParameter("after", .timestamp)])
    /// Every imported blocklist.
    public static let lists = Endpoint<NoBody, ListList>(.GET, "/v1/lists")
    /// One imported blocklist, with what its import skipped.
    public static let list = Endpoint<NoBody, ListInfo>(.GET, "/v1/lists/{name}")
    /// Imports a blocklist (hosts, plain domains, AdBlock `||name^`), replacing the list of that
    /// name; the body is the list's text, streamed.
    public static let importList = Endpoint<TextStream, ListImport>(
        .PUT, "/v1/lists/{name}", query: [QueryParameter("source", .text(maxBytes: 4096))])
    /// Removes an imported blocklist.
    public static let deleteList = Endpoint<NoBody, Deleted>(.DELETE, "/v1/lists/{name}")

    // Added for `lockctl services` (issue 14).
    /// The service catalog: services with their domains, and categories.
    public static let services = Endpoint<NoBody, ServiceList>(.GET, "/v1/services")
    /// Focus time, goals, streaks and blocked attempts over a window (default: this week).
    public static let insights = Endpoint<NoBody, InsightsResponse>(
        .GET, "/v1/insights",
        query: [QueryParameter("from", .timestamp), QueryParameter("to", .timestamp), QueryParameter("tz", .text(maxBytes: 64))])
    /// Time in use per app, category, site or device group over a window (default: today).
    public static let usage = Endpoint<NoBody, UsageResponse>(
        .GET, "/v1/usage",
        query: [
            QueryParameter("from", .timestamp), QueryParameter("to", .timestamp), QueryParameter("by", .text(maxBytes: 16)),
            QueryParameter("tz", .text(maxBytes: 64)), QueryParameter("explain", .text(maxBytes: 8)),
        ])
    /// Time allowances with what is used and left today.
    public static let allowances = Endpoint<NoBody, TimeAllowanceList>(.GET, "/v1/allowances")
    /// Adds a time allowance.
    public static let createAllowance = Endpoint<CreateAllowanceRequest, TimeAllowanceInfo>(
        .POST, "/v1/allowances", successStatus: 201)
    /// Removes a time allowance (and ends its block; refused while a strict one blocks).
    public static let deleteAllowance = Endpoint<NoBody, Deleted>(.DELETE, "/v1/allowances/{name}")
    /// The focus goals.
    public static let goals = Endpoint<NoBody, GoalsInfo>(.GET, "/v1/goals")
    /// Sets or removes focus goals.
    public static let updateGoals = Endpoint<UpdateGoalsRequest, GoalsInfo>(.PATCH, "/v1/goals")
    /// Emergency access: asks for a challenge, or answers it and ends a strict block early.
    public static let unlockSession = Endpoint<UnlockRequest, UnlockResponse>(.POST, "/v1/sessions/{ref}/unlock")

    /// The browser bridge says it is connected (anyone may: it is kept per user).
    public static let browserHello = Endpoint<BrowserHello, BrowserCompanions>(.POST, "/v1/browser/hello", anyone: true)
    /// The browser companions heard from, per user and browser.
    public static let browserCompanions = Endpoint<NoBody, BrowserCompanions>(.GET, "/v1/browser/companions")
    /// The browser companion's site meter reports time on the active tab's site (anyone may:
    /// reports only add time, clipped per user to the time that passed).
    public static let reportUsage = Endpoint<UsageSamplesRequest, UsageSamplesResponse>(.POST, "/v1/usage/samples", anyone: true)
    /// The browser companion showed its shield: a blocked attempt (anyone may: counted only for
    /// URLs blocked now, once per site and user within 10 s, at most 30 a minute per user).
    public static let browserAttempt = Endpoint<BrowserAttemptReport, BrowserAttemptResponse>(
        .POST, "/v1/browser/attempts", anyone: true)

    /// Every endpoint, for the route-table and documentation checks.
    public static let all: [EndpointDescriptor] = [
        status.descriptor, profiles.descriptor, createProfile.descriptor, profile.descriptor, updateProfile.descriptor,
        deleteProfile.descriptor, startSession.descriptor, stopSession.descriptor, extendSession.descriptor, check.descriptor,
        history.descriptor, reload.descriptor, doctor.descriptor, events.descriptor, pomodoro.descriptor,
        startPomodoro.descriptor, pomodoroHistory.descriptor, pomodoroAction.descriptor, schedules.descriptor,
        createSchedule.descriptor, schedule.descriptor, updateSchedule.descriptor, deleteSchedule.descriptor,
        scheduleNext.descriptor, apps.descriptor, lists.descriptor, list.descriptor, importList.descriptor, deleteList.descriptor,
        services.descriptor,
        insights.descriptor, usage.descriptor, allowances.descriptor, createAllowance.descriptor, deleteAllowance.descriptor,
        goals.descriptor, updateGoals.descriptor, unlockSession.descriptor,
        browserHello.descriptor, browserCompanions.descriptor, reportUsage.descriptor, browserAttempt.descriptor,
    ]
}
