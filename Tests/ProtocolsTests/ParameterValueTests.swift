import Foundation
import Testing
@testable import AFProtocols

@Suite struct ParameterValueLiteralTests {
    @Test func literalsBuildTheMatchingCases() {
        let value: ParameterValue = ["s": "x", "i": 2, "d": 1.5, "b": true, "n": nil, "a": [1, "two"]]
        #expect(value["s"] == .string("x"))
        #expect(value["i"] == .int(2))
        #expect(value["d"] == .double(1.5))
        #expect(value["b"] == .bool(true))
        #expect(value["n"] == .null)
        #expect(value["a"] == .array([.int(1), .string("two")]))
        #expect(value["missing"] == nil)
        #expect(value["a"]?[1]?.stringValue == "two")
        #expect(value["a"]?[2] == nil)
    }

    @Test func repeatedDictionaryLiteralKeyKeepsTheLastValue() {
        let value: ParameterValue = ["k": 1, "k": 2]
        #expect(value == .dictionary(["k": .int(2)]))
    }

    @Test func accessorsReadOnlyTheirOwnCase() {
        #expect(ParameterValue.int(3).intValue == 3)
        #expect(ParameterValue.double(3.0).intValue == 3)
        #expect(ParameterValue.double(3.5).intValue == nil)
        #expect(ParameterValue.int(3).doubleValue == 3.0)
        #expect(ParameterValue.string("3").intValue == nil)
        #expect(ParameterValue.bool(false).boolValue == false)
        #expect(ParameterValue.int(0).boolValue == nil)
        #expect(ParameterValue.null.isNull)
        #expect(ParameterValue.array([]).dictionaryValue == nil)
    }

    @Test func scalarsPrintAsAFNetworkingDoes() {
        #expect(ParameterValue.bool(true).scalarDescription == "1")
        #expect(ParameterValue.bool(false).scalarDescription == "0")
        #expect(ParameterValue.int(-42).scalarDescription == "-42")
        #expect(ParameterValue.double(2.0).scalarDescription == "2")
        #expect(ParameterValue.double(0.1).scalarDescription == "0.1")
        #expect(ParameterValue.double(1e20).scalarDescription == "1e+20")
        #expect(ParameterValue.null.scalarDescription == "")
        #expect(ParameterValue.array([1]).scalarDescription == nil)
    }

    @Test func sortedEntriesCompareASCIIByteByByte() {
        let value: ParameterValue = ["a": 1, "B": 2, "9": 3, "10": 4, "é": 5, "_": 6, "Z": 7]
        #expect(value.sortedEntries.map(\.key) == ["10", "9", "B", "Z", "_", "a", "é"])
    }

    @Test func sortedEntriesFollowNSStringCompare() {
        // AFNetworking sorts with compare: (not literal): "é" sorts as "e" + U+0301, so after "ea" (U+0061
        // < U+0301) and before "f" and "z".
        let value: ParameterValue = ["z": 1, "\u{E9}": 2, "e": 3, "f": 4, "E": 5, "\u{C9}": 6, "ea": 7]
        #expect(value.sortedEntries.map { $0.key.unicodeScalars.map(\.value) } ==
                [[0x45], [0xC9], [0x65], [0x65, 0x61], [0xE9], [0x66], [0x7A]])
        #expect(NSString(string: "\u{E9}").compare("f") == .orderedAscending)
        #expect(NSString(string: "\u{E9}").compare("ea") == .orderedDescending)
    }

    @Test func stringsNSStringFindsEqualFallBackToScalarOrder() {
        // Two spellings of "é" compare equal; the decomposed one (U+0065 ...) sorts first, whichever way round.
        #expect(NSString(string: "e\u{301}").compare("\u{E9}") == .orderedSame)
        #expect(ParameterValue.areInAFOrder("e\u{301}", "\u{E9}"))
        #expect(!ParameterValue.areInAFOrder("\u{E9}", "e\u{301}"))
        #expect(!ParameterValue.areInAFOrder("\u{E9}", "\u{E9}"))
        let keys = ["\u{E9}", "z", "e\u{301}", "e", "\u{1F600}", "a\u{0}", "a"]
        let sorted = keys.sorted(by: ParameterValue.areInAFOrder)
        #expect(sorted.map { $0.unicodeScalars.map(\.value) } ==
                [[0x61], [0x61, 0], [0x65], [0x65, 0x301], [0xE9], [0x7A], [0x1F600]])
        #expect(keys.reversed().sorted(by: ParameterValue.areInAFOrder).map { Array($0.unicodeScalars) } ==
                sorted.map { Array($0.unicodeScalars) })
    }

    @Test func valuesAreSendableAcrossTasks() async {
        let value: ParameterValue = ["nested": ["deep": [1, 2, 3]]]
        let echoed = await Task.detached { value }.value
        #expect(echoed == value)
    }
}

