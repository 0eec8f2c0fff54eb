import Foundation

@testable import AggctlCLI
@testable import Aggregator
@testable import Collectors
@testable import Notify
@testable import Portable
@testable import Privacy
@testable import Serialization
@testable import Snapshots
@testable import Stores
@testable import TextSafety

/// One libFuzzer entry point for every parser of outside input; `AGGCTL_FUZZ_TARGET` picks the parser:
///
/// - `record`: the fast record reader, with Foundation's decoder as the oracle: whatever the fast reader
///   accepts, Foundation must accept as the same record (the fast reader may be stricter, never laxer);
///   the reader that keeps only the weekly trend (`status`'s table) on the same bytes; arrays skipped
///   by their repeated shape against the plain loop; and the CPU time of each skip and read, bounded by
///   the input's size (linear, whatever its shape).
/// - `input`: `publish --from` input (aggctl's shapes and CodexBar's); what it accepts must make a record
///   that reads back and writes back to the same bytes, the bytes Foundation's encoder writes.
/// - `listing`: a WebDAV PROPFIND answer.
/// - `s3-listing`: an S3 `ListObjectsV2` page or error answer.
/// - `codex-line`, `claude-line`: one line of the agents' logs.
/// - `caches`: the parse cache, the merge memo, the folder's names memo, the collectors' scan states and
///   the report's kept daily bars,
///   from content sealed with a valid checksum (a kept file is never trusted: whatever its bytes, it decodes or is refused, and what
///   decodes writes back to what reads back).
/// - `pipeline`: a record that decodes, merged as two devices' at moments around its own dates, and every
///   output a user sees rendered from the merge (`status --json`, the table in colour and in ASCII, the
///   status bars, the Prometheus text, the report page, `check`'s notifications): hostile but valid figures
///   must not trap anywhere, and the plain table and the notifications must carry no control character.
/// - `usage-answer`: a usage endpoint's answer (Claude's `/api/oauth/usage`, Codex's `wham/usage`,
///   Copilot's `copilot_internal/user`) read by each of the three, and what each makes must pass the
///   record's admission without trapping (the Copilot reader once force-unwrapped a zone).
/// - `tzif`: a time zone file (RFC 8536) and the POSIX rule of its footer, or the bytes as a `TZ`
///   rule: what parses must answer any instant, both ways, without trapping, with an offset in range.
/// - `ledger`: `check`'s ledger document read and written back through the alert state's quick writer.
/// - `envelope`: a sealed record's envelope, with Foundation's decoder as the oracle for its members (the
///   scanner may be stricter, never laxer), opened under a fixed key that the seeds were sealed with, so that
///   mutations reach the cipher: what opens must open to what sealing the same bytes again opens to.
/// - `history`: `publish`'s history read straight from its bytes (`StateReader`), with Foundation's
///   decoder as the oracle: what the quick reader
///   accepts, Foundation reads to the same.
///
/// A crash, a trap or an address-sanitizer report is a finding; libFuzzer writes the input to a file.
let target = ProcessInfo.processInfo.environment["AGGCTL_FUZZ_TARGET"] ?? "record"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count)
    switch target {
    case "ledger-month":
        // A ledger month read as hostile: refused or read, never a trap; what is read writes back to
        // the same month.
        let device = DeviceID(rawValue: "fuzz")!
        if let read = try? LedgerCodec.decode(bytes, deviceID: device, month: "2026-12"),
            let written = try? LedgerCodec.encode(read.ledger)
        {
            let again = written.withUnsafeBytes { try? LedgerCodec.decode($0, deviceID: device, month: "2026-12") }
            guard again?.ledger == read.ledger, again?.notes.isEmpty == true else {
                fatalError("a ledger month written back does not read back the same")
            }
        }
    case "record":
        // Arrays skipped by their repeated shape against the plain loop: the same verdict, end and error byte;
        // also a second time with the shapes the first pass kept (as a read worker's next record finds
        // them), so that kept shapes meet arrays from their first element on. Deterministic per input.
        // Each skip, and a whole read, in time linear in the input's size whatever its shape: a 543-byte
        // record of nested arrays once held every reader of a store for minutes, and a fuzzer that only
        // waits for a crash calls that a pass. The bound is generous for the instrumented build (50 ms and
        // 50 µs a byte: 3.3 s for 64 KiB), far below anything quadratic in 64 KiB.
        func linear<Result>(_ what: String, _ work: () -> Result) -> Result {
            let started = threadTime()
            let result = work()
            let spent = threadTime() - started
            guard spent < 0.05 + Double(bytes.count) * 50e-6 else {
                fatalError("\(what) of \(bytes.count) bytes took \(spent) s of CPU: not linear in its size")
            }
            return result
        }
        func skipped(_ shapes: Bool, memory: JSONScanner.ShapeMemory? = nil) -> Int {
            linear(shapes ? "the shape skip" : "the plain skip") {
                var scanner = JSONScanner(bytes)
                scanner.shapeMemory = memory
                do throws(JSONSyntaxError) {
                    try scanner.skipValue(repeatedShapes: shapes)
                    return scanner.index
                } catch {
                    return -1 - error.offset
                }
            }
        }
        let plain = skipped(false)
        let kept = JSONScanner.ShapeMemory()
        guard skipped(true, memory: kept) == plain else { fatalError("the shape skip and the plain loop disagree") }
        guard skipped(true, memory: kept) == plain else {
            fatalError("the shape skip with the shapes it kept and the plain loop disagree")
        }
        _ = linear("a record's read") { try? FastRecordDecoder.decode(bytes, fileName: "fuzz.json") }
        if var fast = try? FastRecordDecoder.decode(bytes, fileName: "fuzz.json") {
            guard let reference = try? RecordCodec.decodeWithFoundation(Data(bytes), fileName: "fuzz.json") else {
                fatalError("the fast reader accepted a record Foundation rejects")
            }
            // The one deliberate difference in words: "out of range" where Foundation says "not valid JSON".
            fast.notes = fast.notes.map {
                $0.replacingOccurrences(
                    of: #"'[^']*' is (out of range|not a whole number)"#, with: "not valid JSON",
                    options: .regularExpression)
            }
            guard reference == fast else { fatalError("the two readers disagree on an accepted record") }
            // A reader keeping only the weekly trend validates less, so it accepts at least as much.
            guard (try? FastRecordDecoder.decode(bytes, fileName: "fuzz.json", history: .trend)) != nil else {
                fatalError("the trend reader rejected a record the full reader accepts")
            }
        } else {
            _ = try? FastRecordDecoder.decode(bytes, fileName: "fuzz.json", history: .trend)
        }
    case "input":
        let now = Date(timeIntervalSince1970: 1_796_040_000)
        // No entries: publish refuses to write ("nothing to publish").
        guard let providers = try? UsageInput.providers(from: Data(bytes), now: now), !providers.isEmpty else { break }
        // What `publish` writes from input it accepts is a record every reader accepts, written back to
        // the same bytes, and the same bytes Foundation's encoder writes.
        let snapshot = DeviceSnapshot(
            deviceID: DeviceID(rawValue: "fuzz")!, deviceName: "fuzz", appVersion: "fuzz", generatedAt: now,
            providers: providers)
        guard let written = try? RecordCodec.encode(snapshot, pretty: false) else {
            fatalError("publish cannot write a record of input it accepted")
        }
        guard let read = try? RecordCodec.decode(written, fileName: "fuzz.json") else {
            fatalError("publish wrote a record its reader refuses")
        }
        guard (try? RecordCodec.encode(read.snapshot, pretty: false)) == written else {
            fatalError("a record written and read back writes other bytes")
        }
        guard (try? RecordCodec.encodeWithFoundation(snapshot)) == written else {
            fatalError("the record writer and Foundation's encoder write other bytes")
        }
    case "listing":
        _ = try? WebDAVListing(parsing: Data(bytes))
    case "s3-listing":
        _ = try? S3ListingPage(parsing: Data(bytes))
        _ = S3ErrorDocument(parsing: Data(bytes))
    case "codex-line":
        _ = CodexEventDecoder.decode(bytes)
        // Counted as a run counts it: the line as a log of its own, twice (two files, per-day sums added),
        // and once as a fork of the other.
        let scan = CodexCollector.scan(bytes: bytes)
        var fork = scan
        fork.parentID = "a"
        _ = CodexCollector.combine([
            ("rollout-2026-01-01T00-00-00-a.jsonl", scan), ("rollout-2026-01-01T00-00-00-b.jsonl", fork),
        ])
    case "claude-line":
        _ = ClaudeEventDecoder.decode(bytes)
        _ = ClaudeEventDecoder.decodeProgress(bytes)
        // The limit messages' reset times in words, and the scan that finds them.
        // In a zone with daylight time, so that skipped and repeated hours are met.
        let zones = Zones(local: ZoneInfo.named("America/Los_Angeles") ?? .utc)
        _ = LimitTimeText.time(
            in: String(decoding: bytes, as: UTF8.self), after: ["resets ", "reset at ", "try again at "],
            messageAt: Date(timeIntervalSince1970: 1_796_040_000), zones: zones)
        var file = ClaudeCollector.FileScan()
        file.read(bytes, reading: LogReading(zones: zones))
        // Counted as a run counts it (per-day sums of hostile counts).
        var scan = ClaudeCollector.Scan()
        scan.add(file)
    case "usage-answer":
        guard let json = JSONValue.parse(bytes) else { break }
        let now = Date(timeIntervalSince1970: 1_796_040_000)
        let known = ProviderUsage(providerID: "fuzz", lastUpdated: now)
        let made = [
            ClaudeUsageEndpoint.figures(json, onto: known), CodexUsageEndpoint.figures(json, onto: known),
            CopilotUsageEndpoint.figures(json, onto: known, now: now),
        ]
        for entry in made.compactMap({ $0 }) {
            let admitted = entry.admitted(source: "fuzz", now: now).entry
            if let used = admitted.session?.usedPercent, !used.isFinite { fatalError("admitted \(used)") }
            _ = try? RecordCodec.encode(
                DeviceSnapshot(
                    deviceID: DeviceID(rawValue: "fuzz")!, deviceName: "fuzz", generatedAt: now, providers: [admitted]))
        }
    case "tzif":
        let zones =
            [(try? ZoneInfo.parse(Array(bytes), identifier: "fuzz"))]
            + [
                PosixZoneRule.parse(String(decoding: bytes, as: UTF8.self)).map {
                    ZoneInfo.posix($0, identifier: "fuzz")
                }
            ]
        for zone in zones.compactMap({ $0 }) {
            for seconds: Int64 in [-(1 << 40), -1, 0, 1_796_040_000, 4_102_444_800, 1 << 40] {
                let offset = zone.offset(atUTC: seconds)
                // RFC 8536 offsets are within 26 hours, a POSIX rule's within 25 plus its daylight hour.
                guard abs(offset) <= 26 * 3600 else { fatalError("an offset of \(offset) s") }
                _ = zone.utcSeconds(of: zone.civilTime(atUTC: seconds))
            }
        }
    case "ledger":
        // `check`'s ledger: read by Foundation's decoder (its one reader), written back by the quick
        // writer of the alert state, which must read back, and write again to the same bytes (dates are
        // kept to the millisecond, so a finer one read changes once, in the first write).
        let decoder = RecordCodec.makeDecoder()
        if let document = try? decoder.decode(LedgerDocument<AlertState>.self, from: Data(bytes)),
            let written = try? document.encoded()
        {
            guard let again = try? decoder.decode(LedgerDocument<AlertState>.self, from: written) else {
                fatalError("the ledger's writer wrote what its reader rejects")
            }
            guard (try? again.encoded()) == written else {
                fatalError("the ledger's document changed through a second write and read")
            }
        }
    case "envelope":
        fuzzEnvelope(bytes)
    case "history":
        if let quick = LocalHistory.quickly(from: bytes) {
            guard let reference = try? RecordCodec.makeDecoder().decode(LocalHistory.self, from: Data(bytes)) else {
                fatalError("the quick history reader accepted what Foundation rejects")
            }
            guard reference == quick else { fatalError("the quick history reader and Foundation disagree") }
        }
    case "caches":
        // Behind the checksum: the input is a kept file's content after its store's name, sealed as
        // aggctl seals its files, so that mutations reach the decoders instead of failing the checksum.
        // What decodes must write back to bytes that decode and write back to the same bytes.
        func sealed(_ magic: [UInt8], _ format: UInt32, store: String? = "fuzz-store") -> Data {
            var out = BinaryWriter(capacity: bytes.count + 64)
            out.header(magic: magic, format: format, readerVersion: "fuzz")
            if let store { out.string(store) }
            out.raw(bytes)
            return out.sealed()
        }
        // The collectors' scan states (no store's name: they are kept per agent and log folder).
        func scanState<Partial: LogScanPartial>(_: Partial.Type) {
            _ = try? LogScanState<Partial>().decode(
                sealed(Array(Partial.magic.utf8), LogScanState<Partial>.format, store: nil), readerVersion: "fuzz")
        }
        scanState(CodexCollector.Scan.self)
        scanState(ClaudeCollector.FileScan.self)
        scanState(GeminiCollector.Scan.self)
        func parseCache(_ data: Data) -> ParseCache? {
            try? ParseCache.decode(data, store: "fuzz-store", readerVersion: "fuzz")
        }
        if var cache = parseCache(sealed(ParseCache.magic, ParseCache.format)) {
            // Written back with its chunks copied as read, and encoded afresh.
            guard parseCache(cache.encode())?.knownNames == cache.knownNames else {
                fatalError("a parse cache written back with its chunks as read does not read back")
            }
            cache.loaded = nil
            cache.intactChunks = []
            guard parseCache(cache.encode())?.knownNames == cache.knownNames else {
                fatalError("a parse cache encoded afresh does not read back")
            }
        }
        func mergeMemo(_ data: Data) -> MergeMemo? {
            try? MergeMemo.decode(data, store: "fuzz-store", readerVersion: "fuzz")
        }
        if let memo = mergeMemo(sealed(MergeMemo.magic, MergeMemo.format)) {
            let written = memo.encode()
            guard let again = mergeMemo(written), again.encode() == written else {
                fatalError("a merge memo written back does not read back to the same bytes")
            }
        }
        func listingMemo(_ data: Data) -> ListingMemo? {
            try? ListingMemo.decode(data, store: "fuzz-store", readerVersion: "fuzz")
        }
        if let names = listingMemo(sealed(ListingMemo.magic, ListingMemo.format)) {
            guard listingMemo(names.encode(readerVersion: "fuzz")) == names else {
                fatalError("a listing memo written back does not read back")
            }
        }
    case "pipeline":
        guard let record = try? FastRecordDecoder.decode(bytes, fileName: "fuzz.json", history: .full) else { break }
        var copy = record.snapshot
        copy.deviceID = DeviceID(rawValue: "fuzz-copy")!
        let stored = [
            StoredRecord(fileName: record.snapshot.deviceID.recordName, snapshot: record.snapshot),
            StoredRecord(fileName: "fuzz-copy.json", snapshot: copy),
        ]
        let dates = [record.snapshot.generatedAt] + record.snapshot.providers.map(\.lastUpdated)
        var alerts = AlertState()
        for now in dates.flatMap({ [$0, $0.addingTimeInterval(3 * 3600), $0.addingTimeInterval(-86_400)] }) {
            let result = Merger.merge(StoreContents(records: stored), options: MergeOptions(now: now))
            // `check`: the events the moments fire, as the notifications every backend is given.
            let (events, next) = TransitionDetector.evaluate(
                previous: alerts, accounts: result.accounts, warnAt: [25, 10], paceAt: now)
            alerts = next
            for event in events {
                let notification = CheckCommand.notification(event)
                guard !SafeText.hasControlCharacters(notification.title),
                    !SafeText.hasControlCharacters(notification.body), !notification.jsonLine.contains("\n"),
                    !SafeText.markup(notification.body).contains("<")
                else { fatalError("a notification carries a record's control characters or markup") }
            }
            var json = StatusJSONWriter(capacity: 4096)
            StatusReport.status(result, to: &json)
            json.finish()
            _ = StatusCommand.table(result, color: true)
            // One line per row, each free of control characters.
            let plain = StatusCommand.table(result, color: false, ascii: true)
            for line in plain.split(separator: "\n", omittingEmptySubsequences: false) {
                guard Array(line.utf8).withUnsafeBytes(SafeText.isTerminalSafe) else {
                    fatalError("the table carries a record's control characters")
                }
            }
            guard plain.split(separator: "\n").count == 1 + result.accounts.count || result.accounts.isEmpty else {
                fatalError("the table has other than one line per account")
            }
            _ = StatusBar.line(result)
            _ = StatusBar.waybar(result)
            _ = PrometheusText.render(result)
            _ = ReportPage(result: result, days: 14).render()
        }
    default:
        fatalError(
            "unknown AGGCTL_FUZZ_TARGET '\(target)': record, input, listing, s3-listing, codex-line, claude-line, "
                + "ledger, history, caches, pipeline")
    }
    return 0
}

