import Dispatch
import Portable
import Serialization
import Snapshots
import TextSafety

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension RecordStore {
    /// Reads and decodes every record; a record that cannot be used becomes a problem, never an error.
    ///
    /// When two files claim the same `deviceID`, the one named after it is used and the other is reported;
    /// when none is, the first by file name is used. Records are returned sorted by file name, so the
    /// result does not depend on the order the store lists them in.
    /// - Throws: `StoreError` only when the store itself cannot be listed.
    public func readContents() throws -> StoreContents {
        var cache: ParseCache? = nil
        return try readContents(cache: &cache, now: Date())
    }

    /// Reads the store, taking unchanged records from `cache` and updating it with what was read.
    ///
    /// - Parameter now: the real time, for judging whether a record changed too recently to be cached.
    public func readContents(cache: inout ParseCache?, now: Date) throws -> StoreContents {
        readContents(listing: try listRecords().sortedByName(), cache: &cache, now: now)
    }

    /// Reads the records of `listing` (from `listRecords`), taking unchanged ones from `cache`.
    ///
    /// - Parameter history: how much of the records' history to keep. The parse cache holds records
    ///   without samples, so a `.full` read neither uses nor updates it; a cache given for a `.trend`
    ///   read must be one made by `.trend` reads.
    public func readContents(
        listing: [RecordInfo], cache: inout ParseCache?, now: Date, history: HistoryDetail = .skip
    ) -> StoreContents {
        var listing = listing.sortedByName()
        if history == .full {
            let reads = readRecords(listing, history: .full)
            var contents = assemble(listing, reads.map(\.outcome))
            contents.isFinal = reads.allSatisfy(\.isVerdict)
            return contents
        }
        var outcomes: [Result<DecodedRecord, RecordProblem>?] = listing.map { cache?.outcome(for: $0) }
        let missing = outcomes.indices.filter { outcomes[$0] == nil }
        var isFinal = true
        if !missing.isEmpty {
            for (index, read) in zip(missing, readRecords(missing.map { listing[$0] }, history: history)) {
                outcomes[index] = read.outcome
                // A record listed unexamined is cached under the version of the bytes that were read.
                if listing[index].version == nil, let examined = read.examined { listing[index] = examined }
                // An outcome that says nothing about the record as it is (a cut body, a timeout) is not
                // kept: cached under the record's version, it stood until the record changed.
                if !read.isVerdict {
                    listing[index].version = nil
                    isFinal = false
                }
            }
        }
        let resolved = outcomes.map { $0! }
        cache?.update(listing, resolved, read: missing, now: now)
        var contents = assemble(listing, resolved)
        contents.isFinal = isFinal
        return contents
    }

    private func assemble(_ listing: [RecordInfo], _ outcomes: [Result<DecodedRecord, RecordProblem>]) -> StoreContents
    {
        var contents = StoreContents()
        var decoded: [StoredRecord] = []
        decoded.reserveCapacity(listing.count)
        for (info, outcome) in zip(listing, outcomes) {
            switch outcome {
            case .success(let record):
                decoded.append(StoredRecord(fileName: info.name, snapshot: record.snapshot))
                contents.problems += record.notes.map { RecordProblem(file: info.name, reason: $0) }
            case .failure(let problem):
                contents.problems.append(problem)
            }
        }

        // `decoded` is in file-name order already (the listing was sorted); only claims of one deviceID by
        // several files need resolving, keeping that order. Files of distinct names, each named by its
        // own record's id (as every publisher names them), cannot share an id: then there is nothing to
        // resolve, and no table of every id is built. (Sorted, a name listed twice would be side by side.)
        let namedByTheirIDs = decoded.indices.allSatisfy { index in
            Self.isNamed(decoded[index].fileName, by: decoded[index].snapshot.deviceID)
                && (index == 0 || decoded[index - 1].fileName != decoded[index].fileName)
        }
        contents.records = namedByTheirIDs ? decoded : resolvingClaims(decoded, problems: &contents.problems)
        contents.problems.sort { ($0.file, $0.reason) < ($1.file, $1.reason) }
        return contents
    }

    /// `decoded` without the records whose deviceID an earlier file (or the file named by it) claims,
    /// each one dropped noted in `problems`.
    private func resolvingClaims(_ decoded: [StoredRecord], problems: inout [RecordProblem]) -> [StoredRecord] {
        // The winner of each id first (the file named after it, else the first by name), so that every
        // other claimant is told the file that is read in the end: decided as files came, a third
        // claimant was told of a file that was then dropped itself.
        var winner: [DeviceID: Int] = [:]
        winner.reserveCapacity(decoded.count)
        for (index, record) in decoded.enumerated() {
            let id = record.snapshot.deviceID
            guard let earlier = winner[id] else {
                winner[id] = index
                continue
            }
            if record.fileName == id.recordName && decoded[earlier].fileName != id.recordName { winner[id] = index }
        }
        var kept: [StoredRecord] = []
        kept.reserveCapacity(winner.count)
        for (index, record) in decoded.enumerated() {
            let id = record.snapshot.deviceID
            guard let keep = winner[id], keep != index else {
                kept.append(record)
                continue
            }
            problems.append(
                RecordProblem(
                    file: record.fileName,
                    reason: "claims deviceID '\(id)', already read from '\(decoded[keep].fileName)'; ignored"))
        }
        return kept
    }

    /// Whether `fileName` is `id.recordName`, compared on bytes without making that name (false when
    /// either text is not contiguous, which only costs the table).
    private static func isNamed(_ fileName: String, by id: DeviceID) -> Bool {
        fileName.utf8.withContiguousStorageIfAvailable { name in
            id.rawValue.utf8.withContiguousStorageIfAvailable { raw in
                guard name.count == raw.count + 5, let named = name.baseAddress, let own = raw.baseAddress else {
                    return false
                }
                return memcmp(named, own, raw.count) == 0 && memcmp(named + raw.count, ".json", 5) == 0
            } ?? false
        } ?? false
    }
}

