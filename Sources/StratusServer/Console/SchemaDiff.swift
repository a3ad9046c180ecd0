import StratusEngine

/// What applying one schema onto another adds: new record types, new fields, new index options.
/// (Schema changes are additive, so nothing is ever removed.)
struct SchemaDiff: Sendable {
    var lines: [String] = []

    init(adding source: Schema, onto target: Schema) {
        for name in source.recordTypes.keys.sorted() {
            guard let type = source.recordTypes[name] else { continue }
            let existing = target.recordTypes[name]
            if existing == nil { lines.append("+ record type \(name)") }
            for fieldName in type.fields.keys.sorted() {
                guard let field = type.fields[fieldName] else { continue }
                if let old = existing?.fields[fieldName] {
                    if old.type != field.type {
                        lines.append("! \(name).\(fieldName) is \(old.type) here and \(field.type) in the new schema: the change would be refused")
                    }
                    let added = field.indexes.subtracting(old.indexes)
                    if !added.isEmpty { lines.append("+ \(name).\(fieldName) \(added.names.joined(separator: " "))") }
                } else {
                    let indexes = field.indexes.isEmpty ? "" : " " + field.indexes.names.joined(separator: " ")
                    lines.append("+ field \(name).\(fieldName) \(field.type)\(indexes)")
                }
            }
        }
    }
}
