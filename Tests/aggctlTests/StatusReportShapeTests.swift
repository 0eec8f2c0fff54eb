import Testing

@testable import AggctlCLI

/// The declarations `status --json` and `devices --json` are written from.
struct StatusReportShapeTests {
    @Test("every object of status --json and devices --json declares its keys once each, in byte order")
    func keysSortedOnce() {
        let shapes: [(name: String, keys: [String])] = [
            ("status", StatusReport.statusDocument.keys), ("devices", StatusReport.devicesDocument.keys),
            ("account", StatusReport.account.keys), ("costUSD", StatusReport.costTotals.keys),
            ("tokens", StatusReport.tokenTotals.keys), ("perDevice", StatusReport.deviceLedger.keys),
            ("limit", StatusReport.limit.keys), ("window", StatusReport.window.keys),
            ("modelWeekly", StatusReport.modelWindow.keys), ("pace", StatusReport.paceShape.keys),
            ("device", StatusReport.device.keys), ("problem", StatusReport.problem.keys),
        ]
        for shape in shapes {
            let bytes = shape.keys.map { Array($0.utf8) }
            let sorted = bytes.sorted { $0.lexicographicallyPrecedes($1) }
            #expect(bytes == sorted, "\(shape.name): \(shape.keys)")
            #expect(Set(shape.keys).count == shape.keys.count, "\(shape.name) names a key twice")
        }
        // The contract's account keys, every one of them.
        #expect(
            StatusReport.account.keys == [
                "accountEmail", "availableAt", "blocked", "clockSkew", "costUSD", "deviceID", "deviceName", "error",
                "errorDeviceID", "lastUpdated", "limits", "modelWeekly", "perDevice", "plan", "providerID", "seenOn",
                "session", "stale", "tightest", "tokens", "weekly",
            ])
    }
}
