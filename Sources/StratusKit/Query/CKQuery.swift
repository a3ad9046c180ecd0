import Foundation
import StratusModel

/// A query: a record type, a predicate and an optional sort order.
public class CKQuery: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: as in Apple's SDK; a query is configured before it is handed to an
    // operation.

    /// The type of records to search.
    public let recordType: CKRecord.RecordType
    /// Which records match.
    public let predicate: NSPredicate
    /// The order of results; descriptor order matters.
    public var sortDescriptors: [NSSortDescriptor]?

    /// Creates a query for records of `recordType` matching `predicate`.
    public init(recordType: CKRecord.RecordType, predicate: NSPredicate) {
        self.recordType = recordType
        self.predicate = predicate
        super.init()
    }

    /// Restores an archived query (see CKQuery+Coding.swift); `nil` when the archive holds none.
    public required convenience init?(coder: NSCoder) {
        guard let (recordType, predicate, sorts) = CKQuery.decodeParts(coder) else { return nil }
        self.init(recordType: recordType, predicate: predicate)
        sortDescriptors = sorts
    }

    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = CKQuery(recordType: recordType, predicate: predicate)
        copy.sortDescriptors = sortDescriptors
        return copy
    }

    /// The CKWS query dictionary, or `nil` when the predicate matches nothing.
    func wireQuery() throws(CKError) -> JSONValue? {
        if recordType == CKRecord.SystemType.userRecord {
            throw CKError(.invalidArguments, "records of type 'Users' cannot be queried")
        }
        var members: [String: JSONValue] = ["recordType": .string(recordType)]
        switch try predicate.queryFilters() {
        case .none: return nil
        case .filters(let filters): if !filters.isEmpty { members["filterBy"] = .array(filters) }
        }
        if let sortDescriptors, !sortDescriptors.isEmpty {
            var sorts: [JSONValue] = []
            for descriptor in sortDescriptors { sorts.append(try descriptor.querySort()) }
            members["sortBy"] = .array(sorts)
        }
        return .object(members)
    }

    public override var description: String { "<CKQuery: recordType=\(recordType)>" }
}
