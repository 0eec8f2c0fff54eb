import Portable
import Snapshots

/// How the files of one Codex home add up, each response counted once.
///
/// Two ways a response appears in more than one file:
/// - **Forks and sub-agents.** A forked session (`forked_from_id`) or a spawned sub-agent
///   (`thread_spawn`) begins by replaying its parent's history, and Codex writes every replayed line with
///   the time of the replay (`openai/codex`, `codex-rs/core/src/rollout/recorder.rs`), so times cannot
///   tell the copy from new work. Position does: the child's first responses say what the parent's first
///   responses said, in the same order. The parent owns that prefix; the child counts what follows it.
///   Where the parent's file is gone, the children of one parent share the prefix, and the one that
///   forked first keeps it.
/// - **Copies of a line.** The same usage line (same time, same figures) in several files counts once
///   (ccusage does the same); a usage record counts once per `response_id`.
extension CodexCollector {
    /// The files' scans together (each with the path it was read from): the newest limits, and what
    /// the responses spent by hour and model, each response counted once.
    static func combine(_ files: [(path: String, scan: Scan)]) -> (latest: Scan, spend: HourlySpend) {
        var combined = Scan()
        for file in files { combined.mergeLimits(file.scan) }
        combined.trail = CodexCollector.combined(files.map(\.scan.trail))
        let replayed = replayedPrefixes(files)
        var spend = HourlySpend()
        var seen = KeySet(capacity: files.reduce(0) { $0 + $1.scan.responses.count })
        for (index, file) in files.enumerated() {
            let isRecords = !file.scan.records.isEmpty
            let responses = file.scan.responses
            let models = responses.models.map { spend.model($0) }
            for response in replayed[index]..<responses.count {
                let moment = responses.moments[response]
                let signature = responses.signatures[response]
                // A record is one response wherever it is; a count is its figures at its moment.
                let key = isRecords ? signature : mixed(mixed(moment.bitPattern) &+ signature)
                guard seen.insert(key) else { continue }
                let number = Int(responses.modelNumbers[response])
                // A response is NaN where unpriced: it counts its tokens, not its cost.
                spend.add(
                    hour: HourlySpend.hour(of: Date(timeIntervalSince1970: moment)),
                    model: number < models.count ? models[number] : spend.model("unknown"),
                    tokens: responses.spent[response], cost: responses.costs[response])
            }
        }
        return (combined, spend)
    }

    /// How many responses at the start of each file replay another file's: for a fork, the longest run
    /// it shares with its parent or with a sibling that forked before it; 0 for any other file.
    static func replayedPrefixes(_ files: [(path: String, scan: Scan)]) -> [Int] {
        var replayed = [Int](repeating: 0, count: files.count)
        var children: [String: [Int]] = [:]
        for (index, file) in files.enumerated() {
            if let parent = file.scan.parentID { children[parent, default: []].append(index) }
        }
        guard !children.isEmpty else { return replayed }
        var bySession: [String: Int] = [:]
        for (index, file) in files.enumerated() {
            if let session = sessionID(ofRollout: file.path), bySession[session] == nil { bySession[session] = index }
        }
        for (parent, indices) in children {
            // In the order they forked (then by path): the first of a missing parent's children keeps the prefix.
            let ordered = indices.sorted { left, right in
                let (a, b) = (files[left].scan.forkedAt ?? .distantFuture, files[right].scan.forkedAt ?? .distantFuture)
                return a != b ? a < b : ByteOrder.precedes(files[left].path, files[right].path)
            }
            for (position, child) in ordered.enumerated() {
                let signatures = files[child].scan.responses.signatures
                var sources = ordered[..<position].map { $0 }
                if let parentFile = bySession[parent], parentFile != child { sources.append(parentFile) }
                replayed[child] =
                    sources.map { commonPrefix(signatures, files[$0].scan.responses.signatures) }.max() ?? 0
            }
        }
        return replayed
    }

    /// The length of the run both sequences begin with.
    static func commonPrefix(_ left: [UInt64], _ right: [UInt64]) -> Int {
        var length = 0
        let limit = min(left.count, right.count)
        while length < limit && left[length] == right[length] { length += 1 }
        return length
    }

    /// The session id in a rollout's file name, `rollout-<YYYY-MM-DDTHH-MM-SS>-<id>.jsonl`; nil for a
    /// name of another shape.
    static func sessionID(ofRollout path: String) -> String? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard name.hasPrefix("rollout-"), name.hasSuffix(".jsonl") else { return nil }
        let stem = name.utf8.dropFirst("rollout-".utf8.count).dropLast(".jsonl".utf8.count)
        // The 19 characters of the time, then a dash, then the id.
        guard stem.count > 20, stem[stem.index(stem.startIndex, offsetBy: 19)] == UInt8(ascii: "-") else { return nil }
        return String(Substring(stem.dropFirst(20)))
    }
}

/// The keys of the responses counted so far: an open-addressed table of 64-bit keys that are already
/// well mixed, probed linearly. A `Set<UInt64>` hashed every key again (SipHash) for every response of
/// every file, and made a run where one log grew four times slower.
struct KeySet {
    private var slots: [UInt64]
    private let mask: Int

    init(capacity: Int) {
        // At most half full: probes stay short.
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [UInt64](repeating: 0, count: size)
        mask = size - 1
    }

    /// Adds `key`; false when it was there already. 0 marks an empty slot, so it stands for 1.
    mutating func insert(_ key: UInt64) -> Bool {
        let key = key == 0 ? 1 : key
        var slot = Int(truncatingIfNeeded: key) & mask
        while true {
            let found = slots[slot]
            if found == key { return false }
            if found == 0 {
                slots[slot] = key
                return true
            }
            slot = (slot + 1) & mask
        }
    }
}
