import Foundation

extension CKSyncEngine {
    /// A record the app changed locally and wants sent: saved or deleted.
    public enum PendingRecordZoneChange: Sendable, Hashable, CustomStringConvertible {
        case saveRecord(CKRecord.ID)
        case deleteRecord(CKRecord.ID)

        /// The record the change is about.
        public var recordID: CKRecord.ID {
            switch self {
            case .saveRecord(let id), .deleteRecord(let id): return id
            }
        }

        public var description: String {
            switch self {
            case .saveRecord(let id): return "saveRecord(\(id.recordName))"
            case .deleteRecord(let id): return "deleteRecord(\(id.recordName))"
            }
        }
    }

    /// A zone the app created or deleted locally and wants sent.
    public enum PendingDatabaseChange: Sendable, Hashable, CustomStringConvertible {
        case saveZone(CKRecordZone)
        case deleteZone(CKRecordZone.ID)

        /// The zone the change is about.
        public var zoneID: CKRecordZone.ID {
            switch self {
            case .saveZone(let zone): return zone.zoneID
            case .deleteZone(let id): return id
            }
        }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            switch (lhs, rhs) {
            case (.saveZone(let a), .saveZone(let b)): return a.zoneID == b.zoneID
            case (.deleteZone(let a), .deleteZone(let b)): return a == b
            default: return false
            }
        }

        public func hash(into hasher: inout Hasher) {
            switch self {
            case .saveZone(let zone): hasher.combine(0); hasher.combine(zone.zoneID)
            case .deleteZone(let id): hasher.combine(1); hasher.combine(id)
            }
        }

        public var description: String {
            switch self {
            case .saveZone(let zone): return "saveZone(\(zone.zoneID.zoneName))"
            case .deleteZone(let id): return "deleteZone(\(id.zoneName))"
            }
        }
    }

    /// The records one send hands to the server, which the delegate builds on request.
    public struct RecordZoneChangeBatch: Sendable {
        public var recordsToSave: [CKRecord]
        public var recordIDsToDelete: [CKRecord.ID]
        /// Whether the changes of each zone succeed or fail together.
        public var atomicByZone: Bool

        public init(recordsToSave: [CKRecord] = [], recordIDsToDelete: [CKRecord.ID] = [], atomicByZone: Bool = false) {
            self.recordsToSave = recordsToSave
            self.recordIDsToDelete = recordIDsToDelete
            self.atomicByZone = atomicByZone
        }

        /// A batch of the first pending changes, up to the server's limit per request. Saves whose
        /// record `recordProvider` cannot supply (`nil`) are left out. `nil` when nothing is left.
        public init?(pendingChanges: [PendingRecordZoneChange], recordProvider: @Sendable (CKRecord.ID) async -> CKRecord?) async {
            var saves: [CKRecord] = []
            var deletes: [CKRecord.ID] = []
            for change in pendingChanges {
                if saves.count + deletes.count >= RecordZoneChangeBatch.maximumChanges { break }
                switch change {
                case .saveRecord(let id):
                    if let record = await recordProvider(id) { saves.append(record) }
                case .deleteRecord(let id):
                    deletes.append(id)
                }
            }
            guard !saves.isEmpty || !deletes.isEmpty else { return nil }
            self.init(recordsToSave: saves, recordIDsToDelete: deletes)
        }

        /// Changes per batch: what the server takes in one records/modify request.
        static let maximumChanges = 200

        /// The batch's changes, as pending changes.
        var changes: [PendingRecordZoneChange] {
            recordsToSave.map { .saveRecord($0.recordID) } + recordIDsToDelete.map { .deleteRecord($0) }
        }

        /// The batch with only the changes `include` accepts.
        func keeping(_ include: (PendingRecordZoneChange) -> Bool) -> RecordZoneChangeBatch {
            RecordZoneChangeBatch(
                recordsToSave: recordsToSave.filter { include(.saveRecord($0.recordID)) },
                recordIDsToDelete: recordIDsToDelete.filter { include(.deleteRecord($0)) },
                atomicByZone: atomicByZone)
        }
    }
}
