import Foundation
import Synchronization

extension CKSyncEngine {
    /// What the engine still has to do: the app's pending changes, and the server changes it knows
    /// of but has not fetched. The app adds and removes pending changes; the engine removes those
    /// it sent and reports the new state in `stateUpdate` events for the app to persist.
    public final class State: Sendable, CustomStringConvertible {
        /// Pending changes in the order added; one per record or zone (the last one added wins).
        struct Contents: Sendable {
            var recordChanges: [PendingRecordZoneChange] = []
            var databaseChanges: [PendingDatabaseChange] = []
            var hasPendingUntrackedChanges = false
            var unfetchedZones: [CKRecordZone.ID] = []
            var databaseToken: String?
            var zoneTokens: [CKRecordZone.ID: String] = [:]
            var userRecordName: String?
            /// When each pending record change was added (a counter), so a send removes only
            /// the changes it sent, not ones the app made again while it ran.
            var additions: [CKRecord.ID: Int] = [:]
            var additionCount = 0
        }

        let contents: Mutex<Contents>
        /// Called when the app changes pending changes (the engine reports a `stateUpdate` and,
        /// when syncing automatically, schedules a send).
        let changed = Mutex<(@Sendable () -> Void)?>(nil)

        init(_ contents: Contents) {
            self.contents = Mutex(contents)
        }

        public var pendingRecordZoneChanges: [PendingRecordZoneChange] { contents.withLock { $0.recordChanges } }
        public var pendingDatabaseChanges: [PendingDatabaseChange] { contents.withLock { $0.databaseChanges } }
        /// Set by the app when it has changes it has not told the engine about yet.
        public var hasPendingUntrackedChanges: Bool {
            get { contents.withLock { $0.hasPendingUntrackedChanges } }
            set {
                contents.withLock { $0.hasPendingUntrackedChanges = newValue }
                if newValue { notifyChanged() }
            }
        }
        /// Zones the server reported changed whose records have not been fetched yet.
        public var zoneIDsWithUnfetchedServerChanges: [CKRecordZone.ID] { contents.withLock { $0.unfetchedZones } }

        /// Adds changes to send. A record already pending is moved to the end with its new change:
        /// saving then deleting a record leaves one `deleteRecord`.
        public func add(pendingRecordZoneChanges changes: [PendingRecordZoneChange]) {
            guard !changes.isEmpty else { return }
            contents.withLock { contents in
                for change in changes {
                    contents.recordChanges.removeAll { $0.recordID == change.recordID }
                    contents.recordChanges.append(change)
                    contents.additionCount += 1
                    contents.additions[change.recordID] = contents.additionCount
                }
            }
            notifyChanged()
        }

        public func remove(pendingRecordZoneChanges changes: [PendingRecordZoneChange]) {
            guard !changes.isEmpty else { return }
            let removed = Set(changes)
            contents.withLock { $0.recordChanges.removeAll { removed.contains($0) } }
            notifyChanged()
        }

        /// When the pending changes of `recordIDs` were added.
        func additionMarks(_ recordIDs: [CKRecord.ID]) -> [CKRecord.ID: Int] {
            contents.withLock { contents in
                Dictionary(recordIDs.compactMap { id in contents.additions[id].map { (id, $0) } }, uniquingKeysWith: { first, _ in first })
            }
        }

        /// Removes changes a send completed, except those the app added again since `marks`.
        /// Returns how many it removed.
        @discardableResult
        func removeSent(_ changes: [PendingRecordZoneChange], marks: [CKRecord.ID: Int]) -> Int {
            let sent = Set(changes)
            return contents.withLock { contents in
                let before = contents.recordChanges.count
                contents.recordChanges.removeAll { change in
                    sent.contains(change) && contents.additions[change.recordID] == marks[change.recordID]
                }
                return before - contents.recordChanges.count
            }
        }

        /// Adds zone changes to send; one per zone, the last one added wins.
        public func add(pendingDatabaseChanges changes: [PendingDatabaseChange]) {
            guard !changes.isEmpty else { return }
            contents.withLock { contents in
                for change in changes {
                    contents.databaseChanges.removeAll { $0.zoneID == change.zoneID }
                    contents.databaseChanges.append(change)
                }
            }
            notifyChanged()
        }

