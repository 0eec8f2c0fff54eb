import Foundation
import TestSupport
import Testing

@testable import Collectors

struct DirectoryWalkTests {
    @Test("matching files in every folder below, hidden ones too; links to folders are not entered")
    func walk() throws {
        let root = TemporaryDirectory("aggctl-walk")
        try root.write("a/b/c/one.jsonl", "1")
        try root.write("a/.hidden/two.jsonl", "2")
        try root.write("three.jsonl", "3")
        try root.write("a/skip.json", "x")
        try root.write("elsewhere/four.jsonl", "4")
        try FileManager.default.createSymbolicLink(
            atPath: root.file("a/linked-folder"), withDestinationPath: root.file("elsewhere"))
        try FileManager.default.createSymbolicLink(
            atPath: root.file("a/linked.jsonl"), withDestinationPath: root.file("three.jsonl"))
        let found = DirectoryWalk.files(under: [root.file("a")]) { $0.hasSuffix(".jsonl") }.map(\.path)
        #expect(found.sorted() == ["a/.hidden/two.jsonl", "a/b/c/one.jsonl", "a/linked.jsonl"].map(root.file))
        #expect(DirectoryWalk.files(under: [root.file("missing")]) { _ in true }.isEmpty)
    }

    @Test("each file comes with its identity, through a link as stat gives it; a dangling link with none")
    func identities() throws {
        let root = TemporaryDirectory("aggctl-walk-identity")
        try root.write("logs/one.jsonl", "12345")
        try root.write("elsewhere/target.jsonl", "1")
        try FileManager.default.createSymbolicLink(
            atPath: root.file("logs/linked.jsonl"), withDestinationPath: root.file("elsewhere/target.jsonl"))
        try FileManager.default.createSymbolicLink(
            atPath: root.file("logs/dangling.jsonl"), withDestinationPath: root.file("nowhere.jsonl"))
        let found = Dictionary(
            uniqueKeysWithValues: DirectoryWalk.files(under: [root.file("logs")]) { _ in true }.map {
                (String($0.path.split(separator: "/").last!), $0.identity)
            })
        #expect(found.count == 3)
        for (name, target) in [("one.jsonl", "logs/one.jsonl"), ("linked.jsonl", "elsewhere/target.jsonl")] {
            let identity = try #require(found[name] ?? nil, "\(name)")
            let expected = try #require(fileIdentity(root.file(target)))
            #expect(identity == expected, "\(name)")
        }
        #expect(found["one.jsonl"]??.size == 5)
        #expect(found["dangling.jsonl"] != nil && found["dangling.jsonl"]! == nil)
    }

    @Test("the files of several folders come as one list, each once")
    func severalFolders() throws {
        let root = TemporaryDirectory("aggctl-walk-folders")
        for name in ["s/b.jsonl", "s/Z.jsonl", "s/deep/e.jsonl", "a/y.jsonl"] { try root.write(name, "x") }
        let found = DirectoryWalk.files(under: [root.file("s"), root.file("a"), root.file("none")]) { _ in true }
            .map(\.path)
        #expect(found.count == 4)
        #expect(Set(found) == Set(["s/b.jsonl", "s/Z.jsonl", "s/deep/e.jsonl", "a/y.jsonl"].map(root.file)))
    }
}
