import Notify
import Portable
import Snapshots
import Stores

/// Once per person (docs/alerts.md): the machine that claims an event in the store (`alerts/<id>`, created only
/// if absent) tells the shared channels; the others count it delivered once the claimant marks it so
/// (`alerts/<id>.delivered`), and wait meanwhile. A claim left unmarked for `takeover` (its machine died
/// between claim and delivery, and has not come back) is taken over: the next generation
/// (`alerts/<id>.2`, ...) is claimed the same exclusive way, so one machine takes over, not all.
///
/// Where the store's claims are not exclusive (a synced folder), `chosenSender()` decides instead.
struct StoreClaims: SharedDelivery {
    let claims: any EventClaims
    let device: DeviceID
    /// The run's moment, written in claims and compared with theirs (`--now` in tests).
    let now: Date
    /// The sender where claims are not exclusive (`chosenSender()`, worked out once per run).
    var sender: String = ""
    static let takeover: TimeInterval = 10 * 60
    static let keptFor: TimeInterval = 30 * 86_400
    static let generations = 5

    /// What a claim says: who made it and when.
    struct Claim: Codable {
        var device: String
        var at: Date
    }

    /// How long a machine's word that it sends to shared channels holds in a synced folder: a machine that
    /// stopped running `check` an hour ago is no longer the sender.
    static let senderFor: TimeInterval = 60 * 60

    /// The sender of a synced folder (claims that are not exclusive): of the machines that said within the
    /// hour that they send to shared channels (`alerts/sender-<device id>`, rewritten by each `check`), the
    /// one whose device id sorts first. Every machine computes it alike once the folder has synced; a
    /// duplicate can happen only while that set changes (a machine starting or stopping).
    func chosenSender() -> String {
        guard let own = ClaimName("sender-" + device.rawValue) else { return device.rawValue }
        // Rewritten a quarter of the hour it holds, not every minute: each write is a sync for every machine.
        let said = (try? claims.read(own)).flatMap {
            try? RecordCodec.makeDecoder().decode(Claim.self, from: $0.data)
        }
        if said.map({ abs(now.timeIntervalSince($0.at)) >= Self.senderFor / 4 }) ?? true {
            try? claims.replace(own, data: claimBytes())
        }
        var senders: [String] = [device.rawValue]
        for name in (try? claims.names()) ?? [] where name.rawValue.hasPrefix("sender-") {
            guard let found = try? claims.read(name),
                let claim = try? RecordCodec.makeDecoder().decode(Claim.self, from: found.data),
                "sender-" + claim.device == name.rawValue, abs(now.timeIntervalSince(claim.at)) < Self.senderFor
            else { continue }
            senders.append(claim.device)
        }
        return senders.min() ?? device.rawValue
    }

    func decide(_ event: String) -> SharedDecision {
        guard let base = ClaimName(event), let deliveredName = ClaimName(event + ".delivered") else { return .send }
        do {
            if try claims.read(deliveredName) != nil { return .deliveredElsewhere }
            if !claims.isExclusive {
                return sender == device.rawValue ? .send : .deliveredElsewhere
            }
            for generation in 1...Self.generations {
                guard let name = generation == 1 ? base : ClaimName("\(event).\(generation)") else { break }
                if try claims.create(name, data: claimBytes()) { return .send }
                guard let found = try claims.read(name) else { continue }
                let claim = try? RecordCodec.makeDecoder().decode(Claim.self, from: found.data)
                if claim?.device == device.rawValue { return .send }
                // A claim still being written reads empty: its file's time stands for it.
                let at = claim?.at ?? found.modified
                if now.timeIntervalSince(at) < Self.takeover { return .waiting }
            }
            return .waiting
        } catch {
            // A store that cannot take a claim must not silence a phone: this machine sends.
            return .send
        }
    }

    func delivered(_ event: String) {
        guard let name = ClaimName(event + ".delivered") else { return }
        _ = try? claims.create(name, data: claimBytes())
    }

    /// Claims older than 30 days go (the outbox gives up on an event after a day).
    func sweep() {
        claims.removeClaims(olderThan: Date().addingTimeInterval(-Self.keptFor))
    }

    private func claimBytes() -> Data {
        (try? RecordCodec.makeEncoder(pretty: false).encode(Claim(device: device.rawValue, at: now))) ?? Data()
    }
}
