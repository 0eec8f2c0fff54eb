import Foundation
import TestSupport
import Testing

@testable import Serialization

/// Arrays skipped by the shape their elements repeat (`skipArrayOfShapes`) against the plain loop: the
/// same verdict, the same end, the same byte named in an error, on arrays built to repeat and then broken.
struct RepeatedShapeTests {
    enum Verdict: Equatable {
        case skipped(to: Int)
        case failed(at: Int)
    }

    static func skip(_ bytes: [UInt8], shapes: Bool, memory: JSONScanner.ShapeMemory? = nil) -> Verdict {
        bytes.withUnsafeBytes { buffer in
            var scanner = JSONScanner(buffer)
            scanner.shapeMemory = memory
            do throws(JSONSyntaxError) {
                try scanner.skipValue(repeatedShapes: shapes)
                return .skipped(to: scanner.index)
            } catch {
                return .failed(at: error.offset)
            }
        }
    }

    /// Where each element of the array `bytes` begins, as the weekly trend's reader notes them: by shape,
    /// or with the plain loop; nil when the array is refused.
    static func starts(_ bytes: [UInt8], shapes: Bool, memory: JSONScanner.ShapeMemory? = nil) -> [Int]? {
        bytes.withUnsafeBytes { buffer in
            var scanner = JSONScanner(buffer)
            scanner.shapeMemory = memory
            var starts: [Int] = []
            do throws(JSONSyntaxError) {
                if shapes {
                    try scanner.skipArray(notingStarts: &starts)
                } else {
                    try scanner.enterArray()
                    var first = true
                    while try scanner.nextElement(&first) {
                        scanner.skipWhitespace()
                        starts.append(scanner.index)
                        try scanner.skipValue(repeatedShapes: false)
                    }
                }
                return starts
            } catch {
                return nil
            }
        }
    }

    /// One value of an element, drawn from what records hold and what breaks a shape: time stamps and
    /// dates (one length), names (many lengths, escapes, non-ASCII), numbers of every form, literals,
    /// and small nested containers.
    static func value(_ kind: Int, using generator: inout SeededGenerator) -> String {
        switch kind {
        case 0:
            return
                "\"2026-11-\(10 + Int.random(in: 0..<20, using: &generator))T0\(Int.random(in: 0..<10, using: &generator)):39:06Z\""
        case 1: return "\"2026-11-\(10 + Int.random(in: 0..<20, using: &generator))\""
        case 2:
            let names = [
                "a", "claude", "gpt-5", "caf\u{E9}", "tab\\tbed", "q\\\"uote", "\\u00e9t\\u00e9", "", "#hash",
                "long name of a model",
            ]
            return "\"\(names.randomElement(using: &generator)!)\""
        case 3: return String(Int.random(in: 0..<10_000_000, using: &generator))
        case 4: return String(format: "%.2f", Double.random(in: 0..<100, using: &generator))
        case 5:
            return ["-1", "0", "0.5", "-0.25", "1e3", "2.5E-3", "100", "-12345678901234", "7"].randomElement(
                using: &generator)!
        case 6: return ["true", "false", "null"].randomElement(using: &generator)!
        case 7: return "[\(Int.random(in: 0..<9, using: &generator)), \(Int.random(in: 0..<99, using: &generator))]"
        default: return "{\"k\": \(Int.random(in: 0..<1000, using: &generator))}"
        }
    }

    /// An array of `count` elements of one shape (keys and value kinds), some of them of another, written
    /// indented or compact.
    static func array(using generator: inout SeededGenerator) -> [UInt8] {
        let keys = ["at", "usedPercent", "resetsAt", "date", "tokens", "costUSD", "name"]
        let shape = (0..<Int.random(in: 0...4, using: &generator)).map { _ in
            (keys.randomElement(using: &generator)!, Int.random(in: 0..<9, using: &generator))
        }
        let bare = Int.random(in: 0..<4, using: &generator) == 0 ? Int.random(in: 0..<9, using: &generator) : nil
        let pretty = Bool.random(using: &generator)
        let odd = Int.random(in: 0..<6, using: &generator)
        var elements: [String] = []
        for index in 0..<Int.random(in: 0...30, using: &generator) {
            if let bare {
                elements.append(value(index % 7 == odd ? (bare + 3) % 9 : bare, using: &generator))
                continue
            }
            var members = shape
            if index % 11 == odd { members.append(("extra", Int.random(in: 0..<9, using: &generator))) }
            let body = members.map { "\"\($0.0)\":" + (pretty ? " " : "") + value($0.1, using: &generator) }
            elements.append(
                pretty
                    ? "{\n     " + body.joined(separator: ",\n     ") + "\n    }"
                    : "{" + body.joined(separator: ",") + "}")
        }
        // Compact arrays are sometimes spaced before their commas: a shape then begins with white space.
        let compactSeparator = Int.random(in: 0..<4, using: &generator) == 0 ? " ," : ","
        let text =
            pretty
            ? "[\n    " + elements.joined(separator: ",\n    ") + "\n   ]"
            : "[" + elements.joined(separator: compactSeparator) + "]"
        return Array(text.utf8)
    }

