import Aggregator
import Portable
import Serialization
import Snapshots
import Stores
import TextSafety

/// A value of `status --json` that depends on the moment it is judged at, and what it is judged from.
/// Everything else in the document follows from the records alone.
/// The JSON writer of `status --json` and the documents beside it: its marks are the values that depend
/// on the moment.
typealias StatusJSONWriter = JSONWriter<MomentDependent>

enum MomentDependent: Equatable, Sendable {
    /// The document's `now`.
    case now
    /// Whether something last updated at `since` is stale (an account, a device).
    case stale(since: Date)
    /// A window's pace.
    case pace(usedPercent: Double, windowMinutes: Int?, resetsAt: Date?)

    static func pace(of window: WindowStatus) -> MomentDependent {
        .pace(usedPercent: window.usedPercent, windowMinutes: window.windowMinutes, resetsAt: window.resetsAt)
    }

    /// The value judged at `options.now`, written as `StatusReport` writes it.
    func write(judgedBy options: MergeOptions, to json: inout StatusJSONWriter) {
        switch self {
        case .now:
            json.date(options.now)
        case .stale(let since):
            json.bool(options.isStale(since: since))
        case .pace(let usedPercent, let windowMinutes, let resetsAt):
            StatusReport.write(
                Pace(usedPercent: usedPercent, windowMinutes: windowMinutes, resetsAt: resetsAt, now: options.now),
                at: options.now, to: &json)
        }
    }
}

/// The `status --json` document of a store that stays the same, with the values that depend on the
/// moment marked: a later run over the same records writes it out again with only those values judged
/// anew, instead of loading the merge memo and rendering the whole document (at a thousand records,
/// 2 MB of JSON and most of a warm run).
///
/// Kept in the cache folder beside the merge memo, sealed the same way, and standing for one merge
/// identity and one pair of filters. Only a run whose merge came from the memo saves one, so a store
/// that changes between runs never pays for it. What `status --json` prints never depends on it: tests
/// hold the filled-in document to a fresh rendering, byte for byte, at moments on both sides of every
/// change of staleness and pace.
struct StatusTemplate {
    /// What a document stands for: one merge, one pair of filters.
    struct Key: Equatable {
        var identity: MergeIdentity
        /// The `--provider` and `--account` filters the document was made with.
        var provider: String?
        var account: String?
        /// The merge's newest entry: past `maxSkew` ahead of `now` it is skewed, and the merge is another.
        var newestEntry: Date?
        /// The moments between which what the document judged by resets and dates stays the same (which
        /// windows are due, availability, the tightest window, today's figures): the reset or UTC midnight
        /// before the moment it was rendered at, and the first one after.
        var standsFrom: Date
        var standsUntil: Date

        /// Those moments for `result`, rendered at `result.now`.
        static func interval(of result: MergeResult) -> (from: Date, until: Date) {
            let now = result.now
            let day = 86_400.0
            var from = Date(timeIntervalSince1970: (now.timeIntervalSince1970 / day).rounded(.down) * day)
            var until = from.addingTimeInterval(day)
            for account in result.accounts {
                for (_, window) in account.windows {
                    guard let reset = window.resetsAt else { continue }
                    if reset <= now { from = max(from, reset) } else { until = min(until, reset) }
                }
            }
            return (from, until)
        }

        /// Whether a document of this key stands for a merge of `identity` with these filters, judged at
        /// `now`.
        func stands(for identity: MergeIdentity, provider: String?, account: String?, at now: Date) -> Bool {
            guard identity == self.identity, provider == self.provider, account == self.account else { return false }
            guard standsFrom <= now, now < standsUntil else { return false }
            return newestEntry.map { $0.timeIntervalSince(now) <= identity.maxSkew } ?? true
        }
    }

    let key: Key
    /// Where the document's moment-dependent values lie in it, in order, and what each is judged from:
    /// `markCount` records (`MarkRecords`) at `marks` in the mapped file, checked when it was loaded.
    private let marks: Range<Int>
    private let markCount: Int
    /// The file the template was loaded from, and where the document (without its final newline) lies.
    private let file: MappedFile
    private let document: Range<Int>

