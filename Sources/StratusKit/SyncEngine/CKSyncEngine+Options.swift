import Foundation

extension CKSyncEngine {
    /// Why a fetch or a send runs: the engine scheduled it, or the app asked.
    public enum SyncReason: Sendable, Hashable {
        case scheduled
        case manual
    }

    /// What a fetch covers.
    public struct FetchChangesOptions: Sendable {
        /// The zones a fetch covers: all, all but some, or only some.
        public enum Scope: Sendable, Equatable {
            case all
            case allExcluding([CKRecordZone.ID])
            case zoneIDs([CKRecordZone.ID])

            public func contains(_ zoneID: CKRecordZone.ID) -> Bool {
                switch self {
                case .all: return true
                case .allExcluding(let excluded): return !excluded.contains(zoneID)
                case .zoneIDs(let included): return included.contains(zoneID)
                }
            }
        }

        public var scope: Scope
        public var operationGroup: CKOperationGroup
        /// Zones fetched before the others.
        public var prioritizedZoneIDs: [CKRecordZone.ID] = []

        public init(scope: Scope = .all, operationGroup: CKOperationGroup? = nil) {
            self.scope = scope
            self.operationGroup = operationGroup ?? CKOperationGroup()
        }
    }

    /// What a send covers.
    public struct SendChangesOptions: Sendable {
        /// The changes a send covers: all, those of some zones, or only some records.
        public enum Scope: Sendable, Equatable {
            case all
            case allExcluding([CKRecordZone.ID])
            case zoneIDs([CKRecordZone.ID])
            case recordIDs([CKRecord.ID])

            public func contains(_ recordID: CKRecord.ID) -> Bool {
                switch self {
                case .all: return true
                case .allExcluding(let excluded): return !excluded.contains(recordID.zoneID)
                case .zoneIDs(let included): return included.contains(recordID.zoneID)
                case .recordIDs(let included): return included.contains(recordID)
                }
            }

            public func contains(_ pendingChange: PendingRecordZoneChange) -> Bool { contains(pendingChange.recordID) }

            /// Whether a zone's database change is in scope (a record-ID scope sends no zone changes).
            func contains(zone zoneID: CKRecordZone.ID) -> Bool {
                switch self {
                case .all: return true
                case .allExcluding(let excluded): return !excluded.contains(zoneID)
                case .zoneIDs(let included): return included.contains(zoneID)
                case .recordIDs: return false
                }
            }
        }

        public var scope: Scope
        public var operationGroup: CKOperationGroup

        public init(scope: Scope = .all, operationGroup: CKOperationGroup? = nil) {
            self.scope = scope
            self.operationGroup = operationGroup ?? CKOperationGroup()
        }
    }

    /// What the delegate is told when asked for fetch options.
    public struct FetchChangesContext: Sendable {
        public let reason: SyncReason
        public let options: FetchChangesOptions
    }

    /// What the delegate is told when asked for the next batch to send.
    public struct SendChangesContext: Sendable {
        public let reason: SyncReason
        public let options: SendChangesOptions
    }
}