@Suite struct ParameterPairTests {
    @Test func nestedDictionariesArraysSetsAndNullFlattenInAFOrder() {
        let value: ParameterValue = [
            "b": ["y": 2, "x": 1],
            "a": [1, 2],
            "s": .set(["z", "m"]),
            "n": nil,
        ]
        let pairs = value.flattenedPairs().map { "\($0.field)=\($0.value.scalarDescription ?? "?")" }
        #expect(pairs == ["a[]=1", "a[]=2", "b[x]=1", "b[y]=2", "n=", "s=m", "s=z"])
        #expect(value.flattenedPairs()[4].value == .null)
    }

    @Test func arraysOfDictionariesNest() {
        let value: ParameterValue = ["users": [["name": "a"], ["name": "b"]]]
        #expect(value.flattenedPairs().map(\.field) == ["users[][name]", "users[][name]"])
    }

    @Test func setsSortByTheirPrintedFormWithNSStringCompare() {
        let value: ParameterValue = ["s": .set(["z", "\u{E9}", "e", 10, 9])]
        #expect(value.flattenedPairs().map { $0.value.scalarDescription ?? "?" } == ["10", "9", "e", "\u{E9}", "z"])
    }

    @Test func emptyContainersGiveNoPairs() {
        #expect(ParameterValue.dictionary([:]).flattenedPairs().isEmpty)
        #expect(ParameterValue(dictionaryLiteral: ("a", [])).flattenedPairs().isEmpty)
    }
}

@Suite struct ParameterValueBridgingTests {
    struct Profile: Encodable {
        var name: String
        var age: Int
        var score: Double
        var admin: Bool
        var nickname: String?
        var tags: [String]
        var address: Address
        struct Address: Encodable { var city: String }
    }