extension RecordStore {
    /// Reads and decodes `listing` on every core; one outcome per entry, in the listing's order, with the
    /// record as the store examined it in reading it (`RecordBuffer.examined`).
    ///
    /// Short of `.full`, history (samples, `tokens.daily`) is validated but not kept: most reports never
    /// need it, and it is most of a record's bytes, so memory stays proportional to what is used.
    func readRecords(_ listing: [RecordInfo], history: HistoryDetail) -> [RecordRead] {
        let count = listing.count
        let slots = UnsafeMutableBufferPointer<RecordRead?>.allocate(capacity: count)
        slots.initialize(repeating: nil)
        // Deinitialized first: freeing the buffer alone leaked every decoded record it held.
        defer {
            slots.deinitialize()
            slots.deallocate()
        }
        // Each worker claims the next record under a lock and writes only that record's slot, so workers
        // share nothing else; each keeps one read buffer, and the shapes of the histories it met, for all
        // the records it reads.
        nonisolated(unsafe) let shared = slots
        let next = NextIndex()
        let workers = max(1, min(count, traits.readParallelism))
        // A store that asks for more readers than there are cores waits on a server: `perform` gives each
        // a thread of its own.
        Parallel.perform(workers) { _ in
            var buffer = RecordBuffer()
            defer { buffer.deallocate() }
            let shapes = JSONScanner.ShapeMemory()
            while let index = next.claim(below: count) {
                let (outcome, isVerdict) = readRecord(listing[index], history: history, into: &buffer, shapes: shapes)
                shared[index] = RecordRead(outcome: outcome, examined: buffer.examined, isVerdict: isVerdict)
            }
        }
        return slots.map { $0! }
    }

