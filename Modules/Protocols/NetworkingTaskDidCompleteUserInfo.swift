import Foundation

/// The userInfo of `networkingTaskDidComplete` under ``NetworkingTaskDidCompleteKey``'s keys, for the
/// session that posts it: a copy of a dictionary that already holds the keys it needs, each value put in
/// through its index, so no key is hashed per notification.
///
/// Why: AFNetworking's keys are 50-odd-byte strings, and inserting one into a `[AnyHashable: Any]` hashed
/// it (about 1,300 instructions a key, 8,600 a notification: a fifth of what an AF request cost beyond the
/// lean path). A dictionary's copy keeps its buckets, its seed and its age, so an index taken from the
/// template is valid in the copy, and setting a value through it neither hashes nor moves anything.
package enum NetworkingTaskDidCompleteUserInfo {
    /// The keys every notification holds (the serializer's) and those it may hold, in the order of the
    /// bits of a template's mask.
    private static let alwaysKey = NetworkingTaskDidCompleteKey.responseSerializer
    private static let optionalKeys: [String] = [
        NetworkingTaskDidCompleteKey.responseData, NetworkingTaskDidCompleteKey.error,
        NetworkingTaskDidCompleteKey.assetPath, NetworkingTaskDidCompleteKey.serializedResponse,
        NetworkingTaskDidCompleteKey.sessionTaskMetrics,
    ]

    /// A dictionary holding the serializer's key and the optional keys of a mask (placeholder values),
    /// and each key's index in it.
    private struct Template: @unchecked Sendable {
        // @unchecked Sendable: its dictionary holds Strings and `()` only and is never changed after it
        // is made (a copy is changed).
        let info: [AnyHashable: Any]
        let alwaysIndex: Dictionary<AnyHashable, Any>.Index
        let optionalIndices: [Dictionary<AnyHashable, Any>.Index?]
    }

    /// One template per set of optional keys (32, made together on first use, once per process).
    private static let templates: [Template] = (0..<(1 << optionalKeys.count)).map { mask in
        var info: [AnyHashable: Any] = Dictionary(minimumCapacity: 1 + optionalKeys.count)
        info[alwaysKey] = ()
        for (bit, key) in optionalKeys.enumerated() where mask & (1 << bit) != 0 { info[key] = () }
        return Template(info: info, alwaysIndex: info.index(forKey: alwaysKey) ?? info.startIndex,
                        optionalIndices: optionalKeys.map { info.index(forKey: $0) })
    }

    /// The userInfo holding each value given (a nil one's key is absent), under AFNetworking's keys.
    /// `metrics`: the task's `SessionTaskMetrics` (AFCore's).
    package static func make(responseSerializer: Any, responseData: Data?, error: (any Error)?, assetPath: URL?,
                             serializedResponse: Any?, metrics: Any?) -> [AnyHashable: Any] {
        var mask = 0
        if responseData != nil { mask |= 1 << 0 }
        if error != nil { mask |= 1 << 1 }
        if assetPath != nil { mask |= 1 << 2 }
        if serializedResponse != nil { mask |= 1 << 3 }
        if metrics != nil { mask |= 1 << 4 }
        let template = templates[mask]
        var info = template.info
        info.values[template.alwaysIndex] = responseSerializer
        // Every index asked for is there: the template holds the mask's keys.
        func put(_ value: Any, _ bit: Int) {
            if let index = template.optionalIndices[bit] { info.values[index] = value }
        }
        if let responseData { put(responseData, 0) }
        if let error { put(error, 1) }
        if let assetPath { put(assetPath, 2) }
        if let serializedResponse { put(serializedResponse, 3) }
        if let metrics { put(metrics, 4) }
        return info
    }
}
