import StratusEngine
import StratusModel

/// The records screen's API preview: the exact CKWS request it ran, as a `curl` line, and the
/// StratusKit code for the same query. Values are written as string literals of each language,
/// so whatever a filter holds stays a value when pasted.
enum ConsoleAPIPreview {
    static func curl(baseURL: String, container: String, environment: DatabaseEnvironment, database: DatabaseScope, body: JSONValue) -> String {
        let url =
            "\(baseURL)/database/1/\(container)/\(environment.rawValue)/\(database.rawValue)/records/query?ckAPIToken=$STRATUS_API_TOKEN"
            + (database == .public ? "" : "&ckWebAuthToken=$STRATUS_WEB_AUTH_TOKEN")
        // Double quotes around the URL so the shell fills in the token variables; the body in single quotes.
        let quotedURL =
            "\""
            + url.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "`", with: "\\`") + "\""
        return "curl -s -X POST \(quotedURL) -H 'Content-Type: application/json' -d \(ShellQuote.quote(body.serializedString))"
    }

    static func swift(database: DatabaseScope, zone: String, query: ConsoleRecordQuery) -> String {
        var predicateParts: [String] = []
        var arguments: [String] = []
        for filter in query.filters {
            guard let (format, argument) = predicate(filter) else { continue }
            predicateParts.append(format)
            arguments.append(argument)
        }
        let predicate =
            predicateParts.isEmpty
            ? "NSPredicate(value: true)"
            : "NSPredicate(format: \(literal(predicateParts.joined(separator: " AND "))), \(arguments.joined(separator: ", ")))"
        var lines = [
            "import StratusKit",
            "",
            "let database = CKContainer.default().\(database == .public ? "publicCloudDatabase" : database == .private ? "privateCloudDatabase" : "sharedCloudDatabase")",
            "let query = CKQuery(recordType: \(literal(query.recordType)), predicate: \(predicate))",
        ]
        if !query.sortField.isEmpty {
            lines.append("query.sortDescriptors = [NSSortDescriptor(key: \(literal(query.sortField)), ascending: \(query.ascending))]")
        }
        let keys = query.desiredKeys.isEmpty ? "nil" : "[" + query.desiredKeys.map(literal).joined(separator: ", ") + "]"
        lines.append(
            "let (results, cursor) = try await database.records(matching: query, inZoneWith: CKRecordZone.ID(zoneName: \(literal(zone))), desiredKeys: \(keys), resultsLimit: \(ConsoleRecordQuery.pageSize))"
        )
        return lines.joined(separator: "\n")
    }

    /// A filter as predicate format text and its argument.
    static func predicate(_ filter: ConsoleRecordQuery.Filter) -> (String, String)? {
        let operators = [
            "EQUALS": "==", "NOT_EQUALS": "!=", "LESS_THAN": "<", "LESS_THAN_OR_EQUALS": "<=", "GREATER_THAN": ">",
            "GREATER_THAN_OR_EQUALS": ">=", "BEGINS_WITH": "BEGINSWITH",
        ]
        // Field names in format text are bare words; a name that is not one is left out.
        guard filter.field.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
        let field = filter.field
        if let symbol = operators[filter.comparator] { return ("\(field) \(symbol) %@", argument(filter.value)) }
        switch filter.comparator {
        case "IN", "NOT_IN":
            let list = "[" + filter.value.split(separator: ",").map { argument($0.trimmingCharacters(in: .whitespaces)) }.joined(separator: ", ") + "]"
            return (filter.comparator == "IN" ? "\(field) IN %@" : "NOT (\(field) IN %@)", list)
        case "CONTAINS_ALL_TOKENS": return ("\(field) CONTAINS %@", argument(filter.value))
        case "LIST_CONTAINS": return ("%@ IN \(field)", argument(filter.value))
        default: return nil
        }
    }

    /// Numbers stay numbers, everything else a string literal.
    static func argument(_ text: String) -> String {
        if Int64(text) != nil || (Double(text) != nil && text.contains(".")) { return text }
        return literal(text)
    }

    /// A Swift string literal holding `text`.
    static func literal(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 { out += "\\u{\(String(scalar.value, radix: 16))}" } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }
}
