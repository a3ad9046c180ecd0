import StratusEngine
import StratusModel

/// Renders a `QueryPlan` as one SELECT over `records`. Expressions are written exactly as the
/// index DDL writes them so the database uses the declared indexes; the record type is a
/// literal (validated identifier) so partial indexes qualify.
struct QueryRenderer {
    let dialect: any SQLDialect
    let storeID: Int64
    let fullTextSlots: [String: Int]

    var paths: FieldPaths { FieldPaths(dialect: dialect) }

    /// The store, type, zone and filter conditions of a plan (no sort, position or limit).
    func filterConditions(_ plan: QueryPlan) throws -> [SQLFragment] {
        guard NameRules.isIdentifier(plan.recordType) else { throw StorageFailure("invalid record type") }
        var conditions: [SQLFragment] = [
            "records.store_id = \(bind: storeID)",
            "records.record_type = \(unsafeRaw: "'\(plan.recordType)'")",
        ]
        if let zone = plan.zoneName { conditions.append("records.zone_name = \(bind: zone)") }
        for filter in plan.filters { conditions.append(try condition(filter, recordType: plan.recordType)) }
        return conditions
    }

    /// How many records match the plan's filters, whatever its sorts, position and limit.
    func renderCount(_ plan: QueryPlan) throws -> SQLFragment {
        "SELECT COUNT(*) FROM records WHERE " + SQLFragment.joined(try filterConditions(plan), separator: " AND ")
    }

    /// An aggregate: the group key, its record count and each function, grouped by the key and
    /// ordered by size then key. Sums of integers stay integers; averages are doubles.
    func renderAggregate(_ plan: AggregatePlan) throws -> SQLFragment {
        let key = plan.groupBy.map(paths.expression) ?? "NULL"
        var columns = [key, "COUNT(*)"]
        for function in plan.functions {
            guard let operand = function.operand else {
                columns.append("COUNT(*)")
                continue
            }
            let expression = paths.expression(operand)
            let integral: Bool
            switch operand {
            case .field(_, let type): integral = type.scalar != .double
            case .system: integral = true
            }
            switch function.kind {
            case .count: columns.append("COUNT(\(expression))")
            case .sum: columns.append("CAST(SUM(\(expression)) AS \(integral ? "BIGINT" : "DOUBLE PRECISION"))")
            case .min: columns.append("MIN(\(expression))")
            case .max: columns.append("MAX(\(expression))")
            case .avg: columns.append("CAST(AVG(\(expression)) AS DOUBLE PRECISION)")
            }
        }
        var statement: SQLFragment = "SELECT \(unsafeRaw: columns.joined(separator: ", ")) FROM records WHERE "
        statement.append(SQLFragment.joined(try filterConditions(plan.query), separator: " AND "))
        if plan.groupBy != nil {
            statement.append(SQLFragment(text: " GROUP BY \(key) ORDER BY COUNT(*) DESC, \(dialect.orderTerm(key, ascending: true))"))
        }
        statement.append(" LIMIT \(bind: plan.limit) OFFSET \(bind: plan.offset)")
        return statement
    }

    func render(_ plan: QueryPlan) throws -> SQLFragment {
        var conditions = try filterConditions(plan)

        let sortExpressions: [SQLFragment] = plan.sorts.map(sortExpression)
        let tieAscending = plan.sorts.last?.ascending ?? true
        if let after = plan.after {
            conditions.append(
                keysetCondition(
                    after, sorts: plan.sorts, expressions: sortExpressions, tieAscending: tieAscending,
                    zoneIsFixed: plan.zoneName != nil))
        }
        var order: [SQLFragment] = zip(plan.sorts, sortExpressions).map { sort, expression in
            SQLFragment(text: dialect.orderTerm(expression.text, ascending: sort.ascending), binds: expression.binds)
        }
        let tie = tieAscending ? " ASC" : " DESC"
        if plan.zoneName == nil { order.append(SQLFragment(text: "records.zone_name" + tie)) }
        order.append(SQLFragment(text: "records.record_name" + tie))

        var select: SQLFragment = "SELECT \(unsafeRaw: recordColumns)"
        for expression in sortExpressions { select.append(", " + expression) }
        return select + " FROM records WHERE " + SQLFragment.joined(conditions, separator: " AND ")
            + " ORDER BY " + SQLFragment.joined(order, separator: ", ") + " LIMIT \(bind: plan.limit)"
    }

