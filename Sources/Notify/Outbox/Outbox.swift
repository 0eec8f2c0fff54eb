import Portable

/// Events not yet delivered to every backend, and the one loop that delivers them: durable delivery
/// (the alert rules) in one unit.
///
/// The owner persists the outbox before `deliver` is called (a crash from then on loses no event), and
/// `deliver` reports each success to a `DeliveryRecorder` at once, so a crash between a delivery and its
/// record repeats at most that one delivery, with the same id. A backend that failed all its attempts is
/// not tried again for later events of the same run: ten queued events must not cost ten rounds of
/// waiting on a service that is down. An event still failing after `lifetime` is dropped.
///
/// Encoded as the state file has always held it: an array of `{"event", "createdAt", "deliveredTo"}`.
public struct Outbox: Codable, Sendable, Equatable {
    public var items: [OutboxItem]

    public init(_ items: [OutboxItem] = []) {
        self.items = items
    }

    public init(from decoder: any Decoder) throws {
        items = try decoder.singleValueContainer().decode([OutboxItem].self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(items)
    }

    /// Queues `notifications`, created at `now`, unless one with the same id is queued already.
    public mutating func enqueue(_ notifications: [Notification], at now: Date) {
        let queued = Set(items.map(\.notification.id))
        items += notifications.filter { !queued.contains($0.id) }.map { OutboxItem(notification: $0, createdAt: now) }
    }

    /// Marks `id` delivered to `backend` (a recorded success read back after a crash).
    public mutating func markDelivered(_ id: String, to backend: String) {
        for index in items.indices where items[index].notification.id == id {
            if !items[index].deliveredTo.contains(backend) { items[index].deliveredTo.append(backend) }
        }
    }

    /// Each delivery `deliver(to:...)` may make: every queued event with each backend that lacks it, in
    /// the order they would be tried.
    public func pending(to notifiers: [any Notifier]) -> [(event: String, backend: String)] {
        items.flatMap { item in
            notifiers.filter { !item.deliveredTo.contains($0.name) }.map { (item.notification.id, $0.name) }
        }
    }

    /// How many notifications one run sends a person-facing backend (docs/alerts.md, "Floods"): past
    /// that, the rest are folded into one summary. 5000 used-up limits were 5000 phone notifications.
    public static let notificationsPerRun = 10

    /// Delivers every queued event to every backend that does not have it yet.
    ///
    /// A person-facing backend gets the first `notificationsPerRun` of them; each one past that is folded
    /// (recorded as delivered to it, so it is never sent later either) and one summary says how many.
    /// - Parameters:
    ///   - now: the real time, for dropping events older than `lifetime`.
    ///   - recorder: told of each success as it happens; when it throws, delivery stops and that error
    ///     comes out (the success could not be remembered, so nothing more should be sent).
    /// - Returns: what failed (events stay queued) and what was dropped.
    public mutating func deliver(
        to notifiers: [any Notifier], policy: RetryPolicy, now: Date, lifetime: TimeInterval,
        shared: (any SharedDelivery)? = nil, recorder: (String, String) throws -> Void
    ) rethrows -> DeliveryReport {
        var report = DeliveryReport()
        var down: [String: String] = [:]
        var sent: [String: Int] = [:]
        var folded: [String: [Notification]] = [:]
        var index = 0
        while index < items.count {
            let item = items[index]
            var failed: [DeliveryFailure] = []
            // Asked once per event, before its first shared backend: which machine tells the shared channels.
            var decision: SharedDecision?
            var waiting = false
            for notifier in notifiers where !items[index].deliveredTo.contains(notifier.name) {
                if notifier.isShared, let shared {
                    let decided = decision ?? shared.decide(item.notification.id)
                    decision = decided
                    if decided == .waiting {
                        waiting = true
                        continue
                    }
                    if decided == .deliveredElsewhere {
                        items[index].deliveredTo.append(notifier.name)
                        try recorder(item.notification.id, notifier.name)
                        continue
                    }
                }
                if let reason = down[notifier.name] {
                    failed.append(DeliveryFailure(event: item.notification.id, backend: notifier.name, reason: reason))
                } else if notifier.isPersonFacing, sent[notifier.name, default: 0] >= Self.notificationsPerRun {
                    folded[notifier.name, default: []].append(item.notification)
                    items[index].deliveredTo.append(notifier.name)
                    try recorder(item.notification.id, notifier.name)
                } else if let failure = policy.deliver(item.notification, with: notifier) {
                    down[notifier.name] = failure.reason
                    failed.append(
                        DeliveryFailure(event: item.notification.id, backend: notifier.name, reason: failure.reason))
                } else {
                    sent[notifier.name, default: 0] += 1
                    items[index].deliveredTo.append(notifier.name)
                    try recorder(item.notification.id, notifier.name)
                }
            }
            if decision == .send, let shared,
                notifiers.allSatisfy({ !$0.isShared || items[index].deliveredTo.contains($0.name) })
            {
                shared.delivered(item.notification.id)
            }
            if failed.isEmpty && !waiting {
                items.remove(at: index)
            } else if waiting && failed.isEmpty {
                // Another machine's to send: kept without a failure, until it says so or its claim goes stale.
                if now.timeIntervalSince(item.createdAt) > lifetime {
                    report.dropped.append(
                        DeliveryFailure(
                            event: item.notification.id, backend: "shared channels",
                            reason: "claimed by another machine that never said it was delivered"))
                    items.remove(at: index)
                } else {
                    index += 1
                }
            } else if now.timeIntervalSince(item.createdAt) > lifetime {
                // Given up on: no longer queued, so no longer a reason for the run to fail.
                report.dropped += failed
                items.remove(at: index)
            } else {
                report.failures += failed
                index += 1
            }
        }
        for notifier in notifiers {
            guard let events = folded[notifier.name] else { continue }
            let summary = Self.summary(of: events)
            if let failure = policy.deliver(summary, with: notifier) {
                report.failures.append(
                    DeliveryFailure(event: summary.id, backend: notifier.name, reason: failure.reason))
            }
        }
        return report
    }

    /// The one message that stands for `events` folded in a flood: how many, and where to see them.
    static func summary(of events: [Notification]) -> Notification {
        let first = events[0]
        let depleted = events.filter { $0.kind == "depleted" }.count
        let body =
            "\(events.count) more events in this run were not sent one by one"
            + (depleted > 0 ? " (\(depleted) used up)" : "")
            + ": `aggctl status` shows every account, `aggctl check --notify stdout` lists every event"
        return Notification(
            id: "\(first.id)+\(events.count - 1)", kind: "summary", window: "all", providerID: "aggctl",
            accountEmail: nil, remainingPercent: 0, resetsAt: nil, title: "\(events.count) more aggctl alerts",
            body: body, at: events.map(\.at).max() ?? first.at, urgency: depleted > 0 ? .critical : .normal)
    }
}

/// One queued event and the backends that have it.
public struct OutboxItem: Codable, Sendable, Equatable {
    public var notification: Notification
    /// When it was queued (the run's real time): events failing for longer than the lifetime are dropped.
    public var createdAt: Date
    /// Names of the backends that delivered it (`stdout`, `command:/path`, ...).
    public var deliveredTo: [String]

