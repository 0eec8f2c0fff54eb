import Aggregator
import Portable
import Serialization
import Snapshots

/// `serve`'s page: the report's page with a live part on top, kept current by `/dashboard.js` from
/// `/api/status` without a reload (docs/serve.md).
///
/// The live part (an alert list and a card per account) is drawn here and by the script with the same
/// rules (`LiveText` and its twin in `DashboardScript`), so the first paint and every update read alike.
/// Without figures it is the shell a browser gets before it gives the token: nothing from the store.
struct DashboardPage {
    var result: MergeResult
    /// Seconds between the script's polls (`--refresh`).
    var refresh: Int
    /// False for the shell: no account, no name, no figure.
    var withFigures: Bool
    var tokenRequired: Bool
    /// The spending part, from the ledger (nil: none shown).
    var spending: ReportSpending?

    /// The page's policy: the report's, plus the one script from this server and its requests to it. No
    /// form is ever sent: the token form is the script's to read, and with scripts off a submitted form
    /// would carry the token to the server in a request (`form-action 'none'`).
    static let policy =
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; connect-src 'self'; img-src 'self' data:; "
        + "form-action 'none'"

    /// The page's bytes: written into one buffer (the report's sections are 17 MB at 1000 records), not
    /// built as strings and copied.
    func render() -> [UInt8] {
        let out = ByteOutput(capacity: 64 * 1024 + (withFigures ? result.accounts.count * 14 * 1024 : 0), sink: nil)
        let now = RFC3339.format(result.now)
        out.string(
            """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="\(Self.policy)">
            <meta name="generator" content="aggctl \(Aggctl.version)">
            <link rel="icon" href="data:,">
            <title>aggctl dashboard</title>
            <style>\(ReportPage.style)\(Self.style)</style>
            <script src="/dashboard.js" defer></script>
            </head>
            <body data-refresh="\(refresh)" data-token="\(tokenRequired ? "required" : "none")">
            <header><h1>aggctl</h1><p class="meta">\
            <span id="as-of">\(withFigures ? "as of <time datetime=\"\(now)\">\(now)</time>" : "waiting for the token")\
            </span> · <span id="state">\(withFigures ? "live" : "")</span></p></header>
            <form id="token" method="post"\(withFigures || !tokenRequired ? " hidden" : "")><label>Token \
            <input type="password" name="token" autocomplete="off" required></label> <button>Open</button></form>

            """)
        var html = ""
        let alerts = withFigures ? LiveText.alerts(result) : []
        html += "<section id=\"alerts\"\(alerts.isEmpty ? " hidden" : "")><h2>Alerts</h2><ul>"
        for alert in alerts { html += "<li class=\"level \(alert.level)\">\(HTML.text(alert.text, limit: 200))</li>" }
        html += "</ul></section>\n<section id=\"live\"><h2>Accounts</h2><div class=\"cards\">"
        if withFigures {
            for account in result.accounts { html += Self.card(account, now: result.now) }
        }
        html += "</div></section>\n"
        out.string(html)
        if withFigures {
            // The report's sections below: charts and ledgers, current as of the page's load.
            out.string(
                """
                <div id="report"><p class="meta">History and devices as of \(now), when the page was loaded; \
                the accounts above stay current.</p>
                """)
            var report = ReportPage(result: result, days: 7)
            report.spending = spending
            report.writeSections(to: out)
            out.text("</div>\n")
        }
        out.text("</body>\n</html>\n")
        var bytes: [UInt8] = []
        out.withBytes { bytes = Array($0) }
        return bytes
    }

    /// An account's card: its windows and limits as bars with a line each.
    static func card(_ account: MergedAccount, now: Date) -> String {
        var html = """
            <article class="card" data-key="\(HTML.text(LiveText.key(account)))">\
            <h3>\(HTML.text(ProviderNames.displayName(of: account.providerID))) \
            <span class="email">\(HTML.text(account.accountEmail ?? "(no e-mail, \(account.deviceName))", limit: 120))</span></h3>\
            <p class="meta">\(HTML.text(LiveText.meta(account), limit: 160))</p><ul class="bars">
            """
        for row in LiveText.rows(account, now: now) {
            html += """
                <li class="level \(row.level)" data-window="\(HTML.text(row.id))"><span class="name">\
                \(HTML.text(row.label, limit: 60))</span><span class="bar"><i style="width:\
                \(HTML.number(row.width))%"></i></span><span class="text">\(HTML.text(row.text, limit: 120))</span></li>
                """
        }
        return html + "</ul></article>\n"
    }