    @Test("repeated shapes, broken anywhere: the same verdict, end and error byte as the plain loop")
    func agreesWithThePlainLoop() {
        var generator = SeededGenerator(seed: 14)
        let alphabet = Array("{}[]\",:\\0123456789.eE-+ntfaluxr \n\u{7F}#".utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xA9, 0xFF]
        var failures = 0
        var skipped = 0
        for _ in 0..<6000 {
            var bytes = Self.array(using: &generator)
            ByteMutation.mutate(&bytes, times: 0...3, alphabet: alphabet, using: &generator)
            let plain = Self.skip(bytes, shapes: false)
            let shaped = Self.skip(bytes, shapes: true)
            #expect(shaped == plain, "\(String(decoding: bytes, as: UTF8.self))")
            if bytes.first == UInt8(ascii: "[") {
                #expect(
                    Self.starts(bytes, shapes: true) == Self.starts(bytes, shapes: false),
                    "starts of \(bytes.count) bytes")
            }
            if case .failed = plain { failures += 1 } else { skipped += 1 }
        }
        // Both verdicts are well represented, or the comparison says little.
        #expect(failures > 1500 && skipped > 1500)
    }

    @Test("shapes kept from earlier arrays and earlier documents change no verdict, end or error byte")
    func keptShapesAgreeWithThePlainLoop() {
        var generator = SeededGenerator(seed: 15)
        let alphabet = Array("{}[]\",:\\0123456789.eE-+ntfaluxr \n#".utf8) + [0x00, 0x80, 0xC3]
        // One memory for every document, as a store's read worker keeps one for all its records.
        let memory = JSONScanner.ShapeMemory()
        var failures = 0
        var skipped = 0
        for _ in 0..<3000 {
            // Arrays of one shape side by side (an entry's histories, the next entry's), some broken.
            let first = Self.array(using: &generator)
            let other = Self.array(using: &generator)
            var members: [[UInt8]] = []
            for index in 0..<Int.random(in: 1...4, using: &generator) {
                var member = Bool.random(using: &generator) ? first : other
                if Int.random(in: 0..<3, using: &generator) == 0 {
                    ByteMutation.mutate(&member, times: 1...2, alphabet: alphabet, using: &generator)
                }
                members.append(Array("\"h\(index)\": ".utf8) + member)
                if member.first == UInt8(ascii: "[") {
                    #expect(
                        Self.starts(member, shapes: true, memory: memory) == Self.starts(member, shapes: false),
                        "starts of \(String(decoding: member, as: UTF8.self))")
                }
            }
            let bytes = Array("{".utf8) + Array(members.joined(separator: Array(",\n  ".utf8))) + Array("}".utf8)
            let plain = Self.skip(bytes, shapes: false)
            #expect(
                Self.skip(bytes, shapes: true, memory: memory) == plain, "\(String(decoding: bytes, as: UTF8.self))")
            if case .failed = plain { failures += 1 } else { skipped += 1 }
        }
        #expect(failures > 500 && skipped > 500)
    }

    @Test("a shape kept at one depth is not used at another, where the depth limit may refuse its elements")
    func keptShapesStayAtTheirDepth() {
        // Elements nested 505 deep after a shallow first one: within the limit in an array at the top, past
        // it in one inside seven more (the first element, read the usual way, passes at both depths).
        let element = String(repeating: "[", count: 505) + String(repeating: "]", count: 505)
        let array = "[[]," + Array(repeating: element, count: 4).joined(separator: ",") + "]"
        let memory = JSONScanner.ShapeMemory()
        #expect(Self.skip(Array(array.utf8), shapes: true, memory: memory) == .skipped(to: array.utf8.count))
        #expect(memory.slots.contains { $0.runCount > 0 }, "the deep elements' shape was kept")
        let deeper = Array((String(repeating: "[", count: 7) + array + String(repeating: "]", count: 7)).utf8)
        let plain = Self.skip(deeper, shapes: false)
        guard case .failed = plain else {
            Issue.record("the plain loop accepted nesting past the limit")
            return
        }
        #expect(Self.skip(deeper, shapes: true, memory: memory) == plain)
    }

    @Test("an array whose shape's slot an element's own arrays took over goes on by the plain loop, and ends")
    func slotTakenOverByNestedArrays() {
        // Found by the fuzzer (`Fuzz/Regressions/record/`), made valid and cut down: the array at the second
        // level takes a shape, then reads an element the usual way whose arrays keep shapes of their own in
        // every slot, one of them with more values than a shape holds (which empties its slot). The outer array then matched
        // with the emptied slot, an empty shape that passes over nothing: for ever.
        let text =
            "[[1 ,2 ,4,[5,6,0],[5 ,8 ,9,[0 ,4,0],[5,8 ,3,0],[5,1,6,7,8 ,9,[0 ,4,3,3,3,3,3,0],"
            + "[5,1,1,2,3,4,5,6,7,8,9,0,1,2,3 ,4 ,5,4]],5]]]"
        let bytes = Array(text.utf8)
        #expect(Self.skip(bytes, shapes: false) == .skipped(to: bytes.count))
        #expect(Self.skip(bytes, shapes: true) == .skipped(to: bytes.count))
        // And inside a record, where every reader of a store passes over it.
        let record = Array(#"{"generatedAt": "2026-11-30T12:00:00Z", "x": \#(text), "providers": []}"#.utf8)
        #expect(Self.skip(record, shapes: true) == .skipped(to: record.count))
    }

    @Test("a kept shape that begins with white space, not its comma, is not used for a first element")
    func keptShapesNeedTheirSeparatorFirst() {
        // `1 ,2` gives a shape that begins with a space; with the `[` standing for that space, `[,5` would
        // pass as a first element.
        // Long enough for every word of a shape to be loaded (sixteen bytes from each element).
        let numbers = (1...40).map(String.init).joined(separator: " ,")
        let memory = JSONScanner.ShapeMemory()
        let spaced = Array("[\(numbers)]".utf8)
        #expect(Self.skip(spaced, shapes: true, memory: memory) == .skipped(to: spaced.count))
        #expect(memory.slots.contains { $0.runCount > 0 }, "the spaced elements' shape was kept")
        for text in ["[,\(numbers)]", "[ ,\(numbers)]", "[\(numbers)]"] {
            let bytes = Array(text.utf8)
            #expect(Self.skip(bytes, shapes: true, memory: memory) == Self.skip(bytes, shapes: false), "\(text)")
        }
    }

    /// Eight hundred history samples, the way records hold them.
    static let samples: String = {
        let sample = (0..<800).map { index in
            "{\n     \"at\": \"2026-11-2\(index % 10)T14:39:06Z\",\n     \"usedPercent\": \(index % 97).5,\n     \"resetsAt\": \"2026-12-05T09:46:51Z\"\n    }"
        }
        return "[\n    " + sample.joined(separator: ",\n    ") + "\n   ]"
    }()

    struct Fault: CustomTestStringConvertible, Sendable {
        var original: String
        var replacement: [UInt8]
        var what: String
        var testDescription: String { what }
    }

    static let faults: [Fault] = [
        Fault(
            original: "T14:39:06Z", replacement: Array("T14:3\u{1}:06Z".utf8),
            what: "a control character in a time stamp"),
        Fault(original: "T14:39:06Z", replacement: Array("T14:39:06".utf8) + [0x80], what: "a lone continuation byte"),
        Fault(
            original: "T14:39:06Z", replacement: Array("T14:39:06".utf8) + [0xC3],
            what: "a sequence cut short by the quote"),
        Fault(
            original: "T14:39:06Z", replacement: Array("T14:39:06\\".utf8),
            what: "an escape that takes the closing quote"),
        Fault(original: "\": 5.5", replacement: Array("\": 05.5".utf8), what: "a leading zero"),
        Fault(original: "\": 5.5", replacement: Array("\": 5.".utf8), what: "a fraction without digits"),
        Fault(original: "\": 5.5", replacement: Array("\": -".utf8), what: "a sign alone"),
        Fault(original: "Z\"\n    }", replacement: Array("Z\"\n    ,}".utf8), what: "a stray comma"),
    ]

    @Test(
        "a fault deep in a long history is found where the plain loop finds it",
        arguments: RepeatedShapeTests.faults)
    func faultDeepInHistory(fault: Fault) throws {
        let (original, replacement) = (fault.original, fault.replacement)
        // The sixth sample is the first with this time stamp and 5.5: past the two read to take the shape.
        let text = Self.samples
        let marker = try #require(text.range(of: "\"at\": \"2026-11-25T14:39:06Z\",\n     \"usedPercent\": 5.5"))
        let found = try #require(text.range(of: original, range: marker.lowerBound..<text.endIndex))
        let broken = Array(text[..<found.lowerBound].utf8) + replacement + Array(text[found.upperBound...].utf8)
        let plain = Self.skip(broken, shapes: false)
        guard case .failed(let offset) = plain else {
            Issue.record("the plain loop accepted the broken history")
            return
        }
        #expect(offset >= text.utf8.distance(from: text.startIndex, to: marker.lowerBound))
        #expect(Self.skip(broken, shapes: true) == plain)
        #expect(Self.skip(Array(text.utf8), shapes: true) == .skipped(to: text.utf8.count))
    }

    @Test("history with an odd sample in it (escapes, another key, another length) is still read whole")
    func oddSamplesAreRead() {
        for (original, replacement) in [
            ("T14:39:06Z", "T14:39:06\\u005A"), ("\"usedPercent\"", "\"usedPercenT\""), ("T14:39:06Z", "T14:39:06.5Z"),
            ("\": 5.5", "\": 5.5e0"), ("T14:39:06Z", "T14:39:06\u{E9}"),
        ] {
            let text = Self.samples
            let at = text.range(
                of: original, range: text.index(text.startIndex, offsetBy: text.count / 2)..<text.endIndex)!
            let changed = Array((text[..<at.lowerBound] + replacement + text[at.upperBound...]).utf8)
            #expect(Self.skip(changed, shapes: true) == .skipped(to: changed.count), "\(replacement)")
        }
    }

    @Test("arrays nested past the depth shapes are kept for are skipped alike, and the depth limit holds")
    func deepNesting() {
        for depth in [7, 8, 9, 40, JSONScanner.maximumDepth, JSONScanner.maximumDepth + 1] {
            let open = String(repeating: "[", count: depth)
            let close = String(repeating: "]", count: depth)
            for text in [open + "1,2,3" + close, open + "[1],[2],[3]" + close, open + "1,2," + close, open + "1,2,3"] {
                let bytes = Array(text.utf8)
                #expect(
                    Self.skip(bytes, shapes: true) == Self.skip(bytes, shapes: false),
                    "depth \(depth): \(text.suffix(12))")
            }
        }
    }

    /// `skipNumber` on `token`, followed by a space and then enough room for the numbers read by words,
    /// or by nothing more (fewer bytes than they need: the byte-wise reader).
    static func skipNumber(_ token: String, roomy: Bool) -> Verdict {
        Array((token + (roomy ? String(repeating: " ", count: 24) : "")).utf8).withUnsafeBytes { buffer in
            var scanner = JSONScanner(buffer)
            do throws(JSONSyntaxError) {
                try scanner.skipNumber()
                return .skipped(to: scanner.index)
            } catch {
                return .failed(at: error.offset)
            }
        }
    }

    @Test("a number read by words ends where the byte-wise reader ends it, and is refused alike")
    func numbersByWords() {
        // The short form is read by words at all: else this test would compare the byte-wise reader with
        // itself.
        for token in ["76.46", "-0.25", "1753941", "0", "-7", "1234567.1234567"] {
            let padded = Array((token + String(repeating: " ", count: 24)).utf8)
            #expect(
                padded.withUnsafeBufferPointer { JSONScanner.shortNumberLength($0.baseAddress!) } == token.utf8.count)
        }
        var generator = SeededGenerator(seed: 17)
        let alphabet = Array("-0123456789.eE+x ")
        let edges = [
            "-", "01", "-0", "-01", "0.", "1.", ".5", "1e", "1e+", "1.5e3", "1.5.3", "12345678", "1234567.12345678",
            "0.1234567", "00", "1x", "-x", "+1", "1E-2", "9999999.9999999",
        ]
        let drawn = (0..<4000).map { _ in
            String(
                (0..<Int.random(in: 1...14, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
        }
        for token in edges + drawn {
            #expect(Self.skipNumber(token, roomy: true) == Self.skipNumber(token, roomy: false), "\(token)")
        }
    }
}
