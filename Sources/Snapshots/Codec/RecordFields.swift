import Portable
import Serialization

/// A record as stored, before validation: what the reader gives (`FastRecordDecoder`), what the writer
/// and the caches take (`RecordCodec.encode`, `BinaryWriter.snapshot`), and where validation and its
/// messages live. Its `schema`, with those of `ProviderUsage` and the types below it, is the record
/// format's one declaration (docs/format.md).
struct RecordFields: SchemaObject {
    var schemaVersion: Int?
    var deviceID: String?
    var deviceName: String?
    var appVersion: String?
    var generatedAt: Date
    var providers: ProviderEntries

    static let schema = Schema<RecordFields>([
        .field("schemaVersion", \.schemaVersion),
        .field("deviceID", \.deviceID),
        .field("deviceName", \.deviceName),
        .field("appVersion", \.appVersion),
        .field("generatedAt", \.generatedAt),
        .field("providers", \.providers),
    ])

    static var blank: RecordFields {
        RecordFields(generatedAt: Date(timeIntervalSince1970: 0), providers: ProviderEntries(valid: []))
    }

    init(
        schemaVersion: Int? = nil, deviceID: String? = nil, deviceName: String? = nil, appVersion: String? = nil,
        generatedAt: Date, providers: ProviderEntries
    ) {
        self.schemaVersion = schemaVersion
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.appVersion = appVersion
        self.generatedAt = generatedAt
        self.providers = providers
    }

    /// A valid record as it is stored.
    init(_ snapshot: DeviceSnapshot) {
        self.init(
            schemaVersion: snapshot.schemaVersion, deviceID: snapshot.deviceID.rawValue,
            deviceName: snapshot.deviceName, appVersion: snapshot.appVersion, generatedAt: snapshot.generatedAt,
            providers: ProviderEntries(valid: snapshot.providers))
    }

    struct EntryFailure: Error {
        var reason: String
    }

    /// Applies the schema's rules: a valid deviceID (the file name standing in for a missing one), a
    /// version of at least 1, normalised provider ids, and at least one usable provider.
    ///
    /// `dropped`: notes on values the reader left out for their shape (a window or a limit of the wrong
    /// shape goes, its entry stays), reported first, in order of their paths so both readers agree.
    consuming func validated(fileName: String, dropped: [String] = []) throws(RecordDecodingError) -> DecodedRecord {
        let schemaVersion = self.schemaVersion ?? 1
        guard schemaVersion >= 1 else {
            throw RecordDecodingError(reason: "schemaVersion \(schemaVersion) is not a valid version")
        }
        let rawID = deviceID ?? (fileName.hasSuffix(".json") ? String(fileName.dropLast(5)) : fileName)
        if let problem = DeviceID.problem(with: rawID) {
            throw RecordDecodingError(reason: "invalid deviceID '\(RecordCodec.printable(rawID))': \(problem)")
        }
        let id = DeviceID(alreadyValidated: rawID)

        var notes: [String] = dropped.sorted()
        if schemaVersion > DeviceSnapshot.currentSchemaVersion {
            notes.append(
                "schemaVersion \(schemaVersion) is newer than this reader's \(DeviceSnapshot.currentSchemaVersion); "
                    + "read the fields it knows")
        }
        var entries = providers.takeEntries()
        var usable: [ProviderUsage] = []
        usable.reserveCapacity(entries.count)
        // Each entry taken out of the array (its own: `self` is consumed) rather than copied from it: a copy
        // retained and released every text and list of the entry, twice.
        for index in entries.indices {
            var entry = Result<ProviderUsage, EntryFailure>.failure(EntryFailure(reason: ""))
            swap(&entry, &entries[index])
            switch consume entry {
            case .success(var provider):
                if !Self.isNormalProviderID(provider.providerID) {
                    provider.providerID = provider.providerID.trimmingBlanks().lowercased()
                }
                if let problem = ProviderUsage.problem(withProviderID: provider.providerID) {
                    notes.append("skipped providers[\(index)]: \(problem)")
                } else if let problem = Self.dateProblem(provider.lastUpdated, "lastUpdated") {
                    notes.append("skipped providers[\(index)]: \(problem)")
                } else {
                    Self.checkRanges(&provider, at: "providers[\(index)]", notes: &notes)
                    Self.foldModelWeekly(&provider)
                    Self.moveMonthFromWeekly(&provider)
                    Self.cleanHistory(&provider, at: "providers[\(index)]", notes: &notes)
                    usable.append(provider)
                }
            case .failure(let failure):
                notes.append("skipped providers[\(index)]: \(failure.reason)")
            }
        }
        guard !usable.isEmpty else {
            let why = notes.last(where: { $0.hasPrefix("skipped") }).map { " (\($0))" } ?? ""
            throw RecordDecodingError(reason: "no usable providers\(why)")
        }
        if let problem = Self.dateProblem(generatedAt, "generatedAt") { throw RecordDecodingError(reason: problem) }
        let name = deviceName.flatMap { $0.isEmpty ? nil : $0 } ?? id.rawValue
        let snapshot = DeviceSnapshot(
            schemaVersion: schemaVersion, deviceID: id, deviceName: name, appVersion: appVersion,
            generatedAt: generatedAt, providers: usable)
        return DecodedRecord(snapshot: snapshot, notes: notes)
    }

