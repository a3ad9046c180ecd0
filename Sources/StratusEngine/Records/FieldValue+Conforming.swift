import StratusModel

extension FieldValue {
    /// This value as a field of `type`, for values built in code (`RequestValue`, `FieldInput`):
    /// itself when its type is `type` (an empty list takes the list type it is asked for), or an
    /// error naming `path`, both types and what to do.
    func conforming(to type: FieldTypeDescriptor, path: String) throws(WireError) -> FieldValue {
        if case .list(_, let elements) = self, elements.isEmpty, type.isList { return .list(type.scalar, []) }
        guard typeDescriptor == type else {
            throw WireError(path: path, problem: "the field is \(type) in the schema; the value is \(typeDescriptor?.description ?? "an untyped list"); send a \(type) value")
        }
        return self
    }
}
