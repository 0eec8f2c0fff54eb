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
        _ points: [MergedHistory.Point], start: Date, end: Date, series: String, label: String, markResets: Bool = true,
        into out: ByteOutput
    ) {
        let shown = points.filter { $0.at >= start && $0.at <= end }
        let midnights = midnights(start: start, end: end)
        let quarters = stride(from: 0.0, through: 100, by: 25).map { (text: "\(Int($0))%", y: y($0)) }
        framed(
            yLabels: quarters, xLabels: midnights.labels, note: shown.isEmpty ? "no history in this period" : nil,
            into: out
        ) {
            open(label: label, into: out)
            out.text(" data-series=\"")
            out.string(series)
            out.text("\" data-start=\"")
            out.integer(Int(start.timeIntervalSince1970))
            out.text("\" data-end=\"")
            out.integer(Int(end.timeIntervalSince1970))
            out.text("\">")
            for used in stride(from: 0.0, through: 100, by: 25) {
                out.text("<line class=\"grid\" x1=\"")
                out.number(left)
                out.text("\" x2=\"")
                out.number(viewWidth - right)
                out.text("\" y1=\"")
                out.number(y(used))
                out.text("\" y2=\"")
                out.number(y(used))
                out.text("\"/>")
            }
            for midnight in midnights.ticks { vertical("tick", at: x(midnight, start: start, end: end), into: out) }
            guard !shown.isEmpty else { return }
            out.text("<polyline class=\"line\" points=\"")
            for (index, point) in shown.enumerated() {
                if index > 0 { out.byte(UInt8(ascii: " ")) }
                out.number(x(point.at, start: start, end: end))
                out.byte(UInt8(ascii: ","))
                out.number(y(point.usedPercent))
            }
            out.text("\"/>")
            for point in shown where markResets && point.isReset && point.usedPercent == 0 {
                vertical("reset", at: x(point.at, start: start, end: end), into: out, title: point.at)
            }
            if let last = shown.last {
                out.text("<circle class=\"now\" cx=\"")
                out.number(x(last.at, start: start, end: end))
                out.text("\" cy=\"")
                out.number(y(last.usedPercent))
                out.text("\" r=\"3\"/>")
            }
        }
    }

    /// The chart's opening tag up to its label's closing quote: its box and what it shows, for a reader.
    private static func open(label: String, into out: ByteOutput) {
        out.text("<svg class=\"chart\" viewBox=\"0 0 ")
        out.number(viewWidth)
        out.byte(UInt8(ascii: " "))
        out.number(viewHeight)
        out.text("\" role=\"img\" aria-label=\"")
        out.html(label)
        out.byte(UInt8(ascii: "\""))
    }

    /// A line across the plot's height at `px` (a day's tick, or a reset with its moment as a title).
    private static func vertical(_ kind: StaticString, at px: Double, into out: ByteOutput, title: Date? = nil) {
        out.text("<line class=\"")
        out.text(kind)
        out.text("\" x1=\"")
        out.number(px)
        out.text("\" x2=\"")
        out.number(px)
        out.text("\" y1=\"")
        out.number(top)
        out.text("\" y2=\"")
        out.number(top + plotHeight)
        guard let title else { return out.text("\"/>") }
        out.text("\"><title>reset ")
        out.date(title)
        out.text("</title></line>")
    }

    /// The chart (`svg`) with its labels in HTML around it, placed by the chart's own geometry in percent
    /// of its box: text inside an SVG scales with it (a 640-unit chart in a 300 px column drew 10-unit
    /// labels at 4.7 px), text in HTML keeps the page's size at every width.
    static func framed(
        yLabels: [(text: String, y: Double)], xLabels: [(text: String, x: Double)], note: String?, into out: ByteOutput,
        svg: () -> Void
    ) {
        out.text("<div class=\"plot\"><div class=\"ys\">")
        for label in yLabels {
            axisLabel(label.text, side: "top", percent: label.y / viewHeight * 100, end: false, into: out)
        }
        out.text("</div><div class=\"area\">")
        svg()
        out.text("</svg>")
        if let note {
            out.text("<span class=\"note\">")
            out.html(note)
            out.text("</span>")
        }
        out.text("</div><div class=\"xs\">")
        for label in xLabels {
            // Near the right edge a label ends at its place, so it never pushes the page sideways.
            axisLabel(
                label.text, side: "left", percent: label.x / viewWidth * 100, end: label.x > viewWidth * 0.9, into: out)
        }
        out.text("</div></div>")
    }

    /// A label placed at `percent` of the box from its `side` (`top` for a y label, `left` for an x one).
    private static func axisLabel(
        _ text: String, side: StaticString, percent: Double, end: Bool, into out: ByteOutput
    ) {
        out.text(end ? "<span class=\"axis end\" style=\"" : "<span class=\"axis\" style=\"")
        out.text(side)
        out.byte(UInt8(ascii: ":"))
        out.number(percent)
        out.text("%\">")
        out.html(text)
        out.text("</span>")
    }

    /// Each UTC midnight from `start` to `end`, and a date label at every one that fits (thinned to
    /// about eight).
    private static func midnights(start: Date, end: Date) -> (ticks: [Date], labels: [(text: String, x: Double)]) {
        var ticks: [Date] = []
        var labels: [(text: String, x: Double)] = []
        let day = 86_400.0
        let days = max(1, Int(end.timeIntervalSince(start) / day))
        let step = max(1, days / 8)
        var midnight = (start.timeIntervalSince1970 / day).rounded(.up) * day
        while midnight <= end.timeIntervalSince1970 {
            let date = Date(timeIntervalSince1970: midnight)
            if ticks.count % step == 0 { labels.append((dayLabel(date), x(date, start: start, end: end))) }
            ticks.append(date)
            midnight += day
        }
        return (ticks, labels)
    }

    /// `11-28`: month and day of a UTC date.
    static func dayLabel(_ date: Date) -> String {
        String(RFC3339.format(date).dropFirst(5).prefix(5))
    }

    /// One bar per day, stacked by device (`stacks[device][day]`), scaled to the largest day: one path per
    /// device, so that a month of bars for a large team stays a small page.
    static func bars(
        days: [String], stacks: [[Double]], label: String, unit: (Double) -> String, into out: ByteOutput
    ) {
        let totals = days.indices.map { day in stacks.reduce(0) { $0 + $1[day] } }
        let largest = totals.max() ?? 0
        let slot = plotWidth / Double(max(1, days.count))
        let width = max(1, slot - 2)
        let scale = largest > 0 ? plotHeight / largest : 0
        // A week apart, counted back from the last day: five labels fit a 300 px column at 12 px.
        let dayLabels = stride(from: days.count - 1, through: 0, by: -7).reversed().map {
            (text: String(days[$0].dropFirst(5)), x: left + (Double($0) + 0.5) * slot)
        }
        framed(yLabels: [(unit(largest), top)], xLabels: dayLabels, note: nil, into: out) {
            open(label: label, into: out)
            out.byte(UInt8(ascii: ">"))
            // Each day's stack grows upwards device by device, in the devices' order.
            var bases = [Double](repeating: top + plotHeight, count: days.count)
            for (device, values) in stacks.enumerated() where values.contains(where: { $0 > 0 }) {
                out.text("<path class=\"d")
                out.integer(device % 8)
                out.text("\" d=\"")
                for day in days.indices where values[day] > 0 {
                    let height = values[day] * scale
                    bases[day] -= height
                    out.byte(UInt8(ascii: "M"))
                    out.number(left + Double(day) * slot + 1)
                    out.byte(UInt8(ascii: ","))
                    out.number(bases[day])
                    out.byte(UInt8(ascii: "h"))
                    out.number(width)
                    out.byte(UInt8(ascii: "v"))
                    out.number(height)
                    out.text("h-")
                    out.number(width)
                    out.byte(UInt8(ascii: "z"))
                }
                out.text("\"/>")
            }
        }
    }
}
