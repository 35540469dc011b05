// The Set-Cookie parser (RFC 6265bis §5.6): exact fields for each shape a server may send.
@testable import AFCookies
import Foundation
import Testing

@Suite("Cookies: parsing Set-Cookie")
struct SetCookieParsingTests {
    @Test func nameValueAndEveryAttribute() throws {
        let cookie = try SetCookie(parsing: " sid = a b ; Path=/app; Domain=.Example.COM; Secure; HttpOnly; SameSite=lax; Max-Age=60; Expires=Wed, 09 Jun 2021 10:18:14 GMT")
        #expect(cookie.name == "sid")
        #expect(cookie.value == "a b")
        #expect(cookie.path == "/app")
        #expect(cookie.domain == "example.com")
        #expect(cookie.isSecure && cookie.isHTTPOnly)
        #expect(cookie.sameSite == .lax)
        #expect(cookie.maxAge == 60)
        #expect(cookie.expires == Date(timeIntervalSince1970: 1_623_233_894))
    }

    @Test func attributeNamesIgnoreCaseAndTheLastOfEachWins() throws {
        let cookie = try SetCookie(parsing: "a=1; PATH=/one; path=/two; max-age=5; MAX-AGE=7; sAmEsItE=None; samesite=bogus")
        #expect(cookie.path == "/two")
        #expect(cookie.maxAge == 7)
        // An unknown SameSite value resets it to the default.
        #expect(cookie.sameSite == nil)
        #expect(try SetCookie(parsing: "a=1; SameSite=None").sameSite == .noRestriction)
    }

    @Test func aValueWithoutEqualsIsANamelessCookie() throws {
        let cookie = try SetCookie(parsing: "token; Path=/")
        #expect(cookie.name == "" && cookie.value == "token")
        // Only the first '=' splits: the rest belongs to the value.
        let equals = try SetCookie(parsing: "k=a=b==")
        #expect(equals.name == "k" && equals.value == "a=b==")
    }

    @Test func malformedAttributesAreIgnoredNotTheCookie() throws {
        let cookie = try SetCookie(parsing: "a=1; Max-Age=12x; Expires=someday; Path=relative; Domain=; Domain=.; =x; ;;")
        #expect(cookie.name == "a" && cookie.value == "1")
        #expect(cookie.maxAge == nil && cookie.expires == nil && cookie.path == nil && cookie.domain == nil)
    }

    @Test func aPathIsReadAsBytesNotCharacters() throws {
        // A combining mark after the slash makes one Character of "/" and the mark; the path still starts
        // with a slash byte, as RFC 6265bis reads it (the fuzz target found the two readings disagreeing).
        let cookie = try SetCookie(parsing: "a=1; Path=/\u{07EF}x")
        #expect(cookie.path == "/\u{07EF}x")
        #expect(StoredCookie.defaultPath(of: "/\u{301}/page") == "/\u{301}")
    }

    @Test func maxAgeTakesASignAndSaturates() throws {
        #expect(try SetCookie(parsing: "a=1; Max-Age=-5").maxAge == -5)
        #expect(try SetCookie(parsing: "a=1; Max-Age=0").maxAge == 0)
        #expect(try SetCookie(parsing: "a=1; Max-Age=99999999999999999999999").maxAge == Int64.max)
        #expect(try SetCookie(parsing: "a=1; Max-Age=-99999999999999999999999").maxAge == Int64.min + 1)
        #expect(try SetCookie(parsing: "a=1; Max-Age=+5").maxAge == nil)
        #expect(try SetCookie(parsing: "a=1; Max-Age=-").maxAge == nil)
    }

    @Test func anAttributeValueOver1024BytesIsIgnored() throws {
        let long = "/" + String(repeating: "p", count: 1_023)
        #expect(try SetCookie(parsing: "a=1; Path=\(long)").path == long)
        #expect(try SetCookie(parsing: "a=1; Path=/short; Path=\(long)p").path == "/short")
    }

    @Test func controlCharactersRefuseTheWholeCookie() {
        for bad in ["a=1\r\nX-Injected: 1", "a=\u{0}1", "a=1; Path=/\u{7F}", "a\u{1F}=1"] {
            #expect(throws: CookieRefusal.controlCharacter) { try SetCookie(parsing: bad) }
        }
        // A tab is whitespace, not a control character.
        #expect((try? SetCookie(parsing: "a=\t1\t"))?.value == "1")
    }

    @Test func sizeBoundsCountNameAndValueTogether() throws {
        let name = String(repeating: "n", count: 96)
        let value = String(repeating: "v", count: 4_000)
        #expect(try SetCookie(parsing: "\(name)=\(value)").value.utf8.count == 4_000)
        #expect(throws: CookieRefusal.tooLarge(4_097)) { try SetCookie(parsing: "\(name)=\(value)v") }
        #expect(throws: CookieRefusal.tooLarge(11)) { try SetCookie(parsing: "abc=12345678", maximumNameValueSize: 10) }
        #expect(throws: CookieRefusal.emptyNameAndValue) { try SetCookie(parsing: " = ; Path=/") }
        #expect(throws: CookieRefusal.emptyNameAndValue) { try SetCookie(parsing: "") }
    }
}

@Suite("Cookies: cookie-date (RFC 6265bis §5.1.1)")
struct CookieDateTests {
    private func date(_ text: String) -> Double? { CookieDate.parse(text.utf8)?.timeIntervalSince1970 }

    @Test func theFormatsServersSend() {
        let expected = 1_623_233_894.0  // 2021-06-09 10:18:14 UTC
        #expect(date("Wed, 09 Jun 2021 10:18:14 GMT") == expected)
        #expect(date("Wednesday, 09-Jun-21 10:18:14 GMT") == expected)
        #expect(date("Wed Jun  9 10:18:14 2021") == expected)
        #expect(date("09 JUNE 2021 10:18:14") == expected)
        #expect(date("2021 jun 9 10:18:14") == expected)
    }

    @Test func twoDigitYearsAndLimits() {
        #expect(date("01 Jan 70 00:00:00") == 0)
        #expect(date("01 Jan 69 00:00:00") == 3_124_224_000)  // 2069
        #expect(date("01 Jan 1601 00:00:00") == -11_644_473_600)
        #expect(date("31 Dec 9999 23:59:59") == 253_402_300_799)
        #expect(date("29 Feb 2024 12:00:00") == 1_709_208_000)
    }

    @Test func whatIsNoDate() {
        for text in ["", "Wed, 09 Jun 2021", "31 Feb 2021 10:00:00", "29 Feb 2023 10:00:00", "01 Jan 1600 00:00:00",
                     "01 Jan 2021 24:00:00", "01 Jan 2021 10:60:00", "01 Jan 2021 10:00:60", "00 Jan 2021 10:00:00",
                     "32 Jan 2021 10:00:00", "01 Foo 2021 10:00:00", "01 Jan 99999999999 10:00:00",
                     "01 Jan 2021 100:00:00", "01 Jan 20211 10:00:00"] {
            #expect(date(text) == nil, "\(text)")
        }
    }
}
