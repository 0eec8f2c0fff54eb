import Aggregator
import Portable
import Serialization
import Snapshots
import Stores

/// The JSON documents of `status --json` and `devices --json`, declared object by object: exactly the
/// shapes of the command-line contract. Absent values are written as `null`, not left out, so programs
/// can rely on every key being there; keys stand in sorted order, so the output is canonical (a test holds
/// every declaration to both).
///
/// A new key is one line in its object's declaration. Values that depend on the moment the document is
/// judged at (`now`, `stale`, each `pace`) are written through the writer's `moment`/`pace`, which marks
/// them for the kept document (`StatusTemplate`).
enum StatusReport {
    /// `status --json`: `{"accounts", "devices", "now", "problems"}`.
    static func status(_ result: MergeResult, to json: inout StatusJSONWriter) {
        statusDocument.write(result, at: result.now, to: &json)
    }

    /// `devices --json`: `{"devices", "now", "problems"}` with the device objects of `status --json`.
    static func devices(_ result: MergeResult, to json: inout StatusJSONWriter) {
        devicesDocument.write(result, at: result.now, to: &json)
    }

    static let statusDocument = JSONShape<MergeResult>([
        .custom("accounts") { json, result, _ in
            // Accounts are most of the document: written in pieces on every core, placed in order.
            let accounts = result.accounts
            let marking = json.isMarking
            let pieces = Parallel.mapRanges(accounts.count, minimumPerWorker: 512) { range in
                // Room for the largest accounts (about 2.3 KB each with model windows and pace): growing
                // a piece copies it, and pages reserved but never written cost nothing.
                var piece = StatusJSONWriter.arrayPiece(capacity: 64 + range.count * 4096, marking: marking)
                for index in range { account.write(accounts[index], at: result.now, to: &piece) }
                return piece
            }
            json.array(pieces: pieces)
        },
        .custom("devices") { json, result, now in
            json.array(count: result.devices.count) { json, index in
                device.write(result.devices[index], at: now, to: &json)
            }
        },
        .custom("now") { json, result, _ in json.moment(.now) { $0.date(result.now) } },
        .array("problems", problem) { $0.problems },
    ])

    static let devicesDocument = JSONShape<MergeResult>([
        .custom("devices") { json, result, now in
            json.array(count: result.devices.count) { json, index in
                device.write(result.devices[index], at: now, to: &json)
            }
        },
        .date("now") { $0.now },
        .array("problems", problem) { $0.problems },
    ])

    static let account = JSONShape<MergedAccount>([
        .string("accountEmail") { $0.accountEmail },
        .date("availableAt") { $0.availableAt },
        .bool("blocked") { $0.blocked },
        .bool("clockSkew") { $0.clockSkew },
        .object("costUSD", costTotals) { $0.costUSD },
        .string("deviceID") { $0.deviceID.rawValue },
        .string("deviceName") { $0.deviceName },
        .string("error") { $0.error },
        .string("errorDeviceID") { $0.errorDeviceID?.rawValue },
        .date("lastUpdated") { $0.lastUpdated },
        .array("limits", limit) { $0.limits },
        .array("modelWeekly", modelWindow) { $0.modelWeekly },
        .array("perDevice", deviceLedger) { $0.perDevice },
        .string("plan") { $0.plan },
        .string("providerID") { $0.providerID },
        .custom("seenOn") { json, account, _ in json.array(account.seenOn) { $0.string($1.rawValue) } },
        .object("session", window) { $0.session },
        .custom("stale") { json, account, _ in
            json.moment(.stale(since: account.lastUpdated)) { $0.bool(account.stale) }
        },
        .string("tightest") { $0.tightest },
        .object("tokens", tokenTotals) { $0.tokens },
        .object("weekly", window) { $0.weekly },
    ])

    static let costTotals = JSONShape<CostTotals>([
        .double("last30Days") { $0.last30Days },
        .double("today") { $0.today },
    ])

