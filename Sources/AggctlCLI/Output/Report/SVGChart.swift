import Aggregator
import Portable
import Serialization
import Snapshots

/// The report's charts as inline SVG: a used-percent line over time, and daily bars stacked by device.
///
/// Geometry is fixed (a 640 x 180 view box that scales to the page's width), so that a point's place
/// follows from its data alone: `x = left + (t - start) / (end - start) * width`, `y = top + (100 - used)
/// / 100 * height`. The line carries its time range in `data-start` / `data-end` (Unix seconds), so a
/// test can check every point against the merged history.
enum SVGChart {
    static let viewWidth = 640.0
    static let viewHeight = 180.0
    static let left = 40.0
    static let right = 8.0
    static let top = 8.0
    static let bottom = 22.0
    static var plotWidth: Double { viewWidth - left - right }
    static var plotHeight: Double { viewHeight - top - bottom }

    static func x(_ date: Date, start: Date, end: Date) -> Double {
        let span = max(1, end.timeIntervalSince(start))
        return left + date.timeIntervalSince(start) / span * plotWidth
    }

    static func y(_ used: Double) -> Double {
        top + (100 - min(100, max(0, used))) / 100 * plotHeight
    }

    /// The used percent of one window from `start` to `end`, reset points included, with a grid of
    /// quarters and one tick per UTC day.
    static func line(
        _ points: [MergedHistory.Point], start: Date, end: Date, series: String, label: String, markResets: Bool = true
    ) -> String {
        let shown = points.filter { $0.at >= start && $0.at <= end }
        var svg = """
            <svg class="chart" viewBox="0 0 \(HTML.number(viewWidth)) \(HTML.number(viewHeight))" role="img" \
            aria-label="\(HTML.text(label))" data-series="\(series)" \
            data-start="\(Int(start.timeIntervalSince1970))" data-end="\(Int(end.timeIntervalSince1970))">
            """
        let (lines, days) = grid(start: start, end: end)
        svg += lines
        var note: String?
        if shown.isEmpty {
            note = "no history in this period"
        } else {
            let coordinates = shown.map {
                "\(HTML.number(x($0.at, start: start, end: end))),\(HTML.number(y($0.usedPercent)))"
            }
            svg += #"<polyline class="line" points="\#(coordinates.joined(separator: " "))"/>"#
            for point in shown where markResets && point.isReset && point.usedPercent == 0 {
                let px = HTML.number(x(point.at, start: start, end: end))
                svg +=
                    #"<line class="reset" x1="\#(px)" x2="\#(px)" y1="\#(HTML.number(top))" y2="\#(HTML.number(top + plotHeight))"><title>reset \#(RFC3339.format(point.at))</title></line>"#
            }
            if let last = shown.last {
                svg +=
                    #"<circle class="now" cx="\#(HTML.number(x(last.at, start: start, end: end)))" cy="\#(HTML.number(y(last.usedPercent)))" r="3"/>"#
            }
        }
        let quarters = stride(from: 0.0, through: 100, by: 25).map { (text: "\(Int($0))%", y: y($0)) }
        return framed(svg + "</svg>", yLabels: quarters, xLabels: days, note: note)
    }

    /// The chart with its labels in HTML around it, placed by the chart's own geometry in percent of its
    /// box: text inside an SVG scales with it (a 640-unit chart in a 300 px column drew 10-unit labels at
    /// 4.7 px), text in HTML keeps the page's size at every width.
    static func framed(
        _ svg: String, yLabels: [(text: String, y: Double)], xLabels: [(text: String, x: Double)], note: String?
    ) -> String {
        func percent(_ value: Double, of whole: Double) -> String { HTML.number(value / whole * 100) + "%" }
        var html = "<div class=\"plot\"><div class=\"ys\">"
        for label in yLabels {
            html +=
                #"<span class="axis" style="top:\#(percent(label.y, of: viewHeight))">\#(HTML.text(label.text))</span>"#
        }
        html += "</div><div class=\"area\">" + svg
        if let note { html += "<span class=\"note\">\(HTML.text(note))</span>" }
        html += "</div><div class=\"xs\">"
        for label in xLabels {
            // Near the right edge a label ends at its place, so it never pushes the page sideways.
            let end = label.x > viewWidth * 0.9 ? " end" : ""
            html +=
                #"<span class="axis\#(end)" style="left:\#(percent(label.x, of: viewWidth))">\#(HTML.text(label.text))</span>"#
        }
        return html + "</div></div>"
    }

