import Foundation
import RunAnywhereGenerable
import Testing

@Generable(description: "A person found in the text")
struct Contact: Equatable {
    @Guide(description: "Full name", pattern: "[A-Z][a-z]+( [A-Z][a-z]+)*")
    var name: String
    @Guide(range: 0...150)
    var age: Int
    var email: String?
    @Guide(count: 1...3)
    var tags: [Tag]
    @Guide(description: "Where they live")
    var address: Address
    // Computed, so not in the schema.
    var initials: String { String(name.prefix(1)) }
}

@Generable
struct Address: Equatable {
    var city: String
    @Guide(anyOf: ["FR", "GB", "US"])
    var country: String
}

@Generable
enum Tag: String {
    case friend, colleague
    case family = "relative"
}

@Generable(description: "How the writer feels")
enum Mood: Equatable {
    case happy
    case sad
}

@Generable
struct Reading: Equatable {
    @Guide(range: -40.0...60.0)
    var celsius: Double
    @Guide(count: 3)
    var samples: [Int]
    var stationID: String
    var cached: Bool = false
    var moods: [Mood]?

    enum CodingKeys: String, CodingKey {
        case celsius
        case samples
        case stationID = "station_id"
        case moods
    }
}

/// Already states the conformance; the macro then only adds the schema.
@Generable
struct Flag: Generable, Equatable {
    var on: Bool
}

@Suite("@Generable types")
struct GenerableTests {
    @Test("A struct's schema lists its decoded properties in order, narrowed by its guides")
    func structSchema() {
        let expected = """
            {"type":"object","properties":{\
            "name":{"type":"string","pattern":"[A-Z][a-z]+( [A-Z][a-z]+)*","description":"Full name"},\
            "age":{"type":"integer","minimum":0,"maximum":150},\
            "email":{"type":"string"},\
            "tags":{"type":"array","items":{"type":"string","enum":["friend","colleague","relative"]},\
            "minItems":1,"maxItems":3},\
            "address":{"type":"object","properties":{\
            "city":{"type":"string"},"country":{"type":"string","enum":["FR","GB","US"]}},\
            "required":["city","country"],"additionalProperties":false,"description":"Where they live"}},\
            "required":["name","age","tags","address"],"additionalProperties":false,\
            "description":"A person found in the text"}
            """
        #expect(Contact.generationSchema.value.jsonText() == expected)
    }

    @Test("Enums list their raw values, or their case names when they have none")
    func enumSchemas() {
        let tags = #"{"type":"string","enum":["friend","colleague","relative"]}"#
        #expect(Tag.generationSchema.value.jsonText() == tags)
        #expect(
            Mood.generationSchema.value.jsonText()
                == #"{"type":"string","enum":["happy","sad"],"description":"How the writer feels"}"#
        )
    }

    @Test("CodingKeys rename keys and leave out properties; numbers, exact counts and optionals follow")
    func codingKeysSchema() {
        let expected = """
            {"type":"object","properties":{\
            "celsius":{"type":"number","minimum":-40.0,"maximum":60.0},\
            "samples":{"type":"array","items":{"type":"integer"},"minItems":3,"maxItems":3},\
            "station_id":{"type":"string"},\
            "moods":{"type":"array","items":\
            {"type":"string","enum":["happy","sad"],"description":"How the writer feels"}}},\
            "required":["celsius","samples","station_id"],"additionalProperties":false}
            """
        #expect(Reading.generationSchema.value.jsonText() == expected)
        let flag = """
            {"type":"object","properties":{"on":{"type":"boolean"}},"required":["on"],"additionalProperties":false}
            """
        #expect(Flag.generationSchema.value.jsonText() == flag)
    }

    @Test("A value encodes to JSON that decodes back to the same value")
    func roundTrip() throws {
        let contact = Contact(
            name: "Ada Lovelace",
            age: 36,
            email: nil,
            tags: [.friend, .family],
            address: Address(city: "London", country: "GB")
        )
        let json = try JSONValue(encoding: contact)
        #expect(json["tags"] == ["friend", "relative"])
        #expect(json["email"] == nil)
        #expect(try json.decode(as: Contact.self) == contact)

        let reading = Reading(celsius: -3.5, samples: [1, 2, 3], stationID: "LHR", moods: [.sad])
        let readingJSON = try JSONValue(encoding: reading)
        #expect(readingJSON["station_id"] == "LHR")
        #expect(readingJSON["cached"] == nil)
        #expect(try readingJSON.decode(as: Reading.self) == reading)
    }

    @Test("An enum without raw values encodes as its bare case name, as its schema says")
    func caseNameCoding() throws {
        #expect(try JSONValue(encoding: Mood.happy) == "happy")
        #expect(try JSONValue(encoding: [Mood.sad, .happy]) == ["sad", "happy"])
        #expect(try JSONValue.string("sad").decode(as: Mood.self) == .sad)
        #expect(throws: SDKException.self) { try JSONValue.string("angry").decode(as: Mood.self) }
    }

    @Test("Model output in the schema's shape decodes, with absent optionals as nil")
    func decodesModelOutput() throws {
        let output = try JSONValue(
            parsing: """
                {"name": "Grace Hopper", "age": 85, "tags": ["colleague"],
                 "address": {"city": "New York", "country": "US"}}
                """
        )
        let contact = try output.decode(as: Contact.self)
        #expect(contact.name == "Grace Hopper")
        #expect(contact.email == nil)
        #expect(contact.tags == [.colleague])
        #expect(contact.address.country == "US")
    }
}
