import RunAnywhereJSON

extension JSONSchema {
    /// Validates `instance` against the schema; an empty result means the instance is valid.
    ///
    /// Every keyword `JSONSchemaGrammar` enforces is checked, and also `not`,
    /// `if`/`then`/`else`, `uniqueItems`, `contains`, `multipleOf`, `patternProperties`,
    /// `propertyNames`, `minProperties`/`maxProperties` and the `dependent…` keywords, which a
    /// grammar cannot enforce. Formats are checked for `date`, `time`, `date-time`, `uuid`,
    /// `email`, `uri`, `hostname` and `ipv4`; other formats are annotations. A `$ref` to another
    /// document cannot be followed and constrains nothing here.
    ///
    /// ```swift
    /// let schema = JSONSchema.object(["age": .integer(minimum: 0, maximum: 150)])
    /// for violation in schema.validate(try JSONValue(parsing: #"{"age": 200}"#)) {
    ///     print(violation)   // /age: 200 is above the maximum 150 (maximum)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - instance: The value to check.
    ///   - strictObjects: Treat object schemas without `additionalProperties` as closed, as
    ///     `JSONSchemaCompilerOptions.strictObjects` does; validate with the
    ///     same setting the grammar was made with.
    /// - Returns: The violations, each with the instance pointer and the keyword.
    public func validate(_ instance: JSONValue, strictObjects: Bool = false) -> [JSONSchemaViolation] {
        var validator = JSONSchemaValidator(document: JSONSchemaDocument(root: value), strictObjects: strictObjects)
        validator.budget(for: instance)
        return validator.validate(instance, against: value, schemaPointer: "", instancePointer: "")
    }
}

/// The validator behind ``JSONSchema/validate(_:strictObjects:)``.
///
/// `$ref` cycles that come back to the same schema at the same place in the instance stop
/// there (they cannot add a constraint), and nesting deeper than `maximumDepth` ends with a
/// violation instead of exhausting the stack.
struct JSONSchemaValidator {
    static let maximumDepth = 200
    /// Schema nodes checked, beyond ``stepsPerInstanceNode`` for each node of the instance:
    /// `allOf` of two `$ref`s to a schema that does the same, forty levels down, is 2^40 checks
    /// of one small value from 2 KB of schema. Past the budget the instance is reported invalid
    /// (one violation says why) rather than checked for ever.
    static let baseSteps = 100_000
    /// Schema nodes a real schema checks per value of the instance, with room to spare.
    static let stepsPerInstanceNode = 64

    let document: JSONSchemaDocument
    let strictObjects: Bool
    private var patterns: [String: PatternMatcher] = [:]
    private var activeReferences: Set<String> = []
    private var depth = 0
    private var steps = 0
    private var maximumSteps = JSONSchemaValidator.baseSteps

    init(document: JSONSchemaDocument, strictObjects: Bool) {
        self.document = document
        self.strictObjects = strictObjects
    }

    private enum PatternMatcher {
        case regex(Regex<AnyRegexOutput>)
        case invalid(String)
        case unavailable
    }

    /// Sizes the step budget for `instance`: ``baseSteps`` plus ``stepsPerInstanceNode`` a value.
    mutating func budget(for instance: JSONValue) {
        func nodes(_ value: JSONValue) -> Int {
            switch value {
            case .array(let items): items.reduce(1) { $0 + nodes($1) }
            case .object(let object): object.members.reduce(1) { $0 + nodes($1.value) }
            default: 1
            }
        }
        maximumSteps = Self.baseSteps + Self.stepsPerInstanceNode * nodes(instance)
    }