/// The key the `envelope` seeds are sealed with (`Fuzz/Corpus/envelope`, written by `fuzzEnvelopeSeeds`).
let fuzzKey = try! RecordKey(bytes: Array(repeating: 7, count: RecordCipher.keyLength))

/// Foundation's reading of an envelope's members: the oracle for the scanner.
private struct FoundationEnvelope: Decodable {
    var aggctlEncrypted: Int
    var alg: String
    var keyID: String
    var nonce: Data
    var ciphertext: Data
}

func fuzzEnvelope(_ bytes: UnsafeRawBufferPointer) {
    let data = Data(bytes)
    if let fields = EnvelopeFields(bytes) {
        guard let reference = try? JSONDecoder().decode(FoundationEnvelope.self, from: data) else {
            fatalError("the envelope scanner accepted what Foundation rejects")
        }
        guard
            reference.aggctlEncrypted == fields.aggctlEncrypted, reference.alg == fields.alg,
            reference.keyID == fields.keyID, reference.nonce == fields.nonce,
            reference.ciphertext == fields.ciphertext
        else { fatalError("the envelope scanner and Foundation disagree") }
    }
    do {
        let opened = try Envelope.open(data, fileName: "fuzz.json", keys: [fuzzKey])
        // What opened was sealed under this key for this name: sealed again, it opens to the same.
        let again = try Envelope.seal(opened, fileName: "fuzz.json", key: fuzzKey)
        guard try Envelope.open(again, fileName: "fuzz.json", keys: [fuzzKey]) == opened else {
            fatalError("an envelope sealed again opened to other bytes")
        }
        guard (try? Envelope.open(again, fileName: "other.json", keys: [fuzzKey])) == nil else {
            fatalError("an envelope opened under another file name")
        }
    } catch {
        _ = "\(error)"
    }
}

/// This thread's CPU time in seconds: a bound on work that waiting on another process cannot break.
func threadTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
