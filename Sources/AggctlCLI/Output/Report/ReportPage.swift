import Aggregator
import Portable
import Serialization
import Snapshots

/// `aggctl report`: one self-contained HTML page of the merged view and its history.
///
/// Inline CSS and SVG only: no script, no font, no image, no link that loads anything. The page's
/// Content-Security-Policy says so too (`default-src 'none'`), so a browser refuses anything else even
/// if record text tried. Every text from a record goes through `HTML.text`. Colours follow the reader's
/// light or dark setting; the layout is one column on a phone.
struct ReportPage {
    var result: MergeResult
    /// How many days the window lines show (`--days`).
    var days: Int
    /// Past weeks' forecasts per account, by `AccountKey.description`.
    var forecasts: [String: WeeklyForecast] = [:]
    /// The reader's zone: the page says when it was made in it, with the zone named.
    var zone: ZoneInfo = .utc
    /// What the ledger says was spent (nil: the page shows no spending part).
    var spending: ReportSpending?

    var now: Date { result.now }
    var lineStart: Date { now.addingTimeInterval(-Double(days) * 86_400) }

    /// The page as a string (tests, and the dashboard's shell).
    func render() -> String {
        let out = ByteOutput(capacity: 64 * 1024, sink: nil)
        write(to: out)
        return out.text
    }

    /// Writes the page into `out`, which sends it on as it fills when it has a sink: the page is never
    /// whole in memory (17 MB at 1000 records).
    func write(to out: ByteOutput) {
        let plural = { (count: Int) in count == 1 ? "" : "s" }
        out.string(
            """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
            <meta name="generator" content="aggctl \(Aggctl.version)">
            <title>aggctl report, \(RFC3339.format(now))</title>
            <style>\(Self.style)</style>
            </head>
            <body>
            <header><h1>Usage report</h1>
            <p>\(result.accounts.count) account\(plural(result.accounts.count)) on \(result.devices.count) \
            device\(plural(result.devices.count)), as of <time datetime="\(RFC3339.format(now))">\
            \(HTML.text(zone.peopleText(now)))</time>; window lines of the last \(days) day\(plural(days)), daily \
            tokens and cost of the last 30.</p></header>

            """)
        writeSections(to: out)
        out.text("</body>\n</html>\n")
        out.flush()
    }

    /// The page's sections: totals, an account each, devices and the records not read (`serve`'s
    /// dashboard shows them under its live part).
    func writeSections(to out: ByteOutput) {
        out.string(totals())
        // The legend names each device as people know it (its id only where it has no name).
        var names: [DeviceID: String] = [:]
        for device in result.devices where names[device.deviceID] == nil { names[device.deviceID] = device.deviceName }
        let dates = Days(Self.lastDates(30, endingAt: now))
        if let spending { spendingSection(spending, names: names, into: out) }
        for (index, account) in result.accounts.enumerated() {
            section(account, index: index, dates: dates, names: names, into: out)
            out.flushIfFull()
        }
        out.string(devices())
        if !result.problems.isEmpty {
            out.text("<section><h2>Records not read</h2><ul class=\"problems\">")
            for problem in result.problems {
                out.text("<li><code>")
                out.html(problem.file, limit: 80)
                out.text("</code>: ")
                out.html(problem.reason, limit: 200)
                out.text("</li>")
            }
            out.text("</ul></section>\n")
        }
    }

    // MARK: Sections

    /// Tokens and cost per provider, summed over its accounts and their devices.
    private func totals() -> String {
        var providers:
            [String: (accounts: Int, tokensToday: Int, tokens30: Int, costToday: Double, cost30: Double, costs: Bool)] =
                [:]
        for account in result.accounts {
            var sum = providers[account.providerID] ?? (0, 0, 0, 0, 0, false)
            sum.costs = sum.costs || account.costUSD != nil
            sum.accounts += 1
            sum.tokensToday.saturatingAdd(account.tokens?.today ?? 0)
            sum.tokens30.saturatingAdd(account.tokens?.last30Days ?? 0)
            sum.costToday += account.costUSD?.today ?? 0
            sum.cost30 += account.costUSD?.last30Days ?? 0
            providers[account.providerID] = sum
        }
        var html = """
            <section><h2>Providers</h2><table class="totals"><thead><tr><th>Provider</th><th>Accounts</th>\
            <th>Tokens today</th><th>Tokens, 30 days</th><th>Cost today</th><th>Cost, 30 days</th></tr></thead><tbody>
            """
        for id in providers.keys.sorted() {
            let sum = providers[id]!
            html += """
                <tr><td>\(HTML.text(ProviderNames.displayName(of: id)))</td><td>\(sum.accounts)</td>\
                <td>\(Self.tokens(Double(sum.tokensToday)))</td><td>\(Self.tokens(Double(sum.tokens30)))</td>\
                <td>\(sum.costs ? Self.dollars(sum.costToday) : "-")</td>\
                <td>\(sum.costs ? Self.dollars(sum.cost30) : "-")</td></tr>
                """
        }
        return html + "</tbody></table></section>\n"
    }

