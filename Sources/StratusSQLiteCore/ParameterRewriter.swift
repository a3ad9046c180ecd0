/// Turns each `?` parameter of a statement into `+?` before SQLite prepares it.
///
/// SQLite 3.54's planner makes the plan of a statement that has `column = ?` and an ORDER BY
/// depend on the bound value, so every execution of such a cached statement is prepared again
/// (`SQLITE_STMTSTATUS_REPREPARE` counts one per run). That is every query with a filter and a
/// sort, and the subscription read after every write: parsing and planning again each time. Unary plus is a no-op on any
/// value (it also carries no affinity, like a bare parameter), so results and index choice are
/// the same (checked with EXPLAIN QUERY PLAN), and the plan is made once.
///
/// Only the SQLite backend does this: other databases reject `+` on text.
enum ParameterRewriter {
    static func unaryPlus(_ sql: String) -> String {
        var output = ""
        output.reserveCapacity(sql.utf8.count + 16)
        var quote: Character?
        var previous: Character = " "
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "?", previous != "+" {
                output.append("+")
            }
            output.append(character)
            previous = character
        }
        return output
    }
}