    // MARK: Ranges

    /// Dates a record may carry: a year 0000 or 9999 is a broken clock or a hostile record, and would
    /// make every age and pace meaningless.
    static let plausibleDates = RFC3339.parse("2000-01-01T00:00:00Z")!...RFC3339.parse("2200-01-01T00:00:00Z")!

    static func dateProblem(_ date: Date, _ field: String) -> String? {
        plausibleDates.contains(date) ? nil : "\(field) \(RFC3339.format(date)) is out of range (2000...2200)"
    }

    /// Reports, and where the schema allows drops, the values of an entry outside their range: a used
    /// percent outside 0...100 is reported (the merge clamps the remaining percent); a
    /// window length that is not positive, a reset time out of range, negative tokens or cost are
    /// dropped. One note each, naming the field.
    ///
    /// Paths are written only into notes: every entry of every record passes here, and building them
    /// all was a fifth of reading a record.
    /// Notes are appended to `notes` (most entries have none: an array returned for each cost more
    /// than the checks).
    static func checkRanges(
        _ entry: inout ProviderUsage, at prefix: @autoclosure () -> String, notes: inout [String]
    ) {
        func window(_ window: inout UsageWindow, _ path: @autoclosure () -> String) {
            if !(0...100).contains(window.usedPercent) {
                notes.append("\(path()).usedPercent \(window.usedPercent) is outside 0...100; remaining clamped")
            }
            if let minutes = window.windowMinutes, minutes <= 0 {
                notes.append("\(path()).windowMinutes \(minutes) is not a positive length; ignored")
                window.windowMinutes = nil
            }
            if let resetsAt = window.resetsAt, !plausibleDates.contains(resetsAt),
                let problem = dateProblem(resetsAt, "\(path()).resetsAt")
            {
                notes.append(problem + "; ignored")
                window.resetsAt = nil
            }
        }
        if entry.session != nil { window(&entry.session!, "\(prefix()).session") }
        if entry.weekly != nil { window(&entry.weekly!, "\(prefix()).weekly") }
        if let models = entry.modelWeekly {
            for index in models.indices {
                window(&entry.modelWeekly![index].window, "\(prefix()).modelWeekly[\(index)].window")
            }
        }
        func negative(_ value: Int?, _ path: @autoclosure () -> String) -> Int? {
            guard let value, value < 0 else { return value }
            notes.append("\(path()) \(value) is negative; ignored")
            return nil
        }
        func negative(_ value: Double?, _ path: @autoclosure () -> String) -> Double? {
            guard let value, value < 0 else { return value }
            notes.append("\(path()) \(value) is negative; ignored")
            return nil
        }
        if let limits = entry.limits {
            // A limit may report overage (above 100); below 0 is no figure of one. Paths are made only
            // for notes, as above.
            var kept: [Limit] = []
            kept.reserveCapacity(limits.count)
            // A set, not a search of `kept`: a record of 100 000 limits took every reader eight minutes.
            var ids = Set<String>(minimumCapacity: limits.count)
            for (index, var limit) in limits.enumerated() {
                func path() -> String { "\(prefix()).limits[\(index)]" }
                if !Limit.isPlainID(limit.id), let problem = Limit.problem(withID: limit.id) {
                    notes.append("skipped \(path()): \(problem)")
                    continue
                }
                if !ids.insert(limit.id).inserted {
                    notes.append("skipped \(path()): the id '\(limit.id)' is given twice; the first stands")
                    continue
                }
                if limit.usedPercent < 0 || (limit.windowMinutes ?? 1) <= 0
                    || !(limit.resetsAt.map(plausibleDates.contains) ?? true)
                {
                    var figures = limit.window
                    figures.usedPercent = min(figures.usedPercent, 100)
                    window(&figures, path())
                    limit.windowMinutes = figures.windowMinutes
                    limit.resetsAt = figures.resetsAt
                }
                if (limit.used ?? 0) < 0 { limit.used = negative(limit.used, "\(path()).used") }
                if (limit.limit ?? 0) < 0 { limit.limit = negative(limit.limit, "\(path()).limit") }
                kept.append(limit)
            }
            entry.limits = kept.isEmpty ? nil : kept
        }
        if entry.tokens != nil {
            entry.tokens!.today = negative(entry.tokens!.today, "\(prefix()).tokens.today")
            entry.tokens!.last30Days = negative(entry.tokens!.last30Days, "\(prefix()).tokens.last30Days")
        }
        if entry.costUSD != nil {
            entry.costUSD!.today = negative(entry.costUSD!.today, "\(prefix()).costUSD.today")
            entry.costUSD!.last30Days = negative(entry.costUSD!.last30Days, "\(prefix()).costUSD.last30Days")
        }
    }

