import Foundation
import TestSupport
import Testing

/// `aggctl completions SHELL`, loaded in the real shells and asked what `aggctl st<TAB>` and
/// `aggctl status --<TAB>` complete to.
struct CompletionsEndToEndTests {
    let root = TemporaryDirectory("aggctl-completions")
    static let missing = ["bash", "zsh", "fish"].filter { !RequiredTool.available($0) }
    static let runs = missing.isEmpty || ProcessInfo.processInfo.environment["CI"] == "true"
    static let reason = "needs bash, zsh and fish (Debian bash, zsh, fish)"
    var environment: [String: String] { ["HOME": root.file("home"), "PATH": "/usr/bin:/bin"] }

    func script(_ shell: String) throws -> String {
        let run = try BinaryRun.run(["completions", shell], environment: environment)
        try #require(run.status == 0, "\(run.errors)")
        return try root.write("aggctl.\(shell)", run.output)
    }

    func shell(_ program: String, _ code: String) throws -> [String] {
        let run = try BinaryRun.run(["-c", code], environment: environment, executable: "/usr/bin/\(program)")
        try #require(run.status == 0, "\(program): \(run.errors)")
        return run.output.split(separator: "\n").map(String.init)
    }

    @Test("bash completes commands, a command's flags and a flag's values", .enabled(if: runs, "\(reason)"))
    func bash() throws {
        try #require(Self.missing.isEmpty, "missing under CI: \(Self.missing)")
        let path = try script("bash")
        func complete(_ words: String...) throws -> [String] {
            try shell(
                "bash",
                "source '\(path)'; COMP_WORDS=(\(words.map { "'\($0)'" }.joined(separator: " "))); "
                    + "COMP_CWORD=\(words.count - 1); _aggctl; printf '%s\\n' \"${COMPREPLY[@]}\"")
        }
        #expect(try complete("aggctl", "st") == ["status", "statusline"])
        #expect(
            try Set(complete("aggctl", "status", "--")) == [
                "--store", "--key-file", "--require-encrypted", "--json", "--format", "--provider", "--account",
                "--now",
                "--stale-after", "--max-skew", "--help",
            ])
        #expect(try complete("aggctl", "export", "--format", "p") == ["prometheus"])
        #expect(try complete("aggctl", "status", "--format", "w") == ["waybar"])
        #expect(try complete("aggctl", "publish", "--source", "cl") == ["claude", "claude-api"])
        // Nothing after a flag whose value is typed (it offered every flag), and the shells after completions.
        #expect(try complete("aggctl", "devices", "--forget", "") == [])
        #expect(try complete("aggctl", "status", "--now", "") == [])
        #expect(try Set(complete("aggctl", "completions", "")) == ["bash", "zsh", "fish", "--help"])
    }

    @Test(
        "zsh's completion function describes the commands and each command's arguments", .enabled(if: runs, "\(reason)")
    )
    func zsh() throws {
        try #require(Self.missing.isEmpty, "missing under CI: \(Self.missing)")
        let path = try script("zsh")
        #expect(try shell("zsh", "zsh -n '\(path)' && echo ok") == ["ok"])
        // compsys's `_describe` and `_arguments` stand in as printers: what they are handed is the answer.
        let stubs =
            "compdef() { :; }; _describe() { print -rl -- ${(P)2} }; _arguments() { print -rl -- \"$@\" }; source '\(path)';"
        let commands = try shell("zsh", stubs + " words=(aggctl st); CURRENT=2; _aggctl")
        #expect(
            commands.filter { $0.hasPrefix("st") }.map { String($0.prefix { $0 != ":" }) } == ["status", "statusline"])
        let flags = try shell("zsh", stubs + " words=(aggctl status --); CURRENT=3; _aggctl")
        #expect(flags.contains { $0.hasPrefix("--json[") })
        // `_arguments` is handed the command's own words: the subcommand shifted off, so that it is the
        // command name to compsys (without the shift zsh completed nothing after the subcommand).
        let shifted = try shell(
            "zsh",
            stubs.replacing("_arguments() {", with: "_arguments() { print -r -- \"words=$words current=$CURRENT\";")
                + " words=(aggctl status --); CURRENT=3; _aggctl")
        #expect(shifted.first == "words=status -- current=2", "\(shifted.prefix(2))")
        #expect(flags.contains { $0.hasPrefix("--store[") && $0.hasSuffix(":S:_files") })
    }

    @Test("fish completes commands with their summaries and a command's flags", .enabled(if: runs, "\(reason)"))
    func fish() throws {
        try #require(Self.missing.isEmpty, "missing under CI: \(Self.missing)")
        let path = try script("fish")
        let commands = try shell("fish", "source '\(path)'; complete -C 'aggctl st'")
        #expect(commands.map { String($0.prefix { $0 != "\t" }) } == ["status", "statusline"])
        let flags = try shell("fish", "source '\(path)'; complete -C 'aggctl status --'")
        #expect(
            Set(flags.map { String($0.prefix { $0 != "\t" }) }) == [
                "--store", "--key-file", "--require-encrypted", "--json", "--format", "--provider", "--account",
                "--now",
                "--stale-after", "--max-skew",
            ])
        let values = try shell("fish", "source '\(path)'; complete -C 'aggctl export --format '")
        #expect(values.map { String($0.prefix { $0 != "\t" }) } == ["csv", "prometheus"])
    }

    @Test("an unknown shell is a usage error naming the ones there are")
    func unknownShell() throws {
        let run = try BinaryRun.run(["completions", "tcsh"], environment: environment)
        #expect(run.status == 2)
        #expect(run.errors.contains("'tcsh' is not a shell aggctl completes; expected bash, zsh or fish"))
    }
}
