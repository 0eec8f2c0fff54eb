import Aggregator
import Foundation
import Snapshots
import TestSupport

/// One entry published by one device, merged as the store would give it: what the detector and history
/// tests start from.
func mergedOne(_ entry: ProviderUsage, device: String = "laptop", at: String, now: String? = nil) -> MergedAccount {
    Merger.merge(
        StoreContents(records: [Records.stored(Records.snapshot(device, generatedAt: at, [entry]))]),
        options: MergeOptions(now: Records.date(now ?? at))
    ).accounts[0]
}
