import Foundation

/// An `NSDictionary` that compares keys literally, as Apple's does, so it reliably holds two spellings of
/// one key (`"\u{E9}"` and `"e\u{301}"`). Linux's NSDictionary holds both only when their NSString hashes
/// land apart, which varies with the process's hash seed.
final class LiteralKeyDictionary: NSDictionary {
    private var storedKeys: [NSString] = []
    private var storedValues: [Any] = []

    convenience init(_ pairs: KeyValuePairs<String, Any>) {
        self.init(objects: nil, forKeys: nil, count: 0)
        storedKeys = pairs.map { NSString(string: $0.key) }
        storedValues = pairs.map(\.value)
    }

    override var count: Int { storedKeys.count }

    override func object(forKey aKey: Any) -> Any? {
        guard let key = (aKey as? NSString).map({ $0 as String }) else { return nil }
        let index = storedKeys.firstIndex { ($0 as String).unicodeScalars.elementsEqual(key.unicodeScalars) }
        return index.map { storedValues[$0] }
    }

    override func keyEnumerator() -> NSEnumerator { NSArray(array: storedKeys).objectEnumerator() }
}
