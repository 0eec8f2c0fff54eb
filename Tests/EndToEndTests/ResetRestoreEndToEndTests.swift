import Foundation
import TestSupport
import Testing

/// docs/alerts.md, "Back at the reset", through the binary: the promised "available again" comes at the reset.
struct ResetRestoreEndToEndTests {
    let checking = CheckEndToEndTests()

    @Test("used up, then no newer figures: the first check after the reset says it is available again, once")
    func restoredAtTheReset() throws {
        try checking.publish("2026-11-30T12:00:00Z", used: 40)
        #expect(try checking.check("2026-11-30T12:00:30Z").output == "")
        try checking.publish("2026-11-30T12:10:00Z", used: 100)
        #expect(try checking.check("2026-11-30T12:10:30Z").output.contains(#""kind":"depleted""#))
        #expect(try checking.check("2026-11-30T14:59:00Z").output == "")
        // The reset in the reader's zone, shown (the JSON's `resetsAt` stays UTC).
        let reset = try BinaryRun.run(
            ["check", "--store", checking.store, "--now", "2026-11-30T15:00:30Z"],
            environment: checking.environment.merging(["TZ": "Europe/Prague"]) { $1 },
            // The zone as the shipped binary finds it (its own tz reader, not the test process's Foundation).
            executable: ReleaseBuild.available ? ReleaseBuild.binary : BinaryRun.binary)
        #expect(reset.status == 0)
        #expect(reset.output.contains(#""kind":"restored""#), "\(reset.output)\(reset.errors)")
        #expect(reset.output.contains("It reset at 2026-11-30 16:00 Europe/Prague."), "\(reset.output)")
        #expect(reset.output.contains(#""resetsAt":"2026-11-30T15:00:00Z""#))
        #expect(try checking.check("2026-11-30T15:30:00Z").output == "", "once")
    }
}
