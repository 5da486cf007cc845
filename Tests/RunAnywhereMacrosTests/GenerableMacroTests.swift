import RunAnywhereMacrosImplementation
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

private let macros: [String: MacroSpec] = [
    "Generable": MacroSpec(type: GenerableMacro.self, conformances: ["Generable"]),
    "Guide": MacroSpec(type: GuideMacro.self),
]

/// `assertMacroExpansion` reporting through Swift Testing, at the caller's line.
private func assertExpansion(
    _ source: String,
    expandedSource: String,
    diagnostics: [DiagnosticSpec] = [],
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) {
    assertMacroExpansion(
        source,
        expandedSource: expandedSource,
        diagnostics: diagnostics,
        macroSpecs: macros,
        failureHandler: { failure in
            Issue.record(
                Comment(rawValue: failure.message),
                sourceLocation: SourceLocation(
                    fileID: failure.location.fileID,
                    filePath: failure.location.filePath,
                    line: failure.location.line,
                    column: failure.location.column
                )
            )
        },
        fileID: fileID,
        filePath: filePath,
        line: line,
        column: column
    )
}

@Suite("@Generable on structs")
struct GenerableStructExpansionTests {
    @Test("A struct becomes an object of its stored properties, in order, all required")
    func plainStruct() {
        assertExpansion(
            """
            @Generable
            struct Point {
                var x: Double
                let label: String
                var visible: Bool
            }
            """,
            expandedSource: """
                struct Point {
                    var x: Double
                    let label: String
                    var visible: Bool
                }

                extension Point: Generable {
                    static var generationSchema: JSONSchema {
                        .object(
                            orderedProperties: [
                                (name: "x", schema: Double.generationSchema),
                                (name: "label", schema: String.generationSchema),
                                (name: "visible", schema: Bool.generationSchema),
                            ],
                            required: ["x", "label", "visible"],
                            additionalProperties: false
                        )
                    }
                }
                """
        )
    }

    @Test("A public struct gets a public schema, and the macro's description describes the object")
    func publicStructWithDescription() {
        assertExpansion(
            """
            @Generable(description: "A place on a map")
            public struct Place {
                public var name: String
            }
            """,
            expandedSource: """
                public struct Place {
                    public var name: String
                }

                extension Place: Generable {
                    public static var generationSchema: JSONSchema {
                        .object(
                            orderedProperties: [
                                (name: "name", schema: String.generationSchema),
                            ],
                            required: ["name"],
                            additionalProperties: false,
                            description: "A place on a map"
                        )
                    }
                }
                """
        )
    }

    @Test("An optional property uses the wrapped type's schema and is not required")
    func optionalProperty() {
        assertExpansion(
            """
            @Generable
            struct Contact {
                var name: String
                var email: String?
                var phone: Optional<String>
            }
            """,
            expandedSource: """
                struct Contact {
                    var name: String
                    var email: String?
                    var phone: Optional<String>
                }

                extension Contact: Generable {
                    static var generationSchema: JSONSchema {
                        .object(
                            orderedProperties: [
                                (name: "name", schema: String.generationSchema),
                                (name: "email", schema: String.generationSchema),
                                (name: "phone", schema: String.generationSchema),
                            ],
                            required: ["name"],
                            additionalProperties: false
                        )
                    }
                }
                """
        )
    }

    @Test("Nested types and arrays take their schema through the protocol; a description is added on top")
    func nestedTypes() {
        assertExpansion(
            """
            @Generable
            struct Order {
                @Guide(description: "Where it ships")
                var address: Address
                var items: [Item]
                var notes: [String]?
            }
            """,
            expandedSource: """
                struct Order {
                    var address: Address
                    var items: [Item]
                    var notes: [String]?
                }

                extension Order: Generable {
                    static var generationSchema: JSONSchema {
                        .object(
                            orderedProperties: [
                                (name: "address", schema: Address.generationSchema.described("Where it ships")),
                                (name: "items", schema: [Item].generationSchema),
                                (name: "notes", schema: [String].generationSchema),
                            ],
                            required: ["address", "items"],
                            additionalProperties: false
                        )
                    }
                }
                """
        )
    }

    @Test("A nested struct is extended by its qualified name")
    func qualifiedName() {
        assertExpansion(
            """
            struct Outer {
                @Generable
                struct Inner {
                    var value: Int
                }
            }
            """,
            expandedSource: """
                struct Outer {
                    struct Inner {
                        var value: Int
                    }
                }

                extension Outer.Inner: Generable {
                    static var generationSchema: JSONSchema {
                        .object(
                            orderedProperties: [
                                (name: "value", schema: Int.generationSchema),
                            ],
                            required: ["value"],
                            additionalProperties: false
                        )
                    }
                }
                """
        )
    }

