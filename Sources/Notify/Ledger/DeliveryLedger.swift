import Portable
import Snapshots

/// What a ledger's owner decides and keeps beside the outbox (for `check`: the alert state). Its members
/// sit at the top of the ledger's document, beside `outbox` and `schemaVersion`.
public protocol LedgerDecisions: Codable, Sendable, Equatable {
    init()
    /// The whole document (these members, the outbox as `outbox` gives it encoded, `schemaVersion` 1),
    /// byte for byte as `JSONEncoder` with sorted keys writes it, written directly; nil leaves it to
    /// `JSONEncoder`.
    func quicklyEncodedDocument(outbox: Data) -> Data?
}

extension LedgerDecisions {
    public func quicklyEncodedDocument(outbox: Data) -> Data? { nil }
}

/// Exactly-once delivery in one place: the owner's decisions and the outbox of undelivered events in one
/// document (`alerts.json`), written under one lock, and a journal of each delivery beside it.
///
/// A cycle reads the document and folds in the journal, lets the owner decide (new decisions, new
/// events), writes the document with the new events before any backend is tried (a crash from then on
/// loses no event), claims room in the journal for every delivery it may make, delivers, records each
/// success at once (a crash repeats at most the one delivery in flight) and writes the document again. A
/// write that would leave the file as it is (most runs of a cron job) is skipped, and its flushes with it.
public struct DeliveryLedger<Decisions: LedgerDecisions>: Sendable {
    public let file: StateFile
    var journal: DeliveryJournal { DeliveryJournal(path: file.journalPath) }

    public init(directory: String, name: String = "alerts") {
        file = StateFile(directory: directory, name: name)
    }

    /// How the document read at the start of a cycle.
    public enum Start: Sendable, Equatable {
        case fresh
        case loaded
        /// It was not valid state: set aside at `aside`; the events of its outbox that were kept
        /// (`salvaged`), or nil when its outbox could not be read either.
        case corrupt(aside: String, reason: String, salvaged: Int?)
    }

    /// Runs `body` on the ledger under its lock.
    ///
    /// - Parameters:
    ///   - timeout: give up (throw `StateFileError`) after waiting this many seconds for the lock.
    ///   - onWait: told once, after a few seconds of waiting, who holds the lock.
    public func cycle<Result>(
        timeout: TimeInterval? = nil, onWait: (String) -> Void = { _ in },
        _ body: (inout Session) throws -> Result
    ) throws -> Result {
        try file.withLock(timeout: timeout, onWait: onWait) {
            var session = try Session(ledger: self)
            return try body(&session)
        }
    }

    /// The ledger while its lock is held.
    public struct Session {
        public let start: Start
        public var decisions: Decisions
        public private(set) var outbox: Outbox
        /// What the file holds, when that is known exactly: then an unchanged document needs no write.
        private var persisted: LedgerDocument<Decisions>?
        private let ledger: DeliveryLedger

        init(ledger: DeliveryLedger) throws {
            self.ledger = ledger
            var document = LedgerDocument<Decisions>()
            switch try ledger.file.load({
                try RecordCodec.makeDecoder().decode(LedgerDocument<Decisions>.self, from: $0)
            }) {
            case .fresh:
                start = .fresh
            case .loaded(let loaded):
                start = .loaded
                document = loaded
                persisted = loaded
            case .corrupt(let aside, let reason):
                // Events still queued in the file are kept when its outbox reads.
                let salvaged = FileSystem.contents(of: aside).flatMap(Self.salvagedOutbox)
                if let salvaged { document.outbox = salvaged }
                start = .corrupt(aside: aside, reason: reason, salvaged: salvaged?.items.count)
            }
            // Deliveries recorded since the last full write (a run that was killed, or one still in the
            // journal), folded in by the next write, which then removes the journal.
            let recorded = try ledger.journal.entries()
            for entry in recorded {
                if let id = entry["delivered"], let backend = entry["to"] {
                    document.outbox.markDelivered(id, to: backend)
                }
            }
            if !recorded.isEmpty { persisted = nil }
            decisions = document.decisions
            outbox = document.outbox
        }

