import Foundation
import Serialization

@testable import Collectors

extension HourlySpend {
    /// Tokens and cost per UTC day, as the tests compare them with what the logs hold.
    var byUTCDay: [String: (tokens: Int, cost: Double?)] {
        var days: [String: (tokens: Int, cost: Double?)] = [:]
        for (hour, _, sums) in ordered() {
            let day = RFC3339.utcDay(Date(timeIntervalSince1970: Double(hour) * 3600))
            var sum = days[day] ?? (0, nil)
            sum.tokens += sums.tokens.total
            if let cost = sums.cost { sum.cost = (sum.cost ?? 0) + cost }
            days[day] = sum
        }
        return days
    }
}
