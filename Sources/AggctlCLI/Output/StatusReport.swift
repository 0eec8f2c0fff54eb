import Aggregator
import Portable
import Snapshots
import Stores

/// The JSON documents of `status --json` and `devices --json`: exactly the shapes of the command-line contract.
/// Absent values are written as `null`, not left out, so programs can rely on every key being there.
/// Keys are written in sorted order, so the output is canonical.
enum StatusReport {
    /// `status --json`: `{"accounts", "devices", "now", "problems"}`.
    static func status(_ result: MergeResult, to json: inout JSONWriter) {
        json.object { json in
            json.key("accounts")
            // Accounts are most of the report: written in pieces on every core, placed in order.
            let accounts = result.accounts
            let marking = json.isMarking
            let pieces = Parallel.mapRanges(accounts.count, minimumPerWorker: 512) { range in
                // Room for the largest accounts (about 2.3 KB each with model windows and pace): growing
                // a piece copies it, and pages reserved but never written cost nothing.
                var piece = JSONWriter.arrayPiece(capacity: 64 + range.count * 4096, marking: marking)
                for index in range { write(accounts[index], now: result.now, to: &piece) }
                return piece
            }
            json.array(pieces: pieces)
            json.key("devices")
            json.array(count: result.devices.count) { json, index in write(result.devices[index], to: &json) }
            json.key("now")
            json.moment(.now) { $0.date(result.now) }
            json.key("problems")
            json.array(result.problems) { json, problem in write(problem, to: &json) }
        }
    }

    /// `devices --json`: `{"devices", "now", "problems"}` with the device objects of `status --json`.
    static func devices(_ result: MergeResult, to json: inout JSONWriter) {
        json.object { json in
            json.key("devices")
            json.array(count: result.devices.count) { json, index in write(result.devices[index], to: &json) }
            json.key("now")
            json.date(result.now)
            json.key("problems")
            json.array(result.problems) { json, problem in write(problem, to: &json) }
        }
    }

    static func write(_ account: MergedAccount, now: Date, to json: inout JSONWriter) {
        json.object { json in
            json.key("accountEmail")
            json.string(account.accountEmail)
            json.key("availableAt")
            json.date(account.availableAt)
            json.key("blocked")
            json.bool(account.blocked)
            json.key("clockSkew")
            json.bool(account.clockSkew)
            json.key("costUSD")
            if let cost = account.costUSD {
                json.object { json in
                    json.key("last30Days")
                    json.double(cost.last30Days)
                    json.key("today")
                    json.double(cost.today)
                }
            } else {
                json.null()
            }
            json.key("deviceID")
            json.string(account.deviceID.rawValue)
            json.key("deviceName")
            json.string(account.deviceName)
            json.key("error")
            json.string(account.error)
            json.key("errorDeviceID")
            json.string(account.errorDeviceID?.rawValue)
            json.key("lastUpdated")
            json.date(account.lastUpdated)
            json.key("limits")
            if let limits = account.limits {
                json.array(limits) { json, limit in write(limit, now: now, to: &json) }
            } else {
                json.null()
            }
            json.key("modelWeekly")
            if let models = account.modelWeekly {
                json.array(models) { json, model in write(model.window, name: model.name, now: now, to: &json) }
            } else {
                json.null()
            }
            json.key("perDevice")
            json.array(account.perDevice) { json, ledger in
                json.object { json in
                    json.key("cost30DaysUSD")
                    json.double(ledger.cost30DaysUSD)
                    json.key("costTodayUSD")
                    json.double(ledger.costTodayUSD)
                    json.key("deviceID")
                    json.string(ledger.deviceID.rawValue)
                    json.key("tokens30Days")
                    json.int(ledger.tokens30Days)
                    json.key("tokensToday")
                    json.int(ledger.tokensToday)
                }
            }
            json.key("plan")
            json.string(account.plan)
            json.key("providerID")
            json.string(account.providerID)
            json.key("seenOn")
            json.array(account.seenOn) { json, id in json.string(id.rawValue) }
            json.key("session")
            write(account.session, now: now, to: &json)
            json.key("stale")
            json.moment(.stale(since: account.lastUpdated)) { $0.bool(account.stale) }
            json.key("tightest")
            json.string(account.tightest)
            json.key("tokens")
            if let tokens = account.tokens {
                json.object { json in
                    json.key("last30Days")
                    json.int(tokens.last30Days)
                    json.key("today")
                    json.int(tokens.today)
                }
            } else {
                json.null()
            }
            json.key("weekly")
            write(account.weekly, now: now, to: &json)
        }
    }