    static let tokenTotals = JSONShape<TokenTotals>([
        .int("last30Days") { $0.last30Days },
        .int("today") { $0.today },
    ])

    static let deviceLedger = JSONShape<DeviceLedger>([
        .double("cost30DaysUSD") { $0.cost30DaysUSD },
        .double("costTodayUSD") { $0.costTodayUSD },
        .string("deviceID") { $0.deviceID.rawValue },
        .int("tokens30Days") { $0.tokens30Days },
        .int("tokensToday") { $0.tokensToday },
    ])

    /// A limit: its figures and what the merge derives from them.
    static let limit = JSONShape<LimitStatus>([
        .bool("binding") { $0.binding },
        .bool("due") { $0.window.due },
        .string("id") { $0.id },
        .string("label") { $0.label },
        .string("level") { level(of: $0.window) },
        .double("limit") { $0.limit },
        .custom("pace") { json, limit, now in pace(of: limit.window, at: now, to: &json) },
        .double("remainingPercent") { $0.window.remainingPercent },
        .date("resetsAt") { $0.window.resetsAt },
        .string("unit") { $0.unit },
        .double("used") { $0.used },
        .double("usedPercent") { $0.window.usedPercent },
        .int("windowMinutes") { $0.window.windowMinutes },
    ])

    /// The session or the weekly window.
    static let window = JSONShape<WindowStatus>([
        .bool("due") { $0.due },
        .string("level") { level(of: $0) },
        .custom("pace") { json, window, now in pace(of: window, at: now, to: &json) },
        .double("remainingPercent") { $0.remainingPercent },
        .date("resetsAt") { $0.resetsAt },
        .double("usedPercent") { $0.usedPercent },
        .int("windowMinutes") { $0.windowMinutes },
    ])

    /// A per-model week as version 1 wrote it: its `name` in place of `windowMinutes`.
    static let modelWindow = JSONShape<NamedWindowStatus>([
        .bool("due") { $0.window.due },
        .string("level") { level(of: $0.window) },
        .string("name") { $0.name },
        .custom("pace") { json, model, now in pace(of: model.window, at: now, to: &json) },
        .double("remainingPercent") { $0.window.remainingPercent },
        .date("resetsAt") { $0.window.resetsAt },
        .double("usedPercent") { $0.window.usedPercent },
    ])

    static let paceShape = JSONShape<Pace>([
        .double("deltaPercent") { $0.deltaPercent },
        .double("etaSeconds") { $0.etaSeconds },
        .double("expectedUsedPercent") { $0.expectedUsedPercent },
        .bool("lastsUntilReset") { $0.lastsUntilReset },
        .string("stage") { $0.stage.rawValue },
    ])

    static let device = JSONShape<DeviceSummary>([
        .string("appVersion") { $0.appVersion },
        .string("deviceID") { $0.deviceID.rawValue },
        .string("deviceName") { $0.deviceName },
        .date("generatedAt") { $0.generatedAt },
        .int("providerCount") { $0.providerCount },
        .custom("stale") { json, device, _ in json.moment(.stale(since: device.generatedAt)) { $0.bool(device.stale) }
        },
    ])

    static let problem = JSONShape<RecordProblem>([
        .string("file") { $0.file },
        .string("reason") { $0.reason },
    ])

    /// A window's level as programs read it: `unknown` while it is due (its figures are not current).
    static func level(of window: WindowStatus) -> String {
        window.due ? "unknown" : window.level.rawValue
    }

    /// A window's pace at `now` (marked: it moves with the moment), or null.
    static func pace(of window: WindowStatus, at now: Date, to json: inout StatusJSONWriter) {
        json.pace(.pace(of: window)) { paceShape.write(window.pace(at: now), at: now, to: &$0) }
    }

    /// `{"deltaPercent", "etaSeconds", "expectedUsedPercent", "lastsUntilReset", "stage"}` or null.
    static func write(_ pace: Pace?, at now: Date, to json: inout StatusJSONWriter) {
        paceShape.write(pace, at: now, to: &json)
    }
}
