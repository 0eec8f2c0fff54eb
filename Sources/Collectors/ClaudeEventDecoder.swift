import Portable
import Snapshots

/// Reads one Claude Code assistant log line straight from its bytes: timestamp, ids, model, usage and
/// cost, everything else skipped (validated) by the scanner.
enum ClaudeEventDecoder: LogLineDecoder {
    struct Usage {
        var at: Date
        /// Which response the line belongs to (`ClaudeEventDecoder.responseKey`); 0 for a line with
        /// neither `message.id` nor `requestId`, a response of its own.
        var key: UInt64
        /// The line is a sub-agent's (`isSidechain`), which may replay its parent's messages.
        var isSidechain = false
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
        var isSidechain = false
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
                } else if s.key(key, is: "isSidechain"), try s.kind() == .bool {
                    isSidechain = try s.readBool()
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
        usage.isSidechain = isSidechain
        usage.key = responseKey(messageID: messageID, requestID: requestID)
        return usage
    }

    /// The response a line belongs to, as other tools and Claude Code's own streaming have it:
    ///
    /// - one response streamed as several lines carries one `message.id` (and `requestId`), output
    ///   tokens growing: one response (the last line is the whole one, `FileScan`);
    /// - a sub-agent's file replays a parent's message under a new `requestId`: the message id decides;
    /// - a line with neither id is a response of its own (0), never merged with another such line.
    ///
    /// The top bit is left clear: `FileScan` keeps the side-chain mark there.
    static func responseKey(messageID: [UInt8], requestID: [UInt8]) -> UInt64 {
        let key: UInt64
        if !messageID.isEmpty {
            key = BinaryWriter.fnv1a(messageID, from: BinaryWriter.fnv1a([0x6D, 0x3A]))  // "m:"
        } else if !requestID.isEmpty {
            key = BinaryWriter.fnv1a(requestID, from: BinaryWriter.fnv1a([0x72, 0x3A]))  // "r:"
        } else {
            return 0
        }
        // Never 0, the mark of a line with no identity.
        return max(1, key & ~(1 << 63))
    }
}
