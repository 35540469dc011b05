import Foundation

/// The dates of the `Expires` attribute, read as RFC 6265 §5.1.1 ("cookie-date") says browsers read
/// them: tokens between delimiters, the first that looks like a time, a day, a month and a year each
/// taken in turn, so `Wed, 09 Jun 2021 10:18:14 GMT`, `Wednesday, 09-Jun-21 10:18:14 GMT` and
/// `Jun 9 10:18:14 2021` all name the same moment. Anything else, or a date that does not exist
/// (`31 Feb`), is no date.
///
/// Every number is at most four digits, so nothing a server sends can overflow.
enum CookieDate {
    /// The moment the bytes of `text` name (UTC), or nil when they name none.
    static func parse<Bytes: Sequence<UInt8>>(_ text: Bytes) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        var token: [UInt8] = []
        token.reserveCapacity(16)

        func take(_ token: [UInt8]) {
            guard !token.isEmpty else { return }
            if time == nil, let found = parseTime(token) { time = found }
            else if day == nil, let found = leadingNumber(token, minDigits: 1, maxDigits: 2) { day = found }
            else if month == nil, let found = parseMonth(token) { month = found }
            else if year == nil, let found = leadingNumber(token, minDigits: 2, maxDigits: 4) { year = found }
        }
        for byte in text {
            if isDelimiter(byte) {
                take(token)
                token.removeAll(keepingCapacity: true)
            } else {
                token.append(byte)
            }
        }
        take(token)

        guard let time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59,
              day <= daysInMonth(month, year: year) else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + time.hour * 3_600 + time.minute * 60 + time.second))
    }

    /// %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
            || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// `minDigits*maxDigits DIGIT ( non-digit *OCTET )`: the number the token starts with.
    private static func leadingNumber(_ token: [UInt8], minDigits: Int, maxDigits: Int) -> Int? {
        var value = 0
        var digits = 0
        while digits < token.count, isDigit(token[digits]) {
            digits += 1
            guard digits <= maxDigits else { return nil }
            value = value * 10 + Int(token[digits - 1] - 0x30)
        }
        return digits >= minDigits ? value : nil
    }

    /// `hms-time ( non-digit *OCTET )`, each field one or two digits.
    private static func parseTime(_ token: [UInt8]) -> (hour: Int, minute: Int, second: Int)? {
        var fields: [Int] = []
        var index = 0
        while fields.count < 3 {
            var value = 0
            let start = index
            while index < token.count, isDigit(token[index]), index - start < 2 {
                value = value * 10 + Int(token[index] - 0x30)
                index += 1
            }
            guard index > start else { return nil }
            fields.append(value)
            if fields.count < 3 {
                guard index < token.count, token[index] == UInt8(ascii: ":") else { return nil }
                index += 1
            }
        }
        if index < token.count, isDigit(token[index]) { return nil }
        return (fields[0], fields[1], fields[2])
    }

    private static let monthNames: [[UInt8]] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        .map { Array($0.utf8) }

    /// A token whose first three letters name a month, in any case (1 = January).
    private static func parseMonth(_ token: [UInt8]) -> Int? {
        guard token.count >= 3 else { return nil }
        let lowered = token.prefix(3).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        guard let index = monthNames.firstIndex(where: { $0.elementsEqual(lowered) }) else { return nil }
        return index + 1
    }

    private static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    private static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the given day of the proleptic Gregorian calendar (negative before it).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        // Counted from 1 March of year 0, so the leap day falls at the end of each counted year.
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
