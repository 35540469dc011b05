// The transport is used with the MCP Swift SDK's `Client`, `Tool`, `Value` and messages: importing
// AFMCP brings them (with the package's MCP trait on; without it the module is empty).
#if MCP
@_exported import MCP
#endif
