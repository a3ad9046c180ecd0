import StratusModel

/// Turns the `fields` of a saved record into typed values, checking them against the record
/// type's schema — and, in development, growing the schema just in time.
struct FieldResolver {
    let mode: SchemaMode

    /// The typed fields (`nil` = clear the field) and the record type as it must be after this save.
    func resolve(fields inputs: [String: FieldInput], recordType: String, existing: RecordTypeSchema?, path: String)
        throws(CloudKitError) -> (fields: [String: FieldValue?], recordType: RecordTypeSchema)
    {
        var typeSchema: RecordTypeSchema
        if let existing {
            typeSchema = existing
        } else if mode == .justInTime {
            typeSchema = RecordTypeSchema(name: recordType)
        } else {
            throw .badRequest("record type '\(recordType)' is not in the production schema; create it in development and deploy the schema (stratus schema deploy)")
        }
        var resolved: [String: FieldValue?] = [:]
        for (name, input) in inputs {
            let fieldPath = "\(path).\(name)"
            try NameRules.checkIdentifier(name, what: "field name", path: fieldPath)
            let declared = typeSchema.fields[name]
            if declared == nil, mode == .enforced {
                throw .badRequest("field '\(name)' is not in the production schema of record type '\(recordType)'; add it in development and deploy the schema")
            }
            let decoded: FieldValue.Decoded
            do {
                decoded = try input.decode(expected: declared?.type)
            } catch {
                if let declared {
                    throw .badRequest("field '\(name)' of record type '\(recordType)' is \(declared.type) in the schema; \(error.description). A field's type cannot change: use a new field name")
                }
                throw .wire(error)
            }
            switch decoded {
            case .clear:
                resolved[name] = .some(nil)
            case .value(let value):
                if declared == nil, let type = value.typeDescriptor {
                    typeSchema.fields[name] = FieldSchema(name: name, type: type)
                }
                resolved[name] = value
            }
        }
        return (resolved, typeSchema)
    }
}
