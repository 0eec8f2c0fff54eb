import Aggregator
import Portable
import Serialization
import TextSafety

/// `status --format line`, `--format tmux` and `--format waybar`: the merged view in a status bar's few
/// characters, each escaped for its bar: a plain line has no control character; tmux reads `#[...]` in
/// a command's output as styles, so every `#` is doubled; waybar reads `text` and `tooltip` as Pango
/// markup, so `&`, `<` and `>` are entities (an email holding `&` broke the module, `<span>` restyled it).
///
/// Each account shows its tightest window (the least remaining of session, weekly and binding limits,
/// leaving out windows whose reset has passed), and when that window is used up, the time until it
/// resets: `Claude 57% · Codex depleted 1h15m`; a used-up limit of one model or feature by its label
/// (`Claude 57%, Opus used up`); `due` when every window has reset since its figures were read, and
/// `(stale)` after figures older than `--stale-after`. Several accounts of one provider are told apart by
/// their e-mail's local part: `Claude (work) 8%`.
enum StatusBar {
    /// The most columns an account's name takes in a bar (its e-mail's local part), and its e-mail in a
    /// tooltip line: a bar has a few dozen columns, and one record must not take them all.
    static let nameWidth = 24
    static let emailWidth = 64
    /// The most columns the whole line takes (many accounts, or a provider id of megabytes).
    static let lineWidth = 400

    /// How many accounts each provider has: those with several are told apart.
    static func accountsPerProvider(_ result: MergeResult) -> [String: Int] {
        result.accounts.reduce(into: [:]) { $0[$1.providerID, default: 0] += 1 }
    }

    static func part(_ account: MergedAccount, in result: MergeResult, counts: [String: Int]) -> String {
        var name = ProviderNames.displayName(of: account.providerID)
        if counts[account.providerID, default: 0] > 1 {
            let local = account.accountEmail.map { String($0.prefix { $0 != "@" }) } ?? account.deviceName
            name += " (\(TerminalWidth.cut(SafeText.line(local), to: StatusBar.nameWidth)))"
        }
        var text = name + " " + figure(of: account, now: result.now)
        for limit in account.usedUpLimits {
            text += ", " + TerminalWidth.cut(SafeText.line(limit.label), to: StatusBar.nameWidth) + " used up"
        }
        return text + (account.stale ? " (stale)" : "")
    }

    /// The tightest window's figure: `57%`, `depleted 1h15m`, `due` (every window has reset since), `-`.
    static func figure(of account: MergedAccount, now: Date) -> String {
        guard let window = account.tightestWindow else {
            return account.windows.contains { $0.window.due } ? "due" : "-"
        }
        guard window.level == .depleted else { return HumanFormat.percent(window.remainingPercent) }
        let reset = window.resetsAt.flatMap { $0 > now ? $0 : nil }.map {
            " " + DurationText.short($0.timeIntervalSince(now)).replacing(" ", with: "")
        }
        return "depleted" + (reset ?? "")
    }

    static func line(_ result: MergeResult) -> String {
        guard !result.accounts.isEmpty else { return "no accounts" }
        let counts = accountsPerProvider(result)
        let parts = result.accounts.map { part($0, in: result, counts: counts) }
        return TerminalWidth.cut(SafeText.line(parts.joined(separator: " · ")), to: lineWidth)
    }

    /// The line for tmux's `status-right`: `#` doubled, so record text cannot restyle the bar or run a
    /// command (`#[fg=red]`, `#(...)`).
    static func tmux(_ result: MergeResult) -> String {
        line(result).replacing("#", with: "##")
    }

    /// waybar's custom module JSON: `text`, `tooltip` (a line per account), `class` (the worst level),
    /// `percentage` (the least remaining, whole percent).
    static func waybar(_ result: MergeResult) -> String {
        let windows = result.accounts.compactMap(\.tightestWindow)
        let counts = accountsPerProvider(result)
        let worst = windows.min { $0.remainingPercent < $1.remainingPercent }
        var json = StatusJSONWriter()
        json.object { json in
            json.key("class")
            json.string(worst?.level.rawValue ?? "ok")
            json.key("percentage")
            json.int(worst.map { Int($0.remainingPercent.rounded(.down)) } ?? 100)
            json.key("text")
            json.string(SafeText.markup(line(result)))
            json.key("tooltip")
            json.string(
                result.accounts.map { account in
                    SafeText.markup(
                        SafeText.line(
                            part(account, in: result, counts: counts)
                                + (account.accountEmail.map {
                                    " · " + TerminalWidth.cut(SafeText.line($0), to: StatusBar.emailWidth)
                                } ?? "")))
                }.joined(separator: "\n"))
        }
        return json.text
    }
}
