import Foundation
import Serialization
import TestSupport
import Testing

@testable import Snapshots

/// The record format is declared once, in each model type's `schema`; these hold the declaration to the
/// types, so that a property added without its line (which every reader, writer and cache would then
/// silently drop) fails here.
struct SchemaTests {
    /// Each model type's stored properties, by name, against the names its schema declares.
    private static func check<Object: SchemaObject>(
        _ type: Object.Type, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let properties = Mirror(reflecting: Object.blank).children.compactMap(\.label)
        let declared = Object.schema.fields.map { "\($0.key)" }
        #expect(
            Set(properties) == Set(declared), "\(Object.self): properties \(properties), schema \(declared)",
            sourceLocation: sourceLocation)
        #expect(
            Set(declared).count == declared.count, "\(Object.self) declares a key twice", sourceLocation: sourceLocation
        )
        #expect(
            declared.count <= 64, "\(Object.self): a reader marks members seen in 64 bits",
            sourceLocation: sourceLocation)
    }

    @Test("every stored property of the record's types has its line in the schema, and every line a property")
    func everyPropertyIsDeclared() {
        Self.check(RecordFields.self)
        Self.check(ProviderUsage.self)
        Self.check(UsageWindow.self)
        Self.check(NamedWindow.self)
        Self.check(UsageSample.self)
        Self.check(TokenUsage.self)
        Self.check(DailyTokens.self)
        Self.check(CostUsage.self)
        Self.check(Limit.self)
    }

    @Test("every type's keys are told apart in one look, so a record in any member order reads as fast")
    func everyTypeFindsKeysInOneLook() {
        #expect(RecordFields.schema.findsKeysInOneLook)
        #expect(ProviderUsage.schema.findsKeysInOneLook)
        #expect(UsageWindow.schema.findsKeysInOneLook)
        #expect(NamedWindow.schema.findsKeysInOneLook)
        #expect(UsageSample.schema.findsKeysInOneLook)
        #expect(TokenUsage.schema.findsKeysInOneLook)
        #expect(DailyTokens.schema.findsKeysInOneLook)
        #expect(CostUsage.schema.findsKeysInOneLook)
        #expect(Limit.schema.findsKeysInOneLook)
    }

    @Test("keys with the same length, first, middle and last bytes cannot share a table, and are searched")
    func keysAlikeAtAGlance() {
        #expect(SchemaKeyTable(keys: ["usedPercent", "usedPercant"]) == nil)
        #expect(SchemaKeyTable(keys: ["usedPercent", nil, "resetsAt"]) != nil)
    }

    @Test("the caches keep every member but the history, and what was derived from it")
    func cachesKeepWhatAMergeNeeds() throws {
        var generator = SeededGenerator(seed: 7)
        for index in 0..<200 {
            var snapshot = RandomRecords.snapshot(index, using: &generator)
            snapshot.providers[0].weeklyTrend = WeeklyTrend(points: [
                .init(halfDay: 41_000, at: 1.77e9, usedPercent: 12)
            ])
            var out = BinaryWriter()
            out.snapshot(snapshot)
            var reader = BinaryReader(out.bytes)
            let restored = try reader.snapshot()
            var expected = snapshot
            for index in expected.providers.indices {
                expected.providers[index].weeklySamples = nil
                expected.providers[index].sessionSamples = nil
                expected.providers[index].tokens?.daily = nil
            }
            #expect(restored == expected)
        }
    }
}