    /// Writes the document with its moment-dependent values judged by `options`, and a final newline.
    ///
    /// The values are rendered apart, on every core for a large document (a pace is a few divisions and
    /// three shortest-form doubles, thousands of times over), and go out in gathering writes with the
    /// document's own bytes between them taken from the mapped file: copying those into a buffer first was
    /// a tenth of a warm run at 10000 records.
    func write(judgedBy options: MergeOptions, to sink: any TextSink) {
        let bytes = UnsafeRawBufferPointer(rebasing: file.bytes[document])
        nonisolated(unsafe) let marks = UnsafeRawBufferPointer(rebasing: file.bytes[self.marks])
        let rendered = Parallel.mapRanges(markCount, minimumPerWorker: 1024) { range in
            var json = StatusJSONWriter(capacity: 256 + range.count * 160)
            var ends: [Int] = []
            ends.reserveCapacity(range.count)
            for index in range {
                let value = MarkRecords.mark(marks, index).value
                if case .pace = value {
                    // A pace judged a moment ago for the same figures is copied, not judged again.
                    json.pace(value) { value.write(judgedBy: options, to: &$0) }
                } else {
                    value.write(judgedBy: options, to: &json)
                }
                ends.append(json.byteCount)
            }
            return (json, ends)
        }
        // The pieces point into the rendered values: `rendered` stays alive until the last write is done.
        withExtendedLifetime(rendered) {
            let newline: StaticString = "\n"
            // Written a gathering write's worth of pieces at a time: a list of every piece (two for each of
            // thousands of values) was, with its copy into `iovec`s, a sixth of a warm run's page faults.
            let batch = Descriptor.maximumPieces
            var pieces: [UnsafeRawBufferPointer] = []
            pieces.reserveCapacity(batch)
            func add(_ piece: UnsafeRawBufferPointer) {
                pieces.append(piece)
                if pieces.count == batch {
                    sink.write(pieces: pieces)
                    pieces.removeAll(keepingCapacity: true)
                }
            }
            var next = 0
            var position = 0
            for (json, ends) in rendered {
                json.withBytes { values in
                    var start = 0
                    for end in ends {
                        let range = MarkRecords.range(marks, position)
                        add(UnsafeRawBufferPointer(rebasing: bytes[next..<range.lowerBound]))
                        add(UnsafeRawBufferPointer(rebasing: values[start..<end]))
                        next = range.upperBound
                        start = end
                        position += 1
                    }
                }
            }
            add(UnsafeRawBufferPointer(rebasing: bytes[next...]))
            add(UnsafeRawBufferPointer(start: newline.utf8Start, count: newline.utf8CodeUnitCount))
            if !pieces.isEmpty { sink.write(pieces: pieces) }
        }
    }

}

// MARK: The file

extension StatusTemplate {
    static let magic: [UInt8] = Array("AGGSTATS".utf8)
    /// Bump with any change to the file's layout or to what `StatusReport.status` writes: a kept
    /// document of the same aggctl version would otherwise be misread, or printed in the old form until
    /// the store changes. (2: marks as fixed-size records. 3: limits, due windows, availability, and the
    /// moments the document stands between.)
    static let format: UInt32 = 3

    /// Reads the template at `path`; nil when it is missing, damaged or from another aggctl, or when
    /// `accepting` turns its key away.
    ///
    /// The key is judged before anything else is checked: on a store that changes between runs, every
    /// run finds the document of an older state, and checking all of it first was a twentieth of the run.
    static func load(
        from path: String, readerVersion: String, accepting: (Key) -> Bool = { _ in true }
    ) -> StatusTemplate? {
        // Mapped, not read: the document goes from the page cache to the output without another copy.
        // Not mapped at all when its first bytes hold a key turned away (mapping populates every page:
        // 25 MB at 10000 records, for every run on a store that changed).
        let turnsAway = { (head: UnsafeRawBufferPointer) in
            (try? BinaryReader.peek(head, magic: magic, format: format, readerVersion: readerVersion) {
                try readKey(&$0, readerVersion: readerVersion)
            }).map { !accepting($0) } ?? false
        }
        guard let file = MappedFile(path: path, unless: turnsAway) else { return nil }
        return try? decode(file, readerVersion: readerVersion, accepting: accepting)
    }

