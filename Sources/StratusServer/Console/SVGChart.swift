/// Charts drawn on the server as inline SVG: no script, every label escaped like any other page
/// text. Colours come from the stylesheet (`.chart` classes), so the page policy needs no
/// inline style.
enum SVGChart {
    static let width = 960.0
    static let height = 180.0
    static let margin = (left: 56.0, right: 8.0, top: 12.0, bottom: 28.0)

    /// Vertical bars over time: `values` oldest first, `tooltips` one per bar, axis labels under
    /// the first and last bars.
    static func columns(_ values: [Double], tooltips: [String], unit: String, firstLabel: String, lastLabel: String, label: String) -> HTML {
        let top = niceMaximum(values.max() ?? 0)
        let plotWidth = width - margin.left - margin.right
        let plotHeight = height - margin.top - margin.bottom
        let step = plotWidth / Double(max(values.count, 1))
        let bars = HTML.join(
            values.indices.map { index -> HTML in
                let barHeight = top > 0 ? plotHeight * values[index] / top : 0
                let x = margin.left + Double(index) * step
                let y = margin.top + plotHeight - barHeight
                return "<rect class=\"bar\" x=\"\(format(x))\" y=\"\(format(y))\" width=\"\(format(max(step - 1, 1)))\" height=\"\(format(barHeight))\"><title>\(tooltips[index])</title></rect>"
            })
        return """
            <svg class="chart" viewBox="0 0 \(format(width)) \(format(height))" role="img" aria-label="\(label)">
            \(axes(top: top, unit: unit))
            \(bars)
            <text class="axis" x="\(format(margin.left))" y="\(format(height - 8))">\(firstLabel)</text>
            <text class="axis end" x="\(format(width - margin.right))" y="\(format(height - 8))">\(lastLabel)</text>
            </svg>
            """
    }

    /// Horizontal bars, one group per row: each value of a row is a bar of its own class
    /// (`series`), labelled with `valueLabel`.
    static func rows(
        _ rows: [(label: String, values: [Double])], series: [String], unit: String,
        valueLabel: (Double) -> String, label: String
    ) -> HTML {
        let barHeight = 14.0
        let groupHeight = barHeight * Double(series.count) + 10
        let chartHeight = margin.top + groupHeight * Double(rows.count) + 4
        let labelWidth = 220.0
        let plotWidth = width - labelWidth - 90
        let top = niceMaximum(rows.flatMap(\.values).max() ?? 0)
        let groups = HTML.join(
            rows.enumerated().map { position, row -> HTML in
                let y = margin.top + Double(position) * groupHeight
                let bars = HTML.join(
                    row.values.enumerated().map { index, value -> HTML in
                        let barWidth = top > 0 ? plotWidth * value / top : 0
                        let barY = y + Double(index) * barHeight
                        return """
                            <rect class="bar \(series[index])" x="\(format(labelWidth))" y="\(format(barY))" width="\(format(max(barWidth, 1)))" height="\(format(barHeight - 2))"><title>\(row.label) \(series[index]): \(valueLabel(value))</title></rect>
                            <text class="axis" x="\(format(labelWidth + max(barWidth, 1) + 4))" y="\(format(barY + barHeight - 4))">\(valueLabel(value))</text>
                            """
                    })
                return "<text class=\"axis label\" x=\"\(format(labelWidth - 6))\" y=\"\(format(y + barHeight - 3))\">\(row.label)</text>\(bars)"
            })
        return """
            <svg class="chart" viewBox="0 0 \(format(width)) \(format(chartHeight))" role="img" aria-label="\(label) (\(unit))">
            \(groups)
            </svg>
            """
    }

    static func axes(top: Double, unit: String) -> HTML {
        let bottom = height - margin.bottom
        return """
            <line class="grid" x1="\(format(margin.left))" y1="\(format(margin.top))" x2="\(format(width - margin.right))" y2="\(format(margin.top))"/>
            <line class="grid" x1="\(format(margin.left))" y1="\(format(bottom))" x2="\(format(width - margin.right))" y2="\(format(bottom))"/>
            <text class="axis end" x="\(format(margin.left - 4))" y="\(format(margin.top + 4))">\(number(top))</text>
            <text class="axis end" x="\(format(margin.left - 4))" y="\(format(bottom))">0</text>
            <text class="axis end" x="\(format(margin.left - 4))" y="\(format(margin.top + 18))">\(unit)</text>
            """
    }

    /// The axis maximum: the data's maximum rounded up to 1, 2 or 5 times a power of ten.
    static func niceMaximum(_ value: Double) -> Double {
        guard value > 0 else { return 0 }
        var scale = 1.0
        while scale * 10 <= value { scale *= 10 }
        while scale > value { scale /= 10 }
        for factor in [1.0, 2.0, 5.0, 10.0] where factor * scale >= value { return factor * scale }
        return 10 * scale
    }

    /// A number with at most two decimals and no trailing zeros.
    static func number(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        if hundredths % 100 == 0 { return String(hundredths / 100) }
        let fraction = hundredths % 100
        let text = "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
        return text.hasSuffix("0") ? String(text.dropLast()) : text
    }

    static func format(_ value: Double) -> String { String(Int(value.rounded())) }
}
