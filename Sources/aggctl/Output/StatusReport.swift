import Aggregator
import Foundation
import Snapshots

/// `status --json`: exactly the shape of SPEC section 6. Absent values are written as `null`, not left
/// out, so programs can rely on every key being there.
struct StatusReport: Encodable {
    var now: Date
    var accounts: [AccountReport]
    var devices: [DeviceReport]
    var problems: [RecordProblem]

    init(_ result: MergeResult) {
        now = result.now
        accounts = result.accounts.map(AccountReport.init)
        devices = result.devices.map(DeviceReport.init)
        problems = result.problems
    }
}

/// `devices --json`: the device list and the problems, beside the moment they were judged at.
struct DevicesReport: Encodable {
    var now: Date
    var devices: [DeviceReport]
    var problems: [RecordProblem]

    init(_ result: MergeResult) {
        now = result.now
        devices = result.devices.map(DeviceReport.init)
        problems = result.problems
    }
}

struct AccountReport: Encodable {
    var account: MergedAccount

    init(_ account: MergedAccount) {
        self.account = account
    }

    private enum Keys: String, CodingKey {
        case providerID, accountEmail, plan, session, weekly, deviceID, deviceName, lastUpdated, seenOn
        case modelWeekly, tokens, costUSD, perDevice, stale, clockSkew, error
        case today, last30Days
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(account.providerID, forKey: .providerID)
        try c.encode(account.accountEmail, forKey: .accountEmail)
        try c.encode(account.plan, forKey: .plan)
        try c.encode(account.session.map { WindowReport($0) }, forKey: .session)
        try c.encode(account.weekly.map { WindowReport($0) }, forKey: .weekly)
        try c.encode(account.deviceID.rawValue, forKey: .deviceID)
        try c.encode(account.deviceName, forKey: .deviceName)
        try c.encode(account.lastUpdated, forKey: .lastUpdated)
        try c.encode(account.seenOn.map(\.rawValue), forKey: .seenOn)
        try c.encode(account.modelWeekly.map { $0.map { WindowReport($0) } }, forKey: .modelWeekly)
        if let tokens = account.tokens {
            var t = c.nestedContainer(keyedBy: Keys.self, forKey: .tokens)
            try t.encode(tokens.today, forKey: .today)
            try t.encode(tokens.last30Days, forKey: .last30Days)
        } else {
            try c.encodeNil(forKey: .tokens)
        }
        if let cost = account.costUSD {
            var t = c.nestedContainer(keyedBy: Keys.self, forKey: .costUSD)
            try t.encode(cost.today, forKey: .today)
            try t.encode(cost.last30Days, forKey: .last30Days)
        } else {
            try c.encodeNil(forKey: .costUSD)
        }
        try c.encode(account.perDevice.map(LedgerReport.init), forKey: .perDevice)
        try c.encode(account.stale, forKey: .stale)
        try c.encode(account.clockSkew, forKey: .clockSkew)
        try c.encode(account.error, forKey: .error)
    }
}

/// A window in `status --json`. Session and weekly windows carry `windowMinutes`; a per-model window
/// (`modelWeekly`) carries its `name` instead, as SPEC section 6 shapes them.
struct WindowReport: Encodable {
    var window: WindowStatus
    var name: String?

    init(_ window: WindowStatus) {
        self.window = window
    }

    init(_ named: NamedWindowStatus) {
        window = named.window
        name = named.name
    }

    private enum Keys: String, CodingKey {
        case name, usedPercent, remainingPercent, level, windowMinutes, resetsAt
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        if let name {
            try c.encode(name, forKey: .name)
        } else {
            try c.encode(window.windowMinutes, forKey: .windowMinutes)
        }
        try c.encode(window.usedPercent, forKey: .usedPercent)
        try c.encode(window.remainingPercent, forKey: .remainingPercent)
        try c.encode(window.level, forKey: .level)
        try c.encode(window.resetsAt, forKey: .resetsAt)
    }
}

struct LedgerReport: Encodable {
    var ledger: DeviceLedger

    init(_ ledger: DeviceLedger) {
        self.ledger = ledger
    }

    private enum Keys: String, CodingKey {
        case deviceID, tokensToday, tokens30Days, costTodayUSD, cost30DaysUSD
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(ledger.deviceID.rawValue, forKey: .deviceID)
        try c.encode(ledger.tokensToday, forKey: .tokensToday)
        try c.encode(ledger.tokens30Days, forKey: .tokens30Days)
        try c.encode(ledger.costTodayUSD, forKey: .costTodayUSD)
        try c.encode(ledger.cost30DaysUSD, forKey: .cost30DaysUSD)
    }
}

struct DeviceReport: Encodable {
    var device: DeviceSummary

    init(_ device: DeviceSummary) {
        self.device = device
    }

    private enum Keys: String, CodingKey {
        case deviceID, deviceName, generatedAt, appVersion, providerCount, stale
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(device.deviceID.rawValue, forKey: .deviceID)
        try c.encode(device.deviceName, forKey: .deviceName)
        try c.encode(device.generatedAt, forKey: .generatedAt)
        try c.encode(device.appVersion, forKey: .appVersion)
        try c.encode(device.providerCount, forKey: .providerCount)
        try c.encode(device.stale, forKey: .stale)
    }
}