        public func remove(pendingDatabaseChanges changes: [PendingDatabaseChange]) {
            guard !changes.isEmpty else { return }
            let removed = Set(changes)
            contents.withLock { $0.databaseChanges.removeAll { removed.contains($0) } }
            notifyChanged()
        }

        private func notifyChanged() {
            changed.withLock { $0 }?()
        }

        /// The state to persist and hand back to the next engine (`Configuration.stateSerialization`).
        var serialization: Serialization { Serialization(contents.withLock { Serialization.Snapshot($0) }) }

        public var description: String {
            contents.withLock { contents in
                "<CKSyncEngine.State pendingRecordZoneChanges=\(contents.recordChanges.count) pendingDatabaseChanges=\(contents.databaseChanges.count) unfetchedZones=\(contents.unfetchedZones.count)>"
            }
        }

        /// The engine's state as the app stores it between launches. Opaque: its contents may
        /// change between versions, and a serialization from an older version still decodes.
        public struct Serialization: Codable, Sendable, Hashable {
            let snapshot: Snapshot

            init(_ snapshot: Snapshot) {
                self.snapshot = snapshot
            }

            public init(from decoder: any Decoder) throws {
                snapshot = try decoder.singleValueContainer().decode(Snapshot.self)
            }

            public func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(snapshot)
            }

            /// The stored form. New members must be optional so older snapshots still decode.
            struct Snapshot: Codable, Sendable, Hashable {
                struct Zone: Codable, Sendable, Hashable {
                    var name: String
                    var owner: String
                    init(_ id: CKRecordZone.ID) { name = id.zoneName; owner = id.ownerName }
                    var id: CKRecordZone.ID { CKRecordZone.ID(zoneName: name, ownerName: owner) }
                }
                struct Change: Codable, Sendable, Hashable {
                    /// "save" or "delete".
                    var kind: String
                    var record: String?
                    var zone: Zone
                }

                var version = 1
                var recordChanges: [Change]
                var databaseChanges: [Change]
                var hasPendingUntrackedChanges: Bool
                var unfetchedZones: [Zone]
                var databaseToken: String?
                var zoneTokens: [Zone: String]
                var userRecordName: String?

                init(_ contents: Contents) {
                    recordChanges = contents.recordChanges.map { change in
                        switch change {
                        case .saveRecord(let id): return Change(kind: "save", record: id.recordName, zone: Zone(id.zoneID))
                        case .deleteRecord(let id): return Change(kind: "delete", record: id.recordName, zone: Zone(id.zoneID))
                        }
                    }
                    databaseChanges = contents.databaseChanges.map { change in
                        switch change {
                        case .saveZone(let zone): return Change(kind: "save", zone: Zone(zone.zoneID))
                        case .deleteZone(let id): return Change(kind: "delete", zone: Zone(id))
                        }
                    }
                    hasPendingUntrackedChanges = contents.hasPendingUntrackedChanges
                    unfetchedZones = contents.unfetchedZones.map(Zone.init)
                    databaseToken = contents.databaseToken
                    zoneTokens = Dictionary(uniqueKeysWithValues: contents.zoneTokens.map { (Zone($0.key), $0.value) })
                    userRecordName = contents.userRecordName
                }

                var contents: Contents {
                    var contents = Contents()
                    contents.recordChanges = recordChanges.compactMap { change in
                        guard let name = change.record else { return nil }
                        let id = CKRecord.ID(recordName: name, zoneID: change.zone.id)
                        return change.kind == "delete" ? .deleteRecord(id) : .saveRecord(id)
                    }
                    contents.databaseChanges = databaseChanges.map { change in
                        change.kind == "delete" ? .deleteZone(change.zone.id) : .saveZone(CKRecordZone(zoneID: change.zone.id))
                    }
                    contents.hasPendingUntrackedChanges = hasPendingUntrackedChanges
                    contents.unfetchedZones = unfetchedZones.map(\.id)
                    contents.databaseToken = databaseToken
                    contents.zoneTokens = Dictionary(uniqueKeysWithValues: zoneTokens.map { ($0.key.id, $0.value) })
                    contents.userRecordName = userRecordName
                    return contents
                }
            }
        }
    }
}