    /// Quarter lines, and a tick at each UTC midnight with its date as a label (thinned to fit).
    private static func grid(start: Date, end: Date) -> (lines: String, days: [(text: String, x: Double)]) {
        var svg = ""
        var labels: [(text: String, x: Double)] = []
        for used in stride(from: 0.0, through: 100, by: 25) {
            let py = HTML.number(y(used))
            svg +=
                #"<line class="grid" x1="\#(HTML.number(left))" x2="\#(HTML.number(viewWidth - right))" y1="\#(py)" y2="\#(py)"/>"#
        }
        let day = 86_400.0
        let days = max(1, Int(end.timeIntervalSince(start) / day))
        let step = max(1, days / 8)
        var midnight = (start.timeIntervalSince1970 / day).rounded(.up) * day
        var index = 0
        while midnight <= end.timeIntervalSince1970 {
            let date = Date(timeIntervalSince1970: midnight)
            let px = HTML.number(x(date, start: start, end: end))
            svg +=
                #"<line class="tick" x1="\#(px)" x2="\#(px)" y1="\#(HTML.number(top))" y2="\#(HTML.number(top + plotHeight))"/>"#
            if index % step == 0 { labels.append((dayLabel(date), x(date, start: start, end: end))) }
            midnight += day
            index += 1
        }
        return (svg, labels)
    }

    /// `11-28`: month and day of a UTC date.
    static func dayLabel(_ date: Date) -> String {
        String(RFC3339.format(date).dropFirst(5).prefix(5))
    }

    /// One bar per day, stacked by device (`stacks[device][day]`), scaled to the largest day: one path per
    /// device, so that a month of bars for a large team stays a small page.
    static func bars(days: [String], stacks: [[Double]], label: String, unit: (Double) -> String) -> String {
        let totals = days.indices.map { day in stacks.reduce(0) { $0 + $1[day] } }
        let largest = totals.max() ?? 0
        var svg = """
            <svg class="chart" viewBox="0 0 \(HTML.number(viewWidth)) \(HTML.number(viewHeight))" role="img" \
            aria-label="\(HTML.text(label))">
            """
        let slot = plotWidth / Double(max(1, days.count))
        let width = HTML.number(max(1, slot - 2))
        let scale = largest > 0 ? plotHeight / largest : 0
        var paths = [String](repeating: "", count: stacks.count)
        for day in days.indices {
            var base = top + plotHeight
            for (device, values) in stacks.enumerated() where values[day] > 0 {
                let height = values[day] * scale
                base -= height
                paths[device] +=
                    "M\(HTML.number(left + Double(day) * slot + 1)),\(HTML.number(base))h\(width)v\(HTML.number(height))h-\(width)z"
            }
        }
        for (device, path) in paths.enumerated() where !path.isEmpty {
            svg += #"<path class="d\#(device % 8)" d="\#(path)"/>"#
        }
        // A week apart, counted back from the last day: five labels fit a 300 px column at 12 px.
        let dayLabels = stride(from: days.count - 1, through: 0, by: -7).reversed().map {
            (text: String(days[$0].dropFirst(5)), x: left + (Double($0) + 0.5) * slot)
        }
        return framed(svg + "</svg>", yLabels: [(unit(largest), top)], xLabels: dayLabels, note: nil)
    }
}