    func sortExpression(_ sort: QuerySort) -> SQLFragment {
        if let point = sort.relativeTo, case .field(let name, _) = sort.operand {
            return SQLFragment(
                text: dialect.distance(latitude: paths.latitude(name), longitude: paths.longitude(name)),
                binds: [.real(point.latitude), .real(point.longitude)])
        }
        return SQLFragment(text: paths.expression(sort.operand))
    }

    func condition(_ filter: QueryFilter, recordType: String) throws -> SQLFragment {
        switch filter {
        case .compare(let operand, let comparison, let value):
            let expression = paths.expression(operand)
            let op: String
            switch comparison {
            case .equals: op = "="
            case .notEquals: op = "<>"
            case .lessThan: op = "<"
            case .lessThanOrEquals: op = "<="
            case .greaterThan: op = ">"
            case .greaterThanOrEquals: op = ">="
            }
            return "\(unsafeRaw: expression) \(unsafeRaw: op) \(bind: FieldPaths.bindValue(value))"
        case .oneOf(let operand, let values, let negated):
            if values.isEmpty { return SQLFragment(text: negated ? "1 = 1" : "1 = 0") }
            return SQLFragment(text: paths.expression(operand) + (negated ? " NOT IN " : " IN ")) + .bindList(values.map(FieldPaths.bindValue))
        case .beginsWith(let operand, let prefix, let negated):
            let range = prefixRange(paths.expression(operand), prefix)
            return negated ? "NOT (\(range))" : range
        case .near(let operand, let centre, let metres):
            guard case .field(let name, _) = operand else { throw StorageFailure("NEAR on a system field") }
            let latitude = paths.latitude(name)
            let longitude = paths.longitude(name)
            // A latitude band the index can serve: as wide as the distance along a meridian on the
            // sphere the distance is measured on, plus a margin for rounding.
            let degrees = metres / LocationValue.metresPerDegreeOfLatitude + 0.0001
            let within: SQLFragment = SQLFragment(
                text: dialect.distance(latitude: latitude, longitude: longitude),
                binds: [.real(centre.latitude), .real(centre.longitude)])
            return "\(unsafeRaw: latitude) BETWEEN \(bind: .real(centre.latitude - degrees)) AND \(bind: .real(centre.latitude + degrees)) AND \(within) <= \(bind: .real(metres))"
        case .tokens(let field, let tokens, let matchAll):
            // `allTokens` matches in any SEARCHABLE field; all tokens must then be in one field.
            let slots = field == "allTokens" ? fullTextSlots.values.sorted() : fullTextSlots[field].map { [$0] } ?? []
            guard !slots.isEmpty else { throw StorageFailure("no full-text slot for \(field)") }
            let matches = slots.map { slot -> SQLFragment in "records.id IN (\(dialect.fullTextMatch(tokens: tokens, matchAll: matchAll, slot: slot)))" }
            return "(" + SQLFragment.joined(matches, separator: " OR ") + ")"
        case .listContains(let field, let value, let negated):
            return listMembership(recordType, field, "list_values.value = \(bind: FieldPaths.listValue(value))", negated: negated)
        case .listContainsAny(let field, let values, let negated):
            if values.isEmpty { return SQLFragment(text: negated ? "1 = 1" : "1 = 0") }
            return listMembership(recordType, field, "list_values.value IN " + .bindList(values.map(FieldPaths.listValue)), negated: negated)
        case .listContainsAll(let field, let values, let negated):
            let distinct = FieldPaths.distinctListValues(values)
            if distinct.isEmpty { return SQLFragment(text: negated ? "1 = 0" : "1 = 1") }
            let count: SQLFragment =
                "(SELECT COUNT(DISTINCT list_values.value) FROM list_values WHERE list_values.record_id = records.id AND list_values.field = \(bind: field) AND list_values.value IN "
                + .bindList(distinct) + ")"
            return count + (negated ? " < \(bind: distinct.count)" : " = \(bind: distinct.count)")
        case .listMemberBeginsWith(let field, let prefix, let negated):
            return listMembership(recordType, field, prefixRange("list_values.value", prefix), negated: negated)
        case .anyOf(let members):
            if members.isEmpty { return "1 = 0" }
            let terms = try members.map { member -> SQLFragment in try parenthesized(member, recordType: recordType) }
            return "(" + SQLFragment.joined(terms, separator: " OR ") + ")"
        case .allOf(let members):
            if members.isEmpty { return "1 = 1" }
            let terms = try members.map { member -> SQLFragment in try parenthesized(member, recordType: recordType) }
            return "(" + SQLFragment.joined(terms, separator: " AND ") + ")"
        case .not(let member):
            // A comparison with a missing field is NULL; CASE makes it false before negating, so
            // NOT matches every record its member does not (plain NOT would leave NULL, no match).
            let inner = try parenthesized(member, recordType: recordType)
            return "(CASE WHEN " + inner + " THEN 0 ELSE 1 END) = 1"
        }
    }

