import Snapshots

/// The records' device ids in byte order, as plain numbers: what the merge compares and sorts devices
/// by, without reading the ids' text (or counting references to it) on every comparison.
struct DeviceOrder {
    /// Per record, by index: the rank of its device id (equal ids, equal ranks).
    let rank: [Int]
    /// The record indices in device-id order; records of equal ids in their own order.
    let order: [Int]

    init(_ records: [StoredRecord]) {
        // A store's records come sorted by file name, and files are named by their ids: one pass almost
        // always finds them in order already, with no two alike.
        let ascending = records.indices.dropFirst().allSatisfy {
            records[$0 - 1].snapshot.deviceID < records[$0].snapshot.deviceID
        }
        if ascending {
            rank = Array(records.indices)
            order = rank
            return
        }
        let order = records.indices.sorted { left, right in
            let (a, b) = (records[left].snapshot.deviceID, records[right].snapshot.deviceID)
            return a < b || (a == b && left < right)
        }
        var rank = [Int](repeating: 0, count: records.count)
        for (position, index) in order.enumerated().dropFirst() {
            let previous = order[position - 1]
            let same = records[previous].snapshot.deviceID == records[index].snapshot.deviceID
            rank[index] = rank[previous] + (same ? 0 : 1)
        }
        self.rank = rank
        self.order = order
    }
}
