import Portable
import Serialization
import Snapshots

extension LocalHistory {
    /// Reads `history.json`: its one reader. A file of another shape is not valid history (then set aside
    /// and started afresh: history never costs a publish).
    public static func read(_ data: Data) throws -> LocalHistory {
        guard let history = data.withUnsafeBytes(quickly) else {
            throw StateFileError("not the history aggctl writes")
        }
        return history
    }

    /// The history read straight from its bytes when it has the shape aggctl writes; nil otherwise.
    public static func quickly(from bytes: UnsafeRawBufferPointer) -> LocalHistory? {
        var s = JSONScanner(bytes)
        var accounts: [String: WindowHistory]?
        do {
            try StateReader.members(&s) { (s, key) throws(StateReader.Unusual) in
                if s.key(key, is: "accounts") {
                    try StateReader.once(
                        &accounts,
                        try StateReader.dictionary(&s) { (s) throws(StateReader.Unusual) in try windows(&s) })
                } else {
                    try StateReader.skip(&s)
                }
            }
            try StateReader.syntax { () throws(JSONSyntaxError) in try s.finish() }
        } catch {
            return nil
        }
        guard let accounts else { return nil }
        var history = LocalHistory()
        history.accounts = accounts
        return history
    }

    private static func windows(_ s: inout JSONScanner) throws(StateReader.Unusual) -> WindowHistory {
        var session: [UsageSample]?
        var weekly: [UsageSample]?
        try StateReader.members(&s) { (s, key) throws(StateReader.Unusual) in
            if s.key(key, is: "session") {
                try StateReader.once(&session, try samples(&s))
            } else if s.key(key, is: "weekly") {
                try StateReader.once(&weekly, try samples(&s))
            } else {
                try StateReader.skip(&s)
            }
        }
        guard let session, let weekly else { throw StateReader.Unusual() }
        var windows = WindowHistory()
        windows.session = session
        windows.weekly = weekly
        return windows
    }

    private static func samples(_ s: inout JSONScanner) throws(StateReader.Unusual) -> [UsageSample] {
        try StateReader.array(&s) { (s) throws(StateReader.Unusual) in
            var at: Date?
            var usedPercent: Double?
            var resetsAt: Date??
            try StateReader.members(&s) { (s, key) throws(StateReader.Unusual) in
                if s.key(key, is: "at") {
                    try StateReader.once(&at, try StateReader.date(&s))
                } else if s.key(key, is: "usedPercent") {
                    try StateReader.once(&usedPercent, try StateReader.double(&s))
                } else if s.key(key, is: "resetsAt") {
                    try StateReader.once(
                        &resetsAt,
                        try StateReader.optional(&s) { (s) throws(StateReader.Unusual) in try StateReader.date(&s) })
                } else {
                    try StateReader.skip(&s)
                }
            }
            guard let at, let usedPercent else { throw StateReader.Unusual() }
            return UsageSample(at: at, usedPercent: usedPercent, resetsAt: resetsAt ?? nil)
        }
    }
}