    @Test("Computed, static and lazy properties and initialized lets are left out; observed vars stay")
    func skippedProperties() {
        assertExpansion(
            """
            @Generable
            struct Settings {
                static var shared: Settings? = nil
                let version = 2
                var volume: Int = 5 {
                    didSet { print(volume) }
                }
                lazy var cache: [Int] = []
                var loud: Bool { volume > 8 }
                var level: Int {
                    get { volume }
                    set { volume = newValue }
                }
            }
            """,
            expandedSource: """
                struct Settings {
                    static var shared: Settings? = nil
                    let version = 2
                    var volume: Int = 5 {
                        didSet { print(volume) }
                    }
                    lazy var cache: [Int] = []
                    var loud: Bool { volume > 8 }
                    var level: Int {
                        get { volume }
                        set { volume = newValue }
                    }
                }

                extension Settings: Generable {
                    static var generationSchema: JSONSchema {
                        .object(
                            orderedProperties: [
                                (name: "volume", schema: Int.generationSchema),
                            ],
                            required: ["volume"],
                            additionalProperties: false
                        )
                    }
                }
                """
        )
    }

    @Test("Several names in one declaration share the written type")
    func sharedType() {
        assertExpansion(
            """
            @Generable
            struct Size {
                var width, height: Int
            }
            """,
            expandedSource: """
                struct Size {
                    var width, height: Int
                }

                extension Size: Generable {
                    static var generationSchema: JSONSchema {
                        .object(
                            orderedProperties: [
                                (name: "width", schema: Int.generationSchema),
                                (name: "height", schema: Int.generationSchema),
                            ],
                            required: ["width", "height"],
                            additionalProperties: false
                        )
                    }
                }
                """
        )
    }

    @Test("CodingKeys rename properties and leave out the ones they do not list")
    func codingKeys() {
        assertExpansion(
            """
            @Generable
            struct User {
                var fullName: String
                var age: Int?
                var cached: Bool = false
                enum CodingKeys: String, CodingKey {
                    case fullName = "full_name"
                    case age
                }
            }
            """,
            expandedSource: """
                struct User {
                    var fullName: String
                    var age: Int?
                    var cached: Bool = false
                    enum CodingKeys: String, CodingKey {
                        case fullName = "full_name"
                        case age
                    }
                }

                extension User: Generable {
                    static var generationSchema: JSONSchema {
                        .object(
                            orderedProperties: [
                                (name: "full_name", schema: String.generationSchema),
                                (name: "age", schema: Int.generationSchema),
                            ],
                            required: ["full_name"],
                            additionalProperties: false
                        )
                    }
                }
                """
        )
    }
}

@Suite("@Guide narrowing a property's schema")
struct GuideExpansionTests {
    @Test("A range bounds an Int as an integer and a Double as a number, partial ranges on one side")
    func ranges() {
        assertExpansion(
            """
            @Generable
            struct Review {
                @Guide(description: "Stars", range: 1...5)
                var stars: Int
                @Guide(range: -1.0...1.0)
                var sentiment: Double
                @Guide(range: 0...)
                var helpful: Int?
                @Guide(range: ...100.0)
                var percent: Float
            }
            """,
            expandedSource: """
                struct Review {
                    var stars: Int
                    var sentiment: Double
                    var helpful: Int?
                    var percent: Float
                }

                extension Review: Generable {
                    static var generationSchema: JSONSchema {
                        .object(
                            orderedProperties: [
                                (name: "stars", schema: .integer(minimum: 1, maximum: 5, description: "Stars")),
                                (name: "sentiment", schema: .number(minimum: -1.0, maximum: 1.0)),
                                (name: "helpful", schema: .integer(minimum: 0)),
                                (name: "percent", schema: .number(maximum: 100.0)),
                            ],
                            required: ["stars", "sentiment", "percent"],
                            additionalProperties: false
                        )
                    }
                }
                """
        )
    }

    @Test("A range given as a constant is read through its bounds")
    func rangeConstant() {
        assertExpansion(
            """
            @Generable
            struct Dice {
                @Guide(range: d6)
                var face: Int
            }
            """,
            expandedSource: """
                struct Dice {
                    var face: Int
                }

                extension Dice: Generable {
                    static var generationSchema: JSONSchema {
                        .object(
                            orderedProperties: [
                                (name: "face", schema: .integer(minimum: d6.lowerBound, maximum: d6.upperBound)),
                            ],
                            required: ["face"],
                            additionalProperties: false
                        )
                    }
                }
                """
        )
    }