    mutating func validate(
        _ instance: JSONValue,
        against schema: JSONValue,
        schemaPointer: String,
        instancePointer: String
    ) -> [JSONSchemaViolation] {
        switch schema {
        case .bool(true):
            return []
        case .bool(false):
            return [
                JSONSchemaViolation(
                    instancePointer: instancePointer,
                    keyword: "false",
                    message: "no value is allowed here"
                )
            ]
        case .object(let object):
            steps += 1
            guard steps <= maximumSteps else {
                // Reported once, where the budget ran out; every check after it adds nothing.
                guard steps == maximumSteps + 1 else { return [] }
                return [
                    JSONSchemaViolation(
                        instancePointer: instancePointer,
                        keyword: "$ref",
                        message: "the schema expands into more than \(maximumSteps) checks (schemas shared "
                            + "through $ref or allOf, combined again and again); validation stopped"
                    )
                ]
            }
            guard depth < Self.maximumDepth else {
                return [
                    JSONSchemaViolation(
                        instancePointer: instancePointer,
                        keyword: "$ref",
                        message: "the schema or the value is nested more than \(Self.maximumDepth) levels deep"
                    )
                ]
            }
            depth += 1
            defer { depth -= 1 }
            var context = Context(schema: object, schemaPointer: schemaPointer, instancePointer: instancePointer)
            checkReference(instance, &context)
            checkGeneral(instance, &context)
            checkCombinators(instance, &context)
            switch instance {
            case .integer, .number: checkNumber(instance, &context)
            case .string(let string): checkString(string, &context)
            case .array(let elements): checkArray(elements, &context)
            case .object(let members): checkObject(members, &context)
            default: break
            }
            return context.violations
        default:
            return []
        }
    }

    private struct Context {
        let schema: JSONObject
        let schemaPointer: String
        let instancePointer: String
        var violations: [JSONSchemaViolation] = []

        mutating func fail(_ keyword: String, _ message: String, at pointer: String? = nil) {
            violations.append(
                JSONSchemaViolation(instancePointer: pointer ?? instancePointer, keyword: keyword, message: message)
            )
        }

        func pointer(_ tokens: String...) -> String {
            tokens.reduce(schemaPointer) { JSONSchemaDocument.child($0, $1) }
        }
    }

    // MARK: Keywords for every type

    private mutating func checkReference(_ instance: JSONValue, _ context: inout Context) {
        guard let reference = context.schema["$ref"]?.stringValue else { return }
        switch document.resolve(reference) {
        case .found(let target, let pointer):
            let key = pointer + "\u{0}" + context.instancePointer
            guard activeReferences.insert(key).inserted else { return }
            context.violations += validate(
                instance,
                against: target,
                schemaPointer: pointer,
                instancePointer: context.instancePointer
            )
            activeReferences.remove(key)
        case .notFound:
            context.fail("$ref", "the reference \(reference) leads nowhere in the schema")
        case .remote:
            break
        }
    }

    private func checkGeneral(_ instance: JSONValue, _ context: inout Context) {
        if let type = context.schema["type"] {
            let names = type.stringValue.map { [$0] } ?? type.arrayValue?.compactMap(\.stringValue) ?? []
            if !names.contains(where: { Self.matches(instance, type: $0) }) {
                let expected = names.map { Self.article($0) }.joined(separator: " or ")
                context.fail("type", "expected \(expected), found \(Self.article(Self.kind(of: instance)))")
            }
        }
        if let values = context.schema["enum"]?.arrayValue,
            !values.contains(where: { JSONSchemaDocument.equal(instance, $0) })
        {
            let list = values.prefix(10).map { $0.jsonText() }.joined(separator: ", ")
            context.fail("enum", "\(Self.quote(instance)) is not one of \(list)\(values.count > 10 ? ", …" : "")")
        }
        if let constant = context.schema["const"], !JSONSchemaDocument.equal(instance, constant) {
            context.fail("const", "\(Self.quote(instance)) is not \(Self.quote(constant))")
        }
    }

