import CCurl

/// A request's libcurl header list, built a line at a time in temporary memory (the stack, for a line of
/// usual length; libcurl copies each line it is given): no String and no C string is made per line.
///
/// Threading: engine thread (a value the transfer builds and then hands to libcurl).
struct HeaderListBuilder {
    /// The list so far; nil until a line was added. Whoever takes it frees it (`curl_slist_free_all`).
    private(set) var list: UnsafeMutablePointer<curl_slist>?

    /// Adds a request field: "name: value", or "name;" for an empty value (libcurl reads "name:" as
    /// "remove this header", "name;" as "send it empty").
    mutating func addField(name: String, value: String) {
        if value.isEmpty {
            addLine(name, ";")
        } else {
            addLine(name, ": ", value)
        }
    }

    /// Adds the line made of `first`, `second` and `third` as they are.
    mutating func addLine(_ first: String, _ second: String = "", _ third: String = "") {
        let length = first.utf8.count + second.utf8.count + third.utf8.count
        let list = self.list
        self.list = withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { line in
            var end = 0
            func copy(_ part: String) {
                for byte in part.utf8 {
                    line[end] = CChar(bitPattern: byte)
                    end += 1
                }
            }
            copy(first)
            copy(second)
            copy(third)
            line[end] = 0
            return curl_slist_append(list, line.baseAddress)
        }
    }
}