    private func section(
        _ account: MergedAccount, index: Int, dates: Days, names: [DeviceID: String], into out: ByteOutput
    ) {
        let provider = ProviderNames.displayName(of: account.providerID)
        let email = account.accountEmail ?? "(no e-mail, \(account.deviceName))"
        out.string(
            """
            <section class="account" id="account-\(index)" data-key="\(HTML.text(account.key.description))">
            <h2>\(HTML.text(provider)) <span class="email">\(HTML.text(email, limit: 120))</span></h2>
            <p class="meta">\(account.plan.map { HTML.text($0, limit: 40) + " · " } ?? "")from \
            \(HTML.text(account.deviceName, limit: 60)), \(HumanFormat.ago(account.lastUpdated, now: now))\
            \(account.seenOn.count > 1 ? " · seen on \(account.seenOn.count) devices" : "")\
            \(account.stale ? " · <span class=\"stale\">stale</span>" : "")\
            \(account.error.map { " · <span class=\"error\">\(HTML.text($0, limit: 80))</span>" } ?? "")</p>
            <div class="windows">
            """)
        let history = account.history ?? MergedHistory()
        window("Session", account.session, history.session, series: "session", forecast: nil, into: out)
        window(
            "Weekly", account.weekly, history.weekly, series: "weekly", forecast: forecasts[account.key.description],
            into: out)
        out.text("</div>\n")
        out.string(limits(account))
        ledger(account, dates: dates, names: names, into: out)
        out.text("</section>\n")
    }

    private func window(
        _ title: String, _ status: WindowStatus?, _ samples: [UsageSample], series: String, forecast: WeeklyForecast?,
        into out: ByteOutput
    ) {
        guard status != nil || !samples.isEmpty else { return }
        var html = "<figure class=\"window\"><figcaption><strong>\(title)</strong>"
        if let status, status.due {
            html += " <span class=\"level unknown\">due: reset since its figures were read</span>"
        } else if let status {
            html +=
                " <span class=\"level \(status.level.rawValue)\">\(HumanFormat.percent(status.remainingPercent)) left</span>"
            if let resetsAt = status.resetsAt { html += " · resets \(HumanFormat.until(resetsAt, now: now))" }
            if let pace = status.pace(at: now) {
                html +=
                    " · <span class=\"pace\(pace.lastsUntilReset ? "" : " short")\">\(HumanFormat.pace(pace))</span>"
            }
        }
        if let forecast {
            html += "<br><span class=\"forecast\">\(HTML.text(forecast.summary))</span>"
        }
        out.string(html + "</figcaption>")
        if samples.isEmpty {
            out.text("<p class=\"empty\">No history yet: it comes with the next publishes.</p>")
        } else {
            // Session resets come every few hours: marked on the weekly line only, where each one matters.
            SVGChart.line(
                MergedHistory.line(samples), start: lineStart, end: now, series: series,
                label: "\(title) window used percent, last \(days) days", markResets: series == "weekly", into: out)
        }
        out.text("</figure>\n")
    }
    /// A row for each limit beyond session and weekly (none of them has history to draw): how much is
    /// left, when it resets, and whether it stops the account or one model or feature.
    private func limits(_ account: MergedAccount) -> String {
        guard let limits = account.limits, !limits.isEmpty else { return "" }
        var html = """
            <table class="limits"><caption>Other limits</caption><thead><tr><th>Limit</th><th>Left</th>\
            <th>Resets</th><th>Stops</th></tr></thead><tbody>

            """
        for limit in limits {
            let window = limit.window
            let left =
                window.due
                ? "<span class=\"level unknown\">due</span>"
                : "<span class=\"level \(window.level.rawValue)\">"
                    + (window.level == .depleted ? "used up" : HumanFormat.percent(window.remainingPercent) + " left")
                    + "</span>"
            let amounts =
                limit.used.flatMap { used in
                    limit.limit.map {
                        " (\(used.plainText) of \($0.plainText) \(HTML.text(limit.unit ?? "", limit: 12)))"
                    }
                } ?? ""
            html += """
                <tr><td>\(HTML.text(limit.label, limit: 60))</td><td>\(left)\(amounts)</td>\
                <td>\(window.resetsAt.map { HumanFormat.until($0, now: now) } ?? "-")</td>\
                <td>\(limit.binding ? "the account" : "this model or feature")</td></tr>

                """
        }
        return html + "</tbody></table>\n"
    }

