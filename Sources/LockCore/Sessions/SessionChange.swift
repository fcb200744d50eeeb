import Foundation

/// One change to the set of active sessions, as it is persisted and published: the sessions
/// that start, the ones that end (and how), and the ones whose end, strictness or rules change.
public struct SessionChange: Sendable, Equatable {
    /// A session that ends, with how and when.
    public struct Ending: Sendable, Equatable {
        /// The session as it was in force.
        public var session: Session
        /// How it ended.
        public var reason: EndReason
        /// When, on the wall clock.
        public var at: Date

        /// Creates an ending.
        public init(session: Session, reason: EndReason, at: Date) {
            self.session = session
            self.reason = reason
            self.at = at
        }
    }

    /// A session that stays but changes.
    public struct Update: Sendable, Equatable {
        /// As it was.
        public var old: Session
        /// As it is from now on.
        public var new: Session

        /// Creates an update.
        public init(old: Session, new: Session) {
            self.old = old
            self.new = new
        }
    }

    /// Sessions that start.
    public var started: [Session] = []
    /// Sessions that end.
    public var ended: [Ending] = []
    /// Sessions that change.
    public var updated: [Update] = []

    /// An empty change.
    public init(started: [Session] = [], ended: [Ending] = [], updated: [Update] = []) {
        self.started = started
        self.ended = ended
        self.updated = updated
    }

    /// True when nothing changes.
    public var isEmpty: Bool { started.isEmpty && ended.isEmpty && updated.isEmpty }

    /// True when what must be blocked changes (not only checkpoints): a session starts or
    /// ends, or its rules or its target change. Strictness counts for a session that blocks
    /// apps: a strict block also refuses copies of their programs.
    public var changesRules: Bool {
        !started.isEmpty || !ended.isEmpty
            || updated.contains {
                $0.old.rules != $0.new.rules || $0.old.target != $0.new.target
                    || ($0.old.strict != $0.new.strict && !$0.new.rules.apps.isEmpty)
            }
    }

    /// `set` with this change made.
    public func applied(to set: SessionSet) -> SessionSet {
        var next = set
        for ending in ended { next.remove(id: ending.session.id) }
        for update in updated { next.update(update.new) }
        for session in started { next.insert(session) }
        return next
    }
}
