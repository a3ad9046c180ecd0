// Sync-engine contacts: a small contacts app's data layer written as Apple's CKSyncEngine sample
// writes it — a local JSON store, an actor as the sync engine's delegate, conflict handling that
// merges — on two devices of one user that edit offline and converge.
// Needs a signed-in user: STRATUS_URL, STRATUS_CONTAINER, STRATUS_API_TOKEN, STRATUS_WEB_AUTH_TOKEN.
import Foundation
import StratusKit

func check(_ condition: Bool, _ message: String) {
    if !condition {
        print("FAILED: \(message)")
        exit(1)
    }
}

guard let configuration = StratusConfiguration.fromEnvironment() else {
    print("set STRATUS_URL, STRATUS_CONTAINER, STRATUS_API_TOKEN and STRATUS_WEB_AUTH_TOKEN (see the README)")
    exit(2)
}
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-engine-contacts-\(UUID().uuidString.prefix(8))")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let zoneID = CKRecordZone.ID(zoneName: "Contacts-\(UUID().uuidString.prefix(6))")

struct Contact: Codable, Equatable {
    var name: String
    var phone: String
    var email: String
}

/// What a device keeps per contact: the app's values, the values last synced with the server
/// (the base a conflict merges against) and the server record's system fields (its change tag).
struct StoredContact: Codable {
    var contact: Contact
    var synced: Contact?
    var systemFields: Data?
}

/// One device's data: contacts and the engine's state, saved to a JSON file after every change.
actor ContactsDatabase: CKSyncEngineDelegate {
    struct AppData: Codable {
        var contacts: [String: StoredContact] = [:]
        var stateSerialization: CKSyncEngine.State.Serialization?
    }

    let file: URL
    let container: CKContainer
    let zoneID: CKRecordZone.ID
    private(set) var appData: AppData
    private var engine: CKSyncEngine?

    init(device: String, folder: URL, configuration: StratusConfiguration, zoneID: CKRecordZone.ID) {
        file = folder.appendingPathComponent("\(device).json")
        container = CKContainer(configuration: configuration)
        self.zoneID = zoneID
        appData = (try? JSONDecoder().decode(AppData.self, from: Data(contentsOf: file))) ?? AppData()
    }

    var syncEngine: CKSyncEngine {
        if let engine { return engine }
        var engineConfiguration = CKSyncEngine.Configuration(
            database: container.privateCloudDatabase,
            stateSerialization: appData.stateSerialization, delegate: self)
        engineConfiguration.automaticallySync = false // the example syncs when it says so
        let engine = CKSyncEngine(engineConfiguration)
        self.engine = engine
        return engine
    }

    private func persist() throws {
        try JSONEncoder().encode(appData).write(to: file, options: .atomic)
    }

    // MARK: The app's actions

    func save(_ contact: Contact, id: String) throws {
        appData.contacts[id, default: StoredContact(contact: contact)].contact = contact
        try persist()
        syncEngine.state.add(pendingRecordZoneChanges: [.saveRecord(CKRecord.ID(recordName: id, zoneID: zoneID))])
    }

    func delete(id: String) throws {
        appData.contacts[id] = nil
        try persist()
        syncEngine.state.add(pendingRecordZoneChanges: [.deleteRecord(CKRecord.ID(recordName: id, zoneID: zoneID))])
    }

    func createZone() {
        syncEngine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: zoneID))])
    }

    func sync() async throws {
        try await syncEngine.fetchChanges()
        try await syncEngine.sendChanges()
    }

    func contact(_ id: String) -> Contact? { appData.contacts[id]?.contact }

    // MARK: CKSyncEngineDelegate

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        switch event {
        case .stateUpdate(let update):
            appData.stateSerialization = update.stateSerialization
        case .fetchedRecordZoneChanges(let changes):
            for modification in changes.modifications {
                receive(modification.record, keepingLocalEdits: syncEngine.state.pendingRecordZoneChanges.contains(.saveRecord(modification.record.recordID)))
            }
            for deletion in changes.deletions { appData.contacts[deletion.recordID.recordName] = nil }
        case .sentRecordZoneChanges(let sent):
            for record in sent.savedRecords {
                receive(record, keepingLocalEdits: syncEngine.state.pendingRecordZoneChanges.contains(.saveRecord(record.recordID)))
            }
            var retry: [CKSyncEngine.PendingRecordZoneChange] = []
            for failure in sent.failedRecordSaves {
                let id = failure.record.recordID
                switch failure.error.code {
                case .serverRecordChanged:
                    guard let server = failure.error.serverRecord else { continue }
                    receive(server, keepingLocalEdits: true)
                    retry.append(.saveRecord(id))
                case .unknownItem:
                    // Deleted on the server meanwhile: this device's edit brings it back.
                    appData.contacts[id.recordName]?.systemFields = nil
                    appData.contacts[id.recordName]?.synced = nil
                    retry.append(.saveRecord(id))
                default:
                    print("  could not save \(id.recordName): \(failure.error.code)")
                }
            }
            syncEngine.state.add(pendingRecordZoneChanges: retry)
        case .fetchedDatabaseChanges(let changes):
            if changes.deletions.contains(where: { $0.zoneID == zoneID }) { appData.contacts = [:] }
        default:
            break
        }
        try? persist()
    }

    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? {
        let pending = syncEngine.state.pendingRecordZoneChanges.filter { context.options.scope.contains($0) }
        let contacts = appData.contacts
        return await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: pending) { recordID in
            guard let stored = contacts[recordID.recordName] else { return nil }
            let contact = stored.contact
            let record = stored.systemFields.flatMap(ContactsDatabase.record(from:)) ?? CKRecord(recordType: "Contact", recordID: recordID)
            record["name"] = contact.name
            record["phone"] = contact.phone
            record["email"] = contact.email
            return record
        }
    }

    // MARK: Records

    /// Takes the server's version of a contact. With local edits not yet sent, the fields this
    /// device changed since it last synced keep the device's values (a three-way merge against
    /// the last synced values); the others take the server's.
    private func receive(_ server: CKRecord, keepingLocalEdits: Bool) {
        let id = server.recordID.recordName
        let remote = Self.contact(from: server)
        var merged = remote
        if keepingLocalEdits, let stored = appData.contacts[id] {
            let (local, base) = (stored.contact, stored.synced)
            if local.name != base?.name { merged.name = local.name }
            if local.phone != base?.phone { merged.phone = local.phone }
            if local.email != base?.email { merged.email = local.email }
        }
        appData.contacts[id] = StoredContact(contact: merged, synced: remote, systemFields: Self.archive(server))
    }

    static func contact(from record: CKRecord) -> Contact {
        Contact(name: record["name"] as? String ?? "", phone: record["phone"] as? String ?? "", email: record["email"] as? String ?? "")
    }

    static func archive(_ record: CKRecord) -> Data? {
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        record.encodeSystemFields(with: coder)
        coder.finishEncoding()
        return coder.encodedData
    }

    static func record(from data: Data) -> CKRecord? {
        guard let coder = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
        coder.requiresSecureCoding = true
        return CKRecord(coder: coder)
    }
}

