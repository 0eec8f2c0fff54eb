import Portable
import Serialization

extension CodingUserInfoKey {
    /// Where a tolerant reader of stored records collects the values it left out (`DroppedValues`).
    static let droppedValues = CodingUserInfoKey(rawValue: "aggctl.droppedValues")!
}

/// The values Foundation's reader of stored records left out for their shape, as notes: the twin of
/// `JSONScanner.dropped` for `RecordCodec.decodeWithFoundation`, so both readers keep and report alike.
final class DroppedValues: @unchecked Sendable {
    var notes: [String] = []
}

extension ProviderUsage {
    /// Decodes an entry member by member, in the order the schema declares them. Reading a stored record
    /// (a decoder with `DroppedValues` in its user info), a window, a limit or a total of the wrong shape
    /// is left out with a note and the entry stands, as `SchemaField.droppable` does; anywhere else
    /// (`--from`, whose producer must be told) it fails the entry.
    ///
    /// An entry that fails takes its notes with it: it is reported as skipped, once.
    public init(from decoder: any Decoder) throws {
        let dropped = decoder.userInfo[.droppedValues] as? DroppedValues
        let before = dropped?.notes.count ?? 0
        do {
            self = try Self.decoded(from: decoder, dropped: dropped)
        } catch {
            dropped?.notes.removeSubrange(before...)
            throw error
        }
    }

    private static func decoded(from decoder: any Decoder, dropped: DroppedValues?) throws -> ProviderUsage {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func member<Value: Decodable>(_ type: Value.Type, _ key: CodingKeys) throws -> Value? {
            do {
                return try container.decodeIfPresent(type, forKey: key)
            } catch {
                guard let dropped else { throw error }
                dropped.notes.append(
                    RecordCodec.droppedNote(
                        RecordCodec.render(container.codingPath, key), reason: RecordCodec.describe(error)))
                return nil
            }
        }
        func elements<Element: Decodable>(_ type: Element.Type, _ key: CodingKeys) throws -> [Element]? {
            guard let dropped else { return try container.decodeIfPresent([Element].self, forKey: key) }
            guard let list = try member([Lossy<Element>].self, key) else { return nil }
            var kept: [Element] = []
            for (index, element) in list.enumerated() {
                switch element.result {
                case .success(let value): kept.append(value)
                case .failure(let error):
                    let path = RecordCodec.render(container.codingPath, key) + "[\(index)]"
                    dropped.notes.append(RecordCodec.droppedNote(path, reason: RecordCodec.describe(error)))
                }
            }
            return kept.isEmpty ? nil : kept
        }
        // In the schema's order: when several members are wrong, the one reported is the first declared.
        let providerID = try container.decode(String.self, forKey: .providerID)
        let accountEmail = try container.decodeIfPresent(String.self, forKey: .accountEmail)
        let plan = try container.decodeIfPresent(String.self, forKey: .plan)
        let lastUpdated = try container.decode(Date.self, forKey: .lastUpdated)
        let session = try member(UsageWindow.self, .session)
        let weekly = try member(UsageWindow.self, .weekly)
        let modelWeekly = try elements(NamedWindow.self, .modelWeekly)
        let limits = try elements(Limit.self, .limits)
        let tokens = try member(TokenUsage.self, .tokens)
        let costUSD = try member(CostUsage.self, .costUSD)
        return ProviderUsage(
            providerID: providerID, accountEmail: accountEmail, plan: plan, lastUpdated: lastUpdated,
            session: session, weekly: weekly, modelWeekly: modelWeekly, limits: limits, tokens: tokens,
            costUSD: costUSD,
            weeklySamples: try container.decodeIfPresent([UsageSample].self, forKey: .weeklySamples),
            sessionSamples: try container.decodeIfPresent([UsageSample].self, forKey: .sessionSamples),
            error: try container.decodeIfPresent(String.self, forKey: .error))
    }
}

extension RecordCodec {
    /// `providers[0].limits`: a container's coding path and one of its keys.
    static func render(_ codingPath: [any CodingKey], _ key: some CodingKey) -> String {
        render((codingPath + [key]).map { key in key.intValue.map(PathComponent.index) ?? .key(key.stringValue) })
    }
}
