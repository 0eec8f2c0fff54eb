import Foundation
import Testing

@testable import Snapshots
@testable import Stores

/// The PROPFIND reader that replaced Foundation's XMLParser (which fuzzing found trapping on hostile input).
struct MinimalXMLReaderTests {
    /// Records every event as text: "+ns|name", "-ns|name", "'text'".
    struct Recorder: MinimalXMLReader.Handler {
        var events: [String] = []
        var wantsText: Bool { true }
        mutating func start(namespace: String?, name: String) { events.append("+\(namespace ?? "")|\(name)") }
        mutating func end(namespace: String?, name: String) { events.append("-\(namespace ?? "")|\(name)") }
        mutating func text(_ text: String) {
            if !text.allSatisfy(\.isWhitespace) { events.append("'\(text)'") }
        }
    }

    func read(_ text: String) throws(MinimalXMLReader.Failure) -> [String] {
        var recorder = Recorder()
        try MinimalXMLReader.read(Array(text.utf8), into: &recorder)
        return recorder.events
    }

    @Test("prefixes resolve to namespaces in scope; a default namespace applies to unprefixed names")
    func namespaces() throws {
        let events = try read(
            #"<?xml version="1.0"?><!-- c --><a:m xmlns:a="DAV:"><b xmlns="urn:x"><a:h>1</a:h></b><c/></a:m>"#)
        #expect(events == ["+DAV:|m", "+urn:x|b", "+DAV:|h", "'1'", "-DAV:|h", "-urn:x|b", "+|c", "-|c", "-DAV:|m"])
    }

    @Test("entities, character references and CDATA become their text")
    func text() throws {
        let events = try read(#"<r>&lt;a&gt; &amp; &quot;&apos; &#233;&#x1F600;<![CDATA[<raw>&amp;]]></r>"#)
        #expect(events.dropFirst().dropLast().joined() == "'<a> & \"' é😀''<raw>&amp;'")
    }

    @Test(
        "malformed or dangerous documents are refused with a reason",
        arguments: [
            (#"<!DOCTYPE r [<!ENTITY x "y">]><r/>"#, "a DOCTYPE"),
            ("<r><x:y/></r>", "the undeclared namespace prefix 'x'"),
            ("<r></s>", "an end tag that does not match"),
            ("<r>&bogus;</r>", "the unknown entity '&bogus;'"),
            ("<r a=b/>", "an attribute value without quotes"),
            ("<r/><s/>", "a second root element"),
            (String(repeating: "<a>", count: 300) + String(repeating: "</a>", count: 300), "elements nested too deep"),
        ])
    func refused(text: String, reason: String) {
        #expect {
            try read(text)
        } throws: { error in
            (error as? MinimalXMLReader.Failure).map { $0.reason.hasPrefix(reason) && !$0.isCutShort } == true
        }
    }

    @Test(
        "a document that stops early is cut short, worth asking for again",
        arguments: ["<r><a>", "<r><a x=\"1", "<r><!-- ", "<r/>junk"])
    func cutShort(text: String) {
        #expect {
            try read(text)
        } throws: { error in
            (error as? MinimalXMLReader.Failure)?.isCutShort == true
        }
    }

    @Test(
        "only UTF-8 without NUL is text: a stray, truncated, overlong or surrogate sequence is not",
        arguments: [
            ([UInt8]("<a>héllo 🌍</a>".utf8), true),
            ([], true),
            ([0x3C, 0x00, 0x3E], false),
            ([0x3C, 0xFF, 0x3E], false),
            ([0x3C, 0xE2, 0x82], false),
            ([0xC0, 0xAF], false),
            ([0xED, 0xA0, 0x80], false),
        ])
    func text(bytes: [UInt8], isText: Bool) {
        #expect(MinimalXMLReader.isText(Data(bytes)) == isText)
    }
}