    /// The daily tokens and cost of the last 30 UTC days (`dates`), stacked by device, with a legend.
    private func ledger(_ account: MergedAccount, dates: Days, names: [DeviceID: String], into out: ByteOutput) {
        let ledgers = account.perDevice.filter { !$0.daily.isEmpty }
        guard !ledgers.isEmpty else { return }
        var tokens: [[Double]] = []
        var cost: [[Double]] = []
        for ledger in ledgers {
            var tokensByDay = [Double](repeating: 0, count: dates.count)
            var costByDay = [Double](repeating: 0, count: dates.count)
            // A date listed twice: the later figures stand.
            for day in ledger.daily {
                guard let index = dates.index[day.date] else { continue }
                tokensByDay[index] = Double(day.tokens)
                costByDay[index] = day.costUSD ?? 0
            }
            tokens.append(tokensByDay)
            cost.append(costByDay)
        }
        out.text("<div class=\"ledger\"><figure><figcaption><strong>Tokens per day</strong>, by device</figcaption>")
        SVGChart.bars(
            days: dates.list, stacks: tokens, label: "Tokens per day, last 30 days", unit: Self.tokens, into: out)
        out.text("</figure>")
        if cost.contains(where: { $0.contains { $0 > 0 } }) {
            out.text("<figure><figcaption><strong>Cost per day</strong>, by device</figcaption>")
            SVGChart.bars(
                days: dates.list, stacks: cost, label: "Cost per day, last 30 days", unit: Self.dollars, into: out)
            out.text("</figure>")
        }
        out.text("<ul class=\"legend\">")
        for (index, ledger) in ledgers.enumerated() {
            out.text("<li><span class=\"swatch d")
            out.integer(index % 8)
            out.text("\"></span>")
            out.html(names[ledger.deviceID] ?? ledger.deviceID.rawValue, limit: 48)
            out.text("</li>")
        }
        out.text("</ul></div>\n")
    }

    private func devices() -> String {
        var html = """
            <section><h2>Devices</h2><table class="devices"><thead><tr><th>Device</th><th>Name</th>\
            <th>Last published</th><th>Providers</th><th>Version</th></tr></thead><tbody>
            """
        for device in result.devices {
            html += """
                <tr\(device.stale ? " class=\"stale\"" : "")><td><code>\(HTML.text(device.deviceID.rawValue))</code></td>\
                <td>\(HTML.text(device.deviceName, limit: 60))</td>\
                <td>\(HumanFormat.ago(device.generatedAt, now: now))\(device.stale ? " (stale)" : "")</td>\
                <td>\(device.providerCount)</td><td>\(HTML.text(device.appVersion ?? "-", limit: 40))</td></tr>
                """
        }
        return html + "</tbody></table></section>\n"
    }

    /// The days the daily bars show, and where each is among them.
    struct Days {
        var list: [String]
        var index: [String: Int] = [:]
        var count: Int { list.count }

        init(_ list: [String]) {
            self.list = list
            for (position, day) in list.enumerated() { index[day] = position }
        }
    }

    // MARK: Formats

    /// The `count` UTC dates ending with the date of `now`, oldest first, as `YYYY-MM-DD`.
    static func lastDates(_ count: Int, endingAt now: Date) -> [String] {
        (0..<count).reversed().map { String(RFC3339.format(now.addingTimeInterval(-Double($0) * 86_400)).prefix(10)) }
    }

