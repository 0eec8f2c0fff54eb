import Foundation
import Serialization
import Testing

@testable import AggctlCLI

struct JSONWriterTests {
    @Test("a streaming writer sends the same bytes in pieces")
    func streaming() {
        let sink = BufferSink()
        var streamed = StatusJSONWriter(streamingTo: sink)
        var whole = StatusJSONWriter()
        for json in [0, 1] {
            var writer = json == 0 ? streamed : whole
            writer.array(0..<50_000) { json, value in
                json.object { json in
                    json.key("n")
                    json.int(value)
                }
            }
            if json == 0 { streamed = writer } else { whole = writer }
        }
        streamed.finish()
        #expect(sink.text == whole.text + "\n")
        #expect(sink.text.count > 512 * 1024)
    }

    @Test("a pace written a moment ago for the same figures is copied; other figures, or bytes sent on, are written")
    func paceCopiedOnlyForTheSameFigures() {
        let reset = Date(timeIntervalSince1970: 1_796_040_000)
        let opus = MomentDependent.pace(usedPercent: 40, windowMinutes: 10_080, resetsAt: reset)
        let spark = MomentDependent.pace(usedPercent: 40, windowMinutes: 300, resetsAt: reset)
        var bodies: [String] = []
        func write(_ value: MomentDependent, as text: String, to json: inout StatusJSONWriter) {
            json.key("p")
            json.pace(value) { json in
                bodies.append(text)
                json.string(text)
            }
        }
        var json = StatusJSONWriter(marking: true)
        json.object { json in
            write(opus, as: "first", to: &json)
            write(spark, as: "second", to: &json)
            write(opus, as: "again", to: &json)
        }
        // The third is the first's text: its body never ran. Each is marked where it went.
        #expect(json.text == #"{"p":"first","p":"second","p":"first"}"#)
        #expect(bodies == ["first", "second"])
        #expect(json.moments?.map(\.range) == [5..<12, 17..<25, 30..<37])

        // A streaming writer whose earlier bytes went out writes the value again.
        let sink = BufferSink()
        var streamed = StatusJSONWriter(streamingTo: sink)
        bodies = []
        streamed.array(count: 2) { json, index in
            json.object { json in
                write(opus, as: "kept", to: &json)
                json.key("filler")
                json.string(String(repeating: "x", count: index == 0 ? 300_000 : 1))
            }
        }
        streamed.finish()
        #expect(bodies == ["kept", "kept"])
        #expect(sink.text.components(separatedBy: #""p":"kept""#).count == 3)
    }

    @Test("strings are escaped, non-finite numbers become null, whole numbers lose their .0")
    func values() throws {
        var json = StatusJSONWriter()
        json.object { json in
            json.key("a")
            json.string("quote \" backslash \\ newline \n tab \t bell \u{07} é 😀")
            json.key("b")
            json.double(.infinity)
            json.key("c")
            json.double(37.0)
            json.key("d")
            json.double(0.1)
            json.key("e")
            json.int(-42)
            json.key("f")
            json.array([Int]()) { _, _ in }
            json.key("g")
            json.date(Date(timeIntervalSince1970: 1_796_040_000.25))
        }
        let object = try #require(JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [String: Any])
        #expect(object["a"] as? String == "quote \" backslash \\ newline \n tab \t bell \u{07} é 😀")
        #expect(object["b"] is NSNull)
        #expect(json.text.contains("\"c\":37,"))
        #expect(object["d"] as? Double == 0.1)
        #expect(object["e"] as? Int == -42)
        #expect(json.text.contains("\"f\":[]"))
        #expect(object["g"] as? String == "2026-11-30T12:00:00.250Z")
    }

