import Foundation
import Portable
import Testing

/// The helpers that replace what aggctl used of Foundation beyond FoundationEssentials, checked against
/// Foundation itself (which the tests may link) on the inputs that matter: the same answers, or a test fails.
struct PortableTests {
    static let texts = [
        "", " ", "  a b  ", "\t x\t", "\n x \n", "\r\n key = value \r\n", "\u{00A0}nbsp\u{00A0}", "\u{2028}ls\u{2029}",
        "\u{3000}ideographic\u{3000}", "a\u{0301} ", " \u{0301}", "(name).;", "..;end;.", "日本語", "   ",
    ]

    @Test("trimming blanks, white space and characters as Foundation's trimmingCharacters(in:) does")
    func trimming() {
        for text in Self.texts {
            #expect(text.trimmingBlanks() == text.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
            #expect(
                text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespacesAndNewlines),
                "\(text.debugDescription)")
            #expect(
                text.trimming(charactersIn: "().;") == text.trimmingCharacters(in: CharacterSet(charactersIn: "().;")),
                "\(text.debugDescription)")
        }
    }

    @Test("percent-encoding as Foundation's addingPercentEncoding and removingPercentEncoding")
    func percentEncoding() {
        let allowed = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
        let encoding = PercentEncoding(keeping: allowed)
        for text in Self.texts + ["a/b?c=d&e", "100%", "x+y z", "\u{1F30D}", "~user"] {
            #expect(
                encoding.encode(text)
                    == text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: allowed)))
            let decoded: String? = PercentEncoding.decode(encoding.encode(text))
            #expect(decoded == text)
        }
        for encoded in ["a%20b", "%E6%97%A5", "%", "%2", "%zz", "%FF", "%C3%28", "plain", "%2F%2f"] {
            #expect(PercentEncoding.decode(encoded) == encoded.removingPercentEncoding, "\(encoded)")
        }
    }

    /// What NSString's `deletingLastPathComponent` answers for each, one by one (in a loop, this
    /// toolchain's Foundation traps inside it on some of them; one more reason not to depend on it).
    @Test(
        "a path's folder as NSString's deletingLastPathComponent gives it",
        arguments: [
            ("/a/b", "/a"), ("/a/b/", "/a"), ("/a", "/"), ("/", "/"), ("a", ""), ("a/b", "a"), ("a/b//", "a"),
            ("/a//b", "/a"), ("//a", "/"),
        ])
    func parentFolder(path: String, parent: String) {
        #expect(FileSystem.parent(of: path) == parent)
    }

    @Test("numbers formatted as String(format:), padding as padding(toLength:withPad:startingAt:)")
    func formatting() {
        for value in [0.0, 0.05, 0.15, 0.25, 1.005, 2.675, 999.95, 1e9 + 0.05, -0.05, 123456.789] {
            #expect(String(cFormat: "%.1f", value) == String(format: "%.1f", value))
            #expect(String(cFormat: "$%.2f", value) == String(format: "$%.2f", value))
        }
        for text in ["", "doctor", "credentials", "a-long-command-name"] {
            #expect(text.padded(to: 12) == text.padding(toLength: 12, withPad: " ", startingAt: 0))
        }
    }

    @Test("case-insensitive search finds ASCII words in any case, at their place in the original text")
    func caseInsensitiveSearch() throws {
        let text = "Claude AI usage LIMIT reached|1764000000"
        let range = try #require(text.firstRange(ofCaseInsensitive: "limit reached"))
        #expect(text[range] == "LIMIT reached")
        #expect(text.firstRange(ofCaseInsensitive: "weekly") == nil)
        #expect("日本 Limit".firstRange(ofCaseInsensitive: "limit").map { "日本 Limit"[$0] } == "Limit")
    }

    @Test("the home folder as NSHomeDirectory, and a file error's reason in words")
    func homeAndReasons() {
        #expect(FileSystem.homeDirectory() == NSHomeDirectory())
        let error = #expect(throws: (any Error).self) {
            try FileManager.default.createDirectory(
                atPath: "/nonexistent-\(UUID())/x", withIntermediateDirectories: false)
        }
        #expect(error?.reason == "no such file or directory")
    }

    @Test("the lock keeps a counter exact under contention")
    func lock() {
        let lock = Lock()
        nonisolated(unsafe) var count = 0
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { lock.withLock { count += 1 } }
        }
        #expect(count == 80_000)
    }

    @Test("the cores to use as ProcessInfo counts them; a cgroup quota caps them, rounded up")
    func processors() throws {
        #expect(Processors.available() == ProcessInfo.processInfo.activeProcessorCount)
        #if os(Linux)
            let root = NSTemporaryDirectory() + "aggctl-cgroup-\(UUID())"
            defer { try? FileManager.default.removeItem(atPath: root) }
            try FileSystem.createFolders(root + "/cpu")
            func write(_ name: String, _ text: String) throws {
                try Data(text.utf8).write(to: URL(fileURLWithPath: root + "/" + name))
            }
            #expect(Processors.quotaCores(root: root) == nil)
            try write("cpu/cpu.cfs_quota_us", "-1\n")
            try write("cpu/cpu.cfs_period_us", "100000\n")
            #expect(Processors.quotaCores(root: root) == nil)
            try write("cpu/cpu.cfs_quota_us", "250000\n")
            #expect(Processors.quotaCores(root: root) == 3)
            // cgroup v2 wins where both are present.
            try write("cpu.max", "max 100000\n")
            #expect(Processors.quotaCores(root: root) == nil)
            try write("cpu.max", "50000 100000\n")
            #expect(Processors.quotaCores(root: root) == 1)
            try write("cpu.max", "200000 100000\n")
            #expect(Processors.quotaCores(root: root) == 2)
        #endif
    }

    @Test("folders made with their missing parents, private; a file in the way is an error that says so")
    func createFolders() throws {
        let folder = NSTemporaryDirectory() + "aggctl-portable-\(UUID())"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let deep = folder + "/a/b/c"
        try FileSystem.createFolders(deep)
        try FileSystem.createFolders(deep)  // again: nothing to do
        for path in [folder, folder + "/a", folder + "/a/b", deep] {
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect(info.st_mode & S_IFMT == S_IFDIR)
            #expect(info.st_mode & 0o777 == 0o700)
        }
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/file"))
        #expect(throws: POSIXError.self) { try FileSystem.createFolders(folder + "/file/inner") }
        let inTheWay = #expect(throws: POSIXError.self) { try FileSystem.createFolders(folder + "/file") }
        #expect(inTheWay?.reason == "not a directory")
    }

    @Test("a file's contents as FileManager reads them; nil for a missing file or a folder")
    func fileContents() throws {
        let folder = NSTemporaryDirectory() + "aggctl-portable-\(UUID())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for size in [0, 1, 4095, 4096, 70_000] {
            let path = folder + "/f\(size)"
            let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 * 7) })
            try bytes.write(to: URL(fileURLWithPath: path))
            #expect(FileSystem.contents(of: path) == bytes)
            #expect(FileSystem.contents(of: path) == FileManager.default.contents(atPath: path))
        }
        #expect(FileSystem.contents(of: folder + "/missing") == nil)
        #expect(FileSystem.contents(of: folder) == nil)
    }

    @Test("a mapped file holds the bytes FileManager reads; nil for a missing or empty file or a folder")
    func mappedFile() throws {
        let folder = NSTemporaryDirectory() + "aggctl-portable-mapped-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for size in [1, 4095, 4096, 70_000] {
            let path = folder + "/f\(size)"
            let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 * 13) })
            try bytes.write(to: URL(fileURLWithPath: path))
            let mapped = try #require(MappedFile(path: path))
            #expect(Data(mapped.bytes) == bytes)
        }
        try Data().write(to: URL(fileURLWithPath: folder + "/empty"))
        #expect(MappedFile(path: folder + "/empty") == nil)
        #expect(MappedFile(path: folder + "/missing") == nil)
        #expect(MappedFile(path: folder) == nil)
        // A FIFO in a cache file's place is refused at once, not waited on.
        #expect(mkfifo(folder + "/fifo", 0o600) == 0)
        #expect(MappedFile(path: folder + "/fifo") == nil)
        #expect(FileSystem.contents(of: folder + "/fifo") == nil)
    }

    @Test("a kept file whose first bytes are turned away is neither read nor mapped; any other is, whole")
    func fileJudgedByItsHead() throws {
        let folder = NSTemporaryDirectory() + "aggctl-portable-head-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let head = FileSystem.headSize
        for size in [1, head, head + 1, 3 * head + 5] {
            let path = folder + "/f\(size)"
            let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 * 11) })
            try bytes.write(to: URL(fileURLWithPath: path))
            var shown: [Data] = []
            let judge = { (first: UnsafeRawBufferPointer) -> Bool in
                shown.append(Data(first))
                return true
            }
            let read = FileSystem.contents(of: path, unless: judge)
            let mapped = MappedFile(path: path, unless: judge)
            if size <= head {
                // Small enough to be judged whole by its own reader: read without asking.
                #expect(shown.isEmpty)
                #expect(read == bytes)
                #expect(mapped.map { Data($0.bytes) } == bytes)
            } else {
                #expect(shown == [bytes.prefix(head), bytes.prefix(head)])
                #expect(read == nil)
                #expect(mapped == nil)
            }
            #expect(FileSystem.contents(of: path, unless: { _ in false }) == bytes)
            #expect(MappedFile(path: path, unless: { _ in false }).map { Data($0.bytes) } == bytes)
        }
        #expect(FileSystem.contents(of: folder + "/missing", unless: { _ in false }) == nil)
        #expect(FileSystem.contents(of: folder, unless: { _ in false }) == nil)
    }

    @Test("figures without a needless fraction, others in the shortest form that reads back the same")
    func plainText() {
        #expect(62.0.plainText == "62")
        #expect((-0.0).plainText == "0")
        #expect(37.5.plainText == "37.5")
        #expect(0.1.plainText == "0.1")
        #expect(999_999_999_999_999.0.plainText == "999999999999999")
        // From 10^15 on a double is no longer exact in every unit: Swift's own form.
        #expect(1e15.plainText == "1000000000000000.0")
    }

    @Test("percent-escapes decoded leniently, as servers' hrefs are read: a stray % stays")
    func lenientPercentDecoding() {
        func decoded(_ text: String) -> String {
            String(decoding: PercentEncoding.decodeLeniently(Array(text.utf8)), as: UTF8.self)
        }
        #expect(decoded("caf%C3%A9%20x") == "café x")
        #expect(decoded("100%") == "100%")
        #expect(decoded("%4") == "%4")
        #expect(decoded("%zz%41") == "%zzA")
        #expect(decoded("a%2fb") == "a/b")
    }

    @Test("ASCII white space trimmed from bytes, nothing else")
    func asciiTrimming() {
        #expect(String(decoding: Array(" \t\r\n a b \n".utf8).trimmingASCIIWhitespace(), as: UTF8.self) == "a b")
        #expect(Array(" \n\t".utf8).trimmingASCIIWhitespace().isEmpty)
        #expect(String(Substring("\u{A0}x\u{A0}".utf8.trimmingASCIIWhitespace())) == "\u{A0}x\u{A0}")
    }

    @Test("the environment as ProcessInfo reads it, values with = and non-ASCII included")
    func environmentAsProcessInfo() {
        setenv("AGGCTL_TEST_ENVIRONMENT", "a=b=c caf\u{E9}", 1)
        setenv("AGGCTL_TEST_EMPTY", "", 1)
        defer {
            unsetenv("AGGCTL_TEST_ENVIRONMENT")
            unsetenv("AGGCTL_TEST_EMPTY")
        }
        let environment = ProcessEnvironment.current()
        #expect(environment["AGGCTL_TEST_ENVIRONMENT"] == "a=b=c caf\u{E9}")
        #expect(environment["AGGCTL_TEST_EMPTY"] == "")
        #expect(environment == ProcessInfo.processInfo.environment)
    }
}
