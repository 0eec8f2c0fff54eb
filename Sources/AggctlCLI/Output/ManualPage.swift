import Collectors
import Notify
import Portable
import Stores

/// The manual page, `aggctl.1`, in mdoc: made from the commands' declarations (the same ones `--help` and
/// the completions come from), with the environment, files and exit codes every command shares.
enum ManualPage {
    /// Text safe in mdoc: backslashes escaped, a line never starting with a control character.
    static func text(_ value: String) -> String {
        let escaped = value.replacing("\\", with: "\\e")
        return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
    }

    /// Prose as mdoc wants it: each sentence on lines of its own, lines of at most 78 bytes, escaped.
    static func prose(_ value: String) -> String {
        let words = value.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        var lines: [String] = []
        var line = ""
        for (index, word) in words.enumerated() {
            if !line.isEmpty, line.utf8.count + 1 + word.utf8.count > 78 {
                lines.append(line)
                line = ""
            }
            line += line.isEmpty ? word : " " + word
            // A sentence ends a line: the next one starts a new line.
            let next = index + 1 < words.count ? words[index + 1] : ""
            if let last = word.last, ".!?".contains(last), let first = next.first, first.isUppercase || first == "(" {
                lines.append(line)
                line = ""
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines.map(text).joined(separator: "\n")
    }

    /// The variables of the run itself.
    static let general: [(String, String)] = [
        ("AGGCTL_STORE", "the store, when --store is not given"),
        ("AGGCTL_HTTP_TIMEOUT", "seconds per HTTP request (default 30)"),
        ("AGGCTL_CA_FILE", "a PEM file of certificates to trust for https"),
        ("AGGCTL_LIBCURL", "the libcurl to load instead of libcurl.so.4"),
        ("AGGCTL_LIBSODIUM", "the libsodium to load instead of libsodium.so.23 (sealed records)"),
        ("AGGCTL_LIBMICROHTTPD", "the libmicrohttpd to load instead of libmicrohttpd.so.12 (serve)"),
        (
            "AGGCTL_SERVE_TIMEOUT",
            "seconds serve lets a connection be silent, and a request's headers take (default 10)"
        ),
        ("AGGCTL_SERVE_ANSWER_TIMEOUT", "seconds serve lets an answer take to be sent (default 120)"),
        ("XDG_STATE_HOME, XDG_CONFIG_HOME", "where state (history, alerts, caches) and the config file live"),
        ("NO_COLOR", "no colour in tables"),
    ]

    /// Every variable aggctl reads: the general ones, then what each store, collector and notifier
    /// declares.
    static var environment: [(String, String)] {
        let stores: [(String, String)] = StoreRegistry.standard.backends.flatMap(\.variables).map {
            ($0.names, $0.meaning)
        }
        let collectors: [(String, String)] = CollectorRegistry.standard.kinds.flatMap(\.variables).map {
            ($0.name, $0.meaning)
        }
        let notifiers: [(String, String)] = NotifierRegistry.standard.kinds.flatMap(\.variables).map {
            ($0.name, $0.meaning)
        }
        return general.prefix(1) + stores + general.dropFirst() + collectors + notifiers
    }

    static func render(commands: [Command], version: String) -> String {
        var page = """
            .Dd December 1, 2026
            .Dt AGGCTL 1
            .Os
            .Sh NAME
            .Nm aggctl
            .Nd merge AI coding-agent usage limits from every machine
            .Sh SYNOPSIS
            .Nm
            .Ar command
            .Op Ar flags
            .Nm
            .Fl \\-version | \\-help
            .Sh DESCRIPTION
            Every machine runs
            .Nm Cm publish
            to write one record of its agents' usage into a shared store
            (a folder, a WebDAV collection or an S3 bucket); anywhere,
            .Nm Cm status
            merges the records by provider and account and shows how much is left,
            at what pace, and where each figure came from, and
            .Nm Cm check
            tells when a window runs out or comes back, exactly once.
            This page describes
            .Nm
            \(text(version)).
            .Sh COMMANDS

            """
        for command in commands {
            page += ".Ss \(command.name)\n\(prose(command.summary))\n"
            if !command.flags.isEmpty {
                page += ".Bl -tag -width Ds\n"
                for spec in command.flags {
                    page += ".It Fl \\-\(spec.name)" + (spec.valueName.map { " Ar \(text($0))" } ?? "") + "\n"
                    page += prose(spec.help + (spec.repeatable ? " (may be given more than once)" : "")) + "\n"
                }
                page += ".El\n"
            }
            if !command.details.isEmpty {
                // Indented lines are examples, shown as they are; the rest is prose.
                page += ".Pp\n"
                var paragraph: [String] = []
                func flush() {
                    if !paragraph.isEmpty { page += prose(paragraph.joined(separator: " ")) + "\n" }
                    paragraph = []
                }
                for line in command.details.split(separator: "\n", omittingEmptySubsequences: false) {
                    if line.hasPrefix("  ") {
                        flush()
                        page += ".Dl " + text(line.trimmingBlanks()) + "\n"
                    } else if line.trimmingBlanks().isEmpty {
                        flush()
                        page += ".Pp\n"
                    } else {
                        paragraph.append(String(line))
                    }
                }
                flush()
            }
        }
        page += ".Sh ENVIRONMENT\n.Bl -tag -width Ds\n"
        for (names, meaning) in environment {
            page +=
                ".It Ev \(names.split(separator: ", ", omittingEmptySubsequences: false).joined(separator: " , Ev "))\n\(prose(meaning))\n"
        }
        page += """
            .El
            .Sh FILES
            .Bl -tag -width Ds
            .It Pa ~/.config/aggctl/config
            defaults: store, device-id, device-name, stale-after, max-skew, one
            .Ql key = value
            a line
            .It Pa ~/.local/state/aggctl/
            the device id, the history of each window, the alert state and outbox,
            the caches
            .El
            .Sh EXIT STATUS
            .Bl -tag -width Ds
            .It 0
            success (problems with single records are reported, not fatal)
            .It 1
            the run failed: the store unreachable, input unreadable, state unwritable
            .It 2
            a usage error: an unknown command or flag, a bad value
            .El
            .Sh EXAMPLES
            .Dl aggctl publish \\-\\-store ~/Sync/aggctl \\-\\-source codex \\-\\-source claude
            .Dl aggctl status \\-\\-store ~/Sync/aggctl
            .Dl aggctl check \\-\\-store ~/Sync/aggctl \\-\\-warn\\-at 25,10 \\-\\-warn\\-pace

            """
        return page
    }
}
