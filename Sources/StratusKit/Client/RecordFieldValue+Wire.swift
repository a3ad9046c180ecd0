import Foundation
import StratusModel

// Conversion between the SDK's field values and the CKWS field dictionaries of StratusModel.

extension CKRecordZone.ID {
    /// The wire zone ID; the current-user placeholder owner is left out (the server fills in the caller).
    var wire: ZoneID {
        ZoneID(zoneName: zoneName, ownerRecordName: ownerName == CKCurrentUserDefaultName ? nil : ownerName)
    }

    /// Reads a wire zone ID; `context` is a zone the caller named, reused when the names agree so
    /// IDs in results compare equal to the caller's own.
    convenience init(wire: ZoneID, context: CKRecordZone.ID? = nil) {
        if let context, context.zoneName == wire.zoneName,
            wire.ownerRecordName == nil || context.ownerName == CKCurrentUserDefaultName || context.ownerName == wire.ownerRecordName
        {
            self.init(zoneName: context.zoneName, ownerName: context.ownerName)
        } else {
            self.init(zoneName: wire.zoneName, ownerName: wire.ownerRecordName ?? CKCurrentUserDefaultName)
        }
    }
}

extension Date {
    /// Milliseconds since 1970, as CKWS timestamps.
    var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
    init(milliseconds: Int64) { self.init(timeIntervalSince1970: Double(milliseconds) / 1000) }
}

extension CKRecord.Reference {
    /// The wire reference. The zone is written only when it is not the holder's zone.
    func wire(holderZone: CKRecordZone.ID?) -> ReferenceValue {
        ReferenceValue(
            recordName: recordID.recordName,
            zoneID: recordID.zoneID == holderZone ? nil : recordID.zoneID.wire,
            action: action == .deleteSelf ? .deleteSelf : .none)
    }

    convenience init(wire: ReferenceValue, holderZone: CKRecordZone.ID) {
        let zone = wire.zoneID.map { CKRecordZone.ID(wire: $0, context: holderZone) } ?? holderZone
        self.init(
            recordID: CKRecord.ID(recordName: wire.recordName, zoneID: zone),
            action: wire.action == .deleteSelf ? .deleteSelf : .none)
    }
}

extension CLLocation {
    var wire: LocationValue {
        LocationValue(
            latitude: coordinate.latitude, longitude: coordinate.longitude,
            horizontalAccuracy: horizontalAccuracy, verticalAccuracy: verticalAccuracy,
            altitude: altitude, speed: speed, course: course, timestamp: timestamp.millisecondsSince1970)
    }

    convenience init(wire: LocationValue) {
        self.init(
            coordinate: CLLocationCoordinate2D(latitude: wire.latitude, longitude: wire.longitude),
            altitude: wire.altitude ?? 0, horizontalAccuracy: wire.horizontalAccuracy ?? 0,
            verticalAccuracy: wire.verticalAccuracy ?? -1, course: wire.course ?? -1, speed: wire.speed ?? -1,
            timestamp: wire.timestamp.map { Date(milliseconds: $0) } ?? Date())
    }
}

extension RecordFieldValue {
    /// The wire value. Assets must already carry their upload receipt (see the asset uploader).
    func wire(holderZone: CKRecordZone.ID?) -> FieldValue {
        switch self {
        case .string(let s): return .string(s)
        case .int64(let i): return .int64(i)
        case .double(let d): return .double(d)
        case .date(let d): return .timestamp(d.millisecondsSince1970)
        case .bytes(let d): return .bytes(d)
        case .reference(let r): return .reference(r.wire(holderZone: holderZone))
        case .location(let l): return .location(l.wire)
        case .asset(let a): return .asset(a.wire ?? AssetValue())
        case .list(let items):
            let elements = items.map { $0.wire(holderZone: holderZone) }
            return .list(elements.first?.typeDescriptor?.scalar, elements)
        }
    }

    init(wire: FieldValue, holderZone: CKRecordZone.ID) {
        switch wire {
        case .string(let s): self = .string(s)
        case .int64(let i): self = .int64(i)
        case .double(let d): self = .double(d)
        case .timestamp(let t): self = .date(Date(milliseconds: t))
        case .bytes(let d): self = .bytes(d)
        case .reference(let r): self = .reference(CKRecord.Reference(wire: r, holderZone: holderZone))
        case .location(let l): self = .location(CLLocation(wire: l))
        case .asset(let a):
            self = .asset(CKAsset(wire: a, fileURL: nil))
        case .list(_, let items): self = .list(items.map { RecordFieldValue(wire: $0, holderZone: holderZone) })
        }
    }

    /// The archive form: the wire field dictionary, plus a local `fileURL` for assets.
    var archiveJSON: JSONValue {
        if case .asset(let asset) = self {
            var members = (asset.wire ?? AssetValue()).json.objectValue ?? [:]
            if let url = asset.fileURL { members["fileURL"] = .string(url.path) }
            return .object(["value": .object(members), "type": "ASSET"])
        }
        return wire(holderZone: nil).fieldJSON()
    }

    init?(archiveJSON json: JSONValue, zoneID: CKRecordZone.ID) {
        if json["type"]?.stringValue == "ASSET", let members = json["value"] {
            guard let asset = try? AssetValue(json: members, path: "") else { return nil }
            let url = members["fileURL"]?.stringValue.map { URL(fileURLWithPath: $0) }
            let isBare = asset == AssetValue()
            self = .asset(isBare ? CKAsset(fileURL: url ?? URL(fileURLWithPath: "/dev/null")) : CKAsset(wire: asset, fileURL: url))
            return
        }
        guard case .value(let value)? = try? FieldValue.decode(fieldJSON: json, path: "", expected: nil) else { return nil }
        self.init(wire: value, holderZone: zoneID)
    }
}