    @Test("A pattern and a list of choices narrow a String")
    func stringGuides() {
        assertExpansion(
            """
            @Generable
            struct Event {
                @Guide(description: "Day", pattern: #"\\d+"#)
                var date: String
                @Guide(anyOf: ["low", "high"])
                var priority: String
            }
            """,
            expandedSource: """
                struct Event {
                    var date: String
                    var priority: String
                }

                extension Event: Generable {
                    static var generationSchema: JSONSchema {
                        .object(
                            orderedProperties: [
                                (name: "date", schema: .string(pattern: #"\\d+"#, description: "Day")),
                                (name: "priority", schema: .enumeration(["low", "high"])),
                            ],
                            required: ["date", "priority"],
                            additionalProperties: false
                        )
                    }
                }
                """
        )
    }

    @Test("A count bounds an array's length: a range, one side, or exactly")
    func counts() {
        assertExpansion(
            """
            @Generable
            struct Palette {
                @Guide(count: 1...3)
                var names: [String]
                @Guide(count: 2...)
                var shades: Array<Shade>
                @Guide(count: 3)
                var rgb: [Int]?
            }
            """,
            expandedSource: """
                struct Palette {
                    var names: [String]
                    var shades: Array<Shade>
                    var rgb: [Int]?
                }

                extension Palette: Generable {
                    static var generationSchema: JSONSchema {
                        .object(
                            orderedProperties: [
                                (name: "names", schema: .array(of: String.generationSchema, minItems: 1, maxItems: 3)),
                                (name: "shades", schema: .array(of: Shade.generationSchema, minItems: 2)),
                                (name: "rgb", schema: .array(of: Int.generationSchema, minItems: 3, maxItems: 3)),
                            ],
                            required: ["names", "shades"],
                            additionalProperties: false
                        )
                    }
                }
                """
        )
    }
}

@Suite("@Generable on enums")
struct GenerableEnumExpansionTests {
    @Test("An enum with String raw values becomes an enumeration of its raw values")
    func stringRawValues() {
        assertExpansion(
            """
            @Generable(description: "How urgent")
            public enum Priority: String, CaseIterable {
                case low, medium
                case high = "HIGH"
            }
            """,
            expandedSource: """
                public enum Priority: String, CaseIterable {
                    case low, medium
                    case high = "HIGH"
                }

                extension Priority: Generable {
                    public static var generationSchema: JSONSchema {
                        .enumeration(["low", "medium", "HIGH"], description: "How urgent")
                    }
                }
                """
        )
    }

    @Test("An enum without raw values becomes its case names, and encodes and decodes as them")
    func caseNames() {
        assertExpansion(
            """
            @Generable
            enum Mood {
                case happy
                case `default`
            }
            """,
            expandedSource: """
                enum Mood {
                    case happy
                    case `default`
                }

                extension Mood: Generable {
                    static var generationSchema: JSONSchema {
                        .enumeration(["happy", "default"])
                    }

                    init(from decoder: any Swift.Decoder) throws {
                        let name = try decoder.singleValueContainer().decode(Swift.String.self)
                        switch name {
                        case "happy":
                            self = .happy
                        case "default":
                            self = .`default`
                        default:
                            throw Swift.DecodingError.dataCorrupted(
                                Swift.DecodingError.Context(
                                    codingPath: decoder.codingPath,
                                    debugDescription: "'\\(name)' is not a case of Mood"
                                )
                            )
                        }
                    }

                    func encode(to encoder: any Swift.Encoder) throws {
                        var container = encoder.singleValueContainer()
                        switch self {
                        case .happy:
                            try container.encode("happy")
                        case .`default`:
                            try container.encode("default")
                        }
                    }
                }
                """
        )
    }

    @Test("An enum that codes itself keeps its own init(from:) and encode(to:)")
    func ownCoding() {
        assertExpansion(
            """
            @Generable
            enum Side {
                case left, right
                init(from decoder: any Decoder) throws { self = .left }
                func encode(to encoder: any Encoder) throws {}
            }
            """,
            expandedSource: """
                enum Side {
                    case left, right
                    init(from decoder: any Decoder) throws { self = .left }
                    func encode(to encoder: any Encoder) throws {}
                }

                extension Side: Generable {
                    static var generationSchema: JSONSchema {
                        .enumeration(["left", "right"])
                    }
                }
                """
        )
    }
}