    static func tokens(_ value: Double) -> String {
        switch value {
        case 1e9...: String(cFormat: "%.1fB", value / 1e9)
        case 1e6...: String(cFormat: "%.1fM", value / 1e6)
        case 1e3...: String(cFormat: "%.1fk", value / 1e3)
        default: String(Int(value))
        }
    }

    static func dollars(_ value: Double) -> String {
        value.isFinite ? String(cFormat: "$%.2f", value) : "-"
    }

    static let style = """
        :root{color-scheme:light dark;--bg:#fbfbfa;--fg:#1d1d1f;--muted:#6b6b70;--line:#2563eb;--grid:#e4e4e7;\
        --card:#fff;--ok:#15803d;--warn:#b45309;--bad:#b91c1c;\
        --d0:#2563eb;--d1:#db2777;--d2:#059669;--d3:#d97706;--d4:#7c3aed;--d5:#0891b2;--d6:#65a30d;--d7:#dc2626}
        @media (prefers-color-scheme:dark){:root{--bg:#111113;--fg:#ececef;--muted:#9d9da6;--line:#60a5fa;\
        --grid:#2c2c31;--card:#1a1a1e;--ok:#4ade80;--warn:#fbbf24;--bad:#f87171}}
        *{box-sizing:border-box}body{margin:0 auto;max-width:1100px;padding:16px;background:var(--bg);\
        color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
        h1{font-size:1.5rem;margin:0 0 4px}h2{font-size:1.15rem;margin:0 0 4px}header p,.meta{color:var(--muted);margin:0 0 12px}
        section{background:var(--card);border:1px solid var(--grid);border-radius:10px;padding:14px;margin:14px 0;overflow-x:auto}
        .email{font-weight:400;color:var(--muted);word-break:break-all}
        .windows,.ledger{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:12px}
        figure{margin:0}figcaption{font-size:.9rem;margin-bottom:4px}
        .chart{width:100%;height:auto;display:block}
        .chart .line{fill:none;stroke:var(--line);stroke-width:2;stroke-linejoin:round}
        .chart .grid,.chart .tick{stroke:var(--grid);stroke-width:1}.chart .reset{stroke:var(--muted);stroke-dasharray:3 3}
        .chart .now{fill:var(--line)}
        .plot{display:grid;grid-template-columns:auto 1fr;column-gap:4px;margin-bottom:4px}\
        .plot .ys{position:relative;min-width:2.4em}.plot .area{position:relative}.plot .xs{grid-column:2;position:relative;height:1.4em}\
        .plot .axis{position:absolute;font-size:12px;line-height:1;color:var(--muted);white-space:nowrap}\
        .plot .ys .axis{right:0;transform:translateY(-50%)}.plot .xs .axis{top:2px;transform:translateX(-50%)}\
        .plot .xs .axis.end{transform:translateX(-100%)}\
        .plot .note{position:absolute;left:50%;top:50%;transform:translate(-50%,-50%);font-size:.85rem;color:var(--muted)}
        .level.ok{color:var(--ok)}.level.warning{color:var(--warn)}.level.critical,.level.depleted{color:var(--bad)}.level.unknown{color:var(--muted,#888)}
        table.limits{margin-top:8px}table.spend{margin-top:8px}table.spend td:first-child{overflow-wrap:anywhere}
        .empty{color:var(--muted);font-size:.85rem;margin:4px 0}.pace.short,.error{color:var(--warn)}.stale{color:var(--muted)}.forecast{color:var(--muted)}
        table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--grid)}
        .legend{list-style:none;padding:0;margin:0;grid-column:1/-1;display:flex;flex-wrap:wrap;gap:12px;font-size:.85rem}
        .swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px}
        .d0{fill:var(--d0);background:var(--d0)}.d1{fill:var(--d1);background:var(--d1)}.d2{fill:var(--d2);background:var(--d2)}\
        .d3{fill:var(--d3);background:var(--d3)}.d4{fill:var(--d4);background:var(--d4)}.d5{fill:var(--d5);background:var(--d5)}\
        .d6{fill:var(--d6);background:var(--d6)}.d7{fill:var(--d7);background:var(--d7)}
        @media (max-width:600px){body{padding:8px}section{padding:10px}th,td{padding:3px 4px;font-size:.85rem}\
        table.totals{table-layout:fixed}table.totals th,table.totals td{overflow-wrap:anywhere;hyphens:auto}}
        """
}
