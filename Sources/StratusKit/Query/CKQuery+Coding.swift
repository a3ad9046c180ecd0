import Foundation
import StratusModel

// Secure coding for queries. The predicate is archived as a format string with a `%@` for each
// value and the values in their CKWS form, both read from the filters the server would receive;
// restoring parses the format again, so a restored query filters exactly as the original did.
// A predicate CloudKit refuses has no such form: encoding leaves it out and restoring fails.

extension CKQuery: NSSecureCoding {
    public class var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(recordType as NSString, forKey: "recordType")
        let filterFormat: FilterFormat
        switch try? predicate.queryFilters() {
        case .filters(let filters)?:
            guard let written = try? FilterFormat(filters: filters) else { return }
            filterFormat = written
        case .none?: filterFormat = FilterFormat(matchingNothing: ())
        case nil: return
        }
        coder.encode(filterFormat.format as NSString, forKey: "predicateFormat")
        coder.encode(filterFormat.display as NSString, forKey: "predicateDisplay")
        let arguments = JSONValue.array(filterFormat.arguments.map { $0.fieldJSON() })
        coder.encode(arguments.serializedData as NSData, forKey: "predicateArguments")
        let sorts = (sortDescriptors ?? []).compactMap { try? $0.querySort() }
        coder.encode(JSONValue.array(sorts).serializedData as NSData, forKey: "sortDescriptors")
    }

    /// The parts of an archived query, or `nil` when the archive lacks its type or predicate.
    static func decodeParts(_ coder: NSCoder) -> (CKRecord.RecordType, NSPredicate, [NSSortDescriptor]?)? {
        guard let recordType = coder.decodeStringIfPresent(forKey: "recordType"),
            let format = coder.decodeStringIfPresent(forKey: "predicateFormat"),
            let argumentData = coder.decodeIfPresent(NSData.self, forKey: "predicateArguments"),
            let argumentJSON = try? JSONValue.parse(argumentData as Data).arrayValue
        else { return nil }
        var arguments: [FieldValue] = []
        for json in argumentJSON {
            guard case .value(let value)? = try? FieldValue.decode(fieldJSON: json, path: "predicateArguments", expected: nil) else { return nil }
            arguments.append(value)
        }
        let display = coder.decodeStringIfPresent(forKey: "predicateDisplay") ?? format
        let predicate = FilterFormat(format: format, arguments: arguments, display: display).predicate()
        let sorts = coder.decodeIfPresent(NSData.self, forKey: "sortDescriptors")
            .flatMap { try? JSONValue.parse($0 as Data).arrayValue }
            .map { $0.compactMap(NSSortDescriptor.fromQuerySort) }
        return (recordType, predicate, sorts?.isEmpty == true ? nil : sorts)
    }
}

extension NSSortDescriptor {
    /// A descriptor from its CKWS sort dictionary: a location sort when it names a location.
    static func fromQuerySort(_ json: JSONValue) -> NSSortDescriptor? {
        let key: String
        if let name = json["fieldName"]?.stringValue {
            key = name
        } else if let system = json["systemFieldName"]?.stringValue.flatMap(SystemFieldName.init(rawValue:)) {
            key = SystemKey.key(for: system)
        } else {
            return nil
        }
        if let locationJSON = json["relativeLocation"],
            case .value(.location(let location))? = try? FieldValue.decode(fieldJSON: locationJSON, path: "relativeLocation", expected: nil)
        {
            return CKLocationSortDescriptor(key: key, relativeLocation: CLLocation(wire: location))
        }
        return NSSortDescriptor(key: key, ascending: json["ascending"]?.boolValue ?? true)
    }
}
