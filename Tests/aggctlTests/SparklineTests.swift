import Testing

@testable import AggctlCLI

struct SparklineTests {
    @Test("a sparkline has a level per value, a gap for nothing known, and stays whole on nonsense numbers")
    func levels() {
        let values: [Double?] = [0, 12.5, 50, 99.9, 100, 150, -5, nil, .nan, 1e300, -.infinity]
        #expect(HumanFormat.sparkline(values, ascii: false) == "▁▂▅███▁  █ ")
        #expect(HumanFormat.sparkline(values, ascii: true) == "_.=###_  # ")
        #expect(HumanFormat.sparkline([], ascii: false) == "")
    }
}
