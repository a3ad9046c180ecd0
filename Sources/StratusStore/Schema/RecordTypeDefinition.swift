import StratusEngine
import StratusModel

/// How a record type's schema is stored: one JSON document per type, plus the full-text slots
/// the store assigned to its SEARCHABLE fields (stable for the life of the field).
struct RecordTypeDefinition: Sendable {
    var schema: RecordTypeSchema
    var fullTextSlots: [String: Int]

    var json: JSONValue {
        var fields: [String: JSONValue] = [:]
        for (name, field) in schema.fields {
            fields[name] = .object(["type": .string(field.type.description), "indexes": .int(Int64(field.indexes.rawValue))])
        }
        var system: [String: JSONValue] = [:]
        for (field, flags) in schema.systemIndexes { system[field.rawValue] = .int(Int64(flags.rawValue)) }
        let compound: [JSONValue] = schema.compoundIndexes.map {
            .object(["equality": .array($0.equalityFields.map { .string($0) }), "sort": .string($0.sortField)])
        }
        return .object([
            "name": .string(schema.name), "fields": .object(fields), "system": .object(system),
            "compound": .array(compound), "fullTextSlots": .object(fullTextSlots.mapValues { .int(Int64($0)) }),
        ])
    }

    init(schema: RecordTypeSchema, fullTextSlots: [String: Int]) {
        self.schema = schema
        self.fullTextSlots = fullTextSlots
    }

    init(text: String) throws {
        let json = try JSONValue.parse(text)
        var schema = RecordTypeSchema(name: json["name"]?.stringValue ?? "")
        for (name, field) in json["fields"]?.objectValue ?? [:] {
            guard let typeName = field["type"]?.stringValue, let type = FieldTypeDescriptor(schemaName: typeName) else { continue }
            schema.fields[name] = FieldSchema(name: name, type: type, indexes: IndexFlags(rawValue: Int(field["indexes"]?.int64Value ?? 0)))
        }
        for (name, flags) in json["system"]?.objectValue ?? [:] {
            if let field = SystemFieldName(rawValue: name) { schema.systemIndexes[field] = IndexFlags(rawValue: Int(flags.int64Value ?? 0)) }
        }
        for entry in json["compound"]?.arrayValue ?? [] {
            guard let sort = entry["sort"]?.stringValue else { continue }
            schema.compoundIndexes.append(CompoundIndex(equalityFields: (entry["equality"]?.arrayValue ?? []).compactMap(\.stringValue), sortField: sort))
        }
        self.schema = schema
        self.fullTextSlots = (json["fullTextSlots"]?.objectValue ?? [:]).compactMapValues { $0.int64Value.map(Int.init) }
    }

    /// Keeps existing slots and gives each newly SEARCHABLE field the lowest free one.
    mutating func assignFullTextSlots(previous: [String: Int]) {
        var slots = previous
        for (name, field) in schema.fields.sorted(by: { $0.key < $1.key }) where field.indexes.contains(.searchable) && slots[name] == nil {
            let used = Set(slots.values)
            guard let free = (0..<256).first(where: { !used.contains($0) }) else { break }
            slots[name] = free
        }
        fullTextSlots = slots
    }
}
