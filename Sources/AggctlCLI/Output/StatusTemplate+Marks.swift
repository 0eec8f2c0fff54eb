import Portable
import Serialization
import Snapshots

extension StatusTemplate {
    /// The marks of a kept document as its file holds them: one record of `size` bytes each, so that
    /// they are read in place, each worker its own share, instead of being decoded into an array first
    /// (at a thousand records that array was a tenth of a warm run's page faults, and more at ten thousand).
    ///
    /// A record: the value's start and end in the document (u64 each), its kind (0 `now`, 1 staleness,
    /// 2 pace), which of the pace's optional parts are there (bit 0 the window's minutes, bit 1 its
    /// reset), six bytes of padding, then three 8-byte fields: the used percent or the moment since
    /// which staleness counts, the window's minutes, its reset. Little-endian, as the rest of the file.
    enum MarkRecords {
        static let size = 48

        private static let hasMinutes: UInt8 = 1
        private static let hasReset: UInt8 = 2

        static func write(_ mark: StatusJSONWriter.MomentMark, to out: inout BinaryWriter) {
            out.u64(UInt64(mark.range.lowerBound))
            out.u64(UInt64(mark.range.upperBound))
            var kind: UInt8 = 0
            var parts: UInt8 = 0
            var fields: (Double, Int, Double) = (0, 0, 0)
            switch mark.value {
            case .now:
                break
            case .stale(let since):
                kind = 1
                fields.0 = since.timeIntervalSinceReferenceDate
            case .pace(let usedPercent, let windowMinutes, let resetsAt):
                kind = 2
                fields.0 = usedPercent
                if let windowMinutes {
                    parts |= hasMinutes
                    fields.1 = windowMinutes
                }
                if let resetsAt {
                    parts |= hasReset
                    fields.2 = resetsAt.timeIntervalSinceReferenceDate
                }
            }
            out.u8(kind)
            out.u8(parts)
            for _ in 0..<6 { out.u8(0) }
            out.double(fields.0)
            out.int(fields.1)
            out.double(fields.2)
        }

        /// Whether `records` holds `count` marks in order, inside a document of `documentSize` bytes,
        /// each of a kind this code writes: what `mark(_:_:)` then reads without checking again.
        static func areValid(_ records: UnsafeRawBufferPointer, count: Int, documentSize: Int) -> Bool {
            guard records.count == count * size else { return false }
            var end = 0
            for index in 0..<count {
                let record = records.baseAddress.unsafelyUnwrapped + index * size
                let lower = u64(record, 0)
                let upper = u64(record, 8)
                let kind = record.load(fromByteOffset: 16, as: UInt8.self)
                let parts = record.load(fromByteOffset: 17, as: UInt8.self)
                guard UInt64(end) <= lower, lower <= upper, upper <= UInt64(documentSize) else { return false }
                guard kind == 2 ? parts & ~(hasMinutes | hasReset) == 0 : kind < 2 && parts == 0 else { return false }
                end = Int(upper)
            }
            return true
        }

        /// Mark `index` of records that passed `areValid`.
        static func mark(_ records: UnsafeRawBufferPointer, _ index: Int) -> StatusJSONWriter.MomentMark {
            let record = records.baseAddress.unsafelyUnwrapped + index * size
            let parts = record.load(fromByteOffset: 17, as: UInt8.self)
            let first = Double(bitPattern: u64(record, 24))
            let value: MomentDependent
            switch record.load(fromByteOffset: 16, as: UInt8.self) {
            case 0:
                value = .now
            case 1:
                value = .stale(since: Date(timeIntervalSinceReferenceDate: first))
            default:
                value = .pace(
                    usedPercent: first,
                    windowMinutes: parts & hasMinutes != 0 ? Int(Int64(bitPattern: u64(record, 32))) : nil,
                    resetsAt: parts & hasReset != 0
                        ? Date(timeIntervalSinceReferenceDate: Double(bitPattern: u64(record, 40))) : nil)
            }
            return StatusJSONWriter.MomentMark(range: range(records, index), value: value)
        }

        /// The range of mark `index` alone.
        static func range(_ records: UnsafeRawBufferPointer, _ index: Int) -> Range<Int> {
            let record = records.baseAddress.unsafelyUnwrapped + index * size
            return Int(u64(record, 0))..<Int(u64(record, 8))
        }

        @inline(__always)
        private static func u64(_ record: UnsafeRawPointer, _ offset: Int) -> UInt64 {
            UInt64(littleEndian: record.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
    }
}