        /// Queues `notifications`, created at `now`, unless queued already.
        public mutating func enqueue(_ notifications: [Notification], at now: Date) {
            outbox.enqueue(notifications, at: now)
        }

        /// Writes the document unless the file holds exactly it already; the journal it now includes goes.
        public mutating func commit() throws {
            let document = LedgerDocument(decisions: decisions, outbox: outbox)
            guard document != persisted else { return }
            try ledger.file.save { try document.encoded() }
            ledger.journal.clear()
            persisted = document
        }

        /// Delivers every queued event to every backend that lacks it, recording each success in the
        /// journal as it happens, then commits.
        ///
        /// Room to record every delivery is claimed first: a delivery that could not be recorded (a full
        /// disk) would go out again next run, so without that room nothing goes out.
        /// - Throws: `StateFileError` when the room cannot be claimed or a delivery cannot be recorded.
        public mutating func deliver(
            to notifiers: [any Notifier], policy: RetryPolicy, now: Date, lifetime: TimeInterval,
            shared: (any SharedDelivery)? = nil
        ) throws -> DeliveryReport {
            let pending = outbox.pending(to: notifiers).map { ["delivered": $0.event, "to": $0.backend] }
            let reservation: JournalReservation
            do {
                reservation = try ledger.journal.reserve(for: pending)
            } catch let error as StateFileError {
                throw StateFileError(
                    "\(error.message); nothing was delivered, \(outbox.items.count) event(s) stay queued for the "
                        + "next run")
            }
            var recorded = 0
            let report = try outbox.deliver(
                to: notifiers, policy: policy, now: now, lifetime: lifetime, shared: shared
            ) {
                id, backend in
                try reservation.record(["delivered": id, "to": backend])
                recorded += 1
            }
            if recorded == 0 { reservation.giveBack() }
            try commit()
            return report
        }

        /// The events queued in a document that is not valid state as a whole, when its outbox still
        /// reads: set aside, the file must not take undelivered events with it.
        static func salvagedOutbox(from data: Data) -> Outbox? {
            guard let document = try? RecordCodec.makeDecoder().decode(OutboxOnly.self, from: data) else {
                return nil
            }
            return document.outbox ?? Outbox()
        }
    }
}

/// A ledger document read for its outbox alone.
private struct OutboxOnly: Decodable {
    var outbox: Outbox?
}

/// The file's one shape, which every release has written: `{"schemaVersion": 1, <the decisions'
/// members>, "outbox": [...]}`.
public struct LedgerDocument<Decisions: LedgerDecisions>: Codable, Sendable, Equatable {
    public var decisions = Decisions()
    public var outbox = Outbox()

    public init() {}

    public init(decisions: Decisions, outbox: Outbox) {
        self.decisions = decisions
        self.outbox = outbox
    }

    enum CodingKeys: String, CodingKey {
        case schemaVersion, outbox
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // Every release wrote it: a document without it (`{}`) is no state, and taken for an empty
        // one it fired again every event already delivered.
        let version = try container.decode(Int.self, forKey: .schemaVersion)
        guard version >= 1 else {
            throw DecodingError.dataCorruptedError(
                forKey: .schemaVersion, in: container, debugDescription: "schemaVersion \(version)")
        }
        outbox = try container.decodeIfPresent(Outbox.self, forKey: .outbox) ?? Outbox()
        decisions = try Decisions(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try decisions.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(1, forKey: .schemaVersion)
        try container.encode(outbox, forKey: .outbox)
    }

    /// What `JSONEncoder` writes (compact, sorted keys), the decisions' members written directly when
    /// their owner can.
    public func encoded() throws -> Data {
        let encoder = RecordCodec.makeEncoder(pretty: false)
        if let queued = try? encoder.encode(outbox), let data = decisions.quicklyEncodedDocument(outbox: queued) {
            return data
        }
        return try encoder.encode(self)
    }
}