    @Test func encodableBecomesTheSameTree() throws {
        let profile = Profile(name: "Ana", age: 31, score: 9.5, admin: false, nickname: nil,
                              tags: ["x", "y"], address: .init(city: "Lyon"))
        let value = try ParameterValue(encoding: profile)
        #expect(value == [
            "name": "Ana", "age": 31, "score": 9.5, "admin": false, "tags": ["x", "y"],
            "address": ["city": "Lyon"],
        ])
    }

    @Test func encoderStrategiesApply() throws {
        struct Event: Encodable { var startDate: Date }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .secondsSince1970
        let value = try ParameterValue(encoding: Event(startDate: Date(timeIntervalSince1970: 60)), using: encoder)
        #expect(value == ["start_date": 60])
    }

    @Test func nanCannotBeEncoded() {
        #expect(throws: EncodingError.self) { try ParameterValue(encoding: ["x": Double.nan]) }
    }

    @Test func foundationTreesKeepBooleansApartFromNumbers() throws {
        let json = Data(#"{"t": true, "f": false, "one": 1, "zero": 0, "half": 0.5, "big": 12345678901234, "n": null, "a": ["s"]}"#.utf8)
        let value = try ParameterValue(foundationObject: try JSONSerialization.jsonObject(with: json))
        #expect(value == ["t": true, "f": false, "one": 1, "zero": 0, "half": 0.5, "big": 12345678901234, "n": nil, "a": ["s"]])
    }

    @Test func foundationObjectGivesCodeThatNeedsAnyItsDictionariesAndArrays() throws {
        // The migration guide's bridge: AFNetworking code that casts JSON to NSDictionary/[String: Any].
        let value: ParameterValue = ["user": ["id": 7, "tags": ["a", "b"], "admin": false, "bio": nil]]
        let object = value.foundationObject
        #expect((object as? ParameterValue) == nil)
        let dictionary = try #require(object as? NSDictionary)
        let user = try #require(dictionary["user"] as? [String: Any])
        #expect(user["id"] as? Int == 7)
        #expect(user["tags"] as? NSArray == ["a", "b"] as NSArray)
        #expect(user["admin"] as? Bool == false)
        #expect(user["bio"] is NSNull)
    }

    @Test func foundationObjectRoundTripsThroughJSONSerialization() throws {
        let value: ParameterValue = ["k": [1, 2.5, "s", true, nil]]
        let data = try JSONSerialization.data(withJSONObject: value.foundationObject)
        #expect(try ParameterValue(foundationObject: try JSONSerialization.jsonObject(with: data)) == value)
    }

    @Test func setsAreNotValidJSON() {
        let value: ParameterValue = ["s": .set(["a"])]
        #expect(!JSONSerialization.isValidJSONObject(value.foundationObject))
    }

    @Test func unsupportedFoundationTypesThrow() {
        #expect(throws: ParameterValueConversionError.unsupportedType("Date")) {
            try ParameterValue(foundationObject: Date())
        }
        #expect(throws: ParameterValueConversionError.nonStringKey("1")) {
            try ParameterValue(foundationObject: NSDictionary(dictionary: [1: "x"]))
        }
        #expect(throws: ParameterValueConversionError.nonStringKey("1")) {
            try ParameterValue(foundationObject: [1: "x"])
        }
    }

    @Test func nsDictionaryKeysDifferingOnlyByNormalizationThrow() throws {
        // An NSDictionary can hold both spellings; bridging it to [String: Any] would keep one value and
        // silently drop the other.
        let dictionary = LiteralKeyDictionary(["\u{E9}": 1, "e\u{301}": 2])
        let error = try #require(throws: ParameterValueConversionError.self) {
            try ParameterValue(foundationObject: ["outer": dictionary] as [String: Any])
        }
        // The second spelling met is named.
        #expect(error.duplicateKey?.unicodeScalars.map(\.value) == [0x65, 0x301])
        #expect(error == .duplicateKeyAfterNormalization("\u{E9}"))
        #expect(error.description == "Dictionary keys equal to e\u{301} after Unicode normalization cannot both be kept")
        // Distinct keys, and a Swift dictionary (which holds one of the spellings), still convert.
        #expect(try ParameterValue(foundationObject: NSDictionary(dictionary: ["\u{E9}": 1, "e": 2])) == ["\u{E9}": 1, "e": 2])
        #expect(try ParameterValue(foundationObject: ["e\u{301}": 1] as [String: Any]) == ["\u{E9}": 1])
    }

    @Test func codableRoundTrip() throws {
        let value: ParameterValue = ["a": [1, 2.5, "x", false, nil, ["b": "c"]]]
        let decoded = try JSONDecoder().decode(ParameterValue.self, from: try JSONEncoder().encode(value))
        #expect(decoded == value)
    }
}

extension ParameterValueConversionError {
    /// The key a duplicate-after-normalization error names, for messages.
    var duplicateKey: String? {
        if case .duplicateKeyAfterNormalization(let key) = self { return key }
        return nil
    }
}
