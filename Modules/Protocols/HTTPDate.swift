import Foundation

/// HTTP dates (RFC 9110 §5.6.7) without a `DateFormatter` (slow, and not safe to share across threads):
/// the preferred IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), and the obsolete RFC 850
/// (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`) forms a recipient must
/// accept. Anything else is nil: for `Expires` that means "already expired" (RFC 9111 §5.3).
///
/// Every field is read with a bound before any conversion: the grammar's years have four digits
/// (1601...9999 here; RFC 850's two), so a hostile `Expires: ..., 01 Jan 99999999999 ...` is invalid,
/// never a trap in an `Int32` conversion. Shared by the HTTP cache's rules and `RetryPolicy`'s
/// `Retry-After`.
///
/// Threading: pure functions; call them from any thread.
public enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The date `text` names, or nil.
    public static func parse(_ text: String) -> Date? {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" })
        guard fields.count >= 4 else { return nil }
        var day: Int?, month: Int?, year: Int?, time: (Int, Int, Int)?
        if fields.count == 5, fields[1].count == 3, let asctimeMonth = monthIndex(fields[1]) {
            // asctime: weekday month day time year
            month = asctimeMonth
            day = number(fields[2], digits: 1...2)
            time = clock(fields[3])
            year = number(fields[4], digits: 4...4)
        } else if fields.count >= 5, !fields[1].utf8.contains(UInt8(ascii: "-")) {
            // IMF-fixdate: weekday, day month year time GMT
            guard fields.count == 6, fields[5] == "GMT" else { return nil }
            day = number(fields[1], digits: 1...2)
            month = monthIndex(fields[2])
            year = number(fields[3], digits: 4...4)
            time = clock(fields[4])
        } else {
            // RFC 850: weekday, day-month-yy time GMT
            guard fields.count == 4, fields[3] == "GMT" else { return nil }
            let parts = fields[1].split(separator: "-")
            guard parts.count == 3 else { return nil }
            day = number(parts[0], digits: 1...2)
            month = monthIndex(parts[1])
            if let twoDigits = number(parts[2], digits: 2...2) {
                // A two-digit year more than 50 years ahead is in the past century (RFC 9110 §5.6.7).
                let currentYear = Calendar(identifier: .gregorian).component(.year, from: Date())
                var candidate = currentYear - currentYear % 100 + twoDigits
                if candidate > currentYear + 50 { candidate -= 100 }
                year = candidate
            }
            time = clock(fields[2])
        }
        guard let day, let month, let year, let time, (1...31).contains(day), (1601...9999).contains(year),
              time.0 < 24, time.1 < 60, time.2 < 61 else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(time.0)
        parts.tm_min = Int32(time.1)
        parts.tm_sec = Int32(min(time.2, 59))
        let seconds = timegm(&parts)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// `date` as an IMF-fixdate (for `If-Modified-Since` when only a date is known).
    public static func format(_ date: Date) -> String {
        // Clamped to the years an HTTP date can name, so no Date converts with a trap.
        let interval = date.timeIntervalSince1970
        var seconds = interval.isNaN ? 0 : time_t(min(max(interval, -11_644_473_600), 253_402_300_799).rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekdays[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(monthNames[Int(parts.tm_mon)]) "
            + "\(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    private static func monthIndex(_ text: Substring) -> Int? {
        months.firstIndex(of: text.lowercased())
    }

    private static func clock(_ text: Substring) -> (Int, Int, Int)? {
        let parts = text.split(separator: ":")
        guard parts.count == 3, let hour = number(parts[0], digits: 2...2),
              let minute = number(parts[1], digits: 2...2), let second = number(parts[2], digits: 2...2) else { return nil }
        return (hour, minute, second)
    }

    /// ASCII digits only (no sign, no spaces), as many as `digits` allows: a value that always fits.
    private static func number(_ text: Substring, digits: ClosedRange<Int>) -> Int? {
        let utf8 = text.utf8
        guard digits.contains(utf8.count), utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return utf8.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }
}
