import Testing

@testable import AggctlCLI

struct ArgumentLexerTests {
    @Test("--flag=value, --flag value, -, -h and -- split as a user expects")
    func splitting() {
        #expect(
            ArgumentLexer.tokens(["--store=/a=b", "--json", "--from", "-", "-h", "--", "--not-a-flag", "x"]) == [
                .flag(name: "store", value: "/a=b"), .flag(name: "json", value: nil), .flag(name: "from", value: nil),
                .positional("-"), .shortFlag("-h"), .positional("--not-a-flag"), .positional("x"),
            ])
    }

    @Test("an empty value after = is still a value")
    func emptyValue() {
        #expect(ArgumentLexer.tokens(["--store="]) == [.flag(name: "store", value: "")])
    }
}

struct FlagParserTests {
    let specs = [
        FlagSpec.option("store", "S", "store"), FlagSpec.option("from", "FILE", repeatable: true, "input"),
        FlagSpec.toggle("json", "json"),
    ]

    private func parse(_ words: [String]) throws -> ParsedFlags {
        try ParsedFlags.parse(ArgumentLexer.tokens(words), specs: specs, command: "status")
    }

    @Test("values, toggles and repeated flags are collected")
    func collects() throws {
        let flags = try parse(["--store", "/s", "--json", "--from=a", "--from", "b"])
        #expect(flags.value(specs[0]) == "/s")
        #expect(flags.isSet(specs[2]))
        #expect(flags.all(specs[1]) == ["a", "b"])
        #expect(flags.setting(specs[0]) == Setting(value: "/s", source: .flag("store")))
        #expect(!flags.wantsHelp)
    }

    @Test(
        "mistakes are usage errors that name the flag",
        arguments: [
            (["--bogus"], "unknown flag '--bogus' for 'status'"),
            (["-x"], "unknown flag '-x' for 'status'"),
            (["--store"], "--store needs a value: --store S"),
            (["--store", "--json"], "--store needs a value: --store S"),
            (["--json=yes"], "--json takes no value"),
            (["--store", "a", "--store", "b"], "--store is given more than once"),
            (["stray"], "unexpected argument 'stray' for 'status'"),
        ])
    func mistakes(words: [String], message: String) {
        #expect(throws: UsageError(message, command: "status")) { try parse(words) }
    }

    @Test("--help and -h ask for help wherever they appear")
    func help() throws {
        #expect(try parse(["--store", "/s", "--help"]).wantsHelp)
        #expect(try parse(["-h"]).wantsHelp)
    }
}