@Suite("@Generable and @Guide diagnostics")
struct GenerableDiagnosticTests {
    @Test("A class is refused at its keyword")
    func classIsRefused() {
        assertExpansion(
            """
            @Generable
            final class Box {
                var value: Int = 0
            }
            """,
            expandedSource: """
                final class Box {
                    var value: Int = 0
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Generable' applies to a struct or an enum, not a class; a model generates plain values",
                    line: 2,
                    column: 7
                )
            ]
        )
    }

    @Test("An actor is refused at its keyword")
    func actorIsRefused() {
        assertExpansion(
            """
            @Generable
            actor Counter {}
            """,
            expandedSource: """
                actor Counter {}
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Generable' applies to a struct or an enum, not an actor; "
                        + "a model generates plain values",
                    line: 2,
                    column: 1
                )
            ]
        )
    }

    @Test("Every enum case with associated values is reported")
    func payloadCases() {
        assertExpansion(
            """
            @Generable
            enum Shape {
                case circle(radius: Double)
                case square(Double), dot
            }
            """,
            expandedSource: """
                enum Shape {
                    case circle(radius: Double)
                    case square(Double), dot
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Generable' does not support enum cases with associated values yet ('circle'); "
                        + "write the schema by hand or use a struct",
                    line: 3,
                    column: 10
                ),
                DiagnosticSpec(
                    message: "'@Generable' does not support enum cases with associated values yet ('square'); "
                        + "write the schema by hand or use a struct",
                    line: 4,
                    column: 10
                ),
            ]
        )
    }

    @Test("An enum with Int raw values is refused, since they do not encode as strings")
    func intRawValues() {
        assertExpansion(
            """
            @Generable
            enum Level: Int {
                case one = 1
            }
            """,
            expandedSource: """
                enum Level: Int {
                    case one = 1
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Generable' enums need String raw values or none; "
                        + "'Int' raw values do not encode as strings",
                    line: 2,
                    column: 13
                )
            ]
        )
    }

    @Test("An enum without cases is refused, since no value fits it")
    func emptyEnum() {
        assertExpansion(
            """
            @Generable
            enum Nothing {}
            """,
            expandedSource: """
                enum Nothing {}
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Generable' needs at least one case: a model cannot generate an empty enum",
                    line: 2,
                    column: 6
                )
            ]
        )
    }

    @Test("Properties without a written type or with a type that has no schema are reported together")
    func propertyErrors() {
        assertExpansion(
            """
            @Generable
            struct Node {
                var count = 0
                var children: [Node]
                var pair: (Int, Int)
                var scores: [String: Int]
            }
            """,
            expandedSource: """
                struct Node {
                    var count = 0
                    var children: [Node]
                    var pair: (Int, Int)
                    var scores: [String: Int]
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Generable' needs an explicit type on stored property 'count' (for example ': Int')",
                    line: 3,
                    column: 9
                ),
                DiagnosticSpec(
                    message: "'@Generable' cannot derive a schema for 'children' because it contains 'Node' itself; "
                        + "write a recursive schema by hand with JSONSchema.reference(_:) and withDefinitions(_:)",
                    line: 4,
                    column: 19
                ),
                DiagnosticSpec(
                    message: "'@Generable' cannot derive a schema for 'pair': '(Int, Int)' cannot be Generable",
                    line: 5,
                    column: 15
                ),
                DiagnosticSpec(
                    message: "'@Generable' cannot derive a schema for 'scores': a dictionary has no fixed keys; "
                        + "use a '@Generable' struct, or an array of them",
                    line: 6,
                    column: 17
                ),
            ]
        )
    }

    @Test("A guide that does not fit the property's type is reported at the guide")
    func guideMismatch() {
        assertExpansion(
            """
            @Generable
            struct Form {
                @Guide(pattern: "[0-9]+")
                var code: Int
                @Guide(count: 2)
                var name: String
                @Guide(range: 0.5...1.5)
                var size: Int
                @Guide(description: "a")
                @Guide(description: "b")
                var note: String
            }
            """,
            expandedSource: """
                struct Form {
                    var code: Int
                    var name: String
                    var size: Int
                    var note: String
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Guide(pattern:)' applies to String properties, not 'Int'",
                    line: 3,
                    column: 5
                ),
                DiagnosticSpec(
                    message: "'@Guide(count:)' applies to array properties, not 'String'",
                    line: 5,
                    column: 5
                ),
                DiagnosticSpec(
                    message: "'@Guide(range:)' on an Int property needs whole-number bounds",
                    line: 7,
                    column: 5
                ),
                DiagnosticSpec(message: "A property takes one '@Guide'; merge these into one", line: 10, column: 5),
            ]
        )
    }

    @Test("A guide on a computed property or an initialized let is reported")
    func misplacedGuide() {
        assertExpansion(
            """
            struct Form {
                @Guide(description: "Derived")
                var total: Int { 0 }
                @Guide(description: "Fixed")
                let kind = "form"
            }
            """,
            expandedSource: """
                struct Form {
                    var total: Int { 0 }
                    let kind = "form"
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Guide' applies to stored properties of a '@Generable' struct",
                    line: 2,
                    column: 5
                ),
                DiagnosticSpec(
                    message: "'@Guide' has no effect here: Codable never decodes a 'let' that has an initial value",
                    line: 4,
                    column: 5
                ),
            ]
        )
    }
}