    func parenthesized(_ filter: QueryFilter, recordType: String) throws -> SQLFragment {
        let inner = try condition(filter, recordType: recordType)
        return "(" + inner + ")"
    }

    /// `expression` starts with `prefix`, byte for byte, as a range the index can serve: from the
    /// prefix up to (not including) its successor. Text compares in byte order on both backends
    /// (BINARY, "C"), which for UTF-8 is code point order, and no character is special the way
    /// `%`, `_` and `\` are to LIKE.
    func prefixRange(_ expression: String, _ prefix: String) -> SQLFragment {
        guard let successor = QueryRenderer.successor(ofPrefix: prefix) else {
            // Empty, or only U+10FFFF: every text at or above the prefix starts with it.
            return "\(unsafeRaw: expression) >= \(bind: prefix)"
        }
        return "\(unsafeRaw: expression) >= \(bind: prefix) AND \(unsafeRaw: expression) < \(bind: successor)"
    }

    /// The least text above every text that starts with `prefix`: the prefix without its trailing
    /// U+10FFFF characters, with its last character then raised by one code point (skipping the
    /// surrogates, which UTF-8 cannot hold). nil when nothing is left to raise.
    static func successor(ofPrefix prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            let next = last.value == 0xD7FF ? 0xE000 : last.value + 1
            if let raised = Unicode.Scalar(next) {
                var view = String.UnicodeScalarView()
                view.append(contentsOf: scalars)
                view.append(raised)
                return String(view)
            }
        }
        return nil
    }

    func listMembership(_ recordType: String, _ field: String, _ match: SQLFragment, negated: Bool) -> SQLFragment {
        let subquery: SQLFragment =
            "SELECT list_values.record_id FROM list_values WHERE list_values.store_id = \(bind: storeID) AND list_values.record_type = \(bind: recordType) AND list_values.field = \(bind: field) AND "
            + match
        return "records.id \(unsafeRaw: negated ? "NOT IN" : "IN") (\(subquery))"
    }

    /// Rows strictly after `position` in the plan's order (keyset pagination). NULLs sort first
    /// ascending and last descending on every backend (`SQLDialect.orderTerm`).
    func keysetCondition(
        _ position: QueryPosition, sorts: [QuerySort], expressions: [SQLFragment], tieAscending: Bool,
        zoneIsFixed: Bool
    ) -> SQLFragment {
        var alternatives: [SQLFragment] = []
        var equalPrefix: [SQLFragment] = []
        for (index, sort) in sorts.enumerated() where index < position.sortKeys.count {
            let expression = expressions[index]
            let value = position.sortKeys[index]
            let bound = sqlValue(value)
            let after: SQLFragment
            switch (sort.ascending, value) {
            case (true, .null): after = expression + " IS NOT NULL"
            case (true, _): after = expression + " > \(bind: bound)"
            case (false, .null): after = "1 = 0"
            case (false, _): after = "(" + expression + " < \(bind: bound) OR " + expression + " IS NULL)"
            }
            alternatives.append(SQLFragment.joined(equalPrefix + [after], separator: " AND "))
            equalPrefix.append(value == .null ? expression + " IS NULL" : expression + " = \(bind: bound)")
        }
        let op = tieAscending ? ">" : "<"
        if zoneIsFixed {
            let nameAfter: SQLFragment = "records.record_name \(unsafeRaw: op) \(bind: position.recordName)"
            alternatives.append(SQLFragment.joined(equalPrefix + [nameAfter], separator: " AND "))
        } else {
            let zoneAfter: SQLFragment = "records.zone_name \(unsafeRaw: op) \(bind: position.zoneName)"
            let nameAfter: SQLFragment = "records.zone_name = \(bind: position.zoneName) AND records.record_name \(unsafeRaw: op) \(bind: position.recordName)"
            alternatives.append(SQLFragment.joined(equalPrefix + [zoneAfter], separator: " AND "))
            alternatives.append(SQLFragment.joined(equalPrefix + [nameAfter], separator: " AND "))
        }
        return "(" + SQLFragment.joined(alternatives.map { "(" + $0 + ")" }, separator: " OR ") + ")"
    }

    func sqlValue(_ key: SortKeyValue) -> SQLValue {
        switch key {
        case .null: return .null
        case .integer(let value): return .integer(value)
        case .real(let value): return .real(value)
        case .text(let value): return .text(value)
        }
    }
}