    public init(notification: Notification, createdAt: Date, deliveredTo: [String] = []) {
        self.notification = notification
        self.createdAt = createdAt
        self.deliveredTo = deliveredTo
    }

    enum CodingKeys: String, CodingKey {
        case notification = "event"
        case createdAt, deliveredTo
    }
}

/// What one `deliver` left undone.
public struct DeliveryReport: Sendable, Equatable {
    /// Each delivery that failed; those events stay queued.
    public var failures: [DeliveryFailure] = []
    /// The same for events dropped after failing longer than the lifetime.
    public var dropped: [DeliveryFailure] = []

    public init(failures: [DeliveryFailure] = [], dropped: [DeliveryFailure] = []) {
        self.failures = failures
        self.dropped = dropped
    }
}

/// One event a backend did not take, and why (one line, no secrets: `NotifierError`).
public struct DeliveryFailure: Sendable, Equatable, CustomStringConvertible {
    public var event: String
    public var backend: String
    public var reason: String

    public init(event: String, backend: String, reason: String) {
        self.event = event
        self.backend = backend
        self.reason = reason
    }

    /// "event ID to 'BACKEND': reason".
    public var description: String { "event \(event) to '\(backend)': \(reason)" }

    /// `failures` told once per backend, in the order the backends first failed: "event ID to
    /// 'BACKEND': reason" for one event, "N events to 'BACKEND' (the first ID): reason" for more, with the
    /// first one's reason. A backend is tried once per run (`Outbox.deliver`), so every event it did not
    /// take failed for that reason, and a line for each of hundreds of them told nothing more.
    public static func summaries(_ failures: [DeliveryFailure]) -> [String] {
        var order: [String] = []
        var byBackend: [String: [DeliveryFailure]] = [:]
        for failure in failures {
            if byBackend[failure.backend] == nil { order.append(failure.backend) }
            byBackend[failure.backend, default: []].append(failure)
        }
        return order.map { backend in
            let failed = byBackend[backend]!
            let first = failed[0]
            guard failed.count > 1 else { return first.description }
            return "\(failed.count) events to '\(backend)' (the first \(first.event)): \(first.reason)"
        }
    }
}