    static let style = """
        .cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(280px,1fr));gap:10px}
        .card{border:1px solid var(--grid);border-radius:8px;padding:10px;min-width:0}
        .card h3{font-size:1rem;margin:0 0 2px}.bars{list-style:none;padding:0;margin:6px 0 0}
        .bars li{display:grid;grid-template-columns:6.5em 1fr;gap:2px 8px;align-items:center;margin:4px 0}
        .bars .name{font-size:.85rem}.bars .text{grid-column:2;font-size:.85rem}
        .bar{height:8px;border-radius:4px;background:var(--grid);overflow:hidden}
        .bar i{display:block;height:100%;background:var(--ok)}
        .level.warning .bar i{background:var(--warn)}.level.critical .bar i,.level.depleted .bar i{background:var(--bad)}
        .level.unknown .bar i{background:var(--muted)}
        #alerts ul{margin:0;padding-left:1.2em}#token{margin:10px 0}#state.stale{color:var(--warn)}
        """
}

/// What the live part says, by the rules the script follows too (`DashboardScript`): change one, change
/// the other, and `DashboardBrowserTests` compares the two.
enum LiveText {
    struct Row: Equatable {
        var id: String
        var label: String
        var level: String
        /// The bar's length: the used percent, within 0...100.
        var width: Double
        var text: String
    }

    struct Alert: Equatable {
        var level: String
        var text: String
    }

    /// `provider:email`, or `provider:device` for an account without an e-mail.
    static func key(_ account: MergedAccount) -> String {
        account.providerID + ":" + (account.accountEmail ?? account.deviceID.rawValue)
    }

    static func meta(_ account: MergedAccount) -> String {
        [account.plan, "from " + account.deviceName, account.stale ? "stale" : nil, account.error]
            .compactMap { $0 }.joined(separator: " · ")
    }

    static func rows(_ account: MergedAccount, now: Date) -> [Row] {
        var rows: [Row] = []
        if let session = account.session { rows.append(row("session", "Session", session, now: now)) }
        if let weekly = account.weekly { rows.append(row("weekly", "Weekly", weekly, now: now)) }
        for limit in account.limits ?? [] { rows.append(row(limit.id, limit.label, limit.window, now: now)) }
        return rows
    }

    static func row(_ id: String, _ label: String, _ window: WindowStatus, now: Date) -> Row {
        let level = StatusReport.level(of: window)
        var text: String
        if window.due {
            text = "due: reset since its figures were read"
        } else {
            text = level == "depleted" ? "used up" : percent(window.remainingPercent) + " left"
            if let resetsAt = window.resetsAt {
                let seconds = resetsAt.timeIntervalSince(now)
                text += " · resets " + (seconds <= 0 ? "due" : "in " + duration(seconds))
            }
            if let pace = window.pace(at: now), level != "depleted" { text += " · " + paceText(pace) }
        }
        return Row(id: id, label: label, level: level, width: min(100, max(0, window.usedPercent)), text: text)
    }

    /// Each window that is used up, critical or at a warning, worst first, then as the cards are ordered.
    static func alerts(_ result: MergeResult) -> [Alert] {
        var found: [(rank: Int, alert: Alert)] = []
        for account in result.accounts {
            let who =
                ProviderNames.displayName(of: account.providerID) + " "
                + (account.accountEmail ?? account.deviceName)
            for row in rows(account, now: result.now) {
                guard let rank = ["depleted", "critical", "warning"].firstIndex(of: row.level) else { continue }
                found.append((rank, Alert(level: row.level, text: "\(who): \(row.label) \(row.text)")))
            }
        }
        return found.enumerated().sorted { ($0.element.rank, $0.offset) < ($1.element.rank, $1.offset) }
            .map(\.element.alert)
    }

    /// The twin of the script's `percent`: `HumanFormat.percent`.
    static func percent(_ remaining: Double) -> String { HumanFormat.percent(remaining) }

    /// The twin of the script's `duration`: `DurationText.short`.
    static func duration(_ seconds: Double) -> String { DurationText.short(seconds) }

    /// The twin of the script's `pace`: `HumanFormat.pace`.
    static func paceText(_ pace: Pace) -> String { HumanFormat.pace(pace) }
}
