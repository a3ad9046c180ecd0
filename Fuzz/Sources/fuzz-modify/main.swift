import FuzzSupport
@testable import StratusEngine
import StratusModel
import StratusWire

/// records/modify: the request, then each saved record's fields against the fixture schema (as
/// development grows it, and as production enforces it). Fields that resolve are stored as
/// `RecordRow.encodedFields` writes them, and that text must decode to the same fields (an empty
/// list keeps its element type: storage writes its typed tag).
func fuzzModify(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let body = jsonBody(data, size), let request = try? ModifyRequest(json: body, limits: Fixtures.limits) else { return 0 }
    for operation in request.modification.operations where !operation.type.isDelete {
        let recordType = operation.recordType ?? "Note"
        for mode in [SchemaMode.justInTime, .enforced] {
            guard
                let (resolved, _) = try? FieldResolver(mode: mode).resolve(
                    fields: operation.fields, recordType: recordType, existing: Fixtures.schema.recordTypes[recordType],
                    path: "\(operation.path).record.fields")
            else { continue }
            let fields = resolved.compactMapValues { $0 }
            let stored = StoredFields.decode(RecordRow.encodedFields(fields))
            precondition(stored == fields, "stored fields decode to different values")
        }
    }
    return 0
}

runFuzzer(fuzzModify)
