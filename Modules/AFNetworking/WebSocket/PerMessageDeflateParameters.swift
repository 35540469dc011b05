extension PerMessageDeflate {
    /// What the handshake agreed for permessage-deflate (RFC 7692 §7.1): how each side's compressor
    /// may use its LZ77 window. The defaults are the RFC's when a parameter is absent.
    public struct Parameters: Sendable, Hashable {
        /// The server resets its compressor after each message (`server_no_context_takeover`), so we
        /// reset our decompressor too (default false: the window carries over).
        public var serverNoContextTakeover: Bool
        /// We reset our compressor after each message (`client_no_context_takeover`; default false).
        public var clientNoContextTakeover: Bool
        /// The server compresses with a window of at most 2^n bytes (`server_max_window_bits`, 8 to 15;
        /// default 15). Our decompressor uses this window.
        public var serverMaxWindowBits: Int
        /// We compress with a window of at most 2^n bytes (`client_max_window_bits`, 8 to 15; default 15).
        /// zlib cannot compress raw DEFLATE with an 8-bit window, so 8 compresses with 9, as other zlib
        /// clients do; zlib's distances then stay within 250 bytes (the window less its 262-byte
        /// lookahead), inside the 256 bytes the server agreed to.
        public var clientMaxWindowBits: Int

        /// Parameters with the defaults above; window sizes outside 8...15 are clamped into that range.
        public init(serverNoContextTakeover: Bool = false, clientNoContextTakeover: Bool = false,
                    serverMaxWindowBits: Int = 15, clientMaxWindowBits: Int = 15) {
            self.serverNoContextTakeover = serverNoContextTakeover
            self.clientNoContextTakeover = clientNoContextTakeover
            self.serverMaxWindowBits = min(max(serverMaxWindowBits, 8), 15)
            self.clientMaxWindowBits = min(max(clientMaxWindowBits, 8), 15)
        }
    }
}