    static func matches(_ instance: JSONValue, type: String) -> Bool {
        switch (type, instance) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object): true
        case ("number", .integer), ("number", .number), ("integer", .integer): true
        case ("integer", .number(let value)): value.rounded() == value
        default: false
        }
    }

    private static func kind(of instance: JSONValue) -> String {
        if case .number = instance { return "number" }
        return instance.typeName
    }

    private static func article(_ type: String) -> String {
        ["array", "integer", "object"].contains(type) ? "an \(type)" : "a \(type)"
    }

    private static func quote(_ value: JSONValue) -> String {
        let text = value.jsonText()
        return text.count > 60 ? String(text.prefix(57)) + "…" : text
    }

    private mutating func checkCombinators(_ instance: JSONValue, _ context: inout Context) {
        let pointer = context.instancePointer
        if let schemas = context.schema["allOf"]?.arrayValue {
            for (index, schema) in schemas.enumerated() {
                context.violations += validate(
                    instance,
                    against: schema,
                    schemaPointer: context.pointer("allOf", String(index)),
                    instancePointer: pointer
                )
            }
        }
        if let schemas = context.schema["anyOf"]?.arrayValue {
            var closest: [JSONSchemaViolation]?
            for (index, schema) in schemas.enumerated() {
                let violations = validate(
                    instance,
                    against: schema,
                    schemaPointer: context.pointer("anyOf", String(index)),
                    instancePointer: pointer
                )
                if violations.isEmpty {
                    closest = nil
                    break
                }
                if closest == nil || violations.count < closest?.count ?? 0 { closest = violations }
            }
            if let closest, let first = closest.first {
                context.fail("anyOf", "matches none of the \(schemas.count) alternatives (closest: \(first))")
            }
        }
        if let schemas = context.schema["oneOf"]?.arrayValue {
            var matching: [Int] = []
            for (index, schema) in schemas.enumerated() {
                let violations = validate(
                    instance,
                    against: schema,
                    schemaPointer: context.pointer("oneOf", String(index)),
                    instancePointer: pointer
                )
                if violations.isEmpty { matching.append(index) }
            }
            if matching.isEmpty {
                context.fail("oneOf", "matches none of the \(schemas.count) alternatives")
            } else if matching.count > 1 {
                let list = matching.map(String.init).joined(separator: ", ")
                context.fail("oneOf", "matches alternatives \(list), but must match exactly one")
            }
        }
        if let schema = context.schema["not"] {
            let violations = validate(
                instance,
                against: schema,
                schemaPointer: context.pointer("not"),
                instancePointer: pointer
            )
            if violations.isEmpty { context.fail("not", "matches the schema it must not match") }
        }
        if let condition = context.schema["if"] {
            let holds = validate(
                instance,
                against: condition,
                schemaPointer: context.pointer("if"),
                instancePointer: pointer
            )
            .isEmpty
            let branch = holds ? "then" : "else"
            if let schema = context.schema[branch] {
                context.violations += validate(
                    instance,
                    against: schema,
                    schemaPointer: context.pointer(branch),
                    instancePointer: pointer
                )
            }
        }
    }

    // MARK: Numbers

    private func checkNumber(_ instance: JSONValue, _ context: inout Context) {
        guard let number = SchemaDecimal(instance) else { return }
        let schema = context.schema
        if let minimum = schema["minimum"].flatMap(SchemaDecimal.init) {
            if schema["exclusiveMinimum"] == .bool(true) {
                if number <= minimum { context.fail("exclusiveMinimum", "\(number) is not above \(minimum)") }
            } else if number < minimum {
                context.fail("minimum", "\(number) is below the minimum \(minimum)")
            }
        }
        if let minimum = schema["exclusiveMinimum"].flatMap(SchemaDecimal.init), number <= minimum {
            context.fail("exclusiveMinimum", "\(number) is not above \(minimum)")
        }
        if let maximum = schema["maximum"].flatMap(SchemaDecimal.init) {
            if schema["exclusiveMaximum"] == .bool(true) {
                if number >= maximum { context.fail("exclusiveMaximum", "\(number) is not below \(maximum)") }
            } else if maximum < number {
                context.fail("maximum", "\(number) is above the maximum \(maximum)")
            }
        }
        if let maximum = schema["exclusiveMaximum"].flatMap(SchemaDecimal.init), number >= maximum {
            context.fail("exclusiveMaximum", "\(number) is not below \(maximum)")
        }
        if let divisor = schema["multipleOf"], !Self.isMultiple(instance, of: divisor) {
            context.fail("multipleOf", "\(number) is not a multiple of \(divisor.jsonText())")
        }
    }

    private static func isMultiple(_ value: JSONValue, of divisor: JSONValue) -> Bool {
        if case .integer(let a) = value, case .integer(let b) = divisor, b > 0 {
            return a % b == 0
        }
        guard let a = value.doubleValue, let b = divisor.doubleValue, b > 0 else { return true }
        let quotient = a / b
        guard quotient.isFinite else { return false }
        return abs(quotient - quotient.rounded()) <= 1e-9 * max(1, abs(quotient))
    }

    // MARK: Strings

    private mutating func checkString(_ string: String, _ context: inout Context) {
        let schema = context.schema
        let length = string.unicodeScalars.count
        if let minimum = schema["minLength"]?.integerValue, length < minimum {
            context.fail("minLength", "\(length) characters, fewer than the minimum \(minimum)")
        }
        if let maximum = schema["maxLength"]?.integerValue, length > maximum {
            context.fail("maxLength", "\(length) characters, more than the maximum \(maximum)")
        }
        if let pattern = schema["pattern"]?.stringValue {
            switch matcher(for: pattern) {
            case .regex(let regex):
                if (try? regex.firstMatch(in: string)) == nil {
                    context.fail("pattern", "\(Self.quote(.string(string))) does not match \(pattern)")
                }
            case .invalid(let problem):
                context.fail("pattern", "the pattern \(pattern) is not a regular expression: \(problem)")
            case .unavailable:
                break
            }
        }
        if let name = schema["format"]?.stringValue, let format = JSONStringFormat(rawValue: name),
            !format.isValid(string)
        {
            context.fail("format", "\(Self.quote(.string(string))) is not a valid \(name)")
        }
    }

    /// The pattern as parsed for the grammar, so both read it alike; a pattern the grammar
    /// cannot express goes to `Regex` as written.
    private mutating func matcher(for pattern: String) -> PatternMatcher {
        if let cached = patterns[pattern] { return cached }
        let matcher: PatternMatcher
        do throws(ECMARegex.Failure) {
            let parsed = try ECMARegex(parsing: pattern)
            matcher = Self.compile(parsed.swiftPattern)
        } catch {
            switch error {
            case .invalid(let problem): matcher = .invalid(problem)
            case .unsupported: matcher = Self.compile(pattern)
            }
        }
        patterns[pattern] = matcher
        return matcher
    }

    private static func compile(_ pattern: String) -> PatternMatcher {
        guard let regex = try? Regex(pattern) else { return .unavailable }
        return .regex(regex.matchingSemantics(.unicodeScalar).asciiOnlyDigits().asciiOnlyWordCharacters())
    }

    // MARK: Arrays

    /// The schemas for an array's elements: the tuple positions, then the rest. A tuple is
    /// `prefixItems` (2020-12) or an array `items` (earlier drafts, the rest in
    /// `additionalItems`); a schema-valued `prefixItems` is read as `items`, as llama.cpp does.
    static func elementSchemas(
        of schema: JSONObject
    ) -> (prefix: [JSONValue], prefixKey: String, rest: JSONValue?, restKey: String) {
        if let prefix = schema["prefixItems"]?.arrayValue {
            return (prefix, "prefixItems", schema["items"], "items")
        }
        if let prefix = schema["items"]?.arrayValue {
            return (prefix, "items", schema["additionalItems"], "additionalItems")
        }
        if schema["items"] == nil, let rest = schema["prefixItems"] {
            return ([], "prefixItems", rest, "prefixItems")
        }
        return ([], "prefixItems", schema["items"], "items")
    }

    private mutating func checkArray(_ elements: [JSONValue], _ context: inout Context) {
        let schema = context.schema
        if let minimum = schema["minItems"]?.integerValue, elements.count < minimum {
            context.fail("minItems", "\(elements.count) elements, fewer than the minimum \(minimum)")
        }
        if let maximum = schema["maxItems"]?.integerValue, elements.count > maximum {
            context.fail("maxItems", "\(elements.count) elements, more than the maximum \(maximum)")
        }
        let (prefix, prefixKey, rest, restKey) = Self.elementSchemas(of: schema)
        for (index, element) in elements.enumerated() {
            let elementPointer = JSONSchemaDocument.child(context.instancePointer, String(index))
            if index < prefix.count {
                context.violations += validate(
                    element,
                    against: prefix[index],
                    schemaPointer: context.pointer(prefixKey, String(index)),
                    instancePointer: elementPointer
                )
            } else if rest == .bool(false) {
                context.fail(restKey, "no elements are allowed after the first \(prefix.count)", at: elementPointer)
            } else if let rest {
                context.violations += validate(
                    element,
                    against: rest,
                    schemaPointer: context.pointer(restKey),
                    instancePointer: elementPointer
                )
            }
        }
        if schema["uniqueItems"] == .bool(true) {
            outer: for later in elements.indices {
                for earlier in 0..<later where JSONSchemaDocument.equal(elements[earlier], elements[later]) {
                    context.fail("uniqueItems", "elements \(earlier) and \(later) are equal")
                    break outer
                }
            }
        }
        if let contains = schema["contains"] {
            var count = 0
            for (index, element) in elements.enumerated() {
                let elementPointer = JSONSchemaDocument.child(context.instancePointer, String(index))
                if validate(
                    element,
                    against: contains,
                    schemaPointer: context.pointer("contains"),
                    instancePointer: elementPointer
                )
                .isEmpty {
                    count += 1
                }
            }
            let minimum = schema["minContains"]?.integerValue ?? 1
            if count < minimum {
                context.fail(
                    schema["minContains"] == nil ? "contains" : "minContains",
                    "\(count) elements match `contains`, fewer than \(minimum)"
                )
            }
            if let maximum = schema["maxContains"]?.integerValue, count > maximum {
                context.fail("maxContains", "\(count) elements match `contains`, more than \(maximum)")
            }
        }
    }

    // MARK: Objects

    private mutating func checkObject(_ members: JSONObject, _ context: inout Context) {
        let schema = context.schema
        for name in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where members[name] == nil {
            context.fail("required", "the required member \"\(name)\" is missing")
        }
        let properties = schema["properties"]?.objectValue ?? JSONObject()
        let patternProperties = schema["patternProperties"]?.objectValue ?? JSONObject()
        var additional = schema["additionalProperties"]
        if additional == nil, strictObjects, JSONSchemaDocument.strictObjectsClose(schema) {
            additional = .bool(false)
        }
        for member in members {
            let memberPointer = JSONSchemaDocument.child(context.instancePointer, member.key)
            var declared = false
            if let property = properties[member.key] {
                declared = true
                context.violations += validate(
                    member.value,
                    against: property,
                    schemaPointer: context.pointer("properties", member.key),
                    instancePointer: memberPointer
                )
            }
            for pattern in patternProperties {
                guard case .regex(let regex) = matcher(for: pattern.key), (try? regex.firstMatch(in: member.key)) != nil
                else { continue }
                declared = true
                context.violations += validate(
                    member.value,
                    against: pattern.value,
                    schemaPointer: context.pointer("patternProperties", pattern.key),
                    instancePointer: memberPointer
                )
            }
            guard !declared, let additional else { continue }
            if additional == .bool(false) {
                context.fail("additionalProperties", "the member \"\(member.key)\" is not allowed", at: memberPointer)
            } else {
                context.violations += validate(
                    member.value,
                    against: additional,
                    schemaPointer: context.pointer("additionalProperties"),
                    instancePointer: memberPointer
                )
            }
        }
        if let minimum = schema["minProperties"]?.integerValue, members.count < minimum {
            context.fail("minProperties", "\(members.count) members, fewer than the minimum \(minimum)")
        }
        if let maximum = schema["maxProperties"]?.integerValue, members.count > maximum {
            context.fail("maxProperties", "\(members.count) members, more than the maximum \(maximum)")
        }
        if let names = schema["propertyNames"] {
            for member in members {
                let violations = validate(
                    .string(member.key),
                    against: names,
                    schemaPointer: context.pointer("propertyNames"),
                    instancePointer: context.instancePointer
                )
                if let first = violations.first {
                    context.fail("propertyNames", "the member name \"\(member.key)\" is not allowed: \(first.message)")
                }
            }
        }
        checkDependencies(members, &context)
    }

    private mutating func checkDependencies(_ members: JSONObject, _ context: inout Context) {
        var required: [(String, [JSONValue], String)] = []
        var schemas: [(String, JSONValue, String)] = []
        for dependency in context.schema["dependentRequired"]?.objectValue ?? JSONObject() {
            required.append((dependency.key, dependency.value.arrayValue ?? [], "dependentRequired"))
        }
        for dependency in context.schema["dependentSchemas"]?.objectValue ?? JSONObject() {
            schemas.append((dependency.key, dependency.value, "dependentSchemas"))
        }
        for dependency in context.schema["dependencies"]?.objectValue ?? JSONObject() {
            if let names = dependency.value.arrayValue {
                required.append((dependency.key, names, "dependencies"))
            } else {
                schemas.append((dependency.key, dependency.value, "dependencies"))
            }
        }
        for (trigger, names, keyword) in required where members[trigger] != nil {
            for name in names.compactMap(\.stringValue) where members[name] == nil {
                context.fail(keyword, "the member \"\(name)\" is required when \"\(trigger)\" is present")
            }
        }
        for (trigger, schema, keyword) in schemas where members[trigger] != nil {
            context.violations += validate(
                .object(members),
                against: schema,
                schemaPointer: context.pointer(keyword, trigger),
                instancePointer: context.instancePointer
            )
        }
    }
}