    /// Reads and decodes one record, again after a short pause when the store says a failure may be a
    /// read that met a replacement half way (`traits.rereadsOfFailedRecords`).
    private func readRecord(
        _ info: RecordInfo, history: HistoryDetail, into buffer: inout RecordBuffer, shapes: JSONScanner.ShapeMemory
    ) -> (Result<DecodedRecord, RecordProblem>, isVerdict: Bool) {
        var read = readRecordOnce(info, history: history, into: &buffer, shapes: shapes)
        var rereads = 0
        while case .failure = read.outcome, read.worthRereading, rereads < traits.rereadsOfFailedRecords {
            rereads += 1
            usleep(UInt32(20_000 << (rereads - 1)))  // 20, 40, 80, ... ms
            read = readRecordOnce(info, history: history, into: &buffer, shapes: shapes)
        }
        return (read.outcome, read.isVerdict)
    }

    /// One read; on failure, also whether a replacement in flight may explain it (a torn body that did not
    /// decode, a record briefly gone or refused mid-replace), which is what rereads are for; and whether
    /// the outcome is a verdict on the record as listed, which a cache may keep under its version.
    ///
    /// Only a complete body is judged: a body shorter than the listing gave was cut short in transit (a
    /// proxy that ends a body sent without a length, which curl takes as its end) or belongs to a
    /// replacement written since the listing. Neither is the listed version's verdict, and a failed read
    /// (a timeout, a reset) is none either. A longer one is whole: stored compressed, and decoded.
    private func readRecordOnce(
        _ info: RecordInfo, history: HistoryDetail, into buffer: inout RecordBuffer, shapes: JSONScanner.ShapeMemory
    ) -> (outcome: Result<DecodedRecord, RecordProblem>, worthRereading: Bool, isVerdict: Bool) {
        let size: Int
        buffer.note = nil
        do {
            size = try readRecord(named: info.name, maximumSize: RecordCodec.maximumRecordSize, into: &buffer)
        } catch let error as StoreError {
            let problem = RecordProblem(file: info.name, reason: error.reasonForProblem)
            return (.failure(problem), error.mayPassOnReread, error.isVerdictOnRecord)
        } catch {
            return (.failure(RecordProblem(file: info.name, reason: "\(error)")), false, false)
        }
        // Short of the listed size is cut; more is whole (a body the server sent compressed and libcurl
        // decoded, or a replacement written since the listing).
        let complete = info.size.map { Int64(size) >= $0 } ?? true
        let bytes = UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<size])
        do {
            var record = try FastRecordDecoder.decode(bytes, fileName: info.name, history: history, shapes: shapes)
            if let note = buffer.note { record.notes.append(note) }
            return (.success(record), false, complete)
        } catch {
            // A sealed record read without keys: say so, rather than what its envelope lacks of a record.
            if complete, SealedRecordMark.appears(in: bytes) {
                // Which key, as the record names it (docs/privacy.md), so that the right file can be found.
                let named = SealedRecordMark.keyID(in: bytes).map { " for key \(SafeText.line($0, limit: 64))" } ?? ""
                let reason = "encrypted\(named); give its store's key with --key-file"
                return (.failure(RecordProblem(file: info.name, reason: reason)), false, true)
            }
            guard complete else {
                let listed = info.size ?? 0
                let reason = "\(size) of the \(listed) bytes listed arrived (\(error.reason)); read again next run"
                return (.failure(RecordProblem(file: info.name, reason: reason)), true, false)
            }
            return (.failure(RecordProblem(file: info.name, reason: error.reason)), true, true)
        }
    }
}

/// One record's read: its outcome, the record as the store examined it in reading it
/// (`RecordBuffer.examined`), and whether the outcome judges the record as listed (else it is not cached).
struct RecordRead {
    var outcome: Result<DecodedRecord, RecordProblem>
    var examined: RecordInfo?
    var isVerdict: Bool
}

/// A shared counter handing out indices once each.
private final class NextIndex: @unchecked Sendable {
    private let lock = Lock()
    private var value = 0

    func claim(below limit: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard value < limit else { return nil }
        value += 1
        return value - 1
    }
}