    /// The key at the start of a template's content.
    private static func readKey(_ input: inout BinaryReader, readerVersion: String) throws -> Key {
        Key(
            identity: MergeIdentity(
                store: try input.string(), readerVersion: readerVersion, fingerprint: try input.u64(),
                staleAfter: try input.double(), maxSkew: try input.double()),
            provider: try input.optionalString(), account: try input.optionalString(),
            newestEntry: try input.optionalDate(), standsFrom: try input.date(), standsUntil: try input.date())
    }

    /// Keeps `document` (rendered without its final newline, `marks` where its moment-dependent values
    /// lie) for `key` at `path`: atomically, creating its folder, not flushed (a torn file fails its
    /// checksum and the next run renders afresh).
    static func save(
        _ document: UnsafeRawBufferPointer, marks: [StatusJSONWriter.MomentMark], key: Key, to path: String
    ) throws {
        var out = BinaryWriter(capacity: 1024 + document.count + marks.count * 40)
        out.header(magic: magic, format: format, readerVersion: key.identity.readerVersion)
        out.string(key.identity.store)
        out.u64(key.identity.fingerprint)
        out.double(key.identity.staleAfter)
        out.double(key.identity.maxSkew)
        out.optionalString(key.provider)
        out.optionalString(key.account)
        out.optionalDate(key.newestEntry)
        out.date(key.standsFrom)
        out.date(key.standsUntil)
        out.u64(UInt64(document.count))
        out.raw(document)
        out.u32(UInt32(marks.count))
        for mark in marks { MarkRecords.write(mark, to: &out) }
        try AtomicFile.writePrivate(out.sealed(), to: path)
    }

    static func decode(
        _ file: MappedFile, readerVersion: String, accepting: (Key) -> Bool = { _ in true }
    ) throws -> StatusTemplate {
        let template = try BinaryReader.readBeforeChecking(
            file.bytes, magic: magic, format: format, readerVersion: readerVersion
        ) { input in
            let key = try readKey(&input, readerVersion: readerVersion)
            // Read from unchecked bytes, so it may only turn the file away.
            guard accepting(key) else { throw BinaryReader.Corrupt() }
            let documentSize = Int(clamping: try input.u64())
            let documentStart = input.position
            _ = try input.take(documentSize)
            let count = Int(try input.u32())
            guard count <= documentSize else { throw BinaryReader.Corrupt() }
            let marksStart = input.position
            let records = try input.take(count * MarkRecords.size)
            // In order, inside the document and of known kinds, or the file is not one this code wrote.
            guard MarkRecords.areValid(records, count: count, documentSize: documentSize) else {
                throw BinaryReader.Corrupt()
            }
            return StatusTemplate(
                key: key, marks: marksStart..<(marksStart + records.count), markCount: count, file: file,
                document: documentStart..<(documentStart + documentSize))
        }
        // The two passes over the whole file, side by side on two cores: the checksum guards against
        // damage; the terminal check against a file changed on purpose (the document is written out as
        // it is, so nothing in it may act on a terminal). Nothing read above is used unless both pass.
        nonisolated(unsafe) let bytes = file.bytes
        nonisolated(unsafe) let document = UnsafeRawBufferPointer(rebasing: bytes[template.document])
        let passed = Parallel.mapRanges(2, minimumPerWorker: 1) { passes in
            passes.allSatisfy { $0 == 0 ? BinaryReader.hasIntactChecksum(bytes) : SafeText.isTerminalSafe(document) }
        }
        guard passed.allSatisfy({ $0 }) else { throw BinaryReader.Corrupt() }
        return template
    }
}