    @Test("a string is escaped alike whether a character stands alone or deep in plain text (eight bytes a step)")
    func escapingInLongText() {
        func escaped(_ text: String) -> String {
            var json = StatusJSONWriter()
            json.string(text)
            return String(json.text.dropFirst().dropLast())
        }
        // Every byte that may need a look, as a character, at every place of the first words.
        var characters = (0..<0x80).map { Character(Unicode.Scalar(UInt8($0))) }
        characters += ["é", "\u{85}", "\u{9F}", "\u{2028}", "\u{202E}", "\u{2066}", "😀"]
        for character in characters {
            let alone = escaped(String(character))
            for before in [0, 1, 7, 8, 9, 15, 16, 23] {
                let prefix = String(repeating: "a", count: before)
                let suffix = String(repeating: "b", count: 11)
                #expect(escaped(prefix + String(character) + suffix) == prefix + alone + suffix)
            }
        }
        // The word test itself, each byte value at each of the eight places.
        for value in 0...255 {
            let plain = value >= 0x20 && value < 0x7F && value != 0x22 && value != 0x5C
            for place in 0..<8 {
                let word =
                    (UInt64(0x6161_6161_6161_6161) & ~(UInt64(0xFF) << (8 * place))) | UInt64(value) << (8 * place)
                #expect((StatusJSONWriter.needsLook(word) == 0) == plain, "byte \(value) at \(place)")
            }
        }
    }

    @Test("commas stay right through nesting deeper than the writer's word of flags, and back out")
    func deepNesting() throws {
        // Each level holds a number, then the next level, then another number: a comma before and after.
        func nest(_ json: inout StatusJSONWriter, _ depth: Int) {
            json.array(count: 1) { json, _ in
                json.int(depth)
                if depth < 150 { nest(&json, depth + 1) }
                json.int(-depth)
            }
        }
        var json = StatusJSONWriter()
        nest(&json, 1)
        var expected = ""
        for depth in 1...150 { expected += "[\(depth)," }
        expected.removeLast()
        for depth in (1...150).reversed() { expected += ",-\(depth)]" }
        #expect(json.text == expected)
        _ = try JSONSerialization.jsonObject(with: Data(json.text.utf8))
    }

    @Test("an array written in pieces is byte for byte the array written in one go")
    func pieces() {
        for count in [0, 1, 2, 7, 100] {
            var whole = StatusJSONWriter()
            whole.array(0..<count) { json, value in json.int(value) }
            for pieceCount in [1, 2, 3, 8] {
                let pieces = (0..<pieceCount).map { piece in
                    var writer = StatusJSONWriter.arrayPiece(capacity: 64)
                    for value in (count * piece / pieceCount)..<(count * (piece + 1) / pieceCount) { writer.int(value) }
                    return writer
                }
                var joined = StatusJSONWriter()
                joined.array(pieces: pieces)
                #expect(joined.text == whole.text, "\(count) values in \(pieceCount) pieces")
            }
        }
    }

    @Test("every number that is not whole is written as Swift's shortest round-tripping text writes it")
    func decimals() {
        var generator = SystemRandomNumberGenerator()
        var values: [Double] = [0.1, 0.15, 0.25, 53.07, 46.93, 341.5167, 0.0001, 0.0003, 999_999_999.9999, 1e8 + 0.25]
        for _ in 0..<20_000 {
            let digits = Int.random(in: 1...4, using: &generator)
            let scale = [1.0, 10, 100, 1000, 10000][digits]
            values.append(Double(Int.random(in: -10_000_000_000...10_000_000_000, using: &generator)) / scale)
            values.append(Double.random(in: -1e6...1e6, using: &generator))
            values.append(Double.random(in: 0...0.01, using: &generator))
            // Any finite double at all: huge, tiny, subnormal (those go to the standard library's formatter).
            let any = Double(bitPattern: generator.next())
            if any.isFinite { values.append(any) }
        }
        values += [.leastNonzeroMagnitude, -.leastNonzeroMagnitude, .greatestFiniteMagnitude, 1e15, -1e300, 1e-7]
        for value in values where value != value.rounded() || abs(value) >= 1e15 {
            var json = StatusJSONWriter()
            json.double(value)
            #expect(json.text == value.description, "\(value)")
        }
    }
}
