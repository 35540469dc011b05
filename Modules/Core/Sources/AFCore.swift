// AFCore: the session engine on libcurl's multi interface, URLSessionManager, HTTPSessionManager and tasks.
// (The module's types land here; this file only names the module's purpose.)