    /// A limit: its figures and what the merge derives from them.
    static func write(_ limit: LimitStatus, now: Date, to json: inout JSONWriter) {
        json.object { json in
            json.key("binding")
            json.bool(limit.binding)
            json.key("due")
            json.bool(limit.window.due)
            json.key("id")
            json.string(limit.id)
            json.key("label")
            json.string(limit.label)
            json.key("level")
            json.string(level(of: limit.window))
            json.key("limit")
            json.double(limit.limit)
            json.key("pace")
            json.pace(.pace(of: limit.window)) { write(limit.window.pace(at: now), to: &$0) }
            json.key("remainingPercent")
            json.double(limit.window.remainingPercent)
            json.key("resetsAt")
            json.date(limit.window.resetsAt)
            json.key("unit")
            json.string(limit.unit)
            json.key("used")
            json.double(limit.used)
            json.key("usedPercent")
            json.double(limit.window.usedPercent)
            json.key("windowMinutes")
            json.int(limit.window.windowMinutes)
        }
    }

    /// A window's level as programs read it: `unknown` while it is due (its figures are not current).
    static func level(of window: WindowStatus) -> String {
        window.due ? "unknown" : window.level.rawValue
    }

    /// A session or weekly window (with `windowMinutes`), or a per-model window (with its `name` instead).
    static func write(_ window: WindowStatus?, name: String? = nil, now: Date, to json: inout JSONWriter) {
        guard let window else { return json.null() }
        json.object { json in
            json.key("due")
            json.bool(window.due)
            json.key("level")
            json.string(level(of: window))
            if let name {
                json.key("name")
                json.string(name)
            }
            json.key("pace")
            json.pace(.pace(of: window)) { write(window.pace(at: now), to: &$0) }
            json.key("remainingPercent")
            json.double(window.remainingPercent)
            json.key("resetsAt")
            json.date(window.resetsAt)
            json.key("usedPercent")
            json.double(window.usedPercent)
            if name == nil {
                json.key("windowMinutes")
                json.int(window.windowMinutes)
            }
        }
    }

    /// `{"deltaPercent", "etaSeconds", "expectedUsedPercent", "lastsUntilReset", "stage"}` or null.
    static func write(_ pace: Pace?, to json: inout JSONWriter) {
        guard let pace else { return json.null() }
        json.object { json in
            json.key("deltaPercent")
            json.double(pace.deltaPercent)
            json.key("etaSeconds")
            json.double(pace.etaSeconds)
            json.key("expectedUsedPercent")
            json.double(pace.expectedUsedPercent)
            json.key("lastsUntilReset")
            json.bool(pace.lastsUntilReset)
            json.key("stage")
            json.string(pace.stage.rawValue)
        }
    }

    static func write(_ device: DeviceSummary, to json: inout JSONWriter) {
        json.object { json in
            json.key("appVersion")
            json.string(device.appVersion)
            json.key("deviceID")
            json.string(device.deviceID.rawValue)
            json.key("deviceName")
            json.string(device.deviceName)
            json.key("generatedAt")
            json.date(device.generatedAt)
            json.key("providerCount")
            json.int(device.providerCount)
            json.key("stale")
            json.moment(.stale(since: device.generatedAt)) { $0.bool(device.stale) }
        }
    }

    static func write(_ problem: RecordProblem, to json: inout JSONWriter) {
        json.object { json in
            json.key("file")
            json.string(problem.file)
            json.key("reason")
            json.string(problem.reason)
        }
    }
}
