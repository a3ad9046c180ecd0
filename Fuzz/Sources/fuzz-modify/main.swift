import FuzzSupport
@testable import StratusEngine
import StratusModel

/// records/modify: the request, then each saved record's fields against the fixture schema (as
/// development grows it, and as production enforces it). Fields that resolve are stored as
/// `RecordRow.encodedFields` writes them, and that text must decode to the same fields (an empty
/// list aside, whose element type storage does not keep).
func fuzzModify(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let body = jsonBody(data, size), let request = try? ModifyRequest(json: body, limits: Fixtures.limits) else { return 0 }
    for operation in request.operations where !operation.type.isDelete {
        let recordType = operation.recordType ?? "Note"
        for mode in [SchemaMode.justInTime, .enforced] {
            guard let (resolved, _) = try? FieldResolver(mode: mode).resolve(
                fieldsJSON: operation.fields, recordType: recordType, existing: Fixtures.schema.recordTypes[recordType],
                path: "\(operation.path).record.fields")
            else { continue }
            let fields = resolved.compactMapValues { $0 }
            let stored = StoredFields.decode(RecordRow.encodedFields(fields))
            precondition(stored == fields.mapValues(withoutEmptyListType), "stored fields decode to different values")
        }
    }
    return 0
}

/// Storage writes an empty list as `UNKNOWN_LIST` (see `StoredFields`): its element type is not
/// kept, by design; the schema still holds the field's type.
func withoutEmptyListType(_ value: FieldValue) -> FieldValue {
    if case .list(_, let elements) = value, elements.isEmpty { return .list(nil, []) }
    return value
}

runFuzzer(fuzzModify)
