import Foundation

extension CKSyncEngine {
    /// What the engine tells its delegate, one event at a time, in order.
    public enum Event: Sendable, CustomStringConvertible {
        case stateUpdate(StateUpdate)
        case accountChange(AccountChange)
        case fetchedDatabaseChanges(FetchedDatabaseChanges)
        case fetchedRecordZoneChanges(FetchedRecordZoneChanges)
        case sentDatabaseChanges(SentDatabaseChanges)
        case sentRecordZoneChanges(SentRecordZoneChanges)
        case willFetchChanges(WillFetchChanges)
        case willFetchRecordZoneChanges(WillFetchRecordZoneChanges)
        case didFetchRecordZoneChanges(DidFetchRecordZoneChanges)
        case didFetchChanges(DidFetchChanges)
        case willSendChanges(WillSendChanges)
        case didSendChanges(DidSendChanges)

        /// The state changed: persist `stateSerialization` and pass it to the next engine.
        public struct StateUpdate: Sendable, CustomStringConvertible {
            public let stateSerialization: State.Serialization
            public var description: String { "StateUpdate" }
        }

        /// The signed-in user changed since the engine last ran.
        public struct AccountChange: Sendable, CustomStringConvertible {
            /// How the account changed: a user signed in, signed out, or another user took over.
            public enum ChangeType: Sendable, Equatable {
                case signIn(currentUser: CKRecord.ID)
                case signOut(previousUser: CKRecord.ID)
                case switchAccounts(previousUser: CKRecord.ID, currentUser: CKRecord.ID)
            }
            public let changeType: ChangeType
            public var description: String { "AccountChange(\(changeType))" }
        }

        /// Zones the server created, changed or deleted.
        public struct FetchedDatabaseChanges: Sendable, CustomStringConvertible {
            public let modifications: [CKDatabase.DatabaseChange.Modification]
            public let deletions: [CKDatabase.DatabaseChange.Deletion]
            public var description: String { "FetchedDatabaseChanges(modifications: \(modifications.count), deletions: \(deletions.count))" }
        }

        /// Records the server saved or deleted (one page of a zone's changes).
        public struct FetchedRecordZoneChanges: Sendable, CustomStringConvertible {
            public let modifications: [CKDatabase.RecordZoneChange.Modification]
            public let deletions: [CKDatabase.RecordZoneChange.Deletion]
            public var description: String { "FetchedRecordZoneChanges(modifications: \(modifications.count), deletions: \(deletions.count))" }
        }

        /// The outcome of sending zone changes.
        public struct SentDatabaseChanges: Sendable, CustomStringConvertible {
            /// A zone the server refused to save, with the reason.
            public struct FailedZoneSave: Sendable, CustomStringConvertible {
                public let zone: CKRecordZone
                public let error: CKError
                public var description: String { "FailedZoneSave(\(zone.zoneID.zoneName), \(error.code))" }
            }
            public let savedZones: [CKRecordZone]
            public let failedZoneSaves: [FailedZoneSave]
            public let deletedZoneIDs: [CKRecordZone.ID]
            public let failedZoneDeletes: [CKRecordZone.ID: CKError]
            public var description: String {
                "SentDatabaseChanges(saved: \(savedZones.count), failedSaves: \(failedZoneSaves.count), deleted: \(deletedZoneIDs.count), failedDeletes: \(failedZoneDeletes.count))"
            }
        }

        /// The outcome of sending one batch of record changes.
        public struct SentRecordZoneChanges: Sendable, CustomStringConvertible {
            /// A record the server refused to save, with the reason (for `serverRecordChanged`, the
            /// error carries the server's record).
            public struct FailedRecordSave: Sendable, CustomStringConvertible {
                public let record: CKRecord
                public let error: CKError
                public var description: String { "FailedRecordSave(\(record.recordID.recordName), \(error.code))" }
            }
            public let savedRecords: [CKRecord]
            public let failedRecordSaves: [FailedRecordSave]
            public let deletedRecordIDs: [CKRecord.ID]
            public let failedRecordDeletes: [CKRecord.ID: CKError]
            public var description: String {
                "SentRecordZoneChanges(saved: \(savedRecords.count), failedSaves: \(failedRecordSaves.count), deleted: \(deletedRecordIDs.count), failedDeletes: \(failedRecordDeletes.count))"
            }
        }

        /// A fetch is about to start.
        public struct WillFetchChanges: Sendable, CustomStringConvertible {
            public let context: FetchChangesContext
            public var description: String { "WillFetchChanges" }
        }

        /// The engine is about to fetch one zone's changes.
        public struct WillFetchRecordZoneChanges: Sendable, CustomStringConvertible {
            public let zoneID: CKRecordZone.ID
            public var description: String { "WillFetchRecordZoneChanges(\(zoneID.zoneName))" }
        }

        /// The engine finished fetching one zone's changes, or could not.
        public struct DidFetchRecordZoneChanges: Sendable, CustomStringConvertible {
            public let zoneID: CKRecordZone.ID
            /// Why the zone's changes could not be fetched (`zoneNotFound`, `userDeletedZone`, …).
            public let error: CKError?
            public var description: String { "DidFetchRecordZoneChanges(\(zoneID.zoneName)\(error.map { ", \($0.code)" } ?? ""))" }
        }

        /// A fetch finished.
        public struct DidFetchChanges: Sendable, CustomStringConvertible {
            public let context: FetchChangesContext
            public var description: String { "DidFetchChanges" }
        }

        /// A send is about to start.
        public struct WillSendChanges: Sendable, CustomStringConvertible {
            public let context: SendChangesContext
            public var description: String { "WillSendChanges" }
        }

        /// A send finished.
        public struct DidSendChanges: Sendable, CustomStringConvertible {
            public let context: SendChangesContext
            public var description: String { "DidSendChanges" }
        }

        public var description: String {
            switch self {
            case .stateUpdate(let event): return "stateUpdate(\(event))"
            case .accountChange(let event): return "accountChange(\(event))"
            case .fetchedDatabaseChanges(let event): return "fetchedDatabaseChanges(\(event))"
            case .fetchedRecordZoneChanges(let event): return "fetchedRecordZoneChanges(\(event))"
            case .sentDatabaseChanges(let event): return "sentDatabaseChanges(\(event))"
            case .sentRecordZoneChanges(let event): return "sentRecordZoneChanges(\(event))"
            case .willFetchChanges(let event): return "willFetchChanges(\(event))"
            case .willFetchRecordZoneChanges(let event): return "willFetchRecordZoneChanges(\(event))"
            case .didFetchRecordZoneChanges(let event): return "didFetchRecordZoneChanges(\(event))"
            case .didFetchChanges(let event): return "didFetchChanges(\(event))"
            case .willSendChanges(let event): return "willSendChanges(\(event))"
            case .didSendChanges(let event): return "didSendChanges(\(event))"
            }
        }
    }
}
