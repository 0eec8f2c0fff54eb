import Foundation
import Notify
import TestSupport
import Testing

/// Durable delivery in-process: a clock by parameter, retries without waits, backends that fail on cue.
struct OutboxTests {
    /// Records deliveries; fails every delivery while `failing` is set.
    final class Backend: Notifier, @unchecked Sendable {
        let name: String
        var failing: Bool
        let delivered = TestLog()

        init(_ name: String, failing: Bool = false) {
            self.name = name
            self.failing = failing
        }

        func deliver(_ notification: Notify.Notification) throws {
            if failing { throw NotifierError("\(name) is down") }
            delivered.append(notification.id)
        }
    }

    static let noWaits = RetryPolicy(attempts: 4, initialDelay: 0.25, maximumDelay: 2, jitter: 0) { _ in }
    static let now = Date(timeIntervalSince1970: 1_796_040_000)

    static func event(_ id: String) -> Notify.Notification {
        Notify.Notification(
            id: id, kind: "depleted", providerID: "claude", accountEmail: nil, remainingPercent: 0, resetsAt: nil,
            title: "Claude session depleted", body: "0% left.", at: now, urgency: .critical)
    }

    @Test("each event reaches each backend once; each success is recorded as it happens")
    func deliversOnce() throws {
        var outbox = Outbox()
        outbox.enqueue([Self.event("evt-1"), Self.event("evt-2")], at: Self.now)
        outbox.enqueue([Self.event("evt-1")], at: Self.now)  // already queued: not twice
        let a = Backend("a")
        let b = Backend("b")
        let recorded = TestLog()
        let report = outbox.deliver(to: [a, b], policy: Self.noWaits, now: Self.now, lifetime: 86_400) {
            recorded.append("\($0) \($1)")
        }
        #expect(report == DeliveryReport())
        #expect(outbox.items.isEmpty)
        #expect(a.delivered.entries == ["evt-1", "evt-2"] && b.delivered.entries == ["evt-1", "evt-2"])
        #expect(recorded.entries == ["evt-1 a", "evt-1 b", "evt-2 a", "evt-2 b"])
    }

    @Test("a backend that is down keeps the events queued for it alone, and is tried once per run")
    func downBackend() throws {
        var outbox = Outbox()
        outbox.enqueue([Self.event("evt-1"), Self.event("evt-2"), Self.event("evt-3")], at: Self.now)
        let up = Backend("up")
        let down = Backend("down", failing: true)
        let waits = TestLog()
        let counting = RetryPolicy(attempts: 4, initialDelay: 0.25, maximumDelay: 2, jitter: 0) {
            waits.append("\($0)")
        }
        let report = outbox.deliver(to: [up, down], policy: counting, now: Self.now, lifetime: 86_400) { _, _ in }
        #expect(report.failures.count == 3)
        #expect(report.failures.first?.description == "event evt-1 to 'down': down is down")
        // Told once for the backend, not once per event.
        #expect(DeliveryFailure.summaries(report.failures) == ["3 events to 'down' (the first evt-1): down is down"])
        #expect(waits.entries.count == 3, "the waits of one event's four attempts; later events do not try again")
        #expect(outbox.items.map(\.deliveredTo) == [["up"], ["up"], ["up"]])
        // Next run, the backend is back: only it is tried, and only for what it lacks.
        down.failing = false
        let next = outbox.deliver(to: [up, down], policy: Self.noWaits, now: Self.now, lifetime: 86_400) { _, _ in }
        #expect(next == DeliveryReport() && outbox.items.isEmpty)
        #expect(up.delivered.entries == ["evt-1", "evt-2", "evt-3"])
        #expect(down.delivered.entries == ["evt-1", "evt-2", "evt-3"])
    }

    @Test("failures are told once per backend, in the order the backends failed; one event is told by its id")
    func failuresSummedPerBackend() {
        let failures = [
            DeliveryFailure(event: "evt-1", backend: "hook", reason: "exited with status 3"),
            DeliveryFailure(event: "evt-1", backend: "stdout", reason: "broken pipe"),
            DeliveryFailure(event: "evt-2", backend: "hook", reason: "exited with status 3"),
            DeliveryFailure(event: "evt-3", backend: "hook", reason: "exited with status 3"),
        ]
        #expect(
            DeliveryFailure.summaries(failures) == [
                "3 events to 'hook' (the first evt-1): exited with status 3",
                "event evt-1 to 'stdout': broken pipe",
            ])
        #expect(DeliveryFailure.summaries([]).isEmpty)
    }

    @Test("an event failing for longer than its lifetime is dropped and reported")
    func expiry() throws {
        var outbox = Outbox()
        outbox.enqueue([Self.event("evt-1")], at: Self.now)
        let down = Backend("down", failing: true)
        let report = outbox.deliver(
            to: [down], policy: Self.noWaits, now: Self.now.addingTimeInterval(86_401), lifetime: 86_400
        ) { _, _ in }
        #expect(report.failures.isEmpty && report.dropped.count == 1 && outbox.items.isEmpty)
    }

    @Test("a success that cannot be recorded stops delivery: nothing more is sent")
    func recorderFailureStops() throws {
        struct Full: Error {}
        var outbox = Outbox()
        outbox.enqueue([Self.event("evt-1"), Self.event("evt-2")], at: Self.now)
        let a = Backend("a")
        #expect(throws: Full.self) {
            try outbox.deliver(to: [a], policy: Self.noWaits, now: Self.now, lifetime: 86_400) { _, _ in throw Full() }
        }
        #expect(a.delivered.entries == ["evt-1"])
    }

    @Test("the outbox reads the state file's shape, urgency or not, and writes it back the same way")
    func fileShape() throws {
        let json = #"""
            [{"createdAt": "2026-11-30T12:00:00Z", "deliveredTo": ["stdout"], "event": {"accountEmail": null,
              "at": "2026-11-30T12:00:00Z", "body": "0% left.", "id": "evt-1", "kind": "depleted",
              "providerID": "claude", "remainingPercent": 0, "title": "Claude session depleted", "threshold": null}}]
            """#
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let outbox = try decoder.decode(Outbox.self, from: Data(json.utf8))
        #expect(outbox.items.count == 1)
        #expect(outbox.items[0].notification.urgency == .critical)
        #expect(outbox.items[0].deliveredTo == ["stdout"])
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let object = try JSONSerialization.jsonObject(with: try encoder.encode(outbox)) as? [[String: Any]]
        #expect(Set(object?.first?.keys.map { $0 } ?? []) == ["createdAt", "deliveredTo", "event"])
        #expect((object?.first?["event"] as? [String: Any])?["id"] as? String == "evt-1")
    }
}
