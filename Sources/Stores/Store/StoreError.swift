import HTTP
import Snapshots

/// Why a store operation failed, whatever the medium. Messages are one lowercase line quoting the store
/// or record, and never contain credentials (`store` is always a display name).
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The store's folder or collection does not exist.
    case storeMissing(store: String)
    /// The store path exists but is not a folder or collection.
    case notAStore(store: String)
    /// The store cannot be created because its parent is missing.
    case parentMissing(store: String)
    case permissionDenied(store: String, detail: String)
    case recordMissing(name: String)
    case recordTooLarge(name: String, size: Int64, limit: Int)
    /// The record's bytes were read, and cannot be used as they are: a sealed record without its key, or
    /// one that does not open; plaintext where sealing is required.
    case refusedRecord(name: String, reason: String)
    /// A symbolic link, folder, device or pipe where a record should be; never followed or read.
    case notARegularFile(name: String)
    /// No answer within the time limit: asking again would cost the same wait.
    case timedOut(operation: String, target: String, reason: String)
    /// Anything else, with the medium's own reason.
    case failed(operation: String, target: String, reason: String)

    public var description: String {
        switch self {
        case .storeMissing(let store):
            return "store '\(store)' does not exist"
        case .notAStore(let store):
            return "store '\(store)' is not a folder"
        case .parentMissing(let store):
            return "cannot create store '\(store)': its parent folder does not exist"
        case .permissionDenied(let store, let detail):
            return "cannot access store '\(store)': permission denied" + (detail.isEmpty ? "" : " (\(detail))")
        case .recordMissing(let name):
            return "record '\(name)' does not exist"
        case .recordTooLarge(let name, let size, let limit):
            return "record '\(name)' is \(size) bytes, over the \(limit / 1024 / 1024) MiB limit; not read"
        case .notARegularFile(let name):
            return "'\(name)' is not a regular file (a link, folder or device); not followed"
        case .refusedRecord(let name, let reason):
            return "record '\(name)': \(reason)"
        case .failed(let operation, let target, let reason), .timedOut(let operation, let target, let reason):
            return "cannot \(operation) '\(target)': \(reason)"
        }
    }

    /// Whether reading the record again a moment later may succeed: not after a timeout (it would cost
    /// the same wait), a size limit or a file that is not a record.
    public var mayPassOnReread: Bool {
        switch self {
        case .timedOut, .recordTooLarge, .notARegularFile, .refusedRecord: return false
        default: return true
        }
    }

    /// Whether the failure judges the record itself, and stays true while the record is unchanged (too
    /// large, not a regular file): only such a failure may be cached under the record's version. A
    /// timeout, a reset or a refusal says nothing about the next read.
    public var isVerdictOnRecord: Bool {
        switch self {
        case .recordTooLarge, .notARegularFile, .refusedRecord: return true
        default: return false
        }
    }

    /// The one-line reason for a problem list, where the file name is already given beside it.
    public var reasonForProblem: String {
        switch self {
        case .recordTooLarge(_, let size, let limit):
            return "\(size) bytes is over the \(limit / 1024 / 1024) MiB limit; not read"
        case .notARegularFile:
            return "not a regular file (a link, folder or device); not followed"
        case .recordMissing:
            return "disappeared while the store was read"
        case .refusedRecord(_, let reason):
            return reason
        case .failed(_, _, let reason), .timedOut(_, _, let reason):
            return reason
        default:
            return description
        }
    }
}

extension StoreError {
    /// What an error quotes as its target: the store itself, or a record with its store (`name' in
    /// 'store`, inside the message's own quotes).
    static func target(_ target: String, in store: String) -> String {
        target == store ? store : "\(target)' in '\(store)"
    }

    /// The store's error for a request that got no answer: a body over `limit` is a record too large, a
    /// timeout stays a timeout (never read again), the rest fails with the client's reason.
    static func transport(
        _ error: HTTPError, operation: String, target: String, store: String, limit: Int?
    ) -> StoreError {
        if case .bodyTooLarge(let size) = error.kind, let limit {
            return .recordTooLarge(name: target, size: size ?? Int64(limit) + 1, limit: limit)
        }
        let quoted = Self.target(target, in: store)
        if error.kind == .timeout {
            return .timedOut(operation: operation, target: quoted, reason: error.reason)
        }
        return .failed(operation: operation, target: quoted, reason: error.reason)
    }
}
