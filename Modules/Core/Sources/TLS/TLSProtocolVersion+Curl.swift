import AFProtocols
import CCurl
import CCurlShim

extension TLSProtocolVersion {
    /// libcurl's `CURLOPT_SSLVERSION` value for handshakes from `minimum` up to `maximum` (nil: the
    /// highest libcurl and OpenSSL support). The constants are converted because libcurl 7's headers declare
    /// them in an enum (imported as `Int`) and libcurl 8's as `long` macros (imported as `Int32`).
    static func curlOption(minimum: Self, maximum: Self?) -> Int {
        let low: Int = switch minimum {
        case .tlsv10: Int(CURL_SSLVERSION_TLSv1_0)
        case .tlsv11: Int(CURL_SSLVERSION_TLSv1_1)
        case .tlsv12: Int(CURL_SSLVERSION_TLSv1_2)
        case .tlsv13: Int(CURL_SSLVERSION_TLSv1_3)
        }
        let high: Int = switch maximum {
        case nil: Int(CURL_SSLVERSION_MAX_DEFAULT)
        case .tlsv10: Int(CURL_SSLVERSION_MAX_TLSv1_0)
        case .tlsv11: Int(CURL_SSLVERSION_MAX_TLSv1_1)
        case .tlsv12: Int(CURL_SSLVERSION_MAX_TLSv1_2)
        case .tlsv13: Int(CURL_SSLVERSION_MAX_TLSv1_3)
        }
        return low | high
    }
}
