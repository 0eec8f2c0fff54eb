import Portable
import Snapshots

/// Reads one Claude Code assistant log line straight from its bytes: timestamp, ids, model, usage and
/// cost, everything else skipped (validated) by the scanner.
enum ClaudeEventDecoder: LogLineDecoder {
    struct Usage {
        var at: Date
        /// FNV-1a of `message.id` + `requestId`: a response logged over several lines is counted once.
        var key: UInt64
        var model: String?
        var costUSD: Double?
        var input = 0
        var output = 0
        var cacheWrite = 0
        var cacheRead = 0

        // Chained, not summed over an array: this runs for every response of every log line read.
        var tokens: Int { input.saturatingAdding(output).saturatingAdding(cacheWrite).saturatingAdding(cacheRead) }
    }

    static func decode(_ line: UnsafeRawBufferPointer) -> Usage? {
        var s = JSONScanner(line)
        var isAssistant = false
        var at: Date?
        var requestID: [UInt8] = []
        var messageID: [UInt8] = []
        var model: String?
        var cost: Double?
        var usage: Usage?
        do throws(JSONSyntaxError) {
            try object(&s) { (s, key) throws(JSONSyntaxError) in
                if s.key(key, is: "type") {
                    isAssistant = try raw(&s).map { s.key($0, is: "assistant") } ?? false
                } else if s.key(key, is: "timestamp") {
                    at = try date(&s)
                } else if s.key(key, is: "requestId") {
                    requestID = try raw(&s).map { s.unescaped($0) } ?? []
                } else if s.key(key, is: "costUSD") {
                    cost = try number(&s)
                } else if s.key(key, is: "message"), try s.kind() == .object {
                    try object(&s) { (s, key) throws(JSONSyntaxError) in
                        if s.key(key, is: "id") {
                            messageID = try raw(&s).map { s.unescaped($0) } ?? []
                        } else if s.key(key, is: "model") {
                            model = try text(&s)
                        } else if s.key(key, is: "usage"), try s.kind() == .object {
                            var counts = Usage(at: Date(timeIntervalSince1970: 0), key: 0)
                            try object(&s) { (s, key) throws(JSONSyntaxError) in
                                if s.key(key, is: "input_tokens") {
                                    counts.input = try count(&s) ?? 0
                                } else if s.key(key, is: "output_tokens") {
                                    counts.output = try count(&s) ?? 0
                                } else if s.key(key, is: "cache_creation_input_tokens") {
                                    counts.cacheWrite = try count(&s) ?? 0
                                } else if s.key(key, is: "cache_read_input_tokens") {
                                    counts.cacheRead = try count(&s) ?? 0
                                } else {
                                    try s.skipValue()
                                }
                            }
                            usage = counts
                        } else {
                            try s.skipValue()
                        }
                    }
                } else {
                    try s.skipValue()
                }
            }
            try s.finish()
        } catch {
            return nil
        }
        guard isAssistant, let at, var usage else { return nil }
        usage.at = at
        usage.model = model
        usage.costUSD = cost
        // The hash of `messageID:requestID`, taken piece by piece (FNV-1a goes on from where it was).
        usage.key = BinaryWriter.fnv1a(requestID, from: BinaryWriter.fnv1a([0x3A], from: BinaryWriter.fnv1a(messageID)))
        return usage
    }
}