    /// A `weekly` window longer than two weeks, as publishers before version 2 wrote a monthly quota
    /// (Copilot's premium requests): the limit it is, `quota-monthly`, binding. `weekly` is the all-model
    /// week, never a month.
    static func moveMonthFromWeekly(_ entry: inout ProviderUsage) {
        guard let weekly = entry.weekly, let minutes = weekly.windowMinutes, minutes > 14 * 1440 else { return }
        var limits = entry.limits ?? []
        if !limits.contains(where: { $0.id == "quota-monthly" }) {
            limits.append(
                Limit(
                    id: "quota-monthly", label: "Monthly quota", windowMinutes: minutes,
                    usedPercent: weekly.usedPercent, resetsAt: weekly.resetsAt, binding: true))
        }
        entry.limits = limits
        entry.weekly = nil
        entry.weeklySamples = nil
        entry.weeklyTrend = nil
    }

    /// An older record's per-model weeks as the limits they stand for (`Limit(modelWeekly:)`), unless the
    /// entry has a limit of that id already: readers past version 1 see one list.
    static func foldModelWeekly(_ entry: inout ProviderUsage) {
        guard let models = entry.modelWeekly else { return }
        var limits = entry.limits ?? []
        for model in models {
            let limit = Limit(modelWeekly: model)
            if !limits.contains(where: { $0.id == limit.id }) { limits.append(limit) }
        }
        entry.limits = limits.isEmpty ? nil : limits
        entry.modelWeekly = nil
    }

    /// Already lowercase `[a-z0-9-]`: the common case, which needs no new string.
    private static func isNormalProviderID(_ id: String) -> Bool {
        !id.isEmpty && ProviderUsage.problem(withProviderID: id) == nil
    }
}

/// The `providers` list: each entry read alone, so that one bad entry is skipped with a note instead of
/// refusing the record. Entries of a valid record (being written, or kept in a cache) are all usable,
/// and are held as they are.
struct ProviderEntries: SchemaValue {
    private enum Storage {
        case read([Result<ProviderUsage, RecordFields.EntryFailure>])
        case valid([ProviderUsage])
    }

    private var storage: Storage

    init(valid: [ProviderUsage]) {
        storage = .valid(valid)
    }

    /// Each entry as read, or why it could not be.
    var entries: [Result<ProviderUsage, RecordFields.EntryFailure>] {
        switch storage {
        case .read(let entries): entries
        case .valid(let providers): providers.map { .success($0) }
        }
    }

    /// The entries, left empty here: the array taken is then the only reference to its storage, and is
    /// changed in place.
    mutating func takeEntries() -> [Result<ProviderUsage, RecordFields.EntryFailure>] {
        let taken = storage
        storage = .valid([])
        switch taken {
        case .read(let entries): return entries
        case .valid(let providers): return providers.map { .success($0) }
        }
    }

    /// The entries that were read; the caches keep only valid records, whose entries all were.
    var usable: [ProviderUsage] {
        switch storage {
        case .read(let entries): entries.compactMap { try? $0.get() }
        case .valid(let providers): providers
        }
    }

    static func read(_ s: inout JSONScanner, _ history: HistoryDetail) throws(FastRecordDecoder.Failure) -> Self {
        var entries: [Result<ProviderUsage, RecordFields.EntryFailure>] = []
        try FastRecordDecoder.array(&s) { (s, index) throws(FastRecordDecoder.Failure) in
            let mark = (index: s.index, depth: s.depth)
            let droppedBefore = s.readerNotes.count
            do throws(FastRecordDecoder.Failure) {
                entries.append(.success(try ProviderUsage.read(&s, history)))
                for position in droppedBefore..<s.readerNotes.count {
                    guard let value = s.readerNotes[position] as? FastRecordDecoder.DroppedValue else { continue }
                    s.readerNotes[position] = value.prefixed(.index(index)).prefixed(.key("providers"))
                }
            } catch let failure {
                guard case .schema(let error) = failure else { throw failure }
                // A skipped entry is reported once, as skipped: what it left out goes with it.
                s.readerNotes.removeSubrange(droppedBefore...)
                s.index = mark.index
                s.depth = mark.depth
                try FastRecordDecoder.skip(&s)
                let located = error.prefixed(.index(index)).prefixed(.key("providers"))
                entries.append(.failure(RecordFields.EntryFailure(reason: located.reason)))
            }
        }
        return ProviderEntries(read: entries)
    }

    init(read entries: [Result<ProviderUsage, RecordFields.EntryFailure>]) {
        storage = .read(entries)
    }

    func write(to json: inout RecordJSON) throws { try usable.write(to: &json) }
    func keep(in out: inout BinaryWriter) { usable.keep(in: &out) }
    static func restore(from reader: inout BinaryReader) throws -> Self {
        ProviderEntries(valid: try [ProviderUsage].restore(from: &reader))
    }
}