let phone = ContactsDatabase(device: "phone", folder: folder, configuration: configuration, zoneID: zoneID)
let laptop = ContactsDatabase(device: "laptop", folder: folder, configuration: configuration, zoneID: zoneID)

print("1. The phone adds two contacts and syncs; the laptop syncs and has them.")
await phone.createZone()
try await phone.save(Contact(name: "Ada Lovelace", phone: "555-0101", email: "ada@example.com"), id: "ada")
try await phone.save(Contact(name: "Alan Turing", phone: "555-0102", email: "alan@example.com"), id: "alan")
try await phone.sync()
try await laptop.sync()
let (adaOnLaptop, adaOnPhone, alanOnLaptop) = (await laptop.contact("ada"), await phone.contact("ada"), await laptop.contact("alan"))
check(adaOnLaptop != nil && adaOnLaptop == adaOnPhone, "the laptop has Ada")
check(alanOnLaptop?.phone == "555-0102", "the laptop has Alan")
print("  laptop: \(adaOnLaptop!.name), \(alanOnLaptop!.name)")

print("2. Offline, the phone changes Ada's phone number and the laptop her email.")
var onPhone = await phone.contact("ada")!
onPhone.phone = "555-0199"
try await phone.save(onPhone, id: "ada")
var onLaptop = await laptop.contact("ada")!
onLaptop.email = "countess@example.com"
try await laptop.save(onLaptop, id: "ada")

print("3. Back online: the phone sends first; the laptop's save conflicts, merges and goes through.")
try await phone.sync()
try await laptop.sync()
try await phone.sync()
let merged = await phone.contact("ada")
print("  phone: \(merged?.phone ?? "?"), \(merged?.email ?? "?")")
check(merged?.phone == "555-0199" && merged?.email == "countess@example.com", "both edits survive the conflict")
let mergedOnLaptop = await laptop.contact("ada")
check(mergedOnLaptop == merged, "both devices agree")

print("4. The laptop deletes Alan; the phone, relaunched from its saved state, sees it gone.")
try await laptop.delete(id: "alan")
try await laptop.sync()
let relaunched = ContactsDatabase(device: "phone", folder: folder, configuration: configuration, zoneID: zoneID)
try await relaunched.sync()
let (alanAfter, adaAfter) = (await relaunched.contact("alan"), await relaunched.contact("ada"))
check(alanAfter == nil && adaAfter == merged, "the relaunched phone is up to date")

_ = try await CKContainer(configuration: configuration).privateCloudDatabase.deleteRecordZone(withID: zoneID)
print("sync-engine-contacts: OK")
