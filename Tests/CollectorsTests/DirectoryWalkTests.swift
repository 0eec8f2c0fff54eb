import Foundation
import Portable
import TestSupport
import Testing

@testable import Collectors

struct DirectoryWalkTests {
    /// A symbolic link at `path` to `target`, both inside `root`.
    func link(_ root: TemporaryDirectory, _ path: String, to target: String) throws {
        try FileManager.default.createSymbolicLink(atPath: root.file(path), withDestinationPath: root.file(target))
    }

    @Test("matching files in every folder below, hidden ones too; links to folders are not entered")
    func walk() throws {
        let root = TemporaryDirectory("aggctl-walk")
        try root.write("a/b/c/one.jsonl", "1")
        try root.write("a/.hidden/two.jsonl", "2")
        try root.write("three.jsonl", "3")
        try root.write("a/skip.json", "x")
        try root.write("elsewhere/four.jsonl", "4")
        try link(root, "a/linked-folder", to: "elsewhere")
        try link(root, "a/linked.jsonl", to: "three.jsonl")
        let found = DirectoryWalk.files(under: [root.file("a")]) { $0.hasSuffix(".jsonl") }.map(\.path)
        #expect(found.sorted() == ["a/.hidden/two.jsonl", "a/b/c/one.jsonl", "a/linked.jsonl"].map(root.file))
        #expect(DirectoryWalk.files(under: [root.file("missing")]) { _ in true }.isEmpty)
    }

    @Test("each file comes with its identity, through a link as stat gives it; a dangling link with none")
    func identities() throws {
        let root = TemporaryDirectory("aggctl-walk-identity")
        try root.write("logs/one.jsonl", "12345")
        try root.write("elsewhere/target.jsonl", "1")
        try link(root, "logs/linked.jsonl", to: "elsewhere/target.jsonl")
        try link(root, "logs/dangling.jsonl", to: "nowhere.jsonl")
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

struct ByteSearchTests {
    @Test("a fixed text is found in bytes and strings wherever it is, and only where it is")
    func contains() {
        #expect(ByteSearch.contains("/home/.gemini/tmp/0f3a/chats/session-1.json", "/chats/"))
        #expect(!ByteSearch.contains("/home/.gemini/tmp/0f3a/chatsold/session-1.json", "/chats/"))
        #expect(!ByteSearch.contains("", "/chats/"))
        #expect(ByteSearch.contains("/chats/", "/chats/"))
        #expect(ByteSearch.contains("ünïcödé/chats/😀", "/chats/"))
        #expect(!ByteSearch.contains("/chat", "/chats/"))
    }
}
