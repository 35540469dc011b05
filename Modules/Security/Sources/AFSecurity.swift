// AFSecurity: SecurityPolicy on OpenSSL: pinning, chain and host validation.
// (The module's types land here; this file only names the module's purpose.)
