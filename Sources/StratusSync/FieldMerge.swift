import StratusModel

/// Three-way merge of field values in their archive JSON form (`{"value": …, "type": …}`).
enum FieldMerge {
    typealias Values = [String: JSONValue]

    static func merge(ancestor: Values, local: Values, server: Values) -> Values {
        var result: Values = [:]
        for key in Set(ancestor.keys).union(local.keys).union(server.keys) {
            if let value = mergeField(ancestor: ancestor[key], local: local[key], server: server[key]) { result[key] = value }
        }
        return result
    }

    /// One field: `nil` in and out means "no value".
    static func mergeField(ancestor: JSONValue?, local: JSONValue?, server: JSONValue?) -> JSONValue? {
        if local == server { return local }
        if local == ancestor { return server }
        if server == ancestor { return local }
        // Changed on both sides, differently.
        if isList(local) || isList(server) {
            return mergeLists(
                ancestor: elements(ancestor), local: elements(local), server: elements(server),
                type: (local ?? server)?["type"])
        }
        return local
    }

    static func isList(_ field: JSONValue?) -> Bool {
        if field?["type"]?.stringValue?.hasSuffix("_LIST") == true { return true }
        if case .array? = field?["value"] { return true }
        return false
    }

    static func elements(_ field: JSONValue?) -> [JSONValue] { field?["value"]?.arrayValue ?? [] }

    /// Set merge: the server's elements in its order, then this device's additions in its order;
    /// anything either side removed since the ancestor is dropped. Duplicates collapse.
    static func mergeLists(ancestor: [JSONValue], local: [JSONValue], server: [JSONValue], type: JSONValue?) -> JSONValue? {
        let ancestorSet = Set(ancestor)
        let removed = ancestorSet.subtracting(local).union(ancestorSet.subtracting(server))
        var seen = Set<JSONValue>()
        var merged: [JSONValue] = []
        for element in server + local where !removed.contains(element) && !seen.contains(element) {
            seen.insert(element)
            merged.append(element)
        }
        var field: [String: JSONValue] = ["value": .array(merged)]
        if let type { field["type"] = type }
        return .object(field)
    }
}
