/// One `aggctl` command: its flags, its help, and what it does. A value rather than a protocol of static
/// members, so the command table is plain data.
struct Command: Sendable {
    var name: String
    /// One line for the command list.
    var summary: String
    var flags: [FlagSpec]
    /// Paragraphs after the flag list in `--help`: defaults, environment, exit codes worth knowing.
    var details: String = ""
    /// Takes one word besides its flags (`aggctl completions bash`).
    var takesArgument = false
    /// How the usage line names that word (`bash|zsh|fish`).
    var argumentName: String?
    /// How many words it takes at most (`prices show MODEL`: two).
    var maximumArguments = 1
    /// Exits 0 whatever happens, output that did not arrive included: `statusline`, whose caller (Claude
    /// Code) shows what it printed and treats a failure as a broken status line.
    var alwaysSucceeds = false
    /// Runs with validated flags. Throws `UsageError` (exit 2) or `CommandFailure` (exit 1).
    var run: @Sendable (ParsedFlags, RunContext) throws -> ExitStatus

    var help: String {
        let synopsis = flags.map { spec in
            spec.repeatable ? "[\(spec.synopsis)]..." : "[\(spec.synopsis)]"
        }.joined(separator: " ")
        let argument = takesArgument ? " " + (argumentName ?? "ARGUMENT") : ""
        let usage = ["aggctl", name + argument, synopsis].filter { !$0.isEmpty }.joined(separator: " ")
        var text = "usage: \(usage)\n\n\(summary)\n\nflags:\n"
        // "--help" is a flag too: the column is as wide as it needs.
        let width = (flags.map(\.synopsis.count) + ["--help".count]).max()! + 2
        for spec in flags {
            text += "  " + spec.synopsis.padded(to: width) + spec.help + "\n"
        }
        text += "  " + "--help".padded(to: width) + "show this help\n"
        if !details.isEmpty { text += "\n" + details + "\n" }
        return text
    }
}

/// Flags several commands share, spelled once.
enum CommonFlags {
    /// The zone local days and months are counted in: `cost`, budgets, the report's spending part.
    static let tz = FlagSpec.option(
        "tz", "ZONE",
        "the time zone days and months are counted in (a tz database name; default: TZ, then /etc/localtime)")
    static let store = FlagSpec.option(
        "store", "S",
        "the store: a folder, file:// URL, http(s):// WebDAV URL or s3://BUCKET/PREFIX/ (default: AGGCTL_STORE, config)"
    )
    static let json = FlagSpec.toggle("json", "print JSON for programs instead of a table")
    static let now = FlagSpec.option("now", "DATE", "evaluate as if it were DATE (RFC 3339), for reproducible output")
    static let staleAfter = FlagSpec.option(
        "stale-after", "SECONDS",
        "figures older than this are marked stale (default 3600; or with a unit: 90s, 15m, 1h, 2d)")
    static let maxSkew = FlagSpec.option(
        "max-skew", "SECONDS", "figures dated further ahead than this have a wrong clock (default 300)")
    static let keyFile = FlagSpec.option(
        "key-file", "F", repeatable: true,
        "the store's record key (aggctl key new): records are sealed with the first, opened with any")
    static let requireEncrypted = FlagSpec.toggle(
        "require-encrypted", "refuse records that are not sealed (each one a problem) instead of reading them")
}

extension Command {
    /// `text` as lines of at most 100 columns, the later ones indented, as the rest of the help is set.
    static func wrapped(_ text: String, width: Int = 100) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = "  "
            }
            line += (line.isEmpty || line == "  " ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines.joined(separator: "\n")
    }
}
