import Portable
import Serialization
import Snapshots

/// The memo of all files combined: the newest limits, and what the responses spent by hour and model as
/// `counts.spend`.
extension CodexCollector.Scan: LogScanMemo.Summary {
    // 3: forks' replays and copied lines counted once; 4: the limits' trail kept; 5: cost per day;
    // 6: tokens and cost by hour and model.
    static var memoMagic: String { "AGGCXME6" }
}

extension CodexCollector.Scan: LogScanPartial {
    // 7: every response kept with its signature; the parent session named; 8: the limits' trail;
    // 9: each response's cost, the model in use, the parts of the session's totals; 10: each response's
    // model and tokens by kind.
    static var magic: String { "AGGCOD10" }

    mutating func append(_ later: Self) { extend(later) }

    /// Codex keeps a few bytes per response: nothing is left out.
    static func read(_ bytes: UnsafeRawBufferPointer, keepingSince cutoff: Date, reading: LogReading) -> Self {
        CodexCollector.scan(bytes: bytes, reading: reading)
    }

    mutating func prune(before cutoff: Date) -> Bool { false }

    func encode(into out: inout BinaryWriter) {
        out.optional(latest) { out, limits in
            out.date(limits.at)
            out.optional(limits.session) { $0.window($1) }
            out.optional(limits.weekly) { $0.window($1) }
            out.u32(UInt32(limits.limits.count))
            for limit in limits.limits { out.limit(limit) }
            out.optionalString(limits.plan)
            out.optionalString(limits.reason)
        }
        out.optional(limitHit) { out, hit in
            out.date(hit.at)
            out.optionalDate(hit.until)
        }
        out.optionalString(parentID)
        out.optionalDate(forkedAt)
        for responses in [counts, records] {
            responses.spend.encode(into: &out)
            out.u32(UInt32(responses.models.count))
            for model in responses.models { out.string(model) }
            // Raw little-endian columns: loading them is a copy.
            out.u32(UInt32(responses.count))
            responses.moments.withUnsafeBytes { out.raw($0) }
            responses.spent.withUnsafeBytes { out.raw($0) }
            responses.modelNumbers.withUnsafeBytes { out.raw($0) }
            responses.costs.withUnsafeBytes { out.raw($0) }
            responses.signatures.withUnsafeBytes { out.raw($0) }
        }
        out.optionalDate(newestEvent)
        out.optional(lastCumulative) { $0.int($1) }
        out.optional(pendingCumulative) { out, pending in
            out.int(pending.index)
            out.int(pending.total)
        }
        out.optional(lastCumulativeParts) { $0.parts($1) }
        // The first piece's pending total stays counted from 0 (the file's start): its price is not kept.
        out.optional(pendingParts?.parts) { $0.parts($1) }
        out.optionalString(model)
        let kept = CodexCollector.trimmed(trail)
        out.u32(UInt32(kept.count))
        for sample in kept {
            out.date(sample.at)
            out.optional(sample.session) { $0.window($1) }
            out.optional(sample.weekly) { $0.window($1) }
        }
    }

    static func decode(from input: inout BinaryReader) throws -> Self {
        var scan = Self()
        scan.latest = try input.optional { reader in
            var limits = CodexCollector.RateLimits(
                at: try reader.date(), session: try reader.optional { try $0.window() },
                weekly: try reader.optional { try $0.window() })
            limits.limits = try (0..<(try reader.count())).map { _ in try reader.limit() }
            limits.plan = try reader.optionalString()
            limits.reason = try reader.optionalString()
            return limits
        }
        scan.limitHit = try input.optional { reader in
            CodexCollector.LimitHit(at: try reader.date(), until: try reader.optionalDate())
        }
        func column<Element>(_ count: Int, _ type: Element.Type) throws -> [Element] {
            let bytes = try input.take(count * MemoryLayout<Element>.stride)
            return [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: bytes)
                initialized = count
            }
        }
        scan.parentID = try input.optionalString()
        scan.forkedAt = try input.optionalDate()
        for kind in 0..<2 {
            var responses = CodexCollector.Responses()
            responses.spend = try HourlySpend.decode(from: &input)
            responses.models = try (0..<(try input.count())).map { _ in try input.string() }
            let count = Int(try input.u32())
            responses.moments = try column(count, Double.self)
            // A count below 0 is damage, read as none; a model's number past the list, as "unknown".
            responses.spent = try column(count, SpentTokens.self).map { read in
                var spent = SpentTokens()
                spent.add(read, sign: 1)
                return spent
            }
            responses.modelNumbers = try column(count, UInt32.self)
            responses.costs = try column(count, Double.self)
            responses.signatures = try column(count, UInt64.self)
            if kind == 0 { scan.counts = responses } else { scan.records = responses }
        }
        scan.newestEvent = try input.optionalDate()
        scan.lastCumulative = try input.optional { try $0.int() }
        scan.pendingCumulative = try input.optional { reader in
            let pending = (index: try reader.int(), total: try reader.int())
            // An index outside the counts is damage: it is written to in `extend`.
            guard scan.counts.spent.indices.contains(pending.index) else { throw BinaryReader.Corrupt() }
            return pending
        }
        scan.lastCumulativeParts = try input.optional { try $0.parts() }
        scan.pendingParts = try input.optional { try $0.parts() }.map { ($0, nil) }
        scan.model = try input.optionalString()
        let samples = try input.count()
        guard samples <= CodexCollector.trailBudget * 64 else { throw BinaryReader.Corrupt() }
        scan.trail = try (0..<samples).map { _ in
            CodexCollector.LimitSample(
                at: try input.date(), session: try input.optional { try $0.window() },
                weekly: try input.optional { try $0.window() })
        }
        return scan
    }
}

extension BinaryWriter {
    fileprivate mutating func parts(_ parts: CodexEventDecoder.Breakdown) {
        int(parts.input)
        int(parts.cached)
        int(parts.output)
        int(parts.reasoning)
    }
}

extension BinaryReader {
    fileprivate mutating func parts() throws -> CodexEventDecoder.Breakdown {
        CodexEventDecoder.Breakdown(input: try int(), cached: try int(), output: try int(), reasoning: try int())
    }
}
