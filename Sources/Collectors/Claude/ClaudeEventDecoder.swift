import Portable
import Serialization
import Snapshots

/// Reads one Claude Code assistant log line straight from its bytes: timestamp, ids, model, usage and
/// cost, everything else skipped (validated) by the scanner.
enum ClaudeEventDecoder: LogLineDecoder {
    struct Usage {
        var at: Date
        /// Which response the line belongs to (`ClaudeEventDecoder.responseKey`); 0 for a line with
        /// neither `message.id` nor `requestId`, a response of its own.
        var key: UInt64
        /// Which request of that message (a digest of `requestId`; 0 for none or a line without
        /// `message.id`): the main chain's lines of one message under two requests are two responses.
        var request: UInt64 = 0
        /// The line is a sub-agent's (`isSidechain`), which may replay its parent's messages.
        var isSidechain = false
        var model: String?
        var costUSD: Double?
        var input = 0
        var output = 0
        /// Prompt tokens written to the cache for 5 minutes (all of `cache_creation_input_tokens` when
        /// the line does not say for how long), and for an hour.
        var cacheWrite = 0
        var cacheWriteHour = 0
        var cacheRead = 0

        // Chained, not summed over an array: this runs for every response of every log line read.
        var tokens: Int {
            input.saturatingAdding(output).saturatingAdding(cacheWrite).saturatingAdding(cacheWriteHour)
                .saturatingAdding(cacheRead)
        }
    }

    static func decode(_ line: UnsafeRawBufferPointer) -> Usage? {
        var s = JSONScanner(line)
        var fields = Fields()
        do throws(JSONSyntaxError) {
            try entry(&s, into: &fields)
            try s.finish()
        } catch {
            return nil
        }
        return fields.usage
    }

    /// The usage of a sub-agent's message as its parent's log reports it while the sub-agent works:
    /// `{"type":"progress","data":{"type":"agent_progress","message":{<an assistant line>}}}`. The
    /// nested line has the shape of an assistant line of its own (type, timestamp, ids, message); it is
    /// dated by the progress line when it carries no time. Nil for any other line.
    static func decodeProgress(_ line: UnsafeRawBufferPointer) -> Usage? {
        var s = JSONScanner(line)
        var isProgress = false
        var at: Date?
        var nested = Fields()
        do throws(JSONSyntaxError) {
            try object(&s) { (s, key) throws(JSONSyntaxError) in
                if s.key(key, is: "timestamp") {
                    at = try date(&s)
                } else if s.key(key, is: "data"), try s.kind() == .object {
                    try object(&s) { (s, key) throws(JSONSyntaxError) in
                        if s.key(key, is: "type") {
                            isProgress = try raw(&s).map { s.key($0, is: "agent_progress") } ?? false
                        } else if s.key(key, is: "message"), try s.kind() == .object {
                            try entry(&s, into: &nested)
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
        guard isProgress else { return nil }
        nested.at = nested.at ?? at
        return nested.usage
    }

    /// What one assistant entry says, as it is read.
    private struct Fields {
        var isAssistant = false
        var at: Date?
        var requestID: [UInt8] = []
        var messageID: [UInt8] = []
        var model: String?
        var cost: Double?
        var counts: Usage?
        var isSidechain = false

        /// The usage of an assistant entry that has a time and usage; nil for anything else.
        var usage: Usage? {
            guard isAssistant, let at, var usage = counts else { return nil }
            usage.at = at
            usage.model = model
            usage.costUSD = cost
            usage.isSidechain = isSidechain
            usage.key = ClaudeEventDecoder.responseKey(messageID: messageID, requestID: requestID)
            if !messageID.isEmpty, !requestID.isEmpty { usage.request = max(1, BinaryWriter.fnv1a(requestID)) }
            return usage
        }
    }

    /// Reads one entry object (a log line, or the line nested in a progress line) into `fields`.
    private static func entry(_ s: inout JSONScanner, into fields: inout Fields) throws(JSONSyntaxError) {
        try object(&s) { (s, key) throws(JSONSyntaxError) in
            if s.key(key, is: "type") {
                fields.isAssistant = try raw(&s).map { s.key($0, is: "assistant") } ?? false
            } else if s.key(key, is: "timestamp") {
                fields.at = try date(&s)
            } else if s.key(key, is: "requestId") {
                fields.requestID = try raw(&s).map { s.unescaped($0) } ?? []
            } else if s.key(key, is: "costUSD") {
                fields.cost = try number(&s)
            } else if s.key(key, is: "isSidechain"), try s.kind() == .bool {
                fields.isSidechain = try s.readBool()
            } else if s.key(key, is: "message"), try s.kind() == .object {
                try object(&s) { (s, key) throws(JSONSyntaxError) in
                    if s.key(key, is: "id") {
                        fields.messageID = try raw(&s).map { s.unescaped($0) } ?? []
                    } else if s.key(key, is: "model") {
                        fields.model = try text(&s)
                    } else if s.key(key, is: "usage"), try s.kind() == .object {
                        fields.counts = try usage(&s)
                    } else {
                        try s.skipValue()
                    }
                }
            } else {
                try s.skipValue()
            }
        }
    }

    private static func usage(_ s: inout JSONScanner) throws(JSONSyntaxError) -> Usage {
        var counts = Usage(at: Date(timeIntervalSince1970: 0), key: 0)
        // How long the written tokens stay cached, where the line says: it stands over the total, as
        // ccusage reads it (`cache_creation: {ephemeral_5m_input_tokens, ephemeral_1h_input_tokens}`).
        var byDuration: (minutes: Int, hour: Int)?
        try object(&s) { (s, key) throws(JSONSyntaxError) in
            if s.key(key, is: "input_tokens") {
                counts.input = try count(&s) ?? 0
            } else if s.key(key, is: "output_tokens") {
                counts.output = try count(&s) ?? 0
            } else if s.key(key, is: "cache_creation_input_tokens") {
                counts.cacheWrite = try count(&s) ?? 0
            } else if s.key(key, is: "cache_read_input_tokens") {
                counts.cacheRead = try count(&s) ?? 0
            } else if s.key(key, is: "cache_creation"), try s.kind() == .object {
                var split = (minutes: 0, hour: 0)
                try object(&s) { (s, key) throws(JSONSyntaxError) in
                    if s.key(key, is: "ephemeral_5m_input_tokens") {
                        split.minutes = try count(&s) ?? 0
                    } else if s.key(key, is: "ephemeral_1h_input_tokens") {
                        split.hour = try count(&s) ?? 0
                    } else {
                        try s.skipValue()
                    }
                }
                byDuration = split
            } else {
                try s.skipValue()
            }
        }
        if let byDuration {
            counts.cacheWrite = byDuration.minutes
            counts.cacheWriteHour = byDuration.hour
        }
        return counts
    }

    /// The response a line belongs to, as other tools and Claude Code's own streaming have it:
    ///
    /// - one response streamed as several lines carries one `message.id` (and `requestId`), output
    ///   tokens growing: one response (the last line is the whole one, `FileScan`);
    /// - a sub-agent's file replays a parent's message under a new `requestId`: the message id decides
    ///   (the main chain's lines of one message under two `requestId`s are two responses: `Usage.request`);
    /// - a line with neither id is a response of its own (0), never merged with another such line.
    ///
    /// The top two bits are left clear: `FileScan` keeps the side-chain and progress marks there.
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
        return max(1, key & ~(3 << 62))
    }
}
